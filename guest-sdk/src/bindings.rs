//! The generated bindings and the conversions between them and the SDK's own types.
//! Nothing here is part of the public API; `export_hook!` is the only user.

use crate::{Compact, Context, Decision, Effect, Event, Hook, Stop, ToolCall, ToolResult, Verdict};
use serde_json::Value;

#[cfg(not(feature = "process"))]
wit_bindgen::generate!({
    path: "../wit/0.3.0",
    world: "hook",
    pub_export_macro: true,
    export_macro_name: "__export_hook_world",
    default_bindings_module: "hookhost_sdk::bindings",
});

// Plugins that run host processes (the bash adapter in host mode) import `process` too; the host
// lets them load only where `process:exec` is granted.
#[cfg(feature = "process")]
wit_bindgen::generate!({
    path: "../wit/0.3.0",
    world: "shell-hook",
    pub_export_macro: true,
    export_macro_name: "__export_hook_world",
    default_bindings_module: "hookhost_sdk::bindings",
});

use hookhost::hooks::types as wit;

fn parse(what: &str, text: &str) -> Result<Value, String> {
    serde_json::from_str(text).map_err(|e| format!("host sent invalid JSON in {what}: {e}"))
}

/// A lean build (`wasm32-unknown-unknown`) has no stderr, where std's panic message would go:
/// send it through `log` at error level instead, which the host adds to the trap it reports.
/// A fresh instance handles each call, so this runs once per instance.
#[cfg(all(target_arch = "wasm32", target_os = "unknown", feature = "panic-message"))]
fn report_panics() {
    use std::sync::Once;
    static ONCE: Once = Once::new();
    // "panicked at src/lib.rs:3:5:\nmessage", on one line.
    ONCE.call_once(|| std::panic::set_hook(Box::new(|info| hookhost::hooks::log::log(hookhost::hooks::log::Level::Error, &info.to_string().replace('\n', " ")))));
}

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown", feature = "panic-message")))]
fn report_panics() {}

/// Entry point behind `export_hook!` for `validate-settings`.
pub fn validate_settings<H: Hook>(settings: &str) -> Result<(), String> {
    report_panics();
    let value = if settings.trim().is_empty() { Value::Object(Default::default()) } else { parse("settings", settings)? };
    H::validate_settings(&value)
}

/// Entry point behind `export_hook!` for `handle`.
pub fn handle<H: Hook>(event: wit::Event, ctx: wit::Context) -> Result<wit::Decision, String> {
    report_panics();
    let event = event_from_wit(event)?;
    let ctx = context_from_wit(ctx)?;
    H::handle(event, ctx).map(decision_to_wit)
}

fn context_from_wit(c: wit::Context) -> Result<Context, String> {
    Ok(Context {
        settings: parse("settings", &c.settings)?,
        extra: parse("extra", &c.extra)?,
        hook_id: c.hook_id,
        session_id: c.session_id,
        turn_id: c.turn_id,
        agent_id: c.agent_id,
        org_id: c.org_id,
        ts: c.ts,
        cwd: c.cwd,
        runtime: c.runtime,
    })
}

fn call(c: wit::ToolCall) -> Result<ToolCall, String> {
    Ok(ToolCall { arguments: parse("arguments", &c.arguments)?, name: c.name, call_id: c.call_id })
}

fn result(r: wit::ToolResult) -> Result<ToolResult, String> {
    Ok(ToolResult {
        arguments: parse("arguments", &r.arguments)?,
        result: parse("output", &r.output)?,
        name: r.name,
        call_id: r.call_id,
        is_error: r.is_error,
    })
}

fn stop(s: wit::Stop) -> Stop {
    Stop { response: s.response, stop_hook_active: s.stop_hook_active, loop_count: s.loop_count }
}

fn compact(c: wit::Compact) -> Compact {
    Compact { trigger: c.trigger, summary: c.summary }
}

fn event_from_wit(e: wit::Event) -> Result<Event, String> {
    use wit::Event as W;
    Ok(match e {
        W::SessionStart(s) => Event::SessionStart { source: s.source },
        W::SessionEnd(s) => Event::SessionEnd { reason: s.reason },
        W::UserPromptSubmit(p) => Event::UserPromptSubmit { message: p.message },
        W::PreToolUse(c) => Event::PreToolUse(call(c)?),
        W::PermissionRequest(c) => Event::PermissionRequest(call(c)?),
        W::ToolResultTransform(r) => Event::ToolResultTransform(result(r)?),
        W::PostToolUse(r) => Event::PostToolUse(result(r)?),
        W::Stop(s) => Event::Stop(stop(s)),
        W::SubagentStop(s) => Event::SubagentStop(stop(s)),
        W::TurnStart => Event::TurnStart,
        W::TurnEnd(t) => Event::TurnEnd { success: t.success },
        W::BeforeModelCall(m) => Event::BeforeModelCall { request: parse("request", &m.request)?, model: m.model },
        W::AfterModelCall(m) => Event::AfterModelCall { response: parse("response", &m.response)?, model: m.model },
        W::PreCompact(c) => Event::PreCompact(compact(c)),
        W::PostCompact(c) => Event::PostCompact(compact(c)),
        W::Notification(n) => Event::Notification { message: n.message, kind: n.kind },
        W::Custom((name, data)) => Event::Custom { data: parse("custom data", &data)?, name },
    })
}

fn decision_to_wit(d: Decision) -> wit::Decision {
    let verdict = match d.verdict {
        Verdict::Pass => wit::Verdict::Pass,
        Verdict::Allow(r) => wit::Verdict::Allow(r),
        Verdict::Ask(r) => wit::Verdict::Ask(r),
        Verdict::Block { reason, user_message } => wit::Verdict::Block(wit::BlockInfo { reason, user_message }),
        Verdict::Halt(r) => wit::Verdict::Halt(r),
    };
    let effects = d
        .effects
        .into_iter()
        .map(|e| match e {
            Effect::RewriteInput(v) => wit::Effect::RewriteInput(v.to_string()),
            Effect::RewritePrompt(s) => wit::Effect::RewritePrompt(s),
            Effect::RewriteOutput(v) => wit::Effect::RewriteOutput(v.to_string()),
            Effect::AddContext(s) => wit::Effect::AddContext(s),
            Effect::NotifyUser(s) => wit::Effect::NotifyUser(s),
            Effect::Annotate(pairs) => wit::Effect::Annotate(pairs),
            Effect::ReplaceSummary(s) => wit::Effect::ReplaceSummary(s),
        })
        .collect();
    wit::Decision { verdict, effects }
}
