//! Dispatch: events through a loaded [`Host`]'s hook chain with the rules of docs/CONFIG.md, "The chain":
//! matchers, effects, verdict precedence, re-checks after rewrites, stop loops, audit.

use crate::audit::AuditRecord;
use crate::error::HookError;
use crate::host::{Host, LoadedHook};
use crate::plugin::Usage;
use crate::wit;
use hookhost_types::time::now_rfc3339;
use hookhost_types::spec::{AuditFailure, HookSpec, Mode, OnError};
use hookhost_types::{Decision, Effect, EventName, HookEvent, Verdict, VerdictKind};
use serde_json::{Map, Value};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

mod outcome;
mod queue;

pub use outcome::{HookTrace, Outcome};
use queue::{Answer, Invocation, Job, Queue, Spawned};

/// One dispatch's state, handed from hook to hook: the payload as rewritten so far (copied
/// only when a hook rewrites something), the runtime's patch, the outcome being built, the first
/// audit failure, and what the event is.
struct Run<'e> {
    ev: std::borrow::Cow<'e, HookEvent>,
    patch: Map<String, Value>,
    outcome: Outcome,
    audit_error: Option<String>,
    /// Consecutive stop blocks so far in the session (stop events; else 0).
    loop_count: u32,
    /// Whether a verdict can end the chain (else it is recorded and ignored).
    can_block: bool,
}

impl<'e> Run<'e> {
    fn new(event: &'e HookEvent, loop_count: u32, can_block: bool) -> Run<'e> {
        let outcome = Outcome { decision: VerdictKind::Pass, reason: None, user_message: None, effects: Vec::new(), patch: None, hooks: Vec::new() };
        Run { ev: std::borrow::Cow::Borrowed(event), patch: Map::new(), outcome, audit_error: None, loop_count, can_block }
    }
}

/// How one answer is recorded in the audit log.
struct Recorded<'a> {
    /// Its verdict was ignored (an event that cannot block).
    ignored: bool,
    /// The executor's failure, if it failed.
    error: Option<&'a str>,
    usage: Usage,
    /// A re-check after a later hook's rewrite.
    recheck: bool,
    /// Keep the event as received in the record.
    keep_event: bool,
}

/// What one invocation did to the chain.
struct Step {
    /// It changed the payload.
    rewrote: bool,
    /// Its verdict ends the chain.
    stops: bool,
}

impl Host {
    /// Run the chain for one event.
    ///
    /// Order is config order. Rewrites compose (hook n+1 sees hook n's rewrite). On an event
    /// that can block, the first `block`/`halt` ends the chain and earlier rewrites survive; on
    /// an advisory event a block is logged and ignored. An executor failure is handled by the
    /// hook's `on_error`.
    ///
    /// On an event that can block, the payload a runtime receives in `patch` has been seen by
    /// every hook of the chain: when a hook rewrites it, the hooks that ran before that hook
    /// run again on the rewritten payload (a re-check), so a rewrite can never launder an
    /// action an earlier guard would block. Re-checks that keep rewriting stop after
    /// [`HostLimits::max_recheck_rounds`](crate::HostLimits) rounds with a block.
    pub async fn dispatch(&self, event: &HookEvent) -> Outcome {
        let name = event.name.clone();
        let can_block = name.can_block();
        let is_stop = matches!(name, EventName::Stop | EventName::SubagentStop);
        let loop_count = if is_stop { self.stop_count(event) } else { 0 };
        // A prompt starts the stop count again (read only when a hook runs on stop events).
        if name == EventName::UserPromptSubmit && self.stop_hooks && self.stop_blocks.get(&self.kv, &event.session_id) > 0 {
            self.set_stop_count(&event.session_id, 0);
        }
        let mut run = Run::new(event, loop_count, can_block);
        // Background hooks run after the decision (`dispatch_background`).
        let chain: Vec<&Arc<LoadedHook>> = self.hooks.iter().filter(|h| h.spec.event == name && !h.spec.background).collect();
        // Hooks (by chain position) that ran on a payload that was rewritten after them.
        let mut stale: Vec<usize> = Vec::new();
        let mut stopped = false;
        let runners = self.runners(&name, chain.len());
        if runners > 1 {
            // Nothing to re-check: no hook of this event can rewrite the payload.
            self.run_concurrently(&chain, runners, &mut run).await;
        } else {
            for (i, hook) in chain.iter().enumerate() {
                let Some(step) = self.step(hook, &mut run, false).await else { continue };
                if step.rewrote && can_block {
                    // Every earlier hook saw an older payload (a matcher that missed may hit now).
                    stale = (0..i).collect();
                }
                if step.stops {
                    stopped = true;
                    break;
                }
            }
        }
        // Re-check: the hooks that saw an older payload run again on the final one.
        let mut round = 0;
        while !stopped && !stale.is_empty() {
            round += 1;
            let max_rounds = self.limits.max_recheck_rounds;
            if round > max_rounds {
                run.outcome.decision = VerdictKind::Block;
                run.outcome.reason = Some(format!("hooks kept rewriting the payload after {max_rounds} re-check rounds; blocking rather than passing a payload no guard has seen"));
                run.outcome.user_message = None;
                break;
            }
            let mut next = Vec::new();
            for &j in &stale {
                let Some(step) = self.step(chain[j], &mut run, true).await else { continue };
                if step.stops {
                    stopped = true;
                    break;
                }
                if step.rewrote {
                    // A re-checked hook rewrote again: every other hook must see the result.
                    next = (0..chain.len()).filter(|k| *k != j).collect();
                    break;
                }
            }
            stale = next;
        }
        let Run { ev, patch, mut outcome, audit_error, .. } = run;
        if !patch.is_empty() {
            outcome.patch = Some(patch);
        }
        if is_stop {
            self.cap_stop_loop(&ev, loop_count, &mut outcome);
        }
        if let Some(error) = audit_error {
            self.audit_failed(&error, can_block, &mut outcome);
        }
        // The session is over: its state goes — after its background hooks, when it has any.
        if name == EventName::SessionEnd && !self.has_background(&name) {
            self.end_session_state(&ev);
        }
        outcome
    }

