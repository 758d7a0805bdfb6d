//! The smoke test a release's binaries pass on each platform this machine can run: natively
//! (Linux x86_64, glibc and musl), under qemu-user (Linux arm64) and under wine (Windows). macOS
//! cannot run here: its builds must link, and its platform logic is unit-tested on Linux.
//!
//! What each binary must do, as a user would first try it: name its version and target; replay
//! the example session (the guard blocks `rm -rf /`); answer Claude Code's `PreToolUse` for
//! `rm -rf ~` with a deny, directly and through `hookhost-send`; sign, then verify, a bundle, and
//! refuse it once a byte of its signature changes; check the example org configs; run the
//! guard's whole corpus through the guard component.

use crate::targets::Target;
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// How to start one of `target`'s programs here, or why it cannot be.
pub fn runner(target: &Target, host: &str) -> Result<Vec<String>, String> {
    let host_cpu = host.split('-').next().unwrap_or_default();
    let cpu = target.triple.split('-').next().unwrap_or_default();
    match target.node_os {
        "darwin" => Err("macOS cannot run here (the build must link; its platform logic is unit-tested on Linux)".into()),
        "win32" => which("wine").map(|w| vec![w]).ok_or_else(|| "wine is not installed (packaging/release-tools.sh)".into()),
        _ if cpu == host_cpu => Ok(Vec::new()),
        _ if cpu == "aarch64" => {
            let qemu = which("qemu-aarch64").ok_or("qemu-user is not installed (packaging/release-tools.sh)")?;
            // A glibc build loads its C library from the cross sysroot; a musl build is static.
            Ok(if target.libc == Some("glibc") { vec![qemu, "-L".into(), "/usr/aarch64-linux-gnu".into()] } else { vec![qemu] })
        }
        _ => Err(format!("nothing here runs {} programs", target.triple)),
    }
}

fn which(tool: &str) -> Option<String> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(tool)).find(|p| p.is_file()).map(|p| p.display().to_string())
}

struct Smoke<'a> {
    runner: &'a [String],
    bin: PathBuf,
    work: PathBuf,
    target: &'a Target,
    /// The wine prefix, kept between runs (its first start takes a while).
    env: Vec<(String, String)>,
}

impl Smoke<'_> {
    fn program(&self, name: &str) -> PathBuf {
        self.bin.join(format!("{name}{}", self.target.exe_suffix()))
    }

    fn cmd(&self, name: &str, args: &[&str]) -> Command {
        let program = self.program(name);
        let mut cmd = match self.runner.split_first() {
            Some((first, rest)) => {
                let mut c = Command::new(first);
                c.args(rest).arg(&program);
                c
            }
            None => Command::new(&program),
        };
        cmd.args(args).current_dir(&self.work).envs(self.env.iter().map(|(k, v)| (k, v)));
        cmd
    }

    fn run_in(&self, dir: &Path, name: &str, args: &[&str], stdin: Option<&str>) -> Result<Output> {
        let mut cmd = self.cmd(name, args);
        cmd.current_dir(dir);
        cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() }).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().with_context(|| format!("starting {name} {}", args.join(" ")))?;
        if let Some(input) = stdin {
            child.stdin.take().context("stdin")?.write_all(input.as_bytes())?;
        }
        Ok(child.wait_with_output()?)
    }

    /// Run, and require exit status `code` and every one of `wants` in the output.
    fn expect(&self, what: &str, name: &str, args: &[&str], stdin: Option<&str>, code: i32, wants: &[&str]) -> Result<()> {
        self.expect_in(&self.work, what, name, args, stdin, code, wants, &[])
    }

    /// [`Smoke::expect`] in `dir`, and none of `unwanted` in the output.
    #[allow(clippy::too_many_arguments)]
    fn expect_in(&self, dir: &Path, what: &str, name: &str, args: &[&str], stdin: Option<&str>, code: i32, wants: &[&str], unwanted: &[&str]) -> Result<()> {
        let out = self.run_in(dir, name, args, stdin)?;
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let all = format!("{stdout}{stderr}");
        let missing: Vec<&&str> = wants.iter().filter(|w| !all.contains(**w)).collect();
        let present: Vec<&&str> = unwanted.iter().filter(|w| all.contains(**w)).collect();
        if out.status.code() != Some(code) || !missing.is_empty() || !present.is_empty() {
            let why = match (missing.is_empty(), present.is_empty()) {
                (false, _) => format!(", without {missing:?}"),
                (true, false) => format!(", with {present:?}"),
                _ => String::new(),
            };
            bail!("{}: {what}: `{name} {}` exited {:?} (expected {code}){why}\n--- stdout\n{stdout}\n--- stderr\n{stderr}", self.target.triple, args.join(" "), out.status.code());
        }
        eprintln!("xtask: smoke {}: {what}: ok", self.target.triple);
        Ok(())
    }
}

