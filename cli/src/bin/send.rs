//! `hookhost-send`: a command hook that forwards the runtime's event to a running `hookhost
//! serve` and answers as the runtime expects — a process of a few milliseconds instead of a
//! host per call. No wasmtime, no async runtime: the standard library, libc and serde_json.
//!
//! ```text
//! hookhost-send --output claude-code [--server http://127.0.0.1:7807 | --server unix:PATH]
//!               [--token-file F] [--timeout SECS] [--fail-open | --fail-closed] [--no-fallback]
//!               [-- HOOKHOST-RUN-ARGS...]
//! ```
//!
//! When the daemon cannot be reached, or what answers is not a daemon of this user's or answers
//! with an error (a 401, a 5xx, a process squatting on the port), it runs the event in-process
//! by exec'ing `hookhost run --output P HOOKHOST-RUN-ARGS` (the `hookhost` beside this binary,
//! else on PATH), unless `--no-fallback`. When no answer can be had — the daemon says nothing
//! within `--timeout` (default 20 s, under every runtime's own hook deadline), or there is no
//! fallback — an event that gates an action (a tool call, a permission, a prompt) gets every
//! runtime's block (exit 2, the reason on stderr); other events, or every event with
//! `--fail-open`, the runtime's non-blocking error (exit 1, one stderr line; Copilot: exit 0).
//! `--fail-closed` blocks on every event.
//!
//! It trusts only a daemon of its own user: before anything is sent (the event, the token), the
//! listener must be this user's (or root's) — a unix socket's peer credentials, or on loopback
//! TCP the owner of the daemon's end of the connection (Linux: the kernel's socket diagnostics;
//! Windows: the TCP table's owning process). By default it asks where `hookhost serve` listens by
//! default: `http://127.0.0.1:7807`, and on macOS — where a port's listener cannot be told —
//! the unix socket `serve.sock` in hookhost's state directory. Only a complete
//! `HTTP/1.1 200` answer with a JSON body of the expected shape, within [`MAX_ANSWER`] bytes,
//! counts as an answer; anything else is a failure. The token comes from `--token-file`,
//! `$HOOKHOST_TOKEN`, else the file `hookhost serve` made (`$XDG_STATE_HOME/hookhost/serve.token`).

use std::io::{Read, Write};

// The platform parts: who listens (peer credentials per OS).
#[path = "send/peer.rs"]
mod peer;
use hookhost_types::Runtime;
use std::process::ExitCode;
use std::time::Duration;

/// The daemon's default address (`hookhost serve`'s default).
/// Where the daemon is asked by default: where `hookhost serve` listens by default — on macOS
/// its unix socket in hookhost's state directory, elsewhere `http://127.0.0.1:7807`
/// (`hookhost_types::paths::default_daemon_socket` says why).
fn default_server() -> String {
    match hookhost_types::paths::serve_socket_file() {
        Some(socket) => format!("unix:{}", socket.display()),
        None => format!("http://127.0.0.1:{}", hookhost_types::paths::DAEMON_PORT),
    }
}
/// The largest event forwarded (the daemon's own default body cap).
const MAX_EVENT: u64 = 32 << 20;
/// The largest answer read: a runtime's answer holds at most the rewritten event.
const MAX_ANSWER: u64 = 40 << 20;
/// How long the daemon may take to answer: under the shortest hook deadline a runtime sets by
/// default (GitHub Copilot CLI's 30 s), so the answer is always this client's, never the
/// runtime's timeout (which every runtime reads as "go ahead").
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

/// The runtime an `--output` name answers (`Ok(None)`: hookhost's own `json`): one whose profile
/// has an answer (`hookhost run --output` takes the same names).
fn protocol(name: &str) -> Result<Option<Runtime>, String> {
    match name {
        "json" => Ok(None),
        _ => Runtime::answered().find(|r| r.name() == name).map(Some).ok_or_else(|| {
            let names: Vec<&str> = std::iter::once("json").chain(Runtime::answered().map(Runtime::name)).collect();
            format!("--output: unknown protocol {name:?}; use one of {}", names.join(", "))
        }),
    }
}