    /// Drop every hook's state of the event's session (its `session_end`). A failure is
    /// logged: the rows expire anyway.
    fn end_session_state(&self, ev: &HookEvent) {
        let scope = crate::kv::Scope::of("", &ev.session_id, ev.cwd.as_deref());
        match self.kv.end_session(&scope.user, &scope.project, &scope.session) {
            Ok(0) => {}
            Ok(n) => tracing::debug!(session = %ev.session_id, "session ended: {n} state value(s) dropped"),
            Err(e) => tracing::warn!(session = %ev.session_id, "session ended, but its hooks' state stays until it expires: {e}"),
        }
    }

    /// How many of this event's hooks run at the same time: more than one only when they
    /// cannot affect one another (the event cannot block, so no verdict ends the chain, and it
    /// honours no rewrite, so every hook sees the same payload), there are at least two, and
    /// the runtime has more than one worker thread to run them on.
    fn runners(&self, name: &EventName, hooks: usize) -> usize {
        if !self.limits.concurrent_advisory || hooks < 2 || name.can_block() || name.honours_a_rewrite() {
            return 1;
        }
        match tokio::runtime::Handle::try_current() {
            Ok(rt) if rt.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => rt.metrics().num_workers().min(hooks),
            _ => 1,
        }
    }

    /// The chain of an advisory event without rewrites, on `runners` workers
    /// ([`Host::runners`]): every hook's invocation is prepared in chain order (matchers,
    /// `once`); `runners` tasks each take the next invocation not yet taken until none is
    /// left; then the answers are settled in chain order, so the outcome, its effects, the
    /// trace and the audit log read exactly as a sequential run's would.
    async fn run_concurrently(&self, chain: &[&Arc<LoadedHook>], runners: usize, run: &mut Run<'_>) {
        let jobs: Vec<Job> = chain.iter().filter_map(|hook| self.prepare(hook, &run.ev, 0, false).map(|invocation| Job::new(hook, invocation))).collect();
        let queue = Arc::new(Queue { next: AtomicUsize::new(0), jobs });
        // Every runner is a task of its own and this one waits: a task spawned from a worker
        // goes to that worker's LIFO slot, which other workers do not steal from, so a runner
        // left there would start only when this task yields — after doing all the work itself.
        let runners: Vec<Spawned> = (0..runners.min(queue.jobs.len()))
            .map(|_| {
                let queue = queue.clone();
                Spawned(tokio::spawn(async move { queue.work().await }))
            })
            .collect();
        for mut runner in runners {
            // A runner that panicked leaves its invocation unanswered (settled as an error below).
            let _ = (&mut runner.0).await;
        }
        for job in &queue.jobs {
            let answered = job.answer.lock().unwrap_or_else(|e| e.into_inner()).take();
            let answer = answered.unwrap_or_else(|| (Err(HookError::Trap("its task did not finish".into())), Usage::default()));
            self.settle(&job.hook, run, answer, false);
        }
    }

