//! What hookhost writes into each runtime's own hook configuration: the file per scope, the
//! events it wires, the entry for each, and how an entry of hookhost's is recognised again (to
//! update it in place, to uninstall it, and for `doctor`).
//!
//! The file formats, from each runtime's hooks reference (docs/INTEGRATIONS.md cites them):
//! Claude Code's `settings.json` `hooks` (event → matcher groups → handlers,
//! <https://code.claude.com/docs/en/hooks>), Codex's `hooks.json` (the same shape, codex-rs
//! `config/src/hook_config.rs`), Gemini CLI's `settings.json` `hooks` (the same shape,
//! `docs/hooks/reference.md`), GitHub Copilot CLI's `.github/hooks/*.json` (`version: 1`, event →
//! handlers with a `bash` / `powershell` command, docs.github.com "hooks reference").

use super::json::Json;
use hookhost_types::paths::Os;
use hookhost_types::runtime::{Install, Layout, McpHooks, Payload};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// A runtime `hookhost install` wires: one whose profile says how
/// ([`hookhost_types::runtime::Install`]; every fact below is read from there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Runtime(hookhost::Runtime);

/// The runtimes install wires, in the profiles' order.
static INSTALLABLE: LazyLock<Vec<Runtime>> = LazyLock::new(|| hookhost::Runtime::ALL.into_iter().filter(|r| r.profile().install.is_some()).map(Runtime).collect());

impl clap::ValueEnum for Runtime {
    fn value_variants<'a>() -> &'a [Self] {
        Runtime::all()
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.name()))
    }
}

/// Where the wiring goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Scope {
    /// Your own settings: every project you open.
    User,
    /// The project's settings (shared with whoever clones it).
    Project,
    /// The runtime's managed (system) settings, which only an administrator can write and a
    /// user or repository cannot switch off (as root).
    Managed,
}

/// How the runtime reaches hookhost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Wiring {
    /// `hookhost run --output P`: a process per event, nothing to keep running.
    Command,
    /// `hookhost-send --output P`: a small process per event that hands it to `hookhost serve`
    /// (and runs it itself when no daemon answers).
    Send,
    /// The runtime's own HTTP hook straight to `hookhost serve` (Claude Code only).
    Http,
    /// The runtime's hooks call the `hook` tool of `hookhost mcp`, an MCP server it starts
    /// once per session (Claude Code's `mcp_tool` hooks).
    Mcp,
    /// The same tool served by `hookhost serve` at `/mcp/<protocol>` (MCP's streamable HTTP):
    /// no process of hookhost's per session.
    McpHttp,
}

impl Wiring {
    /// Whether the runtime's hooks call an MCP tool (and its MCP servers list hookhost's).
    pub(crate) fn is_mcp(self) -> bool {
        matches!(self, Wiring::Mcp | Wiring::McpHttp)
    }
}

