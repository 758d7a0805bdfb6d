//! The answer writers, verdict by verdict and event by event.

use super::*;
use hookhost_types::Runtime;
use serde_json::json;
use hookhost_types::HookEvent;

fn outcome(decision: VerdictKind, reason: Option<&str>, effects: Vec<Effect>, patch: Option<Value>) -> Outcome {
    Outcome {
        decision,
        reason: reason.map(str::to_string),
        user_message: None,
        effects,
        patch: patch.and_then(|p| p.as_object().cloned()),
        hooks: Vec::new(),
    }
}

fn ev(name: &str) -> HookEvent {
    HookEvent::from_value(json!({"hook_event_name": name, "tool_name": "Bash", "tool_input": {"command": "ls"}})).unwrap()
}

fn out(p: Protocol, event: &str, o: Outcome) -> (Value, Vec<String>) {
    let reply = render(p, &ev(event), &o);
    assert_eq!(reply.code, 0);
    let v = if reply.stdout.is_empty() { Value::Null } else { serde_json::from_str(&reply.stdout).unwrap() };
    (v, reply.notes)
}

#[test]
fn a_pass_says_nothing_the_runtime_would_flag() {
    for p in [Protocol::Runtime(Runtime::ClaudeCode), Protocol::Runtime(Runtime::Codex), Protocol::Runtime(Runtime::DockerAgent), Protocol::Runtime(Runtime::Starchild)] {
        assert_eq!(out(p, "PreToolUse", outcome(VerdictKind::Pass, None, vec![], None)), (Value::Null, vec![]), "{p:?}");
    }
    assert_eq!(out(Protocol::Runtime(Runtime::GeminiCli), "PreToolUse", outcome(VerdictKind::Pass, None, vec![], None)).0, json!({}), "Gemini CLI reads JSON on exit 0");
}

