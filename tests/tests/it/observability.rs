//! The tracing events every invocation emits (`hook.invoked`, `hook.completed`, `hook.blocked`,
//! `hook.warning`), seen by an ordinary subscriber.

use hookhost_tests::{bash, fixtures, host};
use std::sync::{Arc, Mutex};
use tracing_subscriber::layer::{Context, SubscriberExt};

#[derive(Clone, Default)]
struct Names(Arc<Mutex<Vec<String>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Names {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        let name = event.metadata().name();
        if name.starts_with("hook.") {
            self.0.lock().unwrap().push(name.to_string());
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn each_invocation_emits_its_events() {
    let names = Names::default();
    let _guard = tracing::subscriber::set_default(tracing_subscriber::registry().with(names.clone()));
    let config = format!(
        "[[hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = \"builtin:guard-destructive\" }}\n\
         [[hooks]]\nid = \"flaky\"\nevent = \"post_tool_use\"\nexecutor = {{ plugin = {:?}, settings = {{ fail = \"boom\" }} }}\n",
        fixtures::SCRIPTED
    );
    let h = host(&config).await;
    names.0.lock().unwrap().clear();
    h.dispatch(&bash("rm -rf /")).await;
    assert_eq!(*names.0.lock().unwrap(), ["hook.invoked", "hook.completed", "hook.blocked"]);
    names.0.lock().unwrap().clear();
    h.dispatch(&hookhost_tests::event(serde_json::json!({"event": "post_tool_use", "data": {"tool_name": "bash", "result": "x"}}))).await;
    assert_eq!(*names.0.lock().unwrap(), ["hook.invoked", "hook.warning", "hook.completed"]);
}

/// A guest's log line and block reason cannot forge a log line or send terminal escapes: what
/// reaches the log output has its control characters escaped.
#[tokio::test(flavor = "current_thread")]
async fn guest_text_cannot_forge_log_lines_or_drive_the_terminal() {
    let (logs, _guard) = hookhost_tests::capture_logs();
    let config = format!("[[hooks]]\nid = \"h\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = {:?} }}\n", fixtures::HOSTILE);
    let out = host(&config).await.dispatch(&bash("logforge")).await;
    assert_eq!(out.reason.as_deref(), Some("bad\u{1b}]0;pwned\u{7}\nsecond line"), "the outcome JSON keeps the text (JSON escapes it)");
    let text = logs.text();
    assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'), "a raw escape reached the log: {text:?}");
    assert!(text.contains(r"ok\n2026-01-01T00:00:00.000000Z  INFO hookhost: forged line\u{1b}[2J"), "{text}");
    assert!(text.contains(r"bad\u{1b}]0;pwned\u{7}\nsecond line"), "{text}");
    assert!(text.lines().all(|l| !l.starts_with("2026-01-01T00:00:00.000000Z")), "a forged line: {text}");
}
