//! The wasmtime engine hooks run on (pooling allocator, fuel, epoch interruption driven by a
//! ticker thread, bounded stacks), shared process-wide by default or made per host; and the
//! on-disk cache of precompiled components (keyed by content digest + engine fingerprint,
//! sealed with a per-user key, loaded by mmap).

use crate::error::LoadError;
use hookhost_types::spec::MAX_MEMORY_MIB;
use sha2::Sha256;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use wasmtime::component::Component;
use wasmtime::{Config, Enabled, InstanceAllocationStrategy, PoolingAllocationConfig};
use wasmtime::Engine as WasmEngine;

/// How often the ticker advances the epoch. Deadlines are rounded up to whole ticks.
pub const EPOCH_TICK: Duration = Duration::from_millis(2);

/// Guest wasm stack bound: deep enough for real code, small enough that unbounded recursion
/// traps quickly.
const MAX_WASM_STACK: usize = 512 << 10;

/// Bytes of each linear memory kept resident between instances (see `config`). 4 MiB covers the
/// bash adapter's data (bashkit, jq) as well as small hooks: only pages a guest touched stay
/// resident, and PAGEMAP_SCAN resets only those, so small hooks do not pay for the size.
const KEEP_RESIDENT: usize = 4 << 20;

/// Instances the pool can hold at once (concurrent dispatches × the hook running in each).
const POOL_INSTANCES: u32 = 256;

/// How instances get their memory.
#[derive(Clone, Copy, Debug)]
enum Allocation {
    /// Pooling, resetting only dirtied pages (PAGEMAP_SCAN, Linux 6.7+).
    PoolingScan,
    /// Pooling, without PAGEMAP_SCAN: keep only a small prefix resident (it is memset whole).
    Pooling,
    /// Allocate on demand (where the pool's virtual-memory reservation is refused).
    OnDemand,
}

