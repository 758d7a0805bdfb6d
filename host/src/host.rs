//! Building a [`Host`]: from a config file or a resolved [`Plan`], every plugin read, checked,
//! compiled (or loaded from the cache) and pre-linked up front, every hook's settings
//! validated. Nothing is half-loaded: a build either returns a host or an error.

use crate::audit::AuditLog;
use crate::engine::{self, Engine};
use crate::error::{GrantFix, LoadError};
use crate::plugin::{Access, Loader, Plugin, PluginSource};
use hookhost_config::{ConfigFile, Plan};
use hookhost_types::adapter::{AdapterRefusal, AdapterSettings};
use hookhost_types::spec::{AuditFailure, Capability, HookSpec, PluginRef};
use hookhost_types::EventName;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

mod report;

pub use report::{HookProfile, HookReport, Runs};

/// Largest event payload (the strings a hook receives) a hook is run on. A larger one is an
/// executor error for every hook, handled by each hook's `on_error`.
pub const MAX_EVENT_BYTES: usize = 8 << 20;

/// Fuel added to a hook's budget per byte of the event payload it receives: the built-in
/// guard's shell parser burns about 500 a byte on a long line or here-document, so an ordinary
/// 200 KB one still decides within twice that (issue #48). Time is bounded by the timeout.
pub const FUEL_PER_PAYLOAD_BYTE: u64 = 1024;

/// Rounds of re-checks after rewrites before the chain gives up and blocks.
pub const MAX_RECHECK_ROUNDS: usize = 3;

/// Limits of a host as a whole (each hook's own limits are in its [`HookSpec`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostLimits {
    /// Largest event payload a hook is run on ([`MAX_EVENT_BYTES`]).
    pub max_event_bytes: usize,
    /// Fuel added per payload byte ([`FUEL_PER_PAYLOAD_BYTE`]).
    pub fuel_per_payload_byte: u64,
    /// Re-check rounds before a chain that keeps rewriting blocks ([`MAX_RECHECK_ROUNDS`]).
    pub max_recheck_rounds: usize,
    /// Run the hooks of one chain at the same time on an event whose hooks cannot affect one
    /// another — one that cannot block and honours no rewrite (`session_start`,
    /// `notification`, `custom:*`, ...) — when the host runs on a multi-threaded tokio
    /// runtime (default `true`). Results, effects, traces and audit records stay in chain
    /// order.
    pub concurrent_advisory: bool,
}

impl Default for HostLimits {
    fn default() -> HostLimits {
        HostLimits { max_event_bytes: MAX_EVENT_BYTES, fuel_per_payload_byte: FUEL_PER_PAYLOAD_BYTE, max_recheck_rounds: MAX_RECHECK_ROUNDS, concurrent_advisory: true }
    }
}

