//! Layered configuration (docs/ORG.md): the *managed* layer an organisation installs, the
//! *user*'s own config, and the *project* found from the working directory — merged in that
//! order. Managed hooks run first and no lower layer can mute, replace or weaken them; the
//! managed layer's `[policy]` limits what lower layers may do, and every limit that removed
//! or changed something is reported (`hookhost check`).
//!
//! Loading is in two steps because bundles resolve in between: [`Layers::discover`] reads and
//! checks every layer and applies what can be applied before anything is fetched (registries,
//! trust keys, project approval); [`Merge::merge`] joins the resolved plans.

use crate::peer::Format;
use crate::policy::{self, Policy};
use crate::project::{self, Approval};
use crate::{ConfigError, ConfigFile, Plan, Problem, Registry};
use hookhost_types::paths;
use hookhost_types::spec::Capability;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod merge;
mod project_layer;
mod restrict;
use restrict::*;

use project_layer::load_project;

/// Which layer a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LayerKind {
    /// The organisation's (`$HOOKHOST_MANAGED_CONFIG`, else `/etc/hookhost/managed.toml`).
    Managed,
    /// The user's (`--config F`, else `$XDG_CONFIG_HOME/hookhost/hooks.toml`, else the
    /// embedded default).
    User,
    /// The project's (`.hookhost/hooks.toml` from the working directory upward), once approved.
    Project,
}

impl LayerKind {
    /// `managed`, `user`, `project`: also the HookId prefix of the layer's own hooks.
    pub fn as_str(self) -> &'static str {
        match self {
            LayerKind::Managed => "managed",
            LayerKind::User => "user",
            LayerKind::Project => "project",
        }
    }
}

impl std::fmt::Display for LayerKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One layer: its kind and its validated config.
#[derive(Debug, Clone)]
pub struct Layer {
    /// Which layer.
    pub kind: LayerKind,
    /// Its config (`source` is its file).
    pub config: ConfigFile,
}

/// What a layer contributed, for `hookhost config show --layers`.
#[derive(Debug, Clone, Serialize)]
pub struct LayerSummary {
    /// Which layer.
    pub kind: LayerKind,
    /// Its file.
    pub source: PathBuf,
    /// Its hooks, in chain order (bundles' hooks included).
    pub hooks: Vec<String>,
    /// The settings it wrote (`audit_log = ...`, `policy.max_limits`, `trust.keys[0]`, ...).
    pub settings: Vec<String>,
}

/// Where the layers come from.
#[derive(Debug, Clone, Default)]
pub struct LayerOptions {
    /// The user's config (`--config`); default `$XDG_CONFIG_HOME/hookhost/hooks.toml` if it
    /// exists, else the embedded default.
    pub user: Option<PathBuf>,
    /// The user file's format, when detection should not decide.
    pub format: Option<Format>,
    /// Look for a project from this directory upward; `None`: no project layer.
    pub project_from: Option<PathBuf>,
    /// Capabilities granted to every plugin of the user layer (the CLI's `--grant`).
    pub grants: Vec<Capability>,
    /// Read no managed layer (an embedder that has none; the CLI always reads it).
    pub skip_managed: bool,
    /// Load the project layer whether or not it is approved (`hookhost trust`, to see what it
    /// resolves to before approving it). Never for running hooks.
    pub approving: bool,
    /// Leave the user's config out, for this reason, and run the embedded default in its place:
    /// what a command that answers a runtime does when the user's file does not load (a typo,
    /// a mute of a managed hook), so the managed and built-in hooks keep deciding
    /// ([`Layers::user_note`] says so). Never for `check`, which must show the error.
    pub user_left_out: Option<String>,
}

/// The project a discovery found, and whether it loaded.
#[derive(Debug, Clone)]
pub struct ProjectState {
    /// The project on disk.
    pub project: project::Project,
    /// Whether its files are approved (or why it was left out).
    pub approval: Approval,
    /// The file whose `policy.allow_project_hooks = false` kept it out, if one did (its
    /// approval is then not read).
    pub refused_by: Option<PathBuf>,
}