#[test]
fn claude_code_verdicts_per_event() {
    let c = |event: &str, kind, reason| out(Protocol::Runtime(Runtime::ClaudeCode), event, outcome(kind, reason, vec![], None)).0;
    assert_eq!(c("PreToolUse", VerdictKind::Block, Some("no")), json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}));
    assert_eq!(c("PreToolUse", VerdictKind::Ask, Some("sure?")), json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "sure?"}}));
    assert_eq!(c("PreToolUse", VerdictKind::Allow, None), json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}));
    // A halt before a tool denies the tool too: Claude Code ends the turn only after running it.
    assert_eq!(c("PreToolUse", VerdictKind::Halt, Some("enough")), json!({"continue": false, "stopReason": "enough", "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "enough"}}));
    assert_eq!(c("PermissionRequest", VerdictKind::Halt, Some("enough")), json!({"continue": false, "stopReason": "enough", "hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "enough", "interrupt": true}}}));
    assert_eq!(c("Stop", VerdictKind::Halt, Some("enough")), json!({"continue": false, "stopReason": "enough"}));
    assert_eq!(c("PermissionRequest", VerdictKind::Block, Some("no")), json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no"}}}));
    assert_eq!(c("PermissionRequest", VerdictKind::Allow, None), json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}));
    assert_eq!(c("UserPromptSubmit", VerdictKind::Block, Some("secret")), json!({"decision": "block", "reason": "secret", "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "suppressOriginalPrompt": true}}));
    // A redacted output replaces any tool's (and an MCP tool's the older way too).
    let redacted = |tool: &str| {
        let event = HookEvent::from_value(json!({"hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": {}, "tool_response": "key sk-1"})).unwrap();
        let reply = render(Protocol::Runtime(Runtime::ClaudeCode), &event, &outcome(VerdictKind::Pass, None, vec![], Some(json!({"result": "key [REDACTED]"}))));
        serde_json::from_str::<Value>(&reply.stdout).unwrap()["hookSpecificOutput"].clone()
    };
    assert_eq!(redacted("Bash"), json!({"hookEventName": "PostToolUse", "updatedToolOutput": "key [REDACTED]"}));
    assert_eq!(redacted("mcp__db__q"), json!({"hookEventName": "PostToolUse", "updatedToolOutput": "key [REDACTED]", "updatedMCPToolOutput": "key [REDACTED]"}));
    assert_eq!(c("Stop", VerdictKind::Block, Some("tests fail")), json!({"decision": "block", "reason": "tests fail"}));
    // Effects: rewritten input, context, a message for the human.
    let o = outcome(VerdictKind::Allow, None, vec![Effect::AddContext { text: "ctx".into() }, Effect::NotifyUser { text: "hi".into() }], Some(json!({"arguments": {"command": "ls -a"}})));
    assert_eq!(
        out(Protocol::Runtime(Runtime::ClaudeCode), "PreToolUse", o).0,
        json!({"systemMessage": "hi", "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls -a"}, "additionalContext": "ctx"}})
    );
    let (v, notes) = out(Protocol::Runtime(Runtime::ClaudeCode), "SessionStart", outcome(VerdictKind::Pass, None, vec![Effect::AddContext { text: "branch main".into() }], None));
    assert_eq!((v, notes), (json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "branch main"}}), vec![]));
    // What Claude Code has no field for is said, not dropped.
    let (v, notes) = out(Protocol::Runtime(Runtime::ClaudeCode), "Notification", outcome(VerdictKind::Pass, None, vec![Effect::AddContext { text: "x".into() }], None));
    assert_eq!(v, Value::Null);
    assert_eq!(notes, ["hookhost: claude-code output: the added context is dropped: Claude Code takes context on PreToolUse, PostToolUse, UserPromptSubmit and SessionStart, not on Notification"]);
}

#[test]
fn a_rewrite_the_runtime_cannot_apply_on_a_guarded_event_blocks() {
    let o = outcome(VerdictKind::Pass, None, vec![], Some(json!({"message": "key [REDACTED]"})));
    for p in [Protocol::Runtime(Runtime::ClaudeCode), Protocol::Runtime(Runtime::Codex), Protocol::Runtime(Runtime::GeminiCli), Protocol::Runtime(Runtime::DockerAgent), Protocol::Runtime(Runtime::Starchild)] {
        let reply = render(p, &ev("UserPromptSubmit"), &o);
        let v: Value = serde_json::from_str(&reply.stdout).unwrap();
        let text = v.to_string();
        assert!(text.contains("block") || text.contains("deny"), "{p:?}: {text}");
        assert!(text.contains("hookhost's hooks allow this only with its prompt rewritten"), "{p:?}: {text}");
        assert!(reply.notes[0].contains("cannot take a rewritten prompt here: blocked instead"), "{p:?}: {:?}", reply.notes);
    }
    // A permission request Claude Code is not told to allow cannot carry new input either.
    let o = outcome(VerdictKind::Pass, None, vec![], Some(json!({"arguments": {"command": "ls"}})));
    let (v, _) = out(Protocol::Runtime(Runtime::ClaudeCode), "PermissionRequest", o.clone());
    assert_eq!(v["hookSpecificOutput"]["decision"]["behavior"], "deny");
    let (v, _) = out(Protocol::Runtime(Runtime::DockerAgent), "PermissionRequest", o);
    assert_eq!(v, json!({"hook_specific_output": {"updated_input": {"command": "ls"}}}));
}

#[test]
fn gemini_docker_and_starchild_forms() {
    let block = outcome(VerdictKind::Block, Some("no"), vec![], None);
    assert_eq!(out(Protocol::Runtime(Runtime::GeminiCli), "PreToolUse", block.clone()).0, json!({"decision": "deny", "reason": "no"}));
    assert_eq!(
        out(Protocol::Runtime(Runtime::DockerAgent), "PreToolUse", block.clone()).0,
        json!({"decision": "block", "reason": "no", "hook_specific_output": {"permission_decision": "deny", "permission_decision_reason": "no"}})
    );
    assert_eq!(out(Protocol::Runtime(Runtime::DockerAgent), "UserPromptSubmit", block.clone()).0, json!({"decision": "block", "reason": "no"}));
    assert_eq!(out(Protocol::Runtime(Runtime::Starchild), "PreToolUse", block).0, json!({"decision": "block", "reason": "no"}));
    let rewrite = outcome(VerdictKind::Pass, None, vec![], Some(json!({"arguments": {"command": "ls -l"}})));
    assert_eq!(out(Protocol::Runtime(Runtime::GeminiCli), "PreToolUse", rewrite.clone()).0, json!({"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "ls -l"}}}));
    assert_eq!(out(Protocol::Runtime(Runtime::DockerAgent), "PreToolUse", rewrite.clone()).0, json!({"hook_specific_output": {"updated_input": {"command": "ls -l"}}}));
    assert_eq!(out(Protocol::Runtime(Runtime::Starchild), "PreToolUse", rewrite).0, json!({"tool_input": {"command": "ls -l"}}));
    let (v, notes) = out(Protocol::Runtime(Runtime::GeminiCli), "PreToolUse", outcome(VerdictKind::Ask, Some("sure?"), vec![], None));
    assert_eq!((v, notes.len()), (json!({"decision": "deny", "reason": "needs a human's confirmation: sure?"}), 1));
    let (v, notes) = out(Protocol::Runtime(Runtime::Starchild), "Stop", outcome(VerdictKind::Halt, Some("enough"), vec![], None));
    assert_eq!(v, json!({"decision": "block", "reason": "enough"}));
    assert_eq!(notes, ["hookhost: starchild output: Starchild has no \"halt\"; it is written as a block"]);
    // Gemini CLI 0.61 does not apply `tool_output`: the redacted text reaches the model as a
    // deny's reason.
    let after = HookEvent::from_value(json!({"hook_event_name": "AfterTool", "tool_name": "run_shell_command", "tool_input": {}, "tool_response": {"llmContent": "key sk-1"}})).unwrap();
    let reply = render(Protocol::Runtime(Runtime::GeminiCli), &after, &outcome(VerdictKind::Pass, None, vec![], Some(json!({"result": "key [REDACTED]"}))));
    assert_eq!(serde_json::from_str::<Value>(&reply.stdout).unwrap(), json!({"decision": "deny", "reason": "key [REDACTED]", "hookSpecificOutput": {"hookEventName": "AfterTool", "tool_output": "key [REDACTED]"}}));
    let context = outcome(VerdictKind::Pass, None, vec![Effect::AddContext { text: "c".into() }], None);
    assert_eq!(out(Protocol::Runtime(Runtime::DockerAgent), "SessionStart", context.clone()).0, json!({"hook_specific_output": {"additional_context": "c"}}));
    assert_eq!(out(Protocol::Runtime(Runtime::GeminiCli), "UserPromptSubmit", context).0, json!({"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": "c"}}));
}

#[test]
fn hookhosts_own_failures_block_before_an_action_unless_fail_open() {
    let closed_reason = "hookhost could not decide, so it blocks (its own failures block before an action; `--fail-open` lets them through): hooks.toml: bad";
    for p in [Protocol::Runtime(Runtime::ClaudeCode), Protocol::Runtime(Runtime::Codex), Protocol::Runtime(Runtime::GeminiCli), Protocol::Runtime(Runtime::DockerAgent), Protocol::Runtime(Runtime::Starchild)] {
        // The default: a tool call, a permission and a prompt are blocked, naming the failure.
        for event in ["PreToolUse", "PermissionRequest", "UserPromptSubmit"] {
            let closed = failure(p, Some(&ev(event)), "hooks.toml: bad", OnFailure::default());
            assert_eq!(closed.code, 0, "{p:?} {event}: the block is in the JSON");
            assert!(closed.stdout.contains(closed_reason), "{p:?} {event}: {}", closed.stdout);
            assert_eq!(closed.notes[0], "hookhost: error: hooks.toml: bad");
        }
        // An event that gates nothing (a stop would keep the agent going): the non-blocking error.
        for event in ["Stop", "PostToolUse", "SessionStart"] {
            let reply = failure(p, Some(&ev(event)), "hooks.toml: bad", OnFailure::Closed);
            assert_eq!((reply.stdout.as_str(), reply.code), ("", 1), "{p:?} {event}: the runtime's non-blocking error");
        }
        // --fail-open: the non-blocking error, even before a tool.
        let open = failure(p, Some(&ev("PreToolUse")), "hooks.toml: bad", OnFailure::Open);
        assert_eq!((open.stdout.as_str(), open.code), ("", 1), "{p:?}: --fail-open");
        assert_eq!(open.notes, ["hookhost: error: hooks.toml: bad"]);
        // --fail-closed: a block on every event.
        let always = failure(p, Some(&ev("PreToolUse")), "hooks.toml: bad", OnFailure::Always);
        assert!(always.stdout.contains(closed_reason), "{p:?}: {}", always.stdout);
        // Not even the event could be read: every runtime's universal block, unless --fail-open.
        let unreadable = failure(p, None, "stdin: not JSON", OnFailure::Closed);
        assert_eq!(
            (unreadable.code, unreadable.notes[0].as_str()),
            (2, "hookhost could not decide, so it blocks (its own failures block before an action; `--fail-open` lets them through): stdin: not JSON")
        );
        assert_eq!(failure(p, None, "stdin: not JSON", OnFailure::Open).code, 1);
    }
    assert_eq!(failure(Protocol::Json, None, "x", OnFailure::Open).code, 2, "hookhost's own exit code for bad input");
    assert_eq!(OnFailure::from_flags(false, false), OnFailure::Closed);
    assert_eq!(OnFailure::from_flags(true, false), OnFailure::Open);
    assert_eq!(OnFailure::from_flags(false, true), OnFailure::Always);
}

/// Codex's own checks of a hook's answer, as its hook engine applies them
/// (`codex-rs/hooks/src/engine/output_parser.rs`, and the generated schemas' closed field
/// sets): `Some(why)` is an answer Codex marks as a failed hook — and then runs the tool.
fn codex_refuses(event: &str, answer: &Value) -> Option<String> {
    let Some(obj) = answer.as_object() else { return (!answer.is_null()).then(|| "not an object".to_string()) };
    let blocks_with_decision = matches!(event, "PreToolUse" | "PostToolUse" | "UserPromptSubmit" | "Stop");
    for key in obj.keys() {
        let known = matches!(key.as_str(), "continue" | "stopReason" | "suppressOutput" | "systemMessage" | "hookSpecificOutput") || (blocks_with_decision && matches!(key.as_str(), "decision" | "reason"));
        if !known {
            return Some(format!("unknown field {key}"));
        }
    }
    let specific = obj.get("hookSpecificOutput").and_then(Value::as_object);
    let allowed: &[&str] = match event {
        "PreToolUse" => &["hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext"],
        "PermissionRequest" => &["hookEventName", "decision"],
        "PostToolUse" | "UserPromptSubmit" | "SessionStart" => &["hookEventName", "additionalContext"],
        _ => &["hookEventName"],
    };
    if let Some(key) = specific.and_then(|s| s.keys().find(|k| !allowed.contains(&k.as_str()))) {
        return Some(format!("unknown hookSpecificOutput field {key}"));
    }
    let stops = obj.get("continue") == Some(&json!(false));
    let reason_ok = |v: Option<&Value>| v.and_then(Value::as_str).is_some_and(|r| !r.trim().is_empty());
    match event {
        "PreToolUse" | "PermissionRequest" if stops || obj.contains_key("stopReason") || obj.contains_key("suppressOutput") => return Some("unsupported universal field".into()),
        "PreToolUse" => {
            let s = specific.cloned().unwrap_or_default();
            match (s.get("permissionDecision").and_then(Value::as_str), s.contains_key("updatedInput")) {
                (Some("allow"), false) => return Some("bare allow".into()),
                (Some("ask"), _) => return Some("ask".into()),
                (Some("deny"), false) if !reason_ok(s.get("permissionDecisionReason")) => return Some("deny without a reason".into()),
                (Some("deny"), true) | (None, true) => return Some("updatedInput without allow".into()),
                (None, false) if s.contains_key("permissionDecisionReason") => return Some("reason without decision".into()),
                _ => {}
            }
        }
        "PermissionRequest" => {
            if let Some(d) = specific.and_then(|s| s.get("decision")).and_then(Value::as_object) {
                if d.keys().any(|k| !matches!(k.as_str(), "behavior" | "message")) {
                    return Some("unsupported decision field".into());
                }
            }
        }
        "PostToolUse" if obj.contains_key("suppressOutput") => return Some("suppressOutput".into()),
        _ => {}
    }
    if blocks_with_decision && obj.get("decision") == Some(&json!("block")) && !reason_ok(obj.get("reason")) {
        return Some("block without a reason".into());
    }
    None
}

#[test]
fn every_codex_answer_is_one_codex_accepts_and_none_fails_open() {
    let args = json!({"arguments": {"command": "curl -H 'Authorization: [REDACTED]' x"}});
    let effects = || vec![Effect::AddContext { text: "ctx".into() }, Effect::NotifyUser { text: "note".into() }];
    for event in ["PreToolUse", "PermissionRequest", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "Notification"] {
        for kind in [VerdictKind::Pass, VerdictKind::Allow, VerdictKind::Ask, VerdictKind::Block, VerdictKind::Halt] {
            for (patch, with_effects) in [(None, false), (None, true), (Some(args.clone()), false), (Some(json!({"result": "token=[REDACTED]"})), true), (Some(json!({"message": "[REDACTED]"})), false)] {
                let o = outcome(kind, Some("because"), if with_effects { effects() } else { vec![] }, patch.clone());
                let (v, _) = out(Protocol::Runtime(Runtime::Codex), event, o);
                assert_eq!(codex_refuses(event, &v), None, "{event} {kind:?} {patch:?}: {v}");
            }
        }
    }
    let c = |event: &str, kind, reason: Option<&str>, patch| out(Protocol::Runtime(Runtime::Codex), event, outcome(kind, reason, vec![], patch));
    let deny = |reason: &str| json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}});
    // What would have been refused (and run the command) is a deny that holds.
    assert_eq!(c("PreToolUse", VerdictKind::Block, Some("no"), None).0, deny("no"));
    assert_eq!(c("PreToolUse", VerdictKind::Block, Some("  "), None).0, deny("blocked by a hook"), "Codex refuses an empty reason");
    let (v, notes) = c("PreToolUse", VerdictKind::Ask, Some("sure?"), None);
    assert_eq!(v, deny("needs a human's confirmation, which Codex cannot ask for here: sure?"));
    assert_eq!(notes, ["hookhost: codex output: Codex cannot ask from a PreToolUse hook (it refuses permissionDecision:ask): the tool call is denied instead"]);
    assert_eq!(c("PreToolUse", VerdictKind::Halt, Some("enough"), None).0, deny("enough"));
    // A rewrite is applied the one way Codex takes it; a bare allow says nothing.
    let (v, _) = c("PreToolUse", VerdictKind::Pass, None, Some(args.clone()));
    assert_eq!(v, json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "curl -H 'Authorization: [REDACTED]' x"}}}));
    assert_eq!(c("PreToolUse", VerdictKind::Allow, Some("fine"), None).0, Value::Null);
    // A redacted tool output reaches the model as the block's reason, instead of the original.
    let (v, _) = c("PostToolUse", VerdictKind::Pass, None, Some(json!({"result": "token=[REDACTED]"})));
    assert_eq!(v, json!({"decision": "block", "reason": "token=[REDACTED]"}));
    // A permission request: no new input, no interrupt.
    assert_eq!(c("PermissionRequest", VerdictKind::Halt, Some("stop"), None).0, json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "stop"}}}));
    let (v, _) = c("PermissionRequest", VerdictKind::Allow, None, Some(args));
    assert_eq!(v["hookSpecificOutput"]["decision"]["behavior"], "deny", "input Codex cannot take here: blocked, not passed: {v}");
    assert_eq!(c("UserPromptSubmit", VerdictKind::Halt, Some("bye"), None).0, json!({"continue": false, "stopReason": "bye"}));
}