fn config(allocation: Allocation) -> Config {
    let mut cfg = Config::new();
    crate::compile_settings::compile_settings(&mut cfg).max_wasm_stack(MAX_WASM_STACK);
    if !matches!(allocation, Allocation::OnDemand) {
        let scan = matches!(allocation, Allocation::PoolingScan);
        let mut pool = PoolingAllocationConfig::new();
        pool.total_component_instances(POOL_INSTANCES)
            .total_core_instances(POOL_INSTANCES * 8)
            .total_memories(POOL_INSTANCES * 2)
            .total_tables(POOL_INSTANCES * 8)
            .total_stacks(POOL_INSTANCES)
            .max_memory_size((MAX_MEMORY_MIB as usize) << 20)
            // Reset reused slots in place instead of unmapping them: with PAGEMAP_SCAN
            // (Linux 6.7+) only the pages a guest dirtied are reset, so a small hook's next
            // instance takes no page faults and no madvise. This region covers our guests (built with a
            // 128 KiB shadow stack): stack, data and a small heap. Without PAGEMAP_SCAN the same
            // bytes would be memset on every reuse, so the region is kept small there.
            .pagemap_scan(if scan { Enabled::Yes } else { Enabled::No })
            .linear_memory_keep_resident(if scan { KEEP_RESIDENT } else { 64 << 10 })
            .table_keep_resident(64 << 10);
        cfg.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
    cfg
}

/// The engine hooks compile and run on: wasmtime configured for fuel, epoch deadlines, bounded
/// stacks and a pooling allocator, with a ticker thread that ends with it. Cheap to clone
/// (clones share one engine). Hosts on the same engine share compiled code in memory.
#[derive(Clone)]
pub struct Engine {
    inner: WasmEngine,
}

impl Engine {
    /// A new engine. The pooling allocator needs a large virtual-memory reservation and its
    /// best reset path needs PAGEMAP_SCAN; where either is missing this falls back to the
    /// next configuration (same limits, slower reuse).
    pub fn new() -> Result<Engine, LoadError> {
        Engine::create().map_err(|source| LoadError::Engine { what: "cannot create the wasm engine", source })
    }

    /// An engine for a process that handles one event and exits (`hookhost run`): the same
    /// compiler settings and limits — compiled plugins in the cache serve both — but memory
    /// allocated on demand. The pool's up-front cost (reserving and guarding 256 stacks and
    /// instance slots, about a fifth of a one-shot run) pays off only over many instances.
    pub fn one_shot() -> Result<Engine, LoadError> {
        Engine::create_with(&[Allocation::OnDemand]).map_err(|source| LoadError::Engine { what: "cannot create the wasm engine", source })
    }

    fn create() -> Result<Engine, crate::error::EngineFailure> {
        Engine::create_with(&[Allocation::PoolingScan, Allocation::Pooling, Allocation::OnDemand])
    }

    fn create_with(allocations: &[Allocation]) -> Result<Engine, crate::error::EngineFailure> {
        let mut last_error = None;
        for &allocation in allocations {
            match WasmEngine::new(&config(allocation)) {
                Ok(inner) => {
                    tracing::debug!(?allocation, "wasm engine ready");
                    start_ticker(&inner);
                    return Ok(Engine { inner });
                }
                Err(e) => {
                    tracing::debug!(?allocation, "engine configuration unavailable: {e:#}");
                    last_error = Some(e);
                }
            }
        }
        Err(last_error.expect("tried at least one configuration").into())
    }

    /// The process-wide engine (made on first use).
    pub fn shared() -> Result<Engine, LoadError> {
        static SHARED: OnceLock<Result<Engine, crate::error::EngineFailure>> = OnceLock::new();
        SHARED
            .get_or_init(Engine::create)
            .clone()
            .map_err(|source| LoadError::Engine { what: "cannot create the wasm engine", source })
    }

    /// Compile a component into the precompile cache `cache` (checked private to this user
    /// first), so the first hook call that loads it maps it instead of compiling: what
    /// `hookhost registry pull` does for a bundle's plugins. `name` is for the progress note.
    /// Already cached: nothing to do. A file that is not a component is an error.
    pub fn precompile(&self, name: &str, bytes: &[u8], cache: &Path) -> Result<(), String> {
        check_cache_dir(cache, true).map_err(|e| e.to_string())?;
        let digest = hookhost_types::ids::sha256_hex(bytes);
        load_component(&self.inner, name, bytes, &digest, Some(cache)).map(drop).map_err(|e| format!("{name}: {e:#}"))
    }

    /// The wasmtime engine.
    pub(crate) fn wasmtime(&self) -> &WasmEngine {
        &self.inner
    }
}

/// One thread advances the epoch for every store of the engine; it ends when the engine does.
/// (Epoch interruption: <https://docs.wasmtime.dev/api/wasmtime/struct.Config.html#method.epoch_interruption>.)
fn start_ticker(engine: &WasmEngine) {
    let weak = engine.weak();
    std::thread::Builder::new()
        .name("hookhost-epoch".into())
        .spawn(move || loop {
            std::thread::sleep(EPOCH_TICK);
            match weak.upgrade() {
                Some(engine) => engine.increment_epoch(),
                None => break,
            }
        })
        .expect("spawn the epoch ticker thread");
}

/// Epoch ticks for a wall-clock budget (rounded up, at least one).
pub fn ticks_for(timeout: Duration) -> u64 {
    (timeout.as_micros().div_ceil(EPOCH_TICK.as_micros()) as u64).max(1)
}

fn engine_fingerprint(engine: &WasmEngine) -> String {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut h);
    env!("CARGO_PKG_VERSION").hash(&mut h);
    format!("{:016x}", h.finish())
}

