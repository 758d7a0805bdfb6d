//! Criterion benchmarks of the dispatch fast path: a matcher miss, one hook in a fresh
//! instance (allow and block), a chain of 10 hooks, a hook that rewrites the input, loading a
//! plugin from the precompile cache against compiling it, throughput with 1 and 2 threads, and
//! an advisory chain run one hook after the other against all at once.
//!
//! Run: `cargo bench -p hookhost --bench dispatch` (docs/PERFORMANCE.md has the figures).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use hookhost::{perf, ConfigFile, HookEvent, Host, HostLimits};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn host(rt: &tokio::runtime::Runtime, toml: &str) -> Host {
    let config = ConfigFile::parse(toml, Path::new("bench.toml"), Path::new(".")).expect("bench config");
    rt.block_on(Host::from_config(config)).expect("bench host loads")
}

const GUARD: &str = "[[hooks]]\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n";

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

fn ls() -> HookEvent {
    HookEvent::pre_tool_use("bash", serde_json::json!({"command": "ls -la"}))
}

fn dispatch(c: &mut Criterion) {
    let rt = rt();
    let guard = host(&rt, GUARD);
    let miss = host(&rt, "[[hooks]]\nevent = \"pre_tool_use\"\nmatcher = { tool_name = \"edit_file\" }\nexecutor = { plugin = \"builtin:guard-destructive\" }\n");
    let chain = host(&rt, &(0..10).map(|i| format!("[[hooks]]\nid = \"guard{i}\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = \"builtin:guard-destructive\" }}\n")).collect::<String>());
    let redact = host(&rt, "[[hooks]]\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:redact-secrets\" }\n");
    let ls = ls();
    let rm = HookEvent::pre_tool_use("bash", serde_json::json!({"command": "rm -rf /"}));
    let secret = HookEvent::pre_tool_use("bash", serde_json::json!({"command": "curl -H 'Authorization: Bearer abcdefghijklmnop1234' https://example.com"}));

    // Sanity: the benchmark measures real decisions.
    assert!(rt.block_on(guard.dispatch(&rm)).is_block());
    assert!(!rt.block_on(guard.dispatch(&ls)).is_block());
    assert!(rt.block_on(miss.dispatch(&rm)).hooks.is_empty());
    let out = rt.block_on(chain.dispatch(&ls));
    assert_eq!(out.hooks.len(), 10);
    assert!(out.hooks.iter().all(|h| h.error.is_none()));
    let out = rt.block_on(redact.dispatch(&secret));
    assert!(out.patch.is_some(), "redact-secrets rewrites the arguments: {out:?}");

    let mut g = c.benchmark_group("pre_tool_use");
    g.bench_function("guard_destructive_allow", |b| b.iter(|| rt.block_on(guard.dispatch(&ls))));
    g.bench_function("guard_destructive_block", |b| b.iter(|| rt.block_on(guard.dispatch(&rm))));
    g.bench_function("matcher_miss", |b| b.iter(|| rt.block_on(miss.dispatch(&ls))));
    g.bench_function("chain_of_10", |b| b.iter(|| rt.block_on(chain.dispatch(&ls))));
    g.bench_function("rewrite_input", |b| b.iter(|| rt.block_on(redact.dispatch(&secret))));
    g.finish();

    // The layers under one guard dispatch: a fresh store + instance alone, then instance +
    // `handle` without the host's chain, matchers and bookkeeping.
    let plugin = perf::load("guard-destructive").unwrap();
    rt.block_on(plugin.handle(&ls)).unwrap();
    let empty = perf::EmptyComponent::new().unwrap();
    rt.block_on(empty.instantiate()).unwrap();
    let mut g = c.benchmark_group("floor");
    g.bench_function("empty_component", |b| b.iter(|| rt.block_on(empty.instantiate()).unwrap()));
    g.bench_function("store_only", |b| b.iter(|| plugin.store_only().unwrap()));
    g.bench_function("instantiate_only", |b| b.iter(|| rt.block_on(plugin.instantiate()).unwrap()));
    g.bench_function("instantiate_and_handle", |b| b.iter(|| rt.block_on(plugin.handle(&ls)).unwrap()));
    // The same floor for any hook component: HOOKHOST_BENCH_PLUGIN=path/to/hook.wasm.
    if let Some(path) = std::env::var_os("HOOKHOST_BENCH_PLUGIN") {
        let other = perf::load_file(std::path::Path::new(&path)).unwrap();
        rt.block_on(other.handle(&ls)).unwrap();
        g.bench_function("plugin/instantiate_only", |b| b.iter(|| rt.block_on(other.instantiate()).unwrap()));
        g.bench_function("plugin/instantiate_and_handle", |b| b.iter(|| rt.block_on(other.handle(&ls)).unwrap()));
    }
    g.finish();
}

