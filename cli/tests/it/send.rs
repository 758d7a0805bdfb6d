//! `hookhost-send`, the thin client a command-hook runtime runs: through a real daemon over TCP
//! and a unix socket, its token, and its fallback to `hookhost run` when no daemon answers.

use crate::common::Daemon;
use std::process::{Command, Output, Stdio};

const MKFS: &str = r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"mkfs.ext4 /dev/sda"}}"#;
const LS: &str = r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#;

fn send(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = crate::common::bin(env!("CARGO_BIN_EXE_hookhost-send")).args(args).env_remove("HOOKHOST_SERVER").env_remove("HOOKHOST_TOKEN").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    // A client that refuses its arguments exits before it reads stdin: a closed pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).trim().to_string()
}

#[test]
fn it_answers_through_the_daemon_in_the_runtimes_protocol() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "t0k\n").unwrap();
    let d = Daemon::start(&["--listen", "127.0.0.1:0", "--token-file", token.to_str().unwrap()]);
    let server = format!("http://{}", d.addr);
    let ok = |out: &Output| assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    let out = send(&["--server", &server, "--output", "claude-code", "--token-file", token.to_str().unwrap()], MKFS);
    ok(&out);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    // A pass is silence (Gemini CLI gets its `{}`), exit 0.
    let out = send(&["--server", &server, "--output", "claude-code", "--token-file", token.to_str().unwrap()], LS);
    ok(&out);
    assert_eq!(stdout(&out), "");
    assert_eq!(stdout(&send(&["--server", &server, "--output", "gemini-cli", "--token-file", token.to_str().unwrap()], LS)), "{}");
    // The daemon's refusal (no token): the event is decided in-process instead, as without a
    // daemon — the destructive call is still denied.
    let out = send(&["--server", &server, "--output", "claude-code"], MKFS);
    ok(&out);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap()["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(stderr(&out).contains("the daemon answered 401") && stderr(&out).contains("running the event in-process"), "{}", stderr(&out));
    // Without the fallback: the block, naming the refusal (a tool call), or with --fail-open the
    // runtime's non-blocking error.
    let out = send(&["--server", &server, "--output", "claude-code", "--no-fallback"], LS);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("hookhost could not decide, so it blocks (its own failures block before an action; `--fail-open` lets them through): the daemon answered 401"), "{}", stderr(&out));
    let out = send(&["--server", &server, "--output", "claude-code", "--no-fallback", "--fail-open"], LS);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("hookhost-send: error: the daemon answered 401: "), "{}", stderr(&out));
}

#[test]
fn a_daemon_that_says_nothing_in_time_is_a_block_before_a_tool() {
    // A listener that takes the event and never answers.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let server = format!("http://{}", listener.local_addr().unwrap());
    let held = std::thread::spawn(move || listener.incoming().take(2).flatten().collect::<Vec<_>>());
    let started = std::time::Instant::now();
    let out = send(&["--server", &server, "--output", "claude-code", "--timeout", "1"], LS);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert_eq!(stderr(&out), format!("hookhost could not decide, so it blocks (its own failures block before an action; `--fail-open` lets them through): {server} did not answer within 1 s (--timeout)"));
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "it answered at its own deadline, not the runtime's");
    // An event that gates nothing: the non-blocking error.
    let out = send(&["--server", &server, "--output", "claude-code", "--timeout", "1"], r#"{"hook_event_name":"Stop","session_id":"s"}"#);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    drop(held);
}

#[test]
fn over_a_unix_socket_too() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("h.sock");
    let _d = Daemon::start(&["--listen", &format!("unix:{}", sock.display())]);
    let out = send(&["--server", &format!("unix:{}", sock.display()), "--output", "docker-agent"], MKFS);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["decision"], "block");
}