/// Compiled code shared by every plugin of one process that loaded the same bytes on the same
/// engine: held by each such [`crate::plugin::Plugin`], and freed when the last of them is
/// (a daemon that reloads into new plugins keeps none of the old ones' code).
pub struct SharedCode(#[allow(dead_code, reason = "held, not read: its strong count is what keeps the code loaded")] Arc<CodeCell>);

type CodeCell = OnceLock<Result<(Component, CodeSource), String>>;
type CodeKey = (String, Option<PathBuf>);

/// What this process has loaded, per engine (by identity: code compiled for one engine never
/// runs on another, whatever their settings), each entry held weakly.
static LOADED: Mutex<Vec<(wasmtime::EngineWeak, HashMap<CodeKey, std::sync::Weak<CodeCell>>)>> = Mutex::new(Vec::new());

/// Compile a component, or load it from the precompile cache. The cache file name is the
/// content digest plus the engine fingerprint, so a changed plugin or a different wasmtime
/// build never reuses stale code. A cache entry that fails to load is replaced.
///
/// Within one process each distinct component is compiled or loaded once per engine, however
/// many hosts load it, for as long as a loaded plugin holds it ([`SharedCode`]); concurrent
/// loads of the same bytes wait for the first. Entries of engines and plugins that are gone are
/// dropped as others are added, so the table holds no more than what is loaded.
/// `digest` is the hex sha256 of `bytes` (the caller has it already; hashing a 12 MB plugin
/// costs tens of milliseconds).
/// `name` is the plugin as the config names it, for the progress note a large compile logs.
pub fn load_component(engine: &WasmEngine, name: &str, bytes: &[u8], digest: &str, cache: Option<&Path>) -> wasmtime::Result<(Component, CodeSource, SharedCode)> {
    let key = (digest.to_string(), cache.map(Path::to_path_buf));
    let cell = {
        let mut all = LOADED.lock().unwrap_or_else(|p| p.into_inner());
        all.retain(|(weak, _)| weak.upgrade().is_some());
        let at = match all.iter().position(|(weak, _)| weak.upgrade().is_some_and(|e| WasmEngine::same(&e, engine))) {
            Some(at) => at,
            None => {
                all.push((engine.weak(), HashMap::new()));
                all.len() - 1
            }
        };
        let table = &mut all[at].1;
        table.retain(|_, weak| weak.strong_count() > 0);
        match table.get(&key).and_then(std::sync::Weak::upgrade) {
            Some(cell) => cell,
            None => {
                let cell = Arc::new(CodeCell::new());
                table.insert(key, Arc::downgrade(&cell));
                cell
            }
        }
    };
    let loaded = cell.get_or_init(|| load_uncached(engine, name, bytes, digest, cache).map_err(|e| format!("{e:#}"))).clone();
    loaded.map(|(component, source)| (component, source, SharedCode(cell))).map_err(wasmtime::Error::msg)
}

/// How many components this process holds loaded for `engine` (for tests).
#[cfg(test)]
pub(crate) fn loaded_on(engine: &WasmEngine) -> usize {
    let all = LOADED.lock().unwrap_or_else(|p| p.into_inner());
    all.iter().filter(|(weak, _)| weak.upgrade().is_some_and(|e| WasmEngine::same(&e, engine))).map(|(_, table)| table.values().filter(|w| w.strong_count() > 0).count()).sum()
}

/// Why a cache directory cannot be trusted, if it cannot: it must be owned by the current
/// user and writable by nobody else, because what it holds is native code that runs in this
/// process. With `create`, a missing one is created (mode 0700); without, a missing one is
/// fine (nothing is in it).
pub fn check_cache_dir(dir: &Path, create: bool) -> Result<(), LoadError> {
    check_cache_dir_text(dir, create).map_err(|message| LoadError::Cache { dir: dir.to_path_buf(), message })
}

fn check_cache_dir_text(dir: &Path, create: bool) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt;
    if !dir.exists() {
        if !create {
            return Ok(());
        }
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| format!("cannot create the cache directory {}: {e}; set cache_dir or $HOOKHOST_CACHE_DIR to a directory you can write", dir.display()))?;
    }
    check_private(dir).map_err(|problem| {
        format!(
            "the cache directory {} {problem}; its precompiled code runs inside hookhost, so it must be yours and writable only by you: `chmod go-w {}` (and chown it to yourself), or set cache_dir / $HOOKHOST_CACHE_DIR to such a directory",
            dir.display(),
            dir.display()
        )
    })
}

/// `Err(problem)` when `path` is not owned by the current user or is writable by group or others.
fn check_private(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("cannot be inspected ({e})"))?;
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Err(format!("is owned by uid {}, not by you (uid {me})", meta.uid()));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(format!("is writable by group or others (mode {:o})", meta.mode() & 0o7777));
    }
    Ok(())
}

/// The per-user key that authenticates cache entries (created 0600 beside them).
const KEY_FILE: &str = ".hookhost-cache-key";

type Mac = hmac::Hmac<Sha256>;

