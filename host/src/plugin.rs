//! Loading a plugin (read, check it is a component of the right world with only provided
//! imports, compile or load from cache, pre-link) and invoking it in a fresh, limited store.

use crate::engine::{self, Engine};
use crate::error::{HookError, LoadError};
use crate::wit::{self, ShellHook as Hook, ShellHookPre as HookPre};
use hookhost_types::Decision;
use hookhost_config::Plan;
use hookhost_types::spec::{HookSpec, Limits, PluginRef};
use std::borrow::Cow;
use std::path::PathBuf;
use std::time::Instant;
use wasmtime::component::{Component, Linker, ResourceTable};
use wasmtime::{ResourceLimiter, Store, Trap};
use wasmtime_wasi::p2::pipe::MemoryOutputPipe;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

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
    pre: HookPre<State>,
    /// Its compiled code, shared with every plugin of the same bytes on this engine.
    _shared: engine::SharedCode,
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

/// Per-store data: deny-by-default WASI, the limiter and the log budget.
pub(crate) struct State {
    /// Deny-by-default WASI with captured stdio, for plugins that import WASI; `None` for the
    /// others, which never reach it (WASI is not even linked for them).
    wasi: Option<WasiCtx>,
    table: ResourceTable,
    limiter: MemoryLimiter,
    hook_id: String,
    log_left: usize,
    /// The "cap reached" note has been logged.
    log_capped: bool,
    /// The last error-level line the guest logged: where a lean guest (no stderr) puts its
    /// panic message, which a trap's error then carries.
    last_error: Option<String>,
    /// Whether this hook may call `process.run` (capability `process:exec`).
    process_granted: bool,
    /// When the invocation's time is up.
    deadline: Instant,
    http: wasmtime_wasi_http::WasiHttpCtx,
    /// Where `wasi:http` requests may go.
    net: crate::net::NetPolicy,
}

impl WasiView for State {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        // Only plugins that import WASI are linked to it, and their stores have a context; an
        // empty one (no stdio, files, network or environment) would be as closed.
        let ctx = self.wasi.get_or_insert_with(|| WasiCtx::builder().build());
        WasiCtxView { ctx, table: &mut self.table }
    }
}

impl wasmtime_wasi_http::WasiHttpView for State {
    fn http(&mut self) -> wasmtime_wasi_http::WasiHttpCtxView<'_> {
        wasmtime_wasi_http::WasiHttpCtxView { ctx: &mut self.http, table: &mut self.table, hooks: &mut self.net }
    }
}

impl wit::hookhost::hooks::types::Host for State {}

impl wit::hookhost::hooks::process::Host for State {
    async fn run(&mut self, cmd: wit::hookhost::hooks::process::Command) -> Result<wit::hookhost::hooks::process::Output, String> {
        // Checked at load too; this is the second lock on the same door.
        if !self.process_granted {
            return Err(format!("{}: the process:exec capability is not granted to this hook", self.hook_id));
        }
        let out = crate::process::run(
            crate::process::Command {
                argv: cmd.argv,
                env: cmd.env,
                stdin: cmd.stdin,
                cwd: cmd.cwd,
                timeout: std::time::Duration::from_millis(u64::from(cmd.timeout_ms)),
                payload: cmd.payload.map(|p| (p.env_var, p.contents)),
            },
            self.deadline,
        )
        .await?;
        Ok(wit::hookhost::hooks::process::Output {
            status: out.status,
            signal: out.signal,
            stdout: out.stdout,
            stderr: out.stderr,
            timed_out: out.timed_out,
            truncated: out.truncated,
        })
    }
}

