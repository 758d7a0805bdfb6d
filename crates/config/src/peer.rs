//! Peer configuration files, loaded as they are (DIALECTS.md §1): Everruns capabilities JSON,
//! docker-agent agent YAML, Claude Code `settings.json`, Starchild `shell_hooks.yaml`. Their
//! command hooks become `builtin:bash-adapter` hooks speaking the file's dialect; anything
//! hookhost cannot honour is a load error naming where it is, never a silent drop.

use super::{OnError, RawCapability, RawConfig, RawExecutor, RawHook, TIMEOUT_RANGE_MS};
use hookhost_types::event::EventName;
use hookhost_types::matcher::MatcherSpec;
use serde_json::{json, Map, Value};

/// A config file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// hookhost's own TOML/JSON schema.
    Native,
    /// Everruns' `user_hooks` capability configs.
    Everruns,
    /// docker-agent's agent YAML (`hooks:` per agent).
    DockerAgent,
    /// Claude Code's `settings.json` `hooks`.
    ClaudeCode,
    /// Starchild's hooks YAML.
    Starchild,
}

impl Format {
    /// The format named on a command line (`native`, `everruns`, `docker-agent`, `claude-code`, `starchild`).
    pub fn parse(name: &str) -> Option<Format> {
        Some(match name {
            "native" | "hookhost" => Format::Native,
            "everruns" => Format::Everruns,
            "docker-agent" => Format::DockerAgent,
            "claude-code" => Format::ClaudeCode,
            "starchild" => Format::Starchild,
            _ => return None,
        })
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Native => "native",
            Format::Everruns => "everruns",
            Format::DockerAgent => "docker-agent",
            Format::ClaudeCode => "claude-code",
            Format::Starchild => "starchild",
        }
    }
}

/// Work out a parsed JSON/YAML document's format; a document with the marks of two formats is
/// an error that names both.
pub fn detect(doc: &Value, yaml: bool) -> Result<Format, String> {
    let hooks = doc.get("hooks");
    let executor_kinds = |hooks: Option<&Value>| {
        let list = hooks.and_then(Value::as_array).cloned().unwrap_or_default();
        let native = list.iter().any(|h| h.pointer("/executor/plugin").is_some());
        let everruns = list.iter().any(|h| h.pointer("/executor/type").is_some());
        (native, everruns)
    };
    let mut marks: Vec<(Format, &str)> = Vec::new();
    if yaml {
        if doc.get("agents").is_some() {
            marks.push((Format::DockerAgent, "an `agents` map"));
        }
        if hooks.is_some_and(Value::is_array) {
            marks.push((Format::Starchild, "a `hooks` list"));
        }
    } else {
        if doc.get("capabilities").is_some() {
            marks.push((Format::Everruns, "a `capabilities` list"));
        }
        if hooks.is_some_and(Value::is_object) {
            marks.push((Format::ClaudeCode, "a `hooks` object keyed by event"));
        }
        let (native, everruns) = executor_kinds(hooks);
        if everruns {
            marks.push((Format::Everruns, "hooks with `executor.type`"));
        }
        if native {
            marks.push((Format::Native, "hooks with `executor.plugin`"));
        }
    }
    marks.dedup_by_key(|m| m.0);
    match marks.as_slice() {
        [] if yaml => Err("not a known hook config: expected docker-agent YAML (`agents:`) or Starchild YAML (`hooks:` list)".into()),
        [] => Ok(Format::Native),
        [(one, _)] => Ok(*one),
        [(a, why_a), (b, why_b), ..] => Err(format!(
            "the file mixes config dialects: {why_a} is {} but {why_b} is {}; split it into one file per dialect",
            a.name(),
            b.name()
        )),
    }
}

/// Convert a peer document into the native form. Problems carry the peer file's paths.
pub fn convert(format: Format, doc: Value) -> Result<RawConfig, Vec<String>> {
    let mut problems = Vec::new();
    let raw = match format {
        Format::Native => unreachable!("native documents are deserialised directly"),
        Format::Everruns => everruns(doc, &mut problems),
        Format::DockerAgent => docker(doc, &mut problems),
        Format::ClaudeCode => claude(doc, &mut problems),
        Format::Starchild => starchild(doc, &mut problems),
    };
    if problems.is_empty() {
        Ok(raw)
    } else {
        Err(problems)
    }
}

