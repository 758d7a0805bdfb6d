//! Hooks' session state (`hookhost:hooks/state@0.3.0`): a small key-value store per hook per
//! session, kept in LMDB so that it outlives the `hookhost run` process that wrote it.
//!
//! - **Where**: one store per user, `{state dir}/state.lmdb` with its lock file
//!   `state.lmdb.lock` beside it (both owner-only, like the rest of the state directory), or a
//!   throwaway one in this process's memory ([`StateStore::in_memory`]: `replay`, `diff`,
//!   `test`), with the same layout and transactions.
//! - **Scope**: every row belongs to one (user, project, session, plugin). A hook reads and
//!   writes only its plugin's rows of the session it is called for — the same plugin wired to
//!   several events (a hook id each) shares them, a different plugin never sees them; nothing in
//!   the contract names another scope. The project is the event's working directory's repository root (its nearest
//!   ancestor with `.git`, else the directory itself), so a session id two projects happen to
//!   share does not mix them. A row's key is a SHA-256 of (user, project, session), one of the
//!   plugin, then the hook's key: LMDB's keys are at most 511 bytes, a project's path is not.
//! - **Bounds** ([`StateLimits`]): keys per scope, bytes per key and value, bytes per scope. A
//!   write over a bound is an error the hook sees ([`StateError::Quota`]); nothing is written.
//! - **Expiry**: every row has one; a write without a TTL lives [`StateLimits::ttl`] from that
//!   write. Expired rows are invisible at once, and deleted by about one write in
//!   [`PURGE_EVERY`] (a `hookhost run` makes a write or two: a count would never come round),
//!   found through an index by expiry. A session's rows are deleted when its `session_end` is
//!   dispatched.
//! - **Concurrency and crashes** (`kv/lmdb.rs`): one write transaction per call, under an
//!   exclusive OS lock on the lock file (readers share it), waited for no longer than the hook's
//!   deadline; `incr` reads and writes in one transaction, so 100 concurrent increments make 100.
//!   Commits are handed to the OS without an fsync: a process killed at any point leaves every
//!   committed write readable, and its lock is released by the kernel. What is not promised is
//!   a power loss or an OS crash: that may cost the last writes or damage the file, which then
//!   reads as `unavailable` naming it and the fix.
//! - **Serve**: one environment for the life of the host, and a read cache checked against the
//!   id of the last commit (which changes when any process commits).
//!
//! The store opens on the first call a hook makes: a hook that never uses state costs nothing.

use lmdb::{Db, Env, Txn};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// About one write in this many deletes the expired rows.
pub const PURGE_EVERY: u32 = 64;

/// The store's file name in the state directory.
pub const FILE_NAME: &str = "state.lmdb";

/// The schema version this hookhost writes (the `meta` database's `schema`).
const SCHEMA_VERSION: u32 = 1;

/// How much one hook may keep in one session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateLimits {
    /// Keys per hook per session.
    pub max_keys: u32,
    /// Bytes of one key (UTF-8).
    pub max_key_bytes: u32,
    /// Bytes of one value.
    pub max_value_bytes: u32,
    /// Bytes of all keys and values of one hook in one session.
    pub max_bytes: u64,
    /// How long a value written without a TTL lives; also the longest TTL a hook may ask for.
    pub ttl: Duration,
}

impl StateLimits {
    /// The bounds a config sets (`state_ttl`, `state_max_kib`); the rest are the defaults.
    pub fn of(settings: &hookhost_config::HostSettings) -> StateLimits {
        StateLimits { ttl: settings.state_ttl, max_bytes: u64::from(settings.state_max_kib) * 1024, ..StateLimits::default() }
    }
}

impl Default for StateLimits {
    fn default() -> StateLimits {
        let defaults = hookhost_config::HostSettings::default();
        StateLimits { max_keys: 1024, max_key_bytes: 256, max_value_bytes: 64 * 1024, max_bytes: u64::from(defaults.state_max_kib) * 1024, ttl: defaults.state_ttl }
    }
}

/// Why a state call failed, as the hook sees it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateError {
    /// The write would pass a bound; nothing was written.
    #[error("{0}")]
    Quota(String),
    /// The key or value is not acceptable (empty key, a value `incr` cannot add to).
    #[error("{0}")]
    Invalid(String),
    /// The store cannot be opened, read or written (the message names the file and the fix).
    #[error("{0}")]
    Unavailable(String),
}

