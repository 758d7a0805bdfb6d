//! Gemini CLI's hook answers, from its hooks reference (google-gemini/gemini-cli
//! `docs/hooks/reference.md`): Claude Code's shape with `decision: "allow" | "deny"` and its own
//! event names. Gemini CLI 0.61 ignores a replaced `tool_output`: a redacted output is a deny
//! whose reason is the redacted text.

use super::{as_text, event_specific, object, put, Parts};
use hookhost_types::{EventName, Runtime, VerdictKind};
use serde_json::Map;

pub(super) fn gemini(p: &Parts, notes: &mut Vec<String>) -> String {
    use EventName as E;
    let mut out = Map::new();
    let mut specific = Map::new();
    match p.kind {
        VerdictKind::Halt => {
            put(&mut out, "continue", false);
            put(&mut out, "stopReason", p.reason_or("stopped by a hook"));
        }
        VerdictKind::Block => {
            put(&mut out, "decision", "deny");
            put(&mut out, "reason", p.reason_or("blocked by a hook"));
        }
        // Gemini CLI cannot ask the human from a hook: what needs a human's yes is refused.
        VerdictKind::Ask => {
            put(&mut out, "decision", "deny");
            put(&mut out, "reason", format!("needs a human's confirmation: {}", p.reason_or("a hook asks to confirm this")));
            notes.push("Gemini CLI has no \"ask\"; it is written as \"deny\" with the reason".into());
        }
        VerdictKind::Allow if *p.event == E::PreToolUse => {
            put(&mut out, "decision", "allow");
            if let Some(reason) = &p.reason {
                put(&mut out, "reason", reason.as_str());
            }
        }
        VerdictKind::Allow | VerdictKind::Pass => {}
    }
    if let Some(args) = p.arguments {
        match p.event {
            E::PreToolUse => put(&mut specific, "tool_input", args.clone()),
            event => notes.push(format!("the rewritten tool input is dropped: Gemini CLI takes one on BeforeTool, not on {}", Runtime::GeminiCli.event_name(event))),
        }
    }
    if let Some(result) = p.result {
        match p.event {
            E::PostToolUse | E::ToolResultTransform => {
                put(&mut specific, "tool_output", as_text(result));
                // Gemini CLI (0.61) does not apply `tool_output`; a deny's reason is what reaches
                // the model in place of the tool's result, so the redacted text goes there too.
                if p.kind < VerdictKind::Block {
                    put(&mut out, "decision", "deny");
                    put(&mut out, "reason", as_text(result));
                }
            }
            event => notes.push(format!("the rewritten tool output is dropped: Gemini CLI takes one on AfterTool, not on {}", Runtime::GeminiCli.event_name(event))),
        }
    }
    if p.prompt.is_some() {
        notes.push("the rewritten prompt is dropped: Gemini CLI cannot rewrite a prompt (block it, or add context)".into());
    }
    if p.summary.is_some() {
        notes.push("the replacement summary is dropped: Gemini CLI has no field for one".into());
    }
    if !p.context.is_empty() {
        match p.event {
            E::PostToolUse | E::UserPromptSubmit | E::SessionStart => put(&mut specific, "additionalContext", p.context.join("\n\n")),
            event => notes.push(format!("the added context is dropped: Gemini CLI takes context on AfterTool, BeforeAgent and SessionStart, not on {}", Runtime::GeminiCli.event_name(event))),
        }
    }
    if !p.notices.is_empty() {
        put(&mut out, "systemMessage", p.notices.join("\n"));
    }
    event_specific(&mut out, specific, Runtime::GeminiCli.event_name(p.event));
    // Nothing to say is its profile's `{}` (`render`).
    object(out)
}

