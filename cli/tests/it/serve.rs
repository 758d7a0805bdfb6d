//! `hookhost serve`, through the real binary over real loopback HTTP and a unix socket: the
//! routes, the bearer token, the body cap, reloads (file change, SIGHUP, a bad config keeps the
//! old one), graceful shutdown with a request in flight, and malformed requests that each get
//! their error while the daemon keeps serving.

use crate::common;

use crate::common::{exchange, Daemon};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
    // GitHub Copilot CLI's camelCase payload names no event: read from its fields, or named by
    // the path (its preToolUse and permissionRequest payloads are alike).
    let copilot_mkfs = r#"{"sessionId":"s","timestamp":1767225600000,"cwd":"/","toolName":"bash","toolArgs":{"command":"mkfs.ext4 /dev/sda"}}"#;
    let (status, body) = d.request("POST", "/v1/hooks/copilot", &auth, copilot_mkfs);
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!((status, v["permissionDecision"].as_str()), (200, Some("deny")), "{body}");
    // Named a permission request, where the default chain has no hook: not read as preToolUse.
    assert_eq!(d.request("POST", "/v1/hooks/copilot/permissionRequest", &auth, copilot_mkfs), (200, "{}".into()));
    // Bad requests, each with its error; the daemon serves on.
    let (status, body) = d.request("POST", "/v1/events", &auth, "not json");
    assert_eq!(status, 400);
    assert!(body.contains("event is not valid JSON"), "{body}");
    assert_eq!(d.request("POST", "/v1/hooks/windsurf", &auth, MKFS).0, 404);
    assert_eq!(d.request("POST", "/v1/events", &auth, &"x".repeat(5000)).0, 413, "over --max-body");
    assert_eq!(d.request("GET", "/v1/events", &auth, "").0, 405);
    let metrics = d.request("GET", "/metrics", &auth, "").1;
    for line in [
        "hookhost_requests_total{route=\"/v1/events\",status=\"200\"} 1",
        "hookhost_requests_total{route=\"/v1/events\",status=\"400\"} 1",
        "hookhost_hook_decisions_total{hook=\"user:guard_destructive\",decision=\"block\"} 3",
        "hookhost_hook_invocations_total{hook=\"user:guard_destructive\"} 4",
        "hookhost_hook_duration_seconds_count{hook=\"user:guard_destructive\"} 4",
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

// Hostile edges (issue #39): the daemon serves its own user, and nothing else.

/// Run `script` with python3 as the unprivileged user 65534; its stdout.
fn python_as_nobody(script: &str) -> String {
    use std::os::unix::process::CommandExt;
    let out = std::process::Command::new("python3").args(["-c", script]).uid(65534).gid(65534).output().unwrap();
    String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr)
}

fn is_root() -> bool {
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    assert!(root || std::env::var("CI").as_deref() != Ok("true"), "CI runs as root, which this test needs to act as another user");
    root
}

#[test]
fn a_unix_socket_daemon_refuses_another_user_and_is_never_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("hookhost.sock");
    let listen = format!("unix:{}", sock.display());
    // An existing file that is not a socket is not replaced.
    std::fs::write(&sock, "mine").unwrap();
    let out = common::hookhost_with(|c| {
        c.args(["serve", "--listen", &listen]);
    }, b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exists and is not a socket; hookhost serve does not replace it"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&sock).unwrap(), "mine");
    std::fs::remove_file(&sock).unwrap();
    let d = Daemon::start(&["--listen", &listen]);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&sock).unwrap().permissions().mode() & 0o777, 0o600);
    // A second daemon does not take over the live socket; the first keeps serving.
    let out = common::hookhost_with(|c| {
        c.args(["serve", "--listen", &listen]);
    }, b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a daemon is already listening on"), "{}", String::from_utf8_lossy(&out.stderr));
    let mut s = std::os::unix::net::UnixStream::connect(&sock).unwrap();
    assert_eq!(exchange(&mut s, "POST", "/v1/hooks/claude-code", &[], MKFS).0, 200);
    // Another user, even given the socket, is refused by its credentials.
    if is_root() {
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o666)).unwrap();
        let reply = python_as_nobody(&format!(
            "import socket\ns=socket.socket(socket.AF_UNIX)\ns.connect({:?})\nb={MKFS:?}\ns.sendall(('POST /v1/hooks/claude-code HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\nContent-Type: application/json\\r\\nContent-Length: %d\\r\\n\\r\\n' % len(b) + b).encode())\nprint(s.makefile('rb').read().decode())",
            sock.display().to_string()
        ));
        assert!(reply.starts_with("HTTP/1.1 403") && reply.contains("this daemon serves uid 0 only, and you are uid 65534"), "{reply}");
    }
    drop(d);
}

