//! `hookhost load-test`: drive a real `hookhost serve` (this binary, spawned on a free loopback
//! port) with concurrent keep-alive clients, a mix of good and hostile hooks, config reloads
//! during the run and malformed requests between them, and check every answer.
//!
//! It fails (exit 1) when any request is lost or answered wrongly, when a malformed request does
//! not get its error or stops the daemon serving, or when the daemon's file descriptors or
//! resident memory grow over the run. Bounded: loopback only, a fixed request count, and a
//! deadline for the whole run.

use anyhow::{bail, Context as _, Result};
use serde::Serialize;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub(crate) struct LoadArgs {
    /// Requests to send, over all clients.
    #[arg(long, default_value_t = 50_000)]
    pub requests: usize,
    /// Concurrent clients, each on its own keep-alive connection.
    #[arg(long, default_value_t = 4)]
    pub clients: usize,
    /// Config reloads during the run (alternately SIGHUP and a rewritten config file; one of
    /// them a broken config, which must leave the old one serving).
    #[arg(long, default_value_t = 6)]
    pub reloads: usize,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The daemon's config: a guard, two hostile hooks and a rewriter. `{mark}` changes per reload.
fn config(mark: usize) -> String {
    format!(
        r#"# load-test config, generation {mark}
[[hooks]]
id = "guard"
event = "pre_tool_use"
executor = {{ plugin = "builtin:guard-destructive" }}
on_error = "block"

# Hostile: never ends; it runs out of fuel on every call, and fails closed.
[[hooks]]
id = "spin"
event = "pre_tool_use"
matcher = {{ tool_pattern = "^spin$" }}
executor = {{ plugin = "builtin:bash-adapter", settings = {{ command = "while true; do :; done" }}, fuel = 20000000 }}
on_error = "block"

# Hostile: floods its output past the cap; a warning, the call passes.
[[hooks]]
id = "flood"
event = "pre_tool_use"
matcher = {{ tool_pattern = "^flood$" }}
executor = {{ plugin = "builtin:bash-adapter", settings = {{ command = "yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | head -c 200000" }} }}
on_error = "warn"

[[hooks]]
id = "redact"
event = "post_tool_use"
executor = {{ plugin = "builtin:redact-secrets" }}
on_error = "block"
"#
    )
}

/// One request of the mix: route, body, and what the answer must say.
struct Case {
    path: &'static str,
    body: String,
    expect: Expect,
}

enum Expect {
    /// `/v1/events`: this `decision`, and (for a rewrite) this text in the patch.
    Outcome(&'static str, Option<&'static str>),
    /// `/v1/hooks/claude-code`: an empty body (pass), or a deny.
    ClaudePass,
    ClaudeDeny,
}

fn mix() -> Vec<Case> {
    let pre = |tool: &str, command: &str| json!({"hook_event_name": "PreToolUse", "session_id": "load", "tool_name": tool, "tool_input": {"command": command}}).to_string();
    let event = |body: String, decision: &'static str| Case { path: "/v1/events", body, expect: Expect::Outcome(decision, None) };
    let claude = |body: String, expect: Expect| Case { path: "/v1/hooks/claude-code", body, expect };
    vec![
        event(pre("Bash", "ls -la"), "pass"),
        event(pre("Bash", "rm -rf /"), "block"),
        claude(pre("Bash", "git status"), Expect::ClaudePass),
        claude(pre("Bash", "dd if=/dev/zero of=/dev/sda"), Expect::ClaudeDeny),
        event(pre("Bash", "cargo build --release"), "pass"),
        event(pre("spin", "x"), "block"),
        event(pre("Bash", "npm test"), "pass"),
        event(pre("flood", "x"), "pass"),
        Case {
            path: "/v1/events",
            body: json!({"hook_event_name": "PostToolUse", "session_id": "load", "tool_name": "Bash", "tool_input": {"command": "env"}, "tool_response": {"stdout": "token ghp_0123456789abcdefABCDEF0123456789abcd"}}).to_string(),
            expect: Expect::Outcome("pass", Some("[REDACTED")),
        },
        claude(pre("Bash", "mkfs.ext4 /dev/sdb1"), Expect::ClaudeDeny),
    ]
}

/// A keep-alive HTTP/1.1 connection to the daemon.
pub(crate) struct Conn {
    reader: BufReader<TcpStream>,
}

impl Conn {
    pub(crate) fn open(addr: &str) -> Result<Conn> {
        let stream = TcpStream::connect(addr).with_context(|| format!("connecting to {addr}"))?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        Ok(Conn { reader: BufReader::new(stream) })
    }

    pub(crate) fn request(&mut self, method: &str, path: &str, body: &[u8]) -> Result<(u16, Vec<u8>)> {
        let head = format!("{method} {path} HTTP/1.1\r\nHost: loopback\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n", body.len());
        let stream = self.reader.get_mut();
        stream.write_all(head.as_bytes())?;
        stream.write_all(body)?;
        read_response(&mut self.reader)
    }
}

/// Read one response with a `Content-Length` body.
fn read_response(reader: &mut BufReader<TcpStream>) -> Result<(u16, Vec<u8>)> {
    let Some((line, body)) = read_message(reader)? else {
        bail!("the connection closed without a response");
    };
    let status: u16 = line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).with_context(|| format!("bad status line {line:?}"))?;
    Ok((status, body))
}

