//! Claude Code's `settings.json` `hooks` (<https://code.claude.com/docs/en/hooks>): matcher
//! groups per event, command and http handlers; its events table is `hookhost_types::runtime`'s.

use hookhost_types::Problem;
use super::{args_field, edit_adapter, exec_form, hooks_by_event, http_executor, ignored_keys, runtime_event, seconds, shell_executor, str_field};
use crate::{NotRun, OnError, RawConfig, RawHook};
use hookhost_types::event::EventName;
use hookhost_types::matcher::MatcherSpec;
use hookhost_types::runtime::{MatchOn as On, Runtime};
use hookhost_types::adapter::SHELLS;
use serde_json::Value;
use std::collections::BTreeMap;

/// The handler fields Claude Code documents, per type.
const CLAUDE_COMMAND_KEYS: &[&str] = &["type", "command", "args", "shell", "timeout", "if", "async", "once", "statusMessage", "onFailure"];
const CLAUDE_HTTP_KEYS: &[&str] = &["type", "url", "headers", "allowedEnvVars", "timeout", "if", "async", "once", "statusMessage", "onFailure"];
const CLAUDE_OTHER_KEYS: &[&str] = &["type", "prompt", "model", "timeout", "if", "async", "once", "statusMessage", "server", "tool", "input"];

pub(super) fn claude(doc: Value, problems: &mut Vec<Problem>) -> RawConfig {
    let mut raw = RawConfig::default();
    let Some(events) = hooks_by_event(&doc, Runtime::ClaudeCode, "PreToolUse", &mut raw, problems) else { return raw };
    // settings.json `env` is the session's environment, which its hooks inherit.
    let env: BTreeMap<String, String> = doc.get("env").and_then(Value::as_object).map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect()).unwrap_or_default();
    for (event_name, groups) in events {
        let at = format!("hooks.{event_name}");
        // Its events table: hookhost_types::runtime, claude_code.rs.
        let Some((event, on)) = runtime_event(&at, event_name, Runtime::ClaudeCode, Runtime::ClaudeCode.event(event_name), &mut raw.warnings) else { continue };
        let Some(groups) = groups.as_array() else {
            problems.push(Problem::at(at.to_string(), "must be a list of matcher groups"));
            continue;
        };
        for (i, group) in groups.iter().enumerate() {
            if !group.is_object() {
                problems.push(Problem::at(format!("{at}[{i}]"), format!("must be a matcher group {{\"matcher\": ..., \"hooks\": [...]}}, not {}", hookhost_types::text::json_kind(group))));
                continue;
            }
            ignored_keys(&format!("{at}[{i}]"), group, &["matcher", "hooks"], &mut raw.warnings);
            let pattern = group.get("matcher").and_then(Value::as_str).map(str::to_string).filter(|p| !p.is_empty() && p != "*");
            let Some(handlers) = group.get("hooks").and_then(Value::as_array) else {
                problems.push(Problem::at(format!("{at}[{i}].hooks"), "required, a list of hooks"));
                continue;
            };
            for (j, h) in handlers.iter().enumerate() {
                let hat = format!("{at}[{i}].hooks[{j}]");
                if let Some(hook) = claude_handler(&hat, &event, on, pattern.as_deref(), h, &env, &mut raw, problems) {
                    raw.hooks.push(hook);
                }
            }
        }
    }
    raw
}

#[allow(clippy::too_many_arguments)]
fn claude_handler(at: &str, event: &EventName, on: On, pattern: Option<&str>, h: &Value, env: &BTreeMap<String, String>, raw: &mut RawConfig, problems: &mut Vec<Problem>) -> Option<RawHook> {
    let kind = match h.get("type").and_then(Value::as_str) {
        Some(kind) => kind.to_string(),
        None if h.get("command").is_some() => {
            raw.warnings.push(format!("{at}.type: missing; read as \"command\""));
            "command".into()
        }
        None => {
            problems.push(Problem::at(format!("{at}.type"), "required (command, http, prompt or agent)"));
            return None;
        }
    };
    let mut exec = match kind.as_str() {
        "command" => {
            ignored_keys(at, h, CLAUDE_COMMAND_KEYS, &mut raw.warnings);
            let command = str_field(at, h, "command", problems)?;
            let mut exec = shell_executor(Runtime::ClaudeCode, command.clone(), env.clone(), None);
            if let Some(args) = args_field(at, h, problems) {
                exec_form(&mut exec, &command, &args);
            }
            exec
        }
        "http" => {
            ignored_keys(at, h, CLAUDE_HTTP_KEYS, &mut raw.warnings);
            http_executor(at, Runtime::ClaudeCode, h, env, problems)?
        }
        _ => {
            ignored_keys(at, h, CLAUDE_OTHER_KEYS, &mut raw.warnings);
            let why = match kind.as_str() {
                "prompt" | "agent" => format!("a {kind} hook asks a model to decide; hookhost runs programs, not model calls"),
                other => format!("{other:?} is not a hook type hookhost knows"),
            };
            raw.not_run.push(NotRun { at: at.into(), event: event.config_name(), kind, why });
            return None;
        }
    };
    match h.get("shell").map(|v| (v, v.as_str())) {
        None => {}
        Some((_, Some(shell))) if SHELLS.iter().any(|(name, _)| *name == shell) => {
            edit_adapter(&mut exec, |settings| settings.shell = Some(shell.to_string()));
        }
        Some((v, _)) => raw.warnings.push(format!("{at}.shell: {v} is not a shell hookhost runs (bash, sh, zsh, dash, powershell, pwsh); bash runs it")),
    }
    let if_rule = h.get("if").and_then(Value::as_str).map(str::to_string);
    let matcher = match on {
        On::Tool => (pattern.is_some() || if_rule.is_some()).then(|| MatcherSpec { tool_pattern: pattern.map(str::to_string), if_rule, ..Default::default() }),
        On::Field(field) => {
            let if_rule = if_rule.filter(|_| field == "tool_name");
            (pattern.is_some() || if_rule.is_some()).then(|| MatcherSpec { field: pattern.map(|_| field.to_string()), pattern: pattern.map(str::to_string), if_rule, ..Default::default() })
        }
        On::Nothing => None,
    };
    // Claude Code: a hook that exits with a code other than 0 and 2, times out or cannot be
    // reached is a non-blocking error, unless it sets `onFailure: "block"` (its hooks reference,
    // "Block the action when a hook fails", v2.1.295).
    let on_error = match h.get("onFailure").map(|v| (v, v.as_str())) {
        None | Some((_, Some("continue"))) => OnError::Warn,
        Some((_, Some("block"))) => OnError::Block,
        Some((v, _)) => {
            problems.push(Problem::at(format!("{at}.onFailure"), format!("{v} is not \"block\" or \"continue\"")));
            OnError::Warn
        }
    };
    let mut hook = RawHook::converted(event.config_name(), exec, on_error);
    hook.at = Some(at.to_string());
    hook.id = Some(format!("{}_{}", event.as_str(), raw.hooks.len()));
    hook.matcher = matcher;
    hook.timeout_ms = Some(seconds(at, h.get("timeout"), 600, problems, &mut raw.warnings));
    hook.description = h.get("statusMessage").and_then(Value::as_str).map(str::to_string);
    hook.background = h.get("async").and_then(Value::as_bool).unwrap_or(false);
    hook.once = h.get("once").and_then(Value::as_bool).unwrap_or(false);
    Some(hook)
}