/// Whose rows: one hook in one session of one project of one user.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Scope {
    /// The OS user (`uid:1000`; `user:NAME` on Windows).
    pub user: String,
    /// The project root ([`project_of`]), `""` when the event has no working directory.
    pub project: String,
    /// The event's session id.
    pub session: String,
    /// The hook's plugin (`builtin:guard-destructive`, its file's path, `ns/bundle:file.wasm`).
    pub hook: String,
}

impl Scope {
    /// The scope of `hook` for an event of `session` in `cwd`, for this OS user.
    pub fn of(hook: &str, session: &str, cwd: Option<&str>) -> Scope {
        Scope { user: os_user(), project: project_of(cwd), session: session.to_string(), hook: hook.to_string() }
    }
}

/// The OS user's name (the store is per user already; the column makes a shared file safe too).
fn os_user() -> String {
    static USER: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    USER.get_or_init(|| {
        #[cfg(unix)]
        {
            // SAFETY: getuid has no preconditions and cannot fail.
            format!("uid:{}", unsafe { libc::getuid() })
        }
        #[cfg(not(unix))]
        {
            std::env::var("USERNAME").map(|u| format!("user:{u}")).unwrap_or_default()
        }
    })
    .clone()
}

/// The project a working directory belongs to: its nearest ancestor holding `.git`, else the
/// directory itself; `""` when the event has none.
pub fn project_of(cwd: Option<&str>) -> String {
    let Some(cwd) = cwd.filter(|c| !c.is_empty()) else { return String::new() };
    let start = Path::new(cwd);
    start.ancestors().find(|dir| dir.join(".git").exists()).unwrap_or(start).to_string_lossy().into_owned()
}

/// Where the store lives.
#[derive(Debug, Clone)]
enum Backing {
    File(PathBuf),
    /// A private in-memory database, gone with the host.
    Memory,
    /// No state directory is known: every call says so.
    Nowhere(String),
}

/// The state of every hook of a host (see the module docs).
pub struct StateStore {
    backing: Backing,
    limits: StateLimits,
    /// Shared with the deferred writes' flusher thread, which holds it weakly.
    inner: Arc<Mutex<Inner>>,
    /// Writes are made in memory and committed in batches ([`StateStore::defer_writes`]).
    deferred: std::sync::atomic::AtomicBool,
    /// The flusher thread, once the first deferred write started it.
    flusher: std::sync::OnceLock<std::thread::Thread>,
    /// Seconds added to the clock (tests move time forward with it).
    clock_offset: std::sync::atomic::AtomicI64,
}

#[derive(Default)]
pub(crate) struct Inner {
    /// Opened on first use; an error is kept (and reported to every call) rather than retried
    /// on each one.
    env: Option<Result<Env, StateError>>,
    /// Values read or written through this environment, valid while no other process has
    /// committed since `data_version` (the id of the last commit this process knows of).
    cache: HashMap<(Scope, String), Option<(String, i64)>>,
    data_version: usize,
    /// How long the call being made may wait for the store's lock.
    deadline: Option<Instant>,
    /// Whether a write purges expired rows, whatever the dice say (tests: always or never).
    purge: Option<bool>,
    /// Deferred writes (`serve`): made in the cache, not yet committed, oldest first.
    pending: Vec<deferred::Pending>,
    /// Deferred writes: each touched scope's keys and bytes as the cache sees them.
    sizes: HashMap<Scope, (i64, i64)>,
    /// When `data_version` was last read.
    checked: Option<Instant>,
}

impl std::fmt::Debug for StateStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StateStore").field("backing", &self.backing).field("limits", &self.limits).finish()
    }
}


impl StateStore {
    /// The user's store: `$HOOKHOST_STATE_DIR` or hookhost's state directory, `state.lmdb`.
    pub fn for_user(limits: StateLimits) -> StateStore {
        let dir = std::env::var_os("HOOKHOST_STATE_DIR").filter(|d| !d.is_empty()).map(PathBuf::from).or_else(hookhost_types::paths::state_dir);
        match dir {
            Some(dir) => StateStore::at(&dir.join(FILE_NAME), limits),
            None => StateStore::new(Backing::Nowhere("no state directory is known: set HOME, XDG_STATE_HOME or HOOKHOST_STATE_DIR".into()), limits),
        }
    }

    /// A store in this file (created with its directory on first use).
    pub fn at(file: &Path, limits: StateLimits) -> StateStore {
        StateStore::new(Backing::File(file.to_path_buf()), limits)
    }

    /// A throwaway store in memory (`replay`, `diff`, tests).
    pub fn in_memory(limits: StateLimits) -> StateStore {
        StateStore::new(Backing::Memory, limits)
    }