struct Args {
    server: String,
    output: String,
    /// The runtime `output` names (`None`: `json`).
    runtime: Option<Runtime>,
    /// The event's name, for a runtime whose input names none (GitHub Copilot CLI).
    event_name: Option<String>,
    token: Option<String>,
    /// `--fail-open` / `--fail-closed`: what a failure to answer becomes.
    fail_open: bool,
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
        server: std::env::var("HOOKHOST_SERVER").unwrap_or_else(|_| default_server()),
        output: "json".into(),
        runtime: None,
        event_name: None,
        token: std::env::var("HOOKHOST_TOKEN").ok().filter(|t| !t.is_empty()),
        fail_open: false,
        fail_closed: false,
        fallback: true,
        timeout: DEFAULT_TIMEOUT,
        run_args: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--server" => args.server = value("--server")?,
            "--output" => args.output = value("--output")?,
            "--event-name" => {
                let name = value("--event-name")?;
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return Err(format!("--event-name: {name:?} is not an event name"));
                }
                args.event_name = Some(name);
            }
            "--token-file" => {
                let path = value("--token-file")?;
                let text = std::fs::read_to_string(&path).map_err(|e| format!("--token-file: cannot read {path} ({e})"))?;
                args.token = Some(text.trim().to_string());
            }
            "--timeout" => args.timeout = Duration::from_secs(value("--timeout")?.parse().map_err(|_| "--timeout: a number of seconds".to_string())?),
            "--fail-closed" => args.fail_closed = true,
            "--fail-open" => args.fail_open = true,
            "--no-fallback" => args.fallback = false,
            "--" => {
                args.run_args = it.by_ref().collect();
                break;
            }
            "-h" | "--help" => return Err("usage: hookhost-send --output PROTOCOL [--event-name NAME] [--server URL|unix:PATH] [--token-file F] [--timeout SECS] [--fail-open | --fail-closed] [--no-fallback] [-- HOOKHOST-RUN-ARGS...]".into()),
            other => return Err(format!("unknown argument {other:?}; see --help")),
        }
    }
    if args.fail_open && args.fail_closed {
        return Err("--fail-open and --fail-closed contradict each other: give one".into());
    }
    args.runtime = protocol(&args.output)?;
    Ok(args)
}

/// The daemon's answer: its JSON body (a complete `HTTP/1.1 200` answer), or why it is not one.
type Answer = Result<String, String>;

/// One HTTP/1.1 exchange over `stream`; `Err` only when nothing could be exchanged.
fn exchange<S: Read + Write>(mut stream: S, path: &str, token: Option<&str>, body: &[u8], output: &str) -> std::io::Result<Answer> {
    let mut head = format!("POST {path} HTTP/1.1\r\nHost: hookhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n", body.len());
    if let Some(t) = token {
        head.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    let mut raw = Vec::with_capacity(16 << 10);
    stream.take(MAX_ANSWER + 64 * 1024).read_to_end(&mut raw)?;
    Ok(answer(&raw, output))
}

/// The body of a raw HTTP answer when it is a complete `200` with a JSON body of the shape
/// `output` expects; else why not.
fn answer(raw: &[u8], output: &str) -> Answer {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").ok_or("the answer has no complete header")?;
    let head = std::str::from_utf8(&raw[..split]).map_err(|_| "the answer's header is not text")?;
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap_or_default();
    let mut parts = status.splitn(3, ' ');
    let (version, code) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
    if !version.starts_with("HTTP/1.") {
        return Err(format!("the answer is not HTTP ({:?})", printable(status)));
    }
    let rest = &raw[split + 4..];
    let header = |name: &str| lines.clone().find_map(|l| l.split_once(':').filter(|(k, _)| k.trim().eq_ignore_ascii_case(name)).map(|(_, v)| v.trim().to_string()));
    let body = if header("transfer-encoding").is_some_and(|t| t.eq_ignore_ascii_case("chunked")) {
        dechunk(rest).ok_or("the chunked answer is cut short")?
    } else {
        let length: usize = header("content-length").ok_or("the answer has no Content-Length")?.parse().map_err(|_| "the answer's Content-Length is not a number")?;
        if rest.len() != length {
            return Err(format!("the answer is cut short or overlong ({} bytes for a Content-Length of {length})", rest.len()));
        }
        rest.to_vec()
    };
    let text = String::from_utf8(body).map_err(|_| "the answer's body is not UTF-8")?;
    if code != "200" {
        return Err(format!("the daemon answered {code}: {}", printable(text.trim())));
    }
    if !header("content-type").is_some_and(|t| t.split(';').next().is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))) {
        return Err("the answer is not application/json".into());
    }
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("the answer is not JSON ({e})"))?;
    let shaped = match output {
        // hookhost's outcome: a decision hookhost knows.
        "json" => value.get("decision").and_then(|d| d.as_str()).is_some_and(|d| matches!(d, "pass" | "allow" | "ask" | "block" | "halt")),
        // A runtime's hook output is a JSON object.
        _ => value.is_object(),
    };
    if !shaped {
        return Err(format!("the answer is not a {output} hook answer: {}", printable(&text)));
    }
    Ok(text)
}

