//! `hookhost:hooks@0.2.0`: its generated bindings and the conversions between them and
//! `hookhost-types`' values. 0.3.0 (`v0_3.rs`) only added an interface, so it maps its `types`,
//! `log` and `process` onto these bindings and these conversions serve it too; 0.1.0
//! (`v0_1.rs`) reuses these types where its shapes are the same and converts where they
//! differ, the way Zed's `since_v0_x_y.rs` modules build on its latest.

use hookhost_types::{Decision, Effect, EventName, HookEvent, Verdict, VerdictKind};
use serde_json::{Map, Value};

// The `shell-hook` world is the `hook` world plus the `process` import, so one set of
// bindings serves every plugin; who may call `process.run` is decided per plugin at load.
wasmtime::component::bindgen!({
    path: "../wit/0.2.0/hooks.wit",
    world: "shell-hook",
    imports: { "hookhost:hooks/process.run": async },
    exports: { default: async },
});

pub use exports::hookhost::hooks::handler::{Context, Decision as WitDecision};
pub use self::hookhost::hooks::{log, process};
use self::hookhost::hooks::types as t;
pub use t::Event as WitEvent;

/// `hookhost:hooks/<interface>@` this version: the one place the version is written.
macro_rules! interface {
    ($name:literal) => {
        concat!("hookhost:hooks/", $name, "@0.2.0")
    };
}

/// The WIT package (and version) of this module.
pub const PACKAGE: &str = "hookhost:hooks@0.2.0";
/// The exported interface name every hook plugin must have.
pub const HANDLER_EXPORT: &str = interface!("handler");
/// The interfaces hookhost provides to plugins (besides deny-by-default WASI).
pub const LOG_IMPORT: &str = interface!("log");
/// The shared types interface.
pub const TYPES_IMPORT: &str = interface!("types");
/// The process interface (capability `process:exec`).
pub const PROCESS_IMPORT: &str = interface!("process");

/// One invocation in this version's types: the event record and context a hook receives, and
/// what its answer is checked against. Dispatch sees only this, never the generated types.
pub struct Call {
    pub(crate) event: WitEvent,
    pub(crate) ctx: Context,
    name: EventName,
    payload: usize,
}

impl Call {
    /// The call of hook `hook_id` (with its settings) on `ev`.
    pub fn new(ev: &HookEvent, hook_id: &str, settings_json: &str, loop_count: u32) -> Call {
        let (event, ctx) = to_wit(ev, hook_id, settings_json, loop_count);
        // Everything the hook receives of the event: the record's strings and the fields it
        // does not name (`context.extra`).
        let payload = payload_len(&event) + ctx.extra.len();
        Call { event, ctx, name: ev.name.clone(), payload }
    }

    /// Bytes of event payload the hook receives.
    pub fn payload_len(&self) -> usize {
        self.payload
    }

    /// The record and context to pass, and what checks the answer (no copy of the payload).
    pub(crate) fn split(self) -> (WitEvent, Context, Check) {
        (self.event, self.ctx, Check { name: self.name, payload: self.payload })
    }
}

/// What a call's answer is checked against.
pub struct Check {
    name: EventName,
    payload: usize,
}

impl Check {
    /// The hook's answer as a checked [`Decision`]: effects the event does not honour,
    /// oversize or malformed decisions are refused with why.
    pub fn decision(&self, answer: WitDecision) -> Result<Decision, String> {
        from_wit(answer, &self.name, self.payload)
    }
}

/// Largest decision (sum of its strings) a hook may return, as the seed's 64 KiB output cap,
/// on top of what it may need to rewrite the event's own payload (see [`decision_cap`]).
pub const MAX_DECISION_BYTES: usize = 64 << 10;
/// Most effects one decision may carry, and most `annotate` pairs in all: a decision is a
/// handful of instructions, never a bulk channel.
pub const MAX_EFFECTS: usize = 64;
pub const MAX_ANNOTATIONS: usize = 64;

/// The byte cap on a decision for an event whose payload is `payload` bytes: the 64 KiB
/// allowance plus twice the payload, so a rewrite of the event's own payload (a redactor's
/// masks may be longer than what they replace) is never refused for being as large as that
/// payload.
pub fn decision_cap(payload: usize) -> usize {
    MAX_DECISION_BYTES.saturating_add(payload.saturating_mul(2))
}

