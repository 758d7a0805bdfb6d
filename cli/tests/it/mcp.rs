//! `hookhost mcp`: the MCP server a runtime's MCP tool hooks call, spoken to over its stdio as
//! Claude Code speaks to it — the handshake, the tool list, a hook's template filled as Claude
//! Code fills it, and every bad message a client could send. (Claude Code itself calling it:
//! tests/clients, the `mcp` wiring.)

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Server {
    fn start(args: &[&str], dir: &Path) -> Server {
        Self::start_with(args, dir, &[])
    }

    /// [`Server::start`] with these variables in its environment.
    fn start_with(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Server {
        let mut cmd = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"));
        cmd.arg("mcp").args(args).current_dir(dir).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        cmd.envs(env.iter().copied());
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Server { child, stdin, lines }
    }

    fn send(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn next(&self) -> Value {
        let line = self.lines.recv_timeout(Duration::from_secs(60)).expect("an answer within 60 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// A request and its answer.
    fn ask(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
        let answer = self.next();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    fn initialize(&mut self) {
        let answer = self.ask(0, "initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}));
        assert_eq!(answer["result"]["protocolVersion"], "2025-11-25");
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    /// The `hook` tool called with a hook input, as Claude Code fills the template: every value
    /// as text, objects as JSON text. (isError, text)
    fn hook(&mut self, id: u64, input: Value) -> (bool, String) {
        let answer = self.ask(id, "tools/call", json!({"name": "hook", "arguments": as_filled(&input)}));
        let result = &answer["result"];
        (result["isError"] == true, result["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {answer}")).to_string())
    }

    /// Close stdin (the client went away) and wait for the server to end.
    fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        for _ in 0..600 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        panic!("hookhost mcp did not end within 30 s of its stdin closing");
    }
}

/// A hook input as Claude Code fills the `hook` tool's template with it: every value as text,
/// objects as JSON text.
fn as_filled(input: &Value) -> serde_json::Map<String, Value> {
    input.as_object().unwrap().iter().map(|(k, v)| (k.clone(), Value::String(if let Value::String(s) = v { s.clone() } else { v.to_string() }))).collect()
}

fn pre_tool(cwd: &Path, command: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "session_id": "s1", "transcript_path": "", "cwd": cwd.display().to_string(), "permission_mode": "default",
           "agent_id": "", "tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": "t1"})
}

fn deny_reason(text: &str) -> Option<String> {
    let v: Value = serde_json::from_str(text).ok()?;
    (v["hookSpecificOutput"]["permissionDecision"] == "deny").then(|| v["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap_or_default().to_string())
}

#[test]
fn it_answers_claude_codes_mcp_tool_hooks_as_its_command_hooks_would() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = Server::start(&["--no-project"], dir.path());
    // Version negotiation: a revision it speaks is kept, another gets its newest.
    let older = server.ask(1, "initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
    assert_eq!(older["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(older["result"]["serverInfo"]["name"], "hookhost");
    assert_eq!(older["result"]["capabilities"]["tools"]["listChanged"], false);
    let unknown = server.ask(2, "initialize", json!({"protocolVersion": "1999-01-01"}));
    assert_eq!(unknown["result"]["protocolVersion"], "2025-11-25");
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert_eq!(server.ask(3, "ping", json!({}))["result"], json!({}));

    // One tool, kept from the model (MCP Apps' visibility: the host's hooks only).
    let tools = server.ask(4, "tools/list", json!({}));
    let list = tools["result"]["tools"].as_array().unwrap();
    assert_eq!(list.len(), 1, "{tools}");
    assert_eq!(list[0]["name"], "hook");
    assert_eq!(list[0]["_meta"]["ui"]["visibility"], json!(["app"]));
    assert_eq!(list[0]["inputSchema"]["type"], "object");

    // A destructive command: Claude Code's deny, with the guard's reason; a harmless one: `{}`.
    let (failed, text) = server.hook(5, pre_tool(dir.path(), "rm -rf ~"));
    assert!(!failed, "{text}");
    assert!(deny_reason(&text).is_some_and(|r| r.contains("recursive delete of ~")), "{text}");
    assert_eq!(server.hook(6, pre_tool(dir.path(), "ls -la")), (false, "{}".to_string()));
    // A secret in a command: allowed only rewritten (Claude Code's updatedInput).
    let (_, text) = server.hook(7, pre_tool(dir.path(), "echo ghp_0123456789abcdefghijABCDEFGHIJ0123 > out.txt"));
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["hookSpecificOutput"]["updatedInput"]["command"], "echo [REDACTED:github-token] > out.txt", "{text}");

    // What a client can get wrong: each its JSON-RPC error, and the server goes on.
    let wrong_tool = server.ask(8, "tools/call", json!({"name": "other", "arguments": {}}));
    assert_eq!(wrong_tool["error"]["code"], -32602, "{wrong_tool}");
    let not_object = server.ask(9, "tools/call", json!({"name": "hook", "arguments": "rm -rf /"}));
    assert_eq!(not_object["error"]["code"], -32602, "{not_object}");
    assert_eq!(server.ask(10, "resources/list", json!({}))["error"]["code"], -32601);
    server.send("{this is not json");
    let parse = server.next();
    assert_eq!((parse["id"].clone(), parse["error"]["code"].clone()), (Value::Null, json!(-32700)), "{parse}");
    server.send(r#"[{"jsonrpc":"2.0","id":11,"method":"ping"}]"#);
    assert_eq!(server.next()["error"]["code"], -32600, "a batch is not MCP");
    // A line over the limit is dropped whole, not held — sent in two parts more than a second
    // apart, so the server's once-a-second tick comes in the middle of it.
    let long = format!("{{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"ping\",\"pad\":\"{}\"}}", "x".repeat(4 * hookhost::MAX_EVENT_BYTES));
    let (first, rest) = long.split_at(long.len() / 2);
    server.stdin.as_mut().unwrap().write_all(first.as_bytes()).unwrap();
    server.stdin.as_mut().unwrap().flush().unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    server.send(rest);
    let long = server.next();
    assert!(long["error"]["message"].as_str().unwrap().contains("over the"), "{long}");
    // An event it cannot read (no event name) that gates nothing it knows: a tool error, which
    // Claude Code treats as the hook's onFailure says.
    let (failed, text) = server.hook(13, json!({"session_id": "s1", "tool_name": "Bash"}));
    assert!(failed && text.starts_with("hookhost: error:"), "{text}");
    assert_eq!(server.hook(14, pre_tool(dir.path(), "rm -rf /")).0, false, "still serving");

    // Calls at once are each answered, under their own id.
    for id in 100..140u64 {
        let arguments: serde_json::Map<String, Value> = pre_tool(dir.path(), if id % 2 == 0 { "rm -rf /" } else { "ls" }).as_object().unwrap().iter().map(|(k, v)| (k.clone(), Value::String(if let Value::String(s) = v { s.clone() } else { v.to_string() }))).collect();
        server.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "hook", "arguments": arguments}}).to_string());
    }
    let mut seen = std::collections::BTreeMap::new();
    for _ in 100..140 {
        let answer = server.next();
        let text = answer["result"]["content"][0]["text"].as_str().unwrap().to_string();
        seen.insert(answer["id"].as_u64().unwrap(), deny_reason(&text).is_some());
    }
    assert_eq!(seen.len(), 40);
    assert!(seen.iter().all(|(id, denied)| *denied == (id % 2 == 0)), "{seen:?}");

    assert!(server.finish().success(), "the session ended (stdin closed): exit 0");
}

/// `hookhost serve`'s `/mcp/<runtime>`: the same tool over MCP's streamable HTTP — one POST per
/// message, a request answered with its response as JSON, a notification with 202 — under the
/// daemon's rules (the bearer token, no web page).
#[test]
fn the_daemon_serves_the_tool_over_streamable_http() {
    let dir = tempfile::tempdir().unwrap();
    let token = dir.path().join("token");
    std::fs::write(&token, "s3cret\n").unwrap();
    let d = crate::common::Daemon::start(&["--listen", "127.0.0.1:0", "--token-file", token.to_str().unwrap()]);
    let auth = ("Authorization", "Bearer s3cret");
    let version = ("MCP-Protocol-Version", "2025-06-18");
    let post = |headers: &[(&str, &str)], message: &Value| {
        let (status, body) = d.request("POST", "/mcp/claude-code", headers, &message.to_string());
        (status, serde_json::from_str::<Value>(&body).unwrap_or(Value::String(body)))
    };
    let rpc = |id: u64, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let call = |id: u64, command: &str| rpc(id, "tools/call", json!({"name": "hook", "arguments": as_filled(&pre_tool(dir.path(), command))}));

    let (status, init) = post(&[auth], &rpc(1, "initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}})));
    assert_eq!((status, &init["result"]["protocolVersion"]), (200, &json!("2025-06-18")), "{init}");
    // A notification (and a response) is accepted with no body.
    assert_eq!(d.request("POST", "/mcp/claude-code", &[auth, version], r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#), (202, String::new()));
    let (_, tools) = post(&[auth, version], &rpc(2, "tools/list", json!({})));
    assert_eq!(tools["result"]["tools"][0]["name"], "hook", "{tools}");
    // The guard's deny, as Claude Code reads it; a harmless command: `{}`.
    let (status, denied) = post(&[auth, version], &call(3, "rm -rf ~"));
    assert_eq!(status, 200);
    let text = denied["result"]["content"][0]["text"].as_str().unwrap();
    assert!(deny_reason(text).is_some_and(|r| r.contains("recursive delete of ~")), "{denied}");
    assert_eq!(post(&[auth, version], &call(4, "ls")).1["result"]["content"][0]["text"], "{}");

    // The daemon's rules, and what a client can get wrong.
    assert_eq!(post(&[], &call(5, "rm -rf ~")).0, 401, "no token");
    assert_eq!(post(&[auth, ("Origin", "http://evil.example")], &call(6, "rm -rf ~")).0, 403, "a web page");
    let (status, old) = post(&[auth, ("MCP-Protocol-Version", "1999-01-01")], &call(7, "ls"));
    assert_eq!((status, &old["error"]["code"]), (400, &json!(-32600)), "{old}");
    let (status, batch) = post(&[auth], &json!([rpc(8, "ping", json!({}))]));
    assert_eq!((status, &batch["error"]["code"]), (400, &json!(-32600)), "a batch is not MCP: {batch}");
    assert_eq!(d.request("POST", "/mcp/claude-code", &[auth], "{nope").0, 400);
    assert_eq!(post(&[auth], &rpc(9, "resources/list", json!({}))).1["error"]["code"], -32601);
    let (status, gemini) = d.request("POST", "/mcp/gemini-cli", &[auth], &rpc(11, "ping", json!({})).to_string());
    assert_eq!(status, 404, "Gemini CLI's hooks call no MCP tool: {gemini}");
    assert!(gemini.contains("commands only"), "{gemini}");
    // No stream of the server's own, no session to end.
    let (status, _) = d.request("GET", "/mcp/claude-code", &[auth, ("Accept", "text/event-stream")], "");
    assert_eq!(status, 405);
    assert_eq!(d.request("DELETE", "/mcp/claude-code", &[auth], "").0, 405);
    assert!(d.request("GET", "/metrics", &[auth], "").1.contains("hookhost_requests_total{route=\"/mcp/claude-code\",status=\"200\"} 5"));
}

#[test]
fn a_config_that_does_not_load_blocks_what_gates_an_action_until_it_is_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hooks.toml");
    std::fs::write(&config, "[[hooks]\nnot toml\n").unwrap();
    let path = config.display().to_string();
    let mut server = Server::start(&["--no-project", "--config", &path], dir.path());
    server.initialize();
    // The server is up and says why it cannot decide: Claude Code's deny before a tool...
    let (failed, text) = server.hook(1, pre_tool(dir.path(), "ls"));
    assert!(!failed, "{text}");
    assert!(deny_reason(&text).is_some_and(|r| r.contains("hookhost could not decide") && r.contains("hooks.toml")), "{text}");
    // ... and a tool error (Claude Code's non-blocking error) on a tool's result.
    let post = json!({"hook_event_name": "PostToolUse", "session_id": "s1", "cwd": dir.path().display().to_string(), "tool_name": "Bash",
                      "tool_input": {"command": "ls"}, "tool_response": {"stdout": "a"}});
    let (failed, text) = server.hook(2, post);
    assert!(failed && text.contains("hookhost: error:"), "{text}");

    // Fixed: the next calls are decided by the chain it loads, without a restart.
    std::fs::write(&config, include_str!("../../../crates/config/src/default.toml")).unwrap();
    let mut decided = None;
    for id in 3..120 {
        std::thread::sleep(Duration::from_millis(250));
        let (_, text) = server.hook(id, pre_tool(dir.path(), "ls"));
        if text == "{}" {
            decided = Some(id);
            break;
        }
    }
    assert!(decided.is_some(), "the fixed config was never loaded");
    let (_, text) = server.hook(200, pre_tool(dir.path(), "rm -rf /"));
    assert!(deny_reason(&text).is_some_and(|r| r.contains("recursive delete")), "{text}");
    assert!(server.finish().success());
}

#[test]
fn with_fail_open_its_own_failure_is_a_tool_error_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hooks.toml");
    std::fs::write(&config, "[[hooks]\nnot toml\n").unwrap();
    let path = config.display().to_string();
    let mut server = Server::start(&["--no-project", "--config", &path, "--fail-open"], dir.path());
    server.initialize();
    let (failed, text) = server.hook(1, pre_tool(dir.path(), "rm -rf /"));
    assert!(failed && text.starts_with("hookhost: error:"), "{text}");
    assert!(server.finish().success());
}

#[test]
fn a_runtime_whose_hooks_cannot_call_a_tool_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::common::bin(env!("CARGO_BIN_EXE_hookhost")).args(["mcp", "--runtime", "codex"]).current_dir(dir.path()).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--runtime codex: Codex hooks are commands only"), "{err}");
    let out = crate::common::bin(env!("CARGO_BIN_EXE_hookhost")).args(["mcp", "--runtime", "nope"]).current_dir(dir.path()).stdin(Stdio::null()).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("the runtimes whose hooks can call an MCP tool: claude-code"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `hookhost mcp proxy` in front of a real MCP server — `hookhost mcp` itself, whose audit log
/// shows which calls reached it. (In front of the reference filesystem server, with Claude Code
/// and Codex as the clients: tests/clients, the `proxy` wiring.)
mod proxy {
    use super::*;

    const SECRET: &str = "ghp_0123456789abcdefghijABCDEFGHIJ0123";

    struct Setup {
        dir: tempfile::TempDir,
        audit: std::path::PathBuf,
    }

    /// The proxy's policy (`proxy_hooks`) and the server's: a hook whose reason carries a
    /// secret, so the server's answers hold one.
    fn setup(proxy_hooks: &str) -> (Setup, Vec<String>) {
        let dir = tempfile::tempdir().unwrap();
        let audit = dir.path().join("upstream-audit.jsonl");
        let upstream = dir.path().join("upstream.toml");
        std::fs::write(&upstream, format!(
            "[[hooks]]\nid = \"leaky\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = \"builtin:bash-adapter\", settings = {{ dialect = \"claude-code\", command = {} }} }}\n",
            toml_string(&format!("echo '{{\"hookSpecificOutput\":{{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"the key is {SECRET}\"}}}}'"))
        )).unwrap();
        let own = dir.path().join("proxy.toml");
        std::fs::write(&own, proxy_hooks).unwrap();
        let bin = env!("CARGO_BIN_EXE_hookhost").to_string();
        let args = ["proxy", "--name", "up", "--no-project", "--config", own.to_str().unwrap(), "--", &bin, "mcp", "--no-project", "--config", upstream.to_str().unwrap(), "--audit", audit.to_str().unwrap()]
            .map(String::from)
            .to_vec();
        (Setup { dir, audit }, args)
    }

    fn toml_string(s: &str) -> String {
        serde_json::to_string(s).unwrap()
    }

    /// Sessions of the calls that reached the server.
    fn reached(audit: &Path) -> Vec<String> {
        let text = std::fs::read_to_string(audit).unwrap_or_default();
        let mut out: Vec<String> = text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).filter_map(|r| r["session_id"].as_str().map(String::from)).collect();
        out.dedup();
        out
    }

    const POLICY: &str = r#"
[[hooks]]
id = "no_forbidden_sessions"
event = "pre_tool_use"
matcher = { tool_name_glob = "mcp__up__*", args_jsonpath = "$.session_id", match_regex = "^forbidden$" }
executor = { plugin = "builtin:bash-adapter", settings = { dialect = "claude-code", command = "echo '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"that session is not allowed\"}}'" } }

[[hooks]]
id = "mask_results"
event = "post_tool_use"
executor = { plugin = "builtin:redact-secrets" }
"#;

    #[test]
    fn it_passes_the_protocol_through_blocks_before_the_server_and_redacts_after_it() {
        let (setup, args) = setup(POLICY);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut proxy = Server::start(&args, setup.dir.path());
        // The server's own handshake, answered by the server.
        let init = proxy.ask(1, "initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
        assert_eq!(init["result"]["serverInfo"]["name"], "hookhost", "{init}");
        assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
        proxy.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert_eq!(proxy.ask(2, "ping", json!({}))["result"], json!({}));
        let unknown = proxy.ask(3, "resources/list", json!({}));
        assert!(unknown["error"]["message"].as_str().unwrap().contains("hookhost mcp has no method"), "the server's own error, passed through: {unknown}");
        let tools = proxy.ask(4, "tools/list", json!({}));
        assert_eq!(tools["result"]["tools"][0]["name"], "hook", "listed unfiltered: {tools}");
        // A string id, as some clients send.
        proxy.send(&json!({"jsonrpc": "2.0", "id": "five", "method": "ping"}).to_string());
        assert_eq!(proxy.next()["id"], "five");

        // Blocked: a tool error naming the reason, and the server never saw the call.
        let call = |session: &str| json!({"name": "hook", "arguments": {"hook_event_name": "PreToolUse", "session_id": session, "tool_name": "Bash", "tool_input": "{\"command\":\"ls\"}"}});
        let blocked = proxy.ask(6, "tools/call", call("forbidden"));
        assert_eq!(blocked["result"]["isError"], true, "{blocked}");
        let text = blocked["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("mcp__up__hook was blocked by hookhost: that session is not allowed"), "{text}");
        // Let through: the server's answer, its secret masked on the way back.
        let answered = proxy.ask(7, "tools/call", call("allowed"));
        let text = answered["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("the key is [REDACTED:github-token]") && !answered.to_string().contains(SECRET), "{answered}");
        assert_eq!(answered["result"]["isError"], false);
        assert_eq!(reached(&setup.audit), ["allowed"], "only the allowed call reached the server");
        // A call the proxy could not judge on its own is not passed on: in a batch, as a
        // notification, under an id that is not one.
        let forbidden = call("forbidden");
        for sneaked in [
            json!([{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": forbidden}]),
            json!({"jsonrpc": "2.0", "method": "tools/call", "params": forbidden}),
            json!({"jsonrpc": "2.0", "id": {"x": 1}, "method": "tools/call", "params": forbidden}),
        ] {
            proxy.send(&sneaked.to_string());
            let refused = proxy.next();
            assert_eq!((refused["id"].clone(), refused["error"]["code"].clone()), (Value::Null, json!(-32600)), "{sneaked}: {refused}");
        }
        assert_eq!(proxy.ask(9, "ping", json!({}))["result"], json!({}));
        assert_eq!(reached(&setup.audit), ["allowed"], "no unchecked call reached the server");

        // The client goes: the proxy and its server end.
        assert!(proxy.finish().success());
    }

    #[test]
    fn with_filter_tools_a_tool_blocked_whatever_its_arguments_is_not_listed() {
        let (setup, mut args) = setup("[[hooks]]\nid = \"no_up\"\nevent = \"pre_tool_use\"\nmatcher = { tool_name = \"mcp__up__hook\" }\nexecutor = { plugin = \"builtin:bash-adapter\", settings = { dialect = \"claude-code\", command = \"echo '{\\\"decision\\\":\\\"block\\\",\\\"reason\\\":\\\"not this server\\\"}'\" } }\n");
        args.insert(1, "--filter-tools".into());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut proxy = Server::start(&args, setup.dir.path());
        proxy.initialize();
        let tools = proxy.ask(1, "tools/list", json!({}));
        assert_eq!(tools["result"]["tools"], json!([]), "{tools}");
        let call = proxy.ask(2, "tools/call", json!({"name": "hook", "arguments": {"hook_event_name": "Stop", "session_id": "s"}}));
        assert!(call["result"]["content"][0]["text"].as_str().unwrap().contains("not this server"), "{call}");
        assert!(reached(&setup.audit).is_empty());
        assert!(proxy.finish().success());
    }

    /// `--url`: the same, with the server over streamable HTTP — `hookhost serve`'s own MCP
    /// endpoint, behind its bearer token, given with `--header-env` (the token in the proxy's
    /// environment, not on its command line).
    #[test]
    fn over_streamable_http_it_blocks_before_the_server_and_redacts_after_it() {
        let (setup, args) = setup(POLICY);
        // The upstream's policy and audit log, served by a daemon instead of `hookhost mcp`.
        let at = args.iter().position(|a| a == "--").unwrap();
        let upstream_config = args[args.len() - 3].clone();
        let token = setup.dir.path().join("token");
        std::fs::write(&token, "s3cret\n").unwrap();
        let daemon = crate::common::Daemon::start(&["--listen", "127.0.0.1:0", "--token-file", token.to_str().unwrap(), "--no-project", "--config", &upstream_config, "--audit", setup.audit.to_str().unwrap()]);
        let url = format!("http://{}/mcp/claude-code", daemon.addr);
        let mut args: Vec<&str> = args[..at].iter().map(String::as_str).collect();
        args.extend(["--url", &url, "--header-env", "Authorization=HH_UPSTREAM_AUTH", "--header", "X-Team: blue"]);
        let mut proxy = Server::start_with(&args, setup.dir.path(), &[("HH_UPSTREAM_AUTH", "Bearer s3cret")]);
        let init = proxy.ask(1, "initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
        assert_eq!((init["result"]["serverInfo"]["name"].clone(), init["result"]["protocolVersion"].clone()), (json!("hookhost"), json!("2025-06-18")), "{init}");
        proxy.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        assert_eq!(proxy.ask(2, "ping", json!({}))["result"], json!({}));
        assert_eq!(proxy.ask(3, "tools/list", json!({}))["result"]["tools"][0]["name"], "hook");
        let call = |session: &str| json!({"name": "hook", "arguments": {"hook_event_name": "PreToolUse", "session_id": session, "tool_name": "Bash", "tool_input": "{\"command\":\"ls\"}"}});
        let blocked = proxy.ask(4, "tools/call", call("forbidden"));
        assert!(blocked["result"]["content"][0]["text"].as_str().unwrap().contains("was blocked by hookhost: that session is not allowed"), "{blocked}");
        let answered = proxy.ask(5, "tools/call", call("allowed"));
        let text = answered["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("the key is [REDACTED:github-token]") && !answered.to_string().contains(SECRET), "{answered}");
        assert_eq!(reached(&setup.audit), ["allowed"], "only the allowed call reached the server");
        // The daemon's metrics count the POSTs the proxy made (the notification among them).
        let metrics = daemon.request("GET", "/metrics", &[("Authorization", "Bearer s3cret")], "").1;
        assert!(metrics.contains("hookhost_requests_total{route=\"/mcp/claude-code\",status=\"202\"} 1"), "{metrics}");
        assert!(proxy.finish().success());
    }

    /// A server that refuses the proxy or is not there: each request the client sends gets a
    /// JSON-RPC error saying so — no call waits forever — and the proxy goes on.
    #[test]
    fn an_http_server_that_refuses_or_is_gone_answers_each_request_with_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let token = dir.path().join("token");
        std::fs::write(&token, "s3cret\n").unwrap();
        let daemon = crate::common::Daemon::start(&["--listen", "127.0.0.1:0", "--token-file", token.to_str().unwrap(), "--no-project"]);
        let url = format!("http://{}/mcp/claude-code", daemon.addr);
        let mut proxy = Server::start(&["proxy", "--name", "up", "--no-project", "--url", &url, "--header", "Authorization: Bearer wrong"], dir.path());
        let refused = proxy.ask(1, "initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
        assert_eq!(refused["error"]["code"], -32603, "{refused}");
        assert!(refused["error"]["message"].as_str().unwrap().contains(&format!("the MCP server at {url} answered HTTP 401")), "{refused}");
        let gone = format!("http://{}/mcp/claude-code", daemon.addr);
        drop(daemon);
        let mut proxy2 = Server::start(&["proxy", "--name", "up", "--no-project", "--url", &gone], dir.path());
        let unreachable = proxy2.ask(1, "ping", json!({}));
        assert!(unreachable["error"]["message"].as_str().unwrap().contains("cannot be reached"), "{unreachable}");
        assert_eq!(proxy.ask(2, "ping", json!({}))["error"]["code"], -32603, "still answering");
        assert!(proxy.finish().success());
        assert!(proxy2.finish().success());
        // Usage errors name the flag.
        for (args, said) in [
            (vec!["mcp", "proxy", "--url", "http://127.0.0.1:1/mcp"], "--url needs --name"),
            (vec!["mcp", "proxy", "--name", "x", "--url", "ftp://h/mcp"], "http:// or https://"),
            (vec!["mcp", "proxy", "--name", "x", "--url", "http://127.0.0.1:1/mcp", "--header", "no colon"], "write it as `Name: value`"),
            (vec!["mcp", "proxy", "--name", "x", "--url", "http://127.0.0.1:1/mcp", "--header-env", "Authorization=HOOKHOST_TEST_NEVER_SET"], "HOOKHOST_TEST_NEVER_SET is not set in hookhost mcp proxy's environment"),
        ] {
            let out = crate::common::bin(env!("CARGO_BIN_EXE_hookhost")).args(&args).current_dir(dir.path()).stdin(Stdio::null()).output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            assert!(String::from_utf8_lossy(&out.stderr).contains(said), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        }
    }

    /// A streamable-HTTP MCP server that gives a session and records each request's method, path
    /// and session header (one request per connection). Its address and the record.
    fn session_server() -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
        use std::io::Read;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let record = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().map_while(Result::ok) {
                let record = record.clone();
                std::thread::spawn(move || {
                    let mut reader = BufReader::new(stream.try_clone().unwrap());
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    let (mut length, mut session) = (0usize, String::from("-"));
                    loop {
                        let mut header = String::new();
                        reader.read_line(&mut header).unwrap();
                        let header = header.trim_end();
                        if header.is_empty() {
                            break;
                        }
                        let (name, value) = header.split_once(':').unwrap();
                        match name.to_ascii_lowercase().as_str() {
                            "content-length" => length = value.trim().parse().unwrap(),
                            "mcp-session-id" => session = value.trim().to_string(),
                            _ => {}
                        }
                    }
                    let mut body = vec![0; length];
                    reader.read_exact(&mut body).unwrap();
                    let method = line.split(' ').next().unwrap_or_default().to_string();
                    record.lock().unwrap().push(format!("{method} {session}"));
                    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let mut out = stream;
                    let reply = match (method.as_str(), request["method"].as_str()) {
                        ("POST", Some("initialize")) => {
                            let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "up", "version": "1"}}}).to_string();
                            format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s-42\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}", answer.len())
                        }
                        ("POST", Some(_)) if request.get("id").is_some() => {
                            let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {}}).to_string();
                            format!("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{answer}", answer.len())
                        }
                        ("POST", _) => "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_string(),
                        ("DELETE", _) => "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_string(),
                        _ => "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_string(),
                    };
                    let _ = out.write_all(reply.as_bytes());
                });
            }
        });
        (format!("http://{addr}/mcp"), seen)
    }

    /// The session an HTTP server gave is ended (DELETE with its id) when the client goes, and
    /// when the proxy is stopped by a signal.
    #[cfg(unix)]
    #[test]
    fn the_servers_session_is_ended_when_the_client_goes_or_the_proxy_is_stopped() {
        let dir = tempfile::tempdir().unwrap();
        for stop in ["client goes", "SIGTERM"] {
            let (url, seen) = session_server();
            let mut proxy = Server::start(&["proxy", "--name", "up", "--no-project", "--url", &url], dir.path());
            let init = proxy.ask(1, "initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}));
            assert_eq!(init["result"]["serverInfo"]["name"], "up", "{init}");
            assert_eq!(proxy.ask(2, "ping", json!({}))["result"], json!({}));
            let status = if stop == "SIGTERM" {
                // SAFETY: a signal to the proxy this test started.
                unsafe { libc::kill(proxy.child.id() as i32, libc::SIGTERM) };
                // Its stdin stays open: the signal alone ends it.
                (0..600).find_map(|_| proxy.child.try_wait().unwrap().or_else(|| { std::thread::sleep(Duration::from_millis(50)); None })).expect("the proxy ends within 30 s of SIGTERM")
            } else {
                proxy.finish()
            };
            assert!(status.success(), "{stop}: {status:?}");
            let seen = seen.lock().unwrap().clone();
            assert!(seen.contains(&"DELETE s-42".to_string()), "{stop}: the session was not ended: {seen:?}");
            assert!(seen.contains(&"POST s-42".to_string()), "{stop}: later requests carry the session: {seen:?}");
        }
    }

    #[test]
    fn a_server_that_cannot_start_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let out = crate::common::bin(env!("CARGO_BIN_EXE_hookhost")).args(["mcp", "proxy", "--", "/nonexistent/mcp-server", "--flag"]).current_dir(dir.path()).stdin(Stdio::null()).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("cannot start the MCP server `/nonexistent/mcp-server --flag`"), "{err}");
    }
}
