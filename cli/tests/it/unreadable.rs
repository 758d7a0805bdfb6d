//! Whatever bytes arrive, `run --output RUNTIME` and `serve` answer in the runtime's protocol, and
//! an event that cannot be read whole is never a pass before a tool (issue #48): text is read
//! leniently (a lone surrogate escape or a byte that is not UTF-8 becomes U+FFFD), and an event
//! nested deeper than hookhost reads is judged unreadable — answered with the event's own block.

use crate::common::{hookhost_with, Daemon};
use serde_json::Value;
use std::process::Output;

fn run(args: &[&str], stdin: &[u8]) -> Output {
    hookhost_with(|c| { c.arg("run").args(args).env_remove("HOOKHOST_MANAGED_CONFIG"); }, stdin)
}

fn answer(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn nested(depth: usize) -> String {
    format!("{}\"x\"{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn a_lone_surrogate_anywhere_is_read_and_the_call_judged() {
    // Claude Code and Gemini CLI send JSON.stringify's text, which keeps half a surrogate pair.
    let claude = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~ # \ud800","description":"\udfff"}}"#;
    let v = answer(&run(&["--output", "claude-code"], claude));
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    let gemini = br#"{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm -rf ~ \ud800"}}"#;
    assert_eq!(answer(&run(&["--output", "gemini-cli"], gemini))["decision"], "deny");
    // GitHub Copilot CLI's toolArgs is JSON text inside the JSON: the inner surrogate must not
    // turn the arguments into one opaque string.
    let copilot = br#"{"sessionId":"s","timestamp":1,"cwd":"/","toolName":"bash","toolArgs":"{\"command\":\"rm -rf ~ \\ud800\"}"}"#;
    assert_eq!(answer(&run(&["--output", "copilot", "--event-name", "preToolUse"], copilot))["permissionDecision"], "deny");
    // Bytes that are not UTF-8.
    let mut bytes = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~ "#.to_vec();
    bytes.extend_from_slice(b"\xff\xfe\"}}");
    assert_eq!(answer(&run(&["--output", "claude-code"], &bytes))["hookSpecificOutput"]["permissionDecision"], "deny");
    // And a harmless call with a lone surrogate passes, as it would without one.
    let ls = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls \ud800"}}"#;
    let out = run(&["--output", "claude-code"], ls);
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(0), true), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn arguments_nested_too_deep_are_a_block_in_the_events_own_form() {
    let reason = "hookhost could not decide, so it blocks (its own failures block before an action; `--fail-open` lets them through): stdin: the event nests values deeper than 100 levels";
    for depth in [99, 200, 100_000] {
        let event = format!(r#"{{"hook_event_name":"PreToolUse","tool_name":"mcp__x__y","tool_input":{{"command":"ls","deep":{}}}}}"#, nested(depth));
        let out = run(&["--output", "claude-code"], event.as_bytes());
        if depth == 99 {
            // 99 levels inside tool_input's object: 101 from the top, just past the limit.
            let v = answer(&out);
            assert!(v["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().starts_with(reason), "{v}");
            continue;
        }
        let v = answer(&out);
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{depth}: {v}");
        assert!(v["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().starts_with(reason), "{depth}: {v}");
    }
    // Within the limit: read and decided as usual.
    let event = format!(r#"{{"hook_event_name":"PreToolUse","tool_name":"mcp__x__y","tool_input":{{"deep":{}}}}}"#, nested(90));
    let out = run(&["--output", "claude-code"], event.as_bytes());
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(0), true), "{}", String::from_utf8_lossy(&out.stderr));
    // A tool's result nested too deep gates nothing: the runtime's non-blocking error.
    let post = format!(r#"{{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{{}},"tool_response":{}}}"#, nested(300));
    assert_eq!(run(&["--output", "claude-code"], post.as_bytes()).status.code(), Some(1));
    // --fail-open lets it through, as asked.
    let event = format!(r#"{{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"ls","deep":{}}}}}"#, nested(300));
    assert_eq!(run(&["--output", "claude-code", "--fail-open"], event.as_bytes()).status.code(), Some(1));
}

#[test]
fn serve_answers_unreadable_events_with_a_block_not_an_error() {
    let d = Daemon::start(&["--listen", "127.0.0.1:0", "--no-project"]);
    let json = [("Content-Type", "application/json")];
    let event = format!(r#"{{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"ls","deep":{}}}}}"#, nested(500));
    let (status, body) = d.request("POST", "/v1/hooks/claude-code", &json, &event);
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    let (status, body) = d.request("POST", "/v1/events", &json, &event);
    assert_eq!(status, 200, "{body}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["decision"], "block");
    // A lone surrogate: read, and the destructive call denied.
    let (status, body) = d.request("POST", "/v1/hooks/claude-code", &json, r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~ \ud800"}}"#);
    assert_eq!((status, serde_json::from_str::<Value>(&body).unwrap()["hookSpecificOutput"]["permissionDecision"].as_str()), (200, Some("deny")), "{body}");
    // Not JSON at all: a 400 naming why.
    let (status, body) = d.request("POST", "/v1/hooks/claude-code", &json, "{");
    assert_eq!(status, 400, "{body}");
}

/// Issue #48: bounded work never becomes a pass. A brace expansion past the guard's cap is not
/// read as the words it did make (`rm -rf {…256 words….txt,~}` is a block, not a pass, even
/// under `on_error = "warn"`), a 4 KB brace-heavy line decides within its fuel, and an ordinary
/// 200 KB here-document still decides (fuel scales with the event).
#[test]
fn the_guards_caps_and_fuel_never_make_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("warn.toml");
    std::fs::write(&config, "[[hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\non_error = \"warn\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n").unwrap();
    let config = config.display().to_string();
    let decide = |command: &str| {
        let event = serde_json::json!({"event": "pre_tool_use", "data": {"tool_name": "bash", "tool_call_id": "c", "arguments": {"command": command}}}).to_string();
        let out = run(&["--no-project", "--config", &config], event.as_bytes());
        let v = answer(&out);
        assert_eq!(v["hooks"][0]["error"], Value::Null, "the guard finished: {v}");
        v
    };
    let eight = "{a,b}".repeat(8);
    let v = decide(&format!("rm -rf {{{eight}.txt,~}}"));
    assert_eq!(v["decision"], "block", "{v}");
    assert!(v["reason"].as_str().unwrap().contains("a brace expansion makes more than 256 words") && v["reason"].as_str().unwrap().contains("(rule guard.unparseable)"), "{v}");
    // 4 KB of braces around a deletion.
    let heavy = format!("rm -rf {}", "{x,y}{p,q}/".repeat(4096 / 11));
    assert!(heavy.len() >= 4000);
    let v = decide(&heavy);
    assert_eq!(v["decision"], "block", "{v}");
    // An ordinary 200 KB here-document: decided, and harmless.
    let body: String = (0..4000).map(|i| format!("line {i}: some ordinary text of a file\n")).collect();
    assert!(body.len() > 150_000);
    let v = decide(&format!("cat > notes.md <<'EOF'\n{body}EOF"));
    assert_eq!(v["decision"], "pass", "{}", v["reason"]);
    let v = decide(&format!("python3 - <<'EOF'\n{}import shutil; shutil.rmtree('/')\nEOF", "x = 1\n".repeat(30_000)));
    assert_eq!(v["decision"], "block", "{}", v["reason"]);
}
