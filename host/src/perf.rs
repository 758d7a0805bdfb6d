//! Entry points for the benchmarks in `host/benches` (not a stable API): they reach below
//! `Host` to time one layer at a time.

use crate::engine::{self, Engine};
use crate::plugin::{Loader, PluginSource};
use crate::{wit, HookEvent, Limits};
use std::path::Path;
use std::time::{Duration, Instant};

/// Load a built-in plugin's component the way `Host::load` does, but skipping the in-process
/// map of loaded components: from the disk cache when `cache` has an entry, else from the code
/// compiled when hookhost was built (or compiled now, without it), written to the cache when
/// there is one. Returns how long it took and where the code came from.
pub fn load_builtin(name: &str, cache: Option<&Path>) -> Result<(Duration, engine::CodeSource), String> {
    let engine = Engine::shared().map_err(|e| e.to_string())?;
    let (bytes, digest) = crate::builtin::get(name).ok_or_else(|| format!("no built-in plugin {name}"))?;
    let started = Instant::now();
    let (_, source) = engine::load_uncached(engine.wasmtime(), name, bytes, digest, cache).map_err(|e| format!("{e:#}"))?;
    Ok((started.elapsed(), source))
}

/// See `builtin::embed_for_test`: `packed` becomes, for this process, the code embedded for
/// the built-in whose component has `digest`.
pub fn embed_for_test(digest: &str, packed: Vec<u8>) {
    crate::builtin::embed_for_test(digest, packed)
}

/// Compile a built-in plugin's component now, in memory (what its first use costs without
/// the code compiled at build time).
pub fn compile_builtin(name: &str) -> Result<Duration, String> {
    let engine = Engine::shared().map_err(|e| e.to_string())?;
    let (bytes, _) = crate::builtin::get(name).ok_or_else(|| format!("no built-in plugin {name}"))?;
    let started = Instant::now();
    wasmtime::component::Component::new(engine.wasmtime(), bytes).map_err(|e| format!("{e:#}"))?;
    Ok(started.elapsed())
}

/// A loader and the linker a built-in plugin needs, set up from nothing, as a one-shot
/// `hookhost run` does for each plugin kind (`hookhost:hooks/*` alone for a lean plugin; WASI
/// too for a `wasm32-wasip2` one).
pub fn linker_for_builtin(name: &str) -> Result<Duration, String> {
    let engine = Engine::shared().map_err(|e| e.to_string())?;
    let (bytes, _) = crate::builtin::get(name).ok_or_else(|| format!("no built-in plugin {name}"))?;
    let imports = crate::plugin::outer_imports(bytes).unwrap_or_default();
    let started = Instant::now();
    let loader = Loader::new(&engine, None).map_err(|e| e.to_string())?;
    loader.linker_for(&imports).map_err(|e| e.to_string())?;
    Ok(started.elapsed())
}

/// A built-in plugin loaded on its own (no host), with the default limits.
pub struct Loaded {
    plugin: crate::plugin::Plugin,
    limits: Limits,
}

/// Load a built-in plugin for the layer-by-layer benchmarks.
pub fn load(name: &str) -> Result<Loaded, String> {
    let (bytes, digest) = crate::builtin::get(name).ok_or_else(|| format!("no built-in plugin {name}"))?;
    load_source(PluginSource { name: name.to_string(), bytes: bytes.into(), digest: Some(digest.to_string()) })
}

/// Load a plugin file (any hook component) for the layer-by-layer benchmarks.
pub fn load_file(path: &Path) -> Result<Loaded, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    load_source(PluginSource { name: path.display().to_string(), bytes: bytes.into(), digest: None })
}

fn load_source(source: PluginSource<'_>) -> Result<Loaded, String> {
    let engine = Engine::shared().map_err(|e| e.to_string())?;
    let loader = Loader::new(&engine, hookhost_types::paths::cache_dir(None)).map_err(|e| e.to_string())?;
    let plugin = loader.load("bench", source).map_err(|e| e.to_string())?;
    // The default limits, as a config without a `limits` table gives them.
    Ok(Loaded { plugin, limits: Limits::default() })
}

impl Loaded {
    /// A fresh store, dropped again: no instance.
    pub fn store_only(&self) -> Result<(), String> {
        self.plugin.store_only(&self.limits).map_err(|e| e.to_string())
    }

    /// A fresh store and instance; no call.
    pub async fn instantiate(&self) -> Result<(), String> {
        self.plugin.instantiate_only(&self.limits).await.map_err(|e| e.to_string())
    }

    /// A fresh instance handling `event` (no matcher, no chain, no audit).
    pub async fn handle(&self, event: &HookEvent) -> Result<(), String> {
        self.plugin.handle("bench", wit::Call::new(event, "bench", "{}", 0), &self.limits, &crate::plugin::Access::default(), None).await.0.map(drop).map_err(|e| e.to_string())
    }

    /// `n` instances that each handled `event`, all kept alive.
    pub async fn live_instances(&self, event: &HookEvent, n: usize) -> Result<LiveInstances, String> {
        let mut live: Vec<Box<dyn Send>> = Vec::with_capacity(n);
        for _ in 0..n {
            live.push(Box::new(self.plugin.handle_and_keep(wit::Call::new(event, "bench", "{}", 0), &self.limits).await.map_err(|e| e.to_string())?));
        }
        Ok(LiveInstances(live))
    }
}

/// The physical floor: an empty component (no modules, no imports, no exports) on the shared
/// engine, instantiated in a bare store — what any instantiation costs on this machine before
/// a plugin, WASI or hookhost adds anything.
pub struct EmptyComponent {
    pre: wasmtime::component::InstancePre<()>,
}

impl EmptyComponent {
    /// Compile and pre-link the empty component.
    pub fn new() -> Result<EmptyComponent, String> {
        // The component preamble alone: magic, version 0x0d, layer 1.
        const EMPTY: &[u8] = b"\0asm\x0d\0\x01\0";
        let engine = Engine::shared().map_err(|e| e.to_string())?;
        let component = wasmtime::component::Component::new(engine.wasmtime(), EMPTY).map_err(|e| format!("{e:#}"))?;
        let linker = wasmtime::component::Linker::<()>::new(engine.wasmtime());
        let pre = linker.instantiate_pre(&component).map_err(|e| format!("{e:#}"))?;
        Ok(EmptyComponent { pre })
    }

    /// A fresh store (with fuel, which hookhost's engine requires) and an instance of it.
    pub async fn instantiate(&self) -> Result<(), String> {
        let mut store = wasmtime::Store::new(self.pre.engine(), ());
        store.set_fuel(1_000_000).map_err(|e| format!("{e:#}"))?;
        self.pre.instantiate_async(&mut store).await.map(drop).map_err(|e| format!("{e:#}"))
    }
}

/// Instances kept alive by `live_instances`.
pub struct LiveInstances(#[allow(dead_code)] Vec<Box<dyn Send>>);

/// This process's resident set, in bytes (Linux; `None` elsewhere).
#[cfg(unix)]
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok()?)
}

/// This process's resident set: not read here (no `/proc`).
#[cfg(not(unix))]
pub fn resident_bytes() -> Option<u64> {
    None
}

/// Open file descriptors of this process (Linux; `None` elsewhere).
pub fn open_fds() -> Option<usize> {
    Some(std::fs::read_dir("/proc/self/fd").ok()?.count())
}
