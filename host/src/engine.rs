//! The wasmtime engine hooks run on (pooling allocator, fuel, epoch interruption driven by a
//! ticker thread, bounded stacks), shared process-wide by default or made per host; and the
//! on-disk cache of precompiled components (keyed by content digest + engine fingerprint,
//! sealed with a per-user key, loaded by mmap).

use crate::error::LoadError;
use hookhost_types::spec::MAX_MEMORY_MIB;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use wasmtime::component::Component;
use wasmtime::{Config, Enabled, InstanceAllocationStrategy, PoolingAllocationConfig};
use wasmtime::Engine as WasmEngine;

mod cache;

pub use cache::{check_cache_dir, CodeSource};
pub(crate) use cache::load_uncached;

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
    /// On demand, and each memory reserves only its largest allowed size with a small guard
    /// (bounds checks in code instead of guard pages): `HOOKHOST_POOLING=0`, for where address
    /// space is scarce or costly (`ulimit -v`; qemu-user, which tracks every reserved page and
    /// keeps that track after an instance is gone). Its compiled code differs from the other
    /// configurations' (the built-ins' embedded code is compiled again, once per cache).
    Compact,
}

/// `HOOKHOST_POOLING=0`: [`Allocation::Compact`] for every engine of this process.
fn compact() -> bool {
    std::env::var_os("HOOKHOST_POOLING").is_some_and(|v| v == "0")
}

fn config(allocation: Allocation) -> Config {
    let mut cfg = Config::new();
    crate::compile_settings::compile_settings(&mut cfg).max_wasm_stack(MAX_WASM_STACK);
    if matches!(allocation, Allocation::Compact) {
        cfg.memory_reservation((MAX_MEMORY_MIB as u64) << 20).memory_guard_size(64 << 10).memory_reservation_for_growth(0);
    }
    if !matches!(allocation, Allocation::OnDemand | Allocation::Compact) {
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
        Engine::create_with(&[if compact() { Allocation::Compact } else { Allocation::OnDemand }]).map_err(|source| LoadError::Engine { what: "cannot create the wasm engine", source })
    }

    fn create() -> Result<Engine, crate::error::EngineFailure> {
        if compact() {
            return Engine::create_with(&[Allocation::Compact]);
        }
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