/// A Copilot event as Copilot sends it: camelCase, no event name (read from the fields, or
/// named by the hook's configuration).
fn copilot_ev(name: &str) -> HookEvent {
    let mut v = json!({"sessionId": "s", "timestamp": 1, "cwd": "/repo"});
    let extra = match name {
        "preToolUse" | "permissionRequest" => json!({"toolName": "bash", "toolArgs": {"command": "ls"}}),
        "postToolUse" => json!({"toolName": "bash", "toolArgs": {"command": "env"}, "toolResult": {"resultType": "success", "textResultForLlm": "TOKEN=x"}}),
        "postToolUseFailure" => json!({"toolName": "bash", "toolArgs": {}, "error": "exit 1"}),
        "userPromptTransformed" => json!({"prompt": "p", "transformedPrompt": "p"}),
        "agentStop" => json!({"transcriptPath": "/t", "stopReason": "end_turn"}),
        "sessionStart" => json!({"source": "new"}),
        "notification" => json!({"message": "m", "notification_type": "agent_idle"}),
        other => panic!("{other}"),
    };
    v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    HookEvent::from_runtime_value(v, Some(Runtime::Copilot), Some(name)).unwrap()
}

fn copilot(event: &str, o: Outcome) -> (Value, Vec<String>, u8) {
    let reply = render(Protocol::Runtime(Runtime::Copilot), &copilot_ev(event), &o);
    let v = if reply.stdout.is_empty() { Value::Null } else { serde_json::from_str(&reply.stdout).unwrap_or(Value::String(reply.stdout.clone())) };
    (v, reply.notes, reply.code)
}

