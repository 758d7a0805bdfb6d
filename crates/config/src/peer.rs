//! Peer configuration files, loaded as they are (DIALECTS.md §1): Everruns capabilities JSON,
//! docker-agent agent YAML, Claude Code `settings.json`, Starchild `shell_hooks.yaml`. Their
//! command hooks become `builtin:bash-adapter` hooks speaking the file's dialect, running as
//! real processes where the host grants `process:exec` and in the sandbox (with the project
//! mounted read-only) where it does not. A file loads whole: every event of its runtime loads
//! (events hookhost does not model pass through as `custom:<Name>`), hooks hookhost does not
//! run (`http`, `prompt`, `agent`) are listed as not run, and keys the runtime does not
//! document are ignored with a warning. What is malformed is a load error naming where it is.

use super::{Capability, NotRun, OnError, RawCapability, RawConfig, RawExecutor, RawHook, StartFailure, TIMEOUT_RANGE_MS};
use hookhost_types::adapter::{AdapterSettings, SHELLS};
use hookhost_types::event::EventName;
use hookhost_types::runtime::{MatchOn as On, Runtime};
use hookhost_types::matcher::MatcherSpec;
use hookhost_types::spec::PEER_TIMEOUT_RANGE_MS;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// A config file format: hookhost's own, or a runtime's (its [`Profile::config_syntax`](hookhost_types::runtime::Profile)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// hookhost's own TOML/JSON schema.
    Native,
    /// A runtime's hook config, read as that runtime reads it.
    Peer(Runtime),
}

impl Format {
    /// The format named on a command line (`native`, or a runtime whose configs hookhost reads).
    pub fn parse(name: &str) -> Option<Format> {
        match name {
            "native" | "hookhost" => Some(Format::Native),
            other => Runtime::parse(other).filter(|r| r.profile().config_syntax == Some(*r)).map(Format::Peer),
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Format::Native => "native",
            Format::Peer(runtime) => runtime.name(),
        }
    }