/// Every layer found, checked, with the restrictions applied so far.
#[derive(Debug, Clone)]
pub struct Layers {
    /// The layers in merge order (managed, user, project).
    pub layers: Vec<Layer>,
    /// The project found, if any (loaded or not).
    pub project: Option<ProjectState>,
    merge: Merge,
    opts: LayerOptions,
}

/// What joins resolved plans: the policies, and what was restricted before resolution.
#[derive(Debug, Clone, Default)]
pub struct Merge {
    managed: Option<(PathBuf, Policy)>,
    user: (PathBuf, Policy),
    restrictions: Vec<String>,
    summaries: Vec<LayerSummary>,
    project: Option<ProjectPins>,
    project_note: Option<String>,
    user_note: Option<String>,
    /// Why the user layer holds the embedded default's hooks, or none (`builtin_hooks`).
    builtin_note: Option<String>,
}

/// What a loaded project layer must match: its root, the files its approval read (its plugins
/// load from these bytes), and the bundle digests approved (`None`: being approved now).
#[derive(Debug, Clone, Default)]
struct ProjectPins {
    root: PathBuf,
    snapshot: project::Snapshot,
    bundles: Option<BTreeMap<String, String>>,
}

fn error(file: &Path, problem: Problem) -> ConfigError {
    ConfigError::new(file.to_path_buf(), vec![problem])
}

/// `kind (file)`, for messages.
fn named(kind: LayerKind, file: &Path) -> String {
    format!("the {kind} layer ({})", file.display())
}

impl Layers {
    /// One config as the only (user) layer: what a host built from a single file loads.
    pub fn single(config: ConfigFile) -> Layers {
        let merge = Merge { managed: None, user: (config.source.clone(), config.policy.clone()), restrictions: Vec::new(), summaries: vec![summary(LayerKind::User, &config)], project: None, project_note: None, user_note: None, builtin_note: None };
        Layers { layers: vec![Layer { kind: LayerKind::User, config }], project: None, merge, opts: LayerOptions::default() }
    }

    /// Find, read and check every layer. A managed file that exists (or that
    /// `$HOOKHOST_MANAGED_CONFIG` names) must load, or nothing does: an organisation's policy
    /// never silently disappears. A project layer loads only when allowed and approved; when
    /// not, [`Layers::project`] says why and the other layers load. A project layer that fails
    /// (its file, a conflict with a higher layer, a path outside the project) is left out the
    /// same way: a cloned repository can add hooks, never take the others down.
    pub fn discover(opts: &LayerOptions) -> Result<Layers, ConfigError> {
        match discover_with(opts, None) {
            Ok(layers) => Ok(layers),
            Err(e) => match discover_with(opts, Some(e.to_string())) {
                // Without the project it loads: the project was the failure.
                Ok(layers) if layers.project.as_ref().is_some_and(|p| matches!(p.approval, Approval::Failed(_))) => Ok(layers),
                _ => Err(e),
            },
        }
    }

    /// What reading these layers again without the project layer takes, when a project layer
    /// is loaded (and so could be left out when it fails later, as bundles resolve or plugins
    /// load).
    pub fn project_fallback(&self) -> Option<ProjectFallback> {
        let project = self.layers.iter().find(|l| l.kind == LayerKind::Project)?;
        Some(ProjectFallback { opts: self.opts.clone(), file: project.config.source.clone() })
    }

    /// The layers, to resolve one by one, and what merges the results.
    pub fn into_parts(self) -> (Vec<Layer>, Merge) {
        (self.layers, self.merge)
    }