#[test]
fn over_tcp_a_token_is_required_by_default_and_browsers_are_refused() {
    let state = tempfile::tempdir().unwrap();
    let d = Daemon::start_as_is(&["--listen", "127.0.0.1:0"], |c| {
        c.env("XDG_STATE_HOME", state.path());
    });
    let token_file = state.path().join("hookhost/serve.token");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&token_file).unwrap().permissions().mode() & 0o777, 0o600);
    let token = std::fs::read_to_string(&token_file).unwrap().trim().to_string();
    assert_eq!(token.len(), 64, "32 random bytes as hex");
    assert!(d.logged(&format!("requests need the bearer token in {}", token_file.display())));
    assert_eq!(d.request("POST", "/v1/events", &[], MKFS).0, 401);
    let auth = format!("Bearer {token}");
    assert_eq!(d.request("POST", "/v1/events", &[("Authorization", &auth)], MKFS).0, 200);
    // A web page's simple request: no preflight, text/plain, an Origin.
    let (status, body) = d.request("POST", "/v1/events", &[("Authorization", &auth), ("Content-Type", "text/plain")], MKFS);
    assert_eq!(status, 415, "{body}");
    let (status, body) = d.request("POST", "/v1/events", &[("Authorization", &auth), ("Origin", "http://evil.example")], MKFS);
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("requests from web pages"), "{body}");
    // The token survives a restart; --no-token is for loopback only.
    drop(d);
    let again = Daemon::start_as_is(&["--listen", "127.0.0.1:0"], |c| {
        c.env("XDG_STATE_HOME", state.path());
    });
    assert_eq!(again.request("POST", "/v1/events", &[("Authorization", &auth)], MKFS).0, 200);
    let out = common::hookhost_with(|c| {
        c.args(["serve", "--no-token", "--listen", "0.0.0.0:0"]);
    }, b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--no-token: 0.0.0.0:0 is not a loopback address"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_chain_that_runs_out_of_time_on_a_blocking_event_is_a_block() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("slow.toml");
    std::fs::write(&config, "[grants]\n\"builtin:bash-adapter\" = [\"process:exec\"]\n[[hooks]]\nevent = \"pre_tool_use\"\ntimeout_ms = 20000\nexecutor = { plugin = \"builtin:bash-adapter\", settings = { mode = \"host\", dialect = \"claude-code\", command = \"sleep 5\" } }\n").unwrap();
    let d = Daemon::start(&["--listen", "127.0.0.1:0", "--config", config.to_str().unwrap(), "--request-timeout", "1"]);
    let (status, body) = d.request("POST", "/v1/hooks/claude-code", &[], MKFS);
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{body}");
    assert!(v["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().contains("did not decide within 1 s"), "{body}");
    let (status, body) = d.request("POST", "/v1/events", &[], MKFS);
    assert_eq!((status, serde_json::from_str::<serde_json::Value>(&body).unwrap()["decision"].as_str()), (200, Some("block")), "{body}");
    // An event that cannot block is not turned into one: the non-blocking error it was.
    let notify = r#"{"hook_event_name":"Notification","message":"hi"}"#;
    assert_eq!(d.request("POST", "/v1/hooks/claude-code", &[], notify).0, 200, "no hook on notifications: answered at once");
}

#[test]
fn idle_connections_are_closed_connections_are_capped_and_accept_errors_back_off() {
    // Idle: a connection that sends nothing, and one idle after a keep-alive request.
    let d = Daemon::start(&["--listen", "127.0.0.1:0", "--request-timeout", "1", "--max-connections", "2"]);
    let mut idle = TcpStream::connect(&d.addr).unwrap();
    let mut kept = TcpStream::connect(&d.addr).unwrap();
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    // Both are over the cap of 2 with a third: it is answered once they are closed.
    let (status, _) = d.request("GET", "/healthz", &[], "");
    assert_eq!(status, 200);
    for s in [&mut idle, &mut kept] {
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).expect("closed by the daemon, not by the read timeout");
    }
    drop(d);
    // Out of file descriptors: accept fails, and the daemon backs off instead of spinning.
    let d = Daemon::start_as_is(&["--no-token", "--listen", "127.0.0.1:0", "--request-timeout", "2"], |c| {
        use std::os::unix::process::CommandExt;
        // SAFETY: setrlimit is async-signal-safe.
        unsafe {
            c.pre_exec(|| {
                let limit = libc::rlimit { rlim_cur: 96, rlim_max: 96 };
                libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
                Ok(())
            });
        }
    });
    let flood: Vec<TcpStream> = (0..150).filter_map(|_| TcpStream::connect(&d.addr).ok()).collect();
    std::thread::sleep(Duration::from_secs(3));
    let lines = d.lines("accept failed");
    assert!((1..=2).contains(&lines), "{lines} accept-failure lines in 3 s");
    drop(flood);
    let start = Instant::now();
    loop {
        if let Ok(mut s) = TcpStream::connect(&d.addr) {
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            if exchange(&mut s, "GET", "/healthz", &[], "").0 == 200 {
                break;
            }
        }
        assert!(start.elapsed() < Duration::from_secs(30), "the daemon did not recover");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// Issue #48: clients that connect and send nothing, or no token, hold at most half the
/// connection slots — the oldest are closed as more arrive — so an authenticated request is
/// answered at once even while they keep connecting; and none of them is held past the header
/// deadline (5 s), whatever `--request-timeout` says.
#[test]
fn unauthenticated_connections_cannot_starve_an_authenticated_one() {
    let state = tempfile::tempdir().unwrap();
    let d = Daemon::start_as_is(&["--listen", "127.0.0.1:0", "--request-timeout", "60", "--max-connections", "8"], |c| {
        c.env("XDG_STATE_HOME", state.path());
    });
    let token = std::fs::read_to_string(state.path().join("hookhost/serve.token")).unwrap().trim().to_string();
    let auth = format!("Bearer {token}");
    let started = Instant::now();
    let mut silent: Vec<TcpStream> = (0..32).map(|_| TcpStream::connect(&d.addr).unwrap()).collect();
    // Some without a token, answered 401 and kept open.
    for _ in 0..4 {
        let mut s = TcpStream::connect(&d.addr).unwrap();
        s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        silent.push(s);
    }
    let asked = Instant::now();
    let (status, body) = d.request("POST", "/v1/hooks/claude-code", &[("Authorization", &auth)], &bash("rm -rf /"));
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("deny"), "{body}");
    assert!(asked.elapsed() < Duration::from_secs(3), "answered at once, not after the silent clients time out: {:?}", asked.elapsed());
    // Every silent connection is closed by the daemon well before the 60 s request timeout.
    for s in &mut silent {
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut buf = Vec::new();
        // The daemon closing a connection whose request it has not read yet is a reset (the
        // kernel's answer to unread data), closing one it has read is an end of stream: both are
        // the daemon's close. Only the read timeout is not.
        match s.read_to_end(&mut buf) {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {}
            Err(e) => panic!("closed by the daemon, not by the read timeout: {e:?}"),
        }
    }
    assert!(started.elapsed() < Duration::from_secs(15), "{:?}", started.elapsed());
}

#[test]
fn each_event_runs_with_the_project_of_its_own_cwd() {
    let home = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let project = std::fs::canonicalize(work.path()).unwrap().join("app");
    std::fs::create_dir_all(project.join(".hookhost")).unwrap();
    std::fs::create_dir_all(project.join("src")).unwrap();
    std::fs::write(project.join(".hookhost/hooks.toml"), "[[hooks]]\nid = \"strict\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\", settings = { strict_rm = true } }\n").unwrap();
    let env = |c: &mut std::process::Command| {
        c.env("HOME", home.path()).env("XDG_STATE_HOME", home.path().join("state")).env("XDG_CONFIG_HOME", home.path().join("config")).env_remove("HOOKHOST_MANAGED_CONFIG");
    };
    let trusted = common::hookhost_with(|c| {
        env(c);
        c.current_dir(&project).args(["trust"]);
    }, b"");
    assert!(trusted.status.success(), "{}", String::from_utf8_lossy(&trusted.stderr));
    let d = Daemon::start_with(&["--listen", "127.0.0.1:0"], |c| {
        env(c);
        c.current_dir(home.path());
    });
    let event = |cwd: &Path| serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}, "cwd": cwd}).to_string();
    // In the project: its strict rm hook decides, as `hookhost run` there would.
    let (_, body) = d.request("POST", "/v1/events", &[], &event(&project.join("src")));
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!((v["decision"].as_str(), v["reason"].as_str()), (Some("block"), Some("destructive command blocked: rm -rf is not allowed (rule fs.strict-rm); instead: delete files by name, without -rf")), "{body}");
    let run = common::hookhost_with(|c| {
        env(c);
        c.current_dir(&project).args(["run"]);
    }, event(&project).as_bytes());
    assert_eq!(common::json_of(&run)["decision"], "block");
    // Elsewhere: no project.
    let (_, body) = d.request("POST", "/v1/events", &[], &event(home.path()));
    assert_eq!(serde_json::from_str::<serde_json::Value>(&body).unwrap()["decision"], "pass", "{body}");
}