/// The cache directory's key, created on first use. It is written whole to a temporary file and
/// then linked into place, so a process racing to create it reads a complete key or none.
fn cache_key(dir: &Path) -> std::io::Result<[u8; 32]> {
    use std::io::{Read, Write};
    use std::os::unix::fs::MetadataExt;
    let path = dir.join(KEY_FILE);
    if !path.exists() {
        let mut key = [0u8; 32];
        getrandom::getrandom(&mut key).map_err(|e| std::io::Error::other(e.to_string()))?;
        // tempfile creates it 0600.
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        tmp.write_all(&key)?;
        tmp.as_file().sync_all()?;
        match std::fs::hard_link(tmp.path(), &path) {
            Ok(()) => return Ok(key),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    let meta = std::fs::symlink_metadata(&path)?;
    if check_private(&path).is_err() || meta.mode() & 0o077 != 0 || !meta.is_file() {
        return Err(std::io::Error::other(format!("the cache key {} must be a file only you can read and write (mode 600)", path.display())));
    }
    let mut key = [0u8; 32];
    std::fs::File::open(&path)?.read_exact(&mut key)?;
    Ok(key)
}

fn mac(key: &[u8; 32], parts: &[&[u8]]) -> Mac {
    use hmac::Mac as _;
    let mut mac = Mac::new_from_slice(key).expect("HMAC takes any key length");
    for part in parts {
        mac.update(&(part.len() as u64).to_le_bytes());
        mac.update(part);
    }
    mac
}

/// What a seal pins of an entry file: any change to the file (a write, a copy or rename over
/// it, restored times) changes its inode change time, which no user can set.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl Stamp {
    fn of(path: &Path) -> std::io::Result<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::symlink_metadata(path)?;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Ok(Stamp { dev: m.dev(), ino: m.ino(), size: m.size(), mtime_ns: ns(m.mtime(), m.mtime_nsec()), ctime_ns: ns(m.ctime(), m.ctime_nsec()) })
    }

    fn text(&self) -> String {
        format!("{} {} {} {} {}", self.dev, self.ino, self.size, self.mtime_ns, self.ctime_ns)
    }
}

/// An entry's seal (`<entry>.seal`): the HMAC of its code under its name, and the file stamp it
/// had when sealed, both under a second HMAC. A load whose file still has that stamp maps the
/// code without reading it; any other load reads the code and checks its HMAC first.
struct Seal {
    stamp: String,
    code_tag: Vec<u8>,
}

impl Seal {
    fn seal_tag(key: &[u8; 32], name: &str, stamp: &str, code_tag: &[u8]) -> Mac {
        mac(key, &[b"hookhost-cache-seal-v1", name.as_bytes(), stamp.as_bytes(), code_tag])
    }

    fn write(key: &[u8; 32], dir: &Path, name: &str, entry: &Path, code_tag: &[u8]) -> std::io::Result<()> {
        use hmac::Mac as _;
        let stamp = Stamp::of(entry)?.text();
        let tag = Self::seal_tag(key, name, &stamp, code_tag).finalize().into_bytes();
        let tmp = tempfile::NamedTempFile::new_in(dir)?;
        std::fs::write(tmp.path(), format!("v1\n{stamp}\n{}\n{}\n", hex::encode(code_tag), hex::encode(tag)))?;
        tmp.persist(seal_path(entry)).map_err(|e| e.error)?;
        Ok(())
    }

    /// The seal of `entry`, if it is there and its own tag checks out.
    fn read(key: &[u8; 32], name: &str, entry: &Path) -> Option<Seal> {
        use hmac::Mac as _;
        let text = std::fs::read_to_string(seal_path(entry)).ok()?;
        let mut lines = text.lines();
        if lines.next()? != "v1" {
            return None;
        }
        let (stamp, code_tag, tag) = (lines.next()?.to_string(), hex::decode(lines.next()?).ok()?, hex::decode(lines.next()?).ok()?);
        Self::seal_tag(key, name, &stamp, &code_tag).verify_slice(&tag).ok()?;
        Some(Seal { stamp, code_tag })
    }
}

fn seal_path(entry: &Path) -> PathBuf {
    let mut p = entry.as_os_str().to_owned();
    p.push(".seal");
    PathBuf::from(p)
}

/// How a cache entry may be used.
enum Entry {
    /// Unchanged since it was sealed: map it.
    Sealed,
    /// Changed on disk (copied, restored) but its code checks out: use these bytes.
    Verified(Vec<u8>),
    /// Missing, foreign, swapped or damaged: compile again.
    Unusable,
}

