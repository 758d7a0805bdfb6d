//! Qwen Code's hook answers, from its hooks reference (QwenLM/qwen-code
//! `docs/users/features/hooks.md`, "Hook Output Structure" and each event's "Output Options"):
//! Claude Code's — `hookSpecificOutput.permissionDecision` / `updatedInput` before a tool,
//! `decision: {behavior, updatedInput}` on a permission request, `decision: "block"` elsewhere,
//! `continue: false` for a halt — less what it does not have: no `suppressOriginalPrompt`, and
//! no field that replaces a tool's output.
//!
//! After a tool, Qwen Code acts on `continue: false` alone (its `decision: "block"` there is
//! not read): the tool's output is replaced by an error carrying `stopReason`, and the session
//! goes on (seen with the real Qwen Code 0.24.4, its core tool scheduler's PostToolUse path; the
//! real-client suite holds it). So a redacted output is that error's text, and a block after a
//! tool withholds the output with the reason — never the output as it was.

use super::{claude_code::claude, object, Parts, Protocol};
use hookhost_types::{EventName, Runtime, VerdictKind};
use serde_json::{Map, Value};

pub(super) fn qwen(p: &Parts, notes: &mut Vec<String>) -> String {
    let protocol = Protocol::Runtime(Runtime::QwenCode);
    let after_tool = *p.event == EventName::PostToolUse;
    let mut parts = p.clone();
    let replaced = if after_tool { parts.result.take() } else { None };
    let text = claude(protocol, &parts, notes);
    // (Nothing to say is "".)
    let mut out = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(out)) => out,
        _ if text.is_empty() => Map::new(),
        _ => return text,
    };
    if let Some(Value::Object(specific)) = out.get_mut("hookSpecificOutput") {
        specific.remove("suppressOriginalPrompt");
        // Only the event's name left: nothing to say.
        if specific.len() == 1 {
            out.remove("hookSpecificOutput");
        }
    }
    if after_tool {
        withhold_output(&mut out, p, replaced, notes);
    }
    object(out)
}

/// PostToolUse: what the model gets instead of the tool's output, as `continue: false` with
/// the text in `stopReason` — the redacted output, or the reason for a block or a halt.
fn withhold_output(out: &mut Map<String, Value>, p: &Parts, replaced: Option<&Value>, notes: &mut Vec<String>) {
    let instead = match p.kind {
        VerdictKind::Block | VerdictKind::Halt => {
            out.remove("decision");
            out.remove("reason");
            if p.kind == VerdictKind::Halt {
                notes.push("Qwen Code ends no session after a tool: the halt withholds the tool's output, with its reason, and the session goes on".into());
            }
            format!("the tool's output was withheld by a hook: {}", p.reason_or("blocked by a hook"))
        }
        _ => match replaced {
            Some(result) => output_text(result),
            None => return,
        },
    };
    out.insert("continue".into(), Value::Bool(false));
    out.insert("stopReason".into(), Value::String(instead));
}

/// A replaced tool output as the text the model reads: Qwen Code's `tool_response` is
/// `{llmContent, returnDisplay}`, the model reading `llmContent`.
fn output_text(result: &Value) -> String {
    match result {
        Value::String(s) => s.clone(),
        Value::Object(o) => match o.get("llmContent") {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => result.to_string(),
        },
        other => other.to_string(),
    }
}
