//! Loading a plugin (read, check it is a component of the right world with only provided
//! imports, compile or load from cache, pre-link) and invoking it in a fresh, limited store.

use crate::engine::{self, Engine};
use crate::error::{HookError, LoadError};
use crate::wit::{self, v0_1, v0_2, v0_3, Version};
use hookhost_types::Decision;
use hookhost_config::Plan;
use hookhost_types::spec::{HookSpec, Limits, PluginRef};
use std::borrow::Cow;
use std::path::PathBuf;
use std::time::Instant;
use wasmtime::component::{Linker, ResourceTable};
use wasmtime::{Store, Trap};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::WasiCtx;

mod shape;
mod state;

pub(crate) use shape::{outer_imports, process_import};
pub(crate) use state::{linker, State};
use shape::{check_shape, sniff, unsupported};
use state::{with_http, with_wasi, MemoryLimiter};

/// Captured guest stdout and stderr, each.
const STDIO_CAP: usize = 16 << 10;
/// Bytes of log messages one invocation may send; the rest is dropped with a note.
const LOG_CAP: usize = 16 << 10;

/// A loaded plugin: compiled, checked, pre-linked. Cheap to instantiate.
pub struct Plugin {
    /// `builtin:name` or the file path, for messages.
    pub name: String,
    /// sha256 of the component bytes.
    pub digest: String,
    /// The component's size in bytes.
    pub size: usize,
    /// What the component imports, each checked against what hookhost links.
    pub imports: Vec<String>,
    /// How long loading it took: compiling it (or mapping it from the precompile cache),
    /// checking and pre-linking it.
    pub load_time: std::time::Duration,
    /// Where its native code came from (compiled now, the precompile cache, or built in).
    pub code: engine::CodeSource,
    /// It imports WASI: its stores get a WASI context (a lean plugin's never would use one).
    wasi: bool,
    /// Some import can park the guest (WASI's poll, `process`, `wasi:http`): its calls need a
    /// timer besides the epoch deadline, which stops only running wasm. A plugin importing
    /// only `hookhost:hooks/types` and `log` cannot park, and arming a tokio timer per call
    /// costs a worker's wake-up on a multi-threaded runtime.
    parks: bool,
    /// It imports `hookhost:hooks/state` (known at load: [`Plugin::uses_state`]).
    state: bool,
    /// Pre-linked, for the contract version it was built against.
    pre: Pre,
    /// Its compiled code, shared with every plugin of the same bytes on this engine.
    _shared: engine::SharedCode,
}

/// A pre-linked plugin, for the contract version it was built against.
enum Pre {
    V0_1(v0_1::ShellHookPre<State>),
    V0_2(v0_2::ShellHookPre<State>),
    V0_3(v0_3::ShellHookPre<State>),
}

/// One instance of a plugin, for its version. Calls take and return the newest version's
/// values; an older version's instance converts what differs ([`v0_1::context`]).
enum Instance {
    V0_1(v0_1::ShellHook),
    V0_2(v0_2::ShellHook),
    V0_3(v0_3::ShellHook),
}

impl Pre {
    fn new(version: Version, pre: wasmtime::component::InstancePre<State>) -> wasmtime::Result<Pre> {
        Ok(match version {
            Version::V0_1 => Pre::V0_1(v0_1::ShellHookPre::new(pre)?),
            Version::V0_2 => Pre::V0_2(v0_2::ShellHookPre::new(pre)?),
            Version::V0_3 => Pre::V0_3(v0_3::ShellHookPre::new(pre)?),
        })
    }

    fn engine(&self) -> &wasmtime::Engine {
        match self {
            Pre::V0_1(p) => p.engine(),
            Pre::V0_2(p) => p.engine(),
            Pre::V0_3(p) => p.engine(),
        }
    }

    async fn instantiate_async(&self, store: &mut Store<State>) -> wasmtime::Result<Instance> {
        Ok(match self {
            Pre::V0_1(p) => Instance::V0_1(p.instantiate_async(store).await?),
            Pre::V0_2(p) => Instance::V0_2(p.instantiate_async(store).await?),
            Pre::V0_3(p) => Instance::V0_3(p.instantiate_async(store).await?),
        })
    }
}

impl Instance {
    async fn validate_settings(&self, store: &mut Store<State>, settings: &str) -> wasmtime::Result<Result<(), String>> {
        match self {
            Instance::V0_1(h) => h.hookhost_hooks_handler().call_validate_settings(store, settings).await,
            Instance::V0_2(h) => h.hookhost_hooks_handler().call_validate_settings(store, settings).await,
            Instance::V0_3(h) => h.hookhost_hooks_handler().call_validate_settings(store, settings).await,
        }
    }

