//! Everruns' user_hooks contract (its capability's own test cases, reproduced against hookhost), chain tables for
//! the verdict rules of docs/CONFIG.md, "The chain", and the stop-loop cap.

use hookhost::{ConfigFile, VerdictKind};
use hookhost_tests::{fixtures, host};
use serde_json::json;
use std::path::Path;

fn everruns(config: serde_json::Value) -> Result<ConfigFile, hookhost::ConfigError> {
    ConfigFile::parse(&config.to_string(), Path::new("agent.json"), Path::new("."))
}

// ---- Everruns' user_hooks capability's tests ----

#[test]
fn everruns_contract_empty_config_validates() {
    assert!(everruns(json!({})).unwrap().hooks.is_empty());
    assert!(everruns(json!({"capabilities": [{"ref": "user_hooks"}]})).unwrap().hooks.is_empty());
}

#[test]
fn everruns_contract_full_config_validates_and_yields_specs() {
    let config = everruns(json!({"capabilities": [{"ref": "user_hooks", "config": {
        "hooks": [{"id": "fmt", "event": "post_tool_use", "matcher": {"tool_name": "edit_file"},
                   "executor": {"type": "bash", "command": "cargo fmt"}, "timeout_ms": 5000, "on_error": "warn", "description": "format after edits"}],
        "disabled_contributions": ["other_pack:noisy_hook"]}}]}))
    .unwrap();
    assert_eq!(config.hooks.len(), 1);
    assert_eq!(config.hooks[0].id, "user:fmt");
    assert_eq!(config.hooks[0].event, hookhost::EventName::PostToolUse);
    assert_eq!(config.hooks[0].description.as_deref(), Some("format after edits"));
    assert!(config.muted.is_empty(), "other_pack contributes nothing here");
}

#[test]
fn everruns_contract_invalid_hook_in_config_is_rejected() {
    let err = everruns(json!({"hooks": [{"event": "pre_tool_use", "executor": {"type": "bash", "command": "true"}, "timeout_ms": 50}]})).unwrap_err();
    assert_eq!(err.to_string(), "agent.json: user_hooks.hooks[0].timeout_ms: 50 is out of range; use 100..=30000 milliseconds (default 5000)");
}

#[test]
fn everruns_contract_matcher_on_non_tool_event_is_rejected() {
    let err = everruns(json!({"hooks": [{"event": "session_start", "matcher": {"tool_name": "bash"}, "executor": {"type": "bash", "command": "true"}}]})).unwrap_err();
    assert!(err.to_string().contains("user_hooks.hooks[0].matcher: tool matchers apply to tool events only"), "{err}");
}

#[test]
fn everruns_contract_default_ids_and_contributed_ids() {
    let config = everruns(json!({"capabilities": [
        {"ref": "pack", "config": {"hooks": [{"event": "pre_tool_use", "executor": {"type": "bash", "command": "true"}}]}},
        {"ref": "user_hooks", "config": {"hooks": [{"event": "turn_end", "executor": {"type": "bash", "command": "true"}},
                                                   {"event": "turn_end", "executor": {"type": "bash", "command": "true"}}]}}]}))
    .unwrap();
    let ids: Vec<&str> = config.hooks.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["pack:pre_tool_use_0", "user:turn_end_0", "user:turn_end_1"]);
}

#[test]
fn contributed_hooks_are_muted_by_hook_id_and_user_hooks_are_not() {
    let toml = r#"
disabled_contributions = ["pack:b", "user:c"]
[[capabilities]]
id = "pack"
[[capabilities.hooks]]
id = "a"
event = "stop"
executor = { plugin = "builtin:guard-destructive" }
[[capabilities.hooks]]
id = "b"
event = "stop"
executor = { plugin = "builtin:guard-destructive" }
[[hooks]]
id = "c"
event = "stop"
executor = { plugin = "builtin:guard-destructive" }
"#;
    let config = ConfigFile::parse(toml, Path::new("h.toml"), Path::new(".")).unwrap();
    let ids: Vec<&str> = config.hooks.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["pack:a", "user:c"], "capability order first, then the user's hooks");
    assert_eq!(config.muted, ["pack:b"]);
}

// ---- chain tables ----

fn scripted(id: usize, event: &str, verdict: &str) -> String {
    format!(
        "[[hooks]]\nid = \"h{id}\"\nevent = \"{event}\"\nexecutor = {{ plugin = \"{}\", settings = {{ verdict = \"{verdict}\", reason = \"r{id}\" }} }}\n",
        fixtures::SCRIPTED
    )
}

