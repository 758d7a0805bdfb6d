//! Per-session counts the host keeps itself, across processes: consecutive stop-hook blocks
//! (`stop_loop_cap`) and the `once` hooks that already ran.
//!
//! Command-hook runtimes start one `hookhost run` per event, so a count held in memory would
//! start at zero every time and a stop hook that always blocks would keep the agent working
//! forever. The counts therefore live in the hooks' state store (`kv.rs`), under an owner no
//! plugin can be named (`hookhost\0stop-loops`, `hookhost\0once-hooks`), one scope per session,
//! and expire [`MAX_AGE`] after their last write. Where a runtime sends its own signal — the
//! canonical `loop_count`, Claude Code's `stop_hook_active` — the larger of the two counts wins.
//! A store that cannot be used (no state directory, a damaged file) leaves the counts in this
//! process's memory, with a warning: the cap then holds within a process only.

use crate::kv::{Scope, StateStore};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// Counts untouched for this long are forgotten.
pub const MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// The key of a count in its scope.
const KEY: &str = "n";

pub(crate) struct StopLoops {
    /// Whose rows in the store.
    owner: &'static str,
    /// What is counted, for the log.
    what: &'static str,
    /// This process's counts: what the store says is taken when larger.
    memory: Mutex<HashMap<String, u32>>,
}

impl StopLoops {
    /// Consecutive stop blocks per session.
    pub fn stop_blocks() -> Self {
        StopLoops { owner: "hookhost\0stop-loops", what: "stop-loop count", memory: Mutex::default() }
    }

    /// The `once` hooks that ran, per session and hook.
    pub fn once_runs() -> Self {
        StopLoops { owner: "hookhost\0once-hooks", what: "once hooks", memory: Mutex::default() }
    }

    fn scope(&self, session: &str) -> Scope {
        Scope::of(self.owner, session, None)
    }

    /// The session's count so far.
    pub fn get(&self, store: &StateStore, session: &str) -> u32 {
        let in_memory = self.memory.lock().unwrap_or_else(|p| p.into_inner()).get(session).copied().unwrap_or(0);
        // A store that was never made holds no count (and is not made to say so).
        if store.absent() {
            return in_memory;
        }
        let stored = match store.get(&self.scope(session), KEY, None) {
            Ok(value) => value.and_then(|v| v.parse::<u32>().ok()).unwrap_or(0),
            Err(e) => {
                tracing::warn!("cannot read the session's {} across processes: {e}", self.what);
                0
            }
        };
        in_memory.max(stored)
    }

    /// Record the session's count (0 forgets the session).
    pub fn set(&self, store: &StateStore, session: &str, n: u32) {
        {
            let mut counts = self.memory.lock().unwrap_or_else(|p| p.into_inner());
            if n == 0 {
                counts.remove(session);
            } else {
                counts.insert(session.to_string(), n);
            }
        }
        let written = if n == 0 {
            if store.absent() {
                return;
            }
            store.delete(&self.scope(session), KEY, None)
        } else {
            store.set(&self.scope(session), KEY, &n.to_string(), Some(MAX_AGE), None)
        };
        if let Err(e) = written {
            tracing::warn!("cannot record the session's {} across processes: {e}", self.what);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kv::StateLimits;

    #[test]
    fn counts_survive_a_new_store_and_a_reset_deletes_them() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(crate::kv::FILE_NAME);
        let store = StateStore::at(&file, StateLimits::default());
        assert_eq!(StopLoops::stop_blocks().get(&store, "ses/1"), 0);
        assert!(!file.exists(), "reading a count does not make the store");
        StopLoops::stop_blocks().set(&store, "ses/1", 0);
        assert!(!file.exists(), "nor does forgetting one");
        StopLoops::stop_blocks().set(&store, "ses/1", 2);
        // Another process: a new store on the same file, a new counter.
        let other = StateStore::at(&file, StateLimits::default());
        let b = StopLoops::stop_blocks();
        assert_eq!(b.get(&other, "ses/1"), 2);
        assert_eq!(b.get(&other, "other"), 0);
        assert_eq!(StopLoops::once_runs().get(&other, "ses/1"), 0, "each kind is its own");
        b.set(&other, "ses/1", 0);
        assert_eq!(StopLoops::stop_blocks().get(&StateStore::at(&file, StateLimits::default()), "ses/1"), 0);
        assert_eq!(StateStore::at(&file, StateLimits::default()).verify().unwrap(), 0, "the row is gone");
    }

    #[test]
    fn counts_expire_after_a_day() {
        let store = StateStore::in_memory(StateLimits::default());
        let loops = StopLoops::stop_blocks();
        loops.set(&store, "s", 3);
        let later = StopLoops::stop_blocks();
        assert_eq!(later.get(&store, "s"), 3);
        store.advance(MAX_AGE + Duration::from_secs(1));
        assert_eq!(later.get(&store, "s"), 0);
    }

    #[test]
    fn a_store_that_cannot_be_used_keeps_the_count_in_this_process() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("file"), "x").unwrap();
        let store = StateStore::at(&dir.path().join("file").join(crate::kv::FILE_NAME), StateLimits::default());
        let loops = StopLoops::stop_blocks();
        loops.set(&store, "s", 2);
        assert_eq!(loops.get(&store, "s"), 2);
        assert_eq!(StopLoops::stop_blocks().get(&store, "s"), 0, "not across processes");
    }
}
