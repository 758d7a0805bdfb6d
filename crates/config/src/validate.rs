//! Validation of a parsed config: every rule of Everruns' user_hooks contract, every problem
//! collected with its path (`hooks[2].timeout_ms`, `capabilities[0].hooks[1].event`) before
//! failing, so a config loads whole or not at all.

use super::*;
use hookhost_types::spec::{PluginName, BUILTIN_PLUGINS, DEFAULT_MEMORY_MIB, DEFAULT_TIMEOUT_MS, PEER_TIMEOUT_RANGE_MS};
use hookhost_types::{EventName, HookId, Problem};
use std::collections::HashMap;
use std::time::Duration;

/// One group of hooks in chain order: its HookId prefix, its path in the file, its hooks.
struct Group {
    prefix: String,
    path: String,
    hooks: Vec<RawHook>,
}

fn check_limits(at: &str, fuel: Option<u64>, memory_mib: Option<u64>, problems: &mut Vec<Problem>) {
    if fuel == Some(0) {
        problems.push(Problem::at(format!("{at}.fuel"), format!("must be greater than 0 (default {DEFAULT_FUEL})")));
    }
    if let Some(m) = memory_mib {
        if m == 0 || m > MAX_MEMORY_MIB {
            problems.push(Problem::at(format!("{at}.memory_mib"), format!("{m} is out of range; use 1..={MAX_MEMORY_MIB} (default {DEFAULT_MEMORY_MIB})")));
        }
    }
}

use hookhost_types::text::is_plain_name as valid_name;

