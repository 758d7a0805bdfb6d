//! Everruns' `user_hooks` capability configs
//! (<https://docs.everruns.com/capabilities/user-hooks/>): hooks of executor type `bash`.

use hookhost_types::Problem;
use super::{guard_failure, shell_executor, str_field, string_map, unknown_keys};
use crate::{OnError, RawCapability, RawConfig, RawHook};
use hookhost_types::event::EventName;
use hookhost_types::matcher::MatcherSpec;
use hookhost_types::runtime::Runtime;
use serde_json::Value;

pub(super) fn everruns(doc: Value, problems: &mut Vec<Problem>) -> RawConfig {
    let mut raw = RawConfig::default();
    let take_config = |config: &Value, at: &str, raw: &mut RawConfig, problems: &mut Vec<Problem>| -> Vec<RawHook> {
        unknown_keys(at, config, &["hooks", "disabled_contributions"], problems);
        if let Some(list) = config.get("disabled_contributions").and_then(Value::as_array) {
            raw.disabled_contributions.extend(list.iter().filter_map(Value::as_str).map(str::to_string));
        }
        let hooks = match config.get("hooks") {
            None => Vec::new(),
            Some(Value::Array(list)) => list.clone(),
            Some(_) => {
                problems.push(Problem::at(format!("{at}.hooks"), "must be a list of hooks"));
                Vec::new()
            }
        };
        hooks.iter().enumerate().filter_map(|(i, h)| everruns_hook(&format!("{at}.hooks[{i}]"), h, problems)).collect()
    };
    match doc.get("capabilities") {
        Some(Value::Array(caps)) => {
            for (i, cap) in caps.iter().enumerate() {
                let at = format!("capabilities[{i}]");
                let Some(id) = cap.get("ref").and_then(Value::as_str) else {
                    problems.push(Problem::at(format!("{at}.ref"), "required (the capability id)"));
                    continue;
                };
                let Some(config) = cap.get("config") else { continue };
                let hooks = take_config(config, &format!("{at}.config"), &mut raw, problems);
                if id == "user_hooks" {
                    raw.user_position = Some(raw.capabilities.len());
                    raw.user_path = Some(format!("{at}.config.hooks"));
                    raw.hooks.extend(hooks);
                } else if !hooks.is_empty() {
                    raw.capabilities.push(RawCapability { id: id.to_string(), hooks, path: Some(format!("{at}.config.hooks")) });
                }
            }
        }
        Some(_) => problems.push(Problem::at("capabilities", "must be a list")),
        None => {
            raw.hooks = take_config(&doc, "user_hooks", &mut raw, problems);
            raw.user_path = Some("user_hooks.hooks".into());
        }
    }
    raw
}

fn everruns_hook(at: &str, h: &Value, problems: &mut Vec<Problem>) -> Option<RawHook> {
    unknown_keys(at, h, &["id", "event", "matcher", "executor", "timeout_ms", "on_error", "description"], problems);
    let event = str_field(at, h, "event", problems)?;
    let exec = h.get("executor").cloned().unwrap_or(Value::Null);
    unknown_keys(&format!("{at}.executor"), &exec, &["type", "command", "env"], problems);
    match exec.get("type").and_then(Value::as_str) {
        Some("bash") => {}
        Some(other) => problems.push(Problem::at(format!("{at}.executor.type"), format!("{other:?} is not supported; hookhost runs Everruns hooks of type \"bash\""))),
        None => problems.push(Problem::at(format!("{at}.executor.type"), "required (\"bash\")")),
    }
    let command = str_field(&format!("{at}.executor"), &exec, "command", problems)?;
    let matcher = match h.get("matcher") {
        None => None,
        Some(m) => match serde_json::from_value::<MatcherSpec>(m.clone()) {
            Ok(spec) => Some(spec),
            Err(e) => {
                problems.push(Problem::at(format!("{at}.matcher"), e.to_string()));
                None
            }
        },
    };
    let on_error = match h.get("on_error") {
        // The file says nothing: a guard before a tool call fails closed (see guard_failure).
        None => guard_failure(EventName::from_canonical(&event).as_ref(), OnError::default()),
        Some(v) => serde_json::from_value(v.clone()).unwrap_or_else(|_| {
            problems.push(Problem::at(format!("{at}.on_error"), format!("{v} is not one of \"block\", \"allow\", \"warn\"")));
            OnError::default()
        }),
    };
    let mut hook = RawHook::converted(event, shell_executor(Runtime::Everruns, command, string_map(&format!("{at}.executor"), "env", exec.get("env"), problems), None), on_error);
    hook.id = h.get("id").and_then(Value::as_str).map(str::to_string);
    hook.matcher = matcher;
    hook.timeout_ms = h.get("timeout_ms").and_then(Value::as_u64);
    hook.description = h.get("description").and_then(Value::as_str).map(str::to_string);
    Some(hook)
}

