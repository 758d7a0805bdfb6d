//! The shell-hook dialects: how each delivers the event to a script, in the shape and field
//! names its runtime's profile gives (`hookhost_types::runtime`: [`Payload`], each written from
//! the runtime's hooks reference it cites), and how a run ended. Reading the script's result is
//! `verdict.rs`. Pure functions, tested natively.

use hookhost_sdk::{Context, Event, Value};
use hookhost_types::runtime::{EnvValue, Fields, Payload};
use serde_json::Map;

/// Which runtime's wire format a hook speaks: a [`hookhost_types::Runtime`], normalised to its
/// shell dialect (a Codex hook speaks Claude Code's: [`hookhost_types::Runtime::dialect`]).
pub use hookhost_types::Runtime as Dialect;

/// The event's name in `dialect` (from the runtime's events table, `hookhost_types::runtime`).
pub fn event_name(dialect: Dialect, event: &Event) -> String {
    let canonical = hookhost_types::EventName::from_canonical(event.name()).unwrap_or_else(|| hookhost_types::EventName::Custom(event.name().to_string()));
    dialect.event_name(&canonical)
}

/// How the script receives the event.
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// The payload JSON (also what goes on stdin for stdin dialects).
    pub json: String,
    /// Variables the dialect sets (besides the hook's own `env`).
    pub env: Vec<(String, String)>,
    /// Whether the JSON goes to stdin.
    pub stdin: bool,
    /// The variable that names the payload file, for dialects that have one.
    pub file_var: Option<&'static str>,
}

fn put(map: &mut Map<String, Value>, key: &str, value: impl Into<Value>) {
    map.insert(key.to_string(), value.into());
}

fn put_opt(map: &mut Map<String, Value>, key: &str, value: &Option<String>) {
    if let Some(v) = value {
        put(map, key, v.clone());
    }
}

/// Canonical `data` of an event (hookhost's envelope), with the unnamed extra fields merged.
fn everruns_data(event: &Event, ctx: &Context) -> Map<String, Value> {
    let mut d = Map::new();
    match event {
        Event::PreToolUse(c) | Event::PermissionRequest(c) => {
            put(&mut d, "tool_name", c.name.clone());
            put(&mut d, "tool_call_id", c.call_id.clone());
            put(&mut d, "arguments", c.arguments.clone());
        }
        Event::PostToolUse(r) | Event::ToolResultTransform(r) => {
            put(&mut d, "tool_name", r.name.clone());
            put(&mut d, "tool_call_id", r.call_id.clone());
            put(&mut d, "arguments", r.arguments.clone());
            put(&mut d, "result", r.result.clone());
            put(&mut d, "is_error", r.is_error);
        }
        Event::UserPromptSubmit { message } => put(&mut d, "message", message.clone()),
        Event::SessionStart { source } => put_opt(&mut d, "source", source),
        Event::SessionEnd { reason } => put_opt(&mut d, "reason", reason),
        Event::TurnEnd { success } => put(&mut d, "success", *success),
        Event::Stop(s) | Event::SubagentStop(s) => {
            put_opt(&mut d, "response", &s.response);
            put(&mut d, "stop_hook_active", s.stop_hook_active);
            put(&mut d, "loop_count", s.loop_count);
        }
        Event::PreCompact(c) | Event::PostCompact(c) => {
            put_opt(&mut d, "trigger", &c.trigger);
            put_opt(&mut d, "summary", &c.summary);
        }
        Event::Notification { message, kind } => {
            put(&mut d, "message", message.clone());
            put_opt(&mut d, "kind", kind);
        }
        Event::BeforeModelCall { model, request } => {
            put_opt(&mut d, "model", model);
            put(&mut d, "request", request.clone());
        }
        Event::AfterModelCall { model, response } => {
            put_opt(&mut d, "model", model);
            put(&mut d, "response", response.clone());
        }
        Event::TurnStart => {}
        Event::Custom { data, .. } => {
            if let Some(obj) = data.as_object() {
                d.extend(obj.clone());
            }
        }
    }
    merge_extra(&mut d, ctx);
    d
}

