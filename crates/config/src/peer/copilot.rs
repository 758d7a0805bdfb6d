//! GitHub Copilot CLI's hook files, `.github/hooks/*.json` (its hooks reference, "Hook
//! configuration format"): `{"version": 1, "hooks": {"preToolUse": [...]}}`, a flat list of
//! entries per event. An event key in camelCase gets Copilot's own payload; one in PascalCase
//! (`PreToolUse`) gets the VS Code compatible one, which is Claude Code's wire format.

use hookhost_types::Problem;
use super::{anchored_matcher, edit_adapter, exec_form, hooks_by_event, http_executor, ignored_keys, runtime_event, seconds, shell_executor, string_map, version_one};
use crate::{NotRun, OnError, RawConfig, RawHook};
use hookhost_types::event::EventName;
use hookhost_types::runtime::{MatchOn as On, Runtime};
use serde_json::Value;

/// The fields Copilot documents on a hook entry.
const KEYS: &[&str] = &["type", "bash", "powershell", "command", "exec", "args", "cwd", "env", "timeoutSec", "timeout", "matcher", "url", "headers", "allowedEnvVars", "prompt"];

/// Which command of a command hook runs here, and in which shell (none: bash), as Copilot picks
/// it (its hooks reference: `bash` on Linux and macOS, `powershell` on Windows; `command` for
/// either): on Windows the `powershell` one, through PowerShell 7 (`pwsh`) where it is installed
/// and Windows PowerShell otherwise (the host's process runner picks); elsewhere `bash`, then
/// `command`. `None`: nothing this machine runs.
fn command_key(h: &Value, windows: bool) -> Option<(&'static str, Option<&'static str>)> {
    let has = |k: &str| h.get(k).is_some();
    if windows && has("powershell") {
        return Some(("powershell", Some("pwsh")));
    }
    if has("bash") {
        return Some(("bash", None));
    }
    if has("command") {
        return Some(("command", None));
    }
    None
}

pub(super) fn copilot(doc: Value, problems: &mut Vec<Problem>) -> RawConfig {
    let mut raw = RawConfig::default();
    version_one(&doc, Runtime::Copilot, problems);
    let Some(events) = hooks_by_event(&doc, Runtime::Copilot, "preToolUse", &mut raw, problems) else { return raw };
    for (event_name, entries) in events {
        let at = format!("hooks.{event_name}");
        // camelCase: Copilot's own events and payloads; PascalCase: the VS Code compatible ones.
        let (runtime, row) = match (Runtime::Copilot.event(event_name), Runtime::ClaudeCode.event(event_name)) {
            (Some(row), _) => (Runtime::Copilot, Some(row)),
            (None, Some(row)) => (Runtime::ClaudeCode, Some(row)),
            (None, None) => (Runtime::Copilot, None),
        };
        let Some((event, on)) = runtime_event(&at, event_name, Runtime::Copilot, row, &mut raw.warnings) else { continue };
        let Some(entries) = entries.as_array() else {
            problems.push(Problem::at(at.to_string(), "must be a list of hooks"));
            continue;
        };
        for (i, h) in entries.iter().enumerate() {
            let hat = format!("{at}[{i}]");
            if let Some(hook) = entry(&hat, &event, on, runtime, h, &mut raw, problems) {
                raw.hooks.push(hook);
            }
        }
    }
    raw
}