fn ev(name: &str) -> hookhost::HookEvent {
    let data = match name {
        "pre_tool_use" | "permission_request" => json!({"tool_name": "bash", "tool_call_id": "c", "arguments": {"command": "ls"}}),
        "post_tool_use" | "tool_result_transform" => json!({"tool_name": "bash", "tool_call_id": "c", "arguments": {}, "result": "x"}),
        "user_prompt_submit" => json!({"message": "hi"}),
        _ => json!({}),
    };
    hookhost_tests::event(json!({"event": name, "session_id": hookhost_tests::fresh_session(&format!("chain-{name}")), "data": data}))
}

/// (event, verdicts in chain order) → (outcome decision, reason, how many hooks ran)
#[tokio::test]
async fn chain_table() {
    let blocking = ["user_prompt_submit", "pre_tool_use", "permission_request", "stop", "subagent_stop", "before_model_call", "pre_compact"];
    let advisory = ["session_start", "session_end", "tool_result_transform", "post_tool_use", "turn_start", "turn_end", "after_model_call", "post_compact", "notification"];
    let rows: &[(&[&str], VerdictKind, Option<&str>, usize)] = &[
        (&["pass", "pass"], VerdictKind::Pass, None, 2),
        (&["allow", "pass"], VerdictKind::Allow, Some("r0"), 2),
        (&["allow", "ask"], VerdictKind::Ask, Some("r1"), 2),
        (&["ask", "allow"], VerdictKind::Ask, Some("r0"), 2),
        (&["allow", "block", "halt"], VerdictKind::Block, Some("r1"), 2),
        (&["block", "allow"], VerdictKind::Block, Some("r0"), 1),
        (&["halt", "block"], VerdictKind::Halt, Some("r0"), 1),
        (&["ask", "halt"], VerdictKind::Halt, Some("r1"), 2),
    ];
    for event in blocking {
        for (verdicts, want, reason, ran) in rows {
            let config: String = verdicts.iter().enumerate().map(|(i, v)| scripted(i, event, v)).collect();
            let out = host(&config).await.dispatch(&ev(event)).await;
            assert_eq!((out.decision, out.reason.as_deref(), out.hooks.len()), (*want, *reason, *ran), "{event} {verdicts:?}");
        }
    }
    for event in advisory {
        for (verdicts, _, _, _) in rows {
            let config: String = verdicts.iter().enumerate().map(|(i, v)| scripted(i, event, v)).collect();
            let out = host(&config).await.dispatch(&ev(event)).await;
            assert_eq!((out.decision, out.hooks.len()), (VerdictKind::Pass, verdicts.len()), "{event} {verdicts:?}: advisory, every hook runs, nothing counts");
            assert!(out.hooks.iter().all(|h| h.ignored == (h.decision != VerdictKind::Pass)), "{event}: ignored verdicts are marked");
        }
    }
}

#[tokio::test]
async fn stop_blocks_are_capped_and_the_loop_count_reaches_the_hook() {
    let config = format!("stop_loop_cap = 2\n{}", scripted(0, "stop", "block"));
    let h = host(&config).await;
    let session = hookhost_tests::fresh_session("s-loop");
    let stop = || hookhost_tests::event(json!({"event": "stop", "session_id": session, "data": {}}));
    let mut got = Vec::new();
    for _ in 0..4 {
        got.push(h.dispatch(&stop()).await);
    }
    let kinds: Vec<VerdictKind> = got.iter().map(|o| o.decision).collect();
    assert_eq!(kinds, [VerdictKind::Block, VerdictKind::Block, VerdictKind::Pass, VerdictKind::Block], "the third consecutive block is overridden, then the count restarts");
    assert_eq!(got[2].reason.as_deref(), Some("stop hooks blocked 2 times in a row; the stop_loop_cap of 2 lets the agent stop"));
    // A new prompt starts a new turn: the count resets.
    h.dispatch(&hookhost_tests::event(json!({"event": "user_prompt_submit", "session_id": session, "data": {"message": "next"}}))).await;
    assert_eq!(h.dispatch(&stop()).await.decision, VerdictKind::Block);
}

#[tokio::test]
async fn stop_hooks_see_the_loop_count() {
    let script = r#"echo "{\"decision\":\"block\",\"reason\":\"loop $(echo "$EVERRUNS_HOOK_PAYLOAD_JSON" | jq -r '.data.loop_count') active $(echo "$EVERRUNS_HOOK_PAYLOAD_JSON" | jq -r '.data.stop_hook_active')\"}""#;
    let h = host(&hookhost_tests::shell_hook("keep_going", "stop", "", &[("command", script)])).await;
    let session = hookhost_tests::fresh_session("s-count");
    let stop = || hookhost_tests::event(json!({"event": "stop", "session_id": session, "data": {}}));
    assert_eq!(h.dispatch(&stop()).await.reason.as_deref(), Some("loop 0 active false"));
    assert_eq!(h.dispatch(&stop()).await.reason.as_deref(), Some("loop 1 active true"));
}