    fn new(backing: Backing, limits: StateLimits) -> StateStore {
        StateStore { backing, limits, inner: Arc::default(), deferred: Default::default(), flusher: Default::default(), clock_offset: Default::default() }
    }

    /// Make writes in memory and commit them in batches, a few milliseconds later, on a thread
    /// of the store's own: what `serve` does, so a decision never waits for a commit. Reads
    /// see this process's writes at once; another process sees them once committed, and this
    /// one sees another's within [`RECHECK`]. An `incr` is committed as an addition,
    /// so concurrent processes still lose none; what it returns counts only the additions this
    /// process has seen. Writes not yet committed are committed when the store is dropped (a
    /// process killed before then loses them: at most the last [`FLUSH_EVERY`]).
    pub fn defer_writes(&self) {
        self.deferred.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn is_deferred(&self) -> bool {
        self.deferred.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Wake (or start) the thread that commits deferred writes.
    fn wake_flusher(&self) {
        let thread = self.flusher.get_or_init(|| deferred::spawn_flusher(Arc::downgrade(&self.inner), self.backing_name()));
        thread.unpark();
    }

    /// Commit the deferred writes now.
    fn flush(&self) {
        if self.is_deferred() {
            deferred::flush(&mut self.inner.lock().unwrap_or_else(|p| p.into_inner()));
        }
    }

    fn backing_name(&self) -> String {
        match &self.backing {
            Backing::File(f) => f.display().to_string(),
            Backing::Memory => "the in-memory store".into(),
            Backing::Nowhere(_) => "no store".into(),
        }
    }

    /// Now, in seconds since the epoch, as the store counts expiry.
    fn now(&self) -> i64 {
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0);
        now + self.clock_offset.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Move this store's clock forward (tests of expiry).
    #[cfg(test)]
    pub(crate) fn advance(&self, by: Duration) {
        self.clock_offset.fetch_add(by.as_secs() as i64, std::sync::atomic::Ordering::Relaxed);
    }

    /// Make every write purge expired rows, or none (tests of expiry; not the dice).
    #[cfg(test)]
    pub(crate) fn purge_on_writes(&self, purge: bool) {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).purge = Some(purge);
    }

    /// Its file, when it has one.
    pub fn file(&self) -> Option<&Path> {
        match &self.backing {
            Backing::File(f) => Some(f),
            _ => None,
        }
    }

    /// Its bounds.
    pub fn limits(&self) -> StateLimits {
        self.limits
    }

    /// Run `f` with the store open (opening it first), the read cache made current and the
    /// call's deadline for the store's lock set.
    fn with<R>(&self, deadline: Option<Instant>, f: impl FnOnce(&mut Inner) -> Result<R, StateError>) -> Result<R, StateError> {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        // Wait for another process's transaction no longer than the hook may run (and never forever).
        let wait = deadline.map_or(Duration::from_secs(5), |d| d.saturating_duration_since(Instant::now())).min(Duration::from_secs(5));
        inner.deadline = Some(Instant::now() + wait.max(Duration::from_millis(1)));
        if inner.env.is_none() {
            let started = Instant::now();
            match self.open(&inner) {
                // Another process held the lock past this call's deadline: the next call tries again.
                Err((e, lmdb::Retry::Yes)) => return Err(e),
                Err((e, lmdb::Retry::No)) => inner.env = Some(Err(e)),
                Ok(env) => inner.env = Some(Ok(env)),
            }
            tracing::debug!(store = %self.backing_name(), "hooks' state store opened in {} µs", started.elapsed().as_micros());
        }
        if let Some(Err(e)) = &inner.env {
            return Err(e.clone());
        }
        // Deferred writes (serve) ask whether another process wrote at most every RECHECK.
        let recheck = !self.is_deferred() || inner.checked.is_none_or(|at| at.elapsed() >= deferred::RECHECK);
        if recheck {
            inner.checked = Some(Instant::now());
            if inner.env().last_commit() != inner.data_version {
                // This process's own writes go first: the cache is all that holds them.
                deferred::flush(&mut inner);
                inner.cache.clear();
                inner.sizes.clear();
                inner.data_version = inner.env().last_commit();
            }
        }
        f(&mut inner)
    }

    /// Run `f` in a read transaction.
    fn read<R>(&self, inner: &Inner, f: impl FnOnce(&Txn<'_>) -> Result<R, Failure>) -> Result<R, StateError> {
        self.settle("cannot be read", inner.env().read(inner.deadline(), f))
    }

    /// Run `f` in a write transaction, committed when it returns `Ok`.
    fn write_txn<R>(&self, inner: &Inner, f: impl FnOnce(&mut Txn<'_>) -> Result<R, Failure>) -> Result<R, StateError> {
        self.settle("cannot be written", inner.env().write(inner.deadline(), f))
    }

    fn settle<R>(&self, what: &str, outcome: Result<Result<R, Failure>, lmdb::Error>) -> Result<R, StateError> {
        match outcome {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(Failure::State(e))) => Err(e),
            Ok(Err(Failure::Store(e))) | Err(e) if e.is_full() => Err(self.unavailable("is full", &e)),
            Ok(Err(Failure::Store(e))) | Err(e) => Err(self.unavailable(what, &e)),
        }
    }

    fn unavailable(&self, what: &str, e: &dyn std::fmt::Display) -> StateError {
        match &self.backing {
            Backing::File(f) => StateError::Unavailable(format!(
                "hookhost's state store {} {what}: {e} (if the file is damaged, move it away: hookhost starts a new one)",
                f.display()
            )),
            Backing::Memory => StateError::Unavailable(format!("hookhost's in-memory state store {what}: {e}")),
            Backing::Nowhere(why) => StateError::Unavailable(why.clone()),
        }
    }

    /// Open the store, or say why it cannot be and whether a later call may try again.
    fn open(&self, inner: &Inner) -> Result<Env, (StateError, lmdb::Retry)> {
        let file = match &self.backing {
            Backing::Nowhere(why) => return Err((StateError::Unavailable(why.clone()), lmdb::Retry::No)),
            Backing::Memory => return Ok(Env::memory()),
            Backing::File(file) => {
                prepare_dir(file).map_err(|e| (self.unavailable("cannot be created", &e), lmdb::Retry::No))?;
                file.clone()
            }
        };
        let (env, schema) = Env::open(&file, &lock_file(&file), inner.deadline(), SCHEMA_VERSION.to_string().as_bytes()).map_err(|e| (self.unavailable("cannot be opened", &e), e.retry()))?;
        let refused = match std::str::from_utf8(&schema).ok().and_then(|v| v.parse::<u32>().ok()) {
            Some(version) if version <= SCHEMA_VERSION => return Ok(env),
            Some(version) => self.unavailable("was written by a newer hookhost", &format_args!("schema {version}, this hookhost knows {SCHEMA_VERSION}")),
            None => self.unavailable("cannot be read", &format_args!("its schema version {:?} is not a number", String::from_utf8_lossy(&schema))),
        };
        Err((refused, lmdb::Retry::No))
    }

    /// The value of `key`, if set and not expired.
    pub fn get(&self, scope: &Scope, key: &str, deadline: Option<Instant>) -> Result<Option<String>, StateError> {
        let now = self.now();
        self.with(deadline, |inner| self.read_through(inner, scope, key, now))
    }

    /// Set `key` to `value` for `ttl` (at most, and by default, [`StateLimits::ttl`]).
    pub fn set(&self, scope: &Scope, key: &str, value: &str, ttl: Option<Duration>, deadline: Option<Instant>) -> Result<(), StateError> {
        self.check_key(key)?;
        self.check_value(key, value.len())?;
        let expires = self.expiry(ttl);
        self.write(scope, key, deadline, None, |_old| Ok((Some(value.to_string()), expires)))
    }

    /// Delete `key` (nothing happens when it is not set).
    pub fn delete(&self, scope: &Scope, key: &str, deadline: Option<Instant>) -> Result<(), StateError> {
        self.check_key(key)?;
        self.write(scope, key, deadline, None, |_old| Ok((None, 0)))
    }

    /// Add `delta` to the integer under `key` (a key not set counts as 0) and return the sum,
    /// atomically: concurrent increments from other processes are never lost. The key's expiry
    /// is renewed as by [`StateStore::set`].
    pub fn incr(&self, scope: &Scope, key: &str, delta: i64, ttl: Option<Duration>, deadline: Option<Instant>) -> Result<i64, StateError> {
        self.check_key(key)?;
        let expires = self.expiry(ttl);
        let mut sum = 0;
        self.write(scope, key, deadline, Some(delta), |old| {
            let current = match old {
                None => 0,
                Some(text) => text.trim().parse::<i64>().map_err(|_| StateError::Invalid(format!("state key {key:?} holds {:?}, not an integer: incr cannot add to it", cut(text, 40))))?,
            };
            sum = current.checked_add(delta).ok_or_else(|| StateError::Invalid(format!("state key {key:?}: {current} + {delta} overflows a 64-bit integer")))?;
            Ok((Some(sum.to_string()), expires))
        })?;
        Ok(sum)
    }

    /// The scope's keys that start with `prefix`, sorted, without expired ones.
    pub fn keys(&self, scope: &Scope, prefix: &str, deadline: Option<Instant>) -> Result<Vec<String>, StateError> {
        let now = self.now();
        self.with(deadline, |inner| {
            deferred::flush(inner);
            let start = row_key(&scope_key(scope), prefix);
            self.read(inner, |tx| {
                let mut keys = Vec::new();
                rows(tx, &start, |row, expires, _| {
                    if expires > now {
                        keys.push(String::from_utf8_lossy(&row[SCOPE_KEY..]).into_owned());
                    }
                })?;
                Ok(keys)
            })
        })
    }

    /// Every key and value of one scope (for `hookhost test`'s report), sorted by key.
    pub fn entries(&self, scope: &Scope) -> Result<Vec<(String, String)>, StateError> {
        let keys = self.keys(scope, "", None)?;
        let mut out = Vec::with_capacity(keys.len());
        for key in keys {
            if let Some(value) = self.get(scope, &key, None)? {
                out.push((key, value));
            }
        }
        Ok(out)
    }

    /// Delete a session's rows, every hook's: its `session_end` was dispatched. A store never
    /// opened and with no file is left alone (there is nothing to delete).
    pub fn end_session(&self, user: &str, project: &str, session: &str) -> Result<usize, StateError> {
        if self.absent() {
            return Ok(0);
        }
        self.with(None, |inner| {
            deferred::flush(inner);
            inner.sizes.retain(|scope, _| !(scope.user == user && scope.project == project && scope.session == session));
            let prefix = session_key(user, project, session);
            let n = self.write_txn(inner, |tx| {
                let mut rows = Vec::new();
                tx.scan(Db::Kv, &prefix, |row, value| {
                    if !row.starts_with(&prefix) {
                        return false;
                    }
                    rows.push((row.to_vec(), decode(value).ok().map(|(expires, _)| expires)));
                    true
                })?;
                for (row, expires) in &rows {
                    put_row(tx, row, *expires, None, 0)?;
                }
                Ok(rows.len())
            })?;
            inner.cache.retain(|(scope, _), _| !(scope.user == user && scope.project == project && scope.session == session));
            Ok(n)
        })
    }

    /// Whether this store has no file yet and was never opened: it holds nothing, and reading
    /// it need not make it.
    pub fn absent(&self) -> bool {
        match &self.backing {
            Backing::File(f) => self.inner.lock().unwrap_or_else(|p| p.into_inner()).env.is_none() && !f.exists(),
            _ => false,
        }
    }

    /// Read every row of the store and its expiry index: whether it is whole (after a crash,
    /// say), and how many rows it holds, expired or not.
    pub fn verify(&self) -> Result<usize, StateError> {
        self.with(None, |inner| {
            deferred::flush(inner);
            self.read(inner, |tx| {
                let (mut count, mut short) = (0, None);
                rows(tx, &[], |row, _, _| {
                    count += 1;
                    if row.len() <= SCOPE_KEY {
                        short = Some(row.len());
                    }
                })?;
                if let Some(len) = short {
                    return Err(lmdb::Error::Damaged(format!("a row's key is {len} bytes, no longer than a scope's")).into());
                }
                // Each row is in the expiry index once, under its own expiry.
                let mut index = Vec::new();
                tx.scan(Db::Expiry, &[], |key, _| {
                    index.push(key.to_vec());
                    true
                })?;
                let mut stray = 0;
                for key in &index {
                    let (at, row) = key.split_at(key.len().min(8));
                    if !read_row(tx, row)?.is_some_and(|(expires, _)| expiry_key(expires, &[]) == at) {
                        stray += 1;
                    }
                }
                if index.len() != count || stray > 0 {
                    return Err(lmdb::Error::Damaged(format!("its expiry index has {} entries ({stray} without their row) for {count} rows", index.len())).into());
                }
                Ok(count)
            })
        })
    }

    fn expiry(&self, ttl: Option<Duration>) -> i64 {
        let ttl = ttl.map_or(self.limits.ttl, |t| t.min(self.limits.ttl));
        self.now().saturating_add(ttl.as_secs().max(1) as i64)
    }

    fn check_key(&self, key: &str) -> Result<(), StateError> {
        if key.is_empty() {
            return Err(StateError::Invalid("a state key cannot be empty".into()));
        }
        if key.len() > self.limits.max_key_bytes as usize {
            return Err(StateError::Quota(format!("state key {:?}… is {} bytes; the limit is {}", cut(key, 40), key.len(), self.limits.max_key_bytes)));
        }
        Ok(())
    }

    fn check_value(&self, key: &str, len: usize) -> Result<(), StateError> {
        if len > self.limits.max_value_bytes as usize {
            return Err(StateError::Quota(format!("the value for state key {key:?} is {len} bytes; the limit is {}", self.limits.max_value_bytes)));
        }
        Ok(())
    }

    /// One write on one key: `change` maps its current value (none: not set or expired) to the
    /// new one (none: delete) and its expiry; the scope's bounds are checked against what the
    /// scope would hold after it. `delta`: an `incr`'s, which a deferred write commits as an
    /// addition to what the file holds then (another process's additions are never lost).
    fn write(
        &self,
        scope: &Scope,
        key: &str,
        deadline: Option<Instant>,
        delta: Option<i64>,
        change: impl FnOnce(Option<&str>) -> Result<(Option<String>, i64), StateError>,
    ) -> Result<(), StateError> {
        let now = self.now();
        if self.is_deferred() {
            return self.with(deadline, |inner| {
                let old = self.read_through(inner, scope, key, now)?;
                let (new, expires) = change(old.as_deref())?;
                let (keys, bytes) = self.sizes(inner, scope, now)?;
                let (keys_after, bytes_after) = self.check_sizes(key, old.as_deref(), new.as_deref(), keys, bytes)?;
                inner.sizes.insert(scope.clone(), (keys_after, bytes_after));
                inner.cache.insert((scope.clone(), key.to_string()), new.clone().map(|v| (v, expires)));
                inner.pending.push(deferred::Pending::new(scope, key, new, expires, delta.map(|d| (d, now))));
                if inner.pending.len() >= deferred::FLUSH_AT {
                    deferred::flush(inner);
                } else {
                    self.wake_flusher();
                }
                Ok(())
            });
        }
        self.with(deadline, |inner| {
            let row = row_key(&scope_key(scope), key);
            // The clock's nanoseconds as the dice: any one process's writes are too few to count.
            let dice = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0) / 1000;
            let purge = inner.purge.unwrap_or(dice % PURGE_EVERY == 0);
            let (committed, new, expires) = self.write_txn(inner, |tx| {
                let old = read_row(tx, &row)?;
                let old_expires = old.as_ref().map(|(expires, _)| *expires);
                let live = old.filter(|(expires, _)| *expires > now).map(|(_, value)| value);
                let (new, expires) = change(live.as_deref())?;
                if new.is_some() {
                    let (keys, bytes) = scope_sizes(tx, &row[..SCOPE_KEY], now)?;
                    self.check_sizes(key, live.as_deref(), new.as_deref(), keys, bytes)?;
                }
                put_row(tx, &row, old_expires, new.as_deref(), expires)?;
                if purge {
                    purge_expired(tx, now)?;
                }
                Ok((tx.id(), new, expires))
            })?;
            // The cache stays good only if no other process committed since it was checked.
            if committed == inner.data_version + 1 {
                inner.data_version = committed;
            }
            inner.cache.insert((scope.clone(), key.to_string()), new.map(|v| (v, expires)));
            Ok(())
        })
    }

    /// The scope's keys and bytes after replacing `old` with `new` under `key`, or the bound
    /// that would pass.
    fn check_sizes(&self, key: &str, old: Option<&str>, new: Option<&str>, keys: i64, bytes: i64) -> Result<(i64, i64), StateError> {
        let limits = self.limits;
        let after = match (old, new) {
            (Some(o), Some(v)) => (keys, bytes - o.len() as i64 + v.len() as i64),
            (None, Some(v)) => (keys + 1, bytes + (key.len() + v.len()) as i64),
            (Some(o), None) => (keys - 1, bytes - (key.len() + o.len()) as i64),
            (None, None) => (keys, bytes),
        };
        if let Some(v) = new {
            self.check_value(key, v.len())?;
            if after.0 > i64::from(limits.max_keys) {
                return Err(StateError::Quota(format!("this hook already keeps {keys} state keys in this session; the limit is {}", limits.max_keys)));
            }
            if after.1 > limits.max_bytes as i64 {
                return Err(StateError::Quota(format!("setting state key {key:?} would bring this hook's state in this session to {} bytes; the limit is {}", after.1, limits.max_bytes)));
            }
        }
        Ok(after)
    }

    /// A key's value through the read cache (deferred writes are there before the file).
    fn read_through(&self, inner: &mut Inner, scope: &Scope, key: &str, now: i64) -> Result<Option<String>, StateError> {
        let cache_key = (scope.clone(), key.to_string());
        if let Some(cached) = inner.cache.get(&cache_key) {
            return Ok(cached.as_ref().filter(|(_, exp)| *exp > now).map(|(v, _)| v.clone()));
        }
        let row = row_key(&scope_key(scope), key);
        let found = self.read(inner, |tx| Ok(read_row(tx, &row)?))?;
        let value = found.as_ref().filter(|(expires, _)| *expires > now).map(|(_, v)| v.clone());
        inner.cache.insert(cache_key, found.map(|(expires, v)| (v, expires)));
        Ok(value)
    }

    /// A scope's keys and bytes as the cache sees them (read from the file on first use).
    fn sizes(&self, inner: &mut Inner, scope: &Scope, now: i64) -> Result<(i64, i64), StateError> {
        if let Some(sizes) = inner.sizes.get(scope) {
            return Ok(*sizes);
        }
        let sizes = self.read(inner, |tx| Ok(scope_sizes(tx, &scope_key(scope), now)?))?;
        inner.sizes.insert(scope.clone(), sizes);
        Ok(sizes)
    }
}

impl Inner {
    /// The open environment ([`StateStore::with`] opened it before calling in).
    fn env(&self) -> &Env {
        match &self.env {
            Some(Ok(env)) => env,
            _ => unreachable!("the store is opened before it is used"),
        }
    }