fn merge_extra(d: &mut Map<String, Value>, ctx: &Context) {
    if let Some(extra) = ctx.extra.as_object() {
        for (k, v) in extra {
            d.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
}

/// A flat stdin payload (Claude Code's shape and its kin), in the field names of `fields`
/// (the dialect's profile: [`hookhost_types::runtime::Fields`]).
fn flat(dialect: Dialect, fields: &Fields, event: &Event, ctx: &Context) -> Map<String, Value> {
    let mut p = Map::new();
    put(&mut p, fields.event, event_name(dialect, event));
    put(&mut p, fields.session_id, ctx.session_id.clone());
    put(&mut p, "cwd", ctx.cwd.clone().unwrap_or_else(|| ".".into()));
    if fields.agent_id {
        put_opt(&mut p, "agent_id", &ctx.agent_id);
    }
    if fields.timestamp {
        put(&mut p, "timestamp", ctx.ts.clone());
    }
    match event {
        Event::PreToolUse(c) | Event::PermissionRequest(c) => {
            put(&mut p, "tool_name", c.name.clone());
            put(&mut p, "tool_input", c.arguments.clone());
            if let Some(key) = fields.tool_call_id {
                put(&mut p, key, c.call_id.clone());
            }
        }
        Event::PostToolUse(r) | Event::ToolResultTransform(r) => {
            put(&mut p, "tool_name", r.name.clone());
            put(&mut p, "tool_input", r.arguments.clone());
            put(&mut p, fields.result, r.result.clone());
            if let Some(key) = fields.tool_call_id {
                put(&mut p, key, r.call_id.clone());
            }
            if let Some(key) = fields.tool_error {
                put(&mut p, key, r.is_error);
            }
        }
        Event::UserPromptSubmit { message } => put(&mut p, fields.prompt, message.clone()),
        Event::SessionStart { source } => put_opt(&mut p, "source", source),
        Event::SessionEnd { reason } => put_opt(&mut p, "reason", reason),
        Event::Stop(s) | Event::SubagentStop(s) => {
            put(&mut p, "stop_hook_active", s.stop_hook_active);
            put_opt(&mut p, fields.response, &s.response);
        }
        Event::PreCompact(c) | Event::PostCompact(c) => {
            put_opt(&mut p, "trigger", &c.trigger);
            put_opt(&mut p, "summary", &c.summary);
        }
        Event::Notification { message, kind } => {
            put(&mut p, "message", message.clone());
            put_opt(&mut p, "notification_type", kind);
        }
        Event::BeforeModelCall { request, .. } if fields.model_payloads => put(&mut p, "llm_request", request.clone()),
        Event::AfterModelCall { response, .. } if fields.model_payloads => put(&mut p, "llm_response", response.clone()),
        Event::BeforeModelCall { model, .. } | Event::AfterModelCall { model, .. } => put_opt(&mut p, "model_id", model),
        Event::TurnEnd { success } => put(&mut p, "success", *success),
        Event::TurnStart => {}
        Event::Custom { data, .. } => {
            if let Some(obj) = data.as_object() {
                for (k, v) in obj {
                    p.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
    }
    merge_extra(&mut p, ctx);
    p
}

/// Build what the script receives, in the shape the dialect's profile gives
/// ([`Payload`]). `project_dir` is the hook's working directory.
pub fn deliver(dialect: Dialect, event: &Event, ctx: &Context, project_dir: &str) -> Delivery {
    match &dialect.profile().payload {
        Payload::Envelope => everruns(event, ctx),
        Payload::Flat(fields) => {
            let json = Value::Object(flat(dialect, fields, event, ctx)).to_string();
            let env = fields
                .env
                .iter()
                .map(|(name, value)| {
                    let value = match value {
                        EnvValue::ProjectDir => project_dir.to_string(),
                        EnvValue::SessionId => ctx.session_id.clone(),
                        EnvValue::Cwd => ctx.cwd.clone().unwrap_or_else(|| project_dir.to_string()),
                    };
                    (name.to_string(), value)
                })
                .collect();
            Delivery { json, env, stdin: true, file_var: None }
        }
        Payload::Camel(_) if dialect == Dialect::Antigravity => Delivery { json: Value::Object(antigravity(event, ctx)).to_string(), env: Vec::new(), stdin: true, file_var: None },
        Payload::Camel(_) => Delivery { json: Value::Object(copilot(event, ctx)).to_string(), env: Vec::new(), stdin: true, file_var: None },
    }
}

/// Everruns' delivery (its user_hooks capability, "Payload"): hookhost's own envelope in
/// `EVERRUNS_HOOK_PAYLOAD_JSON` (and a file named by `EVERRUNS_HOOK_PAYLOAD_PATH`), with the
/// convenience scalars beside it.
fn everruns(event: &Event, ctx: &Context) -> Delivery {
    let mut env = Map::new();
    put(&mut env, "event", event.name().to_string());
    put(&mut env, "hook_id", ctx.hook_id.clone());
    put(&mut env, "session_id", ctx.session_id.clone());
    put_opt(&mut env, "turn_id", &ctx.turn_id);
    put_opt(&mut env, "org_id", &ctx.org_id);
    put_opt(&mut env, "agent_id", &ctx.agent_id);
    put(&mut env, "ts", ctx.ts.clone());
    put_opt(&mut env, "cwd", &ctx.cwd);
    put(&mut env, "data", Value::Object(everruns_data(event, ctx)));
    let json = Value::Object(env).to_string();
    let mut vars = vec![
        ("EVERRUNS_HOOK_PAYLOAD_JSON".to_string(), json.clone()),
        ("EVERRUNS_HOOK_EVENT".to_string(), event.name().to_string()),
        ("EVERRUNS_HOOK_ID".to_string(), ctx.hook_id.clone()),
        ("EVERRUNS_HOOK_SESSION_ID".to_string(), ctx.session_id.clone()),
    ];
    if let Some(turn) = &ctx.turn_id {
        vars.push(("EVERRUNS_HOOK_TURN_ID".into(), turn.clone()));
    }
    let call = match event {
        Event::PreToolUse(c) | Event::PermissionRequest(c) => Some((c.name.clone(), c.call_id.clone())),
        Event::PostToolUse(r) | Event::ToolResultTransform(r) => Some((r.name.clone(), r.call_id.clone())),
        _ => None,
    };
    if let Some((name, id)) = call {
        vars.push(("EVERRUNS_HOOK_TOOL_NAME".into(), name));
        vars.push(("EVERRUNS_HOOK_TOOL_CALL_ID".into(), id));
    }
    Delivery { json, env: vars, stdin: false, file_var: Some("EVERRUNS_HOOK_PAYLOAD_PATH") }
}

/// GitHub Copilot CLI's camelCase payload (its hooks reference, "Hook event input payloads"):
/// no event name, a millisecond `timestamp`, the event's own fields.
fn copilot(event: &Event, ctx: &Context) -> Map<String, Value> {
    let mut p = Map::new();
    put(&mut p, "sessionId", ctx.session_id.clone());
    put(&mut p, "timestamp", hookhost_types::time::unix_millis(&ctx.ts).unwrap_or(0));
    put(&mut p, "cwd", ctx.cwd.clone().unwrap_or_default());
    match event {
        Event::PreToolUse(c) | Event::PermissionRequest(c) => {
            put(&mut p, "toolName", c.name.clone());
            put(&mut p, "toolArgs", c.arguments.clone());
        }
        Event::PostToolUse(r) | Event::ToolResultTransform(r) => {
            put(&mut p, "toolName", r.name.clone());
            put(&mut p, "toolArgs", r.arguments.clone());
            let text = match &r.result {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            put(&mut p, "toolResult", serde_json::json!({"resultType": if r.is_error { "failure" } else { "success" }, "textResultForLlm": text}));
        }
        // hookhost's prompt event is Copilot's userPromptTransformed: the content the model gets.
        Event::UserPromptSubmit { message } => {
            put(&mut p, "prompt", ctx.extra.get("user_prompt").and_then(Value::as_str).unwrap_or(message).to_string());
            put(&mut p, "transformedPrompt", message.clone());
        }
        Event::SessionStart { source } => put_opt(&mut p, "source", source),
        Event::SessionEnd { reason } => put_opt(&mut p, "reason", reason),
        Event::Stop(s) | Event::SubagentStop(s) => {
            put(&mut p, "stopReason", "end_turn");
            put(&mut p, "stop_hook_active", s.stop_hook_active);
            put_opt(&mut p, "response", &s.response);
        }
        Event::PreCompact(c) | Event::PostCompact(c) => put_opt(&mut p, "trigger", &c.trigger),
        Event::Notification { message, kind } => {
            put(&mut p, "hook_event_name", "Notification");
            put(&mut p, "message", message.clone());
            put_opt(&mut p, "notification_type", kind);
        }
        Event::Custom { data, .. } => {
            if let Some(obj) = data.as_object() {
                for (k, v) in obj {
                    p.entry(camel(k)).or_insert_with(|| v.clone());
                }
            }
        }
        Event::TurnStart | Event::TurnEnd { .. } | Event::BeforeModelCall { .. } | Event::AfterModelCall { .. } => {}
    }
    if let Some(extra) = ctx.extra.as_object() {
        for (k, v) in extra.iter().filter(|(k, _)| k.as_str() != "user_prompt") {
            p.entry(camel(k)).or_insert_with(|| v.clone());
        }
    }
    p
}

/// Antigravity CLI's camelCase payload (`hookhost_types`' `runtime/antigravity.rs`): the
/// conversation, the workspace, and the tool call with its arguments (a shell command as
/// `CommandLine`, the name agy's shell tool gives it); after a tool, `error` when it failed.
/// Events with no tool call carry the conversation and workspace only.
fn antigravity(event: &Event, ctx: &Context) -> Map<String, Value> {
    let mut p = Map::new();
    put(&mut p, "conversationId", ctx.session_id.clone());
    put(&mut p, "workspacePaths", vec![Value::String(ctx.cwd.clone().unwrap_or_default())]);
    let call = |name: &str, arguments: &Value| {
        let mut args = arguments.clone();
        if let Some(obj) = args.as_object_mut().filter(|o| !o.contains_key("CommandLine")) {
            if let Some(command) = obj.remove("command") {
                obj.insert("CommandLine".into(), command);
            }
        }
        serde_json::json!({"name": name, "args": args})
    };
    match event {
        Event::PreToolUse(c) | Event::PermissionRequest(c) => put(&mut p, "toolCall", call(&c.name, &c.arguments)),
        Event::PostToolUse(r) | Event::ToolResultTransform(r) => {
            put(&mut p, "toolCall", call(&r.name, &r.arguments));
            let error = match (&r.result, r.is_error) {
                (Value::String(s), true) => Value::String(s.clone()),
                (other, true) => Value::String(other.to_string()),
                (_, false) => Value::Null,
            };
            put(&mut p, "error", error);
        }
        _ => {}
    }
    p
}

/// `transcript_path` → `transcriptPath` (`notification_type` and `stop_hook_active` stay: Copilot
/// sends them in snake_case).
fn camel(key: &str) -> String {
    if matches!(key, "notification_type" | "stop_hook_active" | "hook_event_name") {
        return key.to_string();
    }
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        match (c, upper) {
            ('_', _) => upper = true,
            (c, true) => {
                out.push(c.to_ascii_uppercase());
                upper = false;
            }
            (c, false) => out.push(c),
        }
    }
    out
}

/// How the script's run ended, whatever ran it.
#[derive(Debug, Clone, PartialEq)]
pub enum Exit {
    /// It exited with this status.
    Code(i32),
    /// A signal ended it.
    Signal(i32),
    /// Its deadline stopped it.
    TimedOut,
    /// The script or its interpreter could not be started.
    StartFailed(String),
    /// stdout+stderr went over 64 KiB.
    Overflow,
}

/// A finished run.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// How it ended.
    pub exit: Exit,
    /// What it wrote on stdout.
    pub stdout: String,
    /// What it wrote on stderr.
    pub stderr: String,
}

impl Run {
    /// A run that exited with `code`.
    pub fn new(code: i32, stdout: &str, stderr: &str) -> Run {
        Run { exit: Exit::Code(code), stdout: stdout.into(), stderr: stderr.into() }
    }
}

/// A shell's "could not start this" results: 126 (not executable), 127 (not found), and an
/// interpreter's exit 2 for a script file that does not exist (python3, bash), so a missing
/// script is never mistaken for exit-2 "block".
pub fn start_failure_of(run: &Run) -> Option<String> {
    let first = run.stderr.lines().next().unwrap_or("").trim();
    match run.exit {
        Exit::StartFailed(ref why) => Some(why.clone()),
        Exit::Code(126 | 127) => Some(format!("could not start the hook command: {first}")),
        Exit::Code(2) if first.contains("can't open file") || first.ends_with(": No such file or directory") => Some(format!("could not start the hook command: {first}")),
        _ => None,
    }
}
