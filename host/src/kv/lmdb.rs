//! The few LMDB calls the state store makes (`lmdb-master-sys`: LMDB's C library, compiled in),
//! behind a safe interface: one environment in one file, its named databases, read and write
//! transactions, lookups, writes and ordered scans.
//!
//! **Locking is ours, not LMDB's.** The environment is opened with `MDB_NOLOCK`, and every
//! transaction holds an OS lock on a file beside it (`std::fs::File::lock`: `flock` on Unix,
//! `LockFileEx` on Windows) — shared for a read, exclusive for a write, as LMDB's documentation
//! of `MDB_NOLOCK` asks ("the caller must enforce single-writer semantics, and must ensure that
//! no readers are using old transactions while a writer is active"). LMDB's own lock file is
//! what a switch to it had to get around: on macOS its writer lock is a POSIX semaphore that stays
//! held when the process holding it is killed (every later writer would wait forever), the
//! System V semaphores it can use instead are refused by some sandboxes, a killed reader leaves
//! a slot that must be cleared, and its robust mutexes are missing under `qemu-user`. An OS file
//! lock is released by the kernel when its holder dies, on every OS, so a `hookhost run` killed
//! at any point never blocks the next one.
//!
//! Commits are not synced (`MDB_NOSYNC`): LMDB writes a transaction's pages, then the meta page
//! that makes it current, so a killed process leaves the last committed transaction readable; a
//! power loss may cost the last ones (docs/ARCHITECTURE.md, "Hooks' session state").
//! Reference: LMDB's `lmdb.h` (the `mdb_env_open` flags, `MDB_val`'s lifetime rules).

use lmdb_master_sys as ffi;
use std::ffi::{c_int, c_uint, CStr, CString};
use std::collections::BTreeMap;
use std::fs::File;
use std::ops::Bound;
use std::path::Path;
use std::ptr;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The named databases of the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Db {
    /// Values by scope and key.
    Kv = 0,
    /// Expiry index: a row's expiry (8 bytes, big-endian) and its key, no value.
    Expiry = 1,
    /// The store's own facts (its schema version).
    Meta = 2,
}

const NAMES: [&CStr; 3] = [c"kv", c"expiry", c"meta"];

/// How much address space the environment maps: what the file may grow to. Virtual memory
/// only; the file grows as pages are written (on Windows too: LMDB's `mdb.master` reserves the
/// section instead of sizing the file to it).
#[cfg(target_pointer_width = "64")]
const MAP_SIZE: usize = 1 << 30;
#[cfg(not(target_pointer_width = "64"))]
const MAP_SIZE: usize = 256 << 20;

/// What went wrong below the store.
#[derive(Debug)]
pub(crate) enum Error {
    /// LMDB's own error code.
    Lmdb(c_int),
    /// The lock file or the file system.
    Io(std::io::Error),
    /// Another process held the lock past the deadline.
    Busy(Duration),
    /// What the store holds is not what hookhost writes.
    Damaged(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Lmdb(code) => {
                // SAFETY: mdb_strerror returns a static, NUL-terminated string for any code.
                let text = unsafe { CStr::from_ptr(ffi::mdb_strerror(*code)) };
                write!(f, "{}", text.to_string_lossy())
            }
            Error::Io(e) => write!(f, "{e}"),
            Error::Busy(waited) => write!(f, "another hookhost process kept it locked for {} ms, past this hook's deadline", waited.as_millis()),
            Error::Damaged(what) => write!(f, "{what}"),
        }
    }
}

/// Whether an error that kept the store from opening may pass by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retry {
    /// Another process held the lock: a later call may find it free.
    Yes,
    /// The file, its directory or its contents: it stays until someone acts.
    No,
}

impl Error {
    /// The database is full (its map size): no write fits until expired rows are gone.
    pub(crate) fn is_full(&self) -> bool {
        matches!(self, Error::Lmdb(ffi::MDB_MAP_FULL))
    }

    /// Whether the same call may succeed later.
    pub(crate) fn retry(&self) -> Retry {
        match self {
            Error::Busy(_) => Retry::Yes,
            _ => Retry::No,
        }
    }
}