/// Loading a plugin: from the precompile cache (mmap); a built-in's first use with an empty
/// cache (its code compiled when hookhost was built, unpacked into the cache); and compiling
/// it, which is what that first use cost before.
fn load(c: &mut Criterion) {
    let cache = tempfile::tempdir().unwrap();
    let mut g = c.benchmark_group("load");
    for name in ["guard-destructive", "bash-adapter"] {
        let (_, source) = perf::load_builtin(name, Some(cache.path())).expect("populate the cache");
        assert_eq!(source, hookhost::CodeSource::Builtin, "{name}'s first use unpacks the code compiled at build time");
        g.bench_function(format!("{name}/from_cache"), |b| b.iter(|| perf::load_builtin(name, Some(cache.path())).unwrap()));
    }
    g.sample_size(10);
    for name in ["guard-destructive", "bash-adapter"] {
        g.bench_function(format!("{name}/first_use"), |b| {
            b.iter_batched(|| tempfile::tempdir().unwrap(), |fresh| perf::load_builtin(name, Some(fresh.path())).unwrap(), criterion::BatchSize::PerIteration)
        });
    }
    // What a one-shot run pays to link each kind of plugin: a lean built-in needs hookhost's
    // interfaces only, the bash adapter (wasm32-wasip2) WASI as well.
    for name in ["guard-destructive", "bash-adapter"] {
        g.bench_function(format!("{name}/linker"), |b| b.iter(|| perf::linker_for_builtin(name).unwrap()));
    }
    g.bench_function("guard-destructive/compile", |b| b.iter(|| perf::compile_builtin("guard-destructive").unwrap()));
    g.finish();
}

/// Dispatch throughput with 1 and 2 threads sharing one `Host` (each thread its own
/// current-thread runtime); time per dispatch, so 2 threads should take about half.
fn threads(c: &mut Criterion) {
    let guard = Arc::new(host(&rt(), GUARD));
    let mut g = c.benchmark_group("threads");
    g.throughput(Throughput::Elements(1));
    for n in [1usize, 2] {
        g.bench_function(format!("{n}"), |b| {
            b.iter_custom(|iters| {
                let per_thread = iters.div_ceil(n as u64);
                let started = Instant::now();
                std::thread::scope(|s| {
                    for _ in 0..n {
                        let guard = guard.clone();
                        s.spawn(move || {
                            let rt = rt();
                            let ev = ls();
                            for _ in 0..per_thread {
                                rt.block_on(guard.dispatch(&ev));
                            }
                        });
                    }
                });
                started.elapsed().mul_f64(iters as f64 / (per_thread * n as u64) as f64)
            })
        });
    }
    g.finish();
}

/// Chains on an advisory event (`session_start`: cannot block, honours no rewrite),
/// dispatched from a task of a 2-worker runtime as `hookhost serve` does: one hook after the
/// other against all at the same time (`HostLimits::concurrent_advisory`). Ten built-in guards
/// (~10 µs each) and four sandboxed shell hooks (~0.7 ms each).
fn advisory(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let ev = Arc::new(HookEvent::from_json(r#"{"event":"session_start","session_id":"bench"}"#).unwrap());
    let guards: String = (0..10).map(|i| format!("[[hooks]]\nid = \"guard{i}\"\nevent = \"session_start\"\nexecutor = {{ plugin = \"builtin:guard-destructive\" }}\n")).collect();
    let shells: String = (0..4).map(|i| format!("[[hooks]]\nid = \"shell{i}\"\nevent = \"session_start\"\nexecutor = {{ plugin = \"builtin:bash-adapter\", settings = {{ command = \"echo started {i} >/dev/null\" }} }}\n")).collect();
    for (group, toml, hooks) in [("advisory_chain_of_10", guards, 10), ("advisory_shell_chain_of_4", shells, 4)] {
        let mut g = c.benchmark_group(group);
        for concurrent in [false, true] {
            let config = ConfigFile::parse(&toml, Path::new("bench.toml"), Path::new(".")).expect("bench config");
            let limits = HostLimits { concurrent_advisory: concurrent, ..HostLimits::default() };
            let host = Arc::new(rt.block_on(Host::builder().config(config).limits(limits).build()).expect("bench host loads"));
            // `iters` dispatches one after another inside one task (waking the bench's thread
            // per dispatch would cost more than the chain of guards).
            let run = |iters: u64| {
                let (host, ev) = (host.clone(), ev.clone());
                rt.block_on(rt.spawn(async move {
                    let started = Instant::now();
                    for _ in 0..iters {
                        let out = host.dispatch(&ev).await;
                        assert_eq!(out.hooks.len(), hooks);
                    }
                    started.elapsed()
                }))
                .unwrap()
            };
            let out = rt.block_on(host.dispatch(&ev));
            assert!(out.hooks.iter().all(|h| h.error.is_none()), "{out:?}");
            run(1);
            g.bench_function(if concurrent { "concurrent" } else { "sequential" }, |b| b.iter_custom(run));
            if !concurrent {
                // The same chain on a current-thread runtime (`hookhost run`'s): always sequential.
                let single = self::rt();
                g.bench_function("sequential_current_thread", |b| b.iter(|| single.block_on(host.dispatch(&ev))));
            }
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(4));
    targets = dispatch, load, threads, advisory
}
criterion_main!(benches);
