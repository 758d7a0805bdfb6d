//! The JSON envelope an event arrives in: [`HookEvent`], read from Everruns' envelope
//! (<https://docs.everruns.com/capabilities/user-hooks/>) or any runtime's payload, in the shape
//! and field names its profile gives ([`crate::runtime`]).

use crate::event::EventName;
use crate::runtime::{CamelReader, Fields, Payload, Runtime};
use serde_json::{Map, Value};

/// One event as the host sees it: the Everruns envelope, with `data` holding the
/// event-specific fields (`tool_name`, `tool_call_id`, `arguments`, `message`, `result`, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct HookEvent {
    /// Which event.
    pub name: EventName,
    /// The session it belongs to.
    pub session_id: String,
    /// The turn, when the runtime has turns.
    pub turn_id: Option<String>,
    /// The agent.
    pub agent_id: Option<String>,
    /// The organisation.
    pub org_id: Option<String>,
    /// When it happened (RFC 3339).
    pub ts: String,
    /// The working directory.
    pub cwd: Option<String>,
    /// The event-specific fields (`tool_name`, `arguments`, `message`, `result`, ...).
    pub data: Map<String, Value>,
    /// The agent runtime that sent it, when the caller knows (`hookhost run --output`,
    /// `serve`'s per-runtime paths); hooks built against `hookhost:hooks@0.2.0` see it.
    pub runtime: Option<Runtime>,
}

