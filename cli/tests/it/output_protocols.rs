//! `hookhost run --output P` against the bash adapter's reading of dialect P (issue #14's
//! round trip): an outer hookhost runs, as a host-mode shell hook of dialect P, an inner
//! `hookhost run --output P`; the outer must decide what the inner decided, for every verdict
//! and the effects each event takes — real processes all the way. Where a runtime has no way
//! to say something, the expected outer decision is that runtime's documented nearest form.

use crate::common;

use serde_json::{json, Value};
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

fn run(config: &Path, event: &Value, extra: &[&str]) -> Value {
    let out = common::hookhost_with(
        |c| {
            c.args(["run", "--config"]).arg(config).args(extra);
        },
        event.to_string().as_bytes(),
    );
    common::json_of(&out)
}

/// What a runtime acts on: the verdict, the reason, the rewrites and the added context.
fn essence(outcome: &Value) -> Value {
    let context: Vec<&Value> = outcome["effects"].as_array().unwrap().iter().filter(|e| e["type"] == "add_context").map(|e| &e["text"]).collect();
    json!({"decision": outcome["decision"], "reason": outcome["reason"], "patch": outcome["patch"], "context": context})
}

fn toml_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

#[test]
fn each_protocol_round_trips_through_the_adapter_that_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("inner.toml");
    let outer = dir.path().join("outer.toml");
    let bin = env!("CARGO_BIN_EXE_hookhost");
    // The inner hookhost runs with the empty environment of a host-mode hook: point it at the
    // compiled plugins of the outer one's cache.
    let cache = crate::common::cache_dir().display().to_string();
    let cases = cases();
    let mut checked = 0;
    for protocol in ["claude-code", "codex", "gemini-cli", "docker-agent", "starchild", "copilot", "qwen-code", "cursor", "antigravity"] {
        std::fs::write(&outer, format!(
            "[grants]\n\"builtin:bash-adapter\" = [\"process:exec\"]\n{}",
            ["pre_tool_use", "permission_request", "user_prompt_submit", "stop", "session_start"].iter().map(|e| {
                // Copilot's and Antigravity CLI's payloads name no event: their hook
                // configuration does (INTEGRATIONS.md).
                let runtime = hookhost::Runtime::parse(protocol).unwrap();
                let named = match runtime {
                    hookhost::Runtime::Copilot | hookhost::Runtime::Antigravity => format!(", \"--event-name\", \"{}\"", runtime.event_name(&hookhost::EventName::from_canonical(e).unwrap())),
                    _ => String::new(),
                };
                format!(
                    "[[hooks]]\nevent = \"{e}\"\ntimeout_ms = 30000\nexecutor = {{ plugin = \"builtin:bash-adapter\", settings = {{ mode = \"host\", dialect = \"{protocol}\", timeout_ms = 30000, env = {{ HOOKHOST_CACHE_DIR = {} }}, argv = [{}, \"run\", \"--output\", \"{protocol}\"{named}, \"--config\", {}] }} }}\n",
                    toml_string(&cache), toml_string(bin), toml_string(&inner.display().to_string())
                )
            }).collect::<String>()
        )).unwrap();
        for (event, answer) in &cases {
            // A session of its own per protocol and run: a stop block counts towards the
            // session's stop-loop cap, which hookhost keeps across processes in the cache.
            let mut event = event.clone();
            event["session_id"] = json!(format!("round-trip-{}-{protocol}", std::process::id()));
            let event = &event;
            let event_name = hookhost::HookEvent::from_value(event.clone()).unwrap().name.config_name();
            // Antigravity CLI has no permission request and no prompt event hookhost models.
            if protocol == "antigravity" && !matches!(event_name.as_str(), "pre_tool_use" | "stop" | "session_start") {
                continue;
            }
            inner_config(&inner, event, answer);
            let want = essence(&run(&inner, event, &[]));
            let outcome = run(&outer, event, &[]);
            let got = essence(&outcome);
            let expected = nearest(protocol, &event_name, want.clone());
            assert_eq!(got, expected, "{protocol} on {event_name} answering {answer}: the inner hookhost decided {want}; the outer's outcome: {outcome}");
            checked += 1;
        }
    }
    assert_eq!(checked, 96);
}

