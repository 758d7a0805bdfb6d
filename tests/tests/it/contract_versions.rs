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