/// Bytes of the event's payload as a hook receives it: the strings of the WIT event record.
pub fn payload_len(event: &WitEvent) -> usize {
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    match event {
        WitEvent::SessionStart(s) => opt(&s.source),
        WitEvent::SessionEnd(s) => opt(&s.reason),
        WitEvent::UserPromptSubmit(p) => p.message.len(),
        WitEvent::PreToolUse(c) | WitEvent::PermissionRequest(c) => c.name.len() + c.call_id.len() + c.arguments.len(),
        WitEvent::PostToolUse(r) | WitEvent::ToolResultTransform(r) => r.name.len() + r.call_id.len() + r.arguments.len() + r.output.len(),
        WitEvent::Stop(s) | WitEvent::SubagentStop(s) => opt(&s.response),
        WitEvent::TurnStart => 0,
        WitEvent::TurnEnd(_) => 0,
        WitEvent::BeforeModelCall(m) => opt(&m.model) + m.request.len(),
        WitEvent::AfterModelCall(m) => opt(&m.model) + m.response.len(),
        WitEvent::PreCompact(c) | WitEvent::PostCompact(c) => opt(&c.trigger) + opt(&c.summary),
        WitEvent::Notification(n) => n.message.len() + opt(&n.kind),
        WitEvent::Custom((name, data)) => name.len() + data.len(),
    }
}

