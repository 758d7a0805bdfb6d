//! From command-line arguments to a loaded [`Host`]: the config layers, bundles resolved with
//! progress on a terminal, and load errors explained with the flags that fix them.

use crate::{scenario, usage, HostArgs};
use anyhow::Result;
use hookhost::config::{LayerOptions, Layers};
use hookhost::{AuditLog, Capability, Host, LoadError};
use hookhost_bundle::{BundleError, ErrorKind, LockMode, Progress, Resolver};
use std::path::{Path, PathBuf};

pub(crate) fn dialect(args: &HostArgs) -> Result<Option<hookhost::peer::Format>> {
    match &args.dialect {
        Some(name) => Ok(Some(hookhost::peer::Format::parse(name).ok_or_else(|| usage(format!("--dialect: unknown format {name:?}; use native, {}", hookhost::peer::Format::peer_names())))?)),
        None => Ok(None),
    }
}

/// The layers a command loads (docs/ORG.md): managed, user (`--config`, else the user's file,
/// else the embedded default), and the project around the working directory once approved.
/// A project that does not run (unapproved, or left out because it fails) is said on stderr
/// once the host is built (`Host::project_note`); the other layers load.
pub(crate) fn read_layers(args: &HostArgs) -> Result<Layers> {
    read_layers_in(args, if args.no_project { None } else { std::env::current_dir().ok() })
}

/// [`read_layers`] with the project looked for from `project_from` (none: no project layer).
pub(crate) fn read_layers_in(args: &HostArgs, project_from: Option<PathBuf>) -> Result<Layers> {
    Layers::discover(&layer_options(args, project_from)?).map_err(usage)
}

/// Where the layers come from, as the command line says.
fn layer_options(args: &HostArgs, project_from: Option<PathBuf>) -> Result<LayerOptions> {
    let mut grants = Vec::new();
    for capability in &args.grant {
        grants.push(capability.parse::<Capability>().map_err(|e| usage(format!("--grant: {e}")))?);
    }
    Ok(LayerOptions { user: args.config.clone(), format: dialect(args)?, project_from: project_from.filter(|_| !args.no_project), grants, ..LayerOptions::default() })
}

/// Load the chain that answers a runtime's events (`run`, `serve`'s per-project chains). When
/// the layers do not load and the user's own config is among them, they load again with that
/// file left out and the embedded default in its place (`Host::user_note` says so with every
/// answer): a typo in the user's file, or a mute of a managed hook, never switches the managed
/// and built-in hooks off. Still failing, the first error stands (and the caller blocks).
async fn load_for_hooks(args: &HostArgs, project_from: Option<PathBuf>, engine: Option<hookhost::Engine>) -> Result<Host> {
    let opts = layer_options(args, project_from)?;
    let first = match Layers::discover(&opts) {
        Ok(layers) => load_layers(args, layers, engine.clone()).await,
        Err(e) => Err(usage(e)),
    };
    let e = match first {
        Ok(host) => return Ok(host),
        Err(e) => e,
    };
    if Layers::user_file(&opts).is_none() {
        return Err(e);
    }
    let without = LayerOptions { user_left_out: Some(format!("{e:#}")), ..opts };
    match Layers::discover(&without) {
        Ok(layers) => load_layers(args, layers, engine).await.map_err(|_| e),
        Err(_) => Err(e),
    }
}

/// Pull progress on stderr, one line per bundle and per blob (when stderr is a terminal).
pub(crate) struct Terminal;

impl Progress for Terminal {
    fn pulling(&self, bundle: &hookhost_types::BundleName, registry: &str, digest: &str) {
        eprintln!("pulling {bundle} from {registry} ({digest})");
    }
    fn blob(&self, up: bool, title: &str, size: u64) {
        eprintln!("  {} {title} ({size} bytes)", if up { "↑" } else { "↓" });
    }
}

/// Pull progress when stderr is a terminal, else none.
pub(crate) fn terminal_progress() -> Option<std::sync::Arc<dyn Progress>> {
    std::io::IsTerminal::is_terminal(&std::io::stderr()).then(|| std::sync::Arc::new(Terminal) as _)
}

/// How this command resolves bundles: the lock mode, and progress on a terminal.
pub(crate) fn resolver(args: &HostArgs, mode: Option<LockMode>) -> Resolver {
    let lock_mode = mode.unwrap_or(if args.locked { LockMode::Locked } else { LockMode::Prefer });
    Resolver { lock_mode, progress: terminal_progress(), ..Resolver::default() }
}

