//! `hookhost install` / `hookhost uninstall`: hookhost's entries written into each agent
//! runtime's own hook configuration, merged with what is there, with the runtime's trust step
//! done, and every change recorded so that uninstall takes back exactly what install added.
//!
//! What install writes (per runtime: [`runtimes`]; the trust steps: [`steps`]):
//! - the runtime's hooks file at the scope, each event hookhost handles wired to the absolute
//!   path of this `hookhost` (or `hookhost-send`, or Claude Code's http hook to `hookhost
//!   serve`); other hooks, keys and their order are left as they were;
//! - the runtime's trust record, where it has one (Codex's `trusted_hash`es, Gemini CLI's and
//!   Copilot's trusted folders for a project);
//! - a copy of every file before its first change under hookhost's state directory
//!   (`backups/`), and a record of each change (`installs.json`): what file, what it held before,
//!   the SHA-256 of what install wrote, what trust it added.
//!
//! Uninstall restores a file byte for byte when it is still what install wrote; when something
//! else changed it since, it removes only hookhost's entries and the trust install added.

pub(crate) mod doctor;
pub(crate) mod drop_in;
mod files;
mod json;
pub(crate) mod mcp_server;
pub(crate) mod plugin;
pub(crate) mod runtimes;
mod steps;
mod uninstall;
pub(crate) mod yaml_list;

use files::*;
pub(crate) use uninstall::*;

use crate::usage;
use anyhow::Result;
use json::Json;
use runtimes::{Places, Runtime, Scope, Target, Wiring};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub(crate) struct InstallArgs {
    /// The runtime to wire (repeatable). Without it: every runtime found on this machine (its
    /// program on PATH, or its directory in your home), as with --detected.
    #[arg(long, value_enum)]
    pub runtime: Vec<Runtime>,
    /// Wire every runtime found on this machine.
    #[arg(long, conflicts_with = "runtime")]
    pub detected: bool,
    /// user: your own settings (every project); project: the project's settings, shared with
    /// whoever clones it (and the runtime's trust of the project); managed: the runtime's
    /// managed settings, which users and repositories cannot change (as root).
    #[arg(long, value_enum, default_value = "user")]
    pub scope: Scope,
    /// With --scope managed: run managed hooks only — Claude Code's allowManagedHooksOnly (no
    /// user or repository hook runs, and none switches the managed ones off with
    /// disableAllHooks), Codex's allow_managed_hooks_only requirement (/etc/codex/requirements.toml).
    #[arg(long)]
    pub allow_managed_hooks_only: bool,
    /// With --scope managed: also install FILE as hookhost's own managed layer
    /// (/etc/hookhost/managed.toml on Linux), root's and readable by all, once it parses.
    #[arg(long, value_name = "FILE")]
    pub managed_config: Option<PathBuf>,
    /// With --scope managed: write the system files under DIR instead of / (an image being
    /// built; a test).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// command: `hookhost run` per event; send: `hookhost-send` per event, to `hookhost serve`
    /// when it runs (in-process when not); http: Claude Code's http hook to `hookhost serve`;
    /// mcp: Claude Code's MCP tool hooks calling `hookhost mcp`, a server it starts once per
    /// session (also listed in ~/.claude.json); mcp-http: the same hooks calling `hookhost
    /// serve`'s MCP endpoint (--server) over HTTP, with $HOOKHOST_TOKEN as its bearer token.
    #[arg(long, value_enum, default_value = "command")]
    pub wiring: Wiring,
    /// The project for --scope project (default: the working directory).
    #[arg(long)]
    pub project: Option<PathBuf>,
    /// Print what would change (a diff per file) and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Wire hookhost with --fail-open: its own failure lets every event through (a rollout that
    /// must never stop work).
    #[arg(long, conflicts_with = "fail_closed")]
    pub fail_open: bool,
    /// Wire hookhost with --fail-closed: its own failure blocks every event.
    #[arg(long)]
    pub fail_closed: bool,
    /// The daemon's address for --wiring http and mcp-http.
    #[arg(long, default_value = "http://127.0.0.1:7807")]
    pub server: String,
}

