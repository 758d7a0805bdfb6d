//! `hookhost bench`: one policy — block destructive shell commands, allow the rest — run four
//! ways over the same fixed mix of `pre_tool_use` payloads, side by side in one process:
//!
//! 1. `wasm`: the built-in guard-destructive plugin through the host, a fresh sandboxed
//!    instance per call with the default limits (and `wasm-all-packs`: the same with every rule
//!    pack on, `packs = ["all"]`, deciding the mix the same way);
//! 2. `sandbox`: a bash + jq script through the built-in bash adapter in sandbox mode;
//! 3. `bash-jq`: the same script spawned per call with `bash -c`, the way Claude Code runs hooks;
//! 4. `native`: `hookhost-native-guard` (the plugin's own Rust code compiled natively) spawned
//!    per call.
//!
//! Then the ways a runtime reaches hookhost (issue #14), answering in Claude Code's protocol:
//!
//! 5. `serve`: a `hookhost serve` daemon with the wasm hook, one keep-alive loopback HTTP
//!    connection (`POST /v1/hooks/claude-code`);
//! 6. `http-floor`, for scale: the same client against a bare responder thread in this process
//!    that reads each request and answers `{}` at once — one HTTP exchange over loopback with
//!    no decision, the floor under `serve` on this machine;
//! 7. `send`: `hookhost-send --output claude-code` spawned per call against that daemon (what
//!    a command-hook runtime runs);
//! 8. `run`: `hookhost run --output claude-code` spawned per call with the embedded default
//!    config (the one-shot way, no daemon).
//!
//! With `--plugin FILE` (repeatable), each given hook runs the same mix as one more way after the
//! wasm hook (`plugin:NAME`, a fresh instance per call, default limits): how a hook in another
//! language compares. Its decisions are its own policy's, so only its errors are checked.
//!
//! Every call's decision is checked against the expected one, so the figures are for real work.