    /// Whether any hook runs in the background on this event (a caller that would hand
    /// [`Host::dispatch_background`] to another task can skip that when none does).
    pub fn has_background(&self, event: &EventName) -> bool {
        self.hooks.iter().any(|h| h.spec.event == *event && h.spec.background)
    }

    /// Run the event's background hooks (a peer's `async: true`): call this after acting on
    /// [`Host::dispatch`]'s outcome, so they never delay the decision. Their verdicts and
    /// effects change nothing; each is traced, logged and audited like any invocation.
    pub async fn dispatch_background(&self, event: &HookEvent) -> Vec<HookTrace> {
        // Their verdicts are ignored (as on an event that cannot block), their effects kept here.
        let mut run = Run::new(event, 0, false);
        for hook in self.hooks.iter().filter(|h| h.spec.event == event.name && h.spec.background) {
            self.step(hook, &mut run, false).await;
        }
        let Run { outcome: scratch, audit_error, .. } = run;
        if let Some(error) = audit_error {
            tracing::warn!(name: "audit.failed", "{error} (a background hook's record)");
        }
        for trace in &scratch.hooks {
            tracing::info!(name: "hook.background", hook_id = %trace.id, decision = trace.decision.as_str(), error = trace.error.as_deref().unwrap_or(""), "background hook finished");
        }
        if event.name == EventName::SessionEnd && self.has_background(&event.name) {
            self.end_session_state(event);
        }
        scratch.hooks
    }

    /// An audit record could not be written. Under `audit_failure = "block"` (the default) an
    /// event that can block is blocked, naming the failure; otherwise the failure is logged.
    fn audit_failed(&self, error: &str, can_block: bool, outcome: &mut Outcome) {
        if self.audit_failure == AuditFailure::Block && can_block && outcome.decision < VerdictKind::Block {
            outcome.decision = VerdictKind::Block;
            outcome.reason = Some(format!("{error}; blocking because audit_failure = \"block\" (set audit_failure = \"warn\" to keep the hooks' decision)"));
            outcome.user_message = None;
        } else {
            tracing::warn!(name: "audit.failed", "{error}; the decision stands (audit_failure = \"{}\" or the event cannot block)", if self.audit_failure == AuditFailure::Block { "block" } else { "warn" });
        }
    }

    /// Invoke one hook (unless its matcher misses) on the current payload, apply its effects
    /// and merge its verdict. In a re-check only rewrites and the verdict count; its other
    /// effects were collected on the first pass.
    async fn step(&self, hook: &LoadedHook, run: &mut Run<'_>, recheck: bool) -> Option<Step> {
        let invocation = self.prepare(hook, &run.ev, run.loop_count, recheck)?;
        let answer = invocation.run(hook).await;
        Some(self.settle(hook, run, answer, recheck))
    }

    /// The invocation of one hook on the current payload, or `None` when its matcher misses
    /// (or it is a `once` hook that already ran in this session).
    fn prepare(&self, hook: &LoadedHook, ev: &HookEvent, loop_count: u32, recheck: bool) -> Option<Invocation> {
        if let Some(m) = &hook.spec.matcher {
            if !m.matches_event(ev) {
                return None;
            }
        }
        // A `once` hook runs on the first matching event of a session only.
        if hook.spec.once && !recheck {
            let key = format!("{}\0{}", ev.session_id, hook.spec.id);
            if self.once_runs.get(&self.kv, &key) > 0 {
                return None;
            }
            self.once_runs.set(&self.kv, &key, 1);
        }
        tracing::debug!(name: "hook.invoked", hook_id = %hook.spec.id, event = %ev.name, recheck, "hook.invoked");
        let call = wit::Call::new(ev, &hook.spec.id, &hook.settings_json, loop_count);
        let payload = call.payload_len();
        if payload > self.limits.max_event_bytes {
            return Some(Invocation::Refused(HookError::EventTooLarge { size: payload, limit: self.limits.max_event_bytes }));
        }
        // Fuel bounds runaway code, not honest work on a large input: the budget grows with
        // the payload the hook must read (and may rewrite).
        let mut limits = hook.spec.limits;
        limits.fuel = limits.fuel.saturating_add(self.limits.fuel_per_payload_byte.saturating_mul(payload as u64));
        // State belongs to the plugin: the same plugin wired to several events (each its own
        // hook id) shares one memory; different plugins never see each other's.
        let kv = hook.plugin.uses_state().then(|| crate::kv::ScopedState::new(self.kv.clone(), &hook.plugin.name, &ev.session_id, ev.cwd.as_deref()));
        Some(Invocation::Call(call, limits, kv))
    }

