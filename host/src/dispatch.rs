//! `Host`: loads a config (every plugin compiled, checked and pre-linked up front) and
//! dispatches events through the hook chain with the rules of DESIGN.md §7.

use crate::audit::{AuditLog, AuditRecord};
use crate::config::{Config, HookSpec, OnError, PluginRef};
use crate::decision::{Decision, Effect, Verdict, VerdictKind};
use crate::error::{HookError, LoadError};
use crate::event::{now_rfc3339, EventName, HookEvent};
use crate::plugin::{Plugin, Usage};
use crate::{engine, wit};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// A loaded hook chain, ready to dispatch. `Send + Sync`: share it across tasks and threads.
pub struct Host {
    hooks: Vec<LoadedHook>,
    audit: Option<AuditLog>,
    /// Consecutive stop blocks allowed per session (0 = no cap).
    stop_loop_cap: u32,
    /// Consecutive stop blocks so far, per session.
    stop_blocks: std::sync::Mutex<HashMap<String, u32>>,
}

struct LoadedHook {
    spec: HookSpec,
    plugin: Arc<Plugin>,
    settings_json: String,
    /// May call `process.run`.
    process_granted: bool,
}

/// The built-in plugin that runs shell hooks; it needs `process:exec` only in host mode.
const BASH_ADAPTER: &str = "bash-adapter";

/// Why a hook needs `process:exec`, if it does: the plugin imports `process` — except the
/// built-in bash adapter, which declares it only for hooks whose settings ask for host mode.
fn needs_process(spec: &HookSpec, plugin: &Plugin) -> Option<String> {
    match &spec.plugin {
        p if p.builtin_name() == Some(BASH_ADAPTER) => (spec.settings.get("mode").and_then(Value::as_str) == Some("host"))
            .then(|| "its settings ask for mode = \"host\", which runs a real process".to_string()),
        _ => plugin.imports_process.then(|| format!("it imports {}", wit::PROCESS_IMPORT)),
    }
}

/// What one hook did during a dispatch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookTrace {
    pub id: String,
    /// The verdict this hook contributed (after `on_error`, for a failed hook).
    pub decision: VerdictKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// True when the verdict was ignored because the event is advisory.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ignored: bool,
    pub duration_us: u64,
    pub fuel: u64,
    pub error: Option<String>,
}

/// The result of a dispatch: the final verdict, effects, the rewritten payload, and a trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    pub decision: VerdictKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_message: Option<String>,
    /// Effects that do not rewrite the payload (`add_context`, `notify_user`, `annotate`).
    pub effects: Vec<Effect>,
    /// The payload after every rewrite (`arguments`, `message`, `result`, `summary`); absent
    /// when nothing was rewritten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch: Option<Map<String, Value>>,
    pub hooks: Vec<HookTrace>,
}

