//! Hooks built lean — `wasm32-unknown-unknown` linked by `wasm-component-ld`: one core module, no
//! WASI imports — as the built-in guard and redactor are, and an SDK fixture built the same way.
//! What that build changes is checked here: what they import, their heap (an arena in the
//! initial memory, then `memory.grow`, still under the hook's memory limit) and where a panic's
//! message goes (no stderr: through `log`, into the hook's error).

use hookhost::{HookError, VerdictKind};
use hookhost_tests::{bash, fixtures, host};

fn lean_hook(memory_mib: u32) -> String {
    format!("[[hooks]]\nid = \"lean\"\nevent = \"pre_tool_use\"\non_error = \"block\"\nexecutor = {{ plugin = {:?}, memory_mib = {memory_mib} }}\n", fixtures::LEAN)
}

#[tokio::test]
async fn the_lean_builds_import_only_hookhosts_interfaces() {
    let config = format!(
        "{}[[hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = \"builtin:guard-destructive\" }}\n\
         [[hooks]]\nid = \"redact\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = \"builtin:redact-secrets\" }}\n\
         [[hooks]]\nid = \"wasi\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = {:?} }}\n",
        lean_hook(16),
        fixtures::SCRIPTED
    );
    let profiles = host(&config).await.profile().await;
    let ids: Vec<&str> = profiles.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["user:lean", "user:guard", "user:redact", "user:wasi"]);
    for p in &profiles[..3] {
        let (memory, fuel) = p.sample.clone().unwrap_or_else(|e| panic!("{}: {e}", p.id));
        assert!(fuel > 0 && memory > 0, "{}: sampled {memory} bytes, {fuel} fuel", p.id);
    }
    // The SDK's default reports panics through `log`; the built-ins turn that off and import
    // their types (one core module) — and the guard its session state (write-then-run).
    assert_eq!(profiles[0].imports, ["hookhost:hooks/log@0.3.0", "hookhost:hooks/types@0.3.0"]);
    assert_eq!(profiles[1].imports, ["hookhost:hooks/state@0.3.0", "hookhost:hooks/types@0.3.0"]);
    assert_eq!(profiles[2].imports, ["hookhost:hooks/types@0.3.0"]);
    // For contrast, the same SDK built for wasm32-wasip2 brings std's WASI imports.
    assert!(profiles[3].imports.iter().any(|i| i.starts_with("wasi:cli/")), "{:?}", profiles[3].imports);
}

#[tokio::test]
async fn a_lean_guest_decides_and_its_heap_grows_past_the_arena_within_the_limit() {
    let host = host(&lean_hook(16)).await;
    let out = host.dispatch(&bash("rm -rf build")).await;
    assert_eq!((out.decision, out.reason.as_deref()), (VerdictKind::Block, Some("lean guest blocks: rm -rf build")), "{out:?}");
    assert_eq!(host.dispatch(&bash("ls")).await.decision, VerdictKind::Pass);

    // 4 MiB is far past the 64 KiB arena: dlmalloc goes on with memory.grow.
    let out = host.dispatch(&bash("grow 4")).await;
    let sum: u64 = (1..=4).map(|fill| fill << 20).sum();
    assert_eq!((out.decision, out.reason.as_deref()), (VerdictKind::Allow, Some(format!("grew 4 MiB, sum {sum}").as_str())), "{out:?}");
    assert!(out.hooks[0].error.is_none());

    // Past the hook's 16 MiB the growth is refused like any guest's.
    let out = host.dispatch(&bash("grow 32")).await;
    assert_eq!(out.decision, VerdictKind::Block, "{out:?}");
    let err = out.hooks[0].error.clone().expect("a memory-limit error");
    let limit = HookError::MemoryLimit { limit: 16 << 20, wanted: 0 }.to_string();
    let prefix = limit.split(": it asked for").next().unwrap();
    assert!(err.contains(prefix), "{err}");

    // Every event gets a fresh instance: the next one starts from the pristine arena.
    let out = host.dispatch(&bash("grow 1")).await;
    assert_eq!(out.reason.as_deref(), Some(format!("grew 1 MiB, sum {}", 1u64 << 20).as_str()), "{out:?}");
}

#[tokio::test]
async fn a_lean_guests_panic_message_reaches_the_error_through_log() {
    let host = host(&lean_hook(16)).await;
    let out = host.dispatch(&bash("panic now")).await;
    assert_eq!(out.decision, VerdictKind::Block, "on_error = block: {out:?}");
    let err = out.hooks[0].error.clone().expect("a trap");
    assert!(err.contains("trapped: "), "{err}");
    assert!(err.contains("(guest log: panicked at lean/src/lib.rs:") && err.ends_with(": lean guest panicked on purpose: panic now)"), "{err}");
    assert_eq!(out.reason.as_deref(), Some(format!("hook failed: {}", err.trim_start_matches(fixtures::LEAN).trim()).as_str()));
    // The instance that panicked is gone; the next event is served normally.
    assert_eq!(host.dispatch(&bash("ls")).await.decision, VerdictKind::Pass);
}