/// A loaded hook chain, ready to dispatch. `Send + Sync`: share it across tasks and threads.
pub struct Host {
    /// Shared so a concurrent chain's runner tasks can hold them (`dispatch::Job`).
    pub(crate) hooks: Vec<Arc<LoadedHook>>,
    pub(crate) audit: Option<AuditLog>,
    /// What a dispatch does when its audit record cannot be written.
    pub(crate) audit_failure: AuditFailure,
    /// Audit records keep their event (`audit_events`).
    pub(crate) audit_events: bool,
    /// Consecutive stop blocks allowed per session (0 = no cap).
    pub(crate) stop_loop_cap: u32,
    /// Consecutive stop blocks so far, per session (across processes, in the state store).
    pub(crate) stop_blocks: crate::stoploop::StopLoops,
    /// Whether a hook runs on stop events: only then does a prompt reset the stop count.
    pub(crate) stop_hooks: bool,
    /// `once` hooks that already ran, per session and hook (across processes, like stop loops).
    pub(crate) once_runs: crate::stoploop::StopLoops,
    pub(crate) limits: HostLimits,
    /// Peer hooks loaded but not run, and what was ignored in peer files (for `check`).
    pub(crate) not_run: Vec<hookhost_config::NotRun>,
    pub(crate) warnings: Vec<String>,
    pub(crate) restrictions: Vec<String>,
    /// Why a project around the working directory does not run, if so.
    pub(crate) project_note: Option<String>,
    pub(crate) user_note: Option<String>,
    /// Each layer merged, in order: its kind (`managed`, `user`, `project`) and its file.
    pub(crate) layer_sources: Vec<(&'static str, std::path::PathBuf)>,
    /// Which protection is in force and why ([`hookhost_config::Plan::protection`]).
    pub(crate) protection: String,
    /// Events come from a recording, not a runtime ([`Host::replaying`]).
    pub(crate) replayed: bool,
    /// Hooks' session state (`hookhost:hooks/state`).
    pub(crate) kv: Arc<crate::kv::StateStore>,
}

pub(crate) struct LoadedHook {
    pub(crate) spec: HookSpec,
    pub(crate) plugin: Arc<Plugin>,
    pub(crate) settings_json: String,
    /// The bash adapter's settings as loaded (checked, `auto` mode and headers resolved), for a
    /// hook of the bash adapter.
    pub(crate) adapter: Option<AdapterSettings>,
    /// What its instances may reach: `process.run`, a read-only project directory.
    pub(crate) access: Access,
}

enum Source {
    Layers(hookhost_config::Layers),
    Plan(Plan),
}

/// Builds a [`Host`]: what to load (a config file or a plan), and optionally the engine, the
/// audit log, the cache directory, host limits, extra grants and how bundles resolve.
#[must_use]
pub struct HostBuilder {
    source: Source,
    engine: Option<Engine>,
    audit: Option<AuditLog>,
    cache_dir: Option<Option<PathBuf>>,
    limits: HostLimits,
    grant_all: Vec<Capability>,
    kv: Option<crate::kv::StateStore>,
    #[cfg(feature = "bundles")]
    resolver: hookhost_bundle::Resolver,
}

impl Default for HostBuilder {
    fn default() -> HostBuilder {
        HostBuilder {
            source: Source::Layers(hookhost_config::Layers::single(ConfigFile::embedded_default())),
            engine: None,
            audit: None,
            cache_dir: None,
            limits: HostLimits::default(),
            grant_all: Vec::new(),
            kv: None,
            #[cfg(feature = "bundles")]
            resolver: Default::default(),
        }
    }
}

impl HostBuilder {
    /// Load this config file (its bundles are resolved by [`build`](Self::build)). The default
    /// is the embedded default config.
    pub fn config(mut self, config: ConfigFile) -> Self {
        self.source = Source::Layers(hookhost_config::Layers::single(config));
        self
    }

    /// Load these layers (managed, user, project: [`hookhost_config::Layers::discover`]);
    /// their bundles are resolved and the layers merged by [`build`](Self::build).
    pub fn layers(mut self, layers: hookhost_config::Layers) -> Self {
        self.source = Source::Layers(layers);
        self
    }

    /// Load this plan (bundles already resolved).
    pub fn plan(mut self, plan: Plan) -> Self {
        self.source = Source::Plan(plan);
        self
    }

    /// Compile and run on this engine (share one between hosts). Default: the process-wide
    /// [`Engine::shared`].
    pub fn engine(mut self, engine: Engine) -> Self {
        self.engine = Some(engine);
        self
    }

    /// Write audit records here (overrides the config's `audit_log`).
    pub fn audit_log(mut self, log: AuditLog) -> Self {
        self.audit = Some(log);
        self
    }

    /// Cache compiled plugins, pulled bundles and stop-loop counters here, or (`None`) nowhere.
    /// Default: `$HOOKHOST_CACHE_DIR`, else the config's `cache_dir`, else the user cache.
    pub fn cache_dir(mut self, dir: Option<PathBuf>) -> Self {
        self.cache_dir = Some(dir);
        self
    }

    /// Keep hooks' session state here. Default: the user's store
    /// ([`StateStore::for_user`](crate::kv::StateStore::for_user): `$HOOKHOST_STATE_DIR`, else
    /// hookhost's state directory), opened on the first state call a hook makes.
    pub fn state_store(mut self, store: crate::kv::StateStore) -> Self {
        self.kv = Some(store);
        self
    }