/// Why an event input could not be read.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum EventError {
    /// Not JSON.
    #[error("event is not valid JSON: {0}")]
    Json(String),
    #[error("event must be a JSON object, found {0}")]
    /// Not a JSON object.
    NotObject(&'static str),
    #[error("event has no name: set \"event\" (canonical, e.g. \"pre_tool_use\") or \"hook_event_name\"")]
    /// No event name.
    NoName,
    #[error("the event names no event, and its fields do not say which (GitHub Copilot CLI's payloads name none): pass the name its hook is configured under, `hookhost run --event-name NAME` (preToolUse, permissionRequest, postToolUse, userPromptTransformed, agentStop, ...)")]
    /// A camelCase (GitHub Copilot CLI) event whose fields do not say which event it is.
    Unnamed,
    #[error("unknown event \"{name}\": use one of {known} (or \"custom:<name>\" for an event hookhost does not define)")]
    /// A name hookhost does not know.
    UnknownName {
        /// The name given.
        name: String,
        /// The names it knows.
        known: String,
    },
    #[error("the event nests values deeper than {limit} levels, which hookhost does not read; no runtime sends such arguments, so the event is judged unreadable")]
    /// Nested deeper than hookhost reads ([`crate::json::MAX_DEPTH`]).
    TooDeep {
        /// The deepest nesting read.
        limit: usize,
    },
    #[error("field \"{field}\" must be {expected}")]
    /// A field of the wrong type.
    BadField {
        /// The field.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
}

/// An event that could not be read: why, and as much of it as was (its name, session and tool),
/// when that much was.
#[derive(Debug, Clone, PartialEq)]
pub struct Unreadable {
    /// Why.
    pub error: EventError,
    /// What was read of it, when its name was.
    pub event: Option<Box<HookEvent>>,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for Unreadable {}

impl HookEvent {
    /// A `pre_tool_use` event for `tool` with these arguments (tests and examples).
    pub fn pre_tool_use(tool: &str, arguments: Value) -> Self {
        let mut data = Map::new();
        data.insert("tool_name".into(), tool.into());
        data.insert("tool_call_id".into(), "call_1".into());
        data.insert("arguments".into(), arguments);
        Self::new(EventName::PreToolUse, data)
    }

    /// An event with this name and data and placeholder ids.
    pub fn new(name: EventName, data: Map<String, Value>) -> Self {
        HookEvent {
            name,
            session_id: "ses_local".into(),
            turn_id: None,
            agent_id: None,
            org_id: None,
            ts: crate::time::now_rfc3339(),
            cwd: None,
            data,
            runtime: None,
        }
    }

    /// Parse an event from JSON text (see [`HookEvent::from_value`]).
    pub fn from_json(text: &str) -> Result<Self, EventError> {
        let value: Value = serde_json::from_str(text).map_err(|e| EventError::Json(e.to_string()))?;
        Self::from_value(value)
    }

    /// Read an event from whatever bytes a runtime sent (see [`crate::json`]), in `runtime`'s
    /// payload when the caller knows which runtime sent it (else in whichever shape it is:
    /// [`HookEvent::from_runtime_value`]). Text that is not UTF-8 and lone surrogate escapes
    /// are read with U+FFFD in their place; a value nested deeper than
    /// [`crate::json::MAX_DEPTH`] makes the event [`EventError::TooDeep`], with the rest of it
    /// read, so the answer can still be the event's own (a block before a tool).
    pub fn read(bytes: &[u8], runtime: Option<Runtime>, event_name: Option<&str>) -> Result<Self, Unreadable> {
        let unreadable = |error| Unreadable { error, event: None };
        let value = crate::json::parse(&crate::json::text(bytes)).map_err(|e| unreadable(EventError::Json(e.to_string())))?;
        let event = Self::from_runtime_value(value, runtime, event_name).map_err(unreadable)?;
        if event.data.values().any(crate::json::was_cut) {
            return Err(Unreadable { error: EventError::TooDeep { limit: crate::json::MAX_DEPTH }, event: Some(Box::new(event)) });
        }
        Ok(event)
    }

    /// Normalise an event: the canonical envelope `{"event", ..., "data": {...}}`, or any
    /// runtime's payload ([`HookEvent::from_runtime_value`]).
    pub fn from_value(value: Value) -> Result<Self, EventError> {
        Self::from_runtime_value(value, None, None)
    }

    /// Normalise an event a runtime sent, in the shape its profile's
    /// [`Payload`] says: hookhost's envelope; a flat payload named by
    /// `hook_event_name` (or Starchild's `event`) whose fields are renamed to hookhost's by the
    /// runtime's [`Fields`] (every flat runtime's, when `runtime` is not known); or a payload
    /// naming no event (GitHub Copilot CLI), whose event is `event_name` (the name its hook is
    /// configured under: `hookhost run --event-name preToolUse`) or else inferred from its
    /// fields — a name neither gives is [`EventError::Unnamed`]. The event's
    /// [`runtime`](HookEvent::runtime) is `runtime`.
    pub fn from_runtime_value(value: Value, runtime: Option<Runtime>, event_name: Option<&str>) -> Result<Self, EventError> {
        let Value::Object(mut obj) = value else { return Err(EventError::NotObject(crate::text::json_kind(&value))) };
        let mut renamed = false;
        if !obj.contains_key("event") && !obj.contains_key("hook_event_name") {
            let camel = |r: &Runtime| match &r.profile().payload {
                Payload::Camel(reader) => Some(reader),
                _ => None,
            };
            let readers: Vec<&CamelReader> = match runtime {
                Some(r) => camel(&r).into_iter().collect(),
                None => Runtime::ALL.iter().filter_map(camel).collect(),
            };
            let named = match event_name {
                Some(name) => Some((name, readers.first().copied())),
                None => readers.iter().find_map(|reader| (reader.infer)(&obj).map(|name| (name, Some(*reader)))),
            };
            if let Some((name, reader)) = named {
                let name = name.to_string();
                if let Some(reader) = reader.filter(|_| obj.contains_key("sessionId") || obj.keys().any(|k| k.chars().any(|c| c.is_ascii_uppercase()))) {
                    obj = (reader.normalise)(obj);
                    renamed = true;
                }
                obj.insert("hook_event_name".into(), name.into());
            } else if !readers.is_empty() && obj.contains_key("sessionId") {
                return Err(EventError::Unnamed);
            }
        }
        // A peer runtime's own event (`hook_event_name`) that hookhost does not model passes
        // through as `custom:<name>`: runtimes add events faster than hookhost models them. A
        // canonical envelope's `event` must be known (a typo there is an error).
        let (name_text, peer) = match obj.remove("event") {
            Some(v) => (v, false),
            None => match obj.remove("hook_event_name") {
                Some(v) => (v, true),
                None => return Err(EventError::NoName),
            },
        };
        let Value::String(name_text) = name_text else { return Err(EventError::BadField { field: "event", expected: "a string" }) };
        let name = match name_text.strip_prefix("custom:") {
            Some(custom) if !custom.is_empty() => EventName::Custom(custom.to_string()),
            _ => match EventName::from_any(&name_text) {
                Some(name) => name,
                None if peer && crate::text::is_plain_name(&name_text) => EventName::Custom(name_text.clone()),
                None => {
                    return Err(EventError::UnknownName { name: name_text.clone(), known: EventName::canonical_names().collect::<Vec<_>>().join(", ") })
                }
            },
        };
        if peer && !renamed {
            peer_session_and_cwd(&mut obj, runtime);
        }
        let mut text = |field: &'static str| -> Result<Option<String>, EventError> {
            match obj.remove(field) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s)),
                Some(_) => Err(EventError::BadField { field, expected: "a string" }),
            }
        };
        let session_id = text("session_id")?.unwrap_or_else(|| "ses_local".into());
        let turn_id = text("turn_id")?;
        let agent_id = text("agent_id")?;
        let org_id = text("org_id")?;
        let ts = text("ts")?.unwrap_or_else(crate::time::now_rfc3339);
        let cwd = text("cwd")?;
        obj.remove("hook_id");
        // hookhost's own envelope may name the runtime that sent it (hookhost's OpenCode plugin
        // does): hooks see it as `context.runtime`.
        let runtime = match obj.get("runtime") {
            Some(Value::String(name)) if obj.get("data").is_some_and(Value::is_object) => {
                let named = Runtime::parse(name);
                obj.remove("runtime");
                runtime.or(named)
            }
            _ => runtime,
        };
        let data = match obj.remove("data") {
            Some(Value::Object(data)) => data,
            Some(Value::Null) | None if renamed => obj,
            Some(Value::Null) | None => flat_data(obj, runtime),
            Some(_) => return Err(EventError::BadField { field: "data", expected: "an object" }),
        };
        Ok(HookEvent { name, session_id, turn_id, agent_id, org_id, ts, cwd, data, runtime })
    }

    /// The canonical envelope as JSON.
    pub fn to_value(&self) -> Value {
        let mut obj = Map::new();
        obj.insert("event".into(), self.name.config_name().into());
        obj.insert("session_id".into(), self.session_id.clone().into());
        for (key, v) in [("turn_id", &self.turn_id), ("org_id", &self.org_id), ("agent_id", &self.agent_id)] {
            if let Some(v) = v {
                obj.insert(key.into(), v.clone().into());
            }
        }
        obj.insert("ts".into(), self.ts.clone().into());
        if let Some(cwd) = &self.cwd {
            obj.insert("cwd".into(), cwd.clone().into());
        }
        obj.insert("data".into(), Value::Object(self.data.clone()));
        Value::Object(obj)
    }

    /// The tool name of a tool event.
    pub fn tool_name(&self) -> Option<&str> {
        self.data.get("tool_name").and_then(Value::as_str)
    }

    /// The tool arguments of a tool event.
    pub fn arguments(&self) -> Option<&Value> {
        self.data.get("arguments")
    }
}