impl Host {
    /// Load every hook of a config: read, check, compile (or load from cache) and pre-link each
    /// plugin, then call its `validate-settings`. Any failure fails the whole load.
    pub async fn load(mut config: Config) -> Result<Host, LoadError> {
        // Bundles are fetched and verified (digests, then the trust policy) before anything
        // is compiled.
        if !config.bundles.is_empty() {
            let mode = config.lock_mode;
            crate::bundle::resolve::resolve(&mut config, mode).await?;
        }
        let engine = engine::engine().map_err(LoadError::Engine)?;
        let linker = crate::plugin::linker(engine).map_err(|e| LoadError::Engine(format!("cannot set up the linker: {e:#}")))?;
        let cache = engine::cache_dir(config.cache_dir.as_deref());
        let mut plugins: HashMap<PluginRef, Arc<Plugin>> = HashMap::new();
        let mut hooks = Vec::with_capacity(config.hooks.len());
        for spec in std::mem::take(&mut config.hooks) {
            let plugin = match plugins.get(&spec.plugin) {
                Some(p) => p.clone(),
                None => {
                    let (bytes, digest): (std::borrow::Cow<[u8]>, Option<&str>) = match &spec.plugin {
                        PluginRef::Builtin(name) => {
                            let (bytes, digest) = crate::builtin::get(name).expect("validated at parse");
                            (bytes.into(), Some(digest))
                        }
                        PluginRef::Bundle { file, .. } if file.starts_with("builtin:") => {
                            let (bytes, digest) = crate::builtin::get(&file["builtin:".len()..]).expect("validated at resolve");
                            (bytes.into(), Some(digest))
                        }
                        PluginRef::Bundle { .. } => {
                            let (bytes, digest) = config.bundle_plugins.get(&spec.plugin).expect("resolved with its bundle");
                            (std::borrow::Cow::Borrowed(&bytes[..]), Some(digest.as_str()))
                        }
                        PluginRef::Path(path) => match std::fs::read(path) {
                            Ok(b) => (b.into(), None),
                            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                                return Err(LoadError::PluginMissing { hook: spec.id, path: path.clone() })
                            }
                            Err(e) => return Err(LoadError::PluginUnreadable { hook: spec.id, path: path.clone(), reason: e.to_string() }),
                        },
                    };
                    let name = spec.plugin.to_string();
                    let p = Arc::new(Plugin::load(engine, &linker, &spec.id, &name, &bytes, digest, cache.as_deref())?);
                    plugins.insert(spec.plugin.clone(), p.clone());
                    p
                }
            };
            let granted = config.holds(&spec.plugin, "process:exec");
            if let Some(why) = needs_process(&spec, &plugin) {
                if !granted {
                    let why = match &spec.plugin {
                        PluginRef::Bundle { file, .. } if !file.starts_with("builtin:") => format!("{why}; a bundle's plugin holds it only when the bundle's manifest declares it (plugins[].capabilities) and the host grants it"),
                        _ => why,
                    };
                    return Err(LoadError::CapabilityNotGranted { hook: spec.id, plugin: plugin.name.clone(), capability: "process:exec", why });
                }
            }
            // Only a plugin that imports `process` can call it at all.
            let process_granted = granted && plugin.imports_process;
            let settings_json = spec.settings.to_string();
            match plugin.validate_settings(&spec.id, &settings_json, &spec.limits).await {
                Ok(Ok(())) => {}
                Ok(Err(message)) => return Err(LoadError::SettingsRejected { hook: spec.id, plugin: plugin.name.clone(), message }),
                Err(error) => return Err(LoadError::SettingsCheckFailed { hook: spec.id, plugin: plugin.name.clone(), error }),
            }
            hooks.push(LoadedHook { spec, plugin, settings_json, process_granted });
        }
        let audit = match &config.audit_log {
            Some(path) => Some(AuditLog::open(path).map_err(|e| LoadError::AuditLog { path: path.clone(), reason: e.to_string() })?),
            None => None,
        };
        Ok(Host { hooks, audit, stop_loop_cap: config.stop_loop_cap, stop_blocks: Default::default() })
    }

    /// Write audit records to this file (overrides the config's `audit_log`).
    pub fn set_audit_log(&mut self, log: AuditLog) {
        self.audit = Some(log);
    }

    /// The loaded hooks' ids, in chain order.
    pub fn hook_ids(&self) -> impl Iterator<Item = &str> {
        self.hooks.iter().map(|h| h.spec.id.as_str())
    }

    /// Run the chain for one event.
    ///
    /// Order is config order. Rewrites compose (hook n+1 sees hook n's rewrite). On an event
    /// that can block, the first `block`/`halt` ends the chain and earlier rewrites survive; on
    /// an advisory event a block is logged and ignored. An executor failure is handled by the
    /// hook's `on_error`.
    pub async fn dispatch(&self, event: &HookEvent) -> Outcome {
        // Copied only when a hook rewrites something.
        let mut ev = std::borrow::Cow::Borrowed(event);
        let mut outcome = Outcome { decision: VerdictKind::Pass, reason: None, user_message: None, effects: Vec::new(), patch: None, hooks: Vec::new() };
        let mut patch = Map::new();
        let name = ev.name.clone();
        let can_block = name.can_block();
        let is_stop = matches!(name, EventName::Stop | EventName::SubagentStop);
        let loop_count = if is_stop { self.stop_count(&ev.session_id) } else { 0 };
        if name == EventName::UserPromptSubmit {
            self.set_stop_count(&ev.session_id, 0);
        }
        for hook in self.hooks.iter().filter(|h| h.spec.event == name) {
            if let Some(m) = &hook.spec.matcher {
                if !m.matches_event(&ev) {
                    continue;
                }
            }
            tracing::debug!(name: "hook.invoked", hook_id = %hook.spec.id, event = %ev.name, "hook.invoked");
            let (wit_event, ctx) = wit::to_wit(&ev, &hook.spec.id, &hook.settings_json, loop_count);
            let (answer, usage) = hook.plugin.handle(&hook.spec.id, wit_event, ctx, &hook.spec.limits, hook.process_granted).await;
            let result = match answer {
                Ok(Ok(d)) => wit::from_wit(d, &ev.name).map_err(HookError::InvalidDecision),
                Ok(Err(message)) => Err(HookError::Guest(message)),
                Err(e) => Err(e),
            };
            let (decision, error) = match result {
                Ok(d) => (d, None),
                Err(e) => (on_error(&hook.spec, &e), Some(format!("{} {e}", hook.plugin.name))),
            };
            let ignored = !can_block && decision.verdict.kind != VerdictKind::Pass;
            self.record(&ev, hook, &decision, ignored, error.as_deref(), usage);
            for effect in &decision.effects {
                apply(effect, &mut ev, &mut patch, &mut outcome.effects);
            }
            let verdict = decision.verdict;
            outcome.hooks.push(HookTrace {
                id: hook.spec.id.clone(),
                decision: verdict.kind.clone(),
                reason: verdict.reason.clone(),
                ignored,
                duration_us: usage.duration.as_micros() as u64,
                fuel: usage.fuel,
                error,
            });
            if ignored {
                if verdict.kind == VerdictKind::Block {
                    tracing::info!(hook_id = %hook.spec.id, event = %ev.name, "block ignored on an advisory event");
                }
                continue;
            }
            if verdict.kind > outcome.decision || (verdict.kind == outcome.decision && outcome.reason.is_none()) {
                outcome.decision = verdict.kind.clone();
                outcome.reason = verdict.reason.clone();
                outcome.user_message = verdict.user_message.clone();
            }
            if verdict.stops_chain() {
                tracing::info!(name: "hook.blocked", hook_id = %hook.spec.id, event = %ev.name, reason = verdict.reason.as_deref().unwrap_or(""), "hook.blocked");
                break;
            }
        }
        if !patch.is_empty() {
            outcome.patch = Some(patch);
        }
        if is_stop {
            self.cap_stop_loop(&ev.session_id, loop_count, &mut outcome);
        }
        outcome
    }

    /// A session's consecutive stop-block count.
    fn stop_count(&self, session: &str) -> u32 {
        self.stop_blocks.lock().unwrap_or_else(|p| p.into_inner()).get(session).copied().unwrap_or(0)
    }

    /// Set a session's consecutive stop-block count (0 forgets the session).
    fn set_stop_count(&self, session: &str, n: u32) {
        let mut counts = self.stop_blocks.lock().unwrap_or_else(|p| p.into_inner());
        if n == 0 {
            counts.remove(session);
        } else {
            counts.insert(session.to_string(), n);
        }
    }

    /// Stop hooks that keep blocking would keep the agent working forever: after
    /// `stop_loop_cap` consecutive blocks in a session, the next block is overridden.
    fn cap_stop_loop(&self, session: &str, loop_count: u32, outcome: &mut Outcome) {
        if outcome.decision != VerdictKind::Block {
            self.set_stop_count(session, 0);
            return;
        }
        if self.stop_loop_cap > 0 && loop_count >= self.stop_loop_cap {
            tracing::warn!(session, cap = self.stop_loop_cap, "stop hooks blocked too many times in a row; letting the agent stop");
            outcome.decision = VerdictKind::Pass;
            outcome.reason = Some(format!("stop hooks blocked {loop_count} times in a row; the stop_loop_cap of {} lets the agent stop", self.stop_loop_cap));
            outcome.user_message = None;
            self.set_stop_count(session, 0);
        } else {
            self.set_stop_count(session, loop_count + 1);
        }
    }

    fn record(&self, ev: &HookEvent, hook: &LoadedHook, d: &Decision, ignored: bool, error: Option<&str>, usage: Usage) {
        tracing::debug!(
            name: "hook.completed",
            hook_id = %hook.spec.id,
            event = %ev.name,
            decision = d.verdict.kind.as_str(),
            duration_us = usage.duration.as_micros() as u64,
            fuel = usage.fuel,
            "hook.completed"
        );
        let Some(audit) = &self.audit else { return };
        // A block's record is on disk before the block is returned.
        let durable = !ignored && d.verdict.stops_chain();
        audit.append(&AuditRecord {
            ts: now_rfc3339(),
            hook_id: hook.spec.id.clone(),
            event: ev.name.as_str().to_string(),
            session_id: ev.session_id.clone(),
            turn_id: ev.turn_id.clone(),
            tool_name: ev.tool_name().map(str::to_string),
            plugin: hook.plugin.name.clone(),
            plugin_sha256: hook.plugin.digest.clone(),
            matched: true,
            decision: d.verdict.kind.as_str().to_string(),
            reason: d.verdict.reason.clone(),
            ignored,
            effects: d.effects.iter().map(Effect::name).collect(),
            duration_us: usage.duration.as_micros() as u64,
            fuel: usage.fuel,
            peak_memory: usage.peak_memory,
            error: error.map(str::to_string),
            on_error: error.map(|_| hook.spec.on_error.as_str()),
        }, durable);
    }
}