    /// The runtimes whose configs hookhost reads, comma-separated (for messages).
    pub fn peer_names() -> String {
        Runtime::ALL.into_iter().filter(|r| Format::parse(r.name()).is_some()).map(Runtime::name).collect::<Vec<_>>().join(", ")
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
            marks.push((Format::Peer(Runtime::DockerAgent), "an `agents` map"));
        }
        if hooks.is_some_and(Value::is_array) {
            marks.push((Format::Peer(Runtime::Starchild), "a `hooks` list"));
        }
    } else {
        if doc.get("capabilities").is_some() {
            marks.push((Format::Peer(Runtime::Everruns), "a `capabilities` list"));
        }
        if hooks.is_some_and(Value::is_object) {
            marks.push((Format::Peer(Runtime::ClaudeCode), "a `hooks` object keyed by event"));
        }
        let (native, everruns) = executor_kinds(hooks);
        if everruns {
            marks.push((Format::Peer(Runtime::Everruns), "hooks with `executor.type`"));
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

/// How a peer file's hooks are converted: where its project is, what a hook that cannot start
/// becomes, and what its hooks are granted.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The project directory (absolute): the hooks' working directory and
    /// `$CLAUDE_PROJECT_DIR`, mounted read-only in the sandbox. `None`: the event's `cwd`.
    pub project_dir: Option<std::path::PathBuf>,
    /// What a converted hook that could not start becomes on an event that can block.
    pub start_failure: StartFailure,
    /// Capabilities every converted hook holds (a `[[peers]]` entry's `grants`).
    pub grants: Vec<Capability>,
    /// A Claude Code plugin's directory (`<plugin>/hooks/hooks.json`): `$CLAUDE_PLUGIN_ROOT`.
    pub plugin_root: Option<std::path::PathBuf>,
    /// What every converted hook's failure decides, over what its runtime documents (the
    /// including config's `peer_on_failure`).
    pub on_failure: Option<OnError>,
}

impl Options {
    /// The options of a peer file loaded on its own: its project is the directory holding the
    /// runtime's config directory (`<project>/.claude/settings.json`), else the file's own
    /// directory; a file in the user's home config (`~/.claude/settings.json`) has none (its
    /// hooks run in the event's `cwd`, as the runtime runs them).
    pub fn for_file(file: &Path) -> Options {
        match plugin_root_of(file) {
            // A plugin's hooks run in the session's project (the event's cwd).
            Some(root) => Options { plugin_root: Some(root), ..Options::default() },
            None => Options { project_dir: project_of(file), ..Options::default() },
        }
    }
}

/// The plugin directory of a Claude Code plugin's `hooks/hooks.json`.
fn plugin_root_of(file: &Path) -> Option<std::path::PathBuf> {
    let file = std::path::absolute(file).ok()?;
    let hooks = file.parent()?;
    (file.file_name()? == "hooks.json" && hooks.file_name()? == "hooks").then(|| hooks.parent().map(Path::to_path_buf)).flatten()
}

fn project_of(file: &Path) -> Option<std::path::PathBuf> {
    let file = std::path::absolute(file).ok()?;
    let dir = file.parent()?;
    let runtime_dir = dir.file_name().and_then(|n| n.to_str()).is_some_and(|n| matches!(n, ".claude" | ".codex" | ".gemini" | "config"));
    let project = if runtime_dir { dir.parent()? } else { dir };
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    if runtime_dir && home.as_deref() == Some(project) {
        return None;
    }
    Some(project.to_path_buf())
}

/// Convert a peer document into the native form. Problems carry the peer file's paths.
pub fn convert(format: Format, doc: Value, opts: &Options) -> Result<RawConfig, Vec<String>> {
    let mut problems = Vec::new();
    let mut raw = match format {
        Format::Native => unreachable!("native documents are deserialised directly"),
        Format::Peer(Runtime::Everruns) => everruns(doc, &mut problems),
        Format::Peer(Runtime::DockerAgent) => docker(doc, &mut problems),
        Format::Peer(Runtime::ClaudeCode) => claude(doc, &mut problems),
        Format::Peer(Runtime::Starchild) => starchild(doc, &mut problems),
        Format::Peer(other) => {
            problems.push(format!("hookhost does not read {} hook configs; it reads {}", other.title(), Format::peer_names()));
            RawConfig::default()
        }
    };
    // What every converted hook shares: its project, start-failure policy and grants.
    let hooks = raw.hooks.iter_mut().chain(raw.capabilities.iter_mut().flat_map(|c| c.hooks.iter_mut()));
    for hook in hooks {
        // An Everruns file is hookhost's own contract (seed 001): its timeout_ms range stands.
        hook.peer = format != Format::Peer(Runtime::Everruns);
        hook.grants.extend(opts.grants.iter().cloned());
        if let Some(on_failure) = opts.on_failure {
            hook.on_error = on_failure;
        }
        // A wasm built-in standing in for a peer's own (docker-agent's redact_secrets) keeps
        // hookhost's wasm timeout range.
        if hook.executor.plugin != "builtin:bash-adapter" {
            hook.peer = false;
            hook.timeout_ms = hook.timeout_ms.map(|ms| ms.clamp(*TIMEOUT_RANGE_MS.start(), *TIMEOUT_RANGE_MS.end()));
        }
        if hook.executor.plugin != "builtin:bash-adapter" {
            continue;
        }
        let Some(mut settings) = hook.executor.settings.take().and_then(|v| serde_json::from_value::<AdapterSettings>(v).ok()) else { continue };
        // Everruns hooks run in the session's workspace (the event's cwd), not beside the file.
        if let (Some(dir), false) = (&opts.project_dir, format == Format::Peer(Runtime::Everruns)) {
            settings.project_dir = Some(dir.to_string_lossy().into_owned());
        }
        if let (Some(root), Format::Peer(Runtime::ClaudeCode)) = (&opts.plugin_root, format) {
            settings.env.insert("CLAUDE_PLUGIN_ROOT".into(), root.to_string_lossy().into_owned());
        }
        let blocking = EventName::from_config(&hook.event).is_some_and(|e| e.can_block());
        settings.start_failure = Some(if blocking { opts.start_failure } else { StartFailure::Warn });
        settings.timeout_ms = hook.timeout_ms.or(settings.timeout_ms);
        hook.executor.settings = Some(settings.to_json());
    }
    if problems.is_empty() {
        Ok(raw)
    } else {
        Err(problems)
    }
}

/// Load the peer files a native config includes (`[[peers]]`): each is converted with its
/// entry's options, its hooks join the chain as a group named after its format (after the
/// config's capabilities, before its own hooks), its notes are kept with its path.
pub fn include(raw: &mut RawConfig, base: &Path) -> Result<(), Vec<String>> {
    include_with(raw, base, &crate::read_text)
}

/// [`include`], reading each peer file with `read` (a project's layer reads the bytes its
/// approval hashed, never the file again).
pub fn include_with(raw: &mut RawConfig, base: &Path, read: &dyn Fn(&Path) -> std::io::Result<String>) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    let peers = std::mem::take(&mut raw.peers);
    let mut ids: Vec<String> = raw.capabilities.iter().map(|c| c.id.clone()).collect();
    for (i, entry) in peers.iter().enumerate() {
        let at = format!("peers[{i}]");
        let path = base.join(&entry.path);
        let format = match entry.format.as_deref().map(|f| (f, Format::parse(f))) {
            None => None,
            Some((_, Some(Format::Native))) | Some((_, None)) => {
                problems.push(format!("{at}.format: {:?} is not a peer format; use everruns, docker-agent, claude-code or starchild", entry.format.as_deref().unwrap_or("")));
                continue;
            }
            Some((_, f)) => f,
        };
        let mut grants = Vec::new();
        for g in &entry.grants {
            match g.parse::<Capability>() {
                Ok(c) => grants.push(c),
                Err(e) => problems.push(format!("{at}.grants: {e}")),
            }
        }
        let text = match read(&path) {
            Ok(t) => t,
            Err(e) => {
                problems.push(format!("{at}.path: cannot read {} ({e}); check the path (it is relative to this config)", path.display()));
                continue;
            }
        };
        let project_dir = match &entry.project_dir {
            Some(dir) => std::path::absolute(base.join(dir)).ok(),
            None => project_of(&path),
        };
        let plugin_root = plugin_root_of(&path);
        let project_dir = if plugin_root.is_some() && entry.project_dir.is_none() { None } else { project_dir };
        let opts = Options { project_dir, start_failure: raw.peer_start_failure.unwrap_or_default(), grants, plugin_root, on_failure: raw.peer_on_failure };
        let peer = match crate::ConfigFile::raw_with(&text, &path, format, &opts) {
            Ok(p) if p.format == Format::Native => {
                problems.push(format!("{at}.path: {} is a native hookhost config, not a peer file; merge its hooks into this one", path.display()));
                continue;
            }
            Ok(p) => p,
            Err(e) => {
                problems.extend(e.problems.into_iter().map(|p| format!("{at} ({}): {p}", path.display())));
                continue;
            }
        };
        let (format, mut converted) = (peer.format, peer.raw);
        let mut id = format.name().to_string();
        let mut n = 1;
        while ids.contains(&id) {
            n += 1;
            id = format!("{}-{n}", format.name());
        }
        ids.push(id.clone());
        let shown = entry.path.display().to_string();
        raw.warnings.extend(converted.warnings.drain(..).map(|w| format!("{shown}: {w}")));
        raw.not_run.extend(converted.not_run.drain(..).map(|mut n| {
            n.at = format!("{shown}: {}", n.at);
            n
        }));
        raw.disabled_contributions.append(&mut converted.disabled_contributions);
        raw.capabilities.append(&mut converted.capabilities);
        let path_in_file = converted.user_path.clone().unwrap_or_else(|| "hooks".into());
        for hook in &mut converted.hooks {
            hook.at = hook.at.take().map(|at| format!("{shown}: {at}"));
        }
        raw.capabilities.push(RawCapability { id, hooks: converted.hooks, path: Some(format!("{shown}: {path_in_file}")) });
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn shell_executor(dialect: Runtime, command: String, env: BTreeMap<String, String>, working_dir: Option<String>) -> RawExecutor {
    // Where the host grants process:exec, a real process (as the runtime runs it); else the sandbox.
    let settings = AdapterSettings { env, working_dir, ..AdapterSettings::shell(dialect, command) };
    RawExecutor { plugin: "builtin:bash-adapter".into(), settings: Some(settings.to_json()), fuel: None, memory_mib: None }
}

/// A peer's `env` (or `working_dir`) as the adapter takes it: strings only; anything else is a
/// problem naming it.
fn string_map(at: &str, key: &str, v: Option<&Value>, problems: &mut Vec<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    match v {
        None => {}
        Some(Value::Object(map)) => {
            for (k, v) in map {
                match v.as_str() {
                    Some(text) => {
                        out.insert(k.clone(), text.to_string());
                    }
                    None => problems.push(format!("{at}.{key}.{k}: must be a string, not {}", hookhost_types::text::json_kind(v))),
                }
            }
        }
        Some(other) => problems.push(format!("{at}.{key}: must be a map of strings, not {}", hookhost_types::text::json_kind(other))),
    }
    out
}

/// A peer's HTTP hook: the bash adapter's `url` mode (it POSTs the dialect's JSON through
/// `wasi:http`, which the host lets out only under a `net:http:HOST[:PORT]` grant). `headers`
/// values may name the variables `allowedEnvVars` lists (Claude Code); the host fills them.
fn http_executor(at: &str, dialect: Runtime, h: &Value, env: &BTreeMap<String, String>, problems: &mut Vec<String>) -> Option<RawExecutor> {
    let url = str_field(at, h, "url", problems)?;
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        problems.push(format!("{at}.url: {url:?} must be an http:// or https:// URL"));
        return None;
    }
    let mut settings = AdapterSettings { url: Some(url), dialect: Some(dialect), env: env.clone(), ..Default::default() };
    match h.get("headers") {
        None => {}
        Some(Value::Object(map)) if map.values().all(Value::is_string) => {
            settings.headers = map.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string())).collect();
        }
        Some(_) => {
            problems.push(format!("{at}.headers: must be an object of strings"));
            return None;
        }
    }
    match h.get("allowedEnvVars") {
        None => {}
        Some(Value::Array(names)) if names.iter().all(Value::is_string) => {
            settings.allowed_env_vars = names.iter().filter_map(Value::as_str).map(str::to_string).collect();
        }
        Some(_) => {
            problems.push(format!("{at}.allowedEnvVars: must be a list of variable names"));
            return None;
        }
    }
    Some(RawExecutor { plugin: "builtin:bash-adapter".into(), settings: Some(settings.to_json()), fuel: None, memory_mib: None })
}