/// A bundle error with what to run about it (the library names no commands).
pub(crate) fn explain_bundle(e: &BundleError, args: Option<&HostArgs>) -> String {
    let config = args.and_then(|a| a.config.as_ref()).map_or_else(|| "CONFIG".to_string(), |p| p.display().to_string());
    match e.kind() {
        ErrorKind::Lock => format!("{e}; run `hookhost lock --config {config}` and commit the lock file"),
        ErrorKind::NotFound => format!("{e}; check the name and version with `hookhost registry list REGISTRY`, or push it with `hookhost registry push BUNDLE REGISTRY`"),
        ErrorKind::Unsigned => format!("{e}; sign it with `hookhost bundle sign --key KEY`"),
        _ => e.to_string(),
    }
}

/// A load error with the command-line way to fix it, where there is one.
pub(crate) fn explain(e: &LoadError, args: &HostArgs) -> String {
    match e {
        LoadError::CapabilityNotGranted { hook, plugin, fix: hookhost::GrantFix::Grant(_), .. } if hook.is_users() && !matches!(plugin, hookhost::PluginRef::Bundle { .. }) => format!("{e} or pass `--grant process:exec`"),
        LoadError::Bundle(b) => explain_bundle(b, Some(args)),
        LoadError::Config(c) if args.config.is_some() && c.unreadable => format!("{e} (given to --config)"),
        _ => e.to_string(),
    }
}

pub(crate) async fn load(args: &HostArgs) -> Result<Host> {
    load_with(args, None).await
}

/// Load for a command that handles one event and exits (`run --output json`): an engine without
/// the instance pool. A config that does not load is an error (exit 2).
pub(crate) async fn load_one_shot(args: &HostArgs) -> Result<Host> {
    load_with(args, Some(hookhost::Engine::one_shot()?)).await
}

/// [`load_one_shot`] for answering a runtime (`run --output RUNTIME`): a user config that does not
/// load is left out ([`load_for_hooks`]).
pub(crate) async fn load_for_runtime(args: &HostArgs) -> Result<Host> {
    let here = if args.no_project { None } else { std::env::current_dir().ok() };
    load_for_hooks(args, here, Some(hookhost::Engine::one_shot()?)).await
}

/// Load with the project around `dir` (the daemon: an event's own `cwd`); a user config that
/// does not load is left out ([`load_for_hooks`]).
pub(crate) async fn load_in(args: &HostArgs, dir: Option<PathBuf>) -> Result<Host> {
    load_for_hooks(args, dir, None).await
}

pub(crate) async fn load_with(args: &HostArgs, engine: Option<hookhost::Engine>) -> Result<Host> {
    let layers = read_layers(args)?;
    load_layers(args, layers, engine).await
}

pub(crate) async fn load_layers(args: &HostArgs, layers: Layers, engine: Option<hookhost::Engine>) -> Result<Host> {
    let restricted = layers.restrictions().to_vec();
    let host = build_host(args, Host::builder().layers(layers), engine).await.map_err(|e| match restricted.is_empty() {
        true => e,
        // What a policy removed may be why the load failed (a key no longer trusted).
        false => usage(format!("{e:#}\n  the layers' policies had removed: {}", restricted.join("; "))),
    })?;
    if let Some(note) = host.project_note() {
        eprintln!("hookhost: {note}");
    }
    if let Some(note) = host.user_note() {
        eprintln!("hookhost: {note}");
    }
    Ok(host)
}

/// Load one plugin (`--plugin`) as the only hook on each of `events`, failing closed.
pub(crate) async fn load_plugin(args: &HostArgs, path: &Path, settings: Option<&str>, events: &[String]) -> Result<Host> {
    let settings: serde_json::Value = match settings {
        Some(text) => serde_json::from_str(text).map_err(|e| usage(format!("--settings: not JSON ({e})")))?,
        None => serde_json::json!({}),
    };
    let config = scenario::plugin_config(path, &settings, events).map_err(usage)?;
    let mut builder = Host::builder().config(config);
    for capability in &args.grant {
        let capability: Capability = capability.parse().map_err(|e| usage(format!("--grant: {e}")))?;
        builder = builder.grant_all(capability);
    }
    build_host(args, builder, None).await
}

pub(crate) async fn build_host(args: &HostArgs, builder: hookhost::HostBuilder, engine: Option<hookhost::Engine>) -> Result<Host> {
    let mut builder = builder.bundles(resolver(args, None));
    if let Some(engine) = engine {
        builder = builder.engine(engine);
    }
    if let Some(path) = &args.audit {
        let log = AuditLog::open(path).map_err(|e| usage(format!("cannot open the audit log {}: {e}; check --audit", path.display())))?;
        builder = builder.audit_log(log);
    }
    builder.build().await.map_err(|e| usage(explain(&e, args)))
}