impl wit::hookhost::hooks::log::Host for State {
    fn log(&mut self, level: wit::hookhost::hooks::log::Level, message: String) {
        use wit::hookhost::hooks::log::Level;
        if self.log_left == 0 {
            if !self.log_capped {
                self.log_capped = true;
                tracing::warn!(target: "hookhost::guest", hook = self.hook_id.as_str(), "(log cap of {LOG_CAP} bytes per call reached; the rest is dropped)");
            }
            return;
        }
        let message = if message.len() > self.log_left {
            self.log_capped = true;
            let mut cut = self.log_left;
            while !message.is_char_boundary(cut) {
                cut -= 1;
            }
            self.log_left = 0;
            format!("{}… (log cap of {LOG_CAP} bytes per call reached; the rest is dropped)", &message[..cut])
        } else {
            self.log_left -= message.len();
            message
        };
        let hook = self.hook_id.as_str();
        // One inert line, whatever the guest sent: no forged log lines, no terminal escapes.
        let message = hookhost_types::text::printable(&message);
        match level {
            Level::Trace => tracing::trace!(target: "hookhost::guest", hook, "{message}"),
            Level::Debug => tracing::debug!(target: "hookhost::guest", hook, "{message}"),
            Level::Info => tracing::info!(target: "hookhost::guest", hook, "{message}"),
            Level::Warn => tracing::warn!(target: "hookhost::guest", hook, "{message}"),
            Level::Error => {
                tracing::error!(target: "hookhost::guest", hook, "{message}");
                self.last_error = Some(message.into_owned());
            }
        }
    }
}

/// Caps linear memory and records the peak; growing past the cap traps with a typed error.
struct MemoryLimiter {
    cap: usize,
    peak: usize,
    /// The size a refused growth asked for, once the cap was hit.
    hit: Option<usize>,
}

#[derive(Debug, thiserror::Error)]
#[error("memory limit exceeded")]
struct MemoryLimitHit;

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(&mut self, _current: usize, desired: usize, _max: Option<usize>) -> wasmtime::Result<bool> {
        if desired > self.cap {
            self.hit = Some(desired);
            return Err(MemoryLimitHit.into());
        }
        self.peak = self.peak.max(desired);
        Ok(true)
    }

    fn table_growing(&mut self, _current: usize, desired: usize, _max: Option<usize>) -> wasmtime::Result<bool> {
        Ok(desired <= 100_000)
    }
}

/// The linker every plugin links against: `hookhost:hooks/*`. [`with_wasi`] and [`with_http`]
/// add the rest for the plugins that import it.
pub(crate) fn linker(engine: &wasmtime::Engine) -> wasmtime::Result<Linker<State>> {
    let mut linker = Linker::new(engine);
    Hook::add_to_linker::<State, wasmtime::component::HasSelf<State>>(&mut linker, |s| s)?;
    Ok(linker)
}

/// `base` plus deny-by-default WASI 0.2. Kept apart because it is most of the linker's set-up
/// time, which a one-shot run of lean plugins (no WASI imports: the built-ins) need not pay.
fn with_wasi(base: &Linker<State>) -> wasmtime::Result<Linker<State>> {
    let mut linker = base.clone();
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
    Ok(linker)
}

/// `with_wasi`'s linker plus `wasi:http` (deny-by-default: [`crate::net::NetPolicy`] decides
/// each request).
fn with_http(wasi: &Linker<State>) -> wasmtime::Result<Linker<State>> {
    let mut linker = wasi.clone();
    wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker)?;
    Ok(linker)
}

impl Plugin {
    /// The component imports `hookhost:hooks/process` (it declares `process:exec`).
    pub fn imports_process(&self) -> bool {
        self.imports.iter().any(|i| i == wit::PROCESS_IMPORT)
    }
}

