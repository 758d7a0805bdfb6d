//! Real events through real components: Everruns' guard_rm example, rewrites that compose, first
//! block wins, advisory blocks ignored, verdict merge, on_error.

use hookhost::VerdictKind;
use hookhost_tests::{bash, event, fixtures, host};
use serde_json::json;

/// Everruns' guard_rm example, with the shell hook's fixed JSON decision produced by a wasm guest.
fn guard_rm() -> String {
    format!(
        r#"
[[hooks]]
id = "guard_rm"
event = "pre_tool_use"
matcher = {{ tool_name = "bash", args_jsonpath = "$.commands", deny_regex = '(?:^|;|&&|\|)\s*rm\s+-rf\b' }}
executor = {{ plugin = "{}", settings = {{ verdict = "block", reason = "rm -rf is not allowed", user_message = "That command is blocked by policy." }} }}
on_error = "block"
description = "Reject destructive rm invocations"
"#,
        fixtures::SCRIPTED
    )
}

#[tokio::test]
async fn seed_guard_rm_blocks_rm_rf_and_allows_ls() {
    let host = host(&guard_rm()).await;
    let rm = host.dispatch(&hookhost::HookEvent::pre_tool_use("bash", json!({"commands": "rm -rf /tmp/x"}))).await;
    assert_eq!(rm.decision, VerdictKind::Block);
    assert_eq!(rm.reason.as_deref(), Some("rm -rf is not allowed"));
    assert_eq!(rm.user_message.as_deref(), Some("That command is blocked by policy."));
    assert_eq!(rm.hooks.len(), 1);
    assert_eq!(rm.hooks[0].id, "user:guard_rm");
    assert!(rm.hooks[0].fuel > 0);

    let ls = host.dispatch(&hookhost::HookEvent::pre_tool_use("bash", json!({"commands": "ls -la"}))).await;
    assert_eq!(ls.decision, VerdictKind::Pass);
    assert!(ls.hooks.is_empty(), "matcher miss: no instance was created");
}

#[tokio::test]
async fn builtin_guard_blocks_destructive_commands_with_reason_and_user_message() {
    let host = host("[[hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n").await;
    let out = host.dispatch(&bash("rm -rf /")).await;
    assert_eq!(out.decision, VerdictKind::Block);
    assert_eq!(out.reason.as_deref(), Some("destructive command blocked: recursive delete of / (rule fs.rm-root); instead: delete the specific paths you mean, by name"));
    assert_eq!(out.user_message.as_deref(), Some("That command is blocked by policy."));
    let ok = host.dispatch(&bash("ls -la")).await;
    assert_eq!(ok.decision, VerdictKind::Pass);
    assert_eq!(ok.hooks[0].decision, VerdictKind::Pass);
}

fn scripted(id: &str, event: &str, settings: &str, on_error: &str) -> String {
    format!(
        "[[hooks]]\nid = \"{id}\"\nevent = \"{event}\"\non_error = \"{on_error}\"\nexecutor = {{ plugin = \"{}\", settings = {settings} }}\n",
        fixtures::SCRIPTED
    )
}

