//! `hookhost-send`: a command hook that forwards the runtime's event to a running `hookhost
//! serve` and answers as the runtime expects — a process of a few milliseconds instead of a
//! host per call. Standard library only: no wasmtime, no async runtime.
//!
//! ```text
//! hookhost-send --output claude-code [--server http://127.0.0.1:7807 | --server unix:PATH]
//!               [--token-file F] [--fail-closed] [--no-fallback] [-- HOOKHOST-RUN-ARGS...]
//! ```
//!
//! When the daemon cannot be reached, it runs the event in-process by exec'ing `hookhost run
//! --output P HOOKHOST-RUN-ARGS` (the `hookhost` beside this binary, else on PATH), unless
//! `--no-fallback`. A daemon that answers with an error is the runtime's non-blocking error
//! (exit 1, one stderr line) — or, with `--fail-closed`, every runtime's block (exit 2, the
//! reason on stderr).

use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::Duration;

/// The daemon's default address (`hookhost serve`'s default).
const DEFAULT_SERVER: &str = "http://127.0.0.1:7807";
/// The largest event forwarded (the daemon's own default body cap).
const MAX_EVENT: u64 = 32 << 20;
const PROTOCOLS: [&str; 6] = ["json", "claude-code", "codex", "gemini-cli", "docker-agent", "starchild"];

struct Args {
    server: String,
    output: String,
    token: Option<String>,
    fail_closed: bool,
    fallback: bool,
    timeout: Duration,
    run_args: Vec<String>,
}

fn usage_error(msg: &str) -> ExitCode {
    eprintln!("hookhost-send: error: {msg}");
    ExitCode::from(2)
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        server: std::env::var("HOOKHOST_SERVER").unwrap_or_else(|_| DEFAULT_SERVER.to_string()),
        output: "json".into(),
        token: std::env::var("HOOKHOST_TOKEN").ok().filter(|t| !t.is_empty()),
        fail_closed: false,
        fallback: true,
        timeout: Duration::from_secs(600),
        run_args: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--server" => args.server = value("--server")?,
            "--output" => args.output = value("--output")?,
            "--token-file" => {
                let path = value("--token-file")?;
                let text = std::fs::read_to_string(&path).map_err(|e| format!("--token-file: cannot read {path} ({e})"))?;
                args.token = Some(text.trim().to_string());
            }
            "--timeout" => args.timeout = Duration::from_secs(value("--timeout")?.parse().map_err(|_| "--timeout: a number of seconds".to_string())?),
            "--fail-closed" => args.fail_closed = true,
            "--no-fallback" => args.fallback = false,
            "--" => {
                args.run_args = it.by_ref().collect();
                break;
            }
            "-h" | "--help" => return Err("usage: hookhost-send --output PROTOCOL [--server URL|unix:PATH] [--token-file F] [--timeout SECS] [--fail-closed] [--no-fallback] [-- HOOKHOST-RUN-ARGS...]".into()),
            other => return Err(format!("unknown argument {other:?}; see --help")),
        }
    }
    if !PROTOCOLS.contains(&args.output.as_str()) {
        return Err(format!("--output: unknown protocol {:?}; use one of {}", args.output, PROTOCOLS.join(", ")));
    }
    Ok(args)
}

/// The daemon's answer: status and body.
struct Answer {
    status: u16,
    body: Vec<u8>,
}

/// One HTTP/1.1 exchange over `stream`.
fn exchange<S: Read + Write>(mut stream: S, path: &str, token: Option<&str>, body: &[u8]) -> std::io::Result<Answer> {
    let mut head = format!("POST {path} HTTP/1.1\r\nHost: hookhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n", body.len());
    if let Some(t) = token {
        head.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").ok_or_else(|| std::io::Error::other("the daemon's answer has no header end"))?;
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).ok_or_else(|| std::io::Error::other("the daemon's answer has no status"))?;
    let mut body = raw[split + 4..].to_vec();
    if head.lines().any(|l| l.to_ascii_lowercase().starts_with("transfer-encoding:") && l.to_ascii_lowercase().contains("chunked")) {
        body = dechunk(&body);
    }
    Ok(Answer { status, body })
}

fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&rest[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = eol + 2;
        out.extend_from_slice(&rest[start..(start + size).min(rest.len())]);
        rest = rest.get(start + size + 2..).unwrap_or(&[]);
    }
    out
}

/// Send the event; `Err` when the daemon cannot be reached at all.
fn send(args: &Args, body: &[u8]) -> std::io::Result<Answer> {
    let path = if args.output == "json" { "/v1/events".to_string() } else { format!("/v1/hooks/{}", args.output) };
    let token = args.token.as_deref();
    if let Some(socket) = args.server.strip_prefix("unix:") {
        let s = std::os::unix::net::UnixStream::connect(socket)?;
        s.set_read_timeout(Some(args.timeout))?;
        return exchange(s, &path, token, body);
    }
    let hostport = args.server.strip_prefix("http://").unwrap_or(&args.server).trim_end_matches('/');
    let addr = std::net::ToSocketAddrs::to_socket_addrs(hostport)?.next().ok_or_else(|| std::io::Error::other(format!("{hostport} resolves to nothing")))?;
    let s = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
    s.set_read_timeout(Some(args.timeout))?;
    exchange(s, &path, token, body)
}

/// Run the event in-process instead: `hookhost run --output P ...` with the same stdin.
fn fall_back(args: &Args, body: &[u8]) -> ExitCode {
    let beside = std::env::current_exe().ok().and_then(|p| p.parent().map(|d| d.join("hookhost"))).filter(|p| p.is_file());
    let program = beside.map_or_else(|| "hookhost".into(), |p| p.into_os_string());
    let mut cmd = std::process::Command::new(program);
    cmd.args(["run", "--output", &args.output]);
    if args.fail_closed {
        cmd.arg("--fail-closed");
    }
    cmd.args(&args.run_args).stdin(std::process::Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return failed(args, &format!("the daemon is unreachable and hookhost could not be run ({e}); install hookhost or start `hookhost serve`")),
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(body);
    }
    match child.wait() {
        Ok(status) => ExitCode::from(status.code().unwrap_or(1).clamp(0, 255) as u8),
        Err(e) => failed(args, &format!("hookhost run failed: {e}")),
    }
}

/// hookhost could not answer: the runtime's non-blocking error, or with `--fail-closed` its block.
fn failed(args: &Args, why: &str) -> ExitCode {
    if args.fail_closed {
        eprintln!("hookhost could not decide, and --fail-closed blocks: {why}");
        ExitCode::from(2)
    } else {
        eprintln!("hookhost-send: error: {why}");
        ExitCode::from(1)
    }
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => return usage_error(&e),
    };
    let mut body = Vec::new();
    if let Err(e) = std::io::stdin().take(MAX_EVENT + 1).read_to_end(&mut body) {
        return failed(&args, &format!("cannot read the event from stdin: {e}"));
    }
    if body.len() as u64 > MAX_EVENT {
        return failed(&args, &format!("the event is over {MAX_EVENT} bytes"));
    }
    match send(&args, &body) {
        Ok(answer) if (200..300).contains(&answer.status) => {
            let text = String::from_utf8_lossy(&answer.body);
            let text = text.trim();
            // `{}` is the daemon's "nothing to say"; Gemini CLI wants it said, the rest want silence.
            if !text.is_empty() && (text != "{}" || args.output == "gemini-cli") {
                println!("{text}");
            }
            ExitCode::SUCCESS
        }
        Ok(answer) => failed(&args, &format!("the daemon answered {}: {}", answer.status, String::from_utf8_lossy(&answer.body).trim())),
        Err(e) if args.fallback => {
            eprintln!("hookhost-send: {} unreachable ({e}); running the event in-process", args.server);
            fall_back(&args, &body)
        }
        Err(e) => failed(&args, &format!("{} unreachable ({e})", args.server)),
    }
}