    /// Host-wide limits (default [`HostLimits::default`]).
    pub fn limits(mut self, limits: HostLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Grant a capability to every plugin of the config except bundles' (which need a grant by
    /// name in the config).
    pub fn grant_all(mut self, capability: Capability) -> Self {
        self.grant_all.push(capability);
        self
    }

    /// How bundles resolve: the lock mode and who is told of pulls.
    #[cfg(feature = "bundles")]
    pub fn bundles(mut self, resolver: hookhost_bundle::Resolver) -> Self {
        self.resolver = resolver;
        self
    }

    /// Resolve bundles (if any), then load every hook: read, check, compile (or load from
    /// cache) and pre-link each plugin, then call its `validate-settings`. Any failure fails
    /// the whole build.
    pub async fn build(self) -> Result<Host, LoadError> {
        // One cache directory for everything: compiled plugins, pulled bundles, stop loops.
        let cache = match (&self.cache_dir, &self.source) {
            (Some(dir), _) => dir.clone(),
            (None, Source::Layers(layers)) => layers.effective_cache_dir(),
            (None, Source::Plan(plan)) => plan.effective_cache_dir(),
        };
        // It holds native code and fetched bundles: it must be private to this user before
        // anything is read from it or written to it.
        if let Some(dir) = &cache {
            engine::check_cache_dir(dir, false)?;
        }
        let engine = match self.engine {
            Some(engine) => engine,
            None => Engine::shared()?,
        };
        let mut audit = self.audit;
        let kv = self.kv.map(Arc::new);
        let grant = |plan: Plan| plan.granting_all(&self.grant_all);
        match self.source {
            Source::Plan(plan) => load(grant(plan), &engine, cache, &mut audit, self.limits, kv.clone()).await,
            Source::Layers(layers) => {
                // A project layer that fails to load is left out, and the rest loads without it.
                let fallback = layers.project_fallback();
                #[cfg(feature = "bundles")]
                let resolver = hookhost_bundle::Resolver { cache_dir: Some(cache.clone()), ..self.resolver };
                #[cfg(feature = "bundles")]
                let plan = hookhost_bundle::resolve_layers(layers, &resolver).await?.plan;
                #[cfg(not(feature = "bundles"))]
                let plan = layers.without_bundles()?;
                match (load(grant(plan), &engine, cache.clone(), &mut audit, self.limits, kv.clone()).await, fallback) {
                    (Err(e), Some(fallback)) => {
                        let without = fallback.without_project(&fallback.failure(&e))?;
                        #[cfg(feature = "bundles")]
                        let plan = hookhost_bundle::resolve_layers(without, &resolver).await?.plan;
                        #[cfg(not(feature = "bundles"))]
                        let plan = without.without_bundles()?;
                        load(grant(plan), &engine, cache, &mut audit, self.limits, kv.clone()).await
                    }
                    (loaded, _) => loaded,
                }
            }
        }
    }
}

/// Why a hook needs `process:exec`, if it does: its plugin imports `process` — except the bash
/// adapter (`adapter`: its settings), which needs it only in host mode.
fn needs_process(adapter: Option<&AdapterSettings>, process_import: Option<&str>) -> Option<String> {
    match adapter {
        Some(settings) => crate::builtin::process_need(settings),
        None => process_import.map(|import| format!("it imports {import}")),
    }
}

/// Refuse a hook whose plugin needs `process:exec` without holding it.
fn check_process_grant(spec: &HookSpec, adapter: Option<&AdapterSettings>, process_import: Option<&str>, granted: bool) -> Result<(), LoadError> {
    let Some(why) = needs_process(adapter, process_import) else { return Ok(()) };
    if granted {
        return Ok(());
    }
    let name = spec.plugin.to_string();
    let grant = format!("add `[grants]` \"{name}\" = [\"process:exec\"]` to the config");
    let (why, fix) = match (&spec.plugin, spec.plugin.builtin_name()) {
        (PluginRef::Bundle { .. }, None) => (
            format!("{why}; a bundle's plugin holds it only when the bundle's manifest declares it (plugins[].capabilities) and the host grants it"),
            format!("if you trust the bundle, check that its manifest declares it and {grant}"),
        ),
        (PluginRef::Bundle { .. }, Some(_)) => (why, format!("if you trust the bundle, {grant}")),
        _ => (why, format!("if you trust it, {grant}")),
    };
    Err(LoadError::CapabilityNotGranted { hook: spec.id.clone(), plugin: spec.plugin.clone(), capability: Capability::ProcessExec, why, fix: GrantFix::Grant(fix) })
}

/// A capability a layer's policy took away: say so, rather than how to grant it.
fn refused_by_policy(e: LoadError, refused: &std::collections::BTreeMap<(String, Capability), String>) -> LoadError {
    match e {
        LoadError::CapabilityNotGranted { hook, plugin, capability, why, fix } => {
            let fix = match refused.get(&(hook.to_string(), capability.clone())) {
                Some(policy) => GrantFix::RefusedByPolicy(policy.clone()),
                None => fix,
            };
            LoadError::CapabilityNotGranted { hook, plugin, capability, why, fix }
        }
        other => other,
    }
}

/// The directory a hook's sandbox may read: a converted peer hook's project, for the bash
/// adapter of the config's own hooks only — never for a bundle's hooks, whose settings come from
/// a third party and must not choose what of this machine they can read.
fn project_mount(plugin: &PluginRef, adapter: Option<&AdapterSettings>) -> Option<PathBuf> {
    match (plugin, adapter) {
        (PluginRef::Builtin(_), Some(settings)) => crate::builtin::project_mount(settings),
        _ => None,
    }
}

/// Load every hook of a plan (`cache` was checked private by the caller).
async fn load(plan: Plan, engine: &Engine, cache: Option<PathBuf>, audit: &mut Option<AuditLog>, limits: HostLimits, kv: Option<Arc<crate::kv::StateStore>>) -> Result<Host, LoadError> {
    let loader = Loader::new(engine, cache.clone())?;
    let accepted = crate::accepted::AcceptedSettings::new(cache.as_deref());
    tracing::debug!("linker ready");
    let mut plugins: HashMap<PluginRef, Arc<Plugin>> = HashMap::new();
    let mut hooks = Vec::with_capacity(plan.hooks().len());
    let mut rejected = Vec::new();
    for spec in plan.hooks() {
        // The plan stays as validated; the hook as loaded is a new value.
        let mut spec = spec.clone();
        let granted = plan.holds(&spec.plugin, &Capability::ProcessExec) || spec.grants.contains(&Capability::ProcessExec);
        // The bash adapter's settings are its typed contract: read once, here; a hook whose
        // settings do not read is refused naming the setting. They follow the grant (`mode =
        // "auto"`) and the config's own variables (`headers`).
        let adapter = match spec.plugin.builtin_name() {
            Some("bash-adapter") => match AdapterSettings::from_json(&spec.settings) {
                Ok(typed) => {
                    let resolved = crate::builtin::resolve_adapter(&typed, granted, !matches!(spec.plugin, PluginRef::Bundle { .. }));
                    spec.settings = resolved.to_json();
                    Some(resolved)
                }
                Err(message) => {
                    rejected.push(LoadError::SettingsRejected { hook: spec.id, plugin: spec.plugin.to_string(), message });
                    continue;
                }
            },
            _ => None,
        };
        let plugin = match plugins.get(&spec.plugin) {
            Some(p) => p.clone(),
            None => {
                let source = PluginSource::of(&spec, &plan)?;
                // The capability first: a plugin that may not run is never compiled or cached.
                check_process_grant(&spec, adapter.as_ref(), crate::plugin::process_import(&source.bytes).as_deref(), granted).map_err(|e| refused_by_policy(e, plan.refused_grants()))?;
                let p = Arc::new(loader.load(&spec.id, source)?);
                tracing::debug!(plugin = %p.name, "plugin loaded");
                plugins.insert(spec.plugin.clone(), p.clone());
                p
            }
        };
        // Again with what the compiled component imports (and for hooks sharing a plugin).
        check_process_grant(&spec, adapter.as_ref(), plugin.process_import(), granted).map_err(|e| refused_by_policy(e, plan.refused_grants()))?;
        // Only a plugin that imports `process` can call it at all.
        let read_dir = match project_mount(&spec.plugin, adapter.as_ref()) {
            Some(dir) if dir.is_dir() => Some(dir),
            Some(dir) => {
                tracing::warn!(hook_id = %spec.id, "the project directory {} does not exist; the hook's sandbox runs without it", dir.display());
                None
            }
            None => None,
        };
        let mut net = plan.net_hosts(&spec.plugin);
        net.extend(Capability::net_hosts(&spec.grants));
        let access = Access { process: granted && plugin.process_import().is_some(), read_dir, net: net.into() };
        let settings_json = spec.settings.to_string();
        if accepted.known(&plugin.digest, &settings_json, &spec.limits, &access) {
            tracing::debug!(hook_id = %spec.id, "hook settings accepted before");
            hooks.push(Arc::new(LoadedHook { spec, plugin, settings_json, adapter, access }));
            continue;
        }
        match plugin.validate_settings(&spec.id, &settings_json, &spec.limits, &access).await {
            Ok(Ok(())) => accepted.remember(&plugin.digest, &settings_json, &spec.limits, &access),
            Ok(Err(message)) => {
                // Every hook's settings are checked, so one load reports each rejection. The
                // bash adapter's refusals are typed; any other plugin's text is its own.
                let message = AdapterRefusal::decode(&message).map_or(message, |refusal| refusal.to_string());
                rejected.push(LoadError::SettingsRejected { hook: spec.id, plugin: plugin.name.clone(), message });
                continue;
            }
            Err(error) => return Err(LoadError::SettingsCheckFailed { hook: spec.id, plugin: plugin.name.clone(), error }),
        }
        tracing::debug!(hook_id = %spec.id, "hook settings checked");
        hooks.push(Arc::new(LoadedHook { spec, plugin, settings_json, adapter, access }));
    }
    match rejected.len() {
        0 => {}
        1 => return Err(rejected.remove(0)),
        _ => return Err(LoadError::Several(rejected)),
    }
    let audit = match audit.take() {
        Some(log) => Some(log),
        None => match &plan.settings().audit_log {
            Some(path) => Some(AuditLog::open(path).map_err(|source| LoadError::AuditLog { path: path.clone(), source })?),
            None => None,
        },
    };
    let kv = kv.unwrap_or_else(|| Arc::new(crate::kv::StateStore::for_user(crate::kv::StateLimits::of(plan.settings()))));
    let stop_blocks = crate::stoploop::StopLoops::stop_blocks();
    let once_runs = crate::stoploop::StopLoops::once_runs();
    let stop_hooks = hooks.iter().any(|h| matches!(h.spec.event, hookhost_types::EventName::Stop | hookhost_types::EventName::SubagentStop));
    // Said by `check` (Host::warnings); here only for a log that asks.
    for warning in plan.warnings() {
        tracing::info!("{}: {warning}", plan.source().display());
    }
    Ok(Host {
        hooks,
        audit,
        audit_failure: plan.settings().audit_failure,
        audit_events: plan.settings().audit_events,
        stop_loop_cap: plan.settings().stop_loop_cap,
        stop_blocks,
        stop_hooks,
        once_runs,
        limits,
        not_run: plan.not_run().to_vec(),
        warnings: plan.warnings().iter().cloned().chain(guard_results_warnings(plan.hooks())).collect(),
        restrictions: plan.restrictions().to_vec(),
        project_note: plan.project_note().map(str::to_string),
        user_note: plan.user_note().map(str::to_string),
        layer_sources: plan.layers().iter().map(|l| (l.kind.as_str(), l.source.clone())).collect(),
        protection: plan.protection(),
        replayed: false,
        kv,
    })
}

impl Host {
    /// A builder: config or plan, engine, audit log, cache directory, limits.
    pub fn builder() -> HostBuilder {
        HostBuilder::default()
    }