impl Runtime {
    /// Every runtime install wires.
    pub(crate) fn all() -> &'static [Runtime] {
        &INSTALLABLE
    }

    /// The runtime in hookhost's one runtime vocabulary (its profile: name, title, events).
    pub(crate) fn shared(self) -> hookhost::Runtime {
        self.0
    }

    /// How it is wired (every runtime of [`Runtime::all`] has this).
    fn install(self) -> &'static Install {
        self.0.profile().install.as_ref().unwrap_or_else(|| unreachable!("{} is wired by install only with an Install in its profile", self.0))
    }

    pub(crate) fn name(self) -> &'static str {
        self.0.name()
    }

    /// The runtime's name for people.
    pub(crate) fn title(self) -> &'static str {
        self.0.title()
    }

    /// The runtime's program, looked for on PATH by `--detected` and `doctor`.
    pub(crate) fn program(self) -> &'static str {
        self.install().program
    }

    /// `--output` for this runtime.
    pub(crate) fn protocol(self) -> &'static str {
        self.name()
    }

    /// The events hookhost wires, each with its matcher (None: the runtime's "every tool" or an
    /// event that takes none): what gates an action (tool calls, permissions, prompts), what
    /// keeps a secret in a tool's output from the model, and the stop.
    pub(crate) fn events(self) -> &'static [(&'static str, Option<&'static str>)] {
        self.install().events
    }

    /// The event a destructive tool call arrives on (`doctor`'s probe).
    pub(crate) fn tool_event(self) -> &'static str {
        self.events()[0].0
    }

    /// Whether `event` holds matcher groups holding handlers (else it holds the handlers
    /// themselves): every event of a [`Layout::Groups`] file; in a drop-in or a
    /// [`Layout::MatcherGroups`] file, the events wired with a matcher.
    fn groups_on(self, event: &str) -> bool {
        match self.install().layout {
            Layout::Groups => true,
            Layout::DropIn | Layout::MatcherGroups => self.events().iter().any(|(e, m)| *e == event && m.is_some()),
            Layout::Handlers { .. } | Layout::Plugin | Layout::YamlList => false,
        }
    }

    /// Whether its hooks file is a YAML list of entries hookhost adds to ([`super::yaml_list`]).
    pub(crate) fn is_yaml_list(self) -> bool {
        self.install().layout == Layout::YamlList
    }

    /// Whether it is wired by a file of hookhost's alone in a directory the runtime reads every
    /// file of ([`super::drop_in`]).
    pub(crate) fn is_drop_in(self) -> bool {
        self.install().layout == Layout::DropIn
    }

    /// Whether its payloads name no event, so its command is told the event it is wired under.
    fn names_no_event(self) -> bool {
        matches!(self.0.profile().payload, Payload::Camel(_))
    }

    /// The handler key holding the command.
    fn command_key(self) -> &'static str {
        match self.install().layout {
            Layout::Groups | Layout::MatcherGroups | Layout::Plugin | Layout::DropIn | Layout::YamlList => "command",
            Layout::Handlers { key, .. } => key,
        }
    }

    /// Whether it is wired by a plugin module of hookhost's own rather than entries in a hooks
    /// file ([`super::plugin`]).
    pub(crate) fn is_plugin(self) -> bool {
        self.install().layout == Layout::Plugin
    }

    /// The wirings the runtime can take.
    pub(crate) fn takes(self, wiring: Wiring) -> Result<(), String> {
        match wiring {
            Wiring::Command | Wiring::Send => Ok(()),
            Wiring::Http => self.install().http.map_err(str::to_string),
            Wiring::Mcp | Wiring::McpHttp => self.mcp().map(|_| ()),
        }
    }

    /// How its hooks call an MCP tool, or why they cannot.
    pub(crate) fn mcp(self) -> Result<&'static McpHooks, String> {
        self.install().mcp.as_ref().map_err(|e| e.to_string())
    }

    /// Whether a failure of hookhost's on `event` (the runtime's own name) must block: what
    /// `hookhost run` does by default, for a wiring whose failures the runtime itself handles
    /// (an MCP tool hook's `onFailure`).
    fn gates_an_action(self, event: &str) -> bool {
        self.0.canonical(event).is_some_and(|e| e.gates_an_action())
    }

    /// The runtime's managed hooks file on `os`: where its administrator's settings live (a
    /// fixed system path no user setting moves).
    pub(crate) fn managed_file(self, os: Os) -> Result<&'static str, String> {
        let managed = &self.install().managed;
        match os {
            Os::Unix => managed.unix,
            Os::MacOs => managed.macos,
            Os::Windows => managed.windows,
        }
        .map_err(str::to_string)
    }

    /// The hooks file at `scope`.
    pub(crate) fn hooks_file(self, scope: Scope, places: &Places) -> Result<PathBuf, String> {
        Ok(match scope {
            Scope::Managed => places.system(self.managed_file(Os::CURRENT)?),
            Scope::User => self.home_dir(places).join(self.install().user_file),
            Scope::Project => places.project.join(self.install().project_file?),
        })
    }

    /// Whether the runtime is on this machine: its program on PATH, or its directory in the
    /// home. A directory outside the home (Starchild's container workspace, `/data/workspace`)
    /// says nothing of a desk: such a runtime is wired and checked only when named.
    pub(crate) fn found(self, places: &Places) -> bool {
        super::on_path(self.program()).is_some() || (!self.install().home.starts_with('/') && self.home_dir(places).is_dir())
    }

    /// The runtime's own directory in the home (or where its variable moves it): whether it has
    /// ever run here.
    pub(crate) fn home_dir(self, places: &Places) -> PathBuf {
        let install = self.install();
        install.home_vars.iter().find_map(|v| places.moved.get(v).cloned()).unwrap_or_else(|| places.home.join(install.home))
    }
}

/// Codex's home (`$CODEX_HOME`, else `~/.codex`): where its `config.toml` holds its trust.
pub(crate) fn codex_home(places: &Places) -> PathBuf {
    Runtime(hookhost::Runtime::Codex).home_dir(places)
}

