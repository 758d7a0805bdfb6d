//! Hooks' session state (`hookhost:hooks/state@0.3.0`): a small key-value store per hook per
//! session, kept in SQLite so that it outlives the `hookhost run` process that wrote it.
//!
//! - **Where**: one database per user, `{state dir}/state.sqlite3` (owner-only, like the rest of
//!   the state directory), or in memory ([`StateStore::in_memory`]: `replay`, `diff`, `test`).
//! - **Scope**: every row belongs to one (user, project, session, plugin). A hook reads and
//!   writes only its plugin's rows of the session it is called for — the same plugin wired to
//!   several events (a hook id each) shares them, a different plugin never sees them; nothing in
//!   the contract names another scope. The project is the event's working directory's repository root (its nearest
//!   ancestor with `.git`, else the directory itself), so a session id two projects happen to
//!   share does not mix them.
//! - **Bounds** ([`StateLimits`]): keys per scope, bytes per key and value, bytes per scope. A
//!   write over a bound is an error the hook sees ([`StateError::Quota`]); nothing is written.
//! - **Expiry**: every row has one; a write without a TTL lives [`StateLimits::ttl`] from that
//!   write. Expired rows are invisible at once, and deleted by about one write in
//!   [`PURGE_EVERY`] (a `hookhost run` makes a write or two: a count would never come round). A
//!   session's rows are deleted when its `session_end` is dispatched.
//! - **Concurrency and crashes**: one write transaction per call (`BEGIN IMMEDIATE`: concurrent
//!   `run`s queue on SQLite's lock, never longer than the hook's deadline); `incr` reads and
//!   writes in one transaction, so 100 concurrent increments make 100. A rollback journal
//!   (`journal_mode = TRUNCATE`) with `synchronous = OFF`: a commit is handed to the OS before
//!   the call returns, so a process killed at any point leaves every committed write readable
//!   (a transaction it was in the middle of is rolled back by the next opener from the
//!   journal). What is not promised is a power loss or an OS crash: that may cost the last
//!   writes or damage the file, which then reads as `unavailable` naming it and the fix.
//! - **Why not WAL, or an fsync**: a `hookhost run` opens the store, makes a call or two and
//!   exits, so its connection is the last to close every time. In WAL mode that close
//!   checkpoints and fsyncs, or, told not to, the next process reads the whole WAL again to
//!   rebuild its index, which a lone process never lets SQLite shorten; an fsync per commit
//!   costs ~0.2 ms here. Measured per run on this machine (open, read, write, commit, close):
//!   WAL with fsyncs ~1.1 ms, WAL without ~180 µs, a truncated journal without ~70 µs. A
//!   hook's state is a session's working memory, not a record: the speed is worth more than
//!   surviving a power cut.
//! - **Serve**: one connection for the life of the host, statements prepared once, and a read
//!   cache checked against `PRAGMA data_version` (which changes when another process commits).
//!
//! The store opens on the first call a hook makes: a hook that never uses state costs nothing.