impl RawConfig {
    /// Validate every hook, collecting all problems.
    pub fn validate(self, base: &Path) -> Result<ConfigFile, Vec<Problem>> {
        let mut problems = Vec::new();
        let layer_mode = self.mode.unwrap_or_default();
        let defaults = Limits { fuel: self.limits.fuel.unwrap_or(DEFAULT_FUEL), memory_bytes: (self.limits.memory_mib.unwrap_or(DEFAULT_MEMORY_MIB) as usize) << 20, ..Limits::default() };
        check_limits("limits", self.limits.fuel, self.limits.memory_mib, &mut problems);
        let grants = grants(&self.grants, base, &mut problems);
        let mut groups = Vec::new();
        for (i, cap) in self.capabilities.into_iter().enumerate() {
            if !valid_name(&cap.id) || cap.id == "user" {
                problems.push(Problem::at(format!("capabilities[{i}].id"), format!("{:?} is not a valid capability id; use letters, digits, '_', '-' or '.' (and not \"user\")", cap.id)));
            }
            let path = cap.path.unwrap_or_else(|| format!("capabilities[{i}].hooks"));
            groups.push(Group { prefix: cap.id, path, hooks: cap.hooks });
        }
        let user = Group { prefix: "user".into(), path: self.user_path.unwrap_or_else(|| "hooks".into()), hooks: self.hooks };
        groups.insert(self.user_position.unwrap_or(groups.len()).min(groups.len()), user);
        let disabled: std::collections::HashSet<&str> = self.disabled_contributions.iter().map(String::as_str).collect();
        let mut hooks = Vec::new();
        let mut muted = Vec::new();
        let mut seen: HashMap<String, String> = HashMap::new();
        for group in groups {
            for (index, raw) in group.hooks.into_iter().enumerate() {
                let at = raw.at.clone().unwrap_or_else(|| format!("{}[{index}]", group.path));
                let id = format!("{}:{}", group.prefix, raw.id.clone().unwrap_or_else(|| default_name(&raw.event, index)));
                if let Some(first) = seen.insert(id.clone(), at.clone()) {
                    problems.push(Problem::at(format!("{at}.id"), format!("duplicate hook id {id:?} (also {first}); give each hook a distinct id")));
                }
                let Some(spec) = hook(raw, &group.prefix, index, &at, base, defaults, layer_mode, &mut problems) else { continue };
                if group.prefix != "user" && disabled.contains(spec.id.as_str()) {
                    tracing::info!(hook_id = %spec.id, "contributed hook muted by disabled_contributions");
                    muted.push(spec.id.into());
                    continue;
                }
                hooks.push(spec);
            }
        }
        let trust = self.trust.clone().unwrap_or_default().validate(base, &mut problems);
        let registries = bundles::registries(&self.registries, base, &mut problems);
        let bundles = bundles::bundles(&self.bundles, layer_mode, &registries, &mut problems);
        let resolve_ttl = match self.resolve_ttl.as_ref().map(RawDuration::parse) {
            None => DEFAULT_RESOLVE_TTL,
            Some(Ok(d)) => d,
            Some(Err(e)) => {
                problems.push(Problem::at("resolve_ttl", e.to_string()));
                DEFAULT_RESOLVE_TTL
            }
        };
        let state_ttl = match self.state_ttl.as_ref().map(RawDuration::parse) {
            None => crate::settings::DEFAULT_STATE_TTL,
            Some(Ok(d)) if d.as_secs() >= 1 => d,
            Some(Ok(_)) => {
                problems.push(Problem::at("state_ttl", "must be at least 1 second (hooks' state needs time to be read back)".to_string()));
                crate::settings::DEFAULT_STATE_TTL
            }
            Some(Err(e)) => {
                problems.push(Problem::at("state_ttl", e.to_string()));
                crate::settings::DEFAULT_STATE_TTL
            }
        };
        let state_max_kib = match self.state_max_kib {
            None => crate::settings::DEFAULT_STATE_MAX_KIB,
            Some(k) if (1..=crate::settings::MAX_STATE_MAX_KIB).contains(&k) => k,
            Some(k) => {
                problems.push(Problem::at("state_max_kib", format!("{k} is out of range; give 1..={}", crate::settings::MAX_STATE_MAX_KIB)));
                crate::settings::DEFAULT_STATE_MAX_KIB
            }
        };
        let policy = self.policy.as_ref().map(|p| p.validate(&mut problems)).unwrap_or_default();
        let written = Setting::ALL
            .into_iter()
            .filter(|s| match s {
                Setting::AuditLog => self.audit_log.is_some(),
                Setting::AuditFailure => self.audit_failure.is_some(),
                Setting::AuditEvents => self.audit_events.is_some(),
                Setting::CacheDir => self.cache_dir.is_some(),
                Setting::StopLoopCap => self.stop_loop_cap.is_some(),
                Setting::ResolveTtl => self.resolve_ttl.is_some(),
                Setting::StateTtl => self.state_ttl.is_some(),
                Setting::StateMaxKib => self.state_max_kib.is_some(),
            })
            .collect();
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(ConfigFile {
            disabled_contributions: self.disabled_contributions,
            bundles,
            registries,
            trust,
            defaults,
            source: PathBuf::new(),
            hooks,
            settings: HostSettings {
                audit_log: self.audit_log.map(|p| base.join(p)),
                audit_failure: self.audit_failure.unwrap_or_default(),
                audit_events: self.audit_events.unwrap_or(false),
                cache_dir: self.cache_dir.map(|p| base.join(p)),
                grants,
                stop_loop_cap: self.stop_loop_cap.unwrap_or(DEFAULT_STOP_LOOP_CAP),
                resolve_ttl,
                state_ttl,
                state_max_kib,
                written,
            },
            policy,
            trust_written: self.trust.is_some(),
            builtin_hooks: self.builtin_hooks,
            muted,
            not_run: self.not_run,
            warnings: self.warnings,
        })
    }
}

/// A hook's name when it has no id: `{event}_{index}` (`custom:deploy` → `custom_deploy_0`).
fn default_name(event: &str, index: usize) -> String {
    format!("{}_{index}", event.replace(':', "_"))
}

fn grants(raw: &std::collections::BTreeMap<String, Vec<String>>, base: &Path, problems: &mut Vec<Problem>) -> Grants {
    let mut grants = Grants::default();
    for (plugin, caps) in raw {
        let key = match PluginName::parse(plugin, true) {
            PluginName::Builtin(name) => PluginRef::Builtin(name.to_string()),
            PluginName::BundleFile(bundle, file) => PluginRef::Bundle { bundle, file: file.to_string() },
            PluginName::Path(path) => PluginRef::Path(base.join(path)),
        };
        for cap in caps {
            match cap.parse::<Capability>() {
                Ok(cap) => grants.grant(key.clone(), cap),
                Err(e) => problems.push(Problem::at(format!("grants.{plugin:?}"), e.to_string())),
            }
        }
    }
    grants
}