#[test]
fn without_a_daemon_it_runs_the_event_in_process_or_fails_as_asked() {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let server = format!("http://127.0.0.1:{port}");
    let out = send(&["--server", &server, "--output", "claude-code"], MKFS);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "the fallback `hookhost run` decided");
    assert!(stderr(&out).contains("unreachable") && stderr(&out).contains("running the event in-process"), "{}", stderr(&out));
    // The fallback passes the run's own arguments on (here: a config that cannot be read, left
    // out with a notice: the built-in guard decides in its place).
    let out = send(&["--server", &server, "--output", "claude-code", "--", "--config", "/nonexistent/hooks.toml"], MKFS);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(v["systemMessage"].as_str().unwrap().contains("your config /nonexistent/hooks.toml is left out because it does not load"), "{v}");
    let out = send(&["--server", &server, "--output", "claude-code", "--no-fallback"], MKFS);
    assert_eq!(out.status.code(), Some(2));
    let out = send(&["--server", &server, "--output", "claude-code", "--no-fallback", "--fail-open"], MKFS);
    assert_eq!(out.status.code(), Some(1));
    // GitHub Copilot CLI: an unreachable daemon is exit 0 (any non-zero exit of a preToolUse
    // hook denies there); the event's name reaches the fallback run.
    let copilot_mkfs = r#"{"sessionId":"s","timestamp":1767225600000,"cwd":"/","toolName":"bash","toolArgs":{"command":"mkfs.ext4 /dev/sda"}}"#;
    assert_eq!(send(&["--server", &server, "--output", "copilot", "--no-fallback", "--fail-open"], copilot_mkfs).status.code(), Some(0));
    assert_eq!(send(&["--server", &server, "--output", "copilot", "--no-fallback"], copilot_mkfs).status.code(), Some(2), "a deny");
    let out = send(&["--server", &server, "--output", "copilot"], copilot_mkfs);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&stdout(&out)).unwrap()["permissionDecision"], "deny", "{}", stderr(&out));
    let out = send(&["--server", &server, "--output", "copilot", "--event-name", "permissionRequest"], copilot_mkfs);
    assert_eq!((out.status.code(), stdout(&out).as_str()), (Some(0), ""), "no hook on permission requests by default: {}", stderr(&out));
    let out = send(&["--output", "windsurf"], MKFS);
    assert_eq!((out.status.code(), stderr(&out).as_str()), (Some(2), "hookhost-send: error: --output: unknown protocol \"windsurf\"; use one of json, claude-code, codex, gemini-cli, docker-agent, starchild, copilot, opencode, qwen-code, cursor, antigravity"));
}

#[test]
fn the_client_carries_no_wasm_runtime() {
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_hookhost-send")).unwrap();
    assert!(!bytes.windows(8).any(|w| w == b"wasmtime"), "hookhost-send links wasmtime");
    let host = std::fs::metadata(env!("CARGO_BIN_EXE_hookhost")).unwrap().len();
    assert!((bytes.len() as u64) * 5 < host, "the client ({} bytes) is a fraction of hookhost ({host} bytes)", bytes.len());
}

/// A one-shot fake "daemon" on loopback that answers each connection with `raw`; the requests it
/// got, joined.
fn fake_daemon(raw: Vec<u8>) -> (String, std::sync::Arc<std::sync::Mutex<Vec<u8>>>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = format!("http://{}", listener.local_addr().unwrap());
    let got = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = got.clone();
    std::thread::spawn(move || {
        for mut s in listener.incoming().flatten() {
            s.set_read_timeout(Some(std::time::Duration::from_millis(300))).unwrap();
            // The whole request (its head, then Content-Length bytes of body), or what came
            // before it stalled: closing with some of it unread would reset the connection
            // before the client reads the answer.
            let mut req = Vec::new();
            let mut buf = [0u8; 65536];
            loop {
                let head_end = req.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4);
                let wanted = head_end.map(|end| {
                    let head = String::from_utf8_lossy(&req[..end]).to_ascii_lowercase();
                    end + head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|n| n.trim().parse::<usize>().ok()).unwrap_or(0)
                });
                if wanted.is_some_and(|w| req.len() >= w) {
                    break;
                }
                match s.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => req.extend_from_slice(&buf[..n]),
                }
            }
            sink.lock().unwrap().extend_from_slice(&req);
            let _ = s.write_all(&raw);
        }
    });
    (addr, got)
}

