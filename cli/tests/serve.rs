//! `hookhost serve`, through the real binary over real loopback HTTP and a unix socket: the
//! routes, the bearer token, the body cap, reloads (file change, SIGHUP, a bad config keeps the
//! old one), graceful shutdown with a request in flight, and malformed requests that each get
//! their error while the daemon keeps serving.

use common::{exchange, Daemon};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod common;

const MKFS: &str = r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"mkfs.ext4 /dev/sda"}}"#;

fn guard_config(dir: &Path, word: &str) -> PathBuf {
    let path = dir.join("hooks.toml");
    // Written beside and renamed into place, as an editor saves.
    let tmp = dir.join("hooks.toml.tmp");
    std::fs::write(&tmp, format!("[[hooks]]\nid = \"no_{word}\"\nevent = \"pre_tool_use\"\nmatcher = {{ args_jsonpath = \"$.command\", match_regex = \"{word}\" }}\nexecutor = {{ plugin = \"builtin:bash-adapter\", settings = {{ command = \"echo 'no {word}' >&2; exit 2\", dialect = \"claude-code\" }} }}\n")).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
    path
}

fn bash(command: &str) -> String {
    serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}}).to_string()
}

#[test]
fn routes_metrics_token_and_bad_requests() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "s3cret\n").unwrap();
    let d = Daemon::start(&["--listen", "127.0.0.1:0", "--token-file", token.to_str().unwrap(), "--max-body", "4096"]);
    let auth = [("Authorization", "Bearer s3cret")];
    assert_eq!(d.request("GET", "/healthz", &[], ""), (200, "ok\n".into()), "health needs no token");
    let (status, body) = d.request("POST", "/v1/events", &[], MKFS);
    assert_eq!(status, 401, "{body}");
    assert_eq!(d.request("POST", "/v1/events", &[("Authorization", "Bearer nope")], MKFS).0, 401);
    // The canonical outcome, and a runtime's own HTTP hook answer.
    let (status, body) = d.request("POST", "/v1/events", &auth, MKFS);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!((status, v["decision"].as_str()), (200, Some("block")), "{body}");
    let (status, body) = d.request("POST", "/v1/hooks/claude-code", &auth, MKFS);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!((status, v["hookSpecificOutput"]["permissionDecision"].as_str()), (200, Some("deny")), "{body}");
    assert_eq!(d.request("POST", "/v1/hooks/claude-code", &auth, &bash("ls")), (200, "{}".into()), "a pass is an empty answer");
    // Bad requests, each with its error; the daemon serves on.
    let (status, body) = d.request("POST", "/v1/events", &auth, "not json");
    assert_eq!(status, 400);
    assert!(body.contains("event is not valid JSON"), "{body}");
    assert_eq!(d.request("POST", "/v1/hooks/cursor", &auth, MKFS).0, 404);
    assert_eq!(d.request("POST", "/v1/events", &auth, &"x".repeat(5000)).0, 413, "over --max-body");
    assert_eq!(d.request("GET", "/v1/events", &auth, "").0, 405);
    let metrics = d.request("GET", "/metrics", &auth, "").1;
    for line in [
        "hookhost_requests_total{route=\"/v1/events\",status=\"200\"} 1",
        "hookhost_requests_total{route=\"/v1/events\",status=\"400\"} 1",
        "hookhost_hook_decisions_total{hook=\"user:guard_destructive\",decision=\"block\"} 2",
        "hookhost_hook_invocations_total{hook=\"user:guard_destructive\"} 3",
        "hookhost_hook_duration_seconds_count{hook=\"user:guard_destructive\"} 3",
    ] {
        assert!(metrics.contains(line), "missing {line} in:\n{metrics}");
    }
}