/// Validate one hook; `None` when it has problems (recorded in `problems`).
/// One hook; `default_mode`: the mode of a hook that names none (its file's, or its bundle
/// reference's).
#[allow(clippy::too_many_arguments)]
pub(super) fn hook(raw: RawHook, prefix: &str, index: usize, at: &str, base: &Path, defaults: Limits, default_mode: Mode, problems: &mut Vec<Problem>) -> Option<HookSpec> {
    let before = problems.len();
    let mut bad = |field: &str, msg: String| problems.push(Problem::at(format!("{at}.{field}"), msg.to_string()));
    let event = EventName::from_config(&raw.event);
    if event.is_none() {
        let known: Vec<_> = EventName::canonical_names().collect();
        bad("event", format!("unknown event {:?}; use one of {}, or custom:<name> for an event hookhost does not model", raw.event, known.join(", ")));
    }
    let name = raw.id.clone().unwrap_or_else(|| default_name(&raw.event, index));
    if !valid_name(&name) {
        bad("id", format!("{name:?} is not a valid hook id; use letters, digits, '_', '-' or '.' (no ':' or spaces)"));
    }
    let timeout_ms = raw.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    let range = if raw.peer { PEER_TIMEOUT_RANGE_MS } else { TIMEOUT_RANGE_MS };
    if !range.contains(&timeout_ms) {
        bad("timeout_ms", format!("{timeout_ms} is out of range; use {}..={} milliseconds (default {DEFAULT_TIMEOUT_MS})", range.start(), range.end()));
    }
    let mut matcher = None;
    if let (Some(spec), Some(ev)) = (&raw.matcher, &event) {
        // A custom event may carry a tool call (a peer's PostToolUseFailure): any matcher goes.
        if !ev.is_tool_event() && !matches!(ev, EventName::Custom(_)) && !spec.is_event_only() {
            bad("matcher", format!("tool matchers apply to tool events only (pre_tool_use, permission_request, post_tool_use, tool_result_transform), not {ev}; remove the matcher, or (in a hookhost config) match this event with payload_regex, or field and pattern"));
        } else {
            match spec.compile() {
                Ok(m) => matcher = Some(m),
                Err(errs) => errs.into_iter().for_each(|(field, msg)| bad(&format!("matcher.{field}"), msg)),
            }
        }
    }
    let plugin = match PluginName::parse(&raw.executor.plugin, false) {
        PluginName::Builtin(name) if BUILTIN_PLUGINS.contains(&name) => Some(PluginRef::Builtin(name.to_string())),
        PluginName::Builtin(name) => {
            bad("executor.plugin", format!("unknown built-in plugin {name:?}; built-ins are {}", BUILTIN_PLUGINS.iter().map(|n| format!("builtin:{n}")).collect::<Vec<_>>().join(", ")));
            None
        }
        _ if raw.executor.plugin.trim().is_empty() => {
            bad("executor.plugin", "is empty; name a .wasm component path or builtin:<name>".into());
            None
        }
        _ => Some(PluginRef::Path(base.join(&raw.executor.plugin))),
    };
    check_limits(&format!("{at}.executor"), raw.executor.fuel, raw.executor.memory_mib, problems);
    if problems.len() > before {
        return None;
    }
    Some(HookSpec {
        id: HookId::new(prefix, &name),
        event: event?,
        matcher,
        matcher_spec: raw.matcher,
        plugin: plugin?,
        settings: raw.executor.settings.unwrap_or_else(|| Value::Object(Default::default())),
        limits: Limits {
            timeout: Duration::from_millis(timeout_ms),
            fuel: raw.executor.fuel.unwrap_or(defaults.fuel),
            memory_bytes: raw.executor.memory_mib.map_or(defaults.memory_bytes, |m| (m as usize) << 20),
        },
        on_error: raw.on_error,
        description: raw.description,
        background: raw.background,
        once: raw.once,
        mode: raw.mode.unwrap_or(default_mode),
        grants: raw.grants.into_iter().collect(),
    })
}