use anyhow::{bail, Context as _, Result};
use hookhost::{ConfigFile, HookEvent, Host};
use serde::Serialize;
use serde_json::{json, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod guard;
pub(crate) use guard::*;

/// The bash + jq version of the policy (a Claude Code `PreToolUse` hook).
pub const GUARD_SCRIPT: &str = include_str!("bench/guard.sh");

/// The payload mix: (tool, arguments, blocked?).
fn mix() -> Vec<(&'static str, Value, bool)> {
    let bash = |command: &str, blocked: bool| ("bash", json!({ "command": command }), blocked);
    vec![
        bash("ls -la", false),
        bash("git status --short", false),
        bash("cargo test --workspace 2>&1 | tail -20", false),
        bash("rm -rf /", true),
        bash("rm -rf target/debug", false),
        ("edit_file", json!({"path": "src/lib.rs", "old_string": "fn main() {}", "new_string": "fn main() { run() }"}), false),
        bash("sudo rm -rf --no-preserve-root /", true),
        bash("grep -rn TODO src/ | head", false),
        bash("dd if=/dev/zero of=/dev/sda bs=1M", true),
        ("read_file", json!({"path": "README.md"}), false),
        bash("npm install && npm run build", false),
        bash("mkfs.ext4 /dev/sdb1", true),
    ]
}

#[derive(Serialize)]
pub struct WayResult {
    way: String,
    label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<String>,
    calls: usize,
    p50_us: f64,
    p99_us: f64,
    /// p50 of this way / p50 of the wasm hook.
    #[serde(skip_serializing_if = "Option::is_none")]
    p50_vs_wasm: Option<f64>,
}

#[derive(Serialize)]
pub struct Report {
    policy: &'static str,
    payloads: usize,
    blocked: usize,
    seconds_per_way: f64,
    ways: Vec<WayResult>,
}

/// Run the ways for about `seconds` each, with `plugins` as extra wasm ways.
pub async fn run(seconds: f64, plugins: &[PathBuf]) -> Result<Report> {
    let budget = Duration::from_secs_f64(seconds);
    let mix = mix();
    let events: Vec<(HookEvent, bool)> = mix.iter().map(|(tool, args, blocked)| (HookEvent::pre_tool_use(tool, args.clone()), *blocked)).collect();
    let payloads: Vec<(String, bool)> = mix
        .iter()
        .map(|(tool, args, blocked)| {
            let p = json!({"session_id": "bench", "cwd": ".", "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": args});
            (p.to_string(), *blocked)
        })
        .collect();

    let mut ways = Vec::new();
    let state = tempfile::tempdir()?;
    let state = state.path();
    let wasm = host("executor = { plugin = \"builtin:guard-destructive\" }").await?;
    ways.push(finish("wasm", "wasm hook, fresh instance per call", Ok(in_host(&wasm, &events, budget, true).await?)));
    let all_packs = host("executor = { plugin = \"builtin:guard-destructive\", settings = { packs = [\"all\"] } }").await?;
    ways.push(finish("wasm-all-packs", "wasm hook, every rule pack on", Ok(in_host(&all_packs, &events, budget, true).await?)));
    for plugin in plugins {
        let (path, name) = plugin_named(plugin)?;
        // A hook that keeps state keeps it in a file of the bench's own, as `serve` keeps it.
        let store = hookhost::kv::StateStore::at(&state.join(hookhost::kv::FILE_NAME), Default::default());
        // As `serve` keeps it: writes made in memory, committed in batches.
        store.defer_writes();
        let plugin_host = host_with_state(&format!("executor = {{ plugin = {} }}", toml_string(&path.to_string_lossy())), store).await.with_context(|| format!("--plugin {}", plugin.display()))?;
        let samples = in_host(&plugin_host, &events, budget, false).await.with_context(|| format!("--plugin {}", plugin.display()))?;
        ways.push(finish(format!("plugin:{name}"), format!("{name}, fresh instance per call"), Ok(samples)));
    }
    let settings = format!("executor = {{ plugin = \"builtin:bash-adapter\", settings = {{ dialect = \"claude-code\", command = {} }} }}", toml_string(GUARD_SCRIPT));
    let sandbox = host(&settings).await?;
    ways.push(finish("sandbox", "bash + jq script, bash adapter sandbox", Ok(in_host(&sandbox, &events, budget, true).await?)));

    // Resolved to their files, so the spawn takes the posix_spawn path.
    let bash_jq = match (crate::install::on_path("bash"), crate::install::on_path("jq")) {
        (Some(bash), Some(_)) => {
            let argv = vec![bash.into_os_string(), "-c".into(), GUARD_SCRIPT.into()];
            Ok(spawned(argv, payloads.clone(), budget).await?)
        }
        (None, _) => Err(Skip("bash is not on PATH".into())),
        (_, None) => Err(Skip("jq is not on PATH (install it: apt-get install jq)".into())),
    };
    ways.push(finish("bash-jq", "bash + jq script, spawned per call", bash_jq));
    let native = match native_guard() {
        Some(path) => Ok(spawned(vec![path.into_os_string()], payloads.clone(), budget).await?),
        None => Err(Skip("hookhost-native-guard is not next to this binary (build both: cargo build --release -p hookhost-cli)".into())),
    };
    ways.push(finish("native", "native binary, spawned per call", native));

    // The drop-in ways: a daemon, the thin client, the one-shot command.
    let exe = std::env::current_exe()?;
    let dir = tempfile::tempdir()?;
    let config = dir.path().join("hooks.toml");
    std::fs::write(&config, "[[hooks]]\nid = \"bench\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n")?;
    let daemon = Daemon::start(&exe, &config)?;
    ways.push(finish("serve", "hookhost serve, loopback HTTP keep-alive", Ok(over_http(&daemon.addr, payloads.clone(), budget).await?)));
    // The floor makes no decision: every payload expects its `{}` (an allow).
    let undecided: Vec<(String, bool)> = payloads.iter().map(|(p, _)| (p.clone(), false)).collect();
    let floor = Responder::start()?;
    ways.push(finish("http-floor", "for scale: loopback HTTP, no decision", Ok(over_http(&floor.addr, undecided, budget).await?)));
    let send = match exe.parent().map(|d| d.join("hookhost-send")).filter(|p| p.is_file()) {
        Some(path) => {
            let argv = vec![path.into_os_string(), "--server".into(), format!("http://{}", daemon.addr).into(), "--output".into(), "claude-code".into()];
            Ok(spawned(argv, payloads.clone(), budget).await?)
        }
        None => Err(Skip("hookhost-send is not next to this binary (build both: cargo build --release -p hookhost-cli)".into())),
    };
    ways.push(finish("send", "hookhost-send to serve, spawned per call", send));
    drop(daemon);
    // Each `--plugin` as a command-hook runtime runs it: `hookhost run` spawned per call, its
    // session state in a file of the bench's own (what a get and a put cost a fresh process).
    for (i, plugin) in plugins.iter().enumerate() {
        let (path, name) = plugin_named(plugin)?;
        let config = dir.path().join(format!("plugin-{i}.toml"));
        std::fs::write(&config, format!("[[hooks]]\nid = \"bench\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = {} }}\n", toml_string(&path.to_string_lossy())))?;
        let argv = vec![exe.clone().into_os_string(), "run".into(), "--no-project".into(), "--config".into(), config.into_os_string()];
        let env = vec![("HOOKHOST_STATE_DIR".into(), state.join(format!("run-{i}")).into_os_string())];
        ways.push(finish(format!("run:{name}"), format!("{name} by hookhost run, spawned"), Ok(run_spawned(argv, env, payloads.clone(), budget).await?)));
    }
    let argv = vec![exe.into_os_string(), "run".into(), "--output".into(), "claude-code".into()];
    ways.push(finish("run", "hookhost run (default config), spawned", Ok(spawned(argv, payloads, budget).await?)));

    let base = ways[0].p50_us;
    for w in ways.iter_mut().filter(|w| w.skipped.is_none()) {
        w.p50_vs_wasm = Some((w.p50_us / base * 100.0).round() / 100.0);
    }
    Ok(Report {
        policy: "block destructive shell commands, allow the rest",
        payloads: mix.len(),
        blocked: mix.iter().filter(|m| m.2).count(),
        seconds_per_way: seconds,
        ways,
    })
}

/// Why a way did not run (a missing tool); anything else is an error.
struct Skip(String);

type Samples = std::result::Result<Vec<Duration>, Skip>;

fn finish(way: impl Into<String>, label: impl Into<String>, samples: Samples) -> WayResult {
    let (samples, skipped) = match samples {
        Ok(s) => (s, None),
        Err(Skip(why)) => (Vec::new(), Some(why)),
    };
    let round = |us: f64| (us * 10.0).round() / 10.0;
    WayResult { way: way.into(), label: label.into(), skipped, calls: samples.len(), p50_us: round(crate::stats::percentile(&samples, 0.50)), p99_us: round(crate::stats::percentile(&samples, 0.99)), p50_vs_wasm: None }
}

async fn host(executor: &str) -> Result<Host> {
    host_with_state(executor, hookhost::kv::StateStore::in_memory(Default::default())).await
}

/// The bench hook with hooks' state in `store` (never the user's).
async fn host_with_state(executor: &str, store: hookhost::kv::StateStore) -> Result<Host> {
    host_on(&["pre_tool_use"], executor, store).await
}

/// The bench hook on each of `events` (a hook each, one plugin: they share its state), with
/// hooks' state in `store`.
async fn host_on(events: &[&str], executor: &str, store: hookhost::kv::StateStore) -> Result<Host> {
    let toml: String = events.iter().map(|e| format!("[[hooks]]\nid = \"bench{}\"\nevent = \"{e}\"\n{executor}\n", if *e == "pre_tool_use" { "" } else { "-results" })).collect();
    let config = ConfigFile::parse(&toml, Path::new("bench.toml"), Path::new(".")).context("bench config")?;
    Host::builder().config(config).state_store(store).build().await.context("loading the bench hook")
}

fn toml_string(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// Dispatch the mix round-robin for `budget` (at least one full round), checking decisions
/// when `checked` (a hook's error fails the bench either way).
async fn in_host(host: &Host, events: &[(HookEvent, bool)], budget: Duration, checked: bool) -> Result<Vec<Duration>> {
    let mut samples = Vec::new();
    let started = Instant::now();
    // One untimed round warms caches and checks every decision once with its error text.
    for (event, blocked) in events {
        let outcome = host.dispatch(event).await;
        if let Some(error) = outcome.hooks.iter().find_map(|h| h.error.as_deref()) {
            bail!("the bench hook failed on {}: {error}", event.to_value());
        }
        if checked {
            check(outcome.is_block(), *blocked, || event.to_value().to_string())?;
        }
    }
    while samples.len() < events.len() || started.elapsed() < budget {
        for (event, blocked) in events {
            let t = Instant::now();
            let outcome = host.dispatch(event).await;
            samples.push(t.elapsed());
            if checked {
                check(outcome.is_block(), *blocked, || event.to_value().to_string())?;
            }
        }
    }
    Ok(samples)
}

/// `what` names the input, built only when the decision is wrong.
fn check(got_block: bool, want_block: bool, what: impl FnOnce() -> String) -> Result<()> {
    if got_block != want_block {
        bail!("wrong decision for {}: {} (expected {})", what(), verdict(got_block), verdict(want_block));
    }
    Ok(())
}

fn verdict(block: bool) -> &'static str {
    if block { "block" } else { "allow" }
}

/// A `hookhost serve` on a free loopback port, stopped when dropped.
struct Daemon {
    child: std::process::Child,
    addr: String,
}

impl Daemon {
    fn start(exe: &Path, config: &Path) -> Result<Daemon> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let addr = format!("127.0.0.1:{port}");
        let child = Command::new(exe).args(["serve", "--no-token", "--listen", &addr, "--config"]).arg(config).stdout(Stdio::null()).stderr(Stdio::null()).spawn().context("spawning hookhost serve")?;
        let daemon = Daemon { child, addr };
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(120) {
            if let Ok((200, _)) = crate::loadtest::Conn::open(&daemon.addr).and_then(|mut c| c.request("GET", "/healthz", b"")) {
                return Ok(daemon);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        bail!("hookhost serve did not come up on {}", daemon.addr)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A bare HTTP/1.1 responder on a loopback port, in a thread of this process: it reads each
/// request (headers, then a `Content-Length` body) and answers `{}` with one write. What is
/// left of `serve`'s time once the daemon's work is taken out: the kernel's loopback path and
/// the two wake-ups a round trip costs.
struct Responder {
    addr: String,
}

impl Responder {
    fn start() -> Result<Responder> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?.to_string();
        // Serves connections one after the other until the process exits.
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let _ = Responder::answer(stream);
            }
        });
        Ok(Responder { addr })
    }

    fn answer(stream: std::net::TcpStream) -> std::io::Result<()> {
        stream.set_nodelay(true)?;
        let mut writer = stream.try_clone()?;
        let mut reader = std::io::BufReader::new(stream);
        while crate::loadtest::read_message(&mut reader)?.is_some() {
            writer.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}")?;
        }
        Ok(())
    }
}

