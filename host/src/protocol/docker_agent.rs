//! docker-agent's hook answers, from its hooks reference
//! (<https://docs.docker.com/ai/docker-agent/configuration/hooks/>): `decision: "block"`,
//! `hook_specific_output` (`permission_decision`, `updated_input`, `updated_tool_response`,
//! `summary`, `additional_context`), `continue: false` for a halt.

use super::{as_text, object, put, Parts};
use hookhost_types::{EventName, VerdictKind};
use serde_json::{Map, Value};

pub(super) fn docker(p: &Parts, notes: &mut Vec<String>) -> String {
    use EventName as E;
    let mut out = Map::new();
    let mut specific = Map::new();
    let permission_event = matches!(p.event, E::PreToolUse | E::PermissionRequest);
    match p.kind {
        VerdictKind::Halt => {
            put(&mut out, "continue", false);
            put(&mut out, "stop_reason", p.reason_or("stopped by a hook"));
        }
        VerdictKind::Block => {
            // docker-agent accepts only "" or "block" as a decision.
            put(&mut out, "decision", "block");
            put(&mut out, "reason", p.reason_or("blocked by a hook"));
            if permission_event {
                put(&mut specific, "permission_decision", "deny");
                put(&mut specific, "permission_decision_reason", p.reason_or("blocked by a hook"));
            }
        }
        VerdictKind::Ask | VerdictKind::Allow if permission_event => {
            put(&mut specific, "permission_decision", if p.kind == VerdictKind::Ask { "ask" } else { "allow" });
            if let Some(r) = &p.reason {
                put(&mut specific, "permission_decision_reason", r.clone());
            }
        }
        VerdictKind::Ask => notes.push(format!("docker-agent has no \"ask\" on {}; the runtime's own flow decides", p.event)),
        VerdictKind::Allow | VerdictKind::Pass => {}
    }
    if let Some(args) = p.arguments {
        match permission_event {
            true => put(&mut specific, "updated_input", args.clone()),
            false => notes.push(format!("the rewritten tool input is dropped: docker-agent takes one on pre_tool_use and permission_request, not on {}", p.event)),
        }
    }
    if let Some(result) = p.result {
        match p.event {
            E::ToolResultTransform => put(&mut specific, "updated_tool_response", as_text(result)),
            event => notes.push(format!("the rewritten tool output is dropped: docker-agent takes one on tool_response_transform, not on {event}")),
        }
    }
    if let Some(summary) = p.summary {
        match p.event {
            E::PreCompact => put(&mut specific, "summary", summary),
            event => notes.push(format!("the replacement summary is dropped: docker-agent takes one before a compaction, not on {event}")),
        }
    }
    if p.prompt.is_some() {
        notes.push("the rewritten prompt is dropped: docker-agent cannot rewrite a prompt (block it, or add context)".into());
    }
    if !p.context.is_empty() {
        match p.event {
            E::SessionStart | E::UserPromptSubmit | E::TurnStart | E::PostToolUse | E::PreCompact | E::Stop => put(&mut specific, "additional_context", p.context.join("\n\n")),
            event => notes.push(format!("the added context is dropped: docker-agent takes context on session_start, user_prompt_submit, turn_start, post_tool_use, pre_compact and stop, not on {event}")),
        }
    }
    if !p.annotations.is_empty() && permission_event {
        let metadata: Map<String, Value> = p.annotations.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        put(&mut specific, "metadata", Value::Object(metadata));
    }
    if !p.notices.is_empty() {
        put(&mut out, "system_message", p.notices.join("\n"));
    }
    if !specific.is_empty() {
        put(&mut out, "hook_specific_output", Value::Object(specific));
    }
    object(out)
}