#[derive(clap::Args, Debug)]
pub(crate) struct UninstallArgs {
    /// The runtime to unwire (repeatable; default: every one install wired).
    #[arg(long, value_enum)]
    pub runtime: Vec<Runtime>,
    /// Only this scope (default: your user settings and this project's).
    #[arg(long, value_enum)]
    pub scope: Option<Scope>,
    /// The project (default: the working directory).
    #[arg(long)]
    pub project: Option<PathBuf>,
    /// With --scope managed: the system files are under DIR (as install was given --root).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Print what would change and change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// What a changed file is to install.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Role {
    /// The runtime's hooks file.
    Hooks,
    /// The runtime's record of what it trusts (Codex's `config.toml`, Gemini CLI's
    /// `trustedFolders.json`, Copilot's `config.json`): undone by its [`steps`].
    #[serde(alias = "codex-trust", alias = "gemini-trust", alias = "copilot-trust")]
    Trust,
    /// hookhost's own managed config (`--managed-config`): a file install put in place whole.
    ManagedConfig,
    /// A file beside the runtime's managed hooks holding its "managed hooks only" setting
    /// (Codex's `requirements.toml`).
    #[serde(alias = "codex-requirements")]
    ManagedOnly,
    /// The runtime's list of MCP servers, holding `hookhost mcp` (`--wiring mcp`).
    McpServer,
}

/// One file install would change.
struct Edit {
    path: PathBuf,
    before: Option<String>,
    after: String,
    role: Role,
    added: Vec<String>,
}

/// The programs the wiring runs: this `hookhost`, and `hookhost-send` beside it.
fn target(args: &InstallArgs) -> Result<Target, String> {
    let exe = std::env::current_exe().and_then(std::fs::canonicalize).map_err(|e| format!("cannot find this hookhost's own path: {e}"))?;
    let send = exe.with_file_name(format!("hookhost-send{}", std::env::consts::EXE_SUFFIX));
    if args.wiring == Wiring::Send && !send.is_file() {
        return Err(format!("--wiring send: {} does not exist; install hookhost-send beside hookhost (the release archives carry both)", send.display()));
    }
    let failure_flag = if args.fail_open { Some("--fail-open") } else if args.fail_closed { Some("--fail-closed") } else { None };
    Ok(Target { hookhost: exe, send, wiring: args.wiring, failure_flag, server: args.server.clone() })
}

/// Whether a program is on PATH.
pub(crate) fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find_map(|dir| {
        let candidates = if cfg!(windows) { vec![format!("{program}.exe"), format!("{program}.cmd"), program.to_string()] } else { vec![program.to_string()] };
        candidates.into_iter().map(|c| dir.join(c)).find(|p| p.is_file())
    })
}

/// The runtimes found on this machine: the program on PATH, or the runtime's directory in the home.
pub(crate) fn detected(places: &Places) -> Vec<Runtime> {
    Runtime::all().iter().copied().filter(|r| r.found(places)).collect()
}