/// A flat payload's session id and working directory where hookhost reads them: a runtime that
/// names the session otherwise (Cursor's `conversation_id`, by its [`Fields`]; any flat
/// runtime's name when `runtime` is not known) has it read as `session_id`, and a payload with
/// no `cwd` but `workspace_roots` (Cursor's) works in the first of them.
fn peer_session_and_cwd(obj: &mut Map<String, Value>, runtime: Option<Runtime>) {
    if !obj.contains_key("session_id") {
        let key = |r: &Runtime| match &r.profile().payload {
            Payload::Flat(fields) if fields.session_id != "session_id" => Some(fields.session_id),
            _ => None,
        };
        let keys: Vec<&str> = match runtime {
            Some(r) => key(&r).into_iter().collect(),
            None => Runtime::ALL.iter().filter_map(key).collect(),
        };
        if let Some(id) = keys.into_iter().find_map(|k| obj.get(k).filter(|v| v.is_string()).cloned()) {
            obj.insert("session_id".into(), id);
        }
    }
    if !obj.contains_key("cwd") {
        if let Some(root) = obj.get("workspace_roots").and_then(Value::as_array).and_then(|r| r.first()).filter(|r| r.is_string()).cloned() {
            obj.insert("cwd".into(), root);
        }
    }
}

