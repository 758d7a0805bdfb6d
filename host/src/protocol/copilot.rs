//! GitHub Copilot CLI's hook answers, from its hooks reference (github/docs
//! `content/copilot/reference/hooks-reference.md`: "`preToolUse` decision control",
//! "`postToolUse` output", "`permissionRequest` decision control", "`agentStop` /
//! `subagentStop` decision control", "Exit codes for command hooks"). Its fields sit at the top
//! level of the answer, with no event name. What matters most:
//!
//! - On `preToolUse` any non-zero exit of a command hook denies the tool call (fail-closed) and
//!   its stderr never reaches the model: a block is JSON on exit 0, and hookhost's own failure
//!   is exit 0 with nothing on stdout (a deny only under `--fail-closed`).
//! - `userPromptSubmitted`'s answer is dropped for command hooks; `userPromptTransformed` can
//!   replace what the model receives (`modifiedTransformedPrompt`) but not block the turn. So a
//!   prompt hookhost blocks reaches the model as a notice in its place, never as written.
//! - `postToolUse` replaces the result with `modifiedResult` (`resultType: "success"`).

use super::{as_text, object, put, Parts};
use hookhost_types::{EventName, Runtime, VerdictKind};
use serde_json::{json, Map};

/// The answer, always on exit 0.
pub(super) fn copilot(p: &Parts, notes: &mut Vec<String>) -> String {
    use EventName as E;
    let name = Runtime::Copilot.event_name(p.event);
    let mut out = Map::new();
    let reason = |default: &str| p.reason_or(default);
    match (p.event, p.kind) {
        (E::PreToolUse, VerdictKind::Halt) => {
            notes.push("Copilot cannot end the session from preToolUse: the tool call is denied instead".into());
            put(&mut out, "permissionDecision", "deny");
            put(&mut out, "permissionDecisionReason", reason("stopped by a hook"));
        }
        (E::PreToolUse, VerdictKind::Block) => {
            put(&mut out, "permissionDecision", "deny");
            put(&mut out, "permissionDecisionReason", reason("blocked by a hook"));
        }
        (E::PreToolUse, VerdictKind::Ask) => {
            put(&mut out, "permissionDecision", "ask");
            if let Some(r) = &p.reason {
                put(&mut out, "permissionDecisionReason", r.as_str());
            }
        }
        (E::PreToolUse, VerdictKind::Allow) => {
            put(&mut out, "permissionDecision", "allow");
            if let Some(r) = &p.reason {
                put(&mut out, "permissionDecisionReason", r.as_str());
            }
        }
        (E::PermissionRequest, VerdictKind::Halt | VerdictKind::Block) => {
            put(&mut out, "behavior", "deny");
            put(&mut out, "message", reason("denied by a hook"));
            if p.kind == VerdictKind::Halt {
                put(&mut out, "interrupt", true);
            }
        }
        (E::PermissionRequest, VerdictKind::Allow) => put(&mut out, "behavior", "allow"),
        // A permission request is the runtime asking already; a pass leaves it to Copilot.
        (E::PermissionRequest, VerdictKind::Ask | VerdictKind::Pass) => {}
        (E::Stop | E::SubagentStop, VerdictKind::Block) => {
            put(&mut out, "decision", "block");
            put(&mut out, "reason", reason("a hook asks the agent to go on"));
        }
        (E::Stop | E::SubagentStop, VerdictKind::Halt) => notes.push(format!("{name} ends the turn already; the halt is what happens")),
        // Copilot has no block on the prompt: the model receives a notice instead of the prompt.
        (E::UserPromptSubmit, VerdictKind::Block | VerdictKind::Halt | VerdictKind::Ask) => {
            notes.push("Copilot cannot block a prompt; the model receives a notice in its place (userPromptTransformed)".into());
            put(&mut out, "modifiedTransformedPrompt", format!("[hookhost withheld this prompt: {}]", reason("a hook blocked it")));
        }
        (event, VerdictKind::Block | VerdictKind::Halt | VerdictKind::Ask) => {
            notes.push(format!("Copilot has no \"{}\" on {}; what happened stands", p.kind.as_str(), Runtime::Copilot.event_name(event)));
        }
        (_, VerdictKind::Allow | VerdictKind::Pass) => {}
    }
    if let Some(args) = p.arguments {
        match p.event {
            E::PreToolUse if p.kind < VerdictKind::Block => put(&mut out, "modifiedArgs", args.clone()),
            E::PreToolUse => {}
            event => notes.push(format!("the rewritten tool input is dropped: Copilot takes one on preToolUse, not on {}", Runtime::Copilot.event_name(event))),
        }
    }
    if let Some(prompt) = p.prompt {
        match (p.event, p.kind < VerdictKind::Block) {
            (E::UserPromptSubmit, true) => put(&mut out, "modifiedTransformedPrompt", prompt),
            (E::UserPromptSubmit, false) => {}
            (event, _) => notes.push(format!("the rewritten prompt is dropped: Copilot takes one on userPromptTransformed, not on {}", Runtime::Copilot.event_name(event))),
        }
    }
    if let Some(result) = p.result {
        match p.event {
            E::PostToolUse => put(&mut out, "modifiedResult", json!({"resultType": "success", "textResultForLlm": as_text(result)})),
            event => notes.push(format!("the rewritten tool output is dropped: Copilot takes one on postToolUse, not on {}", Runtime::Copilot.event_name(event))),
        }
    }
    if p.summary.is_some() {
        notes.push("the replacement summary is dropped: Copilot has no field for one".into());
    }
    if !p.context.is_empty() {
        let context = p.context.join("\n\n");
        match p.event {
            E::PostToolUse | E::SessionStart | E::Notification => put(&mut out, "additionalContext", context),
            // Recovery guidance after a failed tool is `additionalContext` too (the reference
            // also names exit 2 with the guidance, which the real Copilot CLI 1.0.102 reads
            // from stderr, not stdout).
            E::Custom(name) if name == "subagentStart" || name == "postToolUseFailure" => put(&mut out, "additionalContext", context),
            event => notes.push(format!("the added context is dropped: Copilot takes context on postToolUse, sessionStart, subagentStart, notification and postToolUseFailure, not on {}", Runtime::Copilot.event_name(event))),
        }
    }
    if !p.notices.is_empty() {
        notes.push(format!("Copilot has no message for the user in a hook's answer: {}", p.notices.join(" / ")));
    }
    object(out)
}
