//! Entry points for the benchmarks in `host/benches` (not a stable API): they reach below
//! `Host` to time one layer at a time.

use crate::config::Limits;
use crate::{engine, wit, HookEvent};
use std::path::Path;
use std::time::{Duration, Instant};

/// Load a built-in plugin's component the way `Host::load` does, but skipping the in-process
/// map of loaded components: from the disk cache when `cache` has an entry, else compiled (and,
/// with a cache directory, written to it). Returns how long it took.
pub fn load_builtin(name: &str, cache: Option<&Path>) -> Result<Duration, String> {
    let engine = engine::engine()?;
    let (bytes, digest) = crate::builtin::get(name).ok_or_else(|| format!("no built-in plugin {name}"))?;
    let started = Instant::now();
    engine::load_uncached(engine, bytes, digest, cache).map_err(|e| format!("{e:#}"))?;
    Ok(started.elapsed())
}

/// Instances kept alive by `live_instances`.
pub struct LiveInstances(#[allow(dead_code)] Vec<Box<dyn Send>>);

/// Load a built-in plugin and create `n` instances of it, each after handling `event`, all
/// kept alive: the resident memory they add is what a live instance costs.
pub async fn live_instances(name: &str, event: &HookEvent, n: usize) -> Result<LiveInstances, String> {
    let engine = engine::engine()?;
    let linker = crate::plugin::linker(engine).map_err(|e| format!("{e:#}"))?;
    let (bytes, digest) = crate::builtin::get(name).ok_or_else(|| format!("no built-in plugin {name}"))?;
    let plugin = crate::plugin::Plugin::load(engine, &linker, "bench", name, bytes, Some(digest), None).map_err(|e| e.to_string())?;
    // The default limits, as a config without a `limits` table gives them.
    let toml = format!("[[hooks]]\nevent = \"{}\"\nexecutor = {{ plugin = \"builtin:{name}\" }}\n", event.name);
    let config = crate::Config::parse(&toml, Path::new("bench.toml"), Path::new(".")).map_err(|e| e.to_string())?;
    let limits: Limits = config.hooks[0].limits;
    let mut live: Vec<Box<dyn Send>> = Vec::with_capacity(n);
    for _ in 0..n {
        let (ev, ctx) = wit::to_wit(event, "bench", "{}", 0);
        live.push(Box::new(plugin.handle_and_keep(ev, ctx, &limits).await.map_err(|e| e.to_string())?));
    }
    Ok(LiveInstances(live))
}

/// This process's resident set, in bytes (Linux; `None` elsewhere).
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok()?)
}

/// Open file descriptors of this process (Linux; `None` elsewhere).
pub fn open_fds() -> Option<usize> {
    Some(std::fs::read_dir("/proc/self/fd").ok()?.count())
}
