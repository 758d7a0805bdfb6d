//! What a plugin's instances run with: the per-store state (deny-by-default WASI, the memory
//! limiter, the log budget, the process and network grants), the host side of the contract's
//! imports (`log`, `process`, `state`) at every version served, and the linkers.

use super::LOG_CAP;
use crate::wit::{v0_1, v0_2, v0_3};
use std::time::Instant;
use wasmtime::component::{Linker, ResourceTable};
use wasmtime::ResourceLimiter;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

/// Per-store data: deny-by-default WASI, the limiter and the log budget.
pub(crate) struct State {
    /// Deny-by-default WASI with captured stdio, for plugins that import WASI; `None` for the
    /// others, which never reach it (WASI is not even linked for them).
    pub(super) wasi: Option<WasiCtx>,
    pub(super) table: ResourceTable,
    pub(super) limiter: MemoryLimiter,
    pub(super) hook_id: String,
    pub(super) log_left: usize,
    /// The "cap reached" note has been logged.
    pub(super) log_capped: bool,
    /// The last error-level line the guest logged: where a lean guest (no stderr) puts its
    /// panic message, which a trap's error then carries.
    pub(super) last_error: Option<String>,
    /// Whether this hook may call `process.run` (capability `process:exec`).
    pub(super) process_granted: bool,
    /// When the invocation's time is up.
    pub(super) deadline: Instant,
    pub(super) http: wasmtime_wasi_http::WasiHttpCtx,
    /// Where `wasi:http` requests may go.
    pub(super) net: crate::net::NetPolicy,
    /// This hook's state in the session of the event it handles (`hookhost:hooks/state`); none
    /// outside an event (`validate-settings`).
    pub(super) kv: Option<crate::kv::ScopedState>,
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

impl v0_2::hookhost::hooks::types::Host for State {}
impl v0_1::hookhost::hooks::types::Host for State {}

impl v0_2::process::Host for State {
    async fn run(&mut self, cmd: v0_2::process::Command) -> Result<v0_2::process::Output, String> {
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
        Ok(v0_2::process::Output {
            status: out.status,
            signal: out.signal,
            stdout: out.stdout,
            stderr: out.stderr,
            timed_out: out.timed_out,
            truncated: out.truncated,
        })
    }
}

impl State {
    /// Run one state call on this hook's scope, bounded by its deadline.
    fn kv<R>(&mut self, call: impl FnOnce(&crate::kv::StateStore, &crate::kv::Scope, Option<Instant>) -> Result<R, crate::kv::StateError>) -> Result<R, v0_3::state::StateError> {
        use crate::kv::StateError as E;
        use v0_3::state::StateError as W;
        let deadline = self.deadline;
        let Some(kv) = &mut self.kv else {
            return Err(W::Unavailable("state is kept per session: there is none while a hook's settings are validated".into()));
        };
        let store = kv.store.clone();
        call(&store, kv.scope(), Some(deadline)).map_err(|e| match e {
            E::Quota(m) => W::Quota(m),
            E::Invalid(m) => W::Invalid(m),
            E::Unavailable(m) => W::Unavailable(m),
        })
    }
}

/// A TTL in seconds from the guest (0 means as short as the store keeps: one second).
fn ttl(seconds: Option<u32>) -> Option<std::time::Duration> {
    seconds.map(|s| std::time::Duration::from_secs(u64::from(s)))
}

impl v0_3::state::Host for State {
    fn get(&mut self, key: String) -> Result<Option<String>, v0_3::state::StateError> {
        self.kv(|store, scope, deadline| store.get(scope, &key, deadline))
    }

    fn set(&mut self, key: String, value: String, ttl_seconds: Option<u32>) -> Result<(), v0_3::state::StateError> {
        self.kv(|store, scope, deadline| store.set(scope, &key, &value, ttl(ttl_seconds), deadline))
    }

    fn delete(&mut self, key: String) -> Result<(), v0_3::state::StateError> {
        self.kv(|store, scope, deadline| store.delete(scope, &key, deadline))
    }

    fn incr(&mut self, key: String, delta: i64, ttl_seconds: Option<u32>) -> Result<i64, v0_3::state::StateError> {
        self.kv(|store, scope, deadline| store.incr(scope, &key, delta, ttl(ttl_seconds), deadline))
    }

    fn keys(&mut self, prefix: String) -> Result<Vec<String>, v0_3::state::StateError> {
        self.kv(|store, scope, deadline| store.keys(scope, &prefix, deadline))
    }
}

impl v0_2::log::Host for State {
    fn log(&mut self, level: v0_2::log::Level, message: String) {
        use v0_2::log::Level;
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
pub(super) struct MemoryLimiter {
    pub(super) cap: usize,
    pub(super) peak: usize,
    /// The size a refused growth asked for, once the cap was hit.
    pub(super) hit: Option<usize>,
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
    // Every version served, side by side: their interfaces have distinct names.
    v0_2::ShellHook::add_to_linker::<State, wasmtime::component::HasSelf<State>>(&mut linker, |s| s)?;
    // 0.1.0: its own `types`; `log` and `process` are 0.2.0's (`wit::v0_1`), linked under
    // 0.1.0's names.
    v0_1::hookhost::hooks::types::add_to_linker::<State, wasmtime::component::HasSelf<State>>(&mut linker, |s| s)?;
    v0_2::log::add_to_linker_instance::<State, wasmtime::component::HasSelf<State>>(&mut linker.instance(v0_1::LOG_IMPORT)?, |s| s)?;
    v0_2::process::add_to_linker_instance::<State, wasmtime::component::HasSelf<State>>(&mut linker.instance(v0_1::PROCESS_IMPORT)?, |s| s)?;
    // 0.3.0: 0.2.0's `types`, `log` and `process` under 0.3.0's names, and its own `state`.
    linker.instance(v0_3::TYPES_IMPORT)?;
    v0_2::log::add_to_linker_instance::<State, wasmtime::component::HasSelf<State>>(&mut linker.instance(v0_3::LOG_IMPORT)?, |s| s)?;
    v0_2::process::add_to_linker_instance::<State, wasmtime::component::HasSelf<State>>(&mut linker.instance(v0_3::PROCESS_IMPORT)?, |s| s)?;
    v0_3::state::add_to_linker::<State, wasmtime::component::HasSelf<State>>(&mut linker, |s| s)?;
    Ok(linker)
}

/// `base` plus deny-by-default WASI 0.2. Kept apart because it is most of the linker's set-up
/// time, which a one-shot run of lean plugins (no WASI imports: the built-ins) need not pay.
pub(super) fn with_wasi(base: &Linker<State>) -> wasmtime::Result<Linker<State>> {
    let mut linker = base.clone();
    wasmtime_wasi::p2::add_to_linker_async(&mut linker)?;
    Ok(linker)
}

/// `with_wasi`'s linker plus `wasi:http` (deny-by-default: [`crate::net::NetPolicy`] decides
/// each request).
pub(super) fn with_http(wasi: &Linker<State>) -> wasmtime::Result<Linker<State>> {
    let mut linker = wasi.clone();
    wasmtime_wasi_http::p2::add_only_http_to_linker_async(&mut linker)?;
    Ok(linker)
}

