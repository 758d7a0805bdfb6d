//! Deferred writes ([`super::StateStore::defer_writes`], what `serve` uses): a hook's write is
//! made in the read cache and queued; a thread of the store's own commits the queue in one
//! transaction a few milliseconds later, so a decision never waits for SQLite's commit.

use super::{Inner, Scope};
use rusqlite::{params, Transaction, TransactionBehavior};
use std::sync::{Mutex, Weak};
use std::time::Duration;

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

/// Write one key in `tx`: set it to `value` (none: delete it), or, with `delta` (the addition,
/// the clock of the write), add it to what the key holds now (a value that is not an integer,
/// none, or one expired at the write counts as 0).
pub(crate) fn apply(tx: &Transaction<'_>, scope: &Scope, key: &str, value: Option<&str>, expires: i64, delta: Option<(i64, i64)>) -> rusqlite::Result<()> {
    let summed;
    let value = match (delta, value) {
        (Some((delta, at)), Some(_)) => {
            let now: Option<String> = tx
                .prepare_cached(super::SELECT_VALUE)
                .and_then(|mut s| rusqlite::OptionalExtension::optional(s.query_row(params![scope.user, scope.project, scope.session, scope.hook, key, at], |r| r.get(0))))?;
            summed = now.and_then(|n| n.trim().parse::<i64>().ok()).unwrap_or(0).saturating_add(delta).to_string();
            Some(summed.as_str())
        }
        (_, value) => value,
    };
    match value {
        Some(value) => tx
            .prepare_cached(super::UPSERT)
            .and_then(|mut s| s.execute(params![scope.user, scope.project, scope.session, scope.hook, key, value, expires]))
            .map(drop),
        None => tx
            .prepare_cached(super::DELETE_KEY)
            .and_then(|mut s| s.execute(params![scope.user, scope.project, scope.session, scope.hook, key]))
            .map(drop),
    }
}

/// Commit every queued write in one transaction. A failure is logged, and the cache is
/// emptied: it no longer says what the file holds.
pub(crate) fn flush(inner: &mut Inner) {
    if inner.pending.is_empty() {
        return;
    }
    let pending = std::mem::take(&mut inner.pending);
    let Some(Ok(conn)) = inner.conn.as_mut() else { return };
    let result = conn.transaction_with_behavior(TransactionBehavior::Immediate).and_then(|tx| {
        for p in &pending {
            apply(&tx, &p.scope, &p.key, p.value.as_deref(), p.expires, p.delta)?;
        }
        tx.commit()
    });
    if let Err(e) = result {
        tracing::warn!("hooks' state: {} write(s) could not be committed and are lost: {e}", pending.len());
        inner.cache.clear();
        inner.sizes.clear();
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
