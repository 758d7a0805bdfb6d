//! How a chain's invocations run: each prepared on the payload it will see ([`Invocation`]),
//! and, for a chain whose hooks cannot change what the next one sees, shared among runners
//! ([`Queue`]) that a cancelled dispatch stops ([`Spawned`]).

use crate::error::HookError;
use crate::host::LoadedHook;
use crate::plugin::Usage;
use crate::wit;
use hookhost_types::Decision;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// One hook's invocation, prepared on the payload it will see.
// Built once and moved into its run: boxing the large variant would add an allocation per hook.
#[allow(clippy::large_enum_variant)]
pub(super) enum Invocation {
    /// Run it with these (payload-adjusted) limits and, for a hook that imports `state`, its
    /// state in the event's session.
    Call(wit::Call, hookhost_types::spec::Limits, Option<crate::kv::ScopedState>),
    /// Not run: the answer is this error (its `on_error` decides).
    Refused(HookError),
}

pub(super) type Answer = (Result<Decision, HookError>, Usage);

impl Invocation {
    pub(super) async fn run(self, hook: &LoadedHook) -> Answer {
        match self {
            Invocation::Call(call, limits, kv) => hook.plugin.handle(&hook.spec.id, call, &limits, &hook.access, kv).await,
            Invocation::Refused(e) => (Err(e), Usage::default()),
        }
    }
}

/// One invocation of a concurrent chain and, once a runner has made it, its answer.
pub(super) struct Job {
    pub(super) hook: Arc<LoadedHook>,
    pub(super) invocation: Mutex<Option<Invocation>>,
    pub(super) answer: Mutex<Option<Answer>>,
}

impl Job {
    pub(super) fn new(hook: &Arc<LoadedHook>, invocation: Invocation) -> Job {
        Job { hook: hook.clone(), invocation: Mutex::new(Some(invocation)), answer: Mutex::new(None) }
    }
}

/// A concurrent chain's invocations; each runner takes the next one not yet taken.
pub(super) struct Queue {
    pub(super) next: AtomicUsize,
    pub(super) jobs: Vec<Job>,
}

impl Queue {
    pub(super) async fn work(&self) {
        while let Some(job) = self.jobs.get(self.next.fetch_add(1, Ordering::Relaxed)) {
            let Some(invocation) = job.invocation.lock().unwrap_or_else(|e| e.into_inner()).take() else { continue };
            let answer = invocation.run(&job.hook).await;
            *job.answer.lock().unwrap_or_else(|e| e.into_inner()) = Some(answer);
        }
    }
}

/// A runner task of a concurrent chain; dropping it (the dispatch was cancelled) cancels it.
pub(super) struct Spawned(pub(super) tokio::task::JoinHandle<()>);

impl Drop for Spawned {
    fn drop(&mut self) {
        self.0.abort();
    }
}
