//! Antigravity CLI's `hooks.json` (`.agents/hooks.json` in a project, `~/.gemini/config/hooks.json`
//! for the user), as its users measured agy (`hookhost_types`' `runtime/antigravity.rs` cites
//! them): every top-level key names a hook (agy 1.0's `{"hooks": {…}}` is the hook called
//! `hooks`), each an object of events plus an optional `enabled`; `PreToolUse` / `PostToolUse`
//! hold matcher groups (`{"matcher": …, "hooks": [handler, …]}`, `""` and `"*"` every tool), the
//! other events the handlers themselves (`{"type": "command" | "prompt", "command": …,
//! "timeout": seconds}`). Event names match case-insensitively, as agy matches them. Commands
//! get agy's own payload (the bash adapter's `antigravity` dialect). agy asks the person when a
//! hook before a tool gives no decision, so a converted hook that fails there blocks; elsewhere
//! its failure is a warning.

use super::{handler_type, ignored_keys, runtime_event, seconds, shell_executor};
use crate::{OnError, RawConfig, RawHook};
use hookhost_types::event::EventName;
use hookhost_types::matcher::MatcherSpec;
use hookhost_types::runtime::{MatchOn as On, Runtime};
use hookhost_types::Problem;
use serde_json::Value;
use std::collections::BTreeMap;

/// The handler fields agy reads (others are discarded: it warns of none).
const KEYS: &[&str] = &["type", "command", "timeout", "prompt", "model"];

/// A command's time when its handler gives none (seconds; agy documents none).
const DEFAULT_TIMEOUT_S: u64 = 60;

pub(super) fn antigravity(doc: Value, problems: &mut Vec<Problem>) -> RawConfig {
    let mut raw = RawConfig::default();
    let Value::Object(named) = doc else {
        problems.push(Problem::file(format!("must be an object of named hooks ({{\"my-hook\": {{\"PreToolUse\": [...]}}}}), not {}", hookhost_types::text::json_kind(&doc))));
        return raw;
    };
    for (name, hook) in &named {
        let Value::Object(events) = hook else {
            problems.push(Problem::at(name.clone(), format!("must be a named hook, an object of events, not {}", hookhost_types::text::json_kind(hook))));
            continue;
        };
        match events.get("enabled") {
            None | Some(Value::Bool(true)) => {}
            Some(Value::Bool(false)) => {
                raw.warnings.push(format!("{name}: \"enabled\": false — none of its hooks runs (as in Antigravity CLI)"));
                continue;
            }
            Some(other) => {
                problems.push(Problem::at(format!("{name}.enabled"), format!("must be true or false, not {}", hookhost_types::text::json_kind(other))));
                continue;
            }
        }
        for (key, entries) in events.iter().filter(|(k, _)| k.as_str() != "enabled") {
            let at = format!("{name}.{key}");
            let row = Runtime::Antigravity.profile().events.iter().find(|e| e.name.eq_ignore_ascii_case(key));
            let Some((event, on)) = runtime_event(&at, key, Runtime::Antigravity, row, &mut raw.warnings) else { continue };
            let Some(entries) = entries.as_array() else {
                problems.push(Problem::at(at, "must be a list"));
                continue;
            };
            let grouped = on == On::Tool;
            for (i, entry) in entries.iter().enumerate() {
                let eat = format!("{at}[{i}]");
                if !grouped {
                    if let Some(hook) = handler(&eat, &event, None, entry, &mut raw, problems) {
                        raw.hooks.push(hook);
                    }
                    continue;
                }
                if !entry.is_object() {
                    problems.push(Problem::at(eat, format!("must be a matcher group {{\"matcher\": ..., \"hooks\": [...]}}, not {}", hookhost_types::text::json_kind(entry))));
                    continue;
                }
                ignored_keys(&eat, entry, &["matcher", "hooks"], &mut raw.warnings);
                let pattern = match entry.get("matcher") {
                    None => None,
                    Some(Value::String(m)) => Some(m.clone()).filter(|m| !m.is_empty() && m != "*"),
                    Some(other) => {
                        problems.push(Problem::at(format!("{eat}.matcher"), format!("must be a string, not {}", hookhost_types::text::json_kind(other))));
                        continue;
                    }
                };
                let Some(handlers) = entry.get("hooks").and_then(Value::as_array) else {
                    problems.push(Problem::at(format!("{eat}.hooks"), "required, a list of hooks"));
                    continue;
                };
                for (j, h) in handlers.iter().enumerate() {
                    if let Some(hook) = handler(&format!("{eat}.hooks[{j}]"), &event, pattern.as_deref(), h, &mut raw, problems) {
                        raw.hooks.push(hook);
                    }
                }
            }
        }
    }
    raw
}

fn handler(at: &str, event: &EventName, pattern: Option<&str>, h: &Value, raw: &mut RawConfig, problems: &mut Vec<Problem>) -> Option<RawHook> {
    match handler_type(at, event, h, KEYS, raw, problems)? {
        "command" => {}
        other => {
            problems.push(Problem::at(format!("{at}.type"), format!("{other:?} is not a hook type Antigravity CLI runs (command or prompt); it would reject the whole file")));
            return None;
        }
    }
    let command = match h.get("command") {
        Some(Value::String(c)) if !c.trim().is_empty() => c.clone(),
        _ => {
            raw.warnings.push(format!("{at}: a command hook with no command runs nothing (as in Antigravity CLI)"));
            return None;
        }
    };
    let exec = shell_executor(Runtime::Antigravity, command, BTreeMap::new(), None);
    let on_error = if *event == EventName::PreToolUse { OnError::Block } else { OnError::Warn };
    let mut hook = RawHook::converted(event.config_name(), exec, on_error);
    hook.at = Some(at.to_string());
    hook.id = Some(format!("{}_{}", event.as_str(), raw.hooks.len()));
    hook.matcher = pattern.map(|p| MatcherSpec { tool_pattern: Some(p.to_string()), ..Default::default() });
    hook.timeout_ms = Some(seconds(at, h.get("timeout"), DEFAULT_TIMEOUT_S, problems, &mut raw.warnings));
    Some(hook)
}
