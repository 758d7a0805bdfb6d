//! Every contract version the host serves, side by side: a hook built against 0.2.0 sees what
//! 0.1.0 lacks (`context.runtime`), and 0.1.0 hooks — the frozen guests of `tests/frozen/` —
//! load and decide as they did.

use hookhost::{HookEvent, Runtime, VerdictKind};
use hookhost_tests::{bash, fixtures, host};

fn v0_2_hook() -> String {
    format!("[[hooks]]\nid = \"v2\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = {:?} }}\n", fixtures::CONTRACT_V0_2)
}

#[tokio::test]
async fn a_0_2_0_hook_sees_the_runtime_that_sent_the_event() {
    let host = host(&v0_2_hook()).await;
    let from_codex = HookEvent { runtime: Some(Runtime::Codex), ..bash("ls") };
    let outcome = host.dispatch(&from_codex).await;
    assert_eq!((outcome.decision, outcome.reason.as_deref()), (VerdictKind::Block, Some("bash sent by codex")));
    let unknown = host.dispatch(&bash("ls")).await;
    assert_eq!(unknown.reason.as_deref(), Some("bash sent by no runtime"), "no runtime named: none");
}

#[tokio::test]
async fn hooks_of_both_versions_run_in_one_chain() {
    // The frozen example guard is a 0.1.0 component (tests/frozen/); the fixture a 0.2.0 one.
    let frozen = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("frozen/hookhost-hooks-0.1.0/rust.wasm");
    let config = format!("[[hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = {:?} }}\n\n{}", frozen.display().to_string(), v0_2_hook());
    let host = host(&config).await;
    let destructive = host.dispatch(&HookEvent { runtime: Some(Runtime::ClaudeCode), ..bash("sudo rm -rf /") }).await;
    assert_eq!(destructive.decision, VerdictKind::Block);
    assert_eq!(destructive.hooks.first().map(|h| h.id.as_str()), Some("user:guard"), "the 0.1.0 guard decided first");
    let harmless = host.dispatch(&HookEvent { runtime: Some(Runtime::ClaudeCode), ..bash("ls") }).await;
    assert_eq!(harmless.reason.as_deref(), Some("bash sent by claude-code"), "the guard passed; the 0.2.0 hook answered");
}

/// The 0.3.0 guest on tool calls and prompts (one plugin, two hooks: one memory) and, first on
/// prompts, a copy of it (another plugin: a memory of its own).
fn v0_3_hooks(copy: &std::path::Path) -> String {
    let plugin = fixtures::CONTRACT_V0_3;
    format!(
        "[[hooks]]\nid = \"copy\"\nevent = \"user_prompt_submit\"\nexecutor = {{ plugin = {copy:?} }}\n\n[[hooks]]\nid = \"mem-tools\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = {plugin:?} }}\n\n[[hooks]]\nid = \"mem-prompts\"\nevent = \"user_prompt_submit\"\nexecutor = {{ plugin = {plugin:?} }}\n"
    )
}

/// A 0.3.0 hook's host, its state in `store` (a file: what separate `hookhost run`s share).
async fn v0_3_host(store: &std::path::Path) -> hookhost::Host {
    let copy = store.with_file_name("copy.wasm");
    if !copy.exists() {
        std::fs::copy(fixtures::CONTRACT_V0_3, &copy).unwrap();
    }
    let config = hookhost_tests::config(&v0_3_hooks(&copy), std::path::Path::new("."));
    hookhost::Host::builder().config(config).state_store(hookhost::kv::StateStore::at(store, Default::default())).build().await.unwrap()
}

fn in_session(session: &str, cwd: &str, ev: HookEvent) -> HookEvent {
    HookEvent { session_id: session.into(), cwd: Some(cwd.into()), ..ev }
}

fn prompt(message: &str) -> HookEvent {
    hookhost_tests::event(serde_json::json!({ "event": "user_prompt_submit", "data": { "message": message } }))
}