fn check_entry(path: &Path, key: &[u8; 32], name: &str) -> Entry {
    use hmac::Mac as _;
    if !path.exists() {
        return Entry::Unusable;
    }
    if let Err(problem) = check_private(path) {
        tracing::warn!(path = %path.display(), "ignoring a precompile cache entry that {problem}; recompiling");
        return Entry::Unusable;
    }
    if !seal_path(path).exists() {
        tracing::debug!(path = %path.display(), "a precompile cache entry has no seal (an older hookhost wrote it); recompiling");
        return Entry::Unusable;
    }
    let Some(seal) = Seal::read(key, name, path) else {
        tracing::warn!(path = %path.display(), "a precompile cache entry's seal does not check out (written with another key, or tampered with); recompiling");
        return Entry::Unusable;
    };
    if Stamp::of(path).is_ok_and(|s| s.text() == seal.stamp) {
        return Entry::Sealed;
    }
    match std::fs::read(path) {
        Ok(code) if mac(key, &[name.as_bytes(), &code]).verify_slice(&seal.code_tag).is_ok() => Entry::Verified(code),
        Ok(_) => {
            tracing::warn!(path = %path.display(), "a precompile cache entry failed its authentication check (replaced, or written with another key); recompiling");
            Entry::Unusable
        }
        Err(e) => {
            tracing::warn!(path = %path.display(), "cannot read a precompile cache entry ({e}); recompiling");
            Entry::Unusable
        }
    }
}

/// A compile still running after this long says so (target `hookhost::compile`, level info),
/// then every [`COMPILE_PROGRESS_EVERY`]: a language runtime inside a component (Python,
/// JavaScript, the bash adapter) takes seconds, which should not look like a hang.
const COMPILE_NOTICE_AFTER: std::time::Duration = std::time::Duration::from_secs(1);
const COMPILE_PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(5);
/// Smaller components never say so (they compile in well under a second; on a loaded machine
/// a note about them would be noise).
const COMPILE_NOTICE_BYTES: usize = 1 << 20;

/// Run `compile` (of a component of `len` bytes), saying so once it has taken a second, how
/// long it has been every few seconds after that, and how long it took (components of 1 MiB
/// or more).
fn announced<T>(name: &str, len: usize, cached: bool, compile: impl FnOnce() -> wasmtime::Result<T>) -> wasmtime::Result<T> {
    use std::sync::mpsc::RecvTimeoutError;
    if len < COMPILE_NOTICE_BYTES {
        return compile();
    }
    let started = std::time::Instant::now();
    let after = if cached { "once: later loads map it from the precompile cache" } else { "on every load: no precompile cache is in use" };
    let (done, finished) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|s| {
        let watcher = s.spawn(move || {
            let mut said = false;
            let mut wait = COMPILE_NOTICE_AFTER;
            loop {
                match finished.recv_timeout(wait) {
                    Err(RecvTimeoutError::Timeout) if !said => {
                        tracing::info!(target: "hookhost::compile", "compiling {name} ({:.1} MiB), {after} ...", len as f64 / (1 << 20) as f64);
                        said = true;
                        wait = COMPILE_PROGRESS_EVERY;
                    }
                    Err(RecvTimeoutError::Timeout) => tracing::info!(target: "hookhost::compile", "still compiling {name}: {:.0} s so far", started.elapsed().as_secs_f64()),
                    _ => return said,
                }
            }
        });
        let compiled = compile();
        drop(done);
        if watcher.join().unwrap_or(false) && compiled.is_ok() {
            tracing::info!(target: "hookhost::compile", "compiled {name} in {:.1} s", started.elapsed().as_secs_f64());
        }
        compiled
    })
}

/// Where a loaded plugin's native code came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeSource {
    /// Compiled now (and written to the precompile cache when there is one).
    Compiled,
    /// Mapped from the precompile cache.
    Cache,
    /// A built-in's code compiled when hookhost was built, unpacked (into the cache when there
    /// is one).
    Builtin,
}

impl CodeSource {
    /// How `hookhost check -v` says it.
    pub fn describe(self) -> &'static str {
        match self {
            CodeSource::Compiled => "compiled",
            CodeSource::Cache => "from the precompile cache",
            CodeSource::Builtin => "precompiled when hookhost was built",
        }
    }
}

/// Compiled in memory, not written to the cache.
fn in_memory(engine: &WasmEngine, name: &str, bytes: &[u8], digest: &str) -> wasmtime::Result<(Component, CodeSource)> {
    if let Some(component) = builtin_in_memory(engine, name, digest) {
        return Ok((component, CodeSource::Builtin));
    }
    announced(name, bytes.len(), false, || Component::new(engine, bytes)).map(|c| (c, CodeSource::Compiled))
}