#[test]
fn copilot_answers_per_event_and_never_exits_non_zero_before_a_tool() {
    let c = |event: &str, kind, reason: Option<&str>, patch: Option<Value>| copilot(event, outcome(kind, reason, vec![], patch));
    // Before a tool: JSON on exit 0 for every verdict (any non-zero exit denies the tool call).
    assert_eq!(c("preToolUse", VerdictKind::Block, Some("no"), None), (json!({"permissionDecision": "deny", "permissionDecisionReason": "no"}), vec![], 0));
    assert_eq!(c("preToolUse", VerdictKind::Ask, Some("sure?"), None).0, json!({"permissionDecision": "ask", "permissionDecisionReason": "sure?"}));
    assert_eq!(c("preToolUse", VerdictKind::Allow, None, None).0, json!({"permissionDecision": "allow"}));
    assert_eq!(c("preToolUse", VerdictKind::Pass, None, None), (Value::Null, vec![], 0), "a pass is Copilot's default flow");
    let (v, notes, _) = c("preToolUse", VerdictKind::Halt, Some("enough"), None);
    assert_eq!(v, json!({"permissionDecision": "deny", "permissionDecisionReason": "enough"}));
    assert_eq!(notes, ["hookhost: copilot output: Copilot cannot end the session from preToolUse: the tool call is denied instead"]);
    let args = json!({"arguments": {"command": "curl -H 'Authorization: [REDACTED]' x"}});
    assert_eq!(c("preToolUse", VerdictKind::Pass, None, Some(args.clone())).0, json!({"modifiedArgs": {"command": "curl -H 'Authorization: [REDACTED]' x"}}));
    // Permission requests: behavior, and interrupt for a halt; a rewrite there cannot apply, so it is a deny.
    assert_eq!(c("permissionRequest", VerdictKind::Block, Some("no"), None).0, json!({"behavior": "deny", "message": "no"}));
    assert_eq!(c("permissionRequest", VerdictKind::Halt, Some("stop"), None).0, json!({"behavior": "deny", "message": "stop", "interrupt": true}));
    assert_eq!(c("permissionRequest", VerdictKind::Allow, None, None).0, json!({"behavior": "allow"}));
    assert_eq!(c("permissionRequest", VerdictKind::Pass, None, Some(args)).0["behavior"], "deny");
    // A redacted result replaces the tool's; context follows it.
    let o = outcome(VerdictKind::Pass, None, vec![Effect::AddContext { text: "ctx".into() }], Some(json!({"result": "TOKEN=[REDACTED]"})));
    assert_eq!(copilot("postToolUse", o).0, json!({"modifiedResult": {"resultType": "success", "textResultForLlm": "TOKEN=[REDACTED]"}, "additionalContext": "ctx"}));
    // A prompt: rewritten, or — Copilot cannot block one — withheld from the model.
    assert_eq!(c("userPromptTransformed", VerdictKind::Pass, None, Some(json!({"message": "key [REDACTED]"}))).0, json!({"modifiedTransformedPrompt": "key [REDACTED]"}));
    let (v, notes, code) = c("userPromptTransformed", VerdictKind::Block, Some("a secret"), None);
    assert_eq!((v, code), (json!({"modifiedTransformedPrompt": "[hookhost withheld this prompt: a secret]"}), 0));
    assert_eq!(notes, ["hookhost: copilot output: Copilot cannot block a prompt; the model receives a notice in its place (userPromptTransformed)"]);
    assert_eq!(c("agentStop", VerdictKind::Block, Some("tests fail"), None).0, json!({"decision": "block", "reason": "tests fail"}));
    assert_eq!(copilot("sessionStart", outcome(VerdictKind::Pass, None, vec![Effect::AddContext { text: "ctx".into() }], None)).0, json!({"additionalContext": "ctx"}));
    // Recovery guidance after a failed tool is additionalContext on exit 0 (what the real
    // Copilot CLI shows the model as "Additional guidance from postToolUseFailure hooks").
    let (v, _, code) = copilot("postToolUseFailure", outcome(VerdictKind::Pass, None, vec![Effect::AddContext { text: "retry with -n".into() }], None));
    assert_eq!((v, code), (json!({"additionalContext": "retry with -n"}), 0));
}