#[test]
fn any_answer_that_is_not_hookhosts_is_a_block_or_the_fallback() {
    let ok_head = |body: &str| format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len());
    let big = format!("{{\"x\":\"{}\"}}", "a".repeat(41 << 20));
    let cases: Vec<(&str, String)> = vec![
        ("HTML", "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 13\r\n\r\n<html></html>".into()),
        ("an empty body", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n".into()),
        ("truncated JSON", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"hookSpecificOutput\":".into()),
        ("a cut chunked body", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n".into()),
        ("HTTP 299", "HTTP/1.1 299 Fine\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}".into()),
        ("a JSON array", ok_head("[1,2]")),
        ("no header end", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n".into()),
        ("an answer over the size cap", ok_head(&big)),
    ];
    for (what, raw) in cases {
        let (server, _) = fake_daemon(raw.into_bytes());
        let out = send(&["--server", &server, "--output", "claude-code", "--no-fallback"], LS);
        assert_eq!(out.status.code(), Some(2), "{what}: {}", stderr(&out));
        assert!(stderr(&out).starts_with("hookhost could not decide, so it blocks (its own failures block before an action; `--fail-open` lets them through): "), "{what}: {}", stderr(&out));
        assert_eq!(stdout(&out), "", "{what}");
        let out = send(&["--server", &server, "--output", "claude-code", "--no-fallback", "--fail-open"], LS);
        assert_eq!(out.status.code(), Some(1), "{what}: with --fail-open, the non-blocking error");
        // With the fallback (the default), `hookhost run` decides instead.
        let out = send(&["--server", &server, "--output", "claude-code"], MKFS);
        assert_eq!(out.status.code(), Some(0), "{what}: {}", stderr(&out));
        assert!(stdout(&out).contains("\"deny\"") && stderr(&out).contains("running the event in-process"), "{what}: {}", stderr(&out));
    }
    // hookhost's own outcome must carry a decision.
    let (server, _) = fake_daemon(ok_head("{\"ok\":true}").into_bytes());
    assert_eq!(send(&["--server", &server, "--output", "json", "--no-fallback"], MKFS).status.code(), Some(2));
    // A whole answer of the right shape passes through.
    let (server, _) = fake_daemon(ok_head("{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\"}}").into_bytes());
    let out = send(&["--server", &server, "--output", "claude-code", "--no-fallback"], MKFS);
    assert_eq!((out.status.code(), stdout(&out).contains("\"deny\"")), (Some(0), true), "{}", stderr(&out));
}

#[test]
fn the_client_sends_nothing_to_a_listener_of_another_user() {
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        assert_ne!(std::env::var("CI").as_deref(), Ok("true"), "CI runs as root, which this test needs to listen as another user");
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let sock = dir.path().join("squat.sock");
    let log = dir.path().join("got");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    // A squatter (user 65534) on a unix socket and on a loopback port, writing down what it gets.
    let script = format!(
        "import socket, threading, os\nlog=open({log:?},'ab',buffering=0)\ndef serve(s):\n  while True:\n    c,_=s.accept(); c.settimeout(1)\n    try:\n      log.write(c.recv(65536)); c.sendall(b'HTTP/1.1 200 OK\\r\\nContent-Type: application/json\\r\\nContent-Length: 2\\r\\n\\r\\n{{}}')\n    except Exception: pass\n    c.close()\nu=socket.socket(socket.AF_UNIX); u.bind({sock:?}); os.chmod({sock:?},0o777); u.listen(8)\nt=socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind(('127.0.0.1',{port})); t.listen(8)\nthreading.Thread(target=serve,args=(u,),daemon=True).start()\nprint('ready', flush=True)\nserve(t)\n",
        log = log.display().to_string(),
        sock = sock.display().to_string(),
    );
    std::fs::write(&log, b"").unwrap();
    std::fs::set_permissions(&log, std::fs::Permissions::from_mode(0o666)).unwrap();
    let mut squatter = Command::new("python3").args(["-c", &script]).uid(65534).gid(65534).stdout(Stdio::piped()).spawn().unwrap();
    let mut ready = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(squatter.stdout.take().unwrap()), &mut ready).unwrap();
    assert_eq!(ready.trim(), "ready");
    let token = dir.path().join("token");
    std::fs::write(&token, "s3cret-token\n").unwrap();
    for server in [format!("unix:{}", sock.display()), format!("http://127.0.0.1:{port}")] {
        let out = send(&["--server", &server, "--output", "claude-code", "--token-file", token.to_str().unwrap(), "--no-fallback"], MKFS);
        assert_eq!(out.status.code(), Some(2), "{server}: {}", stderr(&out));
        assert!(stderr(&out).contains("is served by uid 65534, not by you (uid 0): nothing was sent to it"), "{server}: {}", stderr(&out));
    }
    let _ = squatter.kill();
    let _ = squatter.wait();
    assert_eq!(std::fs::read(&log).unwrap(), b"", "the squatter got nothing: no event, no token");
}
