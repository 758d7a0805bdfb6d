//! Memory figures (not timings): resident memory per live instance of each of our Rust
//! plugins, and resident memory and file descriptors across a long run of dispatches.
//!
//! Run: `cargo bench -p hookhost --bench memory` (`HOOKHOST_BENCH_DISPATCHES` sets the run
//! length; default 1,000,000).

use hookhost::{perf, ConfigFile, HookEvent, Host};
use std::path::Path;

/// Instances per plugin; every plugin's stay alive until all are measured, so each measurement
/// gets pool slots no earlier instance touched (the pool holds 256).
const LIVE: usize = 100;

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let ls = HookEvent::pre_tool_use("bash", serde_json::json!({"command": "ls -la"}));
    let rm = HookEvent::pre_tool_use("bash", serde_json::json!({"command": "rm -rf /"}));

    println!("resident memory per live instance ({LIVE} instances kept alive, each after one pre_tool_use):");
    let mut kept = Vec::new();
    for name in ["guard-destructive", "redact-secrets"] {
        // One instance first, so code pages and one-time set-up are not counted.
        let plugin = perf::load(name).unwrap();
        let warm = rt.block_on(plugin.live_instances(&ls, 1)).unwrap();
        let before = perf::resident_bytes().unwrap();
        let live = rt.block_on(plugin.live_instances(&ls, LIVE)).unwrap();
        let after = perf::resident_bytes().unwrap();
        println!("  {name:<20} {:>7.1} KiB per instance", (after.saturating_sub(before)) as f64 / LIVE as f64 / 1024.0);
        kept.push((plugin, warm, live));
    }
    drop(kept);

    let dispatches: u64 = std::env::var("HOOKHOST_BENCH_DISPATCHES").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let config = ConfigFile::parse("[[hooks]]\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n", Path::new("bench.toml"), Path::new(".")).unwrap();
    let host = rt.block_on(Host::from_config(config)).unwrap();
    for _ in 0..10_000 {
        rt.block_on(host.dispatch(&ls));
    }
    let (rss0, fds0) = (perf::resident_bytes().unwrap(), perf::open_fds().unwrap());
    println!("\n{dispatches} dispatches of guard-destructive (allow and block alternating), after 10,000 warm-up:");
    println!("  {:>10}  {:>10}  {:>4}", "dispatches", "RSS MiB", "fds");
    println!("  {:>10}  {:>10.2}  {:>4}", 0, mib(rss0), fds0);
    let step = (dispatches / 10).max(1);
    let mut wrong = 0u64;
    let mut rss = rss0;
    let mut fds = fds0;
    for i in 1..=dispatches {
        let (ev, block) = if i % 2 == 0 { (&rm, true) } else { (&ls, false) };
        if rt.block_on(host.dispatch(ev)).is_block() != block {
            wrong += 1;
        }
        if i % step == 0 {
            (rss, fds) = (perf::resident_bytes().unwrap(), perf::open_fds().unwrap());
            println!("  {i:>10}  {:>10.2}  {fds:>4}", mib(rss));
        }
    }
    println!("  growth: {:+.2} MiB resident, {:+} fds; wrong decisions: {wrong}", mib(rss) - mib(rss0), fds as i64 - fds0 as i64);
}