/// The exec form (`command` + `args`): the program and its arguments, no shell.
fn exec_form(exec: &mut RawExecutor, program: &str, args: &[String]) {
    exec.settings = exec.settings.take().map(|v| match serde_json::from_value::<AdapterSettings>(v.clone()) {
        Ok(settings) => AdapterSettings { command: None, argv: Some(std::iter::once(program.to_string()).chain(args.iter().cloned()).collect()), ..settings }.to_json(),
        Err(_) => v,
    });
}

/// A peer's `args`: a list of strings, else a problem.
fn args_field(at: &str, h: &Value, problems: &mut Vec<String>) -> Option<Vec<String>> {
    let v = h.get("args")?;
    let list: Option<Vec<String>> = v.as_array().and_then(|a| a.iter().map(|i| i.as_str().map(str::to_string)).collect());
    if list.is_none() {
        problems.push(format!("{at}.args: must be a list of strings"));
    }
    list
}

/// Seconds (a peer's timeout) to milliseconds, up to hookhost's ceiling for peer hooks (600 s,
/// Claude Code's default); a longer one is capped with a warning.
fn seconds(at: &str, v: Option<&Value>, default_s: u64, problems: &mut Vec<String>, warnings: &mut Vec<String>) -> u64 {
    let s = match v {
        None => default_s as f64,
        Some(v) => match v.as_f64() {
            Some(s) if s > 0.0 => s,
            _ => {
                problems.push(format!("{at}.timeout: must be a positive number of seconds"));
                default_s as f64
            }
        },
    };
    let max = *PEER_TIMEOUT_RANGE_MS.end();
    let ms = ((s * 1000.0) as u64).clamp(*PEER_TIMEOUT_RANGE_MS.start(), max);
    if s * 1000.0 > max as f64 {
        warnings.push(format!("{at}.timeout: {s} s is capped at hookhost's ceiling of {} s for peer hooks", max / 1000));
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

/// Keys a runtime does not document: ignored, one warning each (files in the wild carry
/// `description`, `blocking`, ...; the runtime ignores them too).
fn ignored_keys(at: &str, h: &Value, known: &[&str], warnings: &mut Vec<String>) {
    if let Some(obj) = h.as_object() {
        for key in obj.keys().filter(|k| !known.contains(&k.as_str())) {
            warnings.push(format!("{at}.{key}: not a field this runtime documents; ignored"));
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
    let mut hook = RawHook::converted(event, shell_executor(Runtime::Everruns, command, string_map(&format!("{at}.executor"), "env", exec.get("env"), problems), None), on_error);
    hook.id = h.get("id").and_then(Value::as_str).map(str::to_string);
    hook.matcher = matcher;
    hook.timeout_ms = h.get("timeout_ms").and_then(Value::as_u64);
    hook.description = h.get("description").and_then(Value::as_str).map(str::to_string);
    Some(hook)
}

// ---- docker-agent ----

/// docker-agent's events (its hooks reference, seed 003; [`Runtime::DockerAgent`]'s table): the
/// canonical event each is where hookhost models it; any other passes through as
/// `custom:<name>`.
fn docker_event(name: &str) -> EventName {
    Runtime::DockerAgent.canonical(name).or_else(|| EventName::from_any(name)).unwrap_or_else(|| EventName::Custom(name.to_string()))
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
            let event = docker_event(event_name);
            if let EventName::Custom(_) = event {
                if !valid_event_key(event_name) {
                    raw.warnings.push(format!("{at}: {event_name:?} is not an event name; ignored"));
                    continue;
                }
            }
            let Some(entries) = entries.as_array() else {
                problems.push(format!("{at}: must be a list"));
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

/// An event key a config can hold: letters, digits, `_`, `-`, `.`.
fn valid_event_key(name: &str) -> bool {
    EventName::from_config(&format!("custom:{name}")).is_some()
}

#[allow(clippy::too_many_arguments)]
fn docker_handler(at: &str, agent: &str, event: &EventName, h: &Value, matcher: Option<String>, n: usize, raw: &mut RawConfig, problems: &mut Vec<String>) -> Option<RawHook> {
    ignored_keys(at, h, &["type", "command", "timeout", "name", "working_dir", "env", "on_error", "args"], &mut raw.warnings);
    let kind = h.get("type").and_then(Value::as_str).unwrap_or("command");
    let executor = match kind {
        "command" => {
            let command = str_field(at, h, "command", problems)?;
            let working_dir = match h.get("working_dir") {
                None => None,
                Some(Value::String(dir)) => Some(dir.clone()),
                Some(other) => {
                    problems.push(format!("{at}.working_dir: must be a string, not {}", hookhost_types::text::json_kind(other)));
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
            problems.push(format!("{at}.on_error: {other:?} is not one of block, allow, warn"));
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

/// The failure policy of a converted hook whose file sets none, in the formats that fail closed
/// before a tool call (Everruns, Starchild): a hook that guards a tool call (`pre_tool_use`,
/// `permission_request`) blocks, every other hook keeps the peer's documented behaviour
/// (`otherwise`). Claude Code's hooks follow its own rule (`onFailure`). docs/CONFIG.md lists
/// each peer's rule.
fn guard_failure(event: Option<&EventName>, otherwise: OnError) -> OnError {
    match event {
        Some(EventName::PreToolUse | EventName::PermissionRequest) => OnError::Block,
        _ => otherwise,
    }
}

// ---- Claude Code ----

/// The handler fields Claude Code documents, per type.
const CLAUDE_COMMAND_KEYS: &[&str] = &["type", "command", "args", "shell", "timeout", "if", "async", "once", "statusMessage", "onFailure"];
const CLAUDE_HTTP_KEYS: &[&str] = &["type", "url", "headers", "allowedEnvVars", "timeout", "if", "async", "once", "statusMessage", "onFailure"];
const CLAUDE_OTHER_KEYS: &[&str] = &["type", "prompt", "model", "timeout", "if", "async", "once", "statusMessage", "server", "tool", "input"];

fn claude(doc: Value, problems: &mut Vec<String>) -> RawConfig {
    let mut raw = RawConfig::default();
    let events = match doc.get("hooks") {
        None => return raw,
        Some(Value::Object(events)) => events,
        Some(other) => {
            problems.push(format!("hooks: must be an object keyed by event name (\"PreToolUse\": [...]), not {}", hookhost_types::text::json_kind(other)));
            return raw;
        }
    };
    if doc.get("disableAllHooks").and_then(Value::as_bool) == Some(true) {
        raw.warnings.push("disableAllHooks is true: no hook of this file runs (as in Claude Code)".into());
        return raw;
    }
    // settings.json `env` is the session's environment, which its hooks inherit.
    let env: BTreeMap<String, String> = doc.get("env").and_then(Value::as_object).map(|m| m.iter().filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string()))).collect()).unwrap_or_default();
    for (event_name, groups) in events {
        let at = format!("hooks.{event_name}");
        // Its events table: hookhost_types::runtime, claude_code.rs.
        let (event, on) = match Runtime::ClaudeCode.event(event_name) {
            Some(row) => (row.canonical.clone().unwrap_or_else(|| EventName::Custom(row.name.to_string())), row.matcher),
            None if valid_event_key(event_name) => {
                raw.warnings.push(format!("{at}: {event_name:?} is not a Claude Code event hookhost knows; its hooks run on custom:{event_name} events, and their matchers are ignored"));
                (EventName::Custom(event_name.clone()), On::Nothing)
            }
            None => {
                raw.warnings.push(format!("{at}: {event_name:?} is not an event name; ignored"));
                continue;
            }
        };
        let Some(groups) = groups.as_array() else {
            problems.push(format!("{at}: must be a list of matcher groups"));
            continue;
        };
        for (i, group) in groups.iter().enumerate() {
            if !group.is_object() {
                problems.push(format!("{at}[{i}]: must be a matcher group {{\"matcher\": ..., \"hooks\": [...]}}, not {}", hookhost_types::text::json_kind(group)));
                continue;
            }
            ignored_keys(&format!("{at}[{i}]"), group, &["matcher", "hooks"], &mut raw.warnings);
            let pattern = group.get("matcher").and_then(Value::as_str).map(str::to_string).filter(|p| !p.is_empty() && p != "*");
            let Some(handlers) = group.get("hooks").and_then(Value::as_array) else {
                problems.push(format!("{at}[{i}].hooks: required, a list of hooks"));
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
fn claude_handler(at: &str, event: &EventName, on: On, pattern: Option<&str>, h: &Value, env: &BTreeMap<String, String>, raw: &mut RawConfig, problems: &mut Vec<String>) -> Option<RawHook> {
    let kind = match h.get("type").and_then(Value::as_str) {
        Some(kind) => kind.to_string(),
        None if h.get("command").is_some() => {
            raw.warnings.push(format!("{at}.type: missing; read as \"command\""));
            "command".into()
        }
        None => {
            problems.push(format!("{at}.type: required (command, http, prompt or agent)"));
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
            exec.settings = exec.settings.take().map(|v| match serde_json::from_value::<AdapterSettings>(v.clone()) {
                Ok(settings) => AdapterSettings { shell: Some(shell.to_string()), ..settings }.to_json(),
                Err(_) => v,
            });
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
            problems.push(format!("{at}.onFailure: {v} is not \"block\" or \"continue\""));
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

// ---- Starchild ----

fn starchild(doc: Value, problems: &mut Vec<String>) -> RawConfig {
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
        let mut hook = RawHook::converted(event.config_name(), exec, guard_failure(Some(&event), OnError::Warn));
        hook.at = Some(at.clone());
        hook.id = Some(h.get("name").and_then(Value::as_str).map(str::to_string).unwrap_or_else(|| format!("{}_{i}", event.as_str())));
        hook.matcher = h.get("matcher").and_then(Value::as_str).map(|m| MatcherSpec { payload_regex: Some(m.to_string()), ..Default::default() });
        hook.timeout_ms = Some(seconds(&at, timeout.as_ref(), 20, problems, &mut raw.warnings));
        raw.hooks.push(hook);
    }
    raw
}

impl RawHook {
    /// A hook converted from a peer file, before its id, matcher and timeout are set.
    fn converted(event: String, executor: RawExecutor, on_error: OnError) -> RawHook {
        RawHook { id: None, event, matcher: None, executor, timeout_ms: None, on_error, description: None, background: false, once: false, peer: true, grants: Vec::new(), at: None }
    }
}