/// One HTTP/1.1 message (a request or a response): its first line and its `Content-Length`
/// body; `None` when the peer closed the connection before sending one.
pub(crate) fn read_message(reader: &mut impl BufRead) -> std::io::Result<Option<(String, Vec<u8>)>> {
    let mut first = String::new();
    if reader.read_line(&mut first)? == 0 {
        return Ok(None);
    }
    let mut length = 0usize;
    let mut line = String::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("bad Content-Length {value:?}: {e}")))?;
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Some((first, body)))
}

/// Whether an answer is what the case expects; `Err` says what was wrong.
fn judge(case: &Case, status: u16, body: &[u8]) -> std::result::Result<(), String> {
    let text = String::from_utf8_lossy(body);
    if status != 200 {
        return Err(format!("HTTP {status}: {text}"));
    }
    match case.expect {
        Expect::Outcome(decision, patch) => {
            let v: Value = serde_json::from_slice(body).map_err(|e| format!("{e}: {text}"))?;
            if v["decision"] != decision {
                return Err(format!("decision {} (expected {decision})", v["decision"]));
            }
            if let Some(needle) = patch {
                if !v["patch"].to_string().contains(needle) {
                    return Err(format!("no {needle:?} in the patch: {text}"));
                }
            }
            Ok(())
        }
        Expect::ClaudePass if body.is_empty() || body == b"{}" => Ok(()),
        Expect::ClaudeDeny if text.contains("\"permissionDecision\":\"deny\"") => Ok(()),
        Expect::ClaudePass | Expect::ClaudeDeny => Err(format!("unexpected answer {text:?}")),
    }
}

/// A malformed request and the status it must get (`None`: the connection is closed).
fn malformed(addr: &str, max_body: usize) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut note = |what: &str, got: String| out.push((what.to_string(), got));
    // Oversized: one byte over the cap.
    let mut c = Conn::open(addr)?;
    let (status, _) = c.request("POST", "/v1/events", &vec![b' '; max_body + 1])?;
    note("oversized body", format!("HTTP {status}"));
    // Not JSON.
    let mut c = Conn::open(addr)?;
    let (status, _) = c.request("POST", "/v1/events", b"{not json")?;
    note("not JSON", format!("HTTP {status}"));
    // Truncated: a body shorter than its Content-Length, then the client hangs up.
    let mut s = TcpStream::connect(addr)?;
    s.write_all(b"POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{\"hook_event_name\":")?;
    drop(s);
    note("truncated body", "client hung up".into());
    // Slow headers: half a request line, then nothing; the daemon must close it.
    let s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    (&s).write_all(b"POST /v1/events HTTP/1.1\r\nHost: x\r\n")?;
    let mut buf = [0u8; 256];
    let closed = match (&s).read(&mut buf) {
        Ok(0) => "closed by the daemon".to_string(),
        Ok(n) => format!("closed with {:?}", String::from_utf8_lossy(&buf[..n]).lines().next().unwrap_or("")),
        Err(e) => format!("still open: {e}"),
    };
    note("slow headers", closed);
    Ok(out)
}

fn proc_status(pid: u32) -> (u64, usize) {
    let rss_kib = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0);
    (rss_kib, fds)
}

/// A free loopback port (bound and released; the daemon binds it right after).
fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[derive(Serialize)]
pub(crate) struct Report {
    requests: usize,
    clients: usize,
    wrong: usize,
    first_wrong: Vec<String>,
    seconds: f64,
    requests_per_second: f64,
    p50_us: f64,
    p99_us: f64,
    reloads_ok: u64,
    reloads_failed: u64,
    malformed: Vec<(String, String)>,
    rss_kib_before: u64,
    rss_kib_after: u64,
    fds_before: usize,
    fds_after: usize,
}