/// The decision a failed hook contributes under its `on_error` policy.
fn on_error(spec: &HookSpec, error: &HookError) -> Decision {
    match spec.on_error {
        OnError::Block => {
            tracing::warn!(hook_id = %spec.id, "hook failed, blocking (on_error = block): {error}");
            Decision { verdict: Verdict::block(format!("hook failed: {error}")), effects: Vec::new() }
        }
        OnError::Allow => {
            tracing::info!(hook_id = %spec.id, "hook failed, continuing (on_error = allow): {error}");
            Decision::pass()
        }
        OnError::Warn => {
            tracing::warn!(name: "hook.warning", hook_id = %spec.id, error = %error, "hook.warning");
            Decision::pass()
        }
    }
}

/// Apply one effect: rewrites change the payload the next hook sees and go into `patch`;
/// the others are collected for the caller.
fn apply(effect: &Effect, ev: &mut std::borrow::Cow<HookEvent>, patch: &mut Map<String, Value>, out: &mut Vec<Effect>) {
    let (key, value) = match effect {
        Effect::RewriteInput { arguments } => ("arguments", arguments.clone()),
        Effect::RewritePrompt { message } => ("message", Value::String(message.clone())),
        Effect::RewriteOutput { result } => ("result", result.clone()),
        Effect::ReplaceSummary { summary } => ("summary", Value::String(summary.clone())),
        other => {
            out.push(other.clone());
            return;
        }
    };
    ev.to_mut().data.insert(key.to_string(), value.clone());
    patch.insert(key.to_string(), value);
}

impl Outcome {
    /// True when the final verdict is a block.
    pub fn is_block(&self) -> bool {
        self.decision == VerdictKind::Block
    }
}

// A host is shared across tasks and threads.
const _: fn() = || {
    fn check<T: Send + Sync>() {}
    check::<Host>();
};