#[test]
fn a_changed_config_is_loaded_whole_before_it_serves_and_a_bad_one_never_does() {
    let dir = tempfile::tempdir().unwrap();
    let config = guard_config(dir.path(), "alpha");
    let d = Daemon::start(&["--listen", "127.0.0.1:0", "--config", config.to_str().unwrap()]);
    let decision = |cmd: &str| serde_json::from_str::<serde_json::Value>(&d.request("POST", "/v1/events", &[], &bash(cmd)).1).unwrap()["decision"].as_str().unwrap().to_string();
    assert_eq!(decision("echo alpha"), "block");
    // The file changes: the new config serves within a few seconds.
    std::thread::sleep(Duration::from_millis(1100));
    guard_config(dir.path(), "beta");
    let start = Instant::now();
    while decision("echo beta") != "block" {
        assert!(start.elapsed() < Duration::from_secs(20), "the changed config was not picked up");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(decision("echo alpha"), "pass");
    // A bad config: logged, and the last good one keeps serving.
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(&config, "[[hooks]]\nevent = \"pre_tool\"\n").unwrap();
    let start = Instant::now();
    while !d.logged("the config did not reload") {
        assert!(start.elapsed() < Duration::from_secs(20), "the bad config was not noticed");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(decision("echo beta"), "block", "the previous config still serves");
    // SIGHUP reloads on demand.
    guard_config(dir.path(), "gamma");
    d.signal(libc::SIGHUP);
    let start = Instant::now();
    while decision("echo gamma") != "block" {
        assert!(start.elapsed() < Duration::from_secs(20), "SIGHUP did not reload");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A writer that truncates and rewrites the file in place, within one tick of the kernel's
/// coarse clock, leaves its mtime where it was: the daemon notices the change by content.
#[test]
fn an_in_place_rewrite_with_the_same_mtime_is_noticed() {
    let dir = tempfile::tempdir().unwrap();
    let config = guard_config(dir.path(), "alpha");
    let before = std::fs::metadata(&config).unwrap().modified().unwrap();
    let d = Daemon::start(&["--listen", "127.0.0.1:0", "--config", config.to_str().unwrap()]);
    let decision = |cmd: &str| serde_json::from_str::<serde_json::Value>(&d.request("POST", "/v1/events", &[], &bash(cmd)).1).unwrap()["decision"].as_str().unwrap().to_string();
    assert_eq!(decision("echo alpha"), "block");
    let text = std::fs::read_to_string(&config).unwrap().replace("alpha", "delta");
    std::fs::write(&config, text).unwrap();
    std::fs::File::options().write(true).open(&config).unwrap().set_modified(before).unwrap();
    assert_eq!(std::fs::metadata(&config).unwrap().modified().unwrap(), before);
    let start = Instant::now();
    while decision("echo delta") != "block" {
        assert!(start.elapsed() < Duration::from_secs(20), "the rewritten config was not picked up");
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(decision("echo alpha"), "pass");
}

#[test]
fn sigterm_lets_a_request_in_flight_finish() {
    if !hookhost_tests::have("sleep") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("slow.toml");
    std::fs::write(&config, "[grants]\n\"builtin:bash-adapter\" = [\"process:exec\"]\n[[hooks]]\nevent = \"pre_tool_use\"\ntimeout_ms = 10000\nexecutor = { plugin = \"builtin:bash-adapter\", settings = { mode = \"host\", dialect = \"claude-code\", command = \"sleep 1; echo 'slow no' >&2; exit 2\" } }\n").unwrap();
    let mut d = Daemon::start(&["--listen", "127.0.0.1:0", "--config", config.to_str().unwrap()]);
    let addr = d.addr.clone();
    let in_flight = std::thread::spawn(move || {
        let mut s = TcpStream::connect(&addr).unwrap();
        exchange(&mut s, "POST", "/v1/events", &[], &bash("ls"))
    });
    std::thread::sleep(Duration::from_millis(300));
    d.signal(libc::SIGTERM);
    let (status, body) = in_flight.join().unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("slow no"), "{body}");
    let status = d.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert!(d.logged("shutting down, letting requests in flight finish"));
}

#[test]
fn a_unix_socket_and_malformed_connections() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("hookhost.sock");
    let d = Daemon::start(&["--listen", &format!("unix:{}", sock.display()), "--request-timeout", "1"]);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&sock).unwrap().permissions().mode() & 0o777, 0o600, "only this user reaches the socket");
    let mut s = std::os::unix::net::UnixStream::connect(&sock).unwrap();
    let (status, body) = exchange(&mut s, "POST", "/v1/hooks/docker-agent", &[], MKFS);
    assert_eq!(status, 200);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&body).unwrap()["decision"], "block");
    // Headers that never end: the connection is dropped after the timeout.
    let mut slow = std::os::unix::net::UnixStream::connect(&sock).unwrap();
    slow.write_all(b"POST /v1/events HTTP/1.1\r\nHost: x\r\n").unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let start = Instant::now();
    let mut buf = Vec::new();
    let _ = slow.read_to_end(&mut buf);
    assert!(start.elapsed() < Duration::from_secs(5), "a slow client was not cut off");
    // A truncated body: the client goes away; nothing breaks.
    let mut cut = std::os::unix::net::UnixStream::connect(&sock).unwrap();
    cut.write_all(b"POST /v1/events HTTP/1.1\r\nHost: x\r\nContent-Length: 500\r\n\r\n{\"hook_ev").unwrap();
    drop(cut);
    let mut s = std::os::unix::net::UnixStream::connect(&sock).unwrap();
    assert_eq!(exchange(&mut s, "GET", "/healthz", &[], "").0, 200, "still serving");
    drop(d);
}

/// `hookhost load-test` drives a real daemon with concurrent clients, reloads (one of them a
/// broken config) and malformed requests, and checks every answer; here with a small count (the
/// 50,000-request figures are in docs/PERFORMANCE.md).
#[test]
fn the_load_test_command_checks_every_answer_and_the_daemons_footprint() {
    let out = common::hookhost_with(|c| {
        c.args(["load-test", "--requests", "1500", "--clients", "4", "--reloads", "4", "--json"]);
    }, b"");
    let report = common::json_of(&out);
    assert_eq!(report["requests"], 1500, "{report}");
    assert_eq!(report["wrong"], 0, "{report}");
    assert!(report["reloads_ok"].as_u64().unwrap() >= 1, "{report}");
    assert!(report["reloads_failed"].as_u64().unwrap() >= 1, "the broken config is refused: {report}");
    let malformed: Vec<(String, String)> = serde_json::from_value(report["malformed"].clone()).unwrap();
    assert_eq!(malformed.iter().map(|(w, g)| format!("{w}: {g}")).collect::<Vec<_>>(), ["oversized body: HTTP 413", "not JSON: HTTP 400", "truncated body: client hung up", "slow headers: closed by the daemon"]);
    assert!(report["fds_after"].as_u64().unwrap() <= report["fds_before"].as_u64().unwrap() + 8, "{report}");
}
