//! Joining the layers' resolved plans into the plan a host loads: hooks in layer order, each
//! layer's grants for its own hooks only (as the policies above it allow), lower layers' limits
//! capped, settings merged, an approved project's plugins pinned to the bytes its approval read.

use super::{error, named, LayerKind, Merge};
use crate::policy::{self, CapabilityPattern, Policy};
use crate::{ConfigError, Plan, Problem, Setting};
use hookhost_types::spec::{Capability, Grants, HookSpec, PluginRef};
use hookhost_types::{Digest, HookId};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

impl Merge {
    /// The bundle digests the loaded project layer was approved with: each of its bundle
    /// references must resolve to exactly these. `None` when no project layer is loaded (or it
    /// is being approved now).
    pub fn approved_project_bundles(&self) -> Option<&BTreeMap<String, String>> {
        self.project.as_ref().and_then(|p| p.bundles.as_ref())
    }

    /// Join the layers' resolved plans (in layer order) into the plan a host loads: hooks in
    /// layer order, each layer's grants given to its own hooks only (as its policy allows),
    /// lower layers' limits capped, settings merged; a lower layer that mutes or redefines a
    /// higher one's hook, or sets a setting differently, is an error naming both.
    pub fn merge(self, plans: Vec<(LayerKind, Plan)>) -> Result<Plan, ConfigError> {
        let Merge { managed, user, mut restrictions, mut summaries, project, project_note, user_note, builtin_note } = self;
        let mut plans = plans;
        // A project's plugin files load from the bytes its approval hashed, never read again.
        if let Some(pins) = &project {
            for (_, plan) in plans.iter_mut().filter(|(k, _)| *k == LayerKind::Project) {
                for h in &plan.hooks {
                    let PluginRef::Path(path) = &h.plugin else { continue };
                    let Some(file) = pins.snapshot.get(path) else {
                        return Err(error(
                            &plan.source,
                            Problem::file(format!("hook {}: its plugin {} is not among the project's approved files (a project's plugins must be inside {}): move it into the project and approve it again", h.id, path.display(), pins.root.display())),
                        ));
                    };
                    let digest = Digest::from_hex(file.digest.trim_start_matches("sha256:")).expect("a digest the scan computed");
                    plan.bundle_plugins.insert(h.plugin.clone(), crate::BundlePlugin { bytes: file.bytes.clone(), digest, declared: BTreeSet::new() });
                }
            }
        }
        // The layer's own hooks are `{layer}:{id}`.
        for (kind, plan) in &mut plans {
            if *kind != LayerKind::User {
                let owner = kind.to_string();
                for h in &mut plan.hooks {
                    if h.id.is_users() {
                        h.id = h.id.with_owner(&owner);
                    }
                }
            }
        }
        // HookIds are unique across layers: a lower layer cannot replace a higher one's hook.
        let mut owner: BTreeMap<HookId, (LayerKind, PathBuf)> = BTreeMap::new();
        for (kind, plan) in &plans {
            for h in &plan.hooks {
                if let Some((k, file)) = owner.get(&h.id) {
                    return Err(error(&plan.source, Problem::file(format!("hook {:?} is also defined by {}; a lower layer cannot replace or reorder a higher layer's hook: give this one another id, or list the bundle in one layer only", h.id, named(*k, file)))));
                }
                owner.insert(h.id.clone(), (*kind, plan.source.clone()));
            }
        }
        // Mutes: a layer mutes its own contributions and lower layers' hooks, never a higher one's.
        for i in 0..plans.len() {
            let (kind, disabled, source) = (plans[i].0, plans[i].1.disabled_contributions.clone(), plans[i].1.source.clone());
            for id in disabled {
                if plans[i].1.muted.contains(&id) {
                    continue;
                }
                match owner.get(id.as_str()) {
                    Some((k, file)) if *k < kind => {
                        return Err(error(&source, Problem::at("disabled_contributions", format!("{id:?} is a hook of {}; a lower layer cannot mute it (ask whoever manages that file)", named(*k, file)))));
                    }
                    Some((k, _)) if *k > kind => {
                        for (lk, plan) in plans.iter_mut().filter(|(lk, _)| lk == k) {
                            plan.hooks.retain(|h| h.id != id);
                            plan.muted.push(id.clone());
                            tracing::info!(hook_id = %id, layer = %lk, "hook muted by a higher layer's disabled_contributions");
                        }
                    }
                    Some(_) => tracing::warn!(hook_id = %id, "disabled_contributions names a hook of its own file; remove the hook instead"),
                    None => tracing::warn!(hook_id = %id, "disabled_contributions names no hook of any layer"),
                }
            }
        }
        // Settings: the highest layer that wrote one decides; two that differ are a conflict.
        let mut settings = plans.iter().find(|(k, _)| *k == LayerKind::User).map(|(_, p)| p.settings.clone()).unwrap_or_default();
        let mut written_by: BTreeMap<Setting, (LayerKind, PathBuf, String)> = BTreeMap::new();
        for (kind, plan) in &plans {
            for name in &plan.settings.written {
                let value = name.value(&plan.settings);
                match written_by.get(name) {
                    Some((k, file, v)) if *v != value => {
                        return Err(error(&plan.source, Problem::at(name.to_string(), format!("{} sets it to {v:?}, {} to {value:?}; remove it from one of them", named(*k, file), named(*kind, &plan.source)))));
                    }
                    Some(_) => {}
                    None => {
                        written_by.insert(*name, (*kind, plan.source.clone(), value));
                        name.copy(&plan.settings, &mut settings);
                    }
                }
            }
        }
        settings.written = written_by.keys().copied().collect();
        settings.grants = Grants::default();
        // Grants: each layer's reach its own hooks, as far as the layers above allow.
        let managed_policy = managed.as_ref().map(|(_, p)| p.clone()).unwrap_or_default();
        let managed_file = managed.as_ref().map(|(f, _)| f.clone()).unwrap_or_default();
        let mut refused_grants = BTreeMap::new();
        for (kind, plan) in &mut plans {
            let kind = *kind;
            let grants = plan.settings.grants.clone();
            for i in 0..plan.hooks.len() {
                let h = &plan.hooks[i];
                let mut caps: BTreeSet<Capability> = grants.for_plugin(&h.plugin).into_iter().filter(|c| plan.holds(&h.plugin, c)).collect();
                caps.extend(h.grants.iter().cloned());
                let h = &mut plan.hooks[i];
                caps.retain(|c| match refusal(kind, c, &managed_policy, &managed_file, &user) {
                    None => true,
                    Some(why) => {
                        restrictions.push(format!("{kind} hook {}: {c} not granted: {why}", h.id));
                        refused_grants.insert((h.id.to_string(), c.clone()), why);
                        false
                    }
                });
                h.grants = caps;
                if kind != LayerKind::Managed {
                    cap_limits(h, &managed_policy.max_limits, &managed_file, &mut restrictions);
                }
            }
        }
        // One plan.
        let source = user.0.clone();
        let mut merged = Plan { source, settings, ..Plan::default() };
        for (kind, plan) in plans {
            if let Some(s) = summaries.iter_mut().find(|s| s.kind == kind) {
                s.hooks = plan.hooks.iter().map(|h| h.id.to_string()).collect();
            }
            merged.hooks.extend(plan.hooks);
            merged.muted.extend(plan.muted);
            merged.bundle_plugins.extend(plan.bundle_plugins);
            merged.not_run.extend(plan.not_run);
            merged.warnings.extend(plan.warnings);
            merged.disabled_contributions.extend(plan.disabled_contributions);
        }
        merged.layers = summaries;
        merged.restrictions = restrictions;
        merged.project_note = project_note;
        merged.user_note = user_note;
        merged.builtin_note = builtin_note;
        merged.refused_grants = refused_grants;
        Ok(merged)
    }
}