    /// Load a resolved plan with the defaults (shared engine, the plan's audit log and cache).
    pub async fn load(plan: Plan) -> Result<Host, LoadError> {
        Host::builder().plan(plan).build().await
    }

    /// Load a config file with the defaults, resolving its bundles.
    pub async fn from_config(config: ConfigFile) -> Result<Host, LoadError> {
        Host::builder().config(config).build().await
    }

    /// Write audit records to this log (overrides the config's `audit_log`).
    pub fn set_audit_log(&mut self, log: AuditLog) {
        self.audit = Some(log);
    }

    /// The audit log, if records are written.
    pub fn audit_log(&self) -> Option<&AuditLog> {
        self.audit.as_ref()
    }

    /// The loaded hooks' ids, in chain order.
    pub fn hook_ids(&self) -> impl Iterator<Item = &str> {
        self.hooks.iter().map(|h| h.spec.id.as_str())
    }

    /// Hooks of peer files that were loaded but do not run (`http`, `prompt`, `agent`).
    pub fn not_run(&self) -> &[hookhost_config::NotRun] {
        &self.not_run
    }

    /// What was ignored in peer files, one line each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// What a layer's policy removed or changed while the layers merged (docs/ORG.md), one
    /// line each.
    pub fn restrictions(&self) -> &[String] {
        &self.restrictions
    }