/// Say that a built-in's embedded code was refused (another CPU, another build) and that it
/// will be compiled instead; the compile's own progress notes follow.
fn builtin_refused(name: &str, e: &wasmtime::Error) {
    tracing::info!(target: "hookhost::compile", "the code of {name} compiled when hookhost was built does not suit this machine ({e:#}); compiling it here");
}

/// A built-in's embedded code, unpacked in memory, if this engine accepts it (no cache).
fn builtin_in_memory(engine: &WasmEngine, name: &str, digest: &str) -> Option<Component> {
    let packed = crate::builtin::precompiled(digest)?;
    let code = match zstd::decode_all(packed) {
        Ok(code) => code,
        Err(e) => {
            builtin_refused(name, &wasmtime::Error::msg(format!("cannot unpack it: {e}")));
            return None;
        }
    };
    // SAFETY: the code is part of this binary, output of `precompile_component` with the same
    // compiler settings (`compile_settings.rs`); wasmtime checks its compatibility.
    match unsafe { Component::deserialize(engine, &code) } {
        Ok(c) => Some(c),
        Err(e) => {
            builtin_refused(name, &e);
            None
        }
    }
}

/// Writes through to a file while computing the cache seal's code tag (the HMAC of
/// [`mac`]'s layout: the entry name, then the code, each after its length).
struct SealingWriter {
    file: std::io::BufWriter<std::fs::File>,
    mac: Mac,
    written: u64,
}

impl std::io::Write for SealingWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        use hmac::Mac as _;
        let n = self.file.write(buf)?;
        self.mac.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Unpack a built-in's embedded code straight into the cache entry `path` (streamed: the
/// 40 MiB of the bash adapter never sit in memory), seal it, and map it. An entry this engine
/// refuses is removed again.
fn builtin_into_cache(engine: &WasmEngine, packed: &[u8], key: &[u8; 32], dir: &Path, entry: &str, path: &Path) -> wasmtime::Result<Component> {
    use hmac::Mac as _;
    let len = match zstd::zstd_safe::get_frame_content_size(packed) {
        Ok(Some(len)) => len,
        _ => wasmtime::bail!("its packed code does not record its size"),
    };
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
    // `mac(key, &[entry, code])`, with the code streamed in after its length.
    let mut mac = mac(key, &[entry.as_bytes()]);
    mac.update(&len.to_le_bytes());
    let mut writer = SealingWriter { file: std::io::BufWriter::with_capacity(1 << 20, tmp.reopen()?), mac, written: 0 };
    zstd::stream::copy_decode(packed, &mut writer)?;
    std::io::Write::flush(&mut writer)?;
    if writer.written != len {
        wasmtime::bail!("its packed code unpacked to {} bytes, not the {len} it records", writer.written);
    }
    let code_tag = writer.mac.finalize().into_bytes();
    tmp.persist(path).map_err(|e| e.error)?;
    Seal::write(key, dir, entry, path, &code_tag)?;
    // SAFETY: as in `builtin_in_memory`; the entry was just written by this process into this
    // user's private directory and sealed.
    unsafe { Component::deserialize_file(engine, path) }.inspect_err(|_| {
        let _ = std::fs::remove_file(path);
        let _ = std::fs::remove_file(seal_path(path));
    })
}