const MAX_BODY: usize = 1 << 20;
/// The whole run's deadline, whatever the request count.
const DEADLINE: Duration = Duration::from_secs(900);

pub(crate) fn run(args: &LoadArgs) -> Result<Report> {
    if args.clients == 0 || args.requests == 0 {
        return Err(crate::usage("--clients and --requests must be at least 1"));
    }
    let dir = tempfile::tempdir()?;
    let config_path = dir.path().join("hooks.toml");
    std::fs::write(&config_path, config(0))?;
    let port = free_port()?;
    let addr = format!("127.0.0.1:{port}");
    let exe = std::env::current_exe()?;
    let child = Command::new(&exe)
        // A private daemon of this command on a free loopback port: no token needed.
        .args(["serve", "--no-token", "--listen", &addr, "--request-timeout", "2", "--max-body", &MAX_BODY.to_string(), "--config"])
        .arg(&config_path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("spawning hookhost serve")?;
    let daemon = Daemon(child);
    let pid = daemon.0.id();
    wait_healthy(&addr)?;

    let cases = Arc::new(mix());
    // Warm up (every case 100 times, checked: caches and allocator pools fill), then measure the
    // daemon's footprint.
    let mut warm = Conn::open(&addr)?;
    for _ in 0..100 {
        for case in cases.iter() {
            let (status, body) = warm.request("POST", case.path, case.body.as_bytes())?;
            judge(case, status, &body).map_err(|e| anyhow::anyhow!("warm-up: {}: {e}", case.body))?;
        }
    }
    drop(warm);
    let (rss_before, fds_before) = proc_status(pid);

    let next = Arc::new(AtomicUsize::new(0));
    let wrong = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    let clients: Vec<_> = (0..args.clients)
        .map(|_| {
            let (cases, next, wrong, addr, total) = (cases.clone(), next.clone(), wrong.clone(), addr.clone(), args.requests);
            std::thread::spawn(move || -> Result<Vec<Duration>> {
                let mut conn = Conn::open(&addr)?;
                let mut samples = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total || started.elapsed() > DEADLINE {
                        return Ok(samples);
                    }
                    let case = &cases[i % cases.len()];
                    let t = Instant::now();
                    let answer = conn.request("POST", case.path, case.body.as_bytes());
                    samples.push(t.elapsed());
                    let verdict = match answer {
                        Ok((status, body)) => judge(case, status, &body),
                        Err(e) => {
                            // A lost request: say so, and go on with a new connection.
                            conn = Conn::open(&addr)?;
                            Err(format!("lost: {e:#}"))
                        }
                    };
                    if let Err(why) = verdict {
                        wrong.lock().unwrap().push(format!("request {i} ({}): {why}", case.body));
                    }
                }
            })
        })
        .collect();

    // Reloads and malformed requests while the clients run.
    let mut malformed_seen = Vec::new();
    let broken_at = args.reloads / 2;
    for r in 0..args.reloads {
        let target = args.requests * (r + 1) / (args.reloads + 1);
        while next.load(Ordering::Relaxed) < target && started.elapsed() < DEADLINE {
            std::thread::sleep(Duration::from_millis(5));
        }
        if r == broken_at {
            // A broken config: the old one must keep serving.
            replace(&config_path, "[[hooks]]\nid = \"broken\"\nevent = \"no_such_event\"\n")?;
            hang_up(pid);
            malformed_seen.extend(malformed(&addr, MAX_BODY)?);
            std::thread::sleep(Duration::from_millis(200));
        }
        replace(&config_path, &config(r + 1))?;
        if r % 2 == 0 {
            hang_up(pid);
        }
    }
    let mut samples = Vec::new();
    for c in clients {
        samples.extend(c.join().map_err(|_| anyhow::anyhow!("a client thread panicked"))??);
    }
    let seconds = started.elapsed().as_secs_f64();
    // Let the file-change poll see the last rewrite, then read the counters.
    std::thread::sleep(Duration::from_millis(1500));
    let (status, metrics) = Conn::open(&addr)?.request("GET", "/metrics", b"")?;
    if status != 200 {
        bail!("GET /metrics answered HTTP {status}");
    }
    let metrics = String::from_utf8_lossy(&metrics).into_owned();
    let counter = |result: &str| metrics.lines().find_map(|l| l.strip_prefix(&format!("hookhost_reloads_total{{result=\"{result}\"}} "))).and_then(|n| n.parse().ok()).unwrap_or(0);
    let (rss_after, fds_after) = proc_status(pid);
    // The daemon still answers correctly after everything.
    let mut last = Conn::open(&addr)?;
    for case in cases.iter() {
        let (status, body) = last.request("POST", case.path, case.body.as_bytes())?;
        judge(case, status, &body).map_err(|e| anyhow::anyhow!("after the run: {}: {e}", case.body))?;
    }
    let wrong = std::mem::take(&mut *wrong.lock().unwrap());
    let sent = samples.len();
    let round = |us: f64| (us * 10.0).round() / 10.0;
    Ok(Report {
        requests: sent,
        clients: args.clients,
        wrong: wrong.len() + args.requests.saturating_sub(sent),
        first_wrong: wrong.into_iter().take(5).collect(),
        seconds: (seconds * 100.0).round() / 100.0,
        requests_per_second: (sent as f64 / seconds).round(),
        p50_us: round(crate::stats::percentile(&samples, 0.50)),
        p99_us: round(crate::stats::percentile(&samples, 0.99)),
        reloads_ok: counter("ok"),
        reloads_failed: counter("failed"),
        malformed: malformed_seen,
        rss_kib_before: rss_before,
        rss_kib_after: rss_after,
        fds_before,
        fds_after,
    })
}