/// The directories install and doctor work in: from the environment, or a test's.
#[derive(Clone, Debug)]
pub(crate) struct Places {
    pub home: PathBuf,
    /// The runtimes' home directories moved by their variables (`CODEX_HOME`), by variable,
    /// resolved to their real paths.
    pub moved: BTreeMap<&'static str, PathBuf>,
    /// The project (`--project`, else the working directory), absolute.
    pub project: PathBuf,
    /// Where the system's files are: `/` (the drive's root on Windows), or an image's root
    /// (`--root`).
    pub root: Option<PathBuf>,
}

impl Places {
    pub(crate) fn from_env(project: Option<&Path>) -> Result<Places, String> {
        let var = |v: &str| std::env::var_os(v).filter(|s| !s.is_empty()).map(PathBuf::from);
        let home = if cfg!(windows) { var("USERPROFILE").or_else(|| var("HOME")) } else { var("HOME") }
            .ok_or("no home directory is known: set HOME (USERPROFILE on Windows)")?;
        // Codex resolves $CODEX_HOME to its real path (and its trust keys are made of it); a
        // home directory not moved is taken as it is.
        let moved = Runtime::all()
            .iter()
            .flat_map(|r| r.install().home_vars)
            .copied()
            .filter_map(|v| var(v).map(|dir| (v, std::fs::canonicalize(&dir).unwrap_or(dir))))
            .collect();
        let cwd = std::env::current_dir().map_err(|e| format!("cannot read the working directory: {e}"))?;
        let project = match project {
            Some(p) => cwd.join(p),
            None => cwd,
        };
        // The runtimes name projects by their real path (Codex's and Gemini CLI's trust lists).
        let project = std::fs::canonicalize(&project).map_err(|e| format!("--project {}: {e}", project.display()))?;
        Ok(Places { home, moved, project, root: None })
    }

    /// A system path, under `--root` when one is given.
    pub(crate) fn system(&self, path: &str) -> PathBuf {
        match &self.root {
            None => PathBuf::from(path),
            Some(root) => {
                let relative = path.trim_start_matches('/');
                // A drive letter (C:\...) goes too.
                let relative = relative.split_once(":\\").map_or(relative, |(_, rest)| rest);
                root.join(relative.replace('\\', "/"))
            }
        }
    }
}

/// The programs a wiring runs, and its options.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// The `hookhost` binary, absolute.
    pub hookhost: PathBuf,
    /// `hookhost-send`, absolute (beside `hookhost`).
    pub send: PathBuf,
    pub wiring: Wiring,
    /// `--fail-open` / `--fail-closed`, passed on to every command.
    pub failure_flag: Option<&'static str>,
    /// The daemon's URL for `--wiring http` and `mcp-http`.
    pub server: String,
}