    async fn handle(&self, store: &mut Store<State>, event: wit::WitEvent, ctx: wit::Context) -> wasmtime::Result<Result<wit::WitDecision, String>> {
        match self {
            Instance::V0_1(h) => Ok(h.hookhost_hooks_handler().call_handle(store, &event.into(), &v0_1::context(ctx)).await?.map(Into::into)),
            Instance::V0_2(h) => h.hookhost_hooks_handler().call_handle(store, &event, &ctx).await,
            Instance::V0_3(h) => h.hookhost_hooks_handler().call_handle(store, &event, &ctx).await,
        }
    }
}

/// What one hook's instances may reach beyond their sandbox, as the host granted it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Access {
    /// `process.run` works (capability `process:exec`).
    pub process: bool,
    /// A directory preopened read-only at its own path (a converted peer hook's project, for
    /// the bash adapter's sandbox).
    pub read_dir: Option<PathBuf>,
    /// Hosts `wasi:http` requests may go to (capabilities `net:http:HOST[:PORT]`); empty:
    /// every request is denied.
    pub net: std::sync::Arc<[hookhost_types::spec::NetHost]>,
}

impl Plugin {
    /// The `hookhost:hooks/process` interface the component imports, if it does (it declares
    /// `process:exec`).
    pub fn process_import(&self) -> Option<&str> {
        self.imports.iter().map(String::as_str).find(|i| wit::is_process_import(i))
    }

    /// Whether it imports `hookhost:hooks/state` (0.3.0 and later): its calls get the session's
    /// state; others pay nothing for it.
    pub fn uses_state(&self) -> bool {
        self.state
    }
}

/// A plugin's bytes and how messages name it.
pub struct PluginSource<'a> {
    /// `builtin:name`, the file path, or `namespace/bundle:file`.
    pub name: String,
    /// The component bytes.
    pub bytes: Cow<'a, [u8]>,
    /// Their hex sha256 when already known (built-ins, bundle files); else computed on load.
    pub digest: Option<String>,
}

impl<'a> PluginSource<'a> {
    /// Where a hook's plugin comes from: a built-in, a verified bundle file, or a file read now.
    pub fn of(spec: &HookSpec, plan: &'a Plan) -> Result<PluginSource<'a>, LoadError> {
        let name = spec.plugin.to_string();
        if let Some(builtin) = spec.plugin.builtin_name() {
            let (bytes, digest) = crate::builtin::get(builtin).expect("built-in names are validated with the config");
            return Ok(PluginSource { name, bytes: Cow::Borrowed(bytes), digest: Some(digest.to_string()) });
        }
        match &spec.plugin {
            // An approved project's plugin: the bytes its approval hashed.
            PluginRef::Path(_) if plan.bundle_plugins().contains_key(&spec.plugin) => {
                let p = &plan.bundle_plugins()[&spec.plugin];
                Ok(PluginSource { name, bytes: Cow::Borrowed(&p.bytes[..]), digest: Some(p.digest.hex().to_string()) })
            }
            PluginRef::Path(path) => match std::fs::read(path) {
                Ok(b) => Ok(PluginSource { name, bytes: Cow::Owned(b), digest: None }),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(LoadError::PluginMissing { hook: spec.id.clone(), path: path.clone() }),
                Err(source) => Err(LoadError::PluginUnreadable { hook: spec.id.clone(), path: path.clone(), source }),
            },
            // A bundle's own file (its built-ins were handled above).
            _ => {
                let p = plan.bundle_plugins().get(&spec.plugin).expect("resolved with its bundle");
                Ok(PluginSource { name, bytes: Cow::Borrowed(&p.bytes[..]), digest: Some(p.digest.hex().to_string()) })
            }
        }
    }
}

/// Loads plugins onto one engine and linker, through one cache directory.
pub struct Loader {
    engine: Engine,
    linker: Linker<State>,
    /// `linker` with WASI, made when the first plugin that imports any of it loads.
    wasi_linker: std::sync::OnceLock<Result<Linker<State>, crate::error::EngineFailure>>,
    /// That with `wasi:http`, made when the first plugin that imports it loads.
    http_linker: std::sync::OnceLock<Result<Linker<State>, crate::error::EngineFailure>>,
    cache: Option<PathBuf>,
}

impl Loader {
    /// A loader for `engine`, caching compiled code in `cache`.
    pub fn new(engine: &Engine, cache: Option<PathBuf>) -> Result<Loader, LoadError> {
        let linker = linker(engine.wasmtime()).map_err(|e| LoadError::Engine { what: "cannot set up the linker", source: e.into() })?;
        Ok(Loader { engine: engine.clone(), linker, wasi_linker: std::sync::OnceLock::new(), http_linker: std::sync::OnceLock::new(), cache })
    }

