//! Cursor's hook answers, from its hooks reference (<https://cursor.com/docs/hooks>): flat
//! snake_case JSON on exit 0, one shape per kind of event.
//!
//! - Before a tool (`preToolUse`, and the older `beforeShellExecution`, `beforeMCPExecution`,
//!   `beforeReadFile` a hook may be registered for as `custom:<name>`): `permission`
//!   (`allow` / `deny` / `ask`), `agent_message` (what the model is told), `user_message` (what
//!   the person sees), and on `preToolUse` `updated_input`. Cursor reads an answer without a
//!   `permission` there as invalid JSON — a block when the hook is `failClosed` — so a pass is
//!   written `permission: "allow"`, which leaves the rest of Cursor's own approval in place.
//! - A prompt (`beforeSubmitPrompt`): `continue` (`false` keeps it from the model) and
//!   `user_message`; there is no ask, so what needs a human's yes is refused with the reason.
//! - A stop: `followup_message`, which Cursor submits as the next message — a hook's "do not
//!   stop yet" (a block of the stop) with its reason.
//! - After a tool, and a session's start: `additional_context` for the model.
//!
//! Nothing else is taken: a rewritten tool output, prompt or summary is a note.

use super::{object, put, Parts};
use hookhost_types::{EventName, Runtime, VerdictKind};
use serde_json::Map;

/// The events whose answer is a `permission`, by Cursor's name.
const PERMISSION: &[&str] = &["preToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile"];

pub(super) fn cursor(p: &Parts, notes: &mut Vec<String>) -> String {
    use EventName as E;
    let name = Runtime::Cursor.event_name(p.event);
    let mut out = Map::new();
    let reason = |default: &str| p.reason_or(default);
    // A permission request it never sends is answered as one too: never a pass by default.
    if PERMISSION.contains(&name.as_str()) || *p.event == E::PermissionRequest {
        let permission = match p.kind {
            VerdictKind::Halt | VerdictKind::Block => "deny",
            // `beforeReadFile` takes allow or deny only.
            VerdictKind::Ask if name == "beforeReadFile" => {
                notes.push("Cursor has no \"ask\" on beforeReadFile: written as \"deny\" with the reason".into());
                "deny"
            }
            VerdictKind::Ask => "ask",
            VerdictKind::Allow | VerdictKind::Pass => "allow",
        };
        if p.kind == VerdictKind::Halt {
            notes.push(format!("Cursor cannot end the session from {name}: the tool call is denied instead"));
        }
        put(&mut out, "permission", permission);
        if permission != "allow" || p.kind == VerdictKind::Allow {
            if let Some(r) = &p.reason {
                put(&mut out, "agent_message", r.clone());
            } else if permission == "deny" {
                put(&mut out, "agent_message", reason("blocked by a hook"));
            }
        }
        if !p.notices.is_empty() {
            put(&mut out, "user_message", p.notices.join("\n"));
        } else if permission != "allow" {
            put(&mut out, "user_message", reason("blocked by a hook"));
        }
    } else {
        match (p.event, p.kind) {
            (E::UserPromptSubmit, VerdictKind::Halt | VerdictKind::Block | VerdictKind::Ask) => {
                if p.kind == VerdictKind::Ask {
                    notes.push("Cursor has no \"ask\" on beforeSubmitPrompt: the prompt is held back, with the reason".into());
                }
                put(&mut out, "continue", false);
                let why = reason("blocked by a hook");
                put(&mut out, "user_message", if p.kind == VerdictKind::Ask { format!("needs a human's confirmation: {why}") } else { why });
            }
            (E::UserPromptSubmit, _) => put(&mut out, "continue", true),
            (E::Stop | E::SubagentStop, VerdictKind::Block) => put(&mut out, "followup_message", reason("a hook asks the agent to go on")),
            (_, VerdictKind::Pass | VerdictKind::Allow) => {}
            (event, kind) => notes.push(format!("Cursor cannot {} on {}: the hooks' verdict is not applied", if kind == VerdictKind::Ask { "ask" } else { "block" }, Runtime::Cursor.event_name(event))),
        }
        if !p.notices.is_empty() {
            match p.event {
                E::UserPromptSubmit => {
                    out.entry("user_message").or_insert_with(|| p.notices.join("\n").into());
                }
                event => notes.push(format!("the message for the person is dropped: Cursor shows one on a tool call or a prompt, not on {}", Runtime::Cursor.event_name(event))),
            }
        }
    }
    if let Some(args) = p.arguments {
        match p.event {
            E::PreToolUse if p.kind < VerdictKind::Block => put(&mut out, "updated_input", args.clone()),
            E::PreToolUse => {}
            event => notes.push(format!("the rewritten tool input is dropped: Cursor takes one on preToolUse, not on {}", Runtime::Cursor.event_name(event))),
        }
    }
    if p.result.is_some() {
        notes.push("the rewritten tool output is dropped: Cursor documents no field that replaces a tool's output (the hooks can add context after it)".into());
    }
    if p.prompt.is_some() {
        notes.push("the rewritten prompt is dropped: Cursor cannot rewrite a prompt (block it instead)".into());
    }
    if p.summary.is_some() {
        notes.push("the replacement summary is dropped: Cursor has no field for one".into());
    }
    if !p.context.is_empty() {
        match p.event {
            E::PostToolUse | E::SessionStart => put(&mut out, "additional_context", p.context.join("\n\n")),
            event => notes.push(format!("the added context is dropped: Cursor takes context after a tool and at a session's start, not on {}", Runtime::Cursor.event_name(event))),
        }
    }
    object(out)
}
