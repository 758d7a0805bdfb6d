//! Criterion benchmarks: one `pre_tool_use` dispatch through the built-in guard-destructive
//! plugin (fresh instance per call, limits on), and a dispatch whose matcher misses.
//!
//! Run: `cargo bench -p hookhost --bench dispatch`

use criterion::{criterion_group, criterion_main, Criterion};
use hookhost::{Config, HookEvent, Host};
use std::path::Path;

fn host(rt: &tokio::runtime::Runtime, toml: &str) -> Host {
    let config = Config::parse(toml, Path::new("bench.toml"), Path::new(".")).expect("bench config");
    rt.block_on(Host::load(config)).expect("bench host loads")
}

fn dispatch(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let guard = host(&rt, "[[hooks]]\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n");
    let miss = host(&rt, "[[hooks]]\nevent = \"pre_tool_use\"\nmatcher = { tool_name = \"edit_file\" }\nexecutor = { plugin = \"builtin:guard-destructive\" }\n");
    let ls = HookEvent::pre_tool_use("bash", serde_json::json!({"command": "ls -la"}));
    let rm = HookEvent::pre_tool_use("bash", serde_json::json!({"command": "rm -rf /"}));

    // Sanity: the benchmark measures real decisions.
    assert!(rt.block_on(guard.dispatch(&rm)).is_block());
    assert!(rt.block_on(miss.dispatch(&rm)).hooks.is_empty());

    let mut g = c.benchmark_group("pre_tool_use");
    g.bench_function("guard_destructive_allow", |b| b.iter(|| rt.block_on(guard.dispatch(&ls))));
    g.bench_function("guard_destructive_block", |b| b.iter(|| rt.block_on(guard.dispatch(&rm))));
    g.bench_function("matcher_miss", |b| b.iter(|| rt.block_on(miss.dispatch(&ls))));
    g.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