/// A short, one-line view of text from the other end.
fn printable(text: &str) -> String {
    let mut out: String = text.chars().take(200).map(|c| if c.is_control() { ' ' } else { c }).collect();
    if text.chars().count() > 200 {
        out.push('…');
    }
    out
}

/// The body of a chunked answer, or `None` when it does not end with its last (empty) chunk.
fn dechunk(mut rest: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let eol = rest.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&rest[..eol]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        let start = eol + 2;
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(rest.get(start..start.checked_add(size)?)?);
        rest = rest.get(start + size..)?.strip_prefix(b"\r\n")?;
    }
}

/// Send the event; `Err` when the daemon cannot be reached at all; `Ok(Err(why))` when what
/// answered is not a daemon of this user's, or not a whole answer.
fn send(args: &Args, body: &[u8]) -> std::io::Result<Answer> {
    let path = match (args.output.as_str(), &args.event_name) {
        ("json", _) => "/v1/events".to_string(),
        (output, Some(name)) => format!("/v1/hooks/{output}/{name}"),
        (output, None) => format!("/v1/hooks/{output}"),
    };
    if let Some(socket) = args.server.strip_prefix("unix:") {
        let s = match peer::connect_unix(socket).map_err(unreachable)? {
            Ok(s) => s,
            Err(why) => return Ok(Err(why)),
        };
        s.set_read_timeout(Some(args.timeout))?;
        return exchange(s, &path, args.token.as_deref(), body, &args.output);
    }
    let hostport = args.server.strip_prefix("http://").unwrap_or(&args.server).trim_end_matches('/');
    let addr = std::net::ToSocketAddrs::to_socket_addrs(hostport)?.next().ok_or_else(|| std::io::Error::other(format!("{hostport} resolves to nothing")))?;
    let s = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).map_err(unreachable)?;
    // On this machine, the listener must be this user's: a process that took the port must
    // not be handed the event or the token.
    if addr.ip().is_loopback() {
        if let Err(why) = peer::check_loopback(&s, hostport) {
            return Ok(Err(why));
        }
    }
    s.set_read_timeout(Some(args.timeout))?;
    // The token `hookhost serve` made is for this machine's daemon: never sent elsewhere.
    let token = args.token.clone().or_else(|| addr.ip().is_loopback().then(default_token).flatten());
    exchange(s, &path, token.as_deref(), body, &args.output)
}

/// The token `hookhost serve` made for TCP requests, if this user has one.
fn default_token() -> Option<String> {
    // Where `hookhost serve` put it (a relative or another user's `XDG_STATE_HOME` is not used).
    let text = std::fs::read_to_string(hookhost_types::paths::serve_token_file()?).ok()?;
    Some(text.trim().to_string()).filter(|t| !t.is_empty())
}