/// A Wine prefix for the smoke test, made once, with the `bcryptprimitives.dll` Wine 8 lacks
/// (`packaging/wine/bcryptprimitives.c`, built with mingw-w64): Rust's standard library gets its
/// random bytes there, and without it no Rust program starts.
fn prepare_wine(root: &Path, prefix: &Path) -> Result<()> {
    let system32 = prefix.join("drive_c/windows/system32");
    if !system32.is_dir() {
        let out = Command::new("wineboot").arg("--init").env("WINEPREFIX", prefix).env("WINEDEBUG", "-all").output().context("running wineboot (packaging/release-tools.sh installs wine)")?;
        if !out.status.success() || !system32.is_dir() {
            bail!("wineboot --init did not make a Wine prefix in {}: {}", prefix.display(), String::from_utf8_lossy(&out.stderr));
        }
    }
    let dll = system32.join("bcryptprimitives.dll");
    if !dll.is_file() {
        let src = root.join("packaging/wine");
        let out = Command::new("x86_64-w64-mingw32-gcc")
            .args(["-shared", "-O2", "-o"])
            .arg(&dll)
            .arg(src.join("bcryptprimitives.c"))
            .arg(src.join("bcryptprimitives.def"))
            .arg("-ladvapi32")
            .output()
            .context("running x86_64-w64-mingw32-gcc (packaging/release-tools.sh installs mingw-w64)")?;
        if !out.status.success() {
            bail!("building bcryptprimitives.dll for Wine failed: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
    Ok(())
}

/// Claude Code's `PreToolUse` for `rm -rf ~`.
const RM_RF_HOME: &str = r#"{"session_id":"smoke","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"},"cwd":"/"}"#;

/// Smoke-test `target`'s binaries in `bin` (run from `runner`), in a scratch directory holding
/// the repository's examples.
pub fn run(root: &Path, target: &Target, bin: &Path, runner: &[String], scratch: &Path) -> Result<()> {
    let work = scratch.join(format!("smoke-{}", target.triple));
    if work.exists() {
        std::fs::remove_dir_all(&work).with_context(|| format!("emptying {}", work.display()))?;
    }
    std::fs::create_dir_all(&work)?;
    for f in ["examples/session.jsonl", "examples/bundle/bundle.toml", "examples/org/managed.toml", "examples/org/user/hooks.toml"] {
        let dest = work.join(f.trim_start_matches("examples/"));
        std::fs::create_dir_all(dest.parent().expect("a parent"))?;
        std::fs::copy(root.join(f), &dest).with_context(|| format!("copying {f}"))?;
    }
    // Each run's own home and cache: nothing from this machine's user config.
    let home = work.join("home");
    std::fs::create_dir_all(&home)?;
    let mut env = vec![("HOME".to_string(), home.display().to_string()), ("XDG_CONFIG_HOME".into(), home.join(".config").display().to_string()), ("XDG_CACHE_HOME".into(), home.join(".cache").display().to_string()), ("HOOKHOST_SERVER".into(), "http://127.0.0.1:9".into())];
    if runner.first().is_some_and(|r| r.contains("qemu")) {
        // qemu-user tracks every page of the instance pool's address-space reservation: a
        // minute of system time per engine. Allocate on demand instead (the same limits).
        env.push(("HOOKHOST_POOLING".into(), "0".into()));
    }
    if target.windows() {
        let prefix = scratch.join("wine-prefix");
        prepare_wine(root, &prefix)?;
        env.push(("WINEPREFIX".into(), prefix.display().to_string()));
        env.push(("WINEDEBUG".into(), "-all".into()));
        // The XDG variables hold unix paths, which Windows does not take as absolute: the run's
        // own cache as a Windows path (Wine's Z: is /), not the prefix's %LOCALAPPDATA%, which
        // outlives the run.
        env.push(("HOOKHOST_CACHE_DIR".into(), format!("Z:{}", home.join("cache").display().to_string().replace('/', "\\"))));
    }
    let bin = std::fs::canonicalize(bin).with_context(|| format!("{}: the binaries' directory", bin.display()))?;
    let s = Smoke { runner, bin, work: work.clone(), target, env };

    s.expect("--version names the target", "hookhost", &["--version"], None, 0, &[target.triple])?;
    s.expect("replay of the example session blocks rm -rf /", "hookhost", &["replay", "--no-project", "session.jsonl"], None, 0, &["rm -rf / --no-preserve-root", "block"])?;
    // The compiled guard was cached by that run: the next one uses it (the cache and its key are
    // private, mode 0600, or it is not used). Not under Wine: it keeps no access list of its own
    // but turns the one hookhost sets into unix mode bits (0775 for "the user alone"), so the
    // key reads back as readable by Everyone and the cache is, rightly, not used there.
    let work = &work;
    if !target.windows() {
        s.expect_in(work, "a second run uses the private precompile cache", "hookhost", &["replay", "--no-project", "session.jsonl"], None, 0, &["block"], &["not using the precompile cache"])?;
    }
    // A project's hook files are read only when they are the user's and only the user can write
    // them (uid and mode bits; Windows: owner SID and access list).
    let project = work.join("project");
    std::fs::create_dir_all(project.join(".hookhost"))?;
    std::fs::copy(work.join("org/user/hooks.toml"), project.join(".hookhost/hooks.toml"))?;
    s.expect_in(&project, "a project of the user's is read (and waits for approval)", "hookhost", &["check"], None, 0, &["are not approved"], &["ignored:"])?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(project.join(".hookhost/hooks.toml"), std::fs::Permissions::from_mode(0o666))?;
        s.expect_in(&project, "a project others may write is ignored", "hookhost", &["check"], None, 0, &["ignored:", "is writable by"], &[])?;
    }
    let deny = &[r#""permissionDecision":"deny""#, "rule fs.rm-root"];
    s.expect("run --output claude-code denies rm -rf ~", "hookhost", &["run", "--output", "claude-code", "--no-project"], Some(RM_RF_HOME), 0, deny)?;
    // The thin client: where it can start hookhost itself (not under qemu-user, which does not
    // follow an exec into another emulated program), deciding in-process with no daemon up;
    // where there are unix sockets, through a daemon on one.
    if runner.is_empty() || target.windows() {
        s.expect("hookhost-send (no daemon: in-process) denies rm -rf ~", "hookhost-send", &["--output", "claude-code", "--", "--no-project"], Some(RM_RF_HOME), 0, deny)?;
    }
    #[cfg(unix)]
    if !target.windows() {
        let socket = work.join("hh.sock");
        let listen = format!("unix:{}", socket.display());
        let mut daemon = s.cmd("hookhost", &["serve", "--no-project", "--listen", &listen]).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().context("starting hookhost serve")?;
        let started = std::time::Instant::now();
        let up = loop {
            if std::os::unix::net::UnixStream::connect(&socket).is_ok() {
                break true;
            }
            if started.elapsed() > std::time::Duration::from_secs(300) || daemon.try_wait()?.is_some() {
                break false;
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
        };
        let result = if up {
            s.expect("hookhost-send through hookhost serve on a unix socket denies rm -rf ~", "hookhost-send", &["--server", &listen, "--no-fallback", "--output", "claude-code"], Some(RM_RF_HOME), 0, deny)
        } else {
            Err(anyhow::anyhow!("{}: hookhost serve --listen {listen} did not come up", target.triple))
        };
        let _ = daemon.kill();
        let out = daemon.wait_with_output()?;
        result.with_context(|| format!("the daemon said: {}", String::from_utf8_lossy(&out.stderr)))?;
    }
    // Windows has no unix sockets: the daemon listens on loopback TCP, and hookhost-send sends
    // the event and serve's token only once the TCP table names a process of this user as the
    // listener (cli/src/bin/send/peer.rs). Wine (8.0) names no owning process for any row —
    // process 0 even for a listener and a connection of the asking process itself — so here the
    // client must refuse the daemon, send nothing and decide in-process.
    if target.windows() {
        through_tcp_daemon(&s, deny).with_context(|| format!("{}: hookhost-send through hookhost serve on loopback TCP", target.triple))?;
    }
    s.expect("key generate", "hookhost", &["key", "generate", "-o", "smoke"], None, 0, &["secret key"])?;
    s.expect("bundle pack", "hookhost", &["bundle", "pack", "bundle", "-o", "policy.hhb"], None, 0, &["manifest sha256:"])?;
    s.expect("bundle sign", "hookhost", &["bundle", "sign", "--key", "smoke.key", "policy.hhb"], None, 0, &["signed acme/shell-policy@1.0.0"])?;
    s.expect("bundle verify of the signed bundle", "hookhost", &["bundle", "verify", "policy.hhb", "--key", "smoke.pub"], None, 0, &["ok: acme/shell-policy@1.0.0"])?;
    let sig = std::fs::read_dir(&work)?.filter_map(|e| e.ok()).map(|e| e.path()).find(|p| p.extension().is_some_and(|x| x == "minisig")).context("bundle sign wrote no signature")?;
    let mut bytes = std::fs::read(&sig)?;
    let line2 = bytes.iter().position(|b| *b == b'\n').context("a signature line")? + 20;
    bytes[line2] ^= 0x01;
    std::fs::write(&sig, bytes)?;
    s.expect("bundle verify refuses a changed signature", "hookhost", &["bundle", "verify", "policy.hhb", "--key", "smoke.pub"], None, 1, &["acme/shell-policy"])?;
    let mut check = s.cmd("hookhost", &["check", "--no-project", "--config", "org/user/hooks.toml"]);
    check.env("HOOKHOST_MANAGED_CONFIG", "org/managed.toml");
    let out = check.output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() || !text.contains("ok: 3 hook(s) loaded") {
        bail!("{}: check of the example org configs failed ({:?}):\n{text}{}", target.triple, out.status.code(), String::from_utf8_lossy(&out.stderr));
    }
    eprintln!("xtask: smoke {}: check of the example org configs: ok", target.triple);
    s.expect("the guard's corpus through the guard component", "hookhost", &["bench", "guard"], None, 0, &["(100.0%)"])?;
    Ok(())
}

/// Start `hookhost serve` on a free loopback port, have `hookhost-send` ask it about `rm -rf ~`,
/// then stop it. Under Wine, whose TCP table names no owning process, the client cannot tell
/// who listens: with `--no-fallback` it blocks having sent nothing, and by default it decides
/// in-process (a deny).
fn through_tcp_daemon(s: &Smoke<'_>, deny: &[&str]) -> Result<()> {
    use std::io::BufRead;
    use std::sync::mpsc;
    use std::time::Duration;
    // Its own token file: Wine keeps no access list of its own, so the daemon's default token
    // file, once made, can read back as others' (the precompile cache key's case).
    std::fs::write(s.work.join("serve.token"), "0123456789abcdef0123456789abcdef\n")?;
    let mut daemon = s.cmd("hookhost", &["serve", "--no-project", "--listen", "127.0.0.1:0", "--token-file", "serve.token"]).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().context("starting hookhost serve")?;
    let stderr = daemon.stderr.take().context("serve's stderr")?;
    // The address comes from serve's first line; the rest is kept for an error. Not joined: under
    // Wine the wineserver may hold the pipe open after serve has gone.
    let (url_tx, url_rx) = mpsc::channel();
    let (said_tx, said_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut said = String::new();
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Some(url) = line.strip_prefix("hookhost serve: listening on ") {
                let _ = url_tx.send(url.to_string());
            }
            said.push_str(&line);
            said.push('\n');
            let _ = said_tx.send(said.clone());
        }
    });
    let result = match url_rx.recv_timeout(Duration::from_secs(300)) {
        Ok(url) => {
            let refused = ["cannot tell who serves", "nothing was sent to it"];
            s.expect("hookhost-send --no-fallback sends nothing to a loopback daemon whose owner the TCP table does not name (Wine), and blocks", "hookhost-send", &["--server", &url, "--token-file", "serve.token", "--no-fallback", "--output", "claude-code"], Some(RM_RF_HOME), 2, &refused)
                .and_then(|()| s.expect("hookhost-send then decides in-process (deny rm -rf ~)", "hookhost-send", &["--server", &url, "--token-file", "serve.token", "--output", "claude-code", "--", "--no-project"], Some(RM_RF_HOME), 0, &[deny, &["running the event in-process"]].concat()))
        }
        Err(_) => Err(anyhow::anyhow!("hookhost serve --listen 127.0.0.1:0 did not say where it listens")),
    };
    let _ = daemon.kill();
    let _ = daemon.wait();
    std::thread::sleep(Duration::from_millis(200));
    let said = said_rx.try_iter().last().unwrap_or_default();
    result.with_context(|| format!("the daemon said: {said}"))
}