/// A flat payload's fields in hookhost's names, by `runtime`'s [`Fields`] (each flat runtime's
/// when it is not known or not flat); other keys are kept as they are.
fn flat_data(obj: Map<String, Value>, runtime: Option<Runtime>) -> Map<String, Value> {
    let flat = |r: &Runtime| match &r.profile().payload {
        Payload::Flat(fields) => Some(fields),
        _ => None,
    };
    let told = runtime.as_ref().and_then(flat);
    let fields: Vec<&Fields> = match told {
        Some(fields) => vec![fields],
        None => Runtime::ALL.iter().filter_map(flat).collect(),
    };
    let canonical = |key: &str| -> Option<&'static str> {
        match key {
            // What every flat payload calls these.
            "tool_input" => return Some("arguments"),
            "notification_type" => return Some("kind"),
            _ => {}
        }
        fields.iter().find_map(|f| {
            Some(match key {
                k if Some(k) == f.tool_call_id => "tool_call_id",
                k if k == f.result => "result",
                k if Some(k) == f.tool_error => "is_error",
                k if k == f.prompt => "message",
                k if k == f.response => "response",
                _ => return None,
            })
        })
    };
    let mut data = Map::new();
    for (key, value) in obj {
        match canonical(&key) {
            Some(name) => data.insert(name.to_string(), value),
            None => data.insert(key, value),
        };
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn envelope_and_flat_shapes_normalise_to_the_same_event() {
        let envelope = HookEvent::from_value(json!({
            "event": "pre_tool_use", "session_id": "s1", "ts": "t",
            "data": {"tool_name": "bash", "tool_call_id": "c1", "arguments": {"command": "ls"}}
        }))
        .unwrap();
        let flat = HookEvent::from_value(json!({
            "hook_event_name": "PreToolUse", "session_id": "s1", "ts": "t",
            "tool_name": "bash", "tool_use_id": "c1", "tool_input": {"command": "ls"}
        }))
        .unwrap();
        assert_eq!(envelope, flat);
        assert_eq!(flat.tool_name(), Some("bash"));
    }

    #[test]
    fn an_envelope_may_name_its_runtime() {
        let event = |extra: serde_json::Value| {
            let mut v = json!({"event": "pre_tool_use", "session_id": "s1", "data": {"tool_name": "bash", "arguments": {"command": "ls"}}});
            v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            HookEvent::from_value(v).unwrap()
        };
        assert_eq!(event(json!({"runtime": "opencode"})).runtime, Some(Runtime::OpenCode));
        assert_eq!(event(json!({"runtime": "no-such-runtime"})).runtime, None);
        assert_eq!(event(json!({})).runtime, None);
        // The caller's knowledge wins.
        let v = json!({"event": "pre_tool_use", "runtime": "opencode", "data": {}});
        assert_eq!(HookEvent::from_runtime_value(v, Some(Runtime::ClaudeCode), None).unwrap().runtime, Some(Runtime::ClaudeCode));
    }

    #[test]
    fn unknown_event_name_lists_the_known_ones() {
        let err = HookEvent::from_json(r#"{"event":"pre_tool"}"#).unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("unknown event \"pre_tool\": use one of session_start, "), "{text}");
        assert!(text.contains("pre_tool_use"), "{text}");
    }

    #[test]
    fn non_object_and_nameless_events_are_rejected() {
        assert_eq!(HookEvent::from_json("[1]").unwrap_err(), EventError::NotObject("an array"));
        assert_eq!(HookEvent::from_json("{}").unwrap_err(), EventError::NoName);
        assert!(matches!(HookEvent::from_json("{"), Err(EventError::Json(_))));
    }

    #[test]
    fn gemini_cli_events_are_their_canonical_counterparts() {
        for (gemini, canonical) in [("BeforeTool", "pre_tool_use"), ("AfterTool", "post_tool_use"), ("BeforeAgent", "user_prompt_submit"), ("AfterAgent", "stop"), ("BeforeModel", "before_model_call"), ("AfterModel", "after_model_call"), ("PreCompress", "pre_compact")] {
            assert_eq!(EventName::from_any(gemini).map(|e| e.as_str().to_string()).as_deref(), Some(canonical), "{gemini}");
        }
        let ev = HookEvent::from_json(r#"{"hook_event_name":"AfterAgent","prompt":"p","prompt_response":"done","stop_hook_active":false}"#).unwrap();
        assert_eq!(ev.data["response"], "done");
    }

    #[test]
    fn a_peers_unmodelled_event_passes_through_as_custom() {
        let ev = HookEvent::from_json(r#"{"hook_event_name":"PostToolUseFailure","tool_name":"Bash","error":"exit 1"}"#).unwrap();
        assert_eq!(ev.name, EventName::Custom("PostToolUseFailure".into()));
        assert_eq!(ev.name.config_name(), "custom:PostToolUseFailure");
        assert_eq!(ev.data["error"], "exit 1");
        assert_eq!(EventName::from_config("custom:PostToolUseFailure"), Some(ev.name));
        assert_eq!(EventName::from_config("custom:"), None);
        assert_eq!(EventName::from_config("custom:a b"), None);
        assert_eq!(EventName::from_config("PreToolUse"), None, "configs use canonical names");
        // The canonical envelope's name must be known.
        assert!(matches!(HookEvent::from_json(r#"{"event":"PostToolUseFailure"}"#), Err(EventError::UnknownName { .. })));
        let n = HookEvent::from_json(r#"{"hook_event_name":"Notification","message":"m","notification_type":"idle_prompt"}"#).unwrap();
        assert_eq!(n.data["kind"], "idle_prompt", "Claude Code's notification_type is the canonical kind");
    }

    #[test]
    fn custom_events_pass_through() {
        let ev = HookEvent::from_json(r#"{"event":"custom:deploy","data":{"env":"prod"}}"#).unwrap();
        assert_eq!(ev.name, EventName::Custom("deploy".into()));
        assert!(!ev.name.can_block());
    }


    #[test]
    fn copilot_payloads_name_no_event_and_are_read_from_their_fields() {
        let pre = HookEvent::from_json(r#"{"sessionId":"s1","timestamp":1767225600000,"cwd":"/repo","toolName":"bash","toolArgs":"{\"command\":\"ls\"}"}"#).unwrap();
        assert_eq!((pre.name.clone(), pre.session_id.as_str(), pre.ts.as_str(), pre.cwd.as_deref()), (EventName::PreToolUse, "s1", "2026-01-01T00:00:00.000Z", Some("/repo")));
        assert_eq!((pre.tool_name(), pre.arguments()), (Some("bash"), Some(&json!({"command": "ls"}))), "toolArgs as JSON text is parsed");
        let post = HookEvent::from_json(r#"{"sessionId":"s1","timestamp":1,"cwd":"/","toolName":"bash","toolArgs":{"command":"env"},"toolResult":{"resultType":"success","textResultForLlm":"TOKEN=x"}}"#).unwrap();
        assert_eq!((post.name.clone(), post.data["result"].clone(), post.data["is_error"].clone()), (EventName::PostToolUse, json!("TOKEN=x"), json!(false)));
        let prompt = HookEvent::from_json(r#"{"sessionId":"s1","timestamp":1,"cwd":"/","prompt":"hi key=1","transformedPrompt":"<ctx/> hi key=1"}"#).unwrap();
        assert_eq!((prompt.name.clone(), prompt.data["message"].clone(), prompt.data["user_prompt"].clone()), (EventName::UserPromptSubmit, json!("<ctx/> hi key=1"), json!("hi key=1")));
        let submitted = HookEvent::from_json(r#"{"sessionId":"s1","timestamp":1,"cwd":"/","prompt":"hi"}"#).unwrap();
        assert_eq!(submitted.name, EventName::Custom("userPromptSubmitted".into()), "its answer is dropped by Copilot: passed through");
        let stop = HookEvent::from_json(r#"{"sessionId":"s1","timestamp":1,"cwd":"/","transcriptPath":"/t","stopReason":"end_turn"}"#).unwrap();
        assert_eq!((stop.name.clone(), stop.data["transcript_path"].clone()), (EventName::Stop, json!("/t")));
        // The shared fields of preToolUse and permissionRequest: the configured name decides.
        let asked = HookEvent::from_runtime_value(json!({"sessionId":"s1","timestamp":1,"cwd":"/","toolName":"bash","toolArgs":{}}), None, Some("permissionRequest")).unwrap();
        assert_eq!(asked.name, EventName::PermissionRequest);
        assert_eq!(HookEvent::from_json(r#"{"sessionId":"s1","timestamp":1,"cwd":"/"}"#).unwrap_err(), EventError::Unnamed);
        assert!(EventError::Unnamed.to_string().contains("hookhost run --event-name NAME"));
    }
}