    /// How long the call being made may wait for the store's lock.
    fn deadline(&self) -> Instant {
        self.deadline.unwrap_or_else(|| Instant::now() + Duration::from_secs(5))
    }
}

/// What a transaction's body can fail with: the store, or what the hook asked.
pub(crate) enum Failure {
    Store(lmdb::Error),
    State(StateError),
}

impl From<lmdb::Error> for Failure {
    fn from(e: lmdb::Error) -> Failure {
        Failure::Store(e)
    }
}

impl From<StateError> for Failure {
    fn from(e: StateError) -> Failure {
        Failure::State(e)
    }
}

/// Bytes of a row key's scope part: a SHA-256 of (user, project, session), then one of the hook.
const SCOPE_KEY: usize = 64;
/// Most expired rows one purge deletes (the rest go with the next).
const PURGE_AT_MOST: usize = 1000;

fn digest(parts: &[&str]) -> [u8; 32] {
    let mut hash = Sha256::new();
    for part in parts {
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part.as_bytes());
    }
    hash.finalize().into()
}

/// The first half of a session's row keys: every hook's rows of it start with it.
fn session_key(user: &str, project: &str, session: &str) -> [u8; 32] {
    digest(&[user, project, session])
}

fn scope_key(scope: &Scope) -> [u8; SCOPE_KEY] {
    let mut key = [0; SCOPE_KEY];
    key[..32].copy_from_slice(&session_key(&scope.user, &scope.project, &scope.session));
    key[32..].copy_from_slice(&digest(&[&scope.hook]));
    key
}

