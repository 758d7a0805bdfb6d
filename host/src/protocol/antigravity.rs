//! Antigravity CLI's hook answers, as its users measured them (`hookhost_types`'
//! `runtime/antigravity.rs` cites them): flat JSON on stdout, `{"decision": …, "reason": …}`.
//!
//! - `deny` blocks the call, and the model is told the reason;
//! - `force_ask` asks the person even where they chose "always allow …" for such calls (plain
//!   `ask` would not): hookhost's ask is a question every time;
//! - `allow` — agy 1.1.2 still asks its own confirmation after it; written for hookhost's allow;
//! - no decision (nothing written): agy's own permission flow decides — hookhost's pass.
//!
//! Nothing else is known to be read: a halt is a deny (agy has no "stop the session" answer
//! known), and added context, a notice, a rewritten output or prompt are notes. A call the hooks
//! let through only with its input rewritten never reaches this writer: it is blocked before
//! (the profile's `input_before_tool: false`).

use super::{object, put, Parts};
use hookhost_types::{Runtime, VerdictKind};
use serde_json::Map;

pub(super) fn antigravity(p: &Parts, notes: &mut Vec<String>) -> String {
    let name = Runtime::Antigravity.event_name(p.event);
    let mut out = Map::new();
    let decision = match p.kind {
        VerdictKind::Halt => {
            notes.push(format!("Antigravity CLI has no answer that ends the session: {name} is denied instead"));
            Some("deny")
        }
        VerdictKind::Block => Some("deny"),
        VerdictKind::Ask => Some("force_ask"),
        VerdictKind::Allow => Some("allow"),
        VerdictKind::Pass => None,
    };
    if let Some(decision) = decision {
        put(&mut out, "decision", decision);
        match &p.reason {
            Some(r) => put(&mut out, "reason", r.clone()),
            None if decision == "deny" => put(&mut out, "reason", p.reason_or("blocked by a hook")),
            None => {}
        }
    }
    if !p.context.is_empty() {
        notes.push(format!("the added context is dropped: Antigravity CLI reads no context from a hook on {name}"));
    }
    if !p.notices.is_empty() {
        notes.push(format!("the message for the person is dropped: Antigravity CLI shows none from a hook on {name}"));
    }
    if p.result.is_some() {
        notes.push(format!("the rewritten tool output is dropped: Antigravity CLI takes none on {name}"));
    }
    if p.prompt.is_some() {
        notes.push(format!("the rewritten prompt is dropped: Antigravity CLI takes none on {name}"));
    }
    if p.summary.is_some() {
        notes.push(format!("the replacement summary is dropped: Antigravity CLI takes none on {name}"));
    }
    object(out)
}