    /// Load a plugin for `hook`: check the bytes are a component, compile it (or load it from
    /// the cache), check its exports and imports, pre-link it.
    pub fn load(&self, hook: &str, source: PluginSource<'_>) -> Result<Plugin, LoadError> {
        let PluginSource { name, bytes, digest } = source;
        let engine = self.engine.wasmtime();
        let not_component = |reason: String, fix: &'static str| LoadError::NotAComponent { hook: hook.into(), plugin: name.clone(), reason, fix };
        sniff(&bytes).map_err(|(reason, fix)| not_component(reason, fix))?;
        // What it imports is read before anything is compiled: a plugin hookhost cannot link
        // is refused in microseconds, not after a compile of seconds, and never cached.
        if let Some((import, why)) = outer_imports(&bytes).unwrap_or_default().into_iter().find_map(|i| unsupported(&i).map(|why| (i, why))) {
            return Err(LoadError::UnsupportedImport { hook: hook.into(), plugin: name, import, why });
        }
        let started = Instant::now();
        let digest = digest.unwrap_or_else(|| hookhost_types::ids::sha256_hex(&bytes));
        let (component, code, shared) = engine::load_component(engine, &name, &bytes, &digest, self.cache.as_deref())
            .map_err(|e| not_component(format!("it does not validate ({})", chain(&e)), "rebuild the plugin; the file may be truncated or corrupted"))?;
        let (version, imports) = check_shape(engine, &component, hook, &name)?;
        let linker = self.linker_for(&imports)?;
        let instance_pre = linker.instantiate_pre(&component).map_err(|e| LoadError::UnsupportedImport {
            hook: hook.into(),
            plugin: name.clone(),
            import: chain(&e),
            why: "hookhost cannot link it",
        })?;
        let pre = Pre::new(version, instance_pre).map_err(|e| LoadError::WrongWorld {
            hook: hook.into(),
            plugin: name.clone(),
            expected: version.handler_export(),
            found: chain(&e),
        })?;
        let wasi = imports.iter().any(|i| i.starts_with("wasi:"));
        // `state`'s calls are synchronous (LMDB, its lock wait held to the deadline): they
        // cannot park the guest.
        let parks = imports.iter().any(|i| !(i.starts_with("hookhost:hooks/types@") || i.starts_with("hookhost:hooks/log@") || i.starts_with("hookhost:hooks/state@")));
        let state = imports.iter().any(|i| i == wit::v0_3::STATE_IMPORT);
        Ok(Plugin { name, digest, size: bytes.len(), imports, load_time: started.elapsed(), code, wasi, parks, state, pre, _shared: shared })
    }

    /// The smallest linker that provides what a component imports.
    pub(crate) fn linker_for(&self, imports: &[String]) -> Result<&Linker<State>, LoadError> {
        if !imports.iter().any(|i| i.starts_with("wasi:")) {
            return Ok(&self.linker);
        }
        let wasi = self
            .wasi_linker
            .get_or_init(|| with_wasi(&self.linker).map_err(Into::into))
            .as_ref()
            .map_err(|e| LoadError::Engine { what: "cannot set up the WASI linker", source: e.clone() })?;
        if !imports.iter().any(|i| i.starts_with("wasi:http/")) {
            return Ok(wasi);
        }
        self.http_linker
            .get_or_init(|| with_http(wasi).map_err(Into::into))
            .as_ref()
            .map_err(|e| LoadError::Engine { what: "cannot set up the wasi:http linker", source: e.clone() })
    }
}

impl Plugin {
    /// Call `validate-settings` once, in a fresh store with the hook's limits.
    pub async fn validate_settings(&self, hook_id: &str, settings_json: &str, limits: &Limits, access: &Access) -> Result<Result<(), String>, HookError> {
        let settings = settings_json.to_string();
        let access = Access { process: false, ..access.clone() };
        self.run(hook_id, limits, &access, None, move |hook, store| Box::pin(async move {
            hook.validate_settings(store, &settings).await
        }))
        .await
        .0
    }

