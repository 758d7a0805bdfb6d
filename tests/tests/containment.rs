//! Misbehaving guests end in an executor error handled by on_error, in bounded time, and the
//! same loaded plugin then serves the next event normally.

use hookhost::{HookError, VerdictKind};
use hookhost_tests::{bash, fixtures, host};
use std::time::{Duration, Instant};

fn hostile(on_error: &str, memory_mib: u32, fuel: u64, audit: &std::path::Path) -> String {
    format!(
        "audit_log = {audit:?}\n[[hooks]]\nid = \"hostile\"\nevent = \"pre_tool_use\"\ntimeout_ms = 500\non_error = \"{on_error}\"\nexecutor = {{ plugin = \"{}\", memory_mib = {memory_mib}, fuel = {fuel} }}\n\
         [[hooks]]\nid = \"after\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = \"builtin:guard-destructive\" }}\n",
        fixtures::HOSTILE
    )
}

/// Run `command` through the hostile guest under each on_error policy; check the error text,
/// the verdict, the time bound, that the next hook in the chain runs unless the policy blocks,
/// that the audit log records the failure and its policy, and that the next event is served
/// normally.
async fn contained(command: &str, want_error: impl Fn(&str) -> bool) {
    contained_with(command, 16, 50_000_000, want_error).await
}

async fn contained_with(command: &str, memory_mib: u32, fuel: u64, want_error: impl Fn(&str) -> bool) {
    for (policy, want) in [("block", VerdictKind::Block), ("allow", VerdictKind::Pass), ("warn", VerdictKind::Pass)] {
        let dir = tempfile::tempdir().unwrap();
        let audit = dir.path().join("audit.jsonl");
        let host = host(&hostile(policy, memory_mib, fuel, &audit)).await;
        let started = Instant::now();
        let out = host.dispatch(&bash(command)).await;
        assert!(started.elapsed() < Duration::from_secs(5), "{command}: took {:?}", started.elapsed());
        assert_eq!(out.decision, want, "{command} with on_error = {policy}: {out:?}");
        let err = out.hooks[0].error.clone().unwrap_or_else(|| panic!("{command}: no error recorded: {out:?}"));
        assert!(want_error(&err), "{command}: unexpected error text: {err}");
        if policy == "block" {
            assert_eq!(out.reason.as_deref().unwrap(), format!("hook failed: {}", err.trim_start_matches(fixtures::HOSTILE).trim()));
            assert_eq!(out.hooks.len(), 1, "{command}: a block ends the chain: {out:?}");
        } else {
            let ids: Vec<&str> = out.hooks.iter().map(|h| h.id.as_str()).collect();
            assert_eq!(ids, ["user:hostile", "user:after"], "{command} with on_error = {policy}: the chain goes on");
            assert_eq!(out.hooks[1].error, None);
        }
        let text = std::fs::read_to_string(&audit).unwrap();
        hookhost::verify_audit_log(&text).unwrap();
        let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        assert_eq!(first["hook_id"], "user:hostile");
        assert_eq!(first["error"], err.as_str(), "{command}: the audit record names the failure");
        assert_eq!(first["on_error"], policy);
        assert_eq!(first["decision"], if policy == "block" { "block" } else { "pass" });
        assert_eq!(text.lines().count(), out.hooks.len());
        let next = host.dispatch(&bash("ls")).await;
        assert_eq!(next.decision, VerdictKind::Allow, "{command}: next event after the failure");
        assert_eq!(next.hooks[0].error, None);
    }
}

#[tokio::test]
async fn infinite_loop_is_stopped() {
    // The budget is the hook's fuel plus the allowance for its 28-byte payload.
    let fuel = HookError::OutOfFuel(50_000_000 + 28 * hookhost::FUEL_PER_PAYLOAD_BYTE).to_string();
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
    let dir = tempfile::tempdir().unwrap();
    let out = host(&hostile("block", 16, 50_000_000, &dir.path().join("audit.jsonl"))).await.dispatch(&bash("probe")).await;
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

#[tokio::test]
async fn a_trap_is_contained() {
    contained("trap", |e| e.contains("trapped: ") && e.contains("unreachable")).await;
}

#[tokio::test]
async fn a_50_mb_decision_is_refused() {
    // With room (and fuel) for the string, the decision reaches the host and is refused for its
    // size.
    contained_with("bigdecision", 128, 2_000_000_000, |e| e.contains("invalid decision: decision is 52428") && e.ends_with("bytes, over the 65606-byte cap (64 KiB plus twice the event's 35-byte payload)")).await;
    // Without, the guest hits its memory limit building it.
    let want = HookError::MemoryLimit(16 << 20).to_string();
    contained("bigdecision", |e| e.ends_with(&want)).await;
}

#[tokio::test]
async fn an_effect_invalid_for_the_event_is_refused() {
    contained("wrongeffect", |e| e.ends_with("invalid decision: effect rewrite_output is not valid on pre_tool_use")).await;
}

#[tokio::test]
async fn a_log_flood_is_capped_and_the_decision_stands() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(&hostile("block", 16, 50_000_000, &dir.path().join("audit.jsonl"))).await;
    let started = Instant::now();
    let out = host.dispatch(&bash("logflood")).await;
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert_eq!(out.decision, VerdictKind::Allow, "{out:?}");
    assert_eq!(out.reason.as_deref(), Some("logged"));
    assert_eq!(out.hooks[0].error, None);
}