    /// Join layers that name no bundles (a host built without bundle support).
    pub fn without_bundles(self) -> Result<Plan, ConfigError> {
        let (layers, merge) = self.into_parts();
        let plans = layers.into_iter().map(|l| Plan::without_bundles(l.config).map(|p| (l.kind, p))).collect::<Result<Vec<_>, _>>()?;
        merge.merge(plans)
    }

    /// The message for a project that did not load because it is not approved, if so.
    pub fn unapproved(&self) -> Option<String> {
        let state = self.project.as_ref().filter(|p| p.refused_by.is_none())?;
        let root = state.project.root.display();
        let files: Vec<String> = state.project.layer_files().iter().map(|p| p.display().to_string()).collect();
        match &state.approval {
            Approval::Approved => None,
            Approval::New => Some(format!("project {root}: its hooks ({}) are not approved, so they do not run; review them and run `hookhost trust {root}`", files.join(", "))),
            Approval::Changed(changes) => Some(format!("project {root}: its hook files changed since you approved them ({}), so they do not run; review them and run `hookhost trust {root}` again", changes.join(", "))),
            Approval::Unreadable(why) => Some(format!("project {root}: its hooks do not run: {why}")),
            Approval::Failed(why) => Some(format!(
                "project {root}: its hooks are left out (the managed and user hooks run as if it had none) because it does not load: {why}; fix {} and run `hookhost trust {root}` again, or withdraw it with `hookhost trust --forget {root}`",
                files.join(", ")
            )),
        }
    }

    /// Why the user's config was left out ([`LayerOptions::user_left_out`]), if it was: one line
    /// to show the user with every answer until the file is fixed.
    pub fn user_note(&self) -> Option<&str> {
        self.merge.user_note.as_deref()
    }

    /// The user's own config file, when the user layer is one (not the embedded default).
    pub fn user_file(opts: &LayerOptions) -> Option<PathBuf> {
        opts.user.clone().or_else(|| paths::user_config().filter(|p| p.is_file()))
    }

    /// The cache directory the merged host uses: `$HOOKHOST_CACHE_DIR`, else the highest
    /// layer's `cache_dir`, else the user's cache directory.
    pub fn effective_cache_dir(&self) -> Option<PathBuf> {
        let by = self.layers.iter().find(|l| l.config.settings.written.contains(&crate::Setting::CacheDir)).or_else(|| self.layers.iter().find(|l| l.kind == LayerKind::User));
        by.and_then(|l| l.config.effective_cache_dir())
    }

    /// What the policies removed or changed before bundles resolved, one line each.
    pub fn restrictions(&self) -> &[String] {
        &self.merge.restrictions
    }
}

/// How to read the layers again without a project layer that failed: what
/// [`Layers::project_fallback`] keeps, instead of a copy of every layer.
#[derive(Debug, Clone)]
pub struct ProjectFallback {
    opts: LayerOptions,
    file: PathBuf,
}

impl ProjectFallback {
    /// Why the project layer failed: `error`, naming the project's file unless it already does.
    pub fn failure(&self, error: &dyn std::fmt::Display) -> String {
        let (error, file) = (error.to_string(), self.file.display().to_string());
        if error.contains(&file) {
            error
        } else {
            format!("{file}: {error}")
        }
    }

    /// The layers read again with the project left out for `why`, said by
    /// [`Layers::unapproved`] and the plan's `project_note`.
    pub fn without_project(&self, why: &str) -> Result<Layers, ConfigError> {
        tracing::info!("project layer left out: {why}");
        discover_with(&self.opts, Some(why.to_string()))
    }
}