    /// Apply one hook's answer: `on_error` for a failure, the audit record, its effects, its
    /// verdict merged into the outcome, and its trace.
    fn settle(&self, hook: &LoadedHook, run: &mut Run<'_>, (answer, usage): Answer, recheck: bool) -> Step {
        let Run { ev, patch, outcome, audit_error, can_block, .. } = run;
        let (decision, error) = match answer {
            Ok(d) => (d, None),
            Err(e) => (on_error(&hook.spec, &e, ev), Some(format!("{} {e}", hook.plugin.name))),
        };
        let ignored = !*can_block && decision.verdict.kind != VerdictKind::Pass;
        // The first record of a dispatch keeps the event as received, when asked to (no hook
        // has rewritten it yet), its secrets masked.
        let keep_event = self.audit_events && outcome.hooks.is_empty() && !hook.spec.background && !recheck;
        let how = Recorded { ignored, error: error.as_deref(), usage, recheck, keep_event };
        if let Err(e) = self.record(ev, hook, &decision, how) {
            audit_error.get_or_insert(e);
        }
        // Observe mode: recorded (above, and in the trace), never applied — not its verdict,
        // not its effects, not what its on_error made of a failure.
        let observed = hook.spec.mode == Mode::Observe;
        let mut rewrote = false;
        if !observed {
            for effect in &decision.effects {
                if effect.is_rewrite() || !recheck {
                    rewrote |= apply(effect, ev, patch, &mut outcome.effects);
                }
            }
        }
        let verdict = decision.verdict;
        outcome.hooks.push(HookTrace {
            id: hook.spec.id.clone(),
            decision: verdict.kind,
            reason: verdict.reason.clone(),
            ignored,
            recheck,
            observed,
            effects: if observed { decision.effects.iter().map(Effect::name).collect() } else { Vec::new() },
            duration_us: usage.duration.as_micros() as u64,
            fuel: usage.fuel,
            error,
        });
        if observed {
            tracing::info!(name: "hook.observed", hook_id = %hook.spec.id, event = %ev.name, decision = verdict.kind.as_str(), "observe mode: not applied");
            return Step { rewrote: false, stops: false };
        }
        if ignored {
            if verdict.kind == VerdictKind::Block {
                tracing::info!(hook_id = %hook.spec.id, event = %ev.name, "block ignored on an advisory event");
            }
            return Step { rewrote, stops: false };
        }
        if verdict.kind > outcome.decision || (verdict.kind == outcome.decision && outcome.reason.is_none()) {
            outcome.decision = verdict.kind;
            outcome.reason = verdict.reason.clone();
            outcome.user_message = verdict.user_message.clone();
        }
        if verdict.stops_chain() {
            tracing::info!(name: "hook.blocked", hook_id = %hook.spec.id, event = %ev.name, recheck, reason = %hookhost_types::text::printable(verdict.reason.as_deref().unwrap_or("")), "hook.blocked");
        }
        Step { rewrote, stops: verdict.stops_chain() }
    }

    /// A session's consecutive stop-block count: the larger of what was recorded (across
    /// processes) and what the runtime says — the canonical `loop_count`, or Claude Code's
    /// `stop_hook_active` (at least one block so far).
    fn stop_count(&self, ev: &HookEvent) -> u32 {
        let signalled = match ev.data.get("loop_count").and_then(Value::as_u64) {
            Some(n) => u32::try_from(n).unwrap_or(u32::MAX),
            None => u32::from(ev.data.get("stop_hook_active").and_then(Value::as_bool) == Some(true)),
        };
        self.stop_blocks.get(&self.kv, &ev.session_id).max(signalled)
    }

    /// Set a session's consecutive stop-block count (0 forgets the session).
    fn set_stop_count(&self, session: &str, n: u32) {
        self.stop_blocks.set(&self.kv, session, n);
    }