pub(crate) fn load_uncached(engine: &WasmEngine, name: &str, bytes: &[u8], digest: &str, cache: Option<&Path>) -> wasmtime::Result<(Component, CodeSource)> {
    use hmac::Mac as _;
    let Some(dir) = cache else { return in_memory(engine, name, bytes, digest) };
    let key = match check_cache_dir_text(dir, true).map_err(std::io::Error::other).and_then(|()| cache_key(dir)) {
        Ok(key) => key,
        Err(e) => {
            tracing::warn!(dir = %dir.display(), "not using the precompile cache: {e}");
            return in_memory(engine, name, bytes, digest);
        }
    };
    let entry = format!("{digest}-{}.cwasm", engine_fingerprint(engine));
    let path = dir.join(&entry);
    // SAFETY (both arms): the code was authenticated with this user's cache key under a name
    // that pins the source digest and this engine's configuration — it is output of
    // `precompile_component` below; wasmtime still checks its engine compatibility. The
    // directory and the entry are this user's and writable by no one else (checked above).
    let loaded = match check_entry(&path, &key, &entry) {
        Entry::Sealed => Some(unsafe { Component::deserialize_file(engine, &path) }),
        Entry::Verified(code) => {
            let code_tag = mac(&key, &[entry.as_bytes(), &code]).finalize().into_bytes();
            if let Err(e) = Seal::write(&key, dir, &entry, &path, &code_tag) {
                tracing::warn!(path = %path.display(), "cannot reseal a precompile cache entry: {e}");
            }
            Some(unsafe { Component::deserialize(engine, &code) })
        }
        Entry::Unusable => None,
    };
    match loaded {
        Some(Ok(c)) => return Ok((c, CodeSource::Cache)),
        Some(Err(e)) => tracing::warn!(path = %path.display(), "discarding unreadable cache entry: {e:#}"),
        None => {}
    }
    if let Some(packed) = crate::builtin::precompiled(digest) {
        match builtin_into_cache(engine, packed, &key, dir, &entry, &path) {
            Ok(c) => return Ok((c, CodeSource::Builtin)),
            Err(e) => builtin_refused(name, &e),
        }
    }
    let compiled = announced(name, bytes.len(), true, || engine.precompile_component(bytes))?;
    let code_tag = mac(&key, &[entry.as_bytes(), &compiled]).finalize().into_bytes();
    let written = (|| -> std::io::Result<()> {
        let tmp = tempfile::NamedTempFile::new_in(dir)?;
        std::fs::write(tmp.path(), &compiled)?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Seal::write(&key, dir, &entry, &path, &code_tag)
    })();
    if let Err(e) = written {
        tracing::warn!(dir = %dir.display(), "cannot write the precompile cache ({e}); compiling in memory");
    }
    // SAFETY: bytes produced by `precompile_component` of this very engine.
    unsafe { Component::deserialize(engine, &compiled) }.map(|c| (c, CodeSource::Compiled))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> (&'static [u8], &'static str) {
        crate::builtin::get("guard-destructive").expect("the guard is built in")
    }

    /// The guard's code as a release build embeds it (compiled for a hookhost engine), for
    /// this test process: debug builds embed none. `hookhost-precompile`'s own test checks the
    /// tool's output the same way.
    fn embed_guard() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let (bytes, digest) = guard();
            if crate::builtin::precompiled(digest).is_none() {
                let code = Engine::one_shot().unwrap().wasmtime().precompile_component(bytes).unwrap();
                crate::builtin::embed_for_test(digest, zstd::bulk::compress(&code, 3).unwrap());
            }
        });
    }

    /// The hookhost engine takes a built-in's embedded code as it is, in memory or unpacked
    /// into a cache (sealed: the next load maps it).
    #[test]
    fn a_builtins_embedded_code_loads_without_compiling() {
        embed_guard();
        let engine = Engine::one_shot().unwrap();
        let (bytes, digest) = guard();
        let (_, source) = load_uncached(engine.wasmtime(), "builtin:guard-destructive", bytes, digest, None).unwrap();
        assert_eq!(source, CodeSource::Builtin);
        let cache = tempfile::tempdir().unwrap();
        let (_, source) = load_uncached(engine.wasmtime(), "builtin:guard-destructive", bytes, digest, Some(cache.path())).unwrap();
        assert_eq!(source, CodeSource::Builtin);
        let (_, source) = load_uncached(engine.wasmtime(), "builtin:guard-destructive", bytes, digest, Some(cache.path())).unwrap();
        assert_eq!(source, CodeSource::Cache);
    }

    /// Embedded code this engine refuses (here: compiled with fuel, for an engine without it;
    /// in the field: another CPU or another build) is never used, and nothing of it stays in
    /// the cache: the plugin is compiled instead.
    #[test]
    fn a_builtin_whose_embedded_code_is_refused_is_compiled() {
        embed_guard();
        let mut cfg = Config::new();
        cfg.epoch_interruption(true);
        let engine = WasmEngine::new(&cfg).unwrap();
        let (bytes, digest) = guard();
        let (_, source) = load_uncached(&engine, "builtin:guard-destructive", bytes, digest, None).unwrap();
        assert_eq!(source, CodeSource::Compiled);
        let cache = tempfile::tempdir().unwrap();
        let (_, source) = load_uncached(&engine, "builtin:guard-destructive", bytes, digest, Some(cache.path())).unwrap();
        assert_eq!(source, CodeSource::Compiled);
        let (_, source) = load_uncached(&engine, "builtin:guard-destructive", bytes, digest, Some(cache.path())).unwrap();
        assert_eq!(source, CodeSource::Cache, "the compiled code replaced the refused entry");
    }
}