/// [`Layers::discover`], with the project layer left out for `drop` when given.
fn discover_with(opts: &LayerOptions, drop: Option<String>) -> Result<Layers, ConfigError> {
    let mut restrictions = Vec::new();
    // Managed.
    let managed = if opts.skip_managed {
        None
    } else {
        let (path, source) = paths::managed_config();
        if let paths::ManagedSource::SystemOverEnv(named) = &source {
            restrictions.push(format!("managed: HOOKHOST_MANAGED_CONFIG={} is ignored: the installed {} wins over the environment", named.display(), path.display()));
        }
        let named_by_env = source.named_by_env();
        if path.exists() || named_by_env {
            let config = ConfigFile::load(&path).map_err(|mut e| {
                if named_by_env && !path.exists() {
                    e.problems = vec![Problem::file("cannot read the managed config named by HOOKHOST_MANAGED_CONFIG (no such file); fix the variable or install the file")];
                }
                e
            })?;
            Some(config)
        } else {
            None
        }
    };
    // User.
    let user_path = Layers::user_file(opts);
    let user_note = match (&opts.user_left_out, &user_path) {
        (Some(why), Some(path)) => Some(format!(
            "your config {} is left out because it does not load ({why}); the managed and built-in hooks decide in its place until you fix it (`hookhost check --config {}` shows the problem)",
            path.display(),
            path.display()
        )),
        _ => None,
    };
    let user_path = user_path.filter(|_| user_note.is_none());
    let mut user = match &user_path {
        Some(path) => ConfigFile::load_as(path, opts.format)?,
        None => ConfigFile::embedded_default(),
    };
    // A user file that defines no hooks (an empty file, settings or `mode` alone) does not
    // switch the built-in protection off unless it says so.
    let mut builtin_note = None;
    if let Some(path) = user_path.as_ref().filter(|_| user.hooks.is_empty() && user.bundles.is_empty()) {
        if user.builtin_hooks == Some(false) {
            builtin_note = Some(format!("{} defines no hooks and sets builtin_hooks = false", path.display()));
        } else {
            user.hooks = ConfigFile::embedded_default().hooks;
            builtin_note = Some(format!("{} defines no hooks of its own, so the embedded default's run (builtin_hooks = false turns them off)", path.display()));
        }
    }
    check_policy_fields(LayerKind::User, &user)?;
    for cap in &opts.grants {
        user.settings.grants.grant_all(cap.clone());
    }
    let no_policy = Policy::default();
    let managed_policy = managed.as_ref().map_or(&no_policy, |m| &m.policy);
    // Project.
    let mut project_state = None;
    let mut project_layer = None;
    let mut pins = None;
    if let Some(cwd) = &opts.project_from {
        let mut peers = managed_policy.project_peers.clone();
        peers.extend(user.policy.project_peers.iter().cloned());
        // A project file given as the user's own config (`--config .hookhost/hooks.toml`)
        // is that layer already: it is not read twice.
        let same = |p: &Path| user_path.as_deref().and_then(|u| std::fs::canonicalize(u).ok()).is_some_and(|u| std::fs::canonicalize(p).is_ok_and(|p| p == u));
        let found = project::find(cwd, &peers).and_then(|mut f| {
            f.hooks_file = f.hooks_file.filter(|h| !same(h));
            f.peer_files.retain(|(_, p)| !same(p));
            (f.hooks_file.is_some() || !f.peer_files.is_empty()).then_some(f)
        });
        if let Some(found) = found {
            let refused_by = [(managed.as_ref(), managed_policy), (Some(&user), &user.policy)]
                .into_iter()
                .find_map(|(c, p)| (p.allow_project_hooks == Some(false)).then(|| c.map(|c| c.source.clone())).flatten());
            if let Some(by) = refused_by {
                restrictions.push(format!("project {}: not loaded: {} sets policy.allow_project_hooks = false", found.root.display(), by.display()));
                project_state = Some(ProjectState { project: found, approval: Approval::New, refused_by: Some(by) });
            } else {
                // Unreadable files or approvals: the project does not load, and says why;
                // the other layers do.
                let (snapshot, mut approval, approved_bundles) = match project::status(&found) {
                    Ok((s, a, b)) => (Some(s), a, b),
                    Err(why) => (None, Approval::Unreadable(why), BTreeMap::new()),
                };
                let loads = approval == Approval::Approved || (opts.approving && matches!(approval, Approval::New | Approval::Changed(_)));
                match (&drop, &snapshot) {
                    (Some(why), _) if loads => approval = Approval::Failed(why.clone()),
                    (None, Some(snapshot)) if loads => {
                        project_layer = Some(load_project(&found, snapshot, &mut restrictions)?);
                        let bundles = (!opts.approving).then_some(approved_bundles);
                        pins = Some(ProjectPins { root: std::fs::canonicalize(&found.root).unwrap_or_else(|_| found.root.clone()), snapshot: snapshot.clone(), bundles });
                    }
                    _ => {}
                }
                project_state = Some(ProjectState { project: found, approval, refused_by: None });
            }
        }
    }
    let mut layers = Vec::new();
    if let Some(m) = managed {
        layers.push(Layer { kind: LayerKind::Managed, config: m });
    }
    layers.push(Layer { kind: LayerKind::User, config: user });
    if let Some(p) = project_layer {
        layers.push(Layer { kind: LayerKind::Project, config: p });
    }
    restrict_before_resolve(&mut layers, &mut restrictions)?;
    let managed = layers.iter().find(|l| l.kind == LayerKind::Managed).map(|l| (l.config.source.clone(), l.config.policy.clone()));
    let user = layers.iter().find(|l| l.kind == LayerKind::User).map(|l| (l.config.source.clone(), l.config.policy.clone())).expect("a user layer always exists");
    let summaries = layers.iter().map(|l| summary(l.kind, &l.config)).collect();
    let mut found = Layers { layers, project: project_state, merge: Merge { managed, user, restrictions, summaries, project: pins, project_note: None, user_note, builtin_note }, opts: opts.clone() };
    found.merge.project_note = found.unapproved();
    if let Some(note) = found.merge.project_note.clone().filter(|_| drop.is_some()) {
        found.merge.restrictions.push(note);
    }
    Ok(found)
}