/// The edits wiring `runtime` at `scope` takes, and the warnings and trust notes to show.
fn plan(runtime: Runtime, scope: Scope, places: &Places, target: &Target, managed_only: bool) -> Result<(Vec<Edit>, Vec<String>), String> {
    let mut edits = Vec::new();
    let mut notes = Vec::new();
    let hooks_path = runtime.hooks_file(scope, places)?;
    let before = read(&hooks_path)?;
    if let Some(ours) = whole_file(runtime) {
        // The whole file is hookhost's: never one someone else put there.
        if before.as_deref().is_some_and(|b| !ours(b)) {
            let what = if runtime.is_plugin() { "plugin" } else { "hooks drop-in" };
            return Err(format!("{} exists and is not hookhost's {what}; move it away, then install again", hooks_path.display()));
        }
        let after = if runtime.is_plugin() { plugin::text(target) } else { drop_in::text(runtime, target)? };
        edits.push(Edit { path: hooks_path, before, after, role: Role::Hooks, added: vec![] });
        return Ok((edits, notes));
    }
    if runtime.is_yaml_list() {
        let after = yaml_list::wire(runtime, before.as_deref(), target).map_err(|e| format!("{}: {e}", hooks_path.display()))?;
        let doc = yaml_list::read(&after).map_err(|e| format!("{}: {e}", hooks_path.display()))?;
        let project = (scope == Scope::Project).then_some(places.project.as_path());
        let trust = steps::of(runtime).trust(&hooks_path, &doc, places, project, &mut notes)?;
        edits.push(Edit { path: hooks_path, before, after, role: Role::Hooks, added: vec![] });
        edits.extend(trust);
        return Ok((edits, notes));
    }
    let old = parse_json(&hooks_path, before.as_deref())?;
    let mut doc = old.clone();
    runtimes::wire(runtime, &mut doc, target).map_err(|e| format!("{}: {e}; fix it, or add the entries docs/INTEGRATIONS.md shows by hand", hooks_path.display()))?;
    let steps = steps::of(runtime);
    let mut added = vec![];
    let beside = if managed_only { steps.allow_managed_hooks_only(&hooks_path, &mut doc, &mut added, &mut notes)? } else { None };
    let after = rendered(&doc, &old, before.as_deref());
    edits.push(Edit { path: hooks_path.clone(), before, after, role: Role::Hooks, added });
    edits.extend(beside);
    // A managed hook needs no trust step in any runtime: that is what managed means. (Nor an
    // MCP server of the user's: managed settings are not wired with `mcp`.)
    if scope != Scope::Managed {
        edits.extend(mcp_server::edit(runtime, scope, places, target)?);
        let project = (scope == Scope::Project).then_some(places.project.as_path());
        edits.extend(steps.trust(&hooks_path, &doc, places, project, &mut notes)?);
    }
    Ok((edits, notes))
}

/// For a runtime wired by a file of hookhost's alone (a plugin, a drop-in), what tells that
/// file from someone else's.
fn whole_file(runtime: Runtime) -> Option<fn(&str) -> bool> {
    if runtime.is_plugin() {
        Some(plugin::is_ours)
    } else if runtime.is_drop_in() {
        Some(drop_in::is_ours)
    } else {
        None
    }
}

/// hookhost's managed config from `file`, checked to parse as a config first.
fn managed_config_edit(file: &Path, places: &Places) -> Result<Edit, String> {
    let text = read(file)?.ok_or_else(|| format!("--managed-config {}: no such file", file.display()))?;
    let base = file.parent().unwrap_or(Path::new("."));
    hookhost_config::ConfigFile::parse(&text, file, base).map_err(|e| format!("--managed-config {}: {e}; nothing was installed", file.display()))?;
    let path = places.system(hookhost_types::paths::SYSTEM_MANAGED_CONFIG);
    let before = read(&path)?;
    Ok(Edit { path, before, after: text, role: Role::ManagedConfig, added: vec![] })
}

/// A unified diff of one file's change.
fn diff(path: &Path, before: Option<&str>, after: &str) -> String {
    let old = before.unwrap_or("");
    let name = path.display().to_string();
    let old_name = if before.is_some() { name.clone() } else { "/dev/null".into() };
    similar::TextDiff::from_lines(old, after).unified_diff().context_radius(3).header(&old_name, &name).to_string()
}