/// Why a hook of `kind` may not hold `c`, if it may not.
fn refusal(kind: LayerKind, c: &Capability, managed: &Policy, managed_file: &Path, user: &(PathBuf, Policy)) -> Option<String> {
    let allows = |list: &[CapabilityPattern]| list.iter().any(|p| p.allows(c));
    match kind {
        LayerKind::Managed => None,
        LayerKind::User => match &managed.user_grants {
            Some(list) if !allows(list) => Some(format!("{} lets the user layer grant {} (policy.user_grants)", managed_file.display(), only(list))),
            _ => None,
        },
        LayerKind::Project => {
            let user_list = user.1.project_grants.clone().unwrap_or_default();
            if !allows(&user_list) {
                return Some(format!(
                    "your user config ({}) lets projects grant {} (policy.project_grants); add it there if you trust this project with it",
                    user.0.display(),
                    only(&user_list)
                ));
            }
            match &managed.project_grants {
                Some(list) if !allows(list) => Some(format!("{} lets projects grant {} (policy.project_grants)", managed_file.display(), only(list))),
                _ => None,
            }
        }
    }
}

/// `nothing`, or `only X, Y`.
fn only(list: &[CapabilityPattern]) -> String {
    if list.is_empty() {
        "nothing".into()
    } else {
        format!("only {}", policy::list(list))
    }
}

/// Lower a lower layer's hook's limits to the managed ceilings, saying so.
fn cap_limits(h: &mut HookSpec, max: &crate::MaxLimits, managed_file: &Path, restrictions: &mut Vec<String>) {
    let id = h.id.clone();
    let mut note = |what: String| restrictions.push(format!("hook {id}: {what} (policy.max_limits of {})", managed_file.display()));
    if let Some(f) = max.fuel.filter(|f| h.limits.fuel > *f) {
        note(format!("fuel {} lowered to {f}", h.limits.fuel));
        h.limits.fuel = f;
    }
    if let Some(m) = max.memory_bytes.filter(|m| h.limits.memory_bytes > *m) {
        note(format!("memory {} MiB lowered to {} MiB", h.limits.memory_bytes >> 20, m >> 20));
        h.limits.memory_bytes = m;
    }
    if let Some(t) = max.timeout.filter(|t| h.limits.timeout > *t) {
        note(format!("timeout {} ms lowered to {} ms", h.limits.timeout.as_millis(), t.as_millis()));
        h.limits.timeout = t;
    }
}