/// `path` as one word of a shell command: as it is when nothing in it is special, else quoted
/// (single quotes for sh, double quotes for Windows' shells).
pub(crate) fn shell_word(path: &Path, windows: bool) -> String {
    let s = path.display().to_string();
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c) || (windows && c == '\\');
    if !s.is_empty() && s.chars().all(plain) {
        s
    } else if windows {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

impl Target {
    /// The command the runtime runs for `event`.
    pub(crate) fn command(&self, runtime: Runtime, event: &str) -> String {
        // Handlers with a command per shell take sh's quoting (a path quoted '…' is a
        // PowerShell string too).
        let windows = cfg!(windows) && !matches!(runtime.install().layout, Layout::Handlers { .. });
        let mut cmd = match self.wiring {
            Wiring::Send => format!("{} --output {}", shell_word(&self.send, windows), runtime.protocol()),
            _ => format!("{} run --output {}", shell_word(&self.hookhost, windows), runtime.protocol()),
        };
        if runtime.names_no_event() {
            // Its input names no event: the one it is configured under.
            cmd.push_str(&format!(" --event-name {event}"));
        }
        if let Some(flag) = self.failure_flag {
            cmd.push(' ');
            cmd.push_str(flag);
        }
        cmd
    }

    /// The handler hookhost puts under `event`.
    pub(crate) fn handler(&self, runtime: Runtime, event: &str) -> Json {
        let mut h = Json::obj();
        if self.wiring == Wiring::Http {
            h.set("type", Json::str("http"));
            h.set("url", Json::str(format!("{}/v1/hooks/{}", self.server.trim_end_matches('/'), runtime.protocol())));
            let mut headers = Json::obj();
            headers.set("Authorization", Json::str("Bearer $HOOKHOST_TOKEN"));
            h.set("headers", headers);
            h.set("allowedEnvVars", Json::Array(vec![Json::str("HOOKHOST_TOKEN")]));
            return h;
        }
        if self.wiring.is_mcp() {
            h.set("type", Json::str("mcp_tool"));
            h.set("server", Json::str(crate::mcp::SERVER));
            h.set("tool", Json::str(crate::mcp::TOOL));
            let mut input = Json::obj();
            if let Ok(mcp) = runtime.mcp() {
                for (field, placeholder) in mcp.template(event) {
                    input.set(&field, Json::str(placeholder.as_str().unwrap_or_default()));
                }
            }
            h.set("input", input);
            h.set("onFailure", Json::str(if self.blocks_on_failure(runtime, event) { "block" } else { "continue" }));
            return h;
        }
        h.set("type", Json::str("command"));
        h.set(runtime.command_key(), Json::str(self.command(runtime, event)));
        if runtime.command_key() == "bash" && cfg!(windows) {
            // The same words: a path quoted for sh ('…') is a PowerShell string too.
            h.set("powershell", Json::str(format!("& {}", self.command(runtime, event))));
        }
        if let Layout::Handlers { fail_closed: true, .. } = runtime.install().layout {
            h.set("failClosed", Json::Bool(self.blocks_on_failure(runtime, event)));
        }
        h
    }

    /// Whether the runtime is to block when hookhost does not answer on `event` (its server not
    /// connected, a crash, a timeout): where `hookhost run` would block on its own failure.
    fn blocks_on_failure(&self, runtime: Runtime, event: &str) -> bool {
        match self.failure_flag {
            Some("--fail-open") => false,
            Some(_) => true,
            None => runtime.gates_an_action(event),
        }
    }

    /// What goes into the event's array: a matcher group holding the handler, or the handler.
    pub(crate) fn entry(&self, runtime: Runtime, event: &str, matcher: Option<&str>) -> Json {
        let handler = self.handler(runtime, event);
        if !runtime.groups_on(event) {
            return handler;
        }
        let mut group = Json::obj();
        if let Some(m) = matcher {
            group.set("matcher", Json::str(m));
        }
        group.set("hooks", Json::Array(vec![handler]));
        group
    }
}

/// The first word of a shell command, unquoted.
pub(crate) fn first_word(cmd: &str) -> String {
    let cmd = cmd.trim_start().trim_start_matches("& ").trim_start();
    for q in ['\'', '"'] {
        if let Some(rest) = cmd.strip_prefix(q) {
            return rest.split(q).next().unwrap_or("").to_string();
        }
    }
    cmd.split_whitespace().next().unwrap_or("").to_string()
}

/// Whether a handler is one of hookhost's: a command whose program is `hookhost` or
/// `hookhost-send` answering in a runtime's protocol, an http hook to hookhost serve's
/// `/v1/hooks/` route, or an MCP tool hook calling `hookhost mcp`'s tool.
pub(crate) fn is_ours(handler: &Json) -> bool {
    match handler.get("type").and_then(Json::as_str) {
        Some("http") => return handler.get("url").and_then(Json::as_str).is_some_and(|u| u.contains("/v1/hooks/")),
        Some("mcp_tool") => return handler.get("server").and_then(Json::as_str) == Some(crate::mcp::SERVER) && handler.get("tool").and_then(Json::as_str) == Some(crate::mcp::TOOL),
        _ => {}
    }
    ["command", "bash"].iter().filter_map(|k| handler.get(k).and_then(Json::as_str)).any(|cmd| {
        let program = first_word(cmd);
        let name = Path::new(&program.replace('\\', "/")).file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
        let name = name.strip_suffix(".exe").unwrap_or(&name).to_string();
        (name == "hookhost" || name == "hookhost-send") && cmd.contains("--output")
    })
}

/// hookhost's handlers under `event` in a runtime's `hooks` object: (group index, handler
/// index, handler). For Copilot the group index is the handler's and the handler index 0.
pub(crate) fn our_handlers<'a>(runtime: Runtime, hooks: &'a Json, event: &str) -> Vec<(usize, usize, &'a Json)> {
    let mut out = Vec::new();
    for (gi, item) in hooks.get(event).and_then(Json::as_array).into_iter().flatten().enumerate() {
        if runtime.groups_on(event) {
            for (hi, h) in item.get("hooks").and_then(Json::as_array).into_iter().flatten().enumerate() {
                if is_ours(h) {
                    out.push((gi, hi, h));
                }
            }
        } else if is_ours(item) {
            out.push((gi, 0, item));
        }
    }
    out
}