    /// Why the project found around the working directory does not run, if one was found and
    /// does not: not approved, changed since, not this user's, or left out because it failed
    /// to load (the other layers then run as if there were none).
    pub fn project_note(&self) -> Option<&str> {
        self.project_note.as_deref()
    }

    /// Each layer this host merged, in order: its kind (`managed`, `user`, `project`) and its
    /// file (`hookhost check` says where each came from).
    pub fn layer_sources(&self) -> &[(&'static str, std::path::PathBuf)] {
        &self.layer_sources
    }

    /// Mark every audit record this host writes from now on as replayed (`hookhost replay`,
    /// `hookhost diff`): a recording's events are not production traffic. Hooks' state goes to
    /// a throwaway store in memory from now on: a recording neither reads nor changes a live
    /// session's.
    pub fn replaying(&mut self) {
        self.replayed = true;
        self.scratch_state();
    }

    /// Keep hooks' state in a throwaway store in memory from now on (`hookhost test`,
    /// `replay`, `diff`): what they run is not a live session.
    pub fn scratch_state(&mut self) {
        self.kv = Arc::new(crate::kv::StateStore::in_memory(self.kv.limits()));
    }

    /// Where hooks' session state is kept.
    pub fn state_store(&self) -> &Arc<crate::kv::StateStore> {
        &self.kv
    }

    /// The state scope of each plugin that keeps state among `event`'s hooks, for the event's
    /// session: the plugin's name and its scope, in chain order, each plugin once (`hookhost
    /// test` seeds and reports state through them).
    pub fn state_scopes(&self, event: &hookhost_types::HookEvent) -> Vec<(String, crate::kv::Scope)> {
        let mut out: Vec<(String, crate::kv::Scope)> = Vec::new();
        for hook in self.hooks.iter().filter(|h| h.spec.event == event.name && h.plugin.uses_state()) {
            let plugin = &hook.plugin.name;
            if out.iter().all(|(p, _)| p != plugin) {
                out.push((plugin.clone(), crate::kv::Scope::of(plugin, &event.session_id, event.cwd.as_deref())));
            }
        }
        out
    }

    /// Which protection is in force and why, one line ending in a newline (`hookhost check`).
    pub fn protection(&self) -> &str {
        &self.protection
    }

    /// Why the user's config was left out (it did not load and the embedded default runs in its
    /// place: `LayerOptions::user_left_out`), if it was.
    pub fn user_note(&self) -> Option<&str> {
        self.user_note.as_deref()
    }
}

#[cfg(test)]
mod tests;

/// A guard hook whose settings learn from tool results (the `taint` pack, `loop_after`) while no
/// hook of the same plugin runs on `post_tool_use`: it would never learn anything, and the rule
/// would never ask — said by `check`, with the fix.
fn guard_results_warnings(hooks: &[HookSpec]) -> Vec<String> {
    let learns = |h: &HookSpec| {
        let taint = h.settings.get("packs").and_then(serde_json::Value::as_array).is_some_and(|p| p.iter().any(|p| p == "taint"));
        let looping = h.settings.get("loop_after").is_some();
        (taint || looping).then_some(if taint { "its `taint` pack" } else { "`loop_after`" })
    };
    let is_guard = |h: &HookSpec| h.plugin.to_string().ends_with("guard-destructive");
    let mut out = Vec::new();
    for hook in hooks.iter().filter(|h| h.event == EventName::PreToolUse && is_guard(h)) {
        let Some(what) = learns(hook) else { continue };
        if !hooks.iter().any(|h| h.event == EventName::PostToolUse && h.plugin == hook.plugin) {
            out.push(format!(
                "hook {}: {what} learns from tool results, but no hook runs {} on post_tool_use, so it never asks; add a [[hooks]] entry with event = \"post_tool_use\" and the same executor (docs/CONFIG.md)",
                hook.id, hook.plugin
            ));
        }
    }
    out
}