/// Replace the config as a deploy should: write a new file and rename it over the old one.
fn replace(path: &std::path::Path, text: &str) -> Result<()> {
    let next = path.with_extension("toml.next");
    std::fs::write(&next, text)?;
    std::fs::rename(&next, path)?;
    Ok(())
}

fn wait_healthy(addr: &str) -> Result<()> {
    let started = Instant::now();
    // The first start compiles the bash adapter when the cache is cold.
    while started.elapsed() < Duration::from_secs(300) {
        if let Ok(mut c) = Conn::open(addr) {
            if let Ok((200, _)) = c.request("GET", "/healthz", b"") {
                return Ok(());
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    bail!("hookhost serve did not answer /healthz on {addr} within 300 s")
}

impl Report {
    /// What is wrong with the run, if anything: each failed check, one line.
    pub(crate) fn failures(&self, reloads: usize) -> Vec<String> {
        let mut out = Vec::new();
        if self.wrong > 0 {
            out.push(format!("{} request(s) lost or answered wrongly, first: {}", self.wrong, self.first_wrong.join(" | ")));
        }
        let expect = [("oversized body", "HTTP 413"), ("not JSON", "HTTP 400"), ("truncated body", "client hung up"), ("slow headers", "closed")];
        for (what, want) in expect {
            match self.malformed.iter().find(|(w, _)| w == what) {
                Some((_, got)) if got.starts_with(want) => {}
                Some((_, got)) => out.push(format!("{what}: {got} (expected {want})")),
                None if reloads > 0 => out.push(format!("{what}: not tried")),
                None => {}
            }
        }
        if reloads > 0 && self.reloads_failed == 0 {
            out.push("the broken config was not refused".into());
        }
        if reloads > 0 && self.reloads_ok == 0 {
            out.push("no reload took effect".into());
        }
        if self.fds_after > self.fds_before + 8 {
            out.push(format!("file descriptors grew from {} to {}", self.fds_before, self.fds_after));
        }
        if self.rss_kib_after > self.rss_kib_before + self.rss_kib_before / 4 + 16 * 1024 {
            out.push(format!("resident memory grew from {} to {} KiB", self.rss_kib_before, self.rss_kib_after));
        }
        out
    }

    pub(crate) fn render(&self) -> String {
        let mut s = format!(
            "{} requests from {} clients in {:.2} s ({} req/s): p50 {} µs, p99 {} µs; {} wrong or lost\n",
            self.requests, self.clients, self.seconds, self.requests_per_second, self.p50_us, self.p99_us, self.wrong
        );
        s.push_str(&format!("reloads: {} ok, {} refused (the broken config; the old one kept serving)\n", self.reloads_ok, self.reloads_failed));
        for (what, got) in &self.malformed {
            s.push_str(&format!("malformed: {what}: {got}\n"));
        }
        s.push_str(&format!("daemon RSS {} → {} KiB, fds {} → {}\n", self.rss_kib_before, self.rss_kib_after, self.fds_before, self.fds_after));
        s
    }
}

#[cfg(test)]
mod tests;

/// Ask the daemon we spawned to reload (SIGHUP). Where there are no signals it reloads when it
/// sees its config file change, which the load test does too.
fn hang_up(pid: u32) {
    #[cfg(unix)]
    // SAFETY: kill only sends SIGHUP to the daemon this load test spawned.
    unsafe {
        libc::kill(pid as i32, libc::SIGHUP);
    }
    #[cfg(not(unix))]
    let _ = pid;
}