    /// Handle one event in a fresh instance and return only what it cost (for `check -v`).
    pub async fn usage_of(&self, hook_id: &str, call: wit::Call, limits: &Limits, access: &Access, kv: Option<crate::kv::ScopedState>) -> Result<Usage, HookError> {
        let (answer, usage) = self.handle(hook_id, call, limits, access, kv).await;
        answer.map(|_| usage)
    }

    /// Handle one event in a fresh instance, with this hook's state in the event's session
    /// (`kv`; none: every state call is `unavailable`). Returns the guest's answer and the
    /// usage figures.
    pub async fn handle(&self, hook_id: &str, call: wit::Call, limits: &Limits, access: &Access, kv: Option<crate::kv::ScopedState>) -> (Result<Decision, HookError>, Usage) {
        let (event, ctx, check) = call.split();
        let (answer, usage) = self
            .run(hook_id, limits, access, kv, move |hook, store| Box::pin(async move {
                hook.handle(store, event, ctx).await
            }))
            .await;
        let answer = match answer {
            Ok(Ok(d)) => check.decision(d).map_err(HookError::InvalidDecision),
            Ok(Err(message)) => Err(HookError::Guest(message)),
            Err(e) => Err(e),
        };
        (answer, usage)
    }

    /// A fresh store with the hook's limits: deny-by-default WASI with captured stdio (for a
    /// plugin that imports WASI), the memory limiter, fuel and the epoch deadline. Also returns
    /// the captured stderr.
    fn store(&self, hook_id: &str, limits: &Limits, access: &Access, kv: Option<crate::kv::ScopedState>, started: Instant) -> Result<(Store<State>, Option<MemoryOutputPipe>), HookError> {
        let (wasi, stderr) = if self.wasi {
            let stderr = MemoryOutputPipe::new(STDIO_CAP);
            let mut wasi = WasiCtx::builder();
            wasi.stdout(MemoryOutputPipe::new(STDIO_CAP)).stderr(stderr.clone());
            if let Some(dir) = &access.read_dir {
                let guest = dir.to_string_lossy();
                wasi.preopened_dir(dir, &guest, wasmtime_wasi::FsPerms::ReadOnly)
                    .map_err(|e| HookError::Instantiate(format!("cannot open the project directory {} for the sandbox: {e}", dir.display())))?;
            }
            (Some(wasi.build()), Some(stderr))
        } else {
            (None, None)
        };
        let process_granted = access.process;
        let state = State {
            wasi,
            table: ResourceTable::new(),
            limiter: MemoryLimiter { cap: limits.memory_bytes, peak: 0, hit: None },
            hook_id: hook_id.to_string(),
            log_left: LOG_CAP,
            log_capped: false,
            last_error: None,
            process_granted,
            deadline: started + limits.timeout,
            http: wasmtime_wasi_http::WasiHttpCtx::new(),
            net: crate::net::NetPolicy { hook_id: hook_id.to_string(), allowed: access.net.clone(), deadline: started + limits.timeout },
            kv,
        };
        let mut store = Store::new(self.pre.engine(), state);
        store.limiter(|s| &mut s.limiter);
        store.set_fuel(limits.fuel).map_err(|e| HookError::Instantiate(first_line(&e)))?;
        store.set_epoch_deadline(engine::ticks_for(limits.timeout));
        store.epoch_deadline_trap();
        Ok((store, stderr))
    }

    /// Instantiate, handle one event, and keep the instance alive (the benchmarks measure the
    /// resident memory of live instances with this).
    #[cfg(feature = "testing")]
    pub(crate) async fn handle_and_keep(&self, call: wit::Call, limits: &Limits) -> Result<impl Send, HookError> {
        let (mut store, _stderr) = self.store("bench", limits, &Access::default(), None, Instant::now())?;
        let hook = self.pre.instantiate_async(&mut store).await.map_err(|e| HookError::Instantiate(first_line(&e)))?;
        let (event, ctx, _) = call.split();
        hook.handle(&mut store, event, ctx).await.map_err(|e| HookError::Trap(first_line(&e)))?.map_err(HookError::Guest)?;
        Ok((store, hook))
    }

    /// Create a fresh store (deny-by-default WASI, limiter, fuel, deadline) and drop it, without
    /// instantiating: what the host itself adds to every call.
    #[cfg(feature = "testing")]
    pub(crate) fn store_only(&self, limits: &Limits) -> Result<(), HookError> {
        self.store("bench", limits, &Access::default(), None, Instant::now()).map(drop)
    }

