//! Misbehaving guests end in an executor error handled by on_error, in bounded time, and the
//! same loaded plugin then serves the next event normally.

use hookhost::{HookError, VerdictKind};
use hookhost_tests::{bash, fixtures, host};
use std::time::{Duration, Instant};

fn hostile(on_error: &str) -> String {
    format!(
        "[[hooks]]\nid = \"hostile\"\nevent = \"pre_tool_use\"\ntimeout_ms = 500\non_error = \"{on_error}\"\nexecutor = {{ plugin = \"{}\", memory_mib = 16, fuel = 50000000 }}\n",
        fixtures::HOSTILE
    )
}

/// Run `command` through the hostile guest under each on_error policy; check the error text,
/// the verdict, the time bound, and that the next event is served normally.
async fn contained(command: &str, want_error: impl Fn(&str) -> bool) {
    for (policy, want) in [("block", VerdictKind::Block), ("allow", VerdictKind::Pass), ("warn", VerdictKind::Pass)] {
        let host = host(&hostile(policy)).await;
        let started = Instant::now();
        let out = host.dispatch(&bash(command)).await;
        assert!(started.elapsed() < Duration::from_secs(5), "{command}: took {:?}", started.elapsed());
        assert_eq!(out.decision, want, "{command} with on_error = {policy}: {out:?}");
        let err = out.hooks[0].error.clone().unwrap_or_else(|| panic!("{command}: no error recorded: {out:?}"));
        assert!(want_error(&err), "{command}: unexpected error text: {err}");
        if policy == "block" {
            assert_eq!(out.reason.as_deref().unwrap(), format!("hook failed: {}", err.trim_start_matches(fixtures::HOSTILE).trim()));
        }
        let next = host.dispatch(&bash("ls")).await;
        assert_eq!(next.decision, VerdictKind::Allow, "{command}: next event after the failure");
        assert_eq!(next.hooks[0].error, None);
    }
}

#[tokio::test]
async fn infinite_loop_is_stopped() {
    let fuel = HookError::OutOfFuel(50_000_000).to_string();
    let timeout = HookError::Timeout(Duration::from_millis(500)).to_string();
    contained("loop", |e| e.ends_with(&fuel) || e.ends_with(&timeout)).await;
}

#[tokio::test]
async fn memory_bomb_hits_the_memory_limit() {
    let want = HookError::MemoryLimit(16 << 20).to_string();
    contained("bomb", |e| e.ends_with(&want)).await;
}

#[tokio::test]
async fn one_huge_allocation_hits_the_memory_limit() {
    let want = HookError::MemoryLimit(16 << 20).to_string();
    contained("huge", |e| e.ends_with(&want)).await;
}

#[tokio::test]
async fn panic_is_a_trap_with_the_panic_message() {
    contained("panic", |e| e.contains("trapped: ") && e.contains("hostile guest panicked on purpose")).await;
}

#[tokio::test]
async fn unbounded_recursion_is_a_trap() {
    contained("recurse", |e| e.contains("trapped: ") && e.contains("call stack exhausted")).await;
}

#[tokio::test]
async fn a_guest_parked_in_a_host_call_is_cut_off_at_the_deadline() {
    let want = HookError::Timeout(Duration::from_millis(500)).to_string();
    contained("sleep", |e| e.ends_with(&want)).await;
}

#[tokio::test]
async fn stdout_flood_is_bounded() {
    contained("flood", |e| e.contains("trapped: ")).await;
}

#[tokio::test]
async fn the_sandbox_grants_no_environment_files_or_network() {
    let out = host(&hostile("block")).await.dispatch(&bash("probe")).await;
    assert_eq!(out.hooks[0].error, None);
    let pairs = match &out.effects[..] {
        [hookhost::Effect::Annotate { pairs }] => pairs.clone(),
        other => panic!("expected one annotate effect, got {other:?}"),
    };
    let get = |k: &str| pairs.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str()).unwrap();
    assert_eq!(get("env"), "0", "no environment variables");
    assert_eq!(get("args"), "0", "no arguments");
    assert_ne!(get("file"), "read", "no host files");
    assert_ne!(get("dir"), "listed", "no preopened directories");
    assert_ne!(get("net"), "connected", "no network");
}