/// Run the event in-process instead: `hookhost run --output P ...` with the same stdin.
fn fall_back(args: &Args, body: &[u8]) -> ExitCode {
    let beside = std::env::current_exe().ok().and_then(|p| p.parent().map(|d| d.join("hookhost"))).filter(|p| p.is_file());
    let program = beside.map_or_else(|| "hookhost".into(), |p| p.into_os_string());
    let mut cmd = std::process::Command::new(program);
    cmd.args(["run", "--output", &args.output]);
    if let Some(name) = &args.event_name {
        cmd.args(["--event-name", name]);
    }
    if args.fail_closed {
        cmd.arg("--fail-closed");
    }
    if args.fail_open {
        cmd.arg("--fail-open");
    }
    cmd.args(&args.run_args).stdin(std::process::Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return failed(args, body, &format!("the daemon did not answer and hookhost could not be run ({e}); install hookhost or start `hookhost serve`")),
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(body);
    }
    match child.wait() {
        Ok(status) => ExitCode::from(status.code().unwrap_or(1).clamp(0, 255) as u8),
        Err(e) => failed(args, body, &format!("hookhost run failed: {e}")),
    }
}

/// hookhost could not answer: every runtime's block (exit 2, the reason on stderr) where the
/// event gates an action or cannot be read, or with `--fail-closed`; else the runtime's
/// non-blocking error.
fn failed(args: &Args, body: &[u8], why: &str) -> ExitCode {
    let blocks = args.fail_closed || (!args.fail_open && hookhost_types::HookEvent::read(body, args.runtime, args.event_name.as_deref()).map_or(true, |e| e.name.gates_an_action()));
    if blocks {
        eprintln!("{}", hookhost_types::decision::own_failure_reason(why));
        ExitCode::from(2)
    } else {
        eprintln!("hookhost-send: error: {why}");
        // The runtime's error that does not block (GitHub Copilot CLI's is exit 0).
        ExitCode::from(args.runtime.and_then(Runtime::answer).map_or(1, |a| a.soft_error_exit))
    }
}

/// A failure to connect: never a timeout of the answer ([`is_timeout`]), whatever its kind.
fn unreachable(e: std::io::Error) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::NotConnected, e)
}

/// Whether a read gave up waiting (a socket's read timeout).
fn is_timeout(e: &std::io::Error) -> bool {
    matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => return usage_error(&e),
    };
    let mut body = Vec::new();
    if let Err(e) = std::io::stdin().take(MAX_EVENT + 1).read_to_end(&mut body) {
        return failed(&args, &body, &format!("cannot read the event from stdin: {e}"));
    }
    if body.len() as u64 > MAX_EVENT {
        return failed(&args, &body, &format!("the event is over {MAX_EVENT} bytes"));
    }
    match send(&args, &body) {
        Ok(Ok(text)) => {
            let text = text.trim();
            // `{}` is the daemon's "nothing to say": said as the runtime wants it said (Gemini
            // CLI as `{}`, the rest by silence).
            let text = match text {
                "{}" => args.runtime.and_then(Runtime::answer).map_or("", |a| a.nothing),
                text => text,
            };
            if !text.is_empty() {
                println!("{text}");
            }
            ExitCode::SUCCESS
        }
        // What answered is not a daemon of this user's, or refused (a 401, a 5xx): the event is
        // decided in-process instead, as if no daemon were there.
        Ok(Err(why)) if args.fallback => {
            eprintln!("hookhost-send: {}: {why}; running the event in-process", args.server);
            fall_back(&args, &body)
        }
        Ok(Err(why)) => failed(&args, &body, &why),
        // It took the event and said nothing in time: running it again would take as long.
        Err(e) if is_timeout(&e) => failed(&args, &body, &format!("{} did not answer within {} s (--timeout)", args.server, args.timeout.as_secs())),
        Err(e) if args.fallback => {
            eprintln!("hookhost-send: {} unreachable ({e}); running the event in-process", args.server);
            fall_back(&args, &body)
        }
        Err(e) => failed(&args, &body, &format!("{} unreachable ({e})", args.server)),
    }
}