#[test]
fn copilot_failures_exit_zero_when_they_do_not_block() {
    let p = Protocol::Runtime(Runtime::Copilot);
    let reply = failure(p, Some(&copilot_ev("preToolUse")), "hooks.toml: bad", OnFailure::Open);
    assert_eq!((reply.stdout.as_str(), reply.code, reply.notes.as_slice()), ("", 0, &["hookhost: error: hooks.toml: bad".to_string()][..]), "exit 1 would deny the tool call");
    let closed = failure(p, Some(&copilot_ev("preToolUse")), "hooks.toml: bad", OnFailure::Closed);
    assert_eq!(closed.code, 0);
    assert_eq!(serde_json::from_str::<Value>(&closed.stdout).unwrap()["permissionDecision"], "deny");
}

#[test]
fn an_event_hookhost_does_not_know_is_the_runtimes_pass_with_a_note() {
    let pass = outcome(VerdictKind::Pass, None, vec![], None);
    let unknown = HookEvent::from_value(json!({"hook_event_name": "FancyNewEvent", "session_id": "s"})).unwrap();
    let reply = render(Protocol::Runtime(Runtime::Codex), &unknown, &pass);
    assert_eq!((reply.stdout.as_str(), reply.code), ("", 0), "Codex's pass");
    assert_eq!(reply.notes, ["hookhost: codex output: FancyNewEvent is not an event hookhost knows for Codex: it ran as custom:FancyNewEvent, on the hooks registered for that name only"]);
    assert_eq!(render(Protocol::Runtime(Runtime::GeminiCli), &unknown, &pass).stdout, "{}", "Gemini CLI's pass");
    // An event the runtime documents and hookhost passes through is no news.
    let documented = HookEvent::from_value(json!({"hook_event_name": "PostToolUseFailure", "session_id": "s", "tool_name": "Bash", "error": "exit 1"})).unwrap();
    assert_eq!(render(Protocol::Runtime(Runtime::ClaudeCode), &documented, &pass).notes, Vec::<String>::new());
}

