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
        // The hook's deadline is 500 ms: it must end within that and a second of slack.
        assert!(started.elapsed() < Duration::from_millis(1500), "{command}: took {:?}", started.elapsed());
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
    // The budget is the hook's fuel plus the allowance for its 30-byte payload (tool name, call
    // id, arguments and the empty `{}` of extra fields).
    let fuel = HookError::OutOfFuel(50_000_000 + 30 * hookhost::FUEL_PER_PAYLOAD_BYTE).to_string();
    let timeout = HookError::Timeout(Duration::from_millis(500)).to_string();
    contained("loop", |e| e.ends_with(&fuel) || e.ends_with(&timeout)).await;
}

/// The MiB a memory-limit error says the hook asked for, when `e` is the 16 MiB limit's error
/// with its advice to raise `memory_mib` to that amount.
fn asked_past_16_mib(e: &str) -> Option<usize> {
    let rest = e.split("exceeded the memory limit of 16 MiB: it asked for ").nth(1)?;
    let (mib, advice) = rest.split_once(" MiB; ")?;
    let mib: usize = mib.parse().ok()?;
    let want = HookError::MemoryLimit { limit: 16 << 20, wanted: mib << 20 }.to_string();
    (e.ends_with(&want) && advice.contains(&format!("raise its `memory_mib` to at least {mib} "))).then_some(mib)
}

#[tokio::test]
async fn memory_bomb_hits_the_memory_limit() {
    // It grows 1 MiB at a time: the refused step is just past the limit.
    contained("bomb", |e| asked_past_16_mib(e).is_some_and(|mib| (17..=18).contains(&mib))).await;
}

#[tokio::test]
async fn one_huge_allocation_hits_the_memory_limit() {
    // One 1 GiB vector on top of what the guest already has: the error says how much it wanted.
    contained("huge", |e| asked_past_16_mib(e).is_some_and(|mib| (1025..=1040).contains(&mib))).await;
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
    // The 16 KiB stdout pipe refuses more; the guest's own panic message says so.
    contained("flood", |e| e.contains("trapped: ") && e.contains("failed printing to stdout")).await;
}

#[tokio::test]
async fn stderr_flood_is_bounded() {
    contained("errflood", |e| {
        // The stderr tail quoted in the error is cut at 500 characters.
        let quoted = e.split_once("(guest stderr: ").map_or("", |(_, rest)| rest);
        e.contains("trapped: ") && quoted.chars().count() <= 501
    })
    .await;
}

/// The key-value pairs of the outcome's one effect, which must be an annotation (what the
/// hostile guest's `probe`, `counter` and `scatter` report).
fn annotations(out: &hookhost::Outcome) -> Vec<(&str, &str)> {
    match &out.effects[..] {
        [hookhost::Effect::Annotate { pairs }] => pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
        other => panic!("expected one annotate effect, got {other:?}"),
    }
}

#[tokio::test]
async fn the_sandbox_grants_no_environment_files_or_network() {
    let dir = tempfile::tempdir().unwrap();
    // A real listener: a refused connection must come from the sandbox, not from an empty port.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let probe = hookhost::HookEvent::pre_tool_use("bash", serde_json::json!({"command": "probe", "port": port}));
    let out = host(&hostile("block", 16, 50_000_000, &dir.path().join("audit.jsonl"))).await.dispatch(&probe).await;
    assert_eq!(out.hooks[0].error, None);
    let pairs = annotations(&out);
    let get = |k: &str| pairs.iter().find(|(key, _)| *key == k).map(|(_, v)| *v).unwrap();
    assert_eq!(get("env"), "0", "no environment variables");
    assert_eq!(get("args"), "0", "no arguments");
    assert_ne!(get("file"), "read", "no host files");
    assert_ne!(get("dir"), "listed", "no preopened directories");
    assert_eq!(get("net"), "permission denied", "no network");
    assert_eq!(get("stdin"), "0", "no stdin");
    assert_eq!(listener.accept().map(|_| ()).unwrap_err().kind(), std::io::ErrorKind::WouldBlock, "the listener saw a connection");
}

#[tokio::test]
async fn every_call_gets_a_fresh_instance() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(&hostile("block", 16, 50_000_000, &dir.path().join("audit.jsonl"))).await;
    for _ in 0..3 {
        let out = host.dispatch(&bash("counter")).await;
        assert_eq!(out.hooks[0].error, None);
        let got = annotations(&out);
        // The counter starts over and no file survives (none can even be written).
        assert_eq!(got[..2], [("calls", "1"), ("file_before", "absent")]);
        assert_ne!(got[2].1, "written");
    }
}

#[tokio::test]
async fn a_reused_memory_slot_comes_back_as_the_image_left_it() {
    // The guest dirties every other page of 512 KiB of initialised data, 512 KiB of zeroed data
    // and 512 KiB of heap — 192 disjoint runs, more than one PAGEMAP_SCAN of the pool's reset
    // returns (32 regions; vendor/README.md) — and reports what the previous instance left.
    // Every later instance in the same slot must find all of it as the image had it.
    let dir = tempfile::tempdir().unwrap();
    let host = host(&hostile("block", 16, 50_000_000, &dir.path().join("audit.jsonl"))).await;
    for call in 0..4 {
        let out = host.dispatch(&bash("scatter")).await;
        assert_eq!(out.hooks[0].error, None);
        let got = annotations(&out);
        assert_eq!(got, [("data", "0"), ("zero", "0"), ("heap", "0")], "call {call}: pages a previous instance changed");
    }
}

#[tokio::test]
async fn a_trap_is_contained() {
    contained("trap", |e| e.contains("trapped: ") && e.contains("unreachable")).await;
}

#[tokio::test]
async fn a_50_mb_decision_is_refused() {
    // With room (and fuel) for the string, the decision reaches the host and is refused for its
    // size.
    contained_with("bigdecision", 128, 2_000_000_000, |e| e.contains("invalid decision: decision is 52428") && e.ends_with("bytes, over the 65610-byte cap (64 KiB plus twice the event's 37-byte payload)")).await;
    // Without, the guest hits its memory limit building it.
    contained("bigdecision", |e| asked_past_16_mib(e).is_some()).await;
}

#[tokio::test]
async fn an_effect_invalid_for_the_event_is_refused() {
    contained("wrongeffect", |e| e.ends_with("invalid decision: effect rewrite_output is not valid on pre_tool_use")).await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_log_flood_is_capped_and_the_decision_stands() {
    // What reaches the log output: at most the 16 KiB cap of the guest's text, and the note.
    let (logs, _guard) = hookhost_tests::capture_logs();
    let dir = tempfile::tempdir().unwrap();
    let host = host(&hostile("block", 16, 50_000_000, &dir.path().join("audit.jsonl"))).await;
    let started = Instant::now();
    let out = host.dispatch(&bash("logflood")).await;
    let text = logs.text();
    let logged: usize = text.lines().filter(|l| l.contains("yyyy")).map(|l| l.matches('y').count()).sum();
    assert!(logged <= 16 << 10, "{logged} bytes of the guest's log got through");
    assert!(logged >= 15 << 10, "the cap lets 16 KiB through, got {logged}");
    assert_eq!(text.matches("(log cap of 16384 bytes per call reached; the rest is dropped)").count(), 1, "{text}");
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    assert_eq!(out.decision, VerdictKind::Allow, "{out:?}");
    assert_eq!(out.reason.as_deref(), Some("logged"));
    assert_eq!(out.hooks[0].error, None);
}