fn row_key(scope_key: &[u8; SCOPE_KEY], key: &str) -> Vec<u8> {
    [scope_key.as_slice(), key.as_bytes()].concat()
}

/// A row's value: its expiry (8 bytes, big-endian), then the hook's value.
fn encode(expires: i64, value: &str) -> Vec<u8> {
    [expires.to_be_bytes().as_slice(), value.as_bytes()].concat()
}

fn decode(bytes: &[u8]) -> Result<(i64, &str), lmdb::Error> {
    let damaged = || lmdb::Error::Damaged("a value is not an expiry and UTF-8 text".into());
    let (expires, value) = bytes.split_first_chunk::<8>().ok_or_else(damaged)?;
    Ok((i64::from_be_bytes(*expires), std::str::from_utf8(value).map_err(|_| damaged())?))
}

/// The expiry index's key of a row: the expiry, ordered as unsigned bytes, then the row's key.
fn expiry_key(expires: i64, row: &[u8]) -> Vec<u8> {
    [((expires as u64) ^ (1 << 63)).to_be_bytes().as_slice(), row].concat()
}

/// A row's expiry and value, expired or not.
fn read_row(tx: &Txn<'_>, row: &[u8]) -> Result<Option<(i64, String)>, lmdb::Error> {
    match tx.get(Db::Kv, row)? {
        Some(bytes) => decode(bytes).map(|(expires, value)| Some((expires, value.to_string()))),
        None => Ok(None),
    }
}

