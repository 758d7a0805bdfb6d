//! Peer HTTP hooks (Claude Code `type: "http"`, Starchild `type: http`), issue #14: the event is
//! POSTed through `wasi:http` to a real server on loopback, only under a `net:http:HOST:PORT`
//! grant, and the response is read as that runtime reads it (Claude Code's hooks reference,
//! "HTTP response handling"). Failures never pass on the events a hook guards.

use hookhost::{Capability, ConfigFile, Host, HookEvent, Outcome, VerdictKind};
use hookhost_tests::fresh_session;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// What the server answers: status, body, and a delay before answering.
type Reply = (u16, String, Duration);

/// A real HTTP/1.1 server on loopback that answers every request with `reply` and records it.
struct Server {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    reply: Arc<Mutex<Reply>>,
}

impl Server {
    fn start() -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let reply: Arc<Mutex<Reply>> = Arc::new(Mutex::new((200, String::new(), Duration::ZERO)));
        let (s, r) = (seen.clone(), reply.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (s, r) = (s.clone(), r.clone());
                std::thread::spawn(move || serve(stream, &s, &r));
            }
        });
        Server { port, seen, reply }
    }

    fn answer(&self, status: u16, body: &str) {
        *self.reply.lock().unwrap() = (status, body.to_string(), Duration::ZERO);
    }

    fn answer_late(&self, delay: Duration) {
        *self.reply.lock().unwrap() = (200, String::new(), delay);
    }

    fn take(&self) -> Vec<Seen> {
        std::mem::take(&mut *self.seen.lock().unwrap())
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    fn grant(&self) -> Capability {
        format!("net:http:127.0.0.1:{}", self.port).parse().unwrap()
    }
}

fn serve(stream: TcpStream, seen: &Mutex<Vec<Seen>>, reply: &Mutex<Reply>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or("").to_string(), parts.next().unwrap_or("").to_string());
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).unwrap();
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':').unwrap();
        headers.push((k.trim().to_string(), v.trim().to_string()));
    }
    let len: usize = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("content-length")).map_or(0, |(_, v)| v.parse().unwrap());
    let mut body = vec![0; len];
    reader.read_exact(&mut body).unwrap();
    seen.lock().unwrap().push(Seen { method, path, headers, body: serde_json::from_slice(&body).unwrap_or(Value::Null) });
    let (status, text, delay) = reply.lock().unwrap().clone();
    std::thread::sleep(delay);
    let location = if status == 302 { "Location: http://127.0.0.1:1/elsewhere\r\n" } else { "" };
    let mut stream = stream;
    let _ = write!(stream, "HTTP/1.1 {status} X\r\n{location}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}", text.len());
}

/// A Claude Code settings file with one http hook per event given, loaded with `grants`.
async fn claude_host(hooks: Value, grants: &[Capability]) -> (Host, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    let file = dir.path().join(".claude/settings.json");
    std::fs::write(&file, json!({"env": {"TEAM": "core"}, "hooks": hooks}).to_string()).unwrap();
    let mut b = Host::builder().config(ConfigFile::load(&file).unwrap_or_else(|e| panic!("{e}")));
    for g in grants {
        b = b.grant_all(g.clone());
    }
    (b.build().await.unwrap_or_else(|e| panic!("{e}")), dir)
}

fn http_hook(url: &str) -> Value {
    json!({"type": "http", "url": url, "timeout": 2, "headers": {"Authorization": "Bearer $HOOKHOST_HTTP_TEST_TOKEN", "X-Team": "${TEAM}", "X-Leak": "$HOOKHOST_HTTP_TEST_SECRET"}, "allowedEnvVars": ["HOOKHOST_HTTP_TEST_TOKEN", "TEAM"]})
}

fn pre_bash(command: &str) -> HookEvent {
    HookEvent::from_value(json!({"hook_event_name": "PreToolUse", "session_id": fresh_session("http"), "tool_name": "Bash", "tool_input": {"command": command}})).unwrap()
}

fn post_bash() -> HookEvent {
    HookEvent::from_value(json!({"hook_event_name": "PostToolUse", "session_id": fresh_session("http"), "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a"}})).unwrap()
}

fn error_of(out: &Outcome) -> String {
    out.hooks.iter().filter_map(|h| h.error.clone()).collect::<Vec<_>>().join(" | ")
}

