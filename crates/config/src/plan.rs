//! A [`Plan`]: what a host loads. Every hook in chain order, where each plugin's bytes come
//! from, what each plugin may do, and the host's settings. A config file becomes a plan once
//! its bundles are resolved (`hookhost-bundle`), or directly when it names none.

use crate::{ConfigError, ConfigFile, HostSettings, Problem};
use hookhost_types::spec::{Capability, HookSpec, PluginRef};
use hookhost_types::Digest;
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

/// A verified plugin file of a bundle.
#[derive(Debug, Clone)]
pub struct BundlePlugin {
    /// Its bytes, checked against the signed manifest.
    pub bytes: Arc<[u8]>,
    /// Their digest.
    pub digest: Digest,
    /// The capabilities the bundle's manifest declares for it.
    pub declared: BTreeSet<Capability>,
}

/// What a host loads. Nothing here is fetched or compiled yet; bundle plugin bytes are
/// already verified. Immutable once built: it is read through its accessors, and each later
/// step ([`Plan::granting_all`]) makes a new value.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The config file it came from, for messages.
    pub(crate) source: PathBuf,
    /// Every hook in chain order (bundle hooks before the user's own).
    pub(crate) hooks: Vec<HookSpec>,
    /// Audit log, cache, grants, stop-loop cap (the config's).
    pub(crate) settings: HostSettings,
    /// HookIds muted by `disabled_contributions`.
    pub(crate) muted: Vec<String>,
    /// Plugin files whose bytes are fixed: a resolved bundle's (verified against its signed
    /// manifest), and an approved project's (as its approval hashed them).
    pub(crate) bundle_plugins: HashMap<PluginRef, BundlePlugin>,
    /// Peer hooks loaded but not run (`http`, `prompt`, `agent`), with why.
    pub(crate) not_run: Vec<crate::NotRun>,
    /// What was ignored in peer files, one line each.
    pub(crate) warnings: Vec<String>,
    /// `disabled_contributions` as written (layers mute each other's hooks when they merge).
    pub(crate) disabled_contributions: Vec<String>,
    /// The layers it was merged from, each with its hooks and settings (docs/ORG.md).
    pub(crate) layers: Vec<crate::layers::LayerSummary>,
    /// What a layer's policy removed or changed, and layers not loaded, one line each.
    pub(crate) restrictions: Vec<String>,
    /// Each grant a layer's policy refused: (HookId, capability) → why (for load errors).
    pub(crate) refused_grants: std::collections::BTreeMap<(String, Capability), String>,
    /// Why a project found around the working directory does not run (not approved, changed,
    /// not this user's, or left out because it failed to load), if so: one line to show.
    pub(crate) project_note: Option<String>,
    /// Why the user's config was left out (it did not load), if it was: one line to show.
    pub(crate) user_note: Option<String>,
    /// Why the user layer holds (or lacks) the embedded default's hooks.
    pub(crate) builtin_note: Option<String>,
}

impl Plan {
    /// The plan of a config that names no bundles. A config that does needs them resolved
    /// first (`hookhost_bundle::resolve`); this refuses it, naming the first.
    pub fn without_bundles(config: ConfigFile) -> Result<Plan, ConfigError> {
        if let Some(first) = config.bundles.first() {
            return Err(ConfigError::new(
                config.source.clone(),
                vec![Problem::at(first.at.clone(), format!("names the bundle {}, but bundles are not resolved here (this hookhost was built without bundle support); remove `bundles`", first.reference))],
            ));
        }
        Ok(Plan::base(config))
    }

    /// The plan of a config's own hooks and settings, before any bundle joins it.
    pub fn base(config: ConfigFile) -> Plan {
        Plan {
            source: config.source,
            hooks: config.hooks,
            settings: config.settings,
            muted: config.muted,
            bundle_plugins: HashMap::new(),
            not_run: config.not_run,
            warnings: config.warnings,
            disabled_contributions: config.disabled_contributions,
            layers: Vec::new(),
            restrictions: Vec::new(),
            refused_grants: Default::default(),
            project_note: None,
            user_note: None,
            builtin_note: None,
        }
    }

    /// A config's own hooks with a bundle's contributed ones before them (`hookhost-bundle`'s
    /// resolve): hooks the config's `disabled_contributions` muted, and the verified bytes of
    /// the bundles' plugin files.
    pub fn with_bundles(config: ConfigFile, contributed: Vec<HookSpec>, muted: Vec<String>, bundle_plugins: HashMap<PluginRef, BundlePlugin>) -> Plan {
        let mut plan = Plan::base(config);
        plan.muted.extend(muted);
        plan.bundle_plugins = bundle_plugins;
        let at = plan.hooks.iter().position(|h| h.id.is_users()).unwrap_or(plan.hooks.len());
        plan.hooks.splice(at..at, contributed);
        plan
    }