/// Replace a row (its old expiry: none when it was not there) with `value` (none: delete it),
/// keeping the expiry index in step.
fn put_row(tx: &mut Txn<'_>, row: &[u8], old_expires: Option<i64>, value: Option<&str>, expires: i64) -> Result<(), lmdb::Error> {
    if let Some(old) = old_expires {
        tx.del(Db::Expiry, &expiry_key(old, row))?;
    }
    match value {
        Some(value) => {
            tx.put(Db::Kv, row, &encode(expires, value))?;
            tx.put(Db::Expiry, &expiry_key(expires, row), &[])
        }
        None => tx.del(Db::Kv, row).map(drop),
    }
}

/// Call `f` on each row whose key starts with `prefix` (its key, expiry and value), in key
/// order; a value hookhost did not write ends the scan as an error.
fn rows(tx: &Txn<'_>, prefix: &[u8], mut f: impl FnMut(&[u8], i64, &str)) -> Result<(), lmdb::Error> {
    let mut damaged = None;
    tx.scan(Db::Kv, prefix, |row, value| {
        if !row.starts_with(prefix) {
            return false;
        }
        match decode(value) {
            Ok((expires, value)) => f(row, expires, value),
            Err(e) => damaged = Some(e),
        }
        damaged.is_none()
    })?;
    damaged.map_or(Ok(()), Err)
}