/// Take a string field out of event data.
fn text(data: &mut Map<String, Value>, key: &str) -> Option<String> {
    match data.remove(key)? {
        Value::String(s) => Some(s),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

/// Take a JSON field out of event data, as JSON text (`default` when absent).
fn json(data: &mut Map<String, Value>, key: &str, default: &str) -> String {
    data.remove(key).map(|v| v.to_string()).unwrap_or_else(|| default.to_string())
}

fn flag(data: &mut Map<String, Value>, key: &str) -> bool {
    data.remove(key).and_then(|v| v.as_bool()).unwrap_or(false)
}

/// Build the WIT event and context for one hook. Data fields the event record does not name
/// go to `context.extra`.
pub fn to_wit(ev: &HookEvent, hook_id: &str, settings_json: &str, loop_count: u32) -> (WitEvent, Context) {
    // The fields the event record names are taken out of a copy; what is left is `extra`.
    let mut d = ev.data.clone();
    let call = |d: &mut Map<String, Value>| t::ToolCall {
        name: text(d, "tool_name").unwrap_or_default(),
        call_id: text(d, "tool_call_id").unwrap_or_default(),
        arguments: json(d, "arguments", "{}"),
    };
    let result = |d: &mut Map<String, Value>| t::ToolResult {
        name: text(d, "tool_name").unwrap_or_default(),
        call_id: text(d, "tool_call_id").unwrap_or_default(),
        arguments: json(d, "arguments", "{}"),
        output: json(d, "result", "null"),
        is_error: flag(d, "is_error"),
    };
    let stop = |d: &mut Map<String, Value>| t::Stop {
        response: text(d, "response"),
        stop_hook_active: flag(d, "stop_hook_active") || loop_count > 0,
        loop_count,
    };
    let compact = |d: &mut Map<String, Value>| t::Compact { trigger: text(d, "trigger"), summary: text(d, "summary") };
    let event = match &ev.name {
        EventName::SessionStart => WitEvent::SessionStart(t::SessionStart { source: text(&mut d, "source") }),
        EventName::SessionEnd => WitEvent::SessionEnd(t::SessionEnd { reason: text(&mut d, "reason") }),
        EventName::UserPromptSubmit => WitEvent::UserPromptSubmit(t::Prompt { message: text(&mut d, "message").unwrap_or_default() }),
        EventName::PreToolUse => WitEvent::PreToolUse(call(&mut d)),
        EventName::PermissionRequest => WitEvent::PermissionRequest(call(&mut d)),
        EventName::ToolResultTransform => WitEvent::ToolResultTransform(result(&mut d)),
        EventName::PostToolUse => WitEvent::PostToolUse(result(&mut d)),
        EventName::Stop => WitEvent::Stop(stop(&mut d)),
        EventName::SubagentStop => WitEvent::SubagentStop(stop(&mut d)),
        EventName::TurnStart => WitEvent::TurnStart,
        EventName::TurnEnd => WitEvent::TurnEnd(t::TurnEnd { success: d.remove("success").and_then(|v| v.as_bool()).unwrap_or(true) }),
        EventName::BeforeModelCall => WitEvent::BeforeModelCall(t::ModelCall { model: text(&mut d, "model"), request: json(&mut d, "request", "null") }),
        EventName::AfterModelCall => WitEvent::AfterModelCall(t::ModelResponse { model: text(&mut d, "model"), response: json(&mut d, "response", "null") }),
        EventName::PreCompact => WitEvent::PreCompact(compact(&mut d)),
        EventName::PostCompact => WitEvent::PostCompact(compact(&mut d)),
        EventName::Notification => WitEvent::Notification(t::Notice { message: text(&mut d, "message").unwrap_or_default(), kind: text(&mut d, "kind") }),
        EventName::Custom(name) => WitEvent::Custom((name.clone(), Value::Object(std::mem::take(&mut d)).to_string())),
    };
    let ctx = Context {
        hook_id: hook_id.to_string(),
        session_id: ev.session_id.clone(),
        turn_id: ev.turn_id.clone(),
        agent_id: ev.agent_id.clone(),
        org_id: ev.org_id.clone(),
        ts: ev.ts.clone(),
        cwd: ev.cwd.clone(),
        settings: settings_json.to_string(),
        extra: Value::Object(d).to_string(),
        runtime: ev.runtime.map(|r| r.name().to_string()),
    };
    (event, ctx)
}

fn parse_json(effect: &str, text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| format!("{effect} carries invalid JSON: {e}"))
}

fn decision_size(d: &WitDecision) -> usize {
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    let verdict = match &d.verdict {
        t::Verdict::Pass => 0,
        t::Verdict::Allow(r) | t::Verdict::Ask(r) | t::Verdict::Halt(r) => opt(r),
        t::Verdict::Block(b) => opt(&b.reason) + opt(&b.user_message),
    };
    verdict
        + d.effects
            .iter()
            .map(|e| match e {
                t::Effect::RewriteInput(s)
                | t::Effect::RewritePrompt(s)
                | t::Effect::RewriteOutput(s)
                | t::Effect::AddContext(s)
                | t::Effect::NotifyUser(s)
                | t::Effect::ReplaceSummary(s) => s.len(),
                t::Effect::Annotate(pairs) => pairs.iter().map(|(k, v)| k.len() + v.len()).sum(),
            })
            .sum::<usize>()
}

/// Check and convert a guest's decision for this event, whose payload is `payload` bytes.
/// Errors are executor errors: an oversized decision (bytes or element count), invalid JSON,
/// or an effect the event does not accept.
pub fn from_wit(d: WitDecision, event: &EventName, payload: usize) -> Result<Decision, String> {
    if d.effects.len() > MAX_EFFECTS {
        return Err(format!("decision carries {} effects, over the cap of {MAX_EFFECTS}", d.effects.len()));
    }
    let pairs: usize = d.effects.iter().map(|e| if let t::Effect::Annotate(p) = e { p.len() } else { 0 }).sum();
    if pairs > MAX_ANNOTATIONS {
        return Err(format!("decision carries {pairs} annotations, over the cap of {MAX_ANNOTATIONS}"));
    }
    let size = decision_size(&d);
    let cap = decision_cap(payload);
    if size > cap {
        return Err(format!("decision is {size} bytes, over the {cap}-byte cap (64 KiB plus twice the event's {payload}-byte payload)"));
    }
    let verdict = match d.verdict {
        t::Verdict::Pass => Verdict::pass(),
        t::Verdict::Allow(reason) => Verdict { kind: VerdictKind::Allow, reason, user_message: None },
        t::Verdict::Ask(reason) => Verdict { kind: VerdictKind::Ask, reason, user_message: None },
        t::Verdict::Block(b) => Verdict { kind: VerdictKind::Block, reason: b.reason, user_message: b.user_message },
        t::Verdict::Halt(reason) => Verdict { kind: VerdictKind::Halt, reason, user_message: None },
    };
    let mut effects = Vec::with_capacity(d.effects.len());
    for e in d.effects {
        let effect = match e {
            t::Effect::RewriteInput(s) => {
                let arguments = parse_json("rewrite-input", &s)?;
                if !arguments.is_object() {
                    return Err("rewrite-input must carry a JSON object (the new tool arguments)".into());
                }
                Effect::RewriteInput { arguments }
            }
            t::Effect::RewritePrompt(message) => Effect::RewritePrompt { message },
            t::Effect::RewriteOutput(s) => Effect::RewriteOutput { result: parse_json("rewrite-output", &s)? },
            t::Effect::AddContext(text) => Effect::AddContext { text },
            t::Effect::NotifyUser(text) => Effect::NotifyUser { text },
            t::Effect::Annotate(pairs) => Effect::Annotate { pairs },
            t::Effect::ReplaceSummary(summary) => Effect::ReplaceSummary { summary },
        };
        if !event.honours(effect.kind()) {
            return Err(format!("effect {} is not valid on {event}", effect.name()));
        }
        effects.push(effect);
    }
    Ok(Decision { verdict, effects })
}
