//! GitHub Copilot CLI, from its hooks reference (github/docs
//! `content/copilot/reference/hooks-reference.md`, "Hook events", "Hook event input payloads",
//! "Matcher filtering"): camelCase event names, and input that names no event (hookhost infers
//! it from the fields, or takes it from `hookhost run --event-name`). A prompt reaches the model
//! through `userPromptTransformed`, the one prompt event whose command-hook output Copilot reads
//! (`userPromptSubmitted`'s is dropped): hookhost's prompt event is that one.

use super::{event, Answer, CamelReader, Install, Layout, Managed, MatchOn as On, Naming, Payload, Profile, Rewrite, Runtime};
use crate::event::EventName as E;
use serde_json::{Map, Value};

pub(super) const PROFILE: Profile = Profile {
    name: "copilot",
    title: "GitHub Copilot CLI",
    reference: "https://docs.github.com/en/copilot/reference/hooks-reference",
    events: &[
        event("preToolUse", Some(E::PreToolUse), On::Tool),
        event("permissionRequest", Some(E::PermissionRequest), On::Tool),
        event("postToolUse", Some(E::PostToolUse), On::Tool),
        event("postToolUseFailure", None, On::Field("tool_name")),
        event("userPromptTransformed", Some(E::UserPromptSubmit), On::Nothing),
        event("userPromptSubmitted", None, On::Nothing),
        event("sessionStart", Some(E::SessionStart), On::Nothing),
        event("sessionEnd", Some(E::SessionEnd), On::Nothing),
        event("agentStop", Some(E::Stop), On::Nothing),
        event("subagentStart", None, On::Field("agent_name")),
        event("subagentStop", Some(E::SubagentStop), On::Nothing),
        event("preCompact", Some(E::PreCompact), On::Field("trigger")),
        event("notification", Some(E::Notification), On::Field("kind")),
        event("errorOccurred", None, On::Nothing),
    ],
    naming: Naming::Camel,
    config_dir: Some(".github"),
    config_files: &[".github/hooks/*.json", "~/.copilot/hooks/*.json"],
    config_syntax: Some(Runtime::Copilot),
    dialect: Runtime::Copilot,
    payload: Payload::Camel(CamelReader { infer, normalise }),
    // It denies a tool call whose preToolUse hook exits non-zero: an error that must not block
    // is exit 0 with nothing on stdout.
    answer: Some(Answer { soft_error_exit: 0, nothing: "", input_before_tool: true, input_on_permission: Rewrite::No, prompt_rewrite: true }),
    project_hooks: None,
    install: Some(Install {
        program: "copilot",
        home: ".copilot",
        home_vars: &[],
        user_file: "hooks/hookhost.json",
        project_file: Ok(".github/hooks/hookhost.json"),
        managed: Managed { unix: Err(NO_MANAGED), macos: Err(NO_MANAGED), windows: Err(NO_MANAGED) },
        events: &[("preToolUse", None), ("permissionRequest", None), ("postToolUse", None), ("userPromptTransformed", None), ("agentStop", None)],
        layout: Layout::Handlers { version: 1, key: "bash", fail_closed: false },
        http: Err("GitHub Copilot CLI's http hooks must use https:// before a tool (and reach 127.0.0.1 only with COPILOT_HOOK_ALLOW_LOCALHOST=1), so they cannot reach hookhost serve: use --wiring send"),
        mcp: Err("GitHub Copilot CLI hooks are commands (and https hooks) only: use --wiring send (a thin client per event) or command"),
    }),
};

const NO_MANAGED: &str = "GitHub Copilot CLI has no managed hook settings in a file: wire it at --scope user for each user (or --scope project in each repository)";

/// The Copilot event a camelCase payload's fields say it is, where they say one: each event
/// has a field no other has, but `preToolUse` and `permissionRequest` share theirs (a
/// `toolName` payload is read as `preToolUse` unless the hook's configuration names it).
fn infer(obj: &Map<String, Value>) -> Option<&'static str> {
    if !obj.contains_key("sessionId") {
        return None;
    }
    let has = |k: &str| obj.contains_key(k);
    Some(match () {
        _ if has("transformedPrompt") => "userPromptTransformed",
        _ if has("prompt") => "userPromptSubmitted",
        _ if has("toolResult") => "postToolUse",
        _ if has("toolName") && obj.get("error").is_some_and(Value::is_string) => "postToolUseFailure",
        _ if has("toolName") => "preToolUse",
        _ if has("notification_type") => "notification",
        _ if has("errorContext") => "errorOccurred",
        _ if has("customInstructions") || has("trigger") => "preCompact",
        _ if has("agentName") && has("stopReason") => "subagentStop",
        _ if has("agentName") => "subagentStart",
        _ if has("stopReason") => "agentStop",
        _ if has("source") => "sessionStart",
        _ if has("reason") => "sessionEnd",
        _ => return None,
    })
}

/// The payload in hookhost's field names: `toolArgs` → `arguments` (parsed when it is JSON
/// text), `toolResult.textResultForLlm` → `result` (and `is_error` unless `resultType` is
/// `success`), a transformed prompt → `message` (what the model will receive; the user's own
/// stays as `user_prompt`), a millisecond `timestamp` → `ts`, `notification_type` → `kind`,
/// every other key in snake_case.
fn normalise(obj: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    let transformed = obj.contains_key("transformedPrompt");
    for (key, value) in obj {
        match key.as_str() {
            "toolArgs" => {
                let args = match value {
                    // Read as leniently as the payload around it (a lone surrogate in an
                    // argument must not turn the arguments into one opaque string).
                    Value::String(text) => crate::json::parse(&text).unwrap_or(Value::String(text)),
                    other => other,
                };
                out.insert("arguments".into(), args);
            }
            "toolResult" => {
                let kind = value.get("resultType").and_then(Value::as_str).unwrap_or("success");
                out.insert("is_error".into(), (kind != "success").into());
                let text = value.get("textResultForLlm").cloned().unwrap_or(value);
                out.insert("result".into(), text);
            }
            "timestamp" => match value.as_u64() {
                Some(ms) => {
                    out.insert("ts".into(), crate::time::rfc3339(std::time::Duration::from_millis(ms)).into());
                }
                None => {
                    out.insert("timestamp".into(), value);
                }
            },
            "prompt" if transformed => {
                out.insert("user_prompt".into(), value);
            }
            "transformedPrompt" | "prompt" => {
                out.insert("message".into(), value);
            }
            "notification_type" => {
                out.insert("kind".into(), value);
            }
            other => {
                out.insert(snake(other), value);
            }
        }
    }
    out
}

/// `toolName` → `tool_name`.
pub(super) fn snake(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

