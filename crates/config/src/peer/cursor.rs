//! Cursor's hook files, `.cursor/hooks.json` and `~/.cursor/hooks.json` (its hooks reference,
//! <https://cursor.com/docs/hooks>): `{"version": 1, "hooks": {"preToolUse": [...]}}`, a flat
//! list of entries per event, each `{"command": …, "timeout": seconds, "failClosed": bool,
//! "matcher": "Shell|Write"}`. Commands get Cursor's own payload (the bash adapter's `cursor`
//! dialect) and run from the project (a project file) or the event's working directory (the
//! user's). Cursor lets an action through when a hook fails unless the entry says
//! `failClosed: true`: so do the converted hooks (a block on their failure, else a warning).

use hookhost_types::Problem;
use super::{anchored_matcher, handler_type, hooks_by_event, runtime_event, seconds, shell_executor, version_one};
use crate::{NotRun, OnError, RawConfig, RawHook};
use hookhost_types::event::EventName;
use hookhost_types::runtime::{MatchOn as On, Runtime};
use serde_json::Value;
use std::collections::BTreeMap;

/// The fields Cursor documents on a hook entry.
const KEYS: &[&str] = &["type", "command", "timeout", "failClosed", "matcher", "loop_limit"];

/// A command's time when its entry gives none (seconds).
const DEFAULT_TIMEOUT_S: u64 = 30;

pub(super) fn cursor(doc: Value, problems: &mut Vec<Problem>) -> RawConfig {
    let mut raw = RawConfig::default();
    version_one(&doc, Runtime::Cursor, problems);
    let Some(events) = hooks_by_event(&doc, Runtime::Cursor, "preToolUse", &mut raw, problems) else { return raw };
    for (event_name, entries) in events {
        let at = format!("hooks.{event_name}");
        let Some((event, on)) = runtime_event(&at, event_name, Runtime::Cursor, Runtime::Cursor.event(event_name), &mut raw.warnings) else { continue };
        let Some(entries) = entries.as_array() else {
            problems.push(Problem::at(at.to_string(), "must be a list of hooks"));
            continue;
        };
        for (i, h) in entries.iter().enumerate() {
            if let Some(hook) = entry(&format!("{at}[{i}]"), &event, on, h, &mut raw, problems) {
                raw.hooks.push(hook);
            }
        }
    }
    raw
}

fn entry(at: &str, event: &EventName, on: On, h: &Value, raw: &mut RawConfig, problems: &mut Vec<Problem>) -> Option<RawHook> {
    match handler_type(at, event, h, KEYS, raw, problems)? {
        "command" => {}
        other => {
            raw.not_run.push(NotRun { at: at.into(), event: event.config_name(), kind: other.into(), why: format!("{other:?} is not a hook type hookhost knows") });
            return None;
        }
    }
    let Some(command) = h.get("command").and_then(Value::as_str) else {
        problems.push(Problem::at(format!("{at}.command"), "required: the command to run (a string)"));
        return None;
    };
    let fail_closed = match h.get("failClosed") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            problems.push(Problem::at(format!("{at}.failClosed"), format!("must be true or false, not {}", hookhost_types::text::json_kind(other))));
            return None;
        }
    };
    let exec = shell_executor(Runtime::Cursor, command.to_string(), BTreeMap::new(), None);
    // A matcher is a pattern for the whole tool name (`Shell`, `Write|Edit`).
    let matcher = anchored_matcher(on, h);
    let mut hook = RawHook::converted(event.config_name(), exec, if fail_closed { OnError::Block } else { OnError::Warn });
    hook.at = Some(at.to_string());
    hook.id = Some(format!("{}_{}", event.as_str(), raw.hooks.len()));
    hook.matcher = matcher;
    hook.timeout_ms = Some(seconds(at, h.get("timeout"), DEFAULT_TIMEOUT_S, problems, &mut raw.warnings));
    Some(hook)
}