    /// This plan with `capabilities` granted to every plugin (`--grant`): a new value.
    pub fn granting_all(self, capabilities: &[Capability]) -> Plan {
        let mut plan = self;
        for capability in capabilities {
            plan.settings.grants.grant_all(capability.clone());
        }
        plan
    }

    /// The config file it came from, for messages.
    pub fn source(&self) -> &std::path::Path {
        &self.source
    }

    /// Every hook in chain order (bundle hooks before the user's own).
    pub fn hooks(&self) -> &[HookSpec] {
        &self.hooks
    }

    /// Audit log, cache, grants, stop-loop cap.
    pub fn settings(&self) -> &HostSettings {
        &self.settings
    }

    /// HookIds muted by `disabled_contributions`.
    pub fn muted(&self) -> &[String] {
        &self.muted
    }

    /// The plugin files whose bytes are fixed (a resolved bundle's, an approved project's).
    pub fn bundle_plugins(&self) -> &HashMap<PluginRef, BundlePlugin> {
        &self.bundle_plugins
    }

    /// Peer hooks loaded but not run, with why.
    pub fn not_run(&self) -> &[crate::NotRun] {
        &self.not_run
    }

    /// What was ignored in peer files, one line each.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The layers it was merged from (docs/ORG.md).
    pub fn layers(&self) -> &[crate::layers::LayerSummary] {
        &self.layers
    }

    /// What a layer's policy removed or changed, and layers not loaded, one line each.
    pub fn restrictions(&self) -> &[String] {
        &self.restrictions
    }

    /// Each grant a layer's policy refused: (HookId, capability) → why.
    pub fn refused_grants(&self) -> &std::collections::BTreeMap<(String, Capability), String> {
        &self.refused_grants
    }

    /// Why a project found around the working directory does not run, if so.
    pub fn project_note(&self) -> Option<&str> {
        self.project_note.as_deref()
    }

    /// Why the user's config was left out (it did not load), if it was.
    pub fn user_note(&self) -> Option<&str> {
        self.user_note.as_deref()
    }

    /// Which protection is in force and why, one line (`hookhost check`): the hooks that run
    /// the built-in guard before a tool call (observing only, or without self-protection, when
    /// so), or that none does — and whether the embedded default's hooks stand in for a user
    /// file that defines none.
    pub fn protection(&self) -> String {
        let guards: Vec<String> = self
            .hooks
            .iter()
            .filter(|h| h.event == hookhost_types::EventName::PreToolUse && (matches!(&h.plugin, PluginRef::Builtin(n) if n == "guard-destructive") || matches!(&h.plugin, PluginRef::Bundle { file, .. } if file == "builtin:guard-destructive")))
            .map(|h| {
                let mut how = Vec::new();
                if h.mode == hookhost_types::spec::Mode::Observe {
                    how.push("observe only: it decides nothing");
                }
                if h.settings.get("protect_hooks").and_then(serde_json::Value::as_bool) == Some(false) {
                    how.push("protect_hooks = false: the agent may change its hooks");
                }
                if how.is_empty() { h.id.to_string() } else { format!("{} ({})", h.id, how.join("; ")) }
            })
            .collect();
        let why = self.builtin_note.as_deref().map(|n| format!("; {n}")).unwrap_or_default();
        if guards.is_empty() {
            format!("protection: none — no hook runs the built-in guard (builtin:guard-destructive) before tool calls{why}\n")
        } else {
            format!("protection: the built-in guard runs before tool calls as {}{why}\n", guards.join(", "))
        }
    }

    /// The cache directory a host of this plan uses: `$HOOKHOST_CACHE_DIR`, else `cache_dir`,
    /// else the user's cache directory.
    pub fn effective_cache_dir(&self) -> Option<PathBuf> {
        self.settings.effective_cache_dir()
    }

    /// Whether a plugin holds `capability`: granted (a bundle's plugin by its own name only)
    /// and, for a bundle's plugin file, declared in its manifest. Any other plugin declares a
    /// capability by importing its interface (checked when it loads).
    pub fn holds(&self, plugin: &PluginRef, capability: &Capability) -> bool {
        self.declares(plugin, capability) && self.settings.grants.allows(plugin, capability)
    }

    /// The `net:http:` hosts a plugin may reach: granted, and for a bundle's plugin file
    /// declared in its manifest too.
    pub fn net_hosts(&self, plugin: &PluginRef) -> Vec<hookhost_types::spec::NetHost> {
        let mut hosts = self.settings.grants.net_hosts(plugin);
        hosts.retain(|h| self.declares(plugin, &Capability::NetHttp(h.clone())));
        hosts
    }

    fn declares(&self, plugin: &PluginRef, capability: &Capability) -> bool {
        match plugin {
            PluginRef::Bundle { .. } if plugin.builtin_name().is_none() => self.bundle_plugins.get(plugin).is_some_and(|p| p.declared.contains(capability)),
            _ => true,
        }
    }
}