use rusqlite::{params, Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// About one write in this many deletes the expired rows.
pub const PURGE_EVERY: u32 = 64;

/// The store's file name in the state directory.
pub const FILE_NAME: &str = "state.sqlite3";

/// The schema version this hookhost writes (`PRAGMA user_version`).
const SCHEMA_VERSION: i64 = 1;

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
    conn: Option<Result<Connection, StateError>>,
    /// Values read or written through this connection, valid while `data_version` is unchanged.
    cache: HashMap<(Scope, String), Option<(String, i64)>>,
    data_version: i64,
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
    /// The user's store: `$HOOKHOST_STATE_DIR` or hookhost's state directory, `state.sqlite3`.
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

    /// Run `f` on the open connection (opening it first), the read cache made current.
    fn with<R>(&self, deadline: Option<Instant>, f: impl FnOnce(&mut Inner) -> Result<R, StateError>) -> Result<R, StateError> {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if inner.conn.is_none() {
            let started = Instant::now();
            inner.conn = Some(self.open());
            tracing::debug!(store = %self.backing_name(), "hooks' state store opened in {} µs", started.elapsed().as_micros());
        }
        let conn = match inner.conn.as_ref().expect("just set") {
            Ok(conn) => conn,
            Err(e) => return Err(e.clone()),
        };
        // Wait for another writer no longer than the hook may run (and never forever).
        let wait = deadline.map_or(Duration::from_secs(5), |d| d.saturating_duration_since(Instant::now())).min(Duration::from_secs(5));
        conn.busy_timeout(wait.max(Duration::from_millis(1))).map_err(|e| self.unavailable("cannot set its lock timeout", &e))?;
        // Deferred writes (serve) ask whether another process wrote at most every RECHECK.
        let recheck = !self.is_deferred() || inner.checked.is_none_or(|at| at.elapsed() >= deferred::RECHECK);
        if recheck {
            let version: i64 = conn
                .prepare_cached("PRAGMA data_version")
                .and_then(|mut s| s.query_row([], |r| r.get(0)))
                .map_err(|e| self.unavailable("cannot read", &e))?;
            inner.checked = Some(Instant::now());
            if version != inner.data_version {
                // This process's own writes go first: the cache is all that holds them.
                deferred::flush(&mut inner);
                inner.cache.clear();
                inner.sizes.clear();
                inner.data_version = version;
            }
        }
        f(&mut inner)
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

    fn open(&self) -> Result<Connection, StateError> {
        let conn = match &self.backing {
            Backing::Nowhere(why) => return Err(StateError::Unavailable(why.clone())),
            Backing::Memory => Connection::open_in_memory().map_err(|e| self.unavailable("cannot be opened", &e))?,
            Backing::File(file) => {
                prepare_file(file).map_err(|e| self.unavailable("cannot be created", &e))?;
                let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
                Connection::open_with_flags(file, flags).map_err(|e| self.unavailable("cannot be opened", &e))?
            }
        };
        conn.busy_timeout(Duration::from_secs(5)).map_err(|e| self.unavailable("cannot set its lock timeout", &e))?;
        // A rollback journal, truncated after each commit, and no fsync (see the module docs).
        // Both are per connection: every opener says so.
        conn.pragma_update(None, "journal_mode", "TRUNCATE").map_err(|e| self.unavailable("cannot be read", &e))?;
        conn.pragma_update(None, "synchronous", "OFF").map_err(|e| self.unavailable("cannot be read", &e))?;
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).map_err(|e| self.unavailable("cannot be read", &e))?;
        if version > SCHEMA_VERSION {
            return Err(self.unavailable("was written by a newer hookhost", &format_args!("schema {version}, this hookhost knows {SCHEMA_VERSION}")));
        }
        if version < SCHEMA_VERSION {
            conn.execute_batch(
                "BEGIN IMMEDIATE;
                 CREATE TABLE IF NOT EXISTS kv (
                   user TEXT NOT NULL, project TEXT NOT NULL, session TEXT NOT NULL, hook TEXT NOT NULL,
                   key TEXT NOT NULL, value TEXT NOT NULL, expires INTEGER NOT NULL,
                   PRIMARY KEY (user, project, session, hook, key)
                 ) WITHOUT ROWID;
                 CREATE INDEX IF NOT EXISTS kv_expires ON kv (expires);
                 PRAGMA user_version = 1;
                 COMMIT;",
            )
            .map_err(|e| self.unavailable("cannot be set up", &e))?;
        }
        Ok(conn)
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
            let conn = inner.conn.as_ref().and_then(|c| c.as_ref().ok()).expect("open");
            let mut stmt = conn
                .prepare_cached("SELECT key FROM kv WHERE user = ?1 AND project = ?2 AND session = ?3 AND hook = ?4 AND expires > ?5 AND substr(key, 1, length(?6)) = ?6 ORDER BY key")
                .map_err(|e| self.unavailable("cannot be read", &e))?;
            let rows = stmt
                .query_map(params![scope.user, scope.project, scope.session, scope.hook, now, prefix], |r| r.get::<_, String>(0))
                .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
                .map_err(|e| self.unavailable("cannot be read", &e))?;
            Ok(rows)
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
        if let Backing::File(f) = &self.backing {
            let opened = self.inner.lock().unwrap_or_else(|p| p.into_inner()).conn.is_some();
            if !opened && !f.exists() {
                return Ok(0);
            }
        }
        self.with(None, |inner| {
            deferred::flush(inner);
            inner.sizes.retain(|scope, _| !(scope.user == user && scope.project == project && scope.session == session));
            let conn = inner.conn.as_ref().and_then(|c| c.as_ref().ok()).expect("open");
            let n = conn
                .execute("DELETE FROM kv WHERE user = ?1 AND project = ?2 AND session = ?3", params![user, project, session])
                .map_err(|e| self.unavailable("cannot be written", &e))?;
            inner.cache.retain(|(scope, _), _| !(scope.user == user && scope.project == project && scope.session == session));
            Ok(n)
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
            let conn = inner.conn.as_mut().and_then(|c| c.as_mut().ok()).expect("open");
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).map_err(|e| self.unavailable("cannot be written", &e))?;
            let old: Option<String> = tx
                .prepare_cached(SELECT_VALUE)
                .and_then(|mut s| s.query_row(params![scope.user, scope.project, scope.session, scope.hook, key, now], |r| r.get(0)).optional())
                .map_err(|e| self.unavailable("cannot be read", &e))?;
            let (new, expires) = change(old.as_deref())?;
            if new.is_some() {
                let (keys, bytes): (i64, i64) = tx
                    .prepare_cached(SELECT_SIZES)
                    .and_then(|mut s| s.query_row(params![scope.user, scope.project, scope.session, scope.hook, now], |r| Ok((r.get(0)?, r.get(1)?))))
                    .map_err(|e| self.unavailable("cannot be read", &e))?;
                self.check_sizes(key, old.as_deref(), new.as_deref(), keys, bytes)?;
            }
            deferred::apply(&tx, scope, key, new.as_deref(), expires, None).map_err(|e| self.unavailable("cannot be written", &e))?;
            tx.commit().map_err(|e| self.unavailable("cannot be written", &e))?;
            // The clock's nanoseconds as the dice: any one process's writes are too few to count.
            let dice = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.subsec_nanos()).unwrap_or(0) / 1000;
            if inner.purge.unwrap_or(dice % PURGE_EVERY == 0) {
                let conn = inner.conn.as_ref().and_then(|c| c.as_ref().ok()).expect("open");
                // Best effort: an expired row is invisible whether or not it is gone.
                let _ = conn.execute("DELETE FROM kv WHERE expires <= ?1", [now]);
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
        let conn = inner.conn.as_ref().and_then(|c| c.as_ref().ok()).expect("open");
        let row: Option<(String, i64)> = conn
            .prepare_cached(SELECT_ROW)
            .and_then(|mut s| s.query_row(params![scope.user, scope.project, scope.session, scope.hook, key], |r| Ok((r.get(0)?, r.get(1)?))).optional())
            .map_err(|e| self.unavailable("cannot be read", &e))?;
        let value = row.as_ref().filter(|(_, exp)| *exp > now).map(|(v, _)| v.clone());
        inner.cache.insert(cache_key, row);
        Ok(value)
    }

    /// A scope's keys and bytes as the cache sees them (read from the file on first use).
    fn sizes(&self, inner: &mut Inner, scope: &Scope, now: i64) -> Result<(i64, i64), StateError> {
        if let Some(sizes) = inner.sizes.get(scope) {
            return Ok(*sizes);
        }
        let conn = inner.conn.as_ref().and_then(|c| c.as_ref().ok()).expect("open");
        let sizes: (i64, i64) = conn
            .prepare_cached(SELECT_SIZES)
            .and_then(|mut s| s.query_row(params![scope.user, scope.project, scope.session, scope.hook, now], |r| Ok((r.get(0)?, r.get(1)?))))
            .map_err(|e| self.unavailable("cannot be read", &e))?;
        inner.sizes.insert(scope.clone(), sizes);
        Ok(sizes)
    }
}

const SELECT_ROW: &str = "SELECT value, expires FROM kv WHERE user = ?1 AND project = ?2 AND session = ?3 AND hook = ?4 AND key = ?5";
pub(crate) const SELECT_VALUE: &str = "SELECT value FROM kv WHERE user = ?1 AND project = ?2 AND session = ?3 AND hook = ?4 AND key = ?5 AND expires > ?6";
pub(crate) const UPSERT: &str = "INSERT OR REPLACE INTO kv (user, project, session, hook, key, value, expires) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
pub(crate) const DELETE_KEY: &str = "DELETE FROM kv WHERE user = ?1 AND project = ?2 AND session = ?3 AND hook = ?4 AND key = ?5";
const SELECT_SIZES: &str = "SELECT count(*), coalesce(sum(length(CAST(key AS BLOB)) + length(CAST(value AS BLOB))), 0) FROM kv WHERE user = ?1 AND project = ?2 AND session = ?3 AND hook = ?4 AND expires > ?5";

/// Create the store's directory (owner-only) and the file itself owner-only, before SQLite
/// opens it (SQLite gives its WAL and shared-memory files the database file's mode).
fn prepare_file(file: &Path) -> std::io::Result<()> {
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        let mut builder = std::fs::DirBuilder::new();
        builder.recursive(true);
        #[cfg(unix)]
        std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
        builder.create(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(file).map(drop)
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
pub use deferred::{FLUSH_AT, FLUSH_EVERY, RECHECK};
#[cfg(test)]
mod tests;
