//! Starchild's hooks YAML (Starchild's agent-hooks guide): a `hooks` list of command and http hooks.

use hookhost_types::Problem;
use super::{http_executor, ignored_keys, seconds, shell_executor, str_field, valid_event_key};
use crate::{NotRun, OnError, RawConfig, RawHook};
use hookhost_types::event::EventName;
use hookhost_types::matcher::MatcherSpec;
use hookhost_types::runtime::Runtime;
use serde_json::{json, Value};
use std::collections::BTreeMap;

pub(super) fn starchild(doc: Value, problems: &mut Vec<Problem>) -> RawConfig {
    let mut raw = RawConfig::default();
    for (i, h) in doc.get("hooks").and_then(Value::as_array).cloned().unwrap_or_default().iter().enumerate() {
        let at = format!("hooks[{i}]");
        ignored_keys(&at, h, &["event", "matcher", "command", "timeout", "type", "url", "name"], &mut raw.warnings);
        let Some(event_name) = str_field(&at, h, "event", problems) else { continue };
        // Starchild: "a typo is a silent no-op"; here it is a custom event, said once.
        let event = match Runtime::Starchild.canonical(&event_name).or_else(|| EventName::from_any(&event_name)) {
            Some(event) => event,
            None if valid_event_key(&event_name) => EventName::Custom(event_name.clone()),
            None => {
                raw.warnings.push(format!("{at}.event: {event_name:?} is not an event name; ignored"));
                continue;
            }
        };
        let exec = match h.get("type").and_then(Value::as_str) {
            None | Some("command") => {
                let Some(command) = str_field(&at, h, "command", problems) else { continue };
                shell_executor(Runtime::Starchild, command, BTreeMap::new(), None)
            }
            // "same payload in, same decision JSON out, only the transport differs"
            Some("http") => {
                let Some(exec) = http_executor(&at, Runtime::Starchild, h, &BTreeMap::new(), problems) else { continue };
                exec
            }
            Some(kind) => {
                raw.not_run.push(NotRun { at: at.clone(), event: event.config_name(), kind: kind.into(), why: format!("{kind:?} is not a Starchild hook type hookhost knows") });
                continue;
            }
        };
        let timeout = h.get("timeout").cloned().map(|t| json!(t.as_f64().map(|s| s.min(120.0)).unwrap_or(-1.0)));
        // Starchild's bridge fails open, before a tool call too: a failed hook passes unless the
        // including config asks otherwise (`peer_on_failure`).
        let mut hook = RawHook::converted(event.config_name(), exec, OnError::Warn);
        hook.at = Some(at.clone());
        hook.id = Some(h.get("name").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| format!("{}_{i}", event.as_str())));
        hook.matcher = h.get("matcher").and_then(Value::as_str).map(|m| MatcherSpec { payload_regex: Some(m.to_string()), ..Default::default() });
        hook.timeout_ms = Some(seconds(&at, timeout.as_ref(), 20, problems, &mut raw.warnings));
        raw.hooks.push(hook);
    }
    raw
}