/// A lean guest imports nothing that can park it, so its calls run without a tokio timer: the
/// epoch deadline alone must stop one that spins, at its `timeout_ms`, whatever its fuel.
#[tokio::test]
async fn a_lean_guest_that_spins_is_stopped_at_its_timeout() {
    let config = format!("[[hooks]]\nid = \"spin\"\nevent = \"pre_tool_use\"\ntimeout_ms = 300\non_error = \"block\"\nexecutor = {{ plugin = {:?}, fuel = 1000000000000000 }}\n", fixtures::LEAN);
    let host = host(&config).await;
    let started = std::time::Instant::now();
    let out = host.dispatch(&bash("spin")).await;
    let want = HookError::Timeout(std::time::Duration::from_millis(300)).to_string();
    assert_eq!(out.decision, VerdictKind::Block);
    assert_eq!(out.hooks[0].error.as_deref(), Some(format!("{} {want}", fixtures::LEAN).as_str()));
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "stopped near its deadline, not by fuel: {:?}", started.elapsed());
}

/// The built-in guard runs on a 60 KiB wasm stack (three pages of memory in all: each page is
/// reset before every call). The shell parser's nesting budget keeps every construct within it:
/// up to 24 levels a line is read and decided; deeper, it is "could not be parsed", decided by
/// the programs it names — never a trap, which would read as the hook failing.
#[tokio::test]
async fn the_guard_decides_the_deepest_lines_it_reads_and_refuses_deeper_ones_without_trapping() {
    let host = host("[[hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n").await;
    let forms: &[(&str, &str)] = &[
        ("echo \"$(", ")\""),
        ("( ", " )"),
        ("{ ", "; }"),
        ("if true; then ", "; fi"),
        ("while true; do ", "; done"),
        ("case x in x) ", ";; esac"),
        ("f() { ", "; }; f"),
        ("x=$(", ")"),
    ];
    for (open, close) in forms {
        for (depth, inner, decision, reason) in [
            (24, "ls", VerdictKind::Pass, None),
            (23, "git reset --hard", VerdictKind::Block, Some("destructive command blocked: git reset --hard discards")),
            (25, "git reset --hard", VerdictKind::Block, Some("destructive command blocked: the command could not be parsed (parse error: AST nesting too deep")),
            (40, "python3 -c 'print(1)'", VerdictKind::Ask, Some("destructive command needs confirmation: the command could not be parsed (parse error: AST nesting too deep")),
            (200, "ls", VerdictKind::Pass, None),
        ] {
            let line = format!("{}{inner}{}", open.repeat(depth), close.repeat(depth));
            let out = host.dispatch(&bash(&line)).await;
            assert_eq!(out.hooks[0].error, None, "{open:?} × {depth}: {out:?}");
            assert_eq!(out.decision, decision, "{open:?} × {depth}: {out:?}");
            if let Some(reason) = reason {
                assert!(out.reason.as_deref().unwrap_or_default().starts_with(reason), "{open:?} × {depth}: {:?}", out.reason);
            }
        }
    }
    // Arguments nested as deep as the host reads (128 levels of JSON in all).
    let deep = serde_json::from_str::<serde_json::Value>(&format!("{}{}", "[".repeat(125), "]".repeat(125))).unwrap();
    let out = host.dispatch(&hookhost::HookEvent::pre_tool_use("bash", serde_json::json!({"command": "git reset --hard", "x": deep}))).await;
    assert_eq!((out.decision, out.hooks[0].error.clone()), (VerdictKind::Block, None), "{out:?}");
}

/// The SDK's `state` in a lean build: `remember` keeps the last command (it imports
/// `state@0.3.0`), `remember-not` — the same hook without the calls — does not import it. Their
/// pair is what `hookhost bench --plugin` compares for the cost of a get and a put.
#[tokio::test]
async fn the_sdks_state_in_a_lean_hook_and_its_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let with_store = |plugin: &str| {
        let config = hookhost_tests::config(&format!("[[hooks]]\nid = \"r\"\nevent = \"pre_tool_use\"\non_error = \"block\"\nexecutor = {{ plugin = {plugin:?} }}\n"), std::path::Path::new("."));
        hookhost::Host::builder().config(config).state_store(hookhost::kv::StateStore::at(&dir.path().join(hookhost::kv::FILE_NAME), Default::default())).build()
    };
    let remember = with_store(fixtures::REMEMBER).await.unwrap();
    assert_eq!(remember.profile().await[0].imports, ["hookhost:hooks/log@0.3.0", "hookhost:hooks/state@0.3.0", "hookhost:hooks/types@0.3.0"]);
    assert_eq!(remember.dispatch(&bash("make")).await.decision, VerdictKind::Pass);
    let again = remember.dispatch(&bash("make")).await;
    assert_eq!((again.decision, again.reason.as_deref()), (VerdictKind::Block, Some("again: make")));
    let baseline = with_store(fixtures::REMEMBER_NOT).await.unwrap();
    assert_eq!(baseline.profile().await[0].imports, ["hookhost:hooks/log@0.3.0", "hookhost:hooks/types@0.3.0"]);
    assert_eq!(baseline.dispatch(&bash("make")).await.decision, VerdictKind::Pass);
    assert_eq!(baseline.dispatch(&bash("make")).await.decision, VerdictKind::Pass);
}