pub(crate) fn install(args: InstallArgs) -> Result<ExitCode> {
    let mut places = Places::from_env(args.project.as_deref()).map_err(usage)?;
    places.root = args.root.clone();
    let target = target(&args).map_err(usage)?;
    if args.scope != Scope::Managed && (args.root.is_some() || args.allow_managed_hooks_only || args.managed_config.is_some()) {
        return Err(usage("--root, --allow-managed-hooks-only and --managed-config go with --scope managed"));
    }
    if args.allow_managed_hooks_only && (args.runtime.is_empty() || args.runtime.iter().any(|&r| steps::of(r).managed_only_setting().is_none())) {
        let with: Vec<Runtime> = Runtime::all().iter().copied().filter(|&r| steps::of(r).managed_only_setting().is_some()).collect();
        let titles: Vec<&str> = with.iter().map(|r| r.title()).collect();
        let flags: Vec<String> = with.iter().map(|r| format!("--runtime {}", r.name())).collect();
        return Err(usage(format!("--allow-managed-hooks-only is a setting of {}: name them with {}", titles.join(" and "), flags.join(" / "))));
    }
    if args.scope == Scope::Managed && args.root.is_none() && !args.dry_run {
        is_administrator().map_err(usage)?;
    }
    let runtimes = if args.runtime.is_empty() {
        let found = detected(&places);
        if found.is_empty() {
            let programs: Vec<&str> = Runtime::all().iter().map(|r| r.program()).collect();
            return Err(usage(format!("no agent runtime found on this machine ({} on PATH, or its directory in your home): name one with --runtime", programs.join(", "))));
        }
        say!("runtimes found: {}", found.iter().map(|r| r.name()).collect::<Vec<_>>().join(", "));
        if args.scope == Scope::Managed {
            let (with, without): (Vec<Runtime>, Vec<Runtime>) = found.into_iter().partition(|r| r.managed_file(hookhost_types::paths::Os::CURRENT).is_ok());
            for r in without {
                say!("{}: skipped: {}", r.name(), r.managed_file(hookhost_types::paths::Os::CURRENT).err().unwrap_or_default());
            }
            with
        } else {
            found
        }
    } else {
        args.runtime.clone()
    };
    for r in &runtimes {
        r.takes(args.wiring).map_err(|e| usage(format!("--wiring {}: {e}", wiring_name(args.wiring))))?;
        if args.wiring.is_mcp() && args.scope == Scope::Managed {
            r.mcp().map_err(usage)?.managed.map_err(|e| usage(format!("--wiring {} --scope managed: {e}", wiring_name(args.wiring))))?;
        }
    }
    // Every runtime's plan first: a file that cannot be read or edited stops the install before
    // anything is written.
    let mut planned = Vec::new();
    for &r in &runtimes {
        let (edits, notes) = plan(r, args.scope, &places, &target, args.allow_managed_hooks_only).map_err(|e| usage(format!("{}: {e}", r.name())))?;
        planned.push((r.name(), Some(r.events().len()), edits, notes));
    }
    let store = state(args.scope, &places).map_err(usage)?;
    if let Some(file) = &args.managed_config {
        // hookhost's own managed layer, recorded as hookhost's.
        planned.push(("hookhost", None, vec![managed_config_edit(file, &places).map_err(usage)?], vec![]));
    }
    let mut ledger = if args.dry_run { Ledger::default() } else { load_ledger(args.scope, &places).map_err(usage)? };
    // Managed files are for every user's runtime to read.
    let mode = (args.scope == Scope::Managed).then_some(0o644);
    let stamp = stamp();
    let mut n = 0;
    for (who, events, edits, notes) in planned {
        let changed: Vec<&Edit> = edits.iter().filter(|e| e.before.as_deref() != Some(e.after.as_str())).collect();
        let first = &edits[0].path;
        for note in &notes {
            say!("{who}: {note}");
        }
        if changed.is_empty() {
            match events {
                Some(n) => say!("{who}: already wired in {} ({n} events), nothing changed", first.display()),
                None => say!("{who}: {} already holds that config, nothing changed", first.display()),
            }
            continue;
        }
        for e in &changed {
            if args.dry_run {
                say_raw!("{}", diff(&e.path, e.before.as_deref(), &e.after));
                continue;
            }
            n += 1;
            let previous = ledger.files.iter().position(|rec| rec.path == e.path && rec.runtime == who && rec.scope == scope_name(args.scope) && rec.project == project_of(args.scope, &places));
            let backup_path = match (&previous, &e.before) {
                // The first change's copy is the one uninstall goes back to.
                (Some(i), _) => ledger.files[*i].backup.clone(),
                (None, Some(before)) => Some(backup(&e.path, before, &stamp, n, &store).map_err(usage)?),
                (None, None) => None,
            };
            let made = missing_dirs(&e.path);
            write_file(&e.path, &e.after, mode).map_err(usage)?;
            let made_dirs = match previous {
                Some(i) => ledger.files[i].made_dirs.clone(),
                None => made,
            };
            let mut added = previous.map(|i| ledger.files[i].added.clone()).unwrap_or_default();
            added.extend(e.added.iter().filter(|a| !added.contains(a)).cloned().collect::<Vec<_>>());
            let record = Record { path: e.path.clone(), runtime: who.into(), scope: scope_name(args.scope).into(), project: project_of(args.scope, &places), role: e.role, backup: backup_path, after: sha256(&e.after), added, made_dirs };
            match previous {
                Some(i) => ledger.files[i] = record,
                None => ledger.files.push(record),
            }
            // Each file's record is saved as soon as it is written: an install stopped half-way
            // can still be undone.
            save_ledger(&ledger, args.scope, &places).map_err(usage)?;
            match e.role {
                Role::Hooks => say!("{who}: wired {} events in {} ({})", events.unwrap_or_default(), e.path.display(), wiring_name(args.wiring)),
                Role::ManagedConfig => say!("{who}: installed the managed config {}", e.path.display()),
                Role::ManagedOnly => say!("{who}: set {} in {}", e.added.join(", "), e.path.display()),
                Role::McpServer if args.wiring == Wiring::Mcp => say!("{who}: listed the MCP server `{}` (hookhost mcp) in {}", crate::mcp::SERVER, e.path.display()),
                Role::McpServer if args.wiring == Wiring::McpHttp => say!("{who}: listed the MCP server `{}` (hookhost serve's MCP endpoint at {}) in {}", crate::mcp::SERVER, target.server, e.path.display()),
                Role::McpServer => say!("{who}: took the MCP server `{}` out of {} (hooks no longer call it)", crate::mcp::SERVER, e.path.display()),
                _ => say!("{who}: recorded the trust in {}", e.path.display()),
            }
        }
    }
    if args.dry_run {
        say!("(dry run: nothing was written)");
    } else if n > 0 {
        say!("the files' earlier contents are kept under {}; `hookhost uninstall` takes this back, `hookhost doctor` checks it", store.join("backups").join(&stamp).display());
    }
    Ok(ExitCode::SUCCESS)
}

fn project_of(scope: Scope, places: &Places) -> Option<PathBuf> {
    (scope == Scope::Project).then(|| places.project.clone())
}

fn wiring_name(w: Wiring) -> &'static str {
    match w {
        Wiring::Command => "command",
        Wiring::Send => "send",
        Wiring::Http => "http",
        Wiring::Mcp => "mcp",
        Wiring::McpHttp => "mcp-http",
    }
}

/// Managed settings are the administrator's: refuse before planning anything when this is not
/// one (unix: root; Windows: the write itself fails without the rights, and says so).
fn is_administrator() -> Result<(), String> {
    #[cfg(unix)]
    {
        // SAFETY: geteuid cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            return Err("--scope managed writes the runtimes' managed settings, which only root may change: run it as root (sudo hookhost install --scope managed ...)".into());
        }
    }
    Ok(())
}