/// A daemon reloaded 500 times, alternating between two plugin sets, keeps its memory: the
/// code of plugins no loaded host uses is freed (issue #35, "a component cache that is right
/// for daemons").
#[test]
fn five_hundred_reloads_keep_the_daemons_memory_flat() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hooks.toml");
    let sets = [
        "[[hooks]]\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n",
        "[[hooks]]\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:redact-secrets\" }\n[[hooks]]\nevent = \"user_prompt_submit\"\nexecutor = { plugin = \"builtin:bash-adapter\", settings = { command = \"true\" } }\n",
    ];
    std::fs::write(&config, sets[0]).unwrap();
    let d = Daemon::start(&["--listen", "127.0.0.1:0", "--config", config.to_str().unwrap()]);
    let rss = || -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", d.child.id())).unwrap();
        status.lines().find_map(|l| l.strip_prefix("VmRSS:")).unwrap().trim().trim_end_matches(" kB").parse().unwrap()
    };
    let mut reloads = 0;
    let mut reload = |n: usize| {
        for _ in 0..n {
            reloads += 1;
            std::fs::write(&config, sets[reloads % 2]).unwrap();
            d.signal(libc::SIGHUP);
            let start = Instant::now();
            while d.lines("config reloaded (SIGHUP)") < reloads {
                assert!(start.elapsed() < Duration::from_secs(60), "reload {reloads} did not happen: {}", d.lines("did not reload"));
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        assert_eq!(d.request("POST", "/v1/events", &[], MKFS).0, 200);
    };
    reload(50);
    let warm = rss();
    reload(450);
    let after = rss();
    eprintln!("RSS after 50 reloads: {warm} kB; after 500: {after} kB");
    assert!(after <= warm + warm / 10, "RSS grew from {warm} kB to {after} kB over 450 reloads");
}

/// A guard rolled out in observe mode lets `rm -rf /` through; the audit log says it would have
/// blocked, and `/metrics` counts what it would have decided apart from what applied.
#[test]
fn a_guard_in_observe_mode_lets_it_through_and_says_it_would_have_blocked() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hooks.toml");
    std::fs::write(&config, "audit_log = \"audit.jsonl\"\n\n[[hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\nmode = \"observe\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n").unwrap();
    let d = Daemon::start(&["--listen", "127.0.0.1:0", "--config", config.to_str().unwrap()]);
    assert_eq!(d.request("POST", "/v1/hooks/claude-code", &[], &bash("rm -rf /")), (200, "{}".into()), "observed: the runtime's pass");
    let record: serde_json::Value = serde_json::from_str(std::fs::read_to_string(dir.path().join("audit.jsonl")).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!((record["decision"].as_str(), record["observed"].as_bool()), (Some("block"), Some(true)), "{record}");
    assert_eq!(record["reason"], "destructive command blocked: recursive delete of / (rule fs.rm-root); instead: delete the specific paths you mean, by name");
    let metrics = d.request("GET", "/metrics", &[], "").1;
    assert!(metrics.contains("hookhost_hook_observed_total{hook=\"user:guard\",decision=\"block\"} 1"), "{metrics}");
    assert!(!metrics.contains("hookhost_hook_decisions_total{hook=\"user:guard\""), "nothing of it applied:\n{metrics}");
}

/// Hooks' session state through `serve` (writes made in memory, committed in batches): the
/// second call of a session remembers the first; the store on disk has it soon after, where a
/// `hookhost run` of the same session reads it; another session remembers nothing.
#[test]
fn serve_keeps_hooks_session_state_and_commits_it_for_runs() {
    let dir = tempfile::tempdir().unwrap();
    let frozen = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/frozen/hookhost-hooks-0.3.0");
    let config = frozen.join("hooks.toml");
    let state = dir.path().join("state");
    let d = Daemon::start_with(&["--listen", "127.0.0.1:0", "--no-project", "--config", config.to_str().unwrap()], |c| {
        c.env("HOOKHOST_STATE_DIR", &state);
    });
    let call = |session: &str, command: &str| serde_json::json!({"event": "pre_tool_use", "session_id": session, "cwd": "/", "data": {"tool_name": "Bash", "arguments": {"command": command}}}).to_string();
    let decide = |session: &str, command: &str| {
        let (status, body) = d.request("POST", "/v1/events", &[], &call(session, command));
        assert_eq!(status, 200, "{body}");
        serde_json::from_str::<serde_json::Value>(&body).unwrap()
    };
    assert_eq!(decide("s", "make deploy")["decision"], "pass");
    let again = decide("s", "make deploy");
    assert_eq!((again["decision"].as_str(), again["reason"].as_str()), (Some("block"), Some("repeated: make deploy (call 2)")), "{again}");
    assert_eq!(decide("t", "make deploy")["decision"], "pass", "another session");
    // Committed within milliseconds: a `hookhost run` of session s (another process) sees it.
    std::thread::sleep(Duration::from_millis(300));
    let out = common::hookhost_with(|c| { c.args(["run", "--no-project", "--config", config.to_str().unwrap()]).env("HOOKHOST_STATE_DIR", &state); }, call("s", "make deploy").as_bytes());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["reason"], "repeated: make deploy (call 3)", "serve's writes reached the store: {v}");
    // And serve sees that run's write in turn (it checks for other writers every 10 ms).
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(decide("s", "make deploy")["reason"], "repeated: make deploy (call 4)");
}