/// A scope's live keys and their bytes (keys and values).
fn scope_sizes(tx: &Txn<'_>, scope: &[u8], now: i64) -> Result<(i64, i64), lmdb::Error> {
    let (mut keys, mut bytes) = (0, 0);
    rows(tx, scope, |row, expires, value| {
        if expires > now {
            keys += 1;
            bytes += (row.len() - SCOPE_KEY + value.len()) as i64;
        }
    })?;
    Ok((keys, bytes))
}

/// Delete rows expired by `now` (at most [`PURGE_AT_MOST`]), found through the expiry index.
fn purge_expired(tx: &mut Txn<'_>, now: i64) -> Result<usize, lmdb::Error> {
    let bound = expiry_key(now, &[]);
    let mut expired = Vec::new();
    tx.scan(Db::Expiry, &[], |key, _| {
        if key.len() < 8 || key[..8] > bound[..] {
            return false;
        }
        expired.push(key.to_vec());
        expired.len() < PURGE_AT_MOST
    })?;
    for key in &expired {
        tx.del(Db::Expiry, key)?;
        let (at, row) = key.split_at(8);
        // The row is deleted if this entry is its expiry (it always is; the check is cheap).
        if let Some((expires, _)) = read_row(tx, row)? {
            if expiry_key(expires, &[]) == at {
                tx.del(Db::Kv, row)?;
            }
        }
    }
    Ok(expired.len())
}

