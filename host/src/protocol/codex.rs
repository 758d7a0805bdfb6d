//! Codex's hook answers. Close to Claude Code's, but Codex checks every answer against its own
//! rules and treats one it refuses as a *failed hook* — a non-blocking error, so the tool call
//! runs. Each rule below is one of those checks (Codex's `codex-rs/hooks/src/engine/output_parser.rs`
//! and the JSON Schemas it generates under `codex-rs/hooks/schema/generated/`), so an answer of
//! hookhost is never one Codex throws away:
//!
//! - `PreToolUse` takes only `permissionDecision: "deny"` with a non-empty reason, or `"allow"`
//!   together with `updatedInput`; a bare `allow`, `ask`, `continue: false`, `stopReason` and
//!   `suppressOutput` are refused. So `ask` and `halt` are written as a deny (the nearest form
//!   that holds), a rewrite as `allow` + `updatedInput`, and a bare allow or pass as nothing.
//! - `PermissionRequest` takes `decision.behavior` (`allow` / `deny` with a message); not
//!   `updatedInput`, `updatedPermissions`, `interrupt` or `continue: false`.
//! - `PostToolUse`, `UserPromptSubmit`, `Stop` block with `decision: "block"` and a non-empty
//!   `reason`. Codex has no field that replaces a tool's output in what the model sees: a
//!   redacted output is a block whose reason is the redacted text, which is what reaches the
//!   model instead of the original.
//! - Unknown fields make the whole answer unreadable: only Codex's own fields are written.

use super::{put, Parts};
use hookhost_types::{EventName, Runtime, VerdictKind};
use serde_json::{Map, Value};

/// `text` when it has something to say, else `default` (Codex refuses an empty reason).
fn non_empty(text: Option<&str>, default: &str) -> String {
    match text.map(str::trim) {
        Some(t) if !t.is_empty() => t.to_string(),
        _ => default.to_string(),
    }
}

/// Whether Codex reads `decision: "block"` + `reason` on this event.
fn takes_decision(event: &EventName) -> bool {
    matches!(event, EventName::PostToolUse | EventName::UserPromptSubmit | EventName::Stop) || matches!(event, EventName::Custom(name) if name == "SubagentStop")
}

pub(super) fn codex(p: &Parts, notes: &mut Vec<String>) -> String {
    use EventName as E;
    let mut out = Map::new();
    let mut specific = Map::new();
    let reason = |default: &str| non_empty(p.reason.as_deref(), default);
    match (p.event, p.kind) {
        (E::PreToolUse, VerdictKind::Halt) => {
            notes.push("Codex cannot end the session from PreToolUse (it refuses continue:false there): the tool call is denied instead".into());
            put(&mut specific, "permissionDecision", "deny");
            put(&mut specific, "permissionDecisionReason", reason("stopped by a hook"));
        }
        (E::PreToolUse, VerdictKind::Block) => {
            put(&mut specific, "permissionDecision", "deny");
            put(&mut specific, "permissionDecisionReason", reason("blocked by a hook"));
        }
        (E::PreToolUse, VerdictKind::Ask) => {
            notes.push("Codex cannot ask from a PreToolUse hook (it refuses permissionDecision:ask): the tool call is denied instead".into());
            put(&mut specific, "permissionDecision", "deny");
            put(&mut specific, "permissionDecisionReason", format!("needs a human's confirmation, which Codex cannot ask for here: {}", reason("a hook asks")));
        }
        // Codex takes new input only with `allow`, and refuses a bare `allow`.
        (E::PreToolUse, VerdictKind::Allow | VerdictKind::Pass) => {
            if let Some(args) = p.arguments {
                put(&mut specific, "permissionDecision", "allow");
                put(&mut specific, "updatedInput", args.clone());
            }
        }
        (E::PermissionRequest, VerdictKind::Halt | VerdictKind::Block) => {
            if p.kind == VerdictKind::Halt {
                notes.push("Codex cannot end the session from PermissionRequest (it refuses interrupt and continue:false there): the request is denied instead".into());
            }
            let mut decision = Map::new();
            put(&mut decision, "behavior", "deny");
            put(&mut decision, "message", reason("denied by a hook"));
            put(&mut specific, "decision", Value::Object(decision));
        }
        (E::PermissionRequest, VerdictKind::Allow) => {
            let mut decision = Map::new();
            put(&mut decision, "behavior", "allow");
            put(&mut specific, "decision", Value::Object(decision));
        }
        // A permission request is the runtime asking already; a pass leaves it to Codex.
        (E::PermissionRequest, VerdictKind::Ask | VerdictKind::Pass) => {}
        (_, VerdictKind::Halt) => {
            put(&mut out, "continue", false);
            put(&mut out, "stopReason", reason("stopped by a hook"));
        }
        (event, VerdictKind::Block) if takes_decision(event) => {
            put(&mut out, "decision", "block");
            put(&mut out, "reason", reason("blocked by a hook"));
        }
        (event, VerdictKind::Block) => notes.push(format!("Codex has no block on {} (its answer there has no decision field); what happened stands", Runtime::Codex.event_name(event))),
        (event, VerdictKind::Ask) => notes.push(format!("Codex has no \"ask\" on {}; its own flow decides", Runtime::Codex.event_name(event))),
        (_, VerdictKind::Allow | VerdictKind::Pass) => {}
    }
    if p.arguments.is_some() && !matches!(p.event, E::PreToolUse) {
        notes.push(format!("the rewritten tool input is dropped: Codex takes one on PreToolUse only, not on {}", Runtime::Codex.event_name(p.event)));
    }
    if p.prompt.is_some() {
        notes.push("the rewritten prompt is dropped: Codex cannot rewrite a prompt (block it, or add context)".into());
    }
    if let Some(result) = p.result {
        match p.event {
            // No replacement field: the model is shown the redacted output as the block's reason.
            E::PostToolUse if p.kind < VerdictKind::Block => {
                let text = match result {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                put(&mut out, "decision", "block");
                put(&mut out, "reason", non_empty(Some(&text), "the tool's output was withheld by a hook"));
                notes.push("Codex cannot replace a tool's output: the rewritten output is given to the model as the block reason instead of the original".into());
            }
            E::PostToolUse => {}
            event => notes.push(format!("the rewritten tool output is dropped: Codex takes none on {}", Runtime::Codex.event_name(event))),
        }
    }
    if p.summary.is_some() {
        notes.push("the replacement summary is dropped: Codex has no field for one".into());
    }
    if !p.context.is_empty() {
        match p.event {
            E::PreToolUse | E::PostToolUse | E::UserPromptSubmit | E::SessionStart => put(&mut specific, "additionalContext", p.context.join("\n\n")),
            event => notes.push(format!("the added context is dropped: Codex takes context on PreToolUse, PostToolUse, UserPromptSubmit and SessionStart, not on {}", Runtime::Codex.event_name(event))),
        }
    }
    if !p.notices.is_empty() {
        put(&mut out, "systemMessage", p.notices.join("\n"));
    }
    super::event_specific(&mut out, specific, Runtime::Codex.event_name(p.event));
    super::object(out)
}
