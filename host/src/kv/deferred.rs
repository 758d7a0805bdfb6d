//! Deferred writes ([`super::StateStore::defer_writes`], what `serve` uses): a hook's write is
//! made in the read cache and queued; a thread of the store's own commits the queue in one
//! transaction a few milliseconds later, so a decision never waits for the store's commit.

use super::lmdb::{self, Txn};
use super::{Inner, Scope};
use std::sync::{Mutex, Weak};
use std::time::{Duration, Instant};

/// How long a deferred write waits for the ones after it before its batch is committed.
pub const FLUSH_EVERY: Duration = Duration::from_millis(5);
/// A queue this long is committed at once, by the write that filled it.
pub const FLUSH_AT: usize = 256;
/// How often a store with deferred writes asks whether another process wrote.
pub const RECHECK: Duration = Duration::from_millis(10);

/// One write waiting to be committed.
pub(crate) struct Pending {
    scope: Scope,
    key: String,
    /// The new value (none: deleted).
    value: Option<String>,
    expires: i64,
    /// An `incr`'s addition and the clock of its write: committed as an addition onto what the
    /// file holds by then, unless that had expired at the write.
    delta: Option<(i64, i64)>,
}

impl Pending {
    pub(crate) fn new(scope: &Scope, key: &str, value: Option<String>, expires: i64, delta: Option<(i64, i64)>) -> Pending {
        Pending { scope: scope.clone(), key: key.to_string(), value, expires, delta }
    }
}

/// How long a batch waits for another process's transaction before it is given up (and lost).
const FLUSH_WAIT: Duration = Duration::from_secs(1);

/// Write one key in `tx`: set it to `value` (none: delete it), or, with `delta` (the addition,
/// the clock of the write), add it to what the key holds now (a value that is not an integer,
/// none, or one expired at the write counts as 0).
pub(crate) fn apply(tx: &mut Txn<'_>, scope: &Scope, key: &str, value: Option<&str>, expires: i64, delta: Option<(i64, i64)>) -> Result<(), lmdb::Error> {
    let row = super::row_key(&super::scope_key(scope), key);
    let old = super::read_row(tx, &row)?;
    let old_expires = old.as_ref().map(|(expires, _)| *expires);
    let summed;
    let value = match (delta, value) {
        (Some((delta, at)), Some(_)) => {
            let live = old.filter(|(expires, _)| *expires > at).and_then(|(_, v)| v.trim().parse::<i64>().ok());
            summed = live.unwrap_or(0).saturating_add(delta).to_string();
            Some(summed.as_str())
        }
        (_, value) => value,
    };
    super::put_row(tx, &row, old_expires, value, expires)
}

/// Commit every queued write in one transaction. A failure is logged, and the cache is
/// emptied: it no longer says what the file holds.
pub(crate) fn flush(inner: &mut Inner) {
    if inner.pending.is_empty() {
        return;
    }
    let pending = std::mem::take(&mut inner.pending);
    let Some(Ok(env)) = inner.env.as_ref() else { return };
    let result = env.write(Instant::now() + FLUSH_WAIT, |tx| {
        for p in &pending {
            apply(tx, &p.scope, &p.key, p.value.as_deref(), p.expires, p.delta)?;
        }
        Ok(tx.id())
    });
    match result.and_then(|committed| committed) {
        // The cache stays good only if no other process committed since it was checked.
        Ok(committed) if committed == inner.data_version + 1 => inner.data_version = committed,
        Ok(_) => {}
        Err(e) => {
            tracing::warn!("hooks' state: {} write(s) could not be committed and are lost: {e}", pending.len());
            inner.cache.clear();
            inner.sizes.clear();
        }
    }
}

/// The thread that commits deferred writes: parked until a write wakes it, then it waits
/// [`FLUSH_EVERY`] for more and commits them together. It ends with its store.
pub(crate) fn spawn_flusher(inner: Weak<Mutex<Inner>>, name: String) -> std::thread::Thread {
    let spawned = std::thread::Builder::new().name("hookhost-state".into()).spawn(move || loop {
        std::thread::park();
        std::thread::sleep(FLUSH_EVERY);
        let Some(inner) = inner.upgrade() else { return };
        flush(&mut inner.lock().unwrap_or_else(|p| p.into_inner()));
    });
    match spawned {
        Ok(handle) => handle.thread().clone(),
        // No thread: writes are committed as the queue fills, and when the store is dropped.
        Err(e) => {
            tracing::warn!("hooks' state ({name}): cannot start the thread that commits writes: {e}");
            std::thread::current()
        }
    }
}