fn check(code: c_int) -> Result<(), Error> {
    if code == 0 {
        Ok(())
    } else {
        Err(Error::Lmdb(code))
    }
}

/// An open store: an LMDB environment and its lock file, or a throwaway one in memory.
pub(crate) struct Env(Kind);

enum Kind {
    Lmdb(Lmdb),
    /// [`Env::memory`]: the same databases as ordered maps, with the same transactions.
    Memory(Mutex<Memory>),
}

struct Lmdb {
    env: *mut ffi::MDB_env,
    dbs: [ffi::MDB_dbi; 3],
    lock: File,
}

#[derive(Default)]
struct Memory {
    dbs: [BTreeMap<Vec<u8>, Vec<u8>>; 3],
    last_commit: usize,
}

// SAFETY: an environment may be used from any thread (LMDB: "an environment handle may be
// shared between threads"); with MDB_NOLOCK and the OS lock held for each transaction, and every
// transaction begun and ended within one call on one thread, nothing is tied to a thread.
unsafe impl Send for Lmdb {}

impl Drop for Lmdb {
    fn drop(&mut self) {
        // SAFETY: every transaction borrowed the Env and has ended; closing once.
        unsafe { ffi::mdb_env_close(self.env) }
    }
}

impl Env {
    /// Open (creating it when missing) the environment in `file`, locked through `lock_file`,
    /// and the schema version it holds (`schema`, written now, when it is new). Waits for the
    /// lock no later than `deadline`.
    pub(crate) fn open(file: &Path, lock_file: &Path, deadline: Instant, schema: &[u8]) -> Result<(Env, Vec<u8>), Error> {
        let lock = owner_only().read(true).write(true).create(true).truncate(false).open(lock_file).map_err(Error::Io)?;
        let path = file.to_str().and_then(|p| CString::new(p).ok()).ok_or_else(|| Error::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, "its path is not UTF-8 without NUL bytes")))?;
        let mut env = ptr::null_mut();
        // SAFETY: a fresh handle; on any error below, Lmdb's Drop closes it (LMDB: "if this
        // function fails, mdb_env_close() must be called").
        check(unsafe { ffi::mdb_env_create(&mut env) })?;
        let mut opened = Lmdb { env, dbs: [0; 3], lock };
        // SAFETY: the handle is valid and not yet open, as these calls require.
        unsafe {
            check(ffi::mdb_env_set_maxdbs(env, NAMES.len() as ffi::MDB_dbi))?;
            check(ffi::mdb_env_set_mapsize(env, MAP_SIZE))?;
        }
        // A store already laid out is opened under the shared lock, its databases found in a
        // read transaction; a new one (an empty file) is laid out under the exclusive lock, so
        // no other process reads it half-made.
        let laid_out = std::fs::metadata(file).is_ok_and(|m| m.len() > 0);
        let flags = ffi::MDB_NOSUBDIR | ffi::MDB_NOLOCK | ffi::MDB_NOSYNC;
        let found = {
            let _guard = opened.lock(!laid_out, deadline)?;
            // SAFETY: the path is NUL-terminated and outlives the call.
            check(unsafe { ffi::mdb_env_open(env, path.as_ptr(), flags, 0o600) })?;
            if laid_out {
                opened.databases(false, schema)?
            } else {
                Some(opened.databases(true, schema)?.expect("created"))
            }
        };
        let (held, dbs) = match found {
            Some(found) => found,
            // Opened by a process killed before it made the databases: make them now.
            None => {
                let _guard = opened.lock(true, deadline)?;
                opened.databases(true, schema)?.expect("created")
            }
        };
        opened.dbs = dbs;
        Ok((Env(Kind::Lmdb(opened)), held))
    }

    /// A throwaway store in this process's memory.
    pub(crate) fn memory() -> Env {
        Env(Kind::Memory(Mutex::default()))
    }

    /// The id of the last committed transaction: changes whenever any process commits.
    pub(crate) fn last_commit(&self) -> usize {
        match &self.0 {
            Kind::Lmdb(lmdb) => {
                let mut info = std::mem::MaybeUninit::<ffi::MDB_envinfo>::uninit();
                // SAFETY: the environment is open; mdb_env_info fills the whole struct on success.
                if unsafe { ffi::mdb_env_info(lmdb.env, info.as_mut_ptr()) } != 0 {
                    return 0;
                }
                // SAFETY: initialised by the successful call above.
                unsafe { info.assume_init() }.me_last_txnid
            }
            Kind::Memory(memory) => memory.lock().unwrap_or_else(|p| p.into_inner()).last_commit,
        }
    }

    /// Run `f` in a read transaction (the lock shared).
    pub(crate) fn read<R, E>(&self, deadline: Instant, f: impl FnOnce(&Txn<'_>) -> Result<R, E>) -> Result<Result<R, E>, Error> {
        match &self.0 {
            Kind::Lmdb(lmdb) => {
                let _guard = lmdb.lock(false, deadline)?;
                let txn = lmdb.begin(ffi::MDB_RDONLY)?;
                Ok(f(&txn))
            }
            Kind::Memory(memory) => Ok(f(&Txn::memory(memory, false))),
        }
    }

    /// Run `f` in a write transaction (the lock exclusive), committed when `f` returns `Ok`
    /// and abandoned otherwise.
    pub(crate) fn write<R, E>(&self, deadline: Instant, f: impl FnOnce(&mut Txn<'_>) -> Result<R, E>) -> Result<Result<R, E>, Error> {
        let _guard;
        let mut txn = match &self.0 {
            Kind::Lmdb(lmdb) => {
                _guard = lmdb.lock(true, deadline)?;
                lmdb.begin(0)?
            }
            Kind::Memory(memory) => Txn::memory(memory, true),
        };
        match f(&mut txn) {
            Ok(r) => txn.commit().map(|()| Ok(r)),
            Err(e) => Ok(Err(e)),
        }
    }
}

impl Lmdb {
    /// Hold the lock file, shared or exclusive, waiting no later than `deadline`.
    fn lock(&self, exclusive: bool, deadline: Instant) -> Result<LockGuard<'_>, Error> {
        let started = Instant::now();
        let mut pause = Duration::from_micros(20);
        loop {
            let tried = if exclusive { self.lock.try_lock() } else { self.lock.try_lock_shared() };
            match tried {
                Ok(()) => return Ok(LockGuard(&self.lock)),
                Err(std::fs::TryLockError::WouldBlock) => {}
                Err(std::fs::TryLockError::Error(e)) => return Err(Error::Io(e)),
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(Error::Busy(now - started));
            }
            std::thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(Duration::from_millis(1));
        }
    }

    /// The named databases' handles and the schema version the store holds: found in a read
    /// transaction (none when one is missing), or made with the schema in a write transaction.
    fn databases(&self, create: bool, schema: &[u8]) -> Result<Option<(Vec<u8>, [ffi::MDB_dbi; 3])>, Error> {
        let mut txn = self.begin(if create { 0 } else { ffi::MDB_RDONLY })?;
        let TxnKind::Lmdb { txn: raw, dbs, .. } = &mut txn.0 else { unreachable!("an LMDB transaction") };
        for (i, name) in NAMES.iter().enumerate() {
            // SAFETY: a live transaction (aborted by its Drop on an error).
            match unsafe { ffi::mdb_dbi_open(*raw, name.as_ptr(), if create { ffi::MDB_CREATE } else { 0 }, &mut dbs[i]) } {
                0 => {}
                ffi::MDB_NOTFOUND if !create => return Ok(None),
                code => return Err(Error::Lmdb(code)),
            }
        }
        let dbs = *dbs;
        let held = match txn.get(Db::Meta, b"schema")? {
            Some(held) => held.to_vec(),
            None if !create => return Ok(None),
            None => {
                txn.put(Db::Meta, b"schema", schema)?;
                schema.to_vec()
            }
        };
        // A read transaction is committed too: that keeps the handles it opened.
        txn.commit()?;
        Ok(Some((held, dbs)))
    }

    fn begin(&self, flags: c_uint) -> Result<Txn<'_>, Error> {
        let mut txn = ptr::null_mut();
        // SAFETY: the environment is open and the lock held for the transaction's life.
        check(unsafe { ffi::mdb_txn_begin(self.env, ptr::null_mut(), flags, &mut txn) })?;
        Ok(Txn(TxnKind::Lmdb { txn, dbs: self.dbs, env: std::marker::PhantomData }))
    }
}

