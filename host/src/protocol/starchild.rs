//! Starchild's hook answers, from its shell-hook output protocol (Starchild's agent-hooks guide): `decision`,
//! `reason`, `tool_input`, `context`, `systemMessage`.

use super::{object, put, Parts};
use hookhost_types::{EventName, VerdictKind};
use serde_json::Map;

pub(super) fn starchild(p: &Parts, notes: &mut Vec<String>) -> String {
    use EventName as E;
    let mut out = Map::new();
    match p.kind {
        // Starchild stops nothing but the action at hand: a halt and an ask are its block.
        VerdictKind::Halt | VerdictKind::Block | VerdictKind::Ask => {
            put(&mut out, "decision", "block");
            put(&mut out, "reason", p.reason_or("blocked by a hook"));
            if p.kind != VerdictKind::Block {
                notes.push(format!("Starchild has no \"{}\"; it is written as a block", p.kind.as_str()));
            }
        }
        VerdictKind::Allow | VerdictKind::Pass => {}
    }
    if let Some(args) = p.arguments {
        match p.event {
            E::PreToolUse => put(&mut out, "tool_input", args.clone()),
            event => notes.push(format!("the rewritten tool input is dropped: Starchild takes one on pre_tool_call, not on {event}")),
        }
    }
    if !p.context.is_empty() {
        match p.event {
            E::BeforeModelCall => put(&mut out, "context", p.context.join("\n\n")),
            event => notes.push(format!("the added context is dropped: Starchild takes context on pre_llm_call, not on {event}")),
        }
    }
    for (what, present) in [("rewritten prompt", p.prompt.is_some()), ("rewritten tool output", p.result.is_some()), ("replacement summary", p.summary.is_some())] {
        if present {
            notes.push(format!("the {what} is dropped: Starchild has no field for it on {}", p.event));
        }
    }
    if !p.notices.is_empty() {
        put(&mut out, "systemMessage", p.notices.join("\n"));
    }
    object(out)
}