fn shell_executor(dialect: &str, command: String, env: Option<Value>, working_dir: Option<Value>) -> RawExecutor {
    let mut settings = Map::new();
    settings.insert("command".into(), command.into());
    settings.insert("dialect".into(), dialect.into());
    if let Some(env) = env {
        settings.insert("env".into(), env);
    }
    if let Some(wd) = working_dir {
        settings.insert("working_dir".into(), wd);
    }
    RawExecutor { plugin: "builtin:bash-adapter".into(), settings: Some(Value::Object(settings)), fuel: None, memory_mib: None }
}

/// Seconds (a peer's timeout) to milliseconds within hookhost's range; longer ones are capped.
fn seconds(at: &str, v: Option<&Value>, default_s: u64, problems: &mut Vec<String>) -> u64 {
    let s = match v {
        None => default_s,
        Some(v) => match v.as_f64() {
            Some(s) if s > 0.0 => s as u64,
            _ => {
                problems.push(format!("{at}.timeout: must be a positive number of seconds"));
                default_s
            }
        },
    };
    let ms = (s * 1000).clamp(*TIMEOUT_RANGE_MS.start(), *TIMEOUT_RANGE_MS.end());
    if s * 1000 > *TIMEOUT_RANGE_MS.end() {
        tracing::info!("{at}: timeout of {s} s is capped at hookhost's maximum of 30 s");
    }
    ms
}

fn str_field(at: &str, h: &Value, key: &str, problems: &mut Vec<String>) -> Option<String> {
    match h.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        None => {
            problems.push(format!("{at}.{key}: required"));
            None
        }
        Some(_) => {
            problems.push(format!("{at}.{key}: must be a string"));
            None
        }
    }
}

fn unknown_keys(at: &str, h: &Value, known: &[&str], problems: &mut Vec<String>) {
    if let Some(obj) = h.as_object() {
        for key in obj.keys().filter(|k| !known.contains(&k.as_str())) {
            problems.push(format!("{at}.{key}: unknown field; known fields are {}", known.join(", ")));
        }
    }
}

// ---- Everruns ----