fn entry(at: &str, event: &EventName, on: On, dialect: Runtime, h: &Value, raw: &mut RawConfig, problems: &mut Vec<Problem>) -> Option<RawHook> {
    if !h.is_object() {
        problems.push(Problem::at(at.to_string(), format!("must be a hook object, not {}", hookhost_types::text::json_kind(h))));
        return None;
    }
    ignored_keys(at, h, KEYS, &mut raw.warnings);
    let kind = h.get("type").and_then(Value::as_str).unwrap_or("command");
    let env = string_map(at, "env", h.get("env"), problems);
    let exec = match kind {
        "command" => {
            let working_dir = h.get("cwd").and_then(Value::as_str).map(str::to_string);
            if let Some(program) = h.get("exec") {
                let Some(program) = program.as_str() else {
                    problems.push(Problem::at(format!("{at}.exec"), "must be a string"));
                    return None;
                };
                let args: Vec<String> = match h.get("args") {
                    None => Vec::new(),
                    Some(Value::Array(a)) if a.iter().all(Value::is_string) => a.iter().filter_map(Value::as_str).map(str::to_string).collect(),
                    Some(_) => {
                        problems.push(Problem::at(format!("{at}.args"), "must be a list of strings"));
                        return None;
                    }
                };
                let mut exec = shell_executor(dialect, program.to_string(), env, working_dir);
                exec_form(&mut exec, program, &args);
                exec
            } else {
                let Some((key, shell)) = command_key(h, cfg!(windows)) else {
                    if h.get("powershell").is_some() {
                        raw.not_run.push(NotRun { at: at.into(), event: event.config_name(), kind: "command".into(), why: "it has a powershell command only, which Copilot runs on Windows (and so does hookhost); give it a `bash` (or `command`) one for this machine".into() });
                    } else {
                        problems.push(Problem::at(at.to_string(), "a command hook needs `bash`, `command`, `powershell` or `exec`"));
                    }
                    return None;
                };
                let Some(command) = h.get(key).and_then(Value::as_str) else {
                    problems.push(Problem::at(format!("{at}.{key}"), "must be a string"));
                    return None;
                };
                let mut exec = shell_executor(dialect, command.to_string(), env, working_dir);
                if let Some(shell) = shell {
                    edit_adapter(&mut exec, |settings| settings.shell = Some(shell.to_string()));
                }
                exec
            }
        }
        "http" => http_executor(at, dialect, h, &env, problems)?,
        "prompt" => {
            raw.not_run.push(NotRun { at: at.into(), event: event.config_name(), kind: "prompt".into(), why: "a prompt hook types text into a new interactive session; hookhost runs programs".into() });
            return None;
        }
        other => {
            raw.not_run.push(NotRun { at: at.into(), event: event.config_name(), kind: other.into(), why: format!("{other:?} is not a hook type hookhost knows") });
            return None;
        }
    };
    // Copilot anchors a matcher: `^(?:PATTERN)$` on the whole value.
    let matcher = anchored_matcher(on, h);
    // Copilot's hooks fail open (a timeout too, before a tool); a non-zero exit before a tool
    // denies it, which the adapter reads as a block (`verdict.rs`).
    let mut hook = RawHook::converted(event.config_name(), exec, OnError::Warn);
    hook.at = Some(at.to_string());
    hook.id = Some(format!("{}_{}", event.as_str(), raw.hooks.len()));
    hook.matcher = matcher;
    let timeout = h.get("timeoutSec").or_else(|| h.get("timeout"));
    hook.timeout_ms = Some(seconds(at, timeout, 30, problems, &mut raw.warnings));
    Some(hook)
}

#[cfg(test)]
mod tests {
    use super::command_key;
    use serde_json::json;

    #[test]
    fn each_os_runs_the_command_copilot_runs_there() {
        let both = json!({"type": "command", "bash": "./check.sh", "powershell": "./check.ps1"});
        assert_eq!(command_key(&both, false), Some(("bash", None)));
        assert_eq!(command_key(&both, true), Some(("powershell", Some("pwsh"))));
        let ps = json!({"type": "command", "powershell": "./check.ps1"});
        assert_eq!(command_key(&ps, false), None, "Copilot runs no powershell hook on Linux or macOS");
        assert_eq!(command_key(&ps, true), Some(("powershell", Some("pwsh"))));
        assert_eq!(command_key(&json!({"command": "x"}), true), Some(("command", None)));
        assert_eq!(command_key(&json!({"type": "command"}), true), None);
    }
}