/// (event, what the inner hook answers in Claude Code's dialect): every verdict, and the effects
/// each event takes.
fn cases() -> Vec<(Value, &'static str)> {
    vec![
        (json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}), ""),
        (json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}), r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"fine"}}"#),
        (json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}), r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"sure?"}}"#),
        (json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}), r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}"#),
        (json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}), r#"{"continue":false,"stopReason":"enough"}"#),
        (json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}), r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"ls -a"},"additionalContext":"listing"}}"#),
        (json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": {"command": "rm x"}}), r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"no rm"}}}"#),
        (json!({"hook_event_name": "UserPromptSubmit", "prompt": "hi"}), r#"{"decision":"block","reason":"not now"}"#),
        (json!({"hook_event_name": "UserPromptSubmit", "prompt": "hi"}), r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"it is Monday"}}"#),
        (json!({"hook_event_name": "Stop", "stop_hook_active": false}), r#"{"decision":"block","reason":"tests fail"}"#),
        (json!({"hook_event_name": "SessionStart", "source": "startup"}), r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"branch main"}}"#),
    ]
}

/// A hook answering `answer` (Claude Code's dialect) on `event`, as a hookhost config.
fn inner_config(path: &Path, event: &Value, answer: &str) {
    let event_name = hookhost::HookEvent::from_value(event.clone()).unwrap().name.config_name();
    let script = format!("printf '%s' '{}'", answer.replace('\'', "'\\''"));
    std::fs::write(path, format!("[[hooks]]\nevent = \"{event_name}\"\nexecutor = {{ plugin = \"builtin:bash-adapter\", settings = {{ dialect = \"claude-code\", command = {} }} }}\n", toml_string(&script))).unwrap();
}

