//! Peer configuration files, loaded as they are (docs/CONFIG.md, "Peer config files"): Everruns capabilities JSON,
//! docker-agent agent YAML, Claude Code `settings.json`, Starchild `shell_hooks.yaml`. Their
//! command hooks become `builtin:bash-adapter` hooks speaking the file's dialect, running as
//! real processes where the host grants `process:exec` and in the sandbox (with the project
//! mounted read-only) where it does not. A file loads whole: every event of its runtime loads
//! (events hookhost does not model pass through as `custom:<Name>`), hooks hookhost does not
//! run (`http`, `prompt`, `agent`) are listed as not run, and keys the runtime does not
//! document are ignored with a warning. What is malformed is a load error naming where it is.

use hookhost_types::Problem;
use super::{Capability, OnError, RawCapability, RawConfig, RawExecutor, RawHook, StartFailure, TIMEOUT_RANGE_MS};
use hookhost_types::adapter::AdapterSettings;
use hookhost_types::event::EventName;
use hookhost_types::runtime::Runtime;
use hookhost_types::spec::PEER_TIMEOUT_RANGE_MS;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

mod antigravity;
mod claude_code;
mod copilot;
mod cursor;
mod docker_agent;
mod everruns;
mod fields;
mod starchild;
use fields::*;

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
        // GitHub Copilot CLI's and Cursor's files say their version; Claude Code's settings do
        // not. Cursor's have events or entry fields Copilot's do not (a file whose path says
        // which is read as that: [`format_of_path`]).
        match (hooks.is_some_and(Value::is_object), doc.get("version").is_some()) {
            (true, true) if is_cursors(hooks) => marks.push((Format::Peer(Runtime::Cursor), "a `version`, and hooks of Cursor's (its events, `failClosed`)")),
            (true, true) => marks.push((Format::Peer(Runtime::Copilot), "a `version` and a `hooks` object")),
            (true, false) => marks.push((Format::Peer(Runtime::ClaudeCode), "a `hooks` object keyed by event")),
            _ => {}
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

/// Whether a versioned `hooks` object is Cursor's rather than Copilot's: an event only Cursor
/// has (`beforeShellExecution`, `stop`, …), or an entry with a field only Cursor documents.
fn is_cursors(hooks: Option<&Value>) -> bool {
    let Some(Value::Object(events)) = hooks else { return false };
    let cursor_only = |name: &str| Runtime::Cursor.event(name).is_some() && Runtime::Copilot.event(name).is_none();
    let cursor_fields = |entries: &Value| entries.as_array().into_iter().flatten().any(|e| e.get("failClosed").is_some() || e.get("loop_limit").is_some());
    events.iter().any(|(name, entries)| cursor_only(name) || cursor_fields(entries))
}

/// The format a file's place says it is in, where only one runtime keeps hook files there
/// (`.cursor/hooks.json`: Cursor's, whatever its events; `.agents/hooks.json` and
/// `~/.gemini/config/hooks.json`: Antigravity CLI's, whose top-level keys are hook names, which
/// no content test can tell).
pub fn format_of_path(file: &Path) -> Option<Format> {
    let dir = file.parent()?.file_name()?.to_str()?;
    if file.file_name()? != "hooks.json" {
        return None;
    }
    match dir {
        ".cursor" => Some(Format::Peer(Runtime::Cursor)),
        // Antigravity CLI's customization roots: a project's `.agents/`, the user's
        // `~/.gemini/config/`.
        ".agents" => Some(Format::Peer(Runtime::Antigravity)),
        "config" if file.parent()?.parent()?.file_name()? == ".gemini" => Some(Format::Peer(Runtime::Antigravity)),
        _ => None,
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

/// The plugin directory of a Claude Code plugin's `hooks/hooks.json` (not a runtime's own
/// config directory: Copilot's `.github/hooks/hooks.json` is a hook file of the repository).
fn plugin_root_of(file: &Path) -> Option<std::path::PathBuf> {
    let file = std::path::absolute(file).ok()?;
    let hooks = file.parent()?;
    let root = hooks.parent()?;
    (file.file_name()? == "hooks.json" && hooks.file_name()? == "hooks" && runtime_dir(root).is_none()).then(|| root.to_path_buf())
}

/// The name of `dir` when it is a runtime's config directory — a project's (`.claude`,
/// `.codex`, `.gemini`, `.github`) or a user's (`~/.copilot`), as `hookhost_types::runtime`'s
/// profiles name them — or hookhost's own `config`.
fn runtime_dir(dir: &Path) -> Option<&str> {
    let name = dir.file_name()?.to_str()?;
    let users = |r: &Runtime| r.profile().config_files.iter().filter_map(|f| f.strip_prefix("~/")?.split('/').next());
    let known = name == "config" || Runtime::ALL.iter().any(|r| r.profile().config_dir == Some(name) || users(r).any(|d| d == name));
    known.then_some(name)
}

fn project_of(file: &Path) -> Option<std::path::PathBuf> {
    let file = std::path::absolute(file).ok()?;
    let dir = file.parent()?;
    // The runtime's directory holds the file (`.claude/settings.json`) or its parent does
    // (Copilot's `.github/hooks/policy.json`).
    let in_runtime_dir = [Some(dir), dir.parent()].into_iter().flatten().find(|d| runtime_dir(d).is_some());
    let project = match in_runtime_dir {
        Some(runtime_dir) => runtime_dir.parent()?,
        None => dir,
    };
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    // The user's own files: `~/.claude/settings.json`, and `~/.gemini/config/hooks.json`
    // (Antigravity CLI's, one directory deeper).
    let users = home.as_deref() == Some(project) || (home.as_deref() == project.parent() && runtime_dir(project).is_some());
    if in_runtime_dir.is_some() && users {
        return None;
    }
    Some(project.to_path_buf())
}
/// Convert a peer document into the native form. Problems carry the peer file's paths.
pub fn convert(format: Format, doc: Value, opts: &Options) -> Result<RawConfig, Vec<Problem>> {
    let mut problems = Vec::new();
    let mut raw = match format {
        Format::Native => unreachable!("native documents are deserialised directly"),
        Format::Peer(Runtime::Everruns) => everruns::everruns(doc, &mut problems),
        Format::Peer(Runtime::DockerAgent) => docker_agent::docker(doc, &mut problems),
        Format::Peer(Runtime::ClaudeCode) => claude_code::claude(doc, &mut problems),
        Format::Peer(Runtime::Starchild) => starchild::starchild(doc, &mut problems),
        Format::Peer(Runtime::Copilot) => copilot::copilot(doc, &mut problems),
        Format::Peer(Runtime::Cursor) => cursor::cursor(doc, &mut problems),
        Format::Peer(Runtime::Antigravity) => antigravity::antigravity(doc, &mut problems),
        Format::Peer(other) => {
            problems.push(Problem::file(format!("hookhost does not read {} hook configs; it reads {}", other.title(), Format::peer_names())));
            RawConfig::default()
        }
    };
    // What every converted hook shares: its project, start-failure policy and grants.
    let hooks = raw.hooks.iter_mut().chain(raw.capabilities.iter_mut().flat_map(|c| c.hooks.iter_mut()));
    for hook in hooks {
        // An Everruns file is hookhost's own contract: its timeout_ms range stands.
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
            continue;
        }
        let blocking = EventName::from_config(&hook.event).is_some_and(|e| e.can_block());
        let timeout_ms = hook.timeout_ms;
        edit_adapter(&mut hook.executor, |settings| {
            // Everruns hooks run in the session's workspace (the event's cwd), not beside the file.
            if let (Some(dir), false) = (&opts.project_dir, format == Format::Peer(Runtime::Everruns)) {
                settings.project_dir = Some(dir.to_string_lossy().into_owned());
            }
            if let (Some(root), Format::Peer(Runtime::ClaudeCode)) = (&opts.plugin_root, format) {
                settings.env.insert("CLAUDE_PLUGIN_ROOT".into(), root.to_string_lossy().into_owned());
            }
            settings.start_failure = Some(if blocking { opts.start_failure } else { StartFailure::Warn });
            settings.timeout_ms = timeout_ms.or(settings.timeout_ms);
        });
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
pub fn include(raw: &mut RawConfig, base: &Path) -> Result<(), Vec<Problem>> {
    include_with(raw, base, &crate::read_text)
}

/// [`include()`], reading each peer file with `read` (a project's layer reads the bytes its
/// approval hashed, never the file again).
pub fn include_with(raw: &mut RawConfig, base: &Path, read: &dyn Fn(&Path) -> std::io::Result<String>) -> Result<(), Vec<Problem>> {
    let mut problems = Vec::new();
    let peers = std::mem::take(&mut raw.peers);
    let mut ids: Vec<String> = raw.capabilities.iter().map(|c| c.id.clone()).collect();
    for (i, entry) in peers.iter().enumerate() {
        let at = format!("peers[{i}]");
        let path = base.join(&entry.path);
        let format = match entry.format.as_deref().map(|f| (f, Format::parse(f))) {
            None => None,
            Some((_, Some(Format::Native))) | Some((_, None)) => {
                problems.push(Problem::at(format!("{at}.format"), format!("{:?} is not a peer format; use {}", entry.format.as_deref().unwrap_or(""), Format::peer_names())));
                continue;
            }
            Some((_, f)) => f,
        };
        let mut grants = Vec::new();
        for g in &entry.grants {
            match g.parse::<Capability>() {
                Ok(c) => grants.push(c),
                Err(e) => problems.push(Problem::at(format!("{at}.grants"), e.to_string())),
            }
        }
        let text = match read(&path) {
            Ok(t) => t,
            Err(e) => {
                problems.push(Problem::at(format!("{at}.path"), format!("cannot read {} ({e}); check the path (it is relative to this config)", path.display())));
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
                problems.push(Problem::at(format!("{at}.path"), format!("{} is a native hookhost config, not a peer file; merge its hooks into this one", path.display())));
                continue;
            }
            Ok(p) => p,
            Err(e) => {
                problems.extend(e.problems.into_iter().map(|p| Problem::at(format!("{at}.path"), format!("{}: {p}", path.display()))));
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

/// The event a runtime's config key names, and what its matchers test: its events table's row
/// (an event hookhost does not model is `custom:<Name>`); another key that can name an event is
/// a custom event with a warning; anything else is ignored with a warning (`None`).
fn runtime_event(at: &str, key: &str, runtime: Runtime, row: Option<&hookhost_types::runtime::RuntimeEvent>, warnings: &mut Vec<String>) -> Option<(EventName, hookhost_types::runtime::MatchOn)> {
    match row {
        Some(row) => Some((row.canonical.clone().unwrap_or_else(|| EventName::Custom(row.name.to_string())), row.matcher)),
        None if valid_event_key(key) => {
            warnings.push(format!("{at}: {key:?} is not a {} event hookhost knows; its hooks run on custom:{key} events, and their matchers are ignored", runtime.title()));
            Some((EventName::Custom(key.to_string()), hookhost_types::runtime::MatchOn::Nothing))
        }
        None => {
            warnings.push(format!("{at}: {key:?} is not an event name; ignored"));
            None
        }
    }
}

/// The `hooks` object of a runtime's JSON file keyed by event (`example`: one of its event
/// names, for the message), or `None` when there is nothing to load: none, not an object (a
/// problem), or `disableAllHooks` (a warning, as the runtime skips them).
fn hooks_by_event<'a>(doc: &'a Value, runtime: Runtime, example: &str, raw: &mut RawConfig, problems: &mut Vec<Problem>) -> Option<&'a serde_json::Map<String, Value>> {
    let events = match doc.get("hooks")? {
        Value::Object(events) => events,
        other => {
            problems.push(Problem::at("hooks", format!("must be an object keyed by event name (\"{example}\": [...]), not {}", hookhost_types::text::json_kind(other))));
            return None;
        }
    };
    if doc.get("disableAllHooks").and_then(Value::as_bool) == Some(true) {
        raw.warnings.push(format!("disableAllHooks is true: no hook of this file runs (as in {})", runtime.title()));
        return None;
    }
    Some(events)
}

/// An event key a config can hold: letters, digits, `_`, `-`, `.`.
fn valid_event_key(name: &str) -> bool {
    EventName::from_config(&format!("custom:{name}")).is_some()
}

/// The failure policy of a converted hook whose file sets none, in the format that fails closed
/// before a tool call (Everruns): a hook that guards a tool call (`pre_tool_use`,
/// `permission_request`) blocks, every other hook keeps the peer's documented behaviour
/// (`otherwise`). Claude Code's hooks follow its own rule (`onFailure`). docs/CONFIG.md lists
/// each peer's rule.
fn guard_failure(event: Option<&EventName>, otherwise: OnError) -> OnError {
    match event {
        Some(EventName::PreToolUse | EventName::PermissionRequest) => OnError::Block,
        _ => otherwise,
    }
}

impl RawHook {
    /// A hook converted from a peer file, before its id, matcher and timeout are set.
    fn converted(event: String, executor: RawExecutor, on_error: OnError) -> RawHook {
        RawHook { id: None, event, matcher: None, executor, timeout_ms: None, on_error, description: None, background: false, once: false, mode: None, peer: true, grants: Vec::new(), at: None }
    }
}