/// A layer may set only its `[policy]` fields: the managed layer all, the user layer those
/// about projects, a project none.
fn check_policy_fields(kind: LayerKind, config: &ConfigFile) -> Result<(), ConfigError> {
    let problems: Vec<Problem> = match kind {
        LayerKind::Managed => Vec::new(),
        LayerKind::User => config
            .policy
            .written
            .iter()
            .filter(|f| policy::MANAGED_ONLY.contains(f))
            .map(|f| Problem::at(format!("policy.{f}"), format!("only the managed config may set this (it limits the user layer); move it to {}, or remove it", paths::SYSTEM_MANAGED_CONFIG)))
            .collect(),
        LayerKind::Project => config.policy.written.iter().map(|f| Problem::at(format!("policy.{f}"), "a project cannot set policy; remove [policy]")).collect(),
    };
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ConfigError::new(config.source.clone(), problems))
    }
}

fn summary(kind: LayerKind, c: &ConfigFile) -> LayerSummary {
    let mut settings: Vec<String> = c.settings.written.iter().map(|n| format!("{n} = {}", n.value(&c.settings))).collect();
    settings.extend(c.policy.written.iter().map(|f| format!("policy.{f}")));
    for (name, r) in &c.registries {
        if name != "local" || !matches!(r, Registry::Dir(d) if *d == paths::local_registry()) {
            settings.push(format!("registries.{name} = {}", show(r)));
        }
    }
    settings.extend(c.trust.keys.iter().filter(|k| k.at.starts_with("trust.")).map(|k| format!("{} ({})", k.at, k.name.as_deref().unwrap_or("unnamed key"))));
    settings.extend(c.bundles.iter().map(|b| format!("{} = {}", b.at, b.reference)));
    settings.extend(c.disabled_contributions.iter().map(|d| format!("disabled_contributions: {d}")));
    LayerSummary { kind, source: c.source.clone(), hooks: Vec::new(), settings }
}