/// The lock file beside the store's file (`state.lmdb.lock`).
fn lock_file(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Create the store's directory, owner-only (the files are created owner-only by their opening).
fn prepare_dir(file: &Path) -> std::io::Result<()> {
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir)?;
    }
    Ok(())
}

fn cut(s: &str, chars: usize) -> &str {
    s.char_indices().nth(chars).map_or(s, |(i, _)| &s[..i])
}

/// A hook's handle on the store for one call: the store and whose rows. The scope is worked
/// out on the first state call (the project root takes a few `stat`s), not for every event.
#[derive(Clone, Debug)]
pub struct ScopedState {
    /// The host's store.
    pub store: Arc<StateStore>,
    hook: String,
    session: String,
    cwd: Option<String>,
    scope: Option<Scope>,
}

impl ScopedState {
    /// `hook`'s state for an event of `session` in `cwd`.
    pub fn new(store: Arc<StateStore>, hook: &str, session: &str, cwd: Option<&str>) -> ScopedState {
        ScopedState { store, hook: hook.to_string(), session: session.to_string(), cwd: cwd.map(str::to_string), scope: None }
    }

    /// Whose rows the calls read and write.
    pub fn scope(&mut self) -> &Scope {
        let (hook, session, cwd) = (&self.hook, &self.session, &self.cwd);
        self.scope.get_or_insert_with(|| Scope::of(hook, session, cwd.as_deref()))
    }
}

impl Drop for StateStore {
    /// Deferred writes not yet committed are committed now, and the flusher told to end.
    fn drop(&mut self) {
        self.flush();
        if let Some(thread) = self.flusher.get() {
            thread.unpark();
        }
    }
}

mod deferred;
mod lmdb;
pub use deferred::{FLUSH_AT, FLUSH_EVERY, RECHECK};
#[cfg(test)]
mod tests;