#[tokio::test]
async fn rewrites_compose_and_survive_a_later_block() {
    let config = [
        scripted("a", "pre_tool_use", r#"{ append_to_command = " -a" }"#, "warn"),
        scripted("b", "pre_tool_use", r#"{ append_to_command = " -l", add_context = "listing" }"#, "warn"),
        scripted("deny", "pre_tool_use", r#"{ verdict = "block", reason = "no listing today" }"#, "warn"),
        scripted("never", "pre_tool_use", r#"{ verdict = "halt" }"#, "warn"),
    ]
    .concat();
    let out = host(&config).await.dispatch(&bash("ls")).await;
    assert_eq!(out.decision, VerdictKind::Block);
    assert_eq!(out.reason.as_deref(), Some("no listing today"));
    assert_eq!(out.patch.unwrap()["arguments"], json!({"command": "ls -a -l"}), "hook b saw hook a's rewrite");
    let ids: Vec<_> = out.hooks.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["user:a", "user:b", "user:deny"], "first block stops the chain");
    let json = serde_json::to_value(&out.effects).unwrap();
    assert_eq!(json, json!([{"type": "add_context", "text": "listing"}]));
}

#[tokio::test]
async fn advisory_event_block_is_ignored_and_the_chain_runs_on() {
    let config = [
        scripted("stop_it", "post_tool_use", r#"{ verdict = "block", reason = "too late" }"#, "warn"),
        scripted("fix_output", "post_tool_use", r#"{ rewrite_output = "clean" }"#, "warn"),
    ]
    .concat();
    let ev = event(json!({"event": "post_tool_use", "data": {"tool_name": "bash", "tool_call_id": "c", "arguments": {}, "result": "dirty"}}));
    let out = host(&config).await.dispatch(&ev).await;
    assert_eq!(out.decision, VerdictKind::Pass);
    assert_eq!(out.hooks.len(), 2);
    assert_eq!(out.hooks[0].decision, VerdictKind::Block);
    assert!(out.hooks[0].ignored);
    assert_eq!(out.patch.unwrap()["result"], json!("clean"));
}

#[tokio::test]
async fn verdicts_merge_by_precedence_on_blocking_events() {
    let config = [
        scripted("allow", "user_prompt_submit", r#"{ verdict = "allow" }"#, "warn"),
        scripted("ask", "user_prompt_submit", r#"{ verdict = "ask", reason = "check with the human" }"#, "warn"),
        scripted("pass", "user_prompt_submit", r#"{ rewrite_prompt = "hello, politely" }"#, "warn"),
    ]
    .concat();
    let ev = event(json!({"event": "user_prompt_submit", "data": {"message": "hello"}}));
    let out = host(&config).await.dispatch(&ev).await;
    assert_eq!(out.decision, VerdictKind::Ask);
    assert_eq!(out.reason.as_deref(), Some("check with the human"));
    assert_eq!(out.patch.unwrap()["message"], json!("hello, politely"));
}

#[tokio::test]
async fn guest_errors_follow_on_error_and_are_never_blocks_by_themselves() {
    for (policy, want) in [("warn", VerdictKind::Pass), ("allow", VerdictKind::Pass), ("block", VerdictKind::Block)] {
        let out = host(&scripted("flaky", "pre_tool_use", r#"{ fail = "settings file missing" }"#, policy)).await.dispatch(&bash("ls")).await;
        assert_eq!(out.decision, want, "on_error = {policy}");
        let err = out.hooks[0].error.as_deref().unwrap();
        assert!(err.ends_with("returned an error: settings file missing"), "{err}");
        if policy == "block" {
            assert_eq!(out.reason.as_deref(), Some("hook failed: returned an error: settings file missing"));
        }
    }
}

#[tokio::test]
async fn an_effect_the_event_does_not_accept_is_an_executor_error() {
    let out = host(&scripted("wrong", "pre_tool_use", r#"{ rewrite_output = "x" }"#, "warn")).await.dispatch(&bash("ls")).await;
    assert_eq!(out.decision, VerdictKind::Pass);
    assert!(out.patch.is_none());
    assert!(out.hooks[0].error.as_deref().unwrap().ends_with("returned an invalid decision: effect rewrite_output is not valid on pre_tool_use"));
}

#[tokio::test]
async fn audit_log_gets_one_record_per_invocation() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let config = format!("audit_log = {:?}\n{}", log.display().to_string(), guard_rm());
    let host = host(&config).await;
    host.dispatch(&hookhost::HookEvent::pre_tool_use("bash", json!({"commands": "rm -rf x"}))).await;
    host.dispatch(&hookhost::HookEvent::pre_tool_use("bash", json!({"commands": "ls"}))).await;
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1, "the matcher miss is not an invocation");
    assert_eq!(lines[0]["hook_id"], "user:guard_rm");
    assert_eq!(lines[0]["decision"], "block");
    assert_eq!(lines[0]["reason"], "rm -rf is not allowed");
    assert_eq!(lines[0]["tool_name"], "bash");
    assert!(lines[0]["fuel"].as_u64().unwrap() > 0);
    assert!(lines[0]["peak_memory"].as_u64().unwrap() > 0);
}

/// The hooks of an advisory event that honours no rewrite run at the same time on a
/// multi-threaded runtime; what the runtime gets back is what a sequential run gives, in
/// chain order: effects, ignored verdicts, `on_error`, traces and audit records.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_advisory_chains_answer_as_the_sequential_chain_does() {
    let dir = tempfile::tempdir().unwrap();
    let chain = [
        scripted("one", "session_start", r#"{ add_context = "first" }"#, "warn"),
        scripted("two", "session_start", r#"{ verdict = "block", reason = "ignored here" }"#, "warn"),
        scripted("three", "session_start", r#"{ fail = "boom" }"#, "warn"),
        scripted("four", "session_start", r#"{ add_context = "fourth" }"#, "block"),
    ]
    .concat();
    let ev = hookhost::HookEvent::from_json(r#"{"event":"session_start","session_id":"s1"}"#).unwrap();
    let mut answers = Vec::new();
    for concurrent in [true, false] {
        let log = dir.path().join(format!("audit-{concurrent}.jsonl"));
        let toml = format!("audit_log = {:?}\n{chain}", log.display().to_string());
        let limits = hookhost::HostLimits { concurrent_advisory: concurrent, ..Default::default() };
        let host = hookhost::Host::builder().config(hookhost_tests::config(&toml, std::path::Path::new("."))).limits(limits).build().await.unwrap();
        let out = host.dispatch(&ev).await;
        let traces: Vec<_> = out.hooks.iter().map(|t| (t.id.clone(), t.decision, t.ignored, t.error.clone())).collect();
        let audit: Vec<String> = std::fs::read_to_string(&log).unwrap().lines().map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["hook_id"].as_str().unwrap().to_string()).collect();
        answers.push((out.decision, out.reason.clone(), out.effects.clone(), out.patch.clone(), traces, audit));
    }
    let (decision, reason, effects, patch, traces, audit) = &answers[0];
    assert_eq!(answers[0], answers[1], "concurrent and sequential chains differ");
    assert_eq!((*decision, reason.as_deref(), patch), (VerdictKind::Pass, None, &None));
    assert_eq!(effects, &[hookhost::Effect::AddContext { text: "first".into() }, hookhost::Effect::AddContext { text: "fourth".into() }]);
    let ids: Vec<&str> = traces.iter().map(|t| t.0.as_str()).collect();
    assert_eq!(ids, ["user:one", "user:two", "user:three", "user:four"]);
    assert_eq!(*audit, ids);
    assert_eq!((traces[1].1, traces[1].2), (VerdictKind::Block, true), "the block is ignored on an advisory event");
    assert!(traces[2].3.as_deref().unwrap().ends_with("returned an error: boom"), "{:?}", traces[2].3);
}

/// Proof that they do run at the same time: two host-mode shell hooks meet at a named pipe —
/// the first writes to it, the second reads from it. One after the other, the writer waits
/// for a reader until its timeout; at the same time, both finish.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn advisory_hooks_run_at_the_same_time() {
    if !(hookhost_tests::have("bash") && hookhost_tests::have("mkfifo")) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("meet");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let hook = |id: &str, cmd: &str| hookhost_tests::shell_hook(id, "notification", "timeout_ms = 1500\non_error = \"warn\"", &[("command", cmd), ("mode", "host")]);
    let writer = hook("writer", &format!("printf met > '{}'", fifo.display()));
    let reader = hook("reader", &format!("cat '{}' >/dev/null", fifo.display()));
    let toml = format!("{writer}{reader}{}", hookhost_tests::GRANT_PROCESS);
    let ev = hookhost::HookEvent::from_json(r#"{"event":"notification","message":"idle"}"#).unwrap();
    for concurrent in [true, false] {
        let limits = hookhost::HostLimits { concurrent_advisory: concurrent, ..Default::default() };
        let host = hookhost::Host::builder().config(hookhost_tests::config(&toml, std::path::Path::new("."))).limits(limits).build().await.unwrap();
        let out = host.dispatch(&ev).await;
        let errors: Vec<Option<String>> = out.hooks.iter().map(|t| t.error.clone()).collect();
        if concurrent {
            assert_eq!(errors, [None, None], "both met at the pipe");
        } else {
            assert_eq!(errors[0].as_deref(), Some("builtin:bash-adapter returned an error: hook timed out"), "the writer waited alone");
        }
    }
}

fn observed(id: &str, event: &str, settings: &str, on_error: &str) -> String {
    scripted(id, event, settings, on_error).replacen("\non_error", "\nmode = \"observe\"\non_error", 1)
}

/// Observe mode: the hook runs and what it would have done is traced and audited, but none of
/// it applies — not its verdict, not its rewrites or context, not its on_error's block.
#[tokio::test]
async fn a_hook_in_observe_mode_is_recorded_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let config = [
        format!("audit_log = {:?}\n", log.display().to_string()),
        observed("deny", "pre_tool_use", r#"{ verdict = "block", reason = "would stop it" }"#, "warn"),
        observed("rewrite", "pre_tool_use", r#"{ append_to_command = " --dry-run", add_context = "observed context" }"#, "warn"),
        observed("flaky", "pre_tool_use", r#"{ fail = "boom" }"#, "block"),
        scripted("enforced", "pre_tool_use", r#"{ add_context = "applied" }"#, "warn"),
    ]
    .concat();
    let out = host(&config).await.dispatch(&bash("make deploy")).await;
    assert_eq!(out.decision, VerdictKind::Pass, "the observed block does not apply");
    assert!(out.patch.is_none(), "nor the observed rewrite");
    assert_eq!(serde_json::to_value(&out.effects).unwrap(), json!([{"type": "add_context", "text": "applied"}]));
    let trace = serde_json::to_value(&out.hooks).unwrap();
    assert_eq!(trace[0]["observed"], true);
    assert_eq!((trace[0]["decision"].as_str(), trace[0]["reason"].as_str()), (Some("block"), Some("would stop it")));
    assert_eq!(trace[1]["effects"], json!(["rewrite_input", "add_context"]));
    assert_eq!((trace[2]["decision"].as_str(), trace[2]["observed"].as_bool()), (Some("block"), Some(true)), "its on_error's block, recorded");
    assert!(trace[3].get("observed").is_none(), "an enforced hook says nothing of it");
    let records: Vec<serde_json::Value> = std::fs::read_to_string(&log).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.iter().map(|r| r["observed"].as_bool().unwrap_or(false)).collect::<Vec<_>>(), [true, true, true, false]);
    assert_eq!(records[0]["decision"], "block");
}

/// A file's `mode` is the default of its hooks; a hook's own `mode` wins.
#[tokio::test]
async fn a_files_mode_is_its_hooks_default() {
    let config = format!(
        "mode = \"observe\"\n{}{}",
        scripted("quiet", "pre_tool_use", r#"{ verdict = "block", reason = "observed" }"#, "warn"),
        scripted("loud", "pre_tool_use", r#"{ verdict = "block", reason = "enforced" }"#, "warn").replacen("\non_error", "\nmode = \"enforce\"\non_error", 1),
    );
    let out = host(&config).await.dispatch(&bash("ls")).await;
    assert_eq!((out.decision, out.reason.as_deref()), (VerdictKind::Block, Some("enforced")));
    assert!(out.hooks[0].observed && !out.hooks[1].observed);
}
