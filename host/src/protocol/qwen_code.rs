//! Qwen Code's hook answers, from its hooks reference (QwenLM/qwen-code
//! `docs/users/features/hooks.md`, "Hook Output Structure" and each event's "Output Options"):
//! Claude Code's — `hookSpecificOutput.permissionDecision` / `updatedInput` before a tool,
//! `decision: {behavior, updatedInput}` on a permission request, `decision: "block"` elsewhere,
//! `continue: false` for a halt — less what it does not document: no field replaces a tool's
//! output (a redaction there is a note, and the output reaches the model as it was), and no
//! `suppressOriginalPrompt`.

use super::{claude_code::claude, object, Parts, Protocol};
use hookhost_types::Runtime;
use serde_json::Value;

pub(super) fn qwen(p: &Parts, notes: &mut Vec<String>) -> String {
    let protocol = Protocol::Runtime(Runtime::QwenCode);
    let mut parts = p.clone();
    if parts.result.take().is_some() {
        notes.push("the rewritten tool output is dropped: Qwen Code documents no field that replaces a tool's output (a hook can block or add context on PostToolUse)".into());
    }
    let text = claude(protocol, &parts, notes);
    let Ok(Value::Object(mut out)) = serde_json::from_str::<Value>(&text) else { return text };
    if let Some(Value::Object(specific)) = out.get_mut("hookSpecificOutput") {
        specific.remove("suppressOriginalPrompt");
        // Only the event's name left: nothing to say.
        if specific.len() == 1 {
            out.remove("hookSpecificOutput");
        }
    }
    object(out)
}