/// Claude Code's answer: a deny is a block; an empty answer (or `{}`) an allow.
fn claude_block(stdout: &[u8]) -> Result<bool> {
    let text = String::from_utf8_lossy(stdout);
    match text.trim() {
        "" | "{}" => Ok(false),
        t if t.contains("\"permissionDecision\":\"deny\"") => Ok(true),
        t => bail!("unexpected answer {t:?}"),
    }
}

/// POST each payload to a daemon's Claude Code route over one keep-alive connection.
async fn over_http(addr: &str, payloads: Vec<(String, bool)>, budget: Duration) -> Result<Vec<Duration>> {
    let addr = addr.to_string();
    tokio::task::spawn_blocking(move || {
        let mut conn = crate::loadtest::Conn::open(&addr)?;
        let once = |payload: &str| -> Result<Option<bool>> {
            let (status, body) = conn.request("POST", "/v1/hooks/claude-code", payload.as_bytes())?;
            if status != 200 {
                bail!("hookhost serve answered HTTP {status}: {}", String::from_utf8_lossy(&body));
            }
            claude_block(&body).map(Some)
        };
        time_payloads(&payloads, budget, once)
    })
    .await?
}

/// Run `once` over every payload (a checked, untimed round first), then in timed rounds for
/// `budget` (at least one), checking every decision.
/// Time `once` on each payload, round after round, for `budget`; `once` says whether the payload
/// was blocked (`None`: a hook whose decisions are not the guard's, not checked).
fn time_payloads(payloads: &[(String, bool)], budget: Duration, mut once: impl FnMut(&str) -> Result<Option<bool>>) -> Result<Vec<Duration>> {
    let mut samples = Vec::new();
    let started = Instant::now();
    let checked = |block: Option<bool>, blocked: bool, payload: &String| block.map_or(Ok(()), |block| check(block, blocked, || payload.clone()));
    for (payload, blocked) in payloads {
        checked(once(payload)?, *blocked, payload)?;
    }
    while samples.len() < payloads.len() || started.elapsed() < budget {
        for (payload, blocked) in payloads {
            let t = Instant::now();
            let block = once(payload)?;
            samples.push(t.elapsed());
            checked(block, *blocked, payload)?;
        }
    }
    Ok(samples)
}