/// Options that create a file readable and writable by its owner only.
fn owner_only() -> std::fs::OpenOptions {
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut options = std::fs::OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}

struct LockGuard<'a>(&'a File);

impl Drop for LockGuard<'_> {
    fn drop(&mut self) {
        // An unlock that fails leaves the lock to the file's close (the process's end).
        let _ = self.0.unlock();
    }
}

/// A transaction: aborted when dropped unless committed.
pub(crate) struct Txn<'e>(TxnKind<'e>);

enum TxnKind<'e> {
    Lmdb {
        txn: *mut ffi::MDB_txn,
        /// The environment's database handles (set while it is opened).
        dbs: [ffi::MDB_dbi; 3],
        env: std::marker::PhantomData<&'e Lmdb>,
    },
    Memory {
        memory: MutexGuard<'e, Memory>,
        /// A write transaction's id (the commit it will be); a read's, the last commit.
        id: usize,
        /// What a write changed, to put back unless it commits: (database, key, old value).
        undo: Vec<(Db, Vec<u8>, Option<Vec<u8>>)>,
        write: bool,
    },
}

impl Drop for Txn<'_> {
    fn drop(&mut self) {
        match &mut self.0 {
            TxnKind::Lmdb { txn, .. } => {
                if !txn.is_null() {
                    // SAFETY: a live transaction, ended once.
                    unsafe { ffi::mdb_txn_abort(*txn) }
                }
            }
            TxnKind::Memory { memory, undo, .. } => {
                for (db, key, old) in undo.drain(..).rev() {
                    match old {
                        Some(old) => memory.dbs[db as usize].insert(key, old),
                        None => memory.dbs[db as usize].remove(&key),
                    };
                }
            }
        }
    }
}

