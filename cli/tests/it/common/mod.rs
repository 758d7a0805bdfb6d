//! Shared by the binary's test files (each uses what it needs).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// A command for `program` (one of this package's binaries, or a shell that runs one) that
/// inherits nothing of the machine's hookhost or agent setup: an empty home of its own (this
/// test process's), no `XDG_*` directory, no `HOOKHOST_*` variable (but the shared precompile
/// cache: [`cache_dir`]) and none of the
/// variables that move an agent's settings. A test sets what it needs on top.
pub fn bin(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = Command::new(program);
    hermetic(&mut cmd);
    cmd
}

/// Make `cmd` hermetic, as [`bin`] does.
pub fn hermetic(cmd: &mut Command) {
    static HOME: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let tmp = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let home = HOME.get_or_init(|| {
        std::fs::create_dir_all(tmp).unwrap();
        tempfile::Builder::new().prefix("hermetic-home-").tempdir_in(tmp).unwrap().keep()
    });
    // Rust's toolchain is found from the real home, for a hook build a test runs.
    let real_home = std::env::var_os("HOME").map(std::path::PathBuf::from).unwrap_or_default();
    for (var, dir) in [("CARGO_HOME", ".cargo"), ("RUSTUP_HOME", ".rustup")] {
        if std::env::var_os(var).is_none() {
            cmd.env(var, real_home.join(dir));
        }
    }
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("XDG_") || name.starts_with("HOOKHOST_") {
            cmd.env_remove(&*name);
        }
    }
    for var in ["CODEX_HOME", "CLAUDE_CONFIG_DIR", "COPILOT_HOME", "GEMINI_CLI_HOME", "GEMINI_CLI_SYSTEM_SETTINGS_PATH", "CLAUDE_CODE_MANAGED_SETTINGS_PATH", "OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR", "DOCKER_AGENT_CONFIG_DIR", "CAGENT_CONFIG_DIR"] {
        cmd.env_remove(var);
    }
    cmd.env("HOME", home).env("HOOKHOST_CACHE_DIR", cache_dir());
}

/// The precompile cache every hermetic command shares ([`bin`]): this user's, as hookhost
/// would find it for the test process (its entries are sealed and content-addressed, so sharing
/// it changes no outcome, and a warm one spares every run compiling the built-ins again), else
/// one in the test build's directory.
pub fn cache_dir() -> std::path::PathBuf {
    hookhost::types::paths::cache_dir(None).unwrap_or_else(|| std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("hookhost-cache"))
}

/// Run `hookhost` as `configure` sets it up, with `stdin` as its input; its output.
pub fn hookhost_with(configure: impl FnOnce(&mut Command), stdin: &[u8]) -> Output {
    let mut cmd = bin(env!("CARGO_BIN_EXE_hookhost"));
    configure(&mut cmd);
    output_of(cmd, stdin)
}

/// Run `cmd` with `stdin` as its input; its output.
pub fn output_of(mut cmd: Command, stdin: &[u8]) -> Output {
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn the command");
    // A program that fails before reading its input (a bad config) closes the pipe: what
    // it printed and its exit code are what the test reads.
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "writing the command's stdin: {e}");
    }
    child.wait_with_output().unwrap()
}

/// Run `cmd` as `cmd | head -0` would: its reader gone before the first line. Its output
/// (stderr, exit status) once it ends.
pub fn with_reader_gone(mut cmd: Command) -> Output {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawn the command");
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

/// A successful run's stdout as JSON (the test fails with hookhost's stderr otherwise).
pub fn json_of(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// A running `hookhost serve`, stopped when dropped.
pub struct Daemon {
    pub child: Child,
    pub addr: String,
    stderr: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Daemon {
    pub fn start(args: &[&str]) -> Daemon {
        Daemon::start_with(args, |_| {})
    }

    /// Start `serve` with `args`, its command set up further by `configure` (directory, env).
    /// A TCP daemon without `--token-file` gets `--no-token` (a test's own daemon on a free
    /// loopback port); [`Daemon::start_as_is`] passes the arguments as they are.
    pub fn start_with(args: &[&str], configure: impl FnOnce(&mut Command)) -> Daemon {
        let tcp = !args.iter().any(|a| a.starts_with("unix:"));
        let mut all: Vec<&str> = args.to_vec();
        if tcp && !args.contains(&"--token-file") {
            all.push("--no-token");
        }
        Daemon::start_as_is(&all, configure)
    }

    /// Start `serve` with exactly `args`.
    pub fn start_as_is(args: &[&str], configure: impl FnOnce(&mut Command)) -> Daemon {
        let mut cmd = bin(env!("CARGO_BIN_EXE_hookhost"));
        configure(&mut cmd);
        let mut child = cmd
            .arg("serve")
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let lines = BufReader::new(child.stderr.take().unwrap());
        let sink = stderr.clone();
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                if let Some(addr) = line.strip_prefix("hookhost serve: listening on ") {
                    let _ = tx.send(addr.to_string());
                }
                sink.lock().unwrap().push(line);
            }
        });
        let addr = rx.recv_timeout(Duration::from_secs(120)).unwrap_or_else(|_| panic!("serve did not start: {:?}", stderr.lock().unwrap()));
        Daemon { child, addr: addr.trim_start_matches("http://").to_string(), stderr }
    }

    pub fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
        let mut s = TcpStream::connect(&self.addr).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        exchange(&mut s, method, path, headers, body)
    }

    /// How many stderr lines so far contain `needle`.
    pub fn lines(&self, needle: &str) -> usize {
        self.stderr.lock().unwrap().iter().filter(|l| l.contains(needle)).count()
    }

    pub fn logged(&self, needle: &str) -> bool {
        self.stderr.lock().unwrap().iter().any(|l| l.contains(needle))
    }

    pub fn signal(&self, sig: i32) {
        // SAFETY: kill only sends a signal to our own child.
        unsafe {
            libc::kill(self.child.id() as i32, sig);
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn exchange<S: Read + Write>(s: &mut S, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    // Events are JSON: said so unless the test says otherwise.
    if method == "POST" && !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type")) {
        req.push_str("Content-Type: application/json\r\n");
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_string()).unwrap_or_default();
    (status, dechunk(&body))
}

/// The body of a chunked response, or the body as it is.
fn dechunk(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    loop {
        let Some((size, after)) = rest.split_once("\r\n") else { return body.to_string() };
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else { return body.to_string() };
        if n == 0 {
            return out;
        }
        out.push_str(&after[..n.min(after.len())]);
        rest = after.get(n + 2..).unwrap_or("");
    }
}