/// Run `argv` (with `env` added) on `payload` as its stdin, and wait for it.
fn spawn_once(argv: &[std::ffi::OsString], env: &[(std::ffi::OsString, std::ffi::OsString)], payload: &str) -> Result<std::process::Output> {
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("spawning {}", argv[0].to_string_lossy()))?;
    // A hook may exit without reading stdin; a broken pipe is not an error.
    let _ = child.stdin.take().expect("piped").write_all(payload.as_bytes());
    Ok(child.wait_with_output()?)
}

/// Spawn `hookhost run` (canonical answers) per call with `env`: the hook's decisions are its
/// own and not checked, a hook's error fails the way (its figure would not be the hook's).
async fn run_spawned(argv: Vec<std::ffi::OsString>, env: Vec<(std::ffi::OsString, std::ffi::OsString)>, payloads: Vec<(String, bool)>, budget: Duration) -> Result<Vec<Duration>> {
    tokio::task::spawn_blocking(move || {
        let once = |payload: &str| -> Result<Option<bool>> {
            let out = spawn_once(&argv, &env, payload)?;
            let answer: Value = serde_json::from_slice(&out.stdout).with_context(|| format!("hookhost run answered {:?}: {}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr).trim()))?;
            if let Some(error) = answer["hooks"].as_array().into_iter().flatten().find_map(|h| h["error"].as_str()) {
                bail!("the bench hook failed under hookhost run: {error}");
            }
            Ok(None)
        };
        time_payloads(&payloads, budget, once)
    })
    .await?
}

/// A `--plugin`'s file and its name in the table (its directory and file name).
fn plugin_named(plugin: &Path) -> Result<(PathBuf, String)> {
    let path = std::fs::canonicalize(plugin).with_context(|| format!("--plugin {}", plugin.display()))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let name = match path.parent().and_then(Path::file_name) {
        Some(dir) => format!("{}/{name}", dir.to_string_lossy()),
        None => name,
    };
    Ok((path, name))
}

/// Spawn `argv` per call with the payload on stdin; exit 2 is a block, 0 an allow — or, for
/// hookhost's own commands (exit 0), Claude Code's answer on stdout.
async fn spawned(argv: Vec<std::ffi::OsString>, payloads: Vec<(String, bool)>, budget: Duration) -> Result<Vec<Duration>> {
    tokio::task::spawn_blocking(move || {
        let once = |payload: &str| -> Result<Option<bool>> {
            let out = spawn_once(&argv, &[], payload)?;
            match out.status.code() {
                Some(0) => claude_block(&out.stdout).map(Some),
                Some(2) => Ok(Some(true)),
                other => bail!("{} exited with {other:?}: {}", argv[0].to_string_lossy(), String::from_utf8_lossy(&out.stderr).trim()),
            }
        };
        time_payloads(&payloads, budget, once)
    })
    .await?
}

/// `hookhost-native-guard`, built beside this binary.
fn native_guard() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let path = exe.parent()?.join("hookhost-native-guard");
    path.is_file().then_some(path)
}

/// The report as a table.
pub fn render(r: &Report) -> String {
    let mut out = format!(
        "hookhost bench: {} — {} pre_tool_use payloads ({} blocked), ~{} s per way\n\n",
        r.policy, r.payloads, r.blocked, r.seconds_per_way
    );
    // The label column fits the longest label (`--plugin` ways name their file).
    let width = r.ways.iter().map(|w| w.label.chars().count()).max().unwrap_or(0).max(42);
    out.push_str(&format!("{:<width$} {:>8} {:>11} {:>11} {:>12}\n", "way", "calls", "p50", "p99", "p50 vs wasm"));
    for w in &r.ways {
        match &w.skipped {
            Some(why) => out.push_str(&format!("{:<width$} skipped: {why}\n", w.label)),
            None => out.push_str(&format!(
                "{:<width$} {:>8} {:>11} {:>11} {:>11.1}×\n",
                w.label,
                w.calls,
                human(w.p50_us),
                human(w.p99_us),
                w.p50_vs_wasm.unwrap_or(0.0)
            )),
        }
    }
    out
}

fn human(us: f64) -> String {
    if us >= 1000.0 { format!("{:.2} ms", us / 1000.0) } else { format!("{us:.1} µs") }
}