fn val(bytes: &[u8]) -> ffi::MDB_val {
    ffi::MDB_val { mv_size: bytes.len(), mv_data: bytes.as_ptr() as *mut _ }
}

/// The bytes an `MDB_val` LMDB returned points at.
///
/// # Safety
/// `v` came from LMDB in a transaction that outlives `'a` with no write in between.
unsafe fn bytes<'a>(v: &ffi::MDB_val) -> &'a [u8] {
    if v.mv_size == 0 {
        &[]
    } else {
        std::slice::from_raw_parts(v.mv_data as *const u8, v.mv_size)
    }
}

impl<'e> Txn<'e> {
    fn memory(memory: &'e Mutex<Memory>, write: bool) -> Txn<'e> {
        let memory = memory.lock().unwrap_or_else(|p| p.into_inner());
        let id = memory.last_commit + usize::from(write);
        Txn(TxnKind::Memory { memory, id, undo: Vec::new(), write })
    }

    /// This transaction's id (a write transaction's is the commit id it will have).
    pub(crate) fn id(&self) -> usize {
        match &self.0 {
            // SAFETY: a live transaction.
            TxnKind::Lmdb { txn, .. } => unsafe { ffi::mdb_txn_id(*txn) },
            TxnKind::Memory { id, .. } => *id,
        }
    }

    /// The value under `key`. The bytes live as long as the borrow of the transaction (a
    /// write needs `&mut`, so none can happen while they are held).
    pub(crate) fn get(&self, db: Db, key: &[u8]) -> Result<Option<&[u8]>, Error> {
        let (txn, dbs) = match &self.0 {
            TxnKind::Lmdb { txn, dbs, .. } => (*txn, dbs),
            TxnKind::Memory { memory, .. } => return Ok(memory.dbs[db as usize].get(key).map(Vec::as_slice)),
        };
        let mut k = val(key);
        let mut v = val(&[]);
        // SAFETY: a live transaction; LMDB reads `k` and fills `v`.
        match unsafe { ffi::mdb_get(txn, dbs[db as usize], &mut k, &mut v) } {
            // SAFETY: valid until the transaction ends or writes, which the borrow prevents.
            0 => Ok(Some(unsafe { bytes(&v) })),
            ffi::MDB_NOTFOUND => Ok(None),
            code => Err(Error::Lmdb(code)),
        }
    }

    /// Set `key` to `value`.
    pub(crate) fn put(&mut self, db: Db, key: &[u8], value: &[u8]) -> Result<(), Error> {
        let (txn, dbs) = match &mut self.0 {
            TxnKind::Lmdb { txn, dbs, .. } => (*txn, dbs),
            TxnKind::Memory { memory, undo, write, .. } => {
                debug_assert!(*write, "a write in a read transaction");
                let old = memory.dbs[db as usize].insert(key.to_vec(), value.to_vec());
                undo.push((db, key.to_vec(), old));
                return Ok(());
            }
        };
        let (mut k, mut v) = (val(key), val(value));
        // SAFETY: a live write transaction; LMDB copies both.
        check(unsafe { ffi::mdb_put(txn, dbs[db as usize], &mut k, &mut v, 0) })
    }

    /// Delete `key`; whether it was there.
    pub(crate) fn del(&mut self, db: Db, key: &[u8]) -> Result<bool, Error> {
        let (txn, dbs) = match &mut self.0 {
            TxnKind::Lmdb { txn, dbs, .. } => (*txn, dbs),
            TxnKind::Memory { memory, undo, .. } => {
                let old = memory.dbs[db as usize].remove(key);
                let was = old.is_some();
                if was {
                    undo.push((db, key.to_vec(), old));
                }
                return Ok(was);
            }
        };
        let mut k = val(key);
        // SAFETY: a live write transaction.
        match unsafe { ffi::mdb_del(txn, dbs[db as usize], &mut k, ptr::null_mut()) } {
            0 => Ok(true),
            ffi::MDB_NOTFOUND => Ok(false),
            code => Err(Error::Lmdb(code)),
        }
    }

    /// Call `f` on each entry from the first key at or after `from`, in key order, while it
    /// returns `true`.
    pub(crate) fn scan(&self, db: Db, from: &[u8], mut f: impl FnMut(&[u8], &[u8]) -> bool) -> Result<(), Error> {
        let (txn, dbs) = match &self.0 {
            TxnKind::Lmdb { txn, dbs, .. } => (*txn, dbs),
            TxnKind::Memory { memory, .. } => {
                for (k, v) in memory.dbs[db as usize].range::<[u8], _>((Bound::Included(from), Bound::Unbounded)) {
                    if !f(k, v) {
                        break;
                    }
                }
                return Ok(());
            }
        };
        let mut cursor = ptr::null_mut();
        // SAFETY: a live transaction; the cursor is closed before returning.
        check(unsafe { ffi::mdb_cursor_open(txn, dbs[db as usize], &mut cursor) })?;
        let mut k = val(from);
        let mut v = val(&[]);
        let mut op = if from.is_empty() { ffi::MDB_FIRST } else { ffi::MDB_SET_RANGE };
        let result = loop {
            // SAFETY: the cursor is live; LMDB fills `k` and `v`.
            match unsafe { ffi::mdb_cursor_get(cursor, &mut k, &mut v, op) } {
                // SAFETY: valid while the transaction lives and no write happens (`&self`).
                0 => {
                    if !f(unsafe { bytes(&k) }, unsafe { bytes(&v) }) {
                        break Ok(());
                    }
                }
                ffi::MDB_NOTFOUND => break Ok(()),
                code => break Err(Error::Lmdb(code)),
            }
            op = ffi::MDB_NEXT;
        };
        // SAFETY: opened above, closed once.
        unsafe { ffi::mdb_cursor_close(cursor) };
        result
    }

    fn commit(mut self) -> Result<(), Error> {
        match &mut self.0 {
            TxnKind::Lmdb { txn, .. } => {
                let txn = std::mem::replace(txn, ptr::null_mut());
                // SAFETY: a live transaction, ended once (Drop sees it null).
                check(unsafe { ffi::mdb_txn_commit(txn) })
            }
            TxnKind::Memory { memory, id, undo, .. } => {
                undo.clear();
                memory.last_commit = *id;
                Ok(())
            }
        }
    }
}