fn everruns(doc: Value, problems: &mut Vec<String>) -> RawConfig {
    let mut raw = RawConfig::default();
    let take_config = |config: &Value, at: &str, raw: &mut RawConfig, problems: &mut Vec<String>| -> Vec<RawHook> {
        unknown_keys(at, config, &["hooks", "disabled_contributions"], problems);
        if let Some(list) = config.get("disabled_contributions").and_then(Value::as_array) {
            raw.disabled_contributions.extend(list.iter().filter_map(Value::as_str).map(str::to_string));
        }
        let hooks = match config.get("hooks") {
            None => Vec::new(),
            Some(Value::Array(list)) => list.clone(),
            Some(_) => {
                problems.push(format!("{at}.hooks: must be a list of hooks"));
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
                    problems.push(format!("{at}.ref: required (the capability id)"));
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
        Some(_) => problems.push("capabilities: must be a list".into()),
        None => {
            raw.hooks = take_config(&doc, "user_hooks", &mut raw, problems);
            raw.user_path = Some("user_hooks.hooks".into());
        }
    }
    raw
}

fn everruns_hook(at: &str, h: &Value, problems: &mut Vec<String>) -> Option<RawHook> {
    unknown_keys(at, h, &["id", "event", "matcher", "executor", "timeout_ms", "on_error", "description"], problems);
    let event = str_field(at, h, "event", problems)?;
    let exec = h.get("executor").cloned().unwrap_or(Value::Null);
    unknown_keys(&format!("{at}.executor"), &exec, &["type", "command", "env"], problems);
    match exec.get("type").and_then(Value::as_str) {
        Some("bash") => {}
        Some(other) => problems.push(format!("{at}.executor.type: {other:?} is not supported; hookhost runs Everruns hooks of type \"bash\"")),
        None => problems.push(format!("{at}.executor.type: required (\"bash\")")),
    }
    let command = str_field(&format!("{at}.executor"), &exec, "command", problems)?;
    let matcher = match h.get("matcher") {
        None => None,
        Some(m) => match serde_json::from_value::<MatcherSpec>(m.clone()) {
            Ok(spec) => Some(spec),
            Err(e) => {
                problems.push(format!("{at}.matcher: {e}"));
                None
            }
        },
    };
    let on_error = match h.get("on_error") {
        // The file says nothing: a guard before a tool call fails closed (see guard_failure).
        None => guard_failure(EventName::from_canonical(&event).as_ref(), OnError::default()),
        Some(v) => serde_json::from_value(v.clone()).unwrap_or_else(|_| {
            problems.push(format!("{at}.on_error: {v} is not one of \"block\", \"allow\", \"warn\""));
            OnError::default()
        }),
    };
    Some(RawHook {
        id: h.get("id").and_then(Value::as_str).map(str::to_string),
        event,
        matcher,
        executor: shell_executor("everruns", command, exec.get("env").cloned(), None),
        timeout_ms: h.get("timeout_ms").and_then(Value::as_u64),
        on_error,
        description: h.get("description").and_then(Value::as_str).map(str::to_string),
    })
}

// ---- docker-agent ----

fn docker_event(name: &str) -> Option<EventName> {
    match name {
        "on_user_input" => Some(EventName::Notification),
        other => EventName::from_any(other),
    }
}

fn docker(doc: Value, problems: &mut Vec<String>) -> RawConfig {
    let mut raw = RawConfig::default();
    let Some(agents) = doc.get("agents").and_then(Value::as_object) else {
        problems.push("agents: must be a map of agent name to agent".into());
        return raw;
    };
    for (agent, def) in agents {
        let Some(hooks) = def.get("hooks") else { continue };
        let Some(events) = hooks.as_object() else {
            problems.push(format!("agents.{agent}.hooks: must be a map of event to hooks"));
            continue;
        };
        for (event_name, entries) in events {
            let at = format!("agents.{agent}.hooks.{event_name}");
            let Some(event) = docker_event(event_name) else {
                problems.push(format!("{at}: unknown docker-agent event {event_name:?}"));
                continue;
            };
            let Some(entries) = entries.as_array() else {
                problems.push(format!("{at}: must be a list"));
                continue;
            };
            for (i, entry) in entries.iter().enumerate() {
                let (handlers, matcher, hat) = if event.is_tool_event() {
                    let m = entry.get("matcher").and_then(Value::as_str).map(str::to_string);
                    let list = entry.get("hooks").and_then(Value::as_array).cloned().unwrap_or_default();
                    (list, m, format!("{at}[{i}].hooks"))
                } else {
                    (vec![entry.clone()], None, format!("{at}"))
                };
                for (j, handler) in handlers.iter().enumerate() {
                    let hat = if event.is_tool_event() { format!("{hat}[{j}]") } else { format!("{hat}[{i}]") };
                    let n = raw.hooks.len();
                    if let Some(hook) = docker_handler(&hat, agent, &event, handler, matcher.clone(), n, problems) {
                        raw.hooks.push(hook);
                    }
                }
            }
        }
    }
    raw
}

fn docker_handler(at: &str, agent: &str, event: &EventName, h: &Value, matcher: Option<String>, n: usize, problems: &mut Vec<String>) -> Option<RawHook> {
    unknown_keys(at, h, &["type", "command", "timeout", "name", "working_dir", "env", "on_error", "args"], problems);
    let kind = h.get("type").and_then(Value::as_str).unwrap_or("command");
    let command = str_field(at, h, "command", problems)?;
    let executor = match kind {
        "command" => shell_executor("docker-agent", command, h.get("env").cloned(), h.get("working_dir").cloned()),
        "builtin" => match command.as_str() {
            "redact_secrets" => RawExecutor { plugin: "builtin:redact-secrets".into(), settings: None, fuel: None, memory_mib: None },
            other => {
                problems.push(format!("{at}: unsupported docker-agent builtin {other:?}; hookhost provides redact_secrets (as builtin:redact-secrets); write the others as command hooks"));
                return None;
            }
        },
        other => {
            problems.push(format!("{at}.type: {other:?} hooks are not supported; use type: command"));
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
            problems.push(format!("{at}.on_error: {other:?} is not one of block, allow, warn"));
            OnError::Warn
        }
        None => OnError::Warn,
    };
    let name = h.get("name").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| format!("{agent}_{}_{n}", event.as_str()));
    Some(RawHook {
        id: Some(name),
        event: event.as_str().to_string(),
        matcher: matcher.filter(|m| event.is_tool_event() && !m.is_empty()).map(|m| MatcherSpec { tool_pattern: Some(m), ..Default::default() }),
        executor,
        timeout_ms: Some(seconds(at, h.get("timeout"), 60, problems)),
        on_error,
        description: None,
    })
}

/// The failure policy of a converted hook whose file sets none: a hook that guards a tool call
/// (`pre_tool_use`, `permission_request`) fails closed in every format — a guard that cannot
/// run must not look like a guard that passed — and every other hook keeps the peer's
/// documented behaviour (`otherwise`). docs/CONFIG.md lists each peer's rule.
fn guard_failure(event: Option<&EventName>, otherwise: OnError) -> OnError {
    match event {
        Some(EventName::PreToolUse | EventName::PermissionRequest) => OnError::Block,
        _ => otherwise,
    }
}

// ---- Claude Code ----

fn claude(doc: Value, problems: &mut Vec<String>) -> RawConfig {
    let mut raw = RawConfig::default();
    let Some(events) = doc.get("hooks").and_then(Value::as_object) else { return raw };
    for (event_name, groups) in events {
        let at = format!("hooks.{event_name}");
        let Some(event) = EventName::from_any(event_name).filter(|_| event_name.chars().next().is_some_and(char::is_uppercase)) else {
            problems.push(format!("{at}: unknown Claude Code hook event {event_name:?} (events are PascalCase: PreToolUse, PostToolUse, UserPromptSubmit, ...)"));
            continue;
        };
        for (i, group) in groups.as_array().cloned().unwrap_or_default().iter().enumerate() {
            unknown_keys(&format!("{at}[{i}]"), group, &["matcher", "hooks"], problems);
            let pattern = group.get("matcher").and_then(Value::as_str).map(str::to_string);
            for (j, h) in group.get("hooks").and_then(Value::as_array).cloned().unwrap_or_default().iter().enumerate() {
                let hat = format!("{at}[{i}].hooks[{j}]");
                unknown_keys(&hat, h, &["type", "command", "timeout", "if", "async", "statusMessage", "prompt", "model"], problems);
                match h.get("type").and_then(Value::as_str) {
                    Some("command") => {}
                    other => {
                        problems.push(format!("{hat}.type: {} hooks are not supported; hookhost runs type \"command\"", other.map_or("untyped".to_string(), |t| format!("{t:?}"))));
                        continue;
                    }
                }
                let Some(command) = str_field(&hat, h, "command", problems) else { continue };
                let if_rule = h.get("if").and_then(Value::as_str).map(str::to_string);
                let matcher = if event.is_tool_event() {
                    let tool_pattern = pattern.clone().filter(|p| !p.is_empty() && p != "*");
                    (tool_pattern.is_some() || if_rule.is_some()).then(|| MatcherSpec { tool_pattern, if_rule, ..Default::default() })
                } else {
                    // Claude matches lifecycle matchers against e.g. SessionStart's source.
                    pattern.clone().filter(|p| !p.is_empty() && p != "*").map(|p| MatcherSpec { payload_regex: Some(p), ..Default::default() })
                };
                let n = raw.hooks.len();
                raw.hooks.push(RawHook {
                    id: Some(format!("{}_{n}", event.as_str())),
                    event: event.as_str().to_string(),
                    matcher,
                    executor: shell_executor("claude-code", command, None, None),
                    timeout_ms: Some(seconds(&hat, h.get("timeout"), 60, problems)),
                    on_error: guard_failure(Some(&event), OnError::Warn),
                    description: None,
                });
            }
        }
    }
    raw
}

// ---- Starchild ----

fn starchild(doc: Value, problems: &mut Vec<String>) -> RawConfig {
    let mut raw = RawConfig::default();
    for (i, h) in doc.get("hooks").and_then(Value::as_array).cloned().unwrap_or_default().iter().enumerate() {
        let at = format!("hooks[{i}]");
        unknown_keys(&at, h, &["event", "matcher", "command", "timeout", "type", "url", "name"], problems);
        if let Some(kind) = h.get("type").and_then(Value::as_str).filter(|t| *t != "command") {
            problems.push(format!("{at}.type: unsupported transport {kind:?}; hookhost v0.1 runs command hooks only"));
            continue;
        }
        let Some(event_name) = str_field(&at, h, "event", problems) else { continue };
        let Some(event) = EventName::from_any(&event_name) else {
            problems.push(format!("{at}.event: unknown or unsupported Starchild event {event_name:?}"));
            continue;
        };
        let Some(command) = str_field(&at, h, "command", problems) else { continue };
        let timeout = h.get("timeout").cloned().map(|t| json!(t.as_f64().map(|s| s.min(120.0)).unwrap_or(-1.0)));
        raw.hooks.push(RawHook {
            id: Some(h.get("name").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| format!("{}_{i}", event.as_str()))),
            event: event.as_str().to_string(),
            matcher: h.get("matcher").and_then(Value::as_str).map(|m| MatcherSpec { payload_regex: Some(m.to_string()), ..Default::default() }),
            executor: shell_executor("starchild", command, None, None),
            timeout_ms: Some(seconds(&at, timeout.as_ref(), 20, problems)),
            on_error: guard_failure(Some(&event), OnError::Warn),
            description: None,
        });
    }
    raw
}