/// What is wrong with bytes that should be a component, if anything.
fn sniff(bytes: &[u8]) -> Result<(), (String, &'static str)> {
    if bytes.len() < 8 || &bytes[..4] != b"\0asm" {
        let reason = if bytes.is_empty() { "the file is empty".to_string() } else { "the file does not start with the wasm magic bytes".to_string() };
        return Err((reason, "point executor.plugin at a .wasm component built for wasm32-wasip2"));
    }
    match bytes[4..8] {
        [0x0d, 0x00, 0x01, 0x00] => Ok(()),
        [0x01, 0x00, 0x00, 0x00] => Err((
            "it is a core wasm module".into(),
            "build for wasm32-wasip2 (which emits components) or wrap it with `wasm-tools component new`",
        )),
        _ => Err(("unknown wasm binary version".into(), "rebuild it with a current toolchain for wasm32-wasip2")),
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
            PluginRef::Path(_) if plan.bundle_plugins.contains_key(&spec.plugin) => {
                let p = &plan.bundle_plugins[&spec.plugin];
                Ok(PluginSource { name, bytes: Cow::Borrowed(&p.bytes[..]), digest: Some(p.digest.hex().to_string()) })
            }
            PluginRef::Path(path) => match std::fs::read(path) {
                Ok(b) => Ok(PluginSource { name, bytes: Cow::Owned(b), digest: None }),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(LoadError::PluginMissing { hook: spec.id.clone(), path: path.clone() }),
                Err(source) => Err(LoadError::PluginUnreadable { hook: spec.id.clone(), path: path.clone(), source }),
            },
            // A bundle's own file (its built-ins were handled above).
            _ => {
                let p = plan.bundle_plugins.get(&spec.plugin).expect("resolved with its bundle");
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
        let imports = check_shape(engine, &component, hook, &name)?;
        let linker = self.linker_for(&imports)?;
        let instance_pre = linker.instantiate_pre(&component).map_err(|e| LoadError::UnsupportedImport {
            hook: hook.into(),
            plugin: name.clone(),
            import: chain(&e),
            why: "hookhost cannot link it",
        })?;
        let pre = HookPre::new(instance_pre).map_err(|e| LoadError::WrongWorld {
            hook: hook.into(),
            plugin: name.clone(),
            expected: wit::HANDLER_EXPORT,
            found: chain(&e),
        })?;
        let wasi = imports.iter().any(|i| i.starts_with("wasi:"));
        let parks = imports.iter().any(|i| !(i.starts_with("hookhost:hooks/types@") || i.starts_with("hookhost:hooks/log@")));
        Ok(Plugin { name, digest, size: bytes.len(), imports, load_time: started.elapsed(), code, wasi, parks, pre, _shared: shared })
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
        self.run(hook_id, limits, &access, move |hook, store| Box::pin(async move {
            hook.hookhost_hooks_handler().call_validate_settings(store, &settings).await
        }))
        .await
        .0
    }

    /// Handle one event in a fresh instance and return only what it cost (for `check -v`).
    pub async fn usage_of(&self, hook_id: &str, call: wit::Call, limits: &Limits, access: &Access) -> Result<Usage, HookError> {
        let (answer, usage) = self.handle(hook_id, call, limits, access).await;
        answer.map(|_| usage)
    }

    /// Handle one event in a fresh instance. Returns the guest's answer and the usage figures.
    pub async fn handle(&self, hook_id: &str, call: wit::Call, limits: &Limits, access: &Access) -> (Result<Decision, HookError>, Usage) {
        let (event, ctx, check) = call.split();
        let (answer, usage) = self
            .run(hook_id, limits, access, move |hook, store| Box::pin(async move {
                hook.hookhost_hooks_handler().call_handle(store, &event, &ctx).await
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
    fn store(&self, hook_id: &str, limits: &Limits, access: &Access, started: Instant) -> Result<(Store<State>, Option<MemoryOutputPipe>), HookError> {
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
        let (mut store, _stderr) = self.store("bench", limits, &Access::default(), Instant::now())?;
        let hook = self.pre.instantiate_async(&mut store).await.map_err(|e| HookError::Instantiate(first_line(&e)))?;
        let (event, ctx, _) = call.split();
        hook.hookhost_hooks_handler().call_handle(&mut store, &event, &ctx).await.map_err(|e| HookError::Trap(first_line(&e)))?.map_err(HookError::Guest)?;
        Ok((store, hook))
    }

    /// Create a fresh store (deny-by-default WASI, limiter, fuel, deadline) and drop it, without
    /// instantiating: what the host itself adds to every call.
    #[cfg(feature = "testing")]
    pub(crate) fn store_only(&self, limits: &Limits) -> Result<(), HookError> {
        self.store("bench", limits, &Access::default(), Instant::now()).map(drop)
    }

    /// Create a fresh store and instantiate, calling nothing (the benchmarks' floor).
    #[cfg(feature = "testing")]
    pub(crate) async fn instantiate_only(&self, limits: &Limits) -> Result<(), HookError> {
        let (mut store, _stderr) = self.store("bench", limits, &Access::default(), Instant::now())?;
        self.pre.instantiate_async(&mut store).await.map_err(|e| HookError::Instantiate(first_line(&e)))?;
        Ok(())
    }

    async fn run<R: Send + 'static>(
        &self,
        hook_id: &str,
        limits: &Limits,
        access: &Access,
        call: impl for<'a> FnOnce(&'a Hook, &'a mut Store<State>) -> std::pin::Pin<Box<dyn std::future::Future<Output = wasmtime::Result<R>> + Send + 'a>> + Send,
    ) -> (Result<R, HookError>, Usage) {
        let started = Instant::now();
        let (mut store, stderr) = match self.store(hook_id, limits, access, started) {
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

/// Whether a component imports `hookhost:hooks/process`, read from its bytes without compiling
/// it, so a missing capability is refused before anything is compiled or cached. Bytes that do
/// not parse say no (compiling them then fails with its own message); the compiled component's
/// imports are checked again at load.
pub(crate) fn imports_process(bytes: &[u8]) -> bool {
    outer_imports(bytes).is_some_and(|imports| imports.iter().any(|i| i == wit::PROCESS_IMPORT))
}

/// The names a component imports, read from its own import sections without compiling it;
/// `None` when the bytes do not parse that far.
pub(crate) fn outer_imports(bytes: &[u8]) -> Option<Vec<String>> {
    use wasmparser::{Chunk, Parser, Payload};
    // Only the outer component's own imports matter: nested modules and components are linked
    // inside it, so they are stepped over whole rather than parsed (a 12 MB plugin is almost
    // all nested module code).
    let mut parser = Parser::new(0);
    let mut data = bytes;
    let mut imports = Vec::new();
    loop {
        let (consumed, skip) = match parser.parse(data, true).ok()? {
            Chunk::Parsed { consumed, payload } => match payload {
                Payload::ComponentImportSection(reader) => {
                    for import in reader {
                        imports.push(import.ok()?.name.name.to_string());
                    }
                    (consumed, 0)
                }
                Payload::ModuleSection { unchecked_range, .. } | Payload::ComponentSection { unchecked_range, .. } => (consumed, usize::try_from(unchecked_range.end - unchecked_range.start).ok()?),
                Payload::End(_) => return Some(imports),
                _ => (consumed, 0),
            },
            Chunk::NeedMoreData(_) => return None,
        };
        data = data.get(consumed + skip..)?;
    }
}

/// Why hookhost cannot link an import, if it cannot: it provides WASI 0.2 (every interface
/// `wasmtime-wasi` and `wasmtime-wasi-http` implement, deny-by-default) and its own
/// `hookhost:hooks` interfaces.
fn unsupported(import: &str) -> Option<&'static str> {
    if import == wit::PROCESS_IMPORT || import == wit::LOG_IMPORT || import == wit::TYPES_IMPORT {
        return None;
    }
    if let Some(rest) = import.strip_prefix("wasi:") {
        return match rest.split_once('@').map(|(_, version)| version) {
            Some(version) if !version.starts_with("0.2.") => Some("it is not WASI 0.2, the version hookhost links"),
            _ => None,
        };
    }
    if import.starts_with("hookhost:hooks/") {
        return Some("it is not an interface of the hook contract this hookhost speaks");
    }
    Some("hookhost does not provide it")
}

/// Check the component's exports and imports before linking, so the error says exactly what is
/// wrong (Spin's `HandlerType::from_instance_pre` idea). Returns what it imports.
fn check_shape(engine: &wasmtime::Engine, component: &Component, hook: &str, name: &str) -> Result<Vec<String>, LoadError> {
    let ty = component.component_type();
    let exports: Vec<String> = ty.exports(engine).map(|(n, _)| n.to_string()).collect();
    if !exports.iter().any(|n| n == wit::HANDLER_EXPORT) {
        // The same interface at another version: say so, rather than "wrong world".
        let unversioned = wit::HANDLER_EXPORT.split('@').next().unwrap_or_default();
        if let Some(other) = exports.iter().find(|n| n.split('@').next() == Some(unversioned)) {
            let package = |export: &str| export.replace("/handler", "");
            return Err(LoadError::WitVersion { hook: hook.into(), plugin: name.into(), expected: wit::PACKAGE, found: package(other) });
        }
        return Err(LoadError::WrongWorld {
            hook: hook.into(),
            plugin: name.into(),
            expected: wit::HANDLER_EXPORT,
            found: exports.join(", "),
        });
    }
    let mut imports = Vec::new();
    for (import, _) in ty.imports(engine) {
        if let Some(why) = unsupported(import) {
            return Err(LoadError::UnsupportedImport { hook: hook.into(), plugin: name.into(), import: import.into(), why });
        }
        imports.push(import.to_string());
    }
    Ok(imports)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookhost_types::HookEvent;

    /// Read from the outer component's import section, nested modules stepped over.
    #[test]
    fn imports_process_reads_the_outer_imports_only() {
        assert!(imports_process(crate::builtin::get("bash-adapter").unwrap().0));
        assert!(!imports_process(crate::builtin::get("guard-destructive").unwrap().0));
        assert!(!imports_process(b"\0asm\x0d\0\x01\0garbage"), "bytes that do not parse say no");
    }

    #[test]
    fn what_hookhost_links_and_what_it_refuses() {
        for ok in ["wasi:cli/environment@0.2.6", "wasi:http/outgoing-handler@0.2.0", "wasi:io/streams@0.2.3", wit::LOG_IMPORT, wit::TYPES_IMPORT, wit::PROCESS_IMPORT] {
            assert_eq!(unsupported(ok), None, "{ok}");
        }
        assert_eq!(unsupported("wasi:cli/environment@0.3.0"), Some("it is not WASI 0.2, the version hookhost links"));
        assert_eq!(unsupported("hookhost:hooks/secrets@0.1.0"), Some("it is not an interface of the hook contract this hookhost speaks"));
        assert_eq!(unsupported("acme:probe/telemetry"), Some("hookhost does not provide it"));
        let adapter = outer_imports(crate::builtin::get("bash-adapter").unwrap().0).unwrap();
        assert!(adapter.iter().any(|i| i == wit::PROCESS_IMPORT) && adapter.iter().all(|i| unsupported(i).is_none()), "{adapter:?}");
    }

    /// A loader links WASI only once a plugin imports it: the lean built-ins load (and run)
    /// without it; the bash adapter (wasm32-wasip2) brings it in.
    #[tokio::test]
    async fn wasi_is_linked_only_for_the_plugins_that_import_it() {
        let loader = Loader::new(&Engine::shared().unwrap(), hookhost_types::paths::cache_dir(None)).unwrap();
        let load = |name: &str| {
            let (bytes, digest) = crate::builtin::get(name).unwrap();
            loader.load("user:h", PluginSource { name: format!("builtin:{name}"), bytes: bytes.into(), digest: Some(digest.into()) }).unwrap()
        };
        let guard = load("guard-destructive");
        let redactor = load("redact-secrets");
        assert!(loader.wasi_linker.get().is_none(), "lean plugins import no WASI: {:?} {:?}", guard.imports, redactor.imports);
        let limits = Limits { timeout: std::time::Duration::from_secs(5), fuel: 100_000_000, memory_bytes: 64 << 20 };
        let call = wit::Call::new(&HookEvent::pre_tool_use("bash", serde_json::json!({"command": "rm -rf /"})), "user:h", "{}", 0);
        let decision = guard.handle("user:h", call, &limits, &Access::default()).await.0.unwrap();
        assert_eq!(decision.verdict.kind, hookhost_types::VerdictKind::Block, "{decision:?}");
        let adapter = load("bash-adapter");
        assert!(adapter.imports.iter().any(|i| i.starts_with("wasi:cli/")));
        assert!(loader.wasi_linker.get().is_some_and(Result::is_ok));
        let http = adapter.imports.iter().any(|i| i.starts_with("wasi:http/"));
        assert_eq!(loader.http_linker.get().is_some(), http, "wasi:http is linked only for a plugin that imports it");
    }

    /// Compiled code is kept per engine: two engines with different settings load the same bytes
    /// and each runs them (code compiled for one engine is never handed to the other), and the
    /// code goes when the last plugin holding it does.
    #[tokio::test]
    async fn code_is_shared_per_engine_and_freed_with_its_last_plugin() {
        let (bytes, digest) = crate::builtin::get("guard-destructive").unwrap();
        let limits = Limits { timeout: std::time::Duration::from_secs(5), fuel: 100_000_000, memory_bytes: 64 << 20 };
        let rm = || wit::Call::new(&HookEvent::pre_tool_use("bash", serde_json::json!({"command": "rm -rf /"})), "user:h", "{}", 0);
        let pooled = Engine::new().unwrap();
        let on_demand = Engine::one_shot().unwrap();
        let mut plugins = Vec::new();
        for engine in [&pooled, &on_demand, &pooled] {
            let loader = Loader::new(engine, None).unwrap();
            let plugin = loader.load("user:h", PluginSource { name: "builtin:guard-destructive".into(), bytes: bytes.into(), digest: Some(digest.into()) }).unwrap();
            let decision = plugin.handle("user:h", rm(), &limits, &Access::default()).await.0.unwrap();
            assert_eq!(decision.verdict.kind, hookhost_types::VerdictKind::Block, "{decision:?}");
            plugins.push(plugin);
        }
        assert_eq!((engine::loaded_on(pooled.wasmtime()), engine::loaded_on(on_demand.wasmtime())), (1, 1), "one copy per engine, shared by its plugins");
        plugins.pop();
        plugins.remove(0);
        assert_eq!(engine::loaded_on(pooled.wasmtime()), 0, "no plugin of the pooled engine holds the code: it is freed");
        assert_eq!(engine::loaded_on(on_demand.wasmtime()), 1);
        drop(plugins);
        assert_eq!(engine::loaded_on(on_demand.wasmtime()), 0);
    }

    /// The grant is checked again when the guest calls `process.run`: the bash adapter asked to
    /// run a host process by a hook that was not granted `process:exec` gets a refusal, and no
    /// process starts.
    #[tokio::test]
    async fn process_run_rechecks_the_grant() {
        let (bytes, digest) = crate::builtin::get("bash-adapter").unwrap();
        // The user's cache, shared with the other tests that load the adapter (a compile is slow).
        let loader = Loader::new(&Engine::shared().unwrap(), hookhost_types::paths::cache_dir(None)).unwrap();
        let source = PluginSource { name: "builtin:bash-adapter".into(), bytes: bytes.into(), digest: Some(digest.into()) };
        let plugin = loader.load("user:h", source).unwrap();
        assert!(plugin.imports_process());
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("ran");
        let settings = serde_json::json!({"mode": "host", "dialect": "claude-code", "argv": ["touch", marker.display().to_string()]}).to_string();
        let limits = Limits { timeout: std::time::Duration::from_secs(5), fuel: 1_000_000_000, memory_bytes: 128 << 20 };
        let run = |granted: bool| {
            let call = wit::Call::new(&HookEvent::pre_tool_use("bash", serde_json::json!({"command": "ls"})), "user:h", &settings, 0);
            let plugin = &plugin;
            async move { plugin.handle("user:h", call, &limits, &Access { process: granted, read_dir: None, net: Default::default() }).await.0 }
        };
        let refused = match run(false).await {
            Err(HookError::Guest(message)) => message,
            other => panic!("the adapter reports the refusal as its error, got {other:?}"),
        };
        assert!(refused.contains("user:h: the process:exec capability is not granted to this hook"), "{refused}");
        assert!(!marker.exists(), "no process ran");
        // The same call with the grant runs the process.
        run(true).await.unwrap();
        assert!(marker.exists());
    }
}
