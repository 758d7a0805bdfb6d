//! docker-agent's agent YAML (<https://docs.docker.com/ai/docker-agent/configuration/hooks/>):
//! `hooks:` per agent, command and builtin hooks.

use hookhost_types::Problem;
use super::{args_field, exec_form, ignored_keys, seconds, shell_executor, str_field, string_map, valid_event_key};
use crate::{NotRun, OnError, RawConfig, RawExecutor, RawHook};
use hookhost_types::event::EventName;
use hookhost_types::matcher::MatcherSpec;
use hookhost_types::runtime::Runtime;
use serde_json::Value;

/// docker-agent's events (its hooks reference; [`Runtime::DockerAgent`]'s table): the
/// canonical event each is where hookhost models it; any other passes through as
/// `custom:<name>`.
fn docker_event(name: &str) -> EventName {
    Runtime::DockerAgent.canonical(name).or_else(|| EventName::from_any(name)).unwrap_or_else(|| EventName::Custom(name.to_string()))
}

pub(super) fn docker(doc: Value, problems: &mut Vec<Problem>) -> RawConfig {
    let mut raw = RawConfig::default();
    let Some(agents) = doc.get("agents").and_then(Value::as_object) else {
        problems.push(Problem::at("agents", "must be a map of agent name to agent"));
        return raw;
    };
    for (agent, def) in agents {
        let Some(hooks) = def.get("hooks") else { continue };
        let Some(events) = hooks.as_object() else {
            problems.push(Problem::at(format!("agents.{agent}.hooks"), "must be a map of event to hooks"));
            continue;
        };
        for (event_name, entries) in events {
            let at = format!("agents.{agent}.hooks.{event_name}");
            let event = docker_event(event_name);
            if let EventName::Custom(_) = event {
                if !valid_event_key(event_name) {
                    raw.warnings.push(format!("{at}: {event_name:?} is not an event name; ignored"));
                    continue;
                }
            }
            let Some(entries) = entries.as_array() else {
                problems.push(Problem::at(at.to_string(), "must be a list"));
                continue;
            };
            for (i, entry) in entries.iter().enumerate() {
                // Tool events group handlers under a matcher; lifecycle events list handlers.
                let grouped = entry.get("hooks").is_some_and(Value::is_array);
                let (handlers, matcher, hat) = if grouped {
                    ignored_keys(&format!("{at}[{i}]"), entry, &["matcher", "hooks"], &mut raw.warnings);
                    let m = entry.get("matcher").and_then(Value::as_str).map(str::to_string);
                    let list = entry.get("hooks").and_then(Value::as_array).cloned().unwrap_or_default();
                    (list, m, format!("{at}[{i}].hooks"))
                } else {
                    (vec![entry.clone()], None, at.clone())
                };
                for (j, handler) in handlers.iter().enumerate() {
                    let hat = if grouped { format!("{hat}[{j}]") } else { format!("{hat}[{i}]") };
                    let n = raw.hooks.len();
                    if let Some(hook) = docker_handler(&hat, agent, &event, handler, matcher.clone(), n, &mut raw, problems) {
                        raw.hooks.push(hook);
                    }
                }
            }
        }
    }
    raw
}

#[allow(clippy::too_many_arguments)]
fn docker_handler(at: &str, agent: &str, event: &EventName, h: &Value, matcher: Option<String>, n: usize, raw: &mut RawConfig, problems: &mut Vec<Problem>) -> Option<RawHook> {
    ignored_keys(at, h, &["type", "command", "timeout", "name", "working_dir", "env", "on_error", "args"], &mut raw.warnings);
    let kind = h.get("type").and_then(Value::as_str).unwrap_or("command");
    let executor = match kind {
        "command" => {
            let command = str_field(at, h, "command", problems)?;
            let working_dir = match h.get("working_dir") {
                None => None,
                Some(Value::String(dir)) => Some(dir.clone()),
                Some(other) => {
                    problems.push(Problem::at(format!("{at}.working_dir"), format!("must be a string, not {}", hookhost_types::text::json_kind(other))));
                    None
                }
            };
            let mut exec = shell_executor(Runtime::DockerAgent, command.clone(), string_map(at, "env", h.get("env"), problems), working_dir);
            if let Some(args) = args_field(at, h, problems) {
                exec_form(&mut exec, &command, &args);
            }
            exec
        }
        "builtin" => match str_field(at, h, "command", problems)?.as_str() {
            "redact_secrets" => RawExecutor { plugin: "builtin:redact-secrets".into(), settings: None, fuel: None, memory_mib: None },
            other => {
                raw.not_run.push(NotRun { at: at.into(), event: event.config_name(), kind: format!("builtin {other}"), why: format!("hookhost has no built-in like docker-agent's {other:?} (it provides redact_secrets as builtin:redact-secrets); write it as a command hook") });
                return None;
            }
        },
        other => {
            raw.not_run.push(NotRun { at: at.into(), event: event.config_name(), kind: other.into(), why: "docker-agent runs hooks of type command and builtin only".into() });
            return None;
        }
    };
    // docker-agent: "pre_tool_use is fail-closed for safety: a failed pre-tool hook blocks the
    // tool call regardless of on_error" (its hooks reference).
    let on_error = match h.get("on_error").and_then(Value::as_str) {
        _ if *event == EventName::PreToolUse => OnError::Block,
        Some("block") => OnError::Block,
        Some("allow") | Some("ignore") => OnError::Allow,
        Some("warn") => OnError::Warn,
        Some(other) => {
            problems.push(Problem::at(format!("{at}.on_error"), format!("{other:?} is not one of block, allow, warn")));
            OnError::Warn
        }
        None => OnError::Warn,
    };
    let name = h.get("name").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| format!("{agent}_{}_{n}", event.as_str()));
    let mut hook = RawHook::converted(event.config_name(), executor, on_error);
    hook.at = Some(at.to_string());
    hook.id = Some(name);
    hook.matcher = matcher.filter(|m| !m.is_empty() && m != "*").map(|m| match event.is_tool_event() {
        true => MatcherSpec { tool_pattern: Some(m), ..Default::default() },
        false => MatcherSpec { field: Some("tool_name".into()), pattern: Some(m), ..Default::default() },
    });
    hook.timeout_ms = Some(seconds(at, h.get("timeout"), 60, problems, &mut raw.warnings));
    Some(hook)
}