#[test]
fn every_runtime_hookhost_answers_has_a_writer_and_no_other_does() {
    for r in Runtime::ALL {
        assert_eq!(writer(r).is_some(), r.answer().is_some(), "{r}: a profile's answer and protocol.rs: writer go together");
    }
}

/// Qwen Code: Claude Code's answers, less what its hooks reference does not document.
#[test]
fn qwen_code_answers_as_claude_code_without_the_fields_it_lacks() {
    let q = Protocol::Runtime(Runtime::QwenCode);
    let c = |event: &str, kind, reason| out(q, event, outcome(kind, reason, vec![], None));
    assert_eq!(c("PreToolUse", VerdictKind::Block, Some("no")).0, json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}));
    assert_eq!(c("PreToolUse", VerdictKind::Pass, None), (json!({}), vec![]), "nothing to say is {{}}: an empty answer is its hook error");
    assert_eq!(c("PermissionRequest", VerdictKind::Block, Some("no")).0, json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no"}}}));
    // No `suppressOriginalPrompt`: a blocked prompt is the top-level block alone.
    assert_eq!(c("UserPromptSubmit", VerdictKind::Block, Some("secret")).0, json!({"decision": "block", "reason": "secret"}));
    // It does not apply a rewritten input before a tool: what the hooks let through only
    // rewritten is blocked (never run as the model wrote it); on an allowed permission request
    // it is applied.
    let (rewritten, notes) = out(q, "PreToolUse", outcome(VerdictKind::Pass, None, vec![], Some(json!({"arguments": {"command": "ls -a"}}))));
    assert_eq!(rewritten["hookSpecificOutput"]["permissionDecision"], "deny");
    assert!(rewritten["hookSpecificOutput"].get("updatedInput").is_none());
    assert!(rewritten["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap().contains("cannot apply the rewrite"), "{rewritten}");
    assert!(notes.iter().any(|n| n.contains("cannot take a rewritten tool input here")), "{notes:?}");
    let allowed = out(q, "PermissionRequest", outcome(VerdictKind::Allow, None, vec![], Some(json!({"arguments": {"command": "ls -a"}})))).0;
    assert_eq!(allowed["hookSpecificOutput"]["decision"], json!({"behavior": "allow", "updatedInput": {"command": "ls -a"}}));
    // After a tool, `continue: false` is what Qwen Code reads: the output replaced by
    // `stopReason` (the model's text, `llmContent`, of a redacted `{llmContent, returnDisplay}`).
    let after = |kind, reason, patch| {
        let event = HookEvent::from_value(json!({"hook_event_name": "PostToolUse", "tool_name": "run_shell_command", "tool_input": {},
                                                 "tool_response": {"llmContent": "key sk-1", "returnDisplay": "key sk-1"}})).unwrap();
        let reply = render(q, &event, &outcome(kind, reason, vec![], patch));
        (serde_json::from_str::<Value>(&reply.stdout).unwrap_or(Value::Null), reply.notes)
    };
    let redacted = json!({"result": {"llmContent": "key [REDACTED]", "returnDisplay": "key [REDACTED]"}});
    assert_eq!(after(VerdictKind::Pass, None, Some(redacted)), (json!({"continue": false, "stopReason": "key [REDACTED]"}), vec![]));
    assert_eq!(after(VerdictKind::Pass, None, Some(json!({"result": "plain [REDACTED]"}))).0, json!({"continue": false, "stopReason": "plain [REDACTED]"}));
    // A block there withholds the output (`decision: "block"` is not read after a tool).
    assert_eq!(after(VerdictKind::Block, Some("secret"), None).0, json!({"continue": false, "stopReason": "the tool's output was withheld by a hook: secret"}));
    let (halt, notes) = after(VerdictKind::Halt, Some("enough"), None);
    assert_eq!(halt, json!({"continue": false, "stopReason": "the tool's output was withheld by a hook: enough"}));
    assert!(notes.iter().any(|n| n.contains("ends no session after a tool")), "{notes:?}");
    assert_eq!(after(VerdictKind::Pass, None, None), (json!({}), vec![]), "a pass after a tool says nothing");
}

/// Cursor's older per-kind events, wired by hand, run as custom events; those before an
/// action still gate it: hookhost's own failure there is Cursor's deny, not the non-blocking
/// exit 1 Cursor would let through (after an action it is).
#[test]
fn cursor_before_events_wired_by_hand_block_on_failure() {
    let cur = Protocol::Runtime(Runtime::Cursor);
    let cursor_ev = |name: &str| HookEvent::from_value(json!({"hook_event_name": name, "conversation_id": "c", "command": "rm -rf ~", "cwd": "/p"})).unwrap();
    for name in ["beforeShellExecution", "beforeMCPExecution", "beforeReadFile"] {
        let event = cursor_ev(name);
        assert_eq!(event.name, EventName::Custom(name.into()));
        let reply = failure(cur, Some(&event), "hooks.toml: bad", OnFailure::Closed);
        assert_eq!(reply.code, 0, "{name}");
        assert_eq!(serde_json::from_str::<Value>(&reply.stdout).unwrap()["permission"], "deny", "{name}: {}", reply.stdout);
        assert_eq!(failure(cur, Some(&event), "hooks.toml: bad", OnFailure::Open).code, 1, "{name} with --fail-open");
    }
    for name in ["afterShellExecution", "afterFileEdit"] {
        let reply = failure(cur, Some(&cursor_ev(name)), "hooks.toml: bad", OnFailure::Closed);
        assert_eq!((reply.code, reply.stdout.as_str()), (1, ""), "{name}: after the action, the non-blocking error");
    }
}

/// Cursor: a permission before a tool (always named: a pass is its allow), `continue` on a
/// prompt, `followup_message` on a stop.
#[test]
fn cursor_answers_per_kind_of_event() {
    let cur = Protocol::Runtime(Runtime::Cursor);
    let c = |event: &str, kind, reason| out(cur, event, outcome(kind, reason, vec![], None));
    assert_eq!(c("preToolUse", VerdictKind::Pass, None), (json!({"permission": "allow"}), vec![]));
    assert_eq!(c("preToolUse", VerdictKind::Block, Some("no")).0, json!({"permission": "deny", "agent_message": "no", "user_message": "no"}));
    assert_eq!(c("preToolUse", VerdictKind::Ask, Some("sure?")).0, json!({"permission": "ask", "agent_message": "sure?", "user_message": "sure?"}));
    let (halt, notes) = c("preToolUse", VerdictKind::Halt, Some("enough"));
    assert_eq!(halt["permission"], "deny");
    assert!(notes.iter().any(|n| n.contains("cannot end the session")), "{notes:?}");
    assert_eq!(c("beforeSubmitPrompt", VerdictKind::Block, Some("secret")).0, json!({"continue": false, "user_message": "secret"}));
    assert_eq!(c("beforeSubmitPrompt", VerdictKind::Pass, None).0, json!({"continue": true}));
    assert_eq!(c("stop", VerdictKind::Block, Some("tests fail")).0, json!({"followup_message": "tests fail"}));
    assert_eq!(c("stop", VerdictKind::Pass, None).0, json!({}), "nothing to say is {{}}");
    // The older per-kind events, registered as custom events, answer with a permission too.
    assert_eq!(c("beforeShellExecution", VerdictKind::Block, Some("no")).0["permission"], "deny");
    let (read, notes) = c("beforeReadFile", VerdictKind::Ask, Some("sure?"));
    assert_eq!(read["permission"], "deny", "beforeReadFile has no ask");
    assert!(!notes.is_empty());
    // A rewrite and context: `updated_input` before a tool, `additional_context` after it.
    let rewritten = out(cur, "preToolUse", outcome(VerdictKind::Pass, None, vec![], Some(json!({"arguments": {"command": "ls -a"}})))).0;
    assert_eq!(rewritten, json!({"permission": "allow", "updated_input": {"command": "ls -a"}}));
    let after = out(cur, "postToolUse", outcome(VerdictKind::Pass, None, vec![Effect::AddContext { text: "checked".into() }], None)).0;
    assert_eq!(after, json!({"additional_context": "checked"}));
    // A redaction has no field: a note, never silence.
    let event = HookEvent::from_value(json!({"hook_event_name": "postToolUse", "conversation_id": "c1", "tool_name": "Shell", "tool_input": {}, "tool_output": "key sk-1"})).unwrap();
    assert_eq!(event.session_id, "c1", "Cursor's conversation is the session");
    let reply = render(cur, &event, &outcome(VerdictKind::Pass, None, vec![], Some(json!({"result": "key [REDACTED]"}))));
    assert!(reply.notes.iter().any(|n| n.contains("rewritten tool output is dropped")), "{:?}", reply.notes);
}

/// Antigravity CLI: `decision` and `reason` only — deny, `force_ask` for an ask (its plain ask
/// would take a person's earlier "always allow"), allow; a pass says nothing (agy's own flow
/// asks); a halt is a deny; what it has no field for is a note; a call let through only
/// rewritten is blocked; hookhost's own failure before a tool is its deny.
#[test]
fn antigravity_answers_with_a_decision_and_its_reason() {
    let agy = Protocol::Runtime(Runtime::Antigravity);
    let a = |kind, reason| out(agy, "PreToolUse", outcome(kind, reason, vec![], None));
    assert_eq!(a(VerdictKind::Pass, None), (Value::Null, vec![]));
    assert_eq!(a(VerdictKind::Block, Some("no")).0, json!({"decision": "deny", "reason": "no"}));
    assert_eq!(a(VerdictKind::Block, None).0, json!({"decision": "deny", "reason": "blocked by a hook"}));
    assert_eq!(a(VerdictKind::Ask, Some("sure?")).0, json!({"decision": "force_ask", "reason": "sure?"}));
    assert_eq!(a(VerdictKind::Allow, None).0, json!({"decision": "allow"}));
    let (halt, notes) = a(VerdictKind::Halt, Some("enough"));
    assert_eq!(halt, json!({"decision": "deny", "reason": "enough"}));
    assert!(notes.iter().any(|n| n.contains("no answer that ends the session")), "{notes:?}");
    let (context, notes) = out(agy, "PreToolUse", outcome(VerdictKind::Pass, None, vec![Effect::AddContext { text: "note".into() }], None));
    assert_eq!(context, Value::Null);
    assert!(notes.iter().any(|n| n.contains("added context is dropped")), "{notes:?}");
    let (rewritten, notes) = out(agy, "PreToolUse", outcome(VerdictKind::Pass, None, vec![], Some(json!({"arguments": {"command": "ls -a"}}))));
    assert_eq!(rewritten["decision"], "deny", "{rewritten}");
    assert!(notes.iter().any(|n| n.contains("cannot take a rewritten tool input")), "{notes:?}");
    let event = HookEvent::read(br#"{"conversationId": "c", "toolCall": {"name": "run_command", "args": {"CommandLine": "rm -rf ~"}}, "workspacePaths": ["/p"]}"#, Some(Runtime::Antigravity), None).unwrap();
    assert_eq!(event.name, EventName::PreToolUse);
    let reply = failure(agy, Some(&event), "hooks.toml: bad", OnFailure::Closed);
    assert_eq!((reply.code, serde_json::from_str::<Value>(&reply.stdout).unwrap()["decision"].clone()), (0, json!("deny")));
    assert_eq!(failure(agy, Some(&event), "hooks.toml: bad", OnFailure::Open), Reply { stdout: String::new(), notes: vec!["hookhost: error: hooks.toml: bad".into()], code: 1 });
}