/// What 0.3.0 adds: a hook's state outlives the host that wrote it, and is the hook's own in
/// its own session and project.
#[tokio::test]
async fn a_0_3_0_hook_remembers_across_hosts_in_its_own_scope() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join(hookhost::kv::FILE_NAME);
    let first = v0_3_host(&store).await.dispatch(&in_session("s1", "/work/p", bash("make deploy"))).await;
    assert_eq!(first.decision, VerdictKind::Pass);
    // A new host (a new `hookhost run`): the same command again is the repeat it remembered.
    let again = v0_3_host(&store).await.dispatch(&in_session("s1", "/work/p", bash("make deploy"))).await;
    assert_eq!((again.decision, again.reason.as_deref()), (VerdictKind::Block, Some("repeated: make deploy (call 2)")));
    // Another session, another project: nothing remembered there.
    let host = v0_3_host(&store).await;
    assert_eq!(host.dispatch(&in_session("s2", "/work/p", bash("make deploy"))).await.decision, VerdictKind::Pass);
    assert_eq!(host.dispatch(&in_session("s1", "/work/q", bash("make deploy"))).await.decision, VerdictKind::Pass);
    // Another plugin (the copy, first on prompts) has no keys in the session; once it passes
    // on, the tool calls' plugin, on a prompt, sees what its hook on tool calls kept.
    let keys = host.dispatch(&in_session("s1", "/work/p", prompt("keys"))).await;
    assert_eq!((keys.reason.as_deref(), keys.hooks[0].id.as_str()), (Some("keys: "), "user:copy"));
    let host = hookhost::Host::builder()
        .config(hookhost_tests::config(&format!("[[hooks]]\nid = \"mem-prompts\"\nevent = \"user_prompt_submit\"\nexecutor = {{ plugin = {:?} }}\n", fixtures::CONTRACT_V0_3), std::path::Path::new(".")))
        .state_store(hookhost::kv::StateStore::at(&store, Default::default()))
        .build()
        .await
        .unwrap();
    let keys = host.dispatch(&in_session("s1", "/work/p", prompt("keys"))).await;
    assert_eq!(keys.reason.as_deref(), Some("keys: calls,last"));
    // A value over the host's bound is the hook's to handle; nothing was written.
    let big = host.dispatch(&in_session("s1", "/work/p", prompt("big"))).await;
    assert_eq!(big.reason.as_deref(), Some("quota: the value for state key \"big\" is 71680 bytes; the limit is 65536"));
    // The session ends: every hook's state of it goes, other sessions' stays.
    host.dispatch(&in_session("s1", "/work/p", hookhost_tests::event(serde_json::json!({ "event": "session_end", "data": {} })))).await;
    let after = v0_3_host(&store).await;
    assert_eq!(after.dispatch(&in_session("s1", "/work/p", bash("make deploy"))).await.decision, VerdictKind::Pass, "forgotten at session end");
    assert_eq!(after.dispatch(&in_session("s2", "/work/p", bash("make deploy"))).await.reason.as_deref(), Some("repeated: make deploy (call 2)"));
}

/// A store that cannot be read is an error of the hook's, which its `on_error` decides (`warn`,
/// the default here: a pass with the error in the trace and the log; `block` blocks).
#[tokio::test]
async fn an_unreadable_state_store_is_the_hooks_error() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join(hookhost::kv::FILE_NAME);
    std::fs::write(&store, vec![b'x'; 4096]).unwrap();
    let outcome = v0_3_host(&store).await.dispatch(&in_session("s1", "/work/p", bash("ls"))).await;
    assert_eq!(outcome.decision, VerdictKind::Pass, "on_error = \"warn\"");
    let error = outcome.hooks[0].error.as_deref().unwrap();
    assert!(error.contains(&format!("unavailable: hookhost's state store {} cannot be opened: MDB_INVALID: File is not an LMDB file", store.display())), "{error}");
}