#[test]
fn every_answer_matches_its_runtimes_documented_output_schema() {
    let dir = tempfile::tempdir().unwrap();
    let inner = dir.path().join("inner.toml");
    let schemas = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/protocols");
    let mut extra = cases();
    extra.extend([
        (json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": {"command": "ls"}}), r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"command":"ls -l"}}}}"#),
        (json!({"hook_event_name": "PostToolUse", "tool_name": "mcp__db__query", "tool_input": {}, "tool_response": "rows"}), r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedMCPToolOutput":"[redacted]","additionalContext":"checked"}}"#),
        (json!({"hook_event_name": "Notification", "message": "m", "notification_type": "idle_prompt"}), r#"{"systemMessage":"heads up"}"#),
        (json!({"hook_event_name": "UserPromptSubmit", "prompt": "key sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX"}), ""),
    ]);
    let mut validated = 0;
    for protocol in ["claude-code", "codex", "gemini-cli", "docker-agent", "starchild", "copilot", "qwen-code", "cursor", "antigravity"] {
        // Codex and Qwen Code publish no schema of their own: their answers are Claude Code's
        // shape (Qwen Code's with fewer fields).
        let schema_file = if matches!(protocol, "codex" | "qwen-code") { "claude-code" } else { protocol };
        let schema: Value = serde_json::from_str(&std::fs::read_to_string(schemas.join(format!("{schema_file}.schema.json"))).unwrap()).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        for (event, answer) in &extra {
            inner_config(&inner, event, answer);
            // The last case runs the embedded default's redactor instead: a prompt rewrite.
            let config = if answer.is_empty() && event["hook_event_name"] == "UserPromptSubmit" { None } else { Some(&inner) };
            let mut cmd = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"));
            cmd.args(["run", "--output", protocol]);
            if let Some(c) = config {
                cmd.arg("--config").arg(c);
            }
            let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
            child.stdin.take().unwrap().write_all(event.to_string().as_bytes()).unwrap();
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{protocol}: {}", String::from_utf8_lossy(&out.stderr));
            let stdout = String::from_utf8(out.stdout).unwrap();
            if stdout.trim().is_empty() {
                assert_ne!(protocol, "gemini-cli", "Gemini CLI always gets JSON");
                continue;
            }
            assert_eq!(stdout.lines().count(), 1, "one line: {stdout}");
            let v: Value = serde_json::from_str(&stdout).unwrap();
            let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
            assert!(errors.is_empty(), "{protocol} on {event} answering {answer}: {stdout} breaks the schema: {errors:?}");
            validated += 1;
        }
    }
    assert!(validated >= 60, "{validated} answers validated");
}

/// The inner decision as the runtime can express it (docs/INTEGRATIONS.md lists each gap).
fn nearest(protocol: &str, event: &str, mut want: Value) -> Value {
    let decision = want["decision"].as_str().unwrap().to_string();
    match protocol {
        // Starchild has no ask and no halt: both are its block; it takes context on
        // pre_llm_call only, and a tool rewrite on pre_tool_call.
        "starchild" => {
            if decision == "ask" || decision == "halt" {
                want["decision"] = json!("block");
            }
            if event != "before_model_call" {
                want["context"] = json!([]);
            }
            if decision == "allow" {
                want["decision"] = json!("pass");
                want["reason"] = Value::Null;
            }
        }
        // Gemini CLI has no ask (a hook's "needs a human" is its deny, with the reason), and
        // takes context on AfterTool, BeforeAgent and SessionStart only.
        "gemini-cli" => {
            if decision == "ask" {
                want["decision"] = json!("block");
                want["reason"] = json!(format!("needs a human's confirmation: {}", want["reason"].as_str().unwrap()));
            }
            if !matches!(event, "post_tool_use" | "user_prompt_submit" | "session_start") {
                want["context"] = json!([]);
            }
        }
        // Codex refuses ask, halt and a bare allow before a tool (and would then run it): the
        // first two are its deny, a bare allow says nothing, and a rewrite needs its allow.
        "codex" if event == "pre_tool_use" => {
            match decision.as_str() {
                "ask" => {
                    want["decision"] = json!("block");
                    want["reason"] = json!(format!("needs a human's confirmation, which Codex cannot ask for here: {}", want["reason"].as_str().unwrap()));
                }
                "halt" => want["decision"] = json!("block"),
                "allow" if want["patch"].is_null() => {
                    want["decision"] = json!("pass");
                    want["reason"] = Value::Null;
                }
                "pass" if !want["patch"].is_null() => want["decision"] = json!("allow"),
                _ => {}
            }
        }
        // Qwen Code does not apply a rewritten input before a tool: what is let through only
        // rewritten is blocked, and says why (its context kept).
        "qwen-code" if event == "pre_tool_use" && !want["patch"]["arguments"].is_null() => {
            want["decision"] = json!("block");
            want["reason"] = json!("hookhost's hooks allow this only with its tool input rewritten, and this runtime cannot apply the rewrite, so it is blocked");
            want["patch"] = Value::Null;
        }
        // Cursor: no halt before a tool (a deny); a bare allow is its pass (a permission hook
        // must always name one); context after a tool and at a session's start only.
        "cursor" => {
            if decision == "halt" && matches!(event, "pre_tool_use" | "permission_request") {
                want["decision"] = json!("block");
            }
            if decision == "allow" && want["reason"].is_null() {
                want["decision"] = json!("pass");
            }
            if !matches!(event, "post_tool_use" | "session_start") {
                want["context"] = json!([]);
            }
        }
        // GitHub Copilot CLI: no halt before a tool (a deny); no block on a prompt, which the model
        // gets as a notice instead; context on postToolUse, sessionStart, subagentStart and
        // notification only.
        "copilot" => {
            if event == "pre_tool_use" && decision == "halt" {
                want["decision"] = json!("block");
            }
            if event == "user_prompt_submit" && decision == "block" {
                want["patch"] = json!({"message": format!("[hookhost withheld this prompt: {}]", want["reason"].as_str().unwrap())});
                want["decision"] = json!("pass");
                want["reason"] = Value::Null;
            }
            if !matches!(event, "post_tool_use" | "session_start" | "notification") {
                want["context"] = json!([]);
            }
        }
        // Antigravity CLI: no halt (a deny), no context, and no rewritten input before a tool
        // (what is let through only rewritten is blocked, and says why).
        "antigravity" => {
            if decision == "halt" {
                want["decision"] = json!("block");
            }
            if event == "pre_tool_use" && !want["patch"]["arguments"].is_null() {
                want["decision"] = json!("block");
                want["reason"] = json!("hookhost's hooks allow this only with its tool input rewritten, and this runtime cannot apply the rewrite, so it is blocked");
                want["patch"] = Value::Null;
            }
            want["context"] = json!([]);
        }
        // docker-agent takes context where its reference says (not on pre_tool_use).
        "docker-agent" => {
            if event == "pre_tool_use" || event == "permission_request" {
                want["context"] = json!([]);
            }
        }
        _ => {}
    }
    want
}