    /// Stop hooks that keep blocking would keep the agent working forever: after
    /// `stop_loop_cap` consecutive blocks in a session, the next block is overridden.
    fn cap_stop_loop(&self, ev: &HookEvent, loop_count: u32, outcome: &mut Outcome) {
        let session = ev.session_id.as_str();
        if outcome.decision != VerdictKind::Block {
            if loop_count > 0 {
                self.set_stop_count(session, 0);
            }
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

    fn record(&self, ev: &HookEvent, hook: &LoadedHook, d: &Decision, how: Recorded<'_>) -> Result<(), String> {
        let Recorded { ignored, error, usage, recheck, keep_event } = how;
        tracing::debug!(
            name: "hook.completed",
            hook_id = %hook.spec.id,
            event = %ev.name,
            decision = d.verdict.kind.as_str(),
            duration_us = usage.duration.as_micros() as u64,
            fuel = usage.fuel,
            "hook.completed"
        );
        let Some(audit) = &self.audit else { return Ok(()) };
        // A block's record is on disk before the block is returned.
        let durable = !ignored && d.verdict.stops_chain();
        audit.append(&AuditRecord {
            ts: now_rfc3339(),
            hook_id: hook.spec.id.to_string(),
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
            recheck,
            observed: hook.spec.mode == Mode::Observe,
            replayed: self.replayed,
            // Kept as the built-in redactor would pass it on: the log holds no secret the
            // hooks keep from the model.
            event_data: keep_event.then(|| {
                let mut v = ev.to_value();
                crate::redact::redact_json(&mut v);
                v
            }),
        }, durable && hook.spec.mode == Mode::Enforce)
    }
}

/// The decision a failed hook contributes under its `on_error` policy. `block` on an event
/// that cannot block but carries tool output (a redactor of `post_tool_use`) withholds that
/// output: it is replaced by a notice, so a failed redaction never passes the secret on.
fn on_error(spec: &HookSpec, error: &HookError, ev: &HookEvent) -> Decision {
    match spec.on_error {
        OnError::Block if !ev.name.can_block() && ev.name.honours(hookhost_types::EffectKind::RewriteOutput) => {
            tracing::warn!(hook_id = %spec.id, "hook failed, withholding the tool output (on_error = block): {}", hookhost_types::text::printable(&error.to_string()));
            let notice = format!("[hookhost: tool output withheld: hook {} failed ({error}) and its on_error is \"block\"]", spec.id);
            Decision { verdict: Verdict::pass(), effects: vec![Effect::RewriteOutput { result: Value::String(notice) }] }
        }
        OnError::Block => {
            tracing::warn!(hook_id = %spec.id, "hook failed, blocking (on_error = block): {}", hookhost_types::text::printable(&error.to_string()));
            Decision { verdict: Verdict::block(format!("hook failed: {error}")), effects: Vec::new() }
        }
        OnError::Allow => {
            tracing::info!(hook_id = %spec.id, "hook failed, continuing (on_error = allow): {}", hookhost_types::text::printable(&error.to_string()));
            Decision::pass()
        }
        OnError::Warn => {
            tracing::warn!(name: "hook.warning", hook_id = %spec.id, error = %hookhost_types::text::printable(&error.to_string()), "hook.warning");
            Decision::pass()
        }
    }
}

/// Apply one effect: rewrites change the payload the next hook sees and go into `patch`;
/// the others are collected for the caller. Returns whether the payload changed.
fn apply(effect: &Effect, ev: &mut std::borrow::Cow<HookEvent>, patch: &mut Map<String, Value>, out: &mut Vec<Effect>) -> bool {
    let (key, value) = match effect {
        Effect::RewriteInput { arguments } => ("arguments", arguments.clone()),
        Effect::RewritePrompt { message } => ("message", Value::String(message.clone())),
        Effect::RewriteOutput { result } => ("result", result.clone()),
        Effect::ReplaceSummary { summary } => ("summary", Value::String(summary.clone())),
        other => {
            out.push(other.clone());
            return false;
        }
    };
    if ev.data.get(key) == Some(&value) {
        return false;
    }
    ev.to_mut().data.insert(key.to_string(), value.clone());
    patch.insert(key.to_string(), value);
    true
}

// A host is shared across tasks and threads.
const _: fn() = || {
    fn check<T: Send + Sync>() {}
    check::<Host>();
};
