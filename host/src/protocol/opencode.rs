//! OpenCode's answers: OpenCode has no hook protocol of its own, only plugins; hookhost's plugin
//! for it (`cli/src/install/opencode_plugin.js`, placed by `hookhost install --runtime
//! opencode`) reads this. One JSON object: `decision` (`pass`, `allow`, `ask`, `block`, `halt`),
//! `reason`, and what the plugin can apply through OpenCode's plugin API
//! (<https://opencode.ai/docs/plugins/>) — `arguments` (changed in place before the tool runs),
//! `result` (the tool's output after it ran), `message` (the user's message), `context` (added
//! to a tool's output) and `notices` (for the person, on stderr). What OpenCode cannot take is
//! a note, never dropped in silence.

use super::{as_text, put, Parts};
use hookhost_types::EventName;
use serde_json::{Map, Value};

pub(super) fn opencode(p: &Parts, notes: &mut Vec<String>) -> String {
    use EventName as E;
    let mut out = Map::new();
    put(&mut out, "decision", p.kind.as_str());
    if let Some(reason) = &p.reason {
        put(&mut out, "reason", reason.clone());
    }
    if let Some(args) = p.arguments {
        put(&mut out, "arguments", args.clone());
    }
    if let Some(message) = p.prompt {
        put(&mut out, "message", message);
    }
    if let Some(result) = p.result {
        put(&mut out, "result", as_text(result));
    }
    if !p.context.is_empty() {
        match p.event {
            E::PostToolUse => put(&mut out, "context", p.context.join("\n\n")),
            event => notes.push(format!("the added context is dropped: OpenCode's plugin adds context to a tool's output (post_tool_use), not on {event}")),
        }
    }
    if p.summary.is_some() {
        notes.push(format!("the replacement summary is dropped: OpenCode's plugin has no field for it on {}", p.event));
    }
    if !p.notices.is_empty() {
        put(&mut out, "notices", Value::Array(p.notices.iter().map(|n| Value::String(n.clone())).collect()));
    }
    Value::Object(out).to_string()
}