    /// Create a fresh store and instantiate, calling nothing (the benchmarks' floor).
    #[cfg(feature = "testing")]
    pub(crate) async fn instantiate_only(&self, limits: &Limits) -> Result<(), HookError> {
        let (mut store, _stderr) = self.store("bench", limits, &Access::default(), None, Instant::now())?;
        self.pre.instantiate_async(&mut store).await.map_err(|e| HookError::Instantiate(first_line(&e)))?;
        Ok(())
    }

    async fn run<R: Send + 'static>(
        &self,
        hook_id: &str,
        limits: &Limits,
        access: &Access,
        kv: Option<crate::kv::ScopedState>,
        call: impl for<'a> FnOnce(&'a Instance, &'a mut Store<State>) -> std::pin::Pin<Box<dyn std::future::Future<Output = wasmtime::Result<R>> + Send + 'a>> + Send,
    ) -> (Result<R, HookError>, Usage) {
        let started = Instant::now();
        let (mut store, stderr) = match self.store(hook_id, limits, access, kv, started) {
            Ok(s) => s,
            Err(e) => return (Err(e), Usage::default()),
        };
        let work = async {
            let hook = self.pre.instantiate_async(&mut store).await.map_err(|e| (e, true))?;
            call(&hook, &mut store).await.map_err(|e| (e, false))
        };
        // The epoch deadline stops wasm that runs; a timer also stops a guest parked in an
        // async host call, where it can park in one.
        let outcome = if self.parks { tokio::time::timeout(limits.timeout, work).await } else { Ok(work.await) };
        let fuel_left = store.get_fuel().unwrap_or(0);
        let usage = Usage {
            duration: started.elapsed(),
            fuel: limits.fuel.saturating_sub(fuel_left),
            peak_memory: store.data().limiter.peak,
        };
        let result = match outcome {
            Err(_elapsed) => Err(HookError::Timeout(limits.timeout)),
            Ok(Ok(r)) => Ok(r),
            Ok(Err((e, instantiating))) => {
                let state = store.data();
                let stderr = stderr.map(|pipe| pipe.contents()).unwrap_or_default();
                Err(classify(&e, instantiating, limits, state.limiter.hit, &stderr, state.last_error.as_deref()))
            }
        };
        (result, usage)
    }
}

/// Usage figures of one invocation.
#[derive(Debug, Clone, Copy, Default)]
pub struct Usage {
    pub duration: std::time::Duration,
    pub fuel: u64,
    pub peak_memory: usize,
}

/// A load-time error with its whole cause chain, on one line.
fn chain(e: &wasmtime::Error) -> String {
    format!("{e:#}").lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ")
}

/// The first line of a run-time error: a trap's message without its wasm backtrace (the audit
/// record and the trace carry what the hook did; the backtrace is for `HOOKHOST_LOG=debug`).
fn first_line(e: &wasmtime::Error) -> String {
    let text = format!("{e:#}");
    text.lines().next().unwrap_or_default().to_string()
}

/// Turn a wasmtime error into a typed hook error, with the guest's stderr tail (panic text) or,
/// from a guest without stderr, its last error-level log line.
fn classify(e: &wasmtime::Error, instantiating: bool, limits: &Limits, memory_hit: Option<usize>, stderr: &[u8], last_error: Option<&str>) -> HookError {
    if let Some(wanted) = memory_hit {
        return HookError::MemoryLimit { limit: limits.memory_bytes, wanted };
    }
    match e.downcast_ref::<Trap>() {
        Some(Trap::OutOfFuel) => return HookError::OutOfFuel(limits.fuel),
        Some(Trap::Interrupt) => return HookError::Timeout(limits.timeout),
        _ => {}
    }
    if instantiating && e.downcast_ref::<Trap>().is_none() {
        return HookError::Instantiate(first_line(e));
    }
    let mut msg = match e.downcast_ref::<Trap>() {
        Some(trap) => trap.to_string(),
        None => first_line(e),
    };
    let stderr = String::from_utf8_lossy(stderr);
    let tail: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty() && !l.starts_with("note:")).collect();
    if !tail.is_empty() {
        let text = hookhost_types::text::printable(&tail.join(" | ")).into_owned();
        let cut = text.char_indices().nth(500).map_or(text.len(), |(i, _)| i);
        msg.push_str(&format!(" (guest stderr: {})", &text[..cut]));
    } else if let Some(line) = last_error {
        let cut = line.char_indices().nth(500).map_or(line.len(), |(i, _)| i);
        msg.push_str(&format!(" (guest log: {})", &line[..cut]));
    }
    HookError::Trap(msg)
}

#[cfg(test)]
mod tests;
