//! `hookhost-send`, the thin client a command-hook runtime runs: through a real daemon over TCP
//! and a unix socket, its token, and its fallback to `hookhost run` when no daemon answers.

use common::Daemon;
use std::process::{Command, Output, Stdio};

mod common;

const MKFS: &str = r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"mkfs.ext4 /dev/sda"}}"#;
const LS: &str = r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#;

fn send(args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookhost-send")).args(args).env_remove("HOOKHOST_SERVER").env_remove("HOOKHOST_TOKEN").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
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
    // The daemon's own refusal (no token) is the runtime's non-blocking error, or its block.
    let out = send(&["--server", &server, "--output", "claude-code"], MKFS);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("hookhost-send: error: the daemon answered 401: "), "{}", stderr(&out));
    let out = send(&["--server", &server, "--output", "claude-code", "--fail-closed"], MKFS);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("hookhost could not decide, and --fail-closed blocks: the daemon answered 401"), "{}", stderr(&out));
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
    // The fallback passes the run's own arguments on (here: a config that cannot be read).
    let out = send(&["--server", &server, "--output", "claude-code", "--", "--config", "/nonexistent/hooks.toml"], MKFS);
    assert_eq!(out.status.code(), Some(1), "hookhost run's non-blocking error: {}", stderr(&out));
    let out = send(&["--server", &server, "--output", "claude-code", "--no-fallback"], MKFS);
    assert_eq!(out.status.code(), Some(1));
    let out = send(&["--server", &server, "--output", "claude-code", "--no-fallback", "--fail-closed"], MKFS);
    assert_eq!(out.status.code(), Some(2));
    let out = send(&["--output", "cursor"], MKFS);
    assert_eq!((out.status.code(), stderr(&out).as_str()), (Some(2), "hookhost-send: error: --output: unknown protocol \"cursor\"; use one of json, claude-code, codex, gemini-cli, docker-agent, starchild"));
}

#[test]
fn the_client_carries_no_wasm_runtime() {
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_hookhost-send")).unwrap();
    assert!(!bytes.windows(8).any(|w| w == b"wasmtime"), "hookhost-send links wasmtime");
    let host = std::fs::metadata(env!("CARGO_BIN_EXE_hookhost")).unwrap().len();
    assert!((bytes.len() as u64) * 5 < host, "the client ({} bytes) is a fraction of hookhost ({host} bytes)", bytes.len());
}