#[tokio::test]
async fn a_granted_http_hook_gets_the_event_and_its_answer_decides() {
    std::env::set_var("HOOKHOST_HTTP_TEST_TOKEN", "s3cret");
    std::env::set_var("HOOKHOST_HTTP_TEST_SECRET", "must-not-leave");
    let server = Server::start();
    let (host, _dir) = claude_host(json!({"PreToolUse": [{"matcher": "Bash", "hooks": [http_hook(&server.url("/hooks/pre?v=1"))]}]}), &[server.grant()]).await;

    // A 2xx JSON object is read as a command hook's stdout: a deny is a block with its reason.
    server.answer(200, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no force pushes"}}"#);
    let out = host.dispatch(&pre_bash("git push --force")).await;
    assert_eq!((out.decision, out.reason.as_deref()), (VerdictKind::Block, Some("no force pushes")), "{out:?}");
    let seen = server.take();
    assert_eq!(seen.len(), 1);
    let req = &seen[0];
    assert_eq!((req.method.as_str(), req.path.as_str()), ("POST", "/hooks/pre?v=1"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.header("authorization"), Some("Bearer s3cret"), "a listed variable, from hookhost's environment");
    assert_eq!(req.header("x-team"), Some("core"), "a listed variable, from the settings file's env");
    assert_eq!(req.header("x-leak"), Some(""), "an unlisted variable is the empty string, as in Claude Code");
    // The body is Claude Code's own hook input, as a command hook reads it on stdin.
    assert_eq!(req.body["hook_event_name"], "PreToolUse");
    assert_eq!(req.body["tool_name"], "Bash");
    assert_eq!(req.body["tool_input"], json!({"command": "git push --force"}));
    assert!(req.body["session_id"].as_str().is_some_and(|s| s.starts_with("http")), "{}", req.body);


    // An empty 2xx is success with no output; rewrites come back as updatedInput.
    server.answer(204, "");
    assert_eq!(host.dispatch(&pre_bash("ls")).await.decision, VerdictKind::Pass);
    server.answer(200, r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls -la"}}}"#);
    let out = host.dispatch(&pre_bash("ls")).await;
    assert_eq!(out.decision, VerdictKind::Allow, "{out:?}");
    assert_eq!(out.patch.map(Value::Object), Some(json!({"arguments": {"command": "ls -la"}})));
}

/// A failing http hook is what Claude Code makes of it: a non-blocking error, unless the hook
/// sets `onFailure: "block"` — then it blocks what it guards. It never hangs the host.
#[tokio::test]
async fn failures_block_what_the_hook_guards_when_asked_and_never_hang() {
    let server = Server::start();
    let strict = |url: String| {
        let mut h = http_hook(&url);
        h["onFailure"] = json!("block");
        h
    };
    let hooks = json!({
        "PreToolUse": [{"matcher": "Bash", "hooks": [strict(server.url("/pre"))]}],
        "PostToolUse": [{"matcher": "Bash", "hooks": [http_hook(&server.url("/post"))]}],
    });
    let (host, _dir) = claude_host(hooks, &[server.grant()]).await;
    let cases: [(u16, String, &str); 5] = [
        (500, "boom".into(), "answered HTTP 500: boom"),
        (200, "ok".into(), "with a body that is neither empty nor a JSON object"),
        (302, String::new(), "answered HTTP 302"),
        (200, format!("{{\"reason\":\"{}\"}}", "x".repeat(70_000)), "the response is over 64 KiB"),
        (200, "[]".into(), "neither empty nor a JSON object"),
    ];
    for (status, body, says) in cases {
        server.answer(status, &body);
        // PreToolUse with `onFailure: "block"`: an executor error there is a block.
        let out = host.dispatch(&pre_bash("ls")).await;
        assert_eq!(out.decision, VerdictKind::Block, "{status}: {out:?}");
        assert!(error_of(&out).contains(says), "{status}: {}", error_of(&out));
        // PostToolUse is advisory: the error is traced and the chain passes.
        let out = host.dispatch(&post_bash()).await;
        assert_eq!(out.decision, VerdictKind::Pass, "{status}");
        assert!(error_of(&out).contains(says), "{status}: {}", error_of(&out));
    }
    assert_eq!(server.take().len(), 10, "a redirect is not followed");

    // A server slower than the hook's 2 s timeout: the hook fails in time, the host answers.
    server.answer_late(Duration::from_secs(5));
    let started = std::time::Instant::now();
    let out = host.dispatch(&pre_bash("ls")).await;
    assert_eq!(out.decision, VerdictKind::Block);
    assert!(started.elapsed() < Duration::from_secs(4), "{:?}", started.elapsed());

    // Nobody listening: connection refused, a block naming the URL.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let grant: Capability = format!("net:http:127.0.0.1:{port}").parse().unwrap();
    let (host, _dir) = claude_host(json!({"PreToolUse": [{"hooks": [strict(format!("http://127.0.0.1:{port}/x"))]}]}), &[grant.clone()]).await;
    let out = host.dispatch(&pre_bash("ls")).await;
    assert_eq!(out.decision, VerdictKind::Block);
    assert!(error_of(&out).contains(&format!("http://127.0.0.1:{port}/x: connection refused")), "{}", error_of(&out));
    // Without `onFailure`, as in Claude Code: the call goes on, the error is traced.
    let (host, _dir) = claude_host(json!({"PreToolUse": [{"hooks": [http_hook(&format!("http://127.0.0.1:{port}/x"))]}]}), &[grant]).await;
    let out = host.dispatch(&pre_bash("ls")).await;
    assert_eq!(out.decision, VerdictKind::Pass);
    assert!(error_of(&out).contains("connection refused"), "{}", error_of(&out));
}

#[tokio::test]
async fn without_its_grant_an_http_hook_reaches_nothing_and_blocks_what_it_guards() {
    let server = Server::start();
    server.answer(200, "");
    let hooks = json!({"PreToolUse": [{"hooks": [http_hook(&server.url("/pre"))]}], "PostToolUse": [{"hooks": [http_hook(&server.url("/post"))]}]});
    // No grant; then a grant for another port of the same host; then for another host.
    let other_port: Capability = format!("net:http:127.0.0.1:{}", server.port + 1).parse().unwrap();
    let other_host: Capability = format!("net:http:localhost:{}", server.port).parse().unwrap();
    for grants in [vec![], vec![other_port], vec![other_host, Capability::ProcessExec]] {
        let (host, _dir) = claude_host(hooks.clone(), &grants).await;
        let out = host.dispatch(&pre_bash("ls")).await;
        assert_eq!(out.decision, VerdictKind::Block, "{grants:?}");
        let reason = out.reason.unwrap();
        let grant = format!("net:http:127.0.0.1:{}", server.port);
        assert!(reason.contains(&format!("the host does not let this hook reach 127.0.0.1:{} (it needs the grant {grant})", server.port)), "{reason}");
        assert!(reason.contains(&format!("--grant {grant}")), "{reason}");
        // An advisory event: a warning, a pass.
        let out = host.dispatch(&post_bash()).await;
        assert_eq!(out.decision, VerdictKind::Pass);
        assert!(error_of(&out).contains("it needs the grant"), "{}", error_of(&out));
        // `check`'s report says where it would post and what it needs.
        let report = host.report().await;
        assert_eq!(report[0].runs, hookhost::Runs::Http);
        assert!(!report[0].runnable);
        assert_eq!(report[0].needs.as_deref(), Some(grant.as_str()));
    }
    assert!(server.take().is_empty(), "no request left the sandbox");
}

#[tokio::test]
async fn starchild_http_hooks_post_the_same_payload_and_read_the_same_answer() {
    let server = Server::start();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hooks.yaml");
    std::fs::write(&file, format!("hooks:\n  - event: pre_tool_call\n    type: http\n    url: {}\n    matcher: rm\n", server.url("/guard"))).unwrap();
    let config = ConfigFile::load(&file).unwrap_or_else(|e| panic!("{e}"));
    assert!(config.not_run.is_empty());
    let host = Host::builder().config(config).grant_all(server.grant()).build().await.unwrap();
    server.answer(200, r#"{"decision":"block","reason":"starchild says no"}"#);
    let out = host.dispatch(&pre_bash("rm -rf build")).await;
    assert_eq!((out.decision, out.reason.as_deref()), (VerdictKind::Block, Some("starchild says no")), "{out:?}");
    let seen = server.take();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].body["tool_input"], json!({"command": "rm -rf build"}));
}