/// Put `target`'s wiring into a runtime's settings document: each event gets hookhost's entry
/// (an entry of hookhost's already there is updated in place, so the others' positions do not
/// move), hookhost's entries elsewhere are removed, everything else is left as it was.
pub(crate) fn wire(runtime: Runtime, doc: &mut Json, target: &Target) -> Result<(), String> {
    if !matches!(doc, Json::Object(_)) {
        return Err("the file does not hold a JSON object".into());
    }
    if let (Layout::Handlers { version, .. }, None) = (runtime.install().layout, doc.get("version")) {
        doc.set("version", Json::Number(version.into()));
    }
    let hooks = doc.entry_obj("hooks").ok_or("its \"hooks\" is not an object")?;
    let wanted: Vec<&str> = runtime.events().iter().map(|(e, _)| *e).collect();
    // Other events: hookhost's entries go.
    let others: Vec<String> = hooks.fields().iter().map(|(k, _)| k.clone()).filter(|k| !wanted.contains(&k.as_str())).collect();
    for event in others {
        strip(runtime, hooks, &event, None);
    }
    for (event, matcher) in runtime.events() {
        let entry = target.entry(runtime, event, *matcher);
        if hooks.get(event).is_some_and(|v| v.as_array().is_none()) {
            return Err(format!("its hooks.{event} is not an array"));
        }
        if hooks.get(event).is_none() {
            hooks.set(event, Json::Array(Vec::new()));
        }
        // The first entry that is hookhost's alone takes the new one; every other handler of
        // hookhost's under this event goes.
        let items = match hooks.get(event) {
            Some(Json::Array(items)) => items.clone(),
            _ => Vec::new(),
        };
        let ours_alone = |item: &Json| {
            if runtime.groups_on(event) {
                let hs = item.get("hooks").and_then(Json::as_array);
                hs.is_some_and(|hs| !hs.is_empty() && hs.iter().all(is_ours))
            } else {
                is_ours(item)
            }
        };
        let keep_at = items.iter().position(ours_alone);
        strip(runtime, hooks, event, keep_at);
        if hooks.get(event).is_none() {
            hooks.set(event, Json::Array(Vec::new()));
        }
        if let Some(Json::Array(items)) = hooks.get_mut(event) {
            match keep_at {
                Some(at) => items[at] = entry,
                None => items.push(entry),
            }
        }
    }
    Ok(())
}

/// Remove hookhost's handlers under `event` (but for the item at `spare`); drop groups and the
/// event left empty by that.
pub(crate) fn strip(runtime: Runtime, hooks: &mut Json, event: &str, spare: Option<usize>) {
    let Some(Json::Array(items)) = hooks.get_mut(event) else { return };
    let mut out = Vec::with_capacity(items.len());
    for (i, mut item) in std::mem::take(items).into_iter().enumerate() {
        if Some(i) == spare {
            out.push(item);
            continue;
        }
        if runtime.groups_on(event) {
            let had = item.get("hooks").and_then(Json::as_array).map_or(0, Vec::len);
            if let Some(Json::Array(hs)) = item.get_mut("hooks") {
                hs.retain(|h| !is_ours(h));
                if hs.is_empty() && had > 0 {
                    continue;
                }
            }
            out.push(item);
        } else if !is_ours(&item) {
            out.push(item);
        }
    }
    let empty = out.is_empty();
    *items = out;
    if empty && spare.is_none() {
        hooks.remove(event);
    }
}

/// Remove every entry of hookhost's from a runtime's settings document (uninstall); an empty
/// `hooks` left behind goes too.
pub(crate) fn unwire(runtime: Runtime, doc: &mut Json) {
    let Some(hooks) = doc.get_mut("hooks") else { return };
    let events: Vec<String> = hooks.fields().iter().map(|(k, _)| k.clone()).collect();
    for event in events {
        strip(runtime, hooks, &event, None);
    }
    if hooks.fields().is_empty() {
        doc.remove("hooks");
        if matches!(runtime.install().layout, Layout::Handlers { .. }) && doc.fields().len() == 1 && doc.get("version").is_some() {
            doc.remove("version");
        }
    }
}

#[cfg(test)]
mod tests;
