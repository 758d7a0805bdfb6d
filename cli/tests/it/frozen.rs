//! The frozen guests (`tests/frozen/`, see its README): hooks built against
//! `hookhost:hooks@0.1.0` before 0.2.0 came — the four example hooks and one signed, locked
//! bundle — and a hook built against 0.2.0 pass their scenarios on this hookhost, unchanged.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn frozen() -> PathBuf {
    frozen_at("0.1.0")
}

fn frozen_at(version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/frozen/hookhost-hooks-{version}"))
}

fn hookhost(dir: &Path, cache: &Path, args: &[&str]) -> Output {
    crate::common::bin(env!("CARGO_BIN_EXE_hookhost")).args(args).current_dir(dir).env("HOOKHOST_CACHE_DIR", cache).env_remove("HOOKHOST_LOG").output().unwrap()
}

/// `hookhost test --json ...`: every scenario passed; each one's outcome (decision, reason,
/// message, effects, patch) as the user sees it.
fn all_pass(what: &str, out: Output) -> Vec<Value> {
    all_of(what, out, 11)
}

/// [`all_pass`] for a scenario file of `count` scenarios.
fn all_of(what: &str, out: Output, count: u64) -> Vec<Value> {
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{what}: {}\n{text}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{what}: {e}: {text}"));
    assert_eq!((report["passed"].as_u64(), report["failed"].as_u64()), (Some(count), Some(0)), "{what}: {report}");
    report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let mut outcome = s["outcome"].clone();
            outcome.as_object_mut().unwrap().remove("hooks");
            outcome
        })
        .collect()
}

/// The frozen example hooks of `version` (`LANG.wasm`) pass `scenarios` and agree on every outcome.
fn examples_pass_and_agree(version: &str, langs: &[&str], scenarios: &str) {
    let cache = tempfile::tempdir().unwrap();
    let mut outcomes = Vec::new();
    for lang in langs {
        let plugin = format!("{lang}.wasm");
        let out = hookhost(&frozen_at(version), cache.path(), &["test", "--json", "--plugin", &plugin, scenarios]);
        outcomes.push((lang, all_pass(&format!("{version} {lang}"), out)));
    }
    let (first, expected) = &outcomes[0];
    for (lang, got) in &outcomes[1..] {
        assert_eq!(got, expected, "{version}: {lang} and {first} decide differently");
    }
}

#[test]
fn the_frozen_0_1_0_hooks_pass_their_scenarios_and_agree() {
    examples_pass_and_agree("0.1.0", &["rust", "c", "python", "js"], "scenarios.toml");
}

/// The examples as built against 0.2.0 when 0.3.0 came (Python aside: its component differs
/// from 0.1.0's frozen one by the context's `runtime` alone, which the Rust, C and JavaScript
/// ones cover; see tests/frozen/README.md).
#[test]
fn the_frozen_0_2_0_examples_pass_their_scenarios_and_agree() {
    examples_pass_and_agree("0.2.0", &["rust", "c", "js"], "examples-scenarios.toml");
}

#[test]
fn the_frozen_signed_bundle_loads_from_its_lock_and_without_its_registry() {
    let work = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let copy = std::process::Command::new("cp").arg("-r").arg(frozen().join("bundle")).arg(frozen().join("scenarios.toml")).arg(work.path()).status().unwrap();
    assert!(copy.success());
    let dir = work.path().join("bundle");
    let check = hookhost(&dir, cache.path(), &["check", "--config", "hooks.toml", "--locked"]);
    let text = String::from_utf8_lossy(&check.stdout);
    assert!(text.starts_with("ok: 2 hook(s) loaded: local/example-guard:guard-shell, local/example-guard:guard-prompt"), "{text}{}", String::from_utf8_lossy(&check.stderr));
    let online = all_pass("the bundle", hookhost(&dir, cache.path(), &["test", "--json", "--config", "hooks.toml", "--locked", "../scenarios.toml"]));
    std::fs::remove_dir_all(dir.join("registry")).unwrap();
    let offline = all_pass("the bundle, its registry gone", hookhost(&dir, cache.path(), &["test", "--json", "--config", "hooks.toml", "--locked", "../scenarios.toml"]));
    assert_eq!(online, offline);
}

/// The frozen 0.2.0 hook (`tests/frozen/hookhost-hooks-0.2.0`): it passes its scenarios, and the
/// runtime it is answering reaches it through 0.2.0's `context.runtime`.
#[test]
fn the_frozen_0_2_0_hook_passes_its_scenarios_and_sees_its_runtime() {
    let cache = tempfile::tempdir().unwrap();
    let dir = frozen_at("0.2.0");
    all_of("0.2.0", hookhost(&dir, cache.path(), &["test", "--json", "--plugin", "contract-v0-2.wasm", "scenarios.toml"]), 2);
    let event = r#"{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/","tool_name":"Bash","tool_input":{"command":"ls"}}"#;
    let out = crate::common::output_of(
        {
            let mut cmd = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"));
            cmd.args(["run", "--output", "claude-code", "--no-project", "--config", "hooks.toml"]).current_dir(&dir).env("HOOKHOST_CACHE_DIR", cache.path());
            cmd
        },
        event.as_bytes(),
    );
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(answer["hookSpecificOutput"]["permissionDecisionReason"], "Bash sent by claude-code");
}

/// `hookhost run` of the frozen 0.3.0 hook (`tests/frozen/hookhost-hooks-0.3.0`) with its state
/// in `state`: the outcome JSON.
fn run_0_3_0(state: &Path, event: &str) -> Value {
    let dir = frozen_at("0.3.0");
    let out = crate::common::output_of(
        {
            let mut cmd = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"));
            cmd.args(["run", "--no-project", "--config", "hooks.toml"]).current_dir(&dir).env("HOOKHOST_STATE_DIR", state);
            cmd
        },
        event.as_bytes(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn tool_call(session: &str, command: &str) -> String {
    serde_json::json!({ "event": "pre_tool_use", "session_id": session, "cwd": "/", "data": { "tool_name": "Bash", "arguments": { "command": command } } }).to_string()
}

/// The `calls` count the hook annotated a passed tool call with.
fn calls(outcome: &Value) -> u64 {
    let pairs = outcome["effects"].as_array().and_then(|e| e.iter().find(|e| e["type"] == "annotate")).map(|e| e["pairs"].clone());
    pairs.and_then(|p| p[0][1].as_str().and_then(|n| n.parse().ok())).unwrap_or_else(|| panic!("no calls annotation: {outcome}"))
}

/// The frozen 0.3.0 hook passes its scenarios (`hookhost test`: a store of their own), and its
/// state lives across `hookhost run` processes — 100 of them at once on one session lose no
/// write.
#[test]
fn the_frozen_0_3_0_hook_remembers_across_processes() {
    let cache = tempfile::tempdir().unwrap();
    let dir = frozen_at("0.3.0");
    all_of("0.3.0", hookhost(&dir, cache.path(), &["test", "--json", "--plugin", "contract-v0-3.wasm", "scenarios.toml"]), 5);
    let state = tempfile::tempdir().unwrap();
    assert_eq!(calls(&run_0_3_0(state.path(), &tool_call("s", "ls"))), 1);
    let again = run_0_3_0(state.path(), &tool_call("s", "ls"));
    assert_eq!((again["decision"].as_str(), again["reason"].as_str()), (Some("block"), Some("repeated: ls (call 2)")), "a second process remembers: {again}");
    assert!(state.path().join(hookhost::kv::FILE_NAME).exists());
    // 100 processes at once, each its own command, one session: every increment counts.
    let children: Vec<_> = (0..100)
        .map(|i| {
            let mut cmd = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"));
            cmd.args(["run", "--no-project", "--config", "hooks.toml"]).current_dir(&dir).env("HOOKHOST_STATE_DIR", state.path());
            let mut child = cmd.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().unwrap();
            use std::io::Write;
            child.stdin.take().unwrap().write_all(tool_call("s", &format!("echo {i}")).as_bytes()).unwrap();
            child
        })
        .collect();
    let mut seen: Vec<u64> = children
        .into_iter()
        .map(|c| {
            let out = c.wait_with_output().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            calls(&serde_json::from_slice(&out.stdout).unwrap())
        })
        .collect();
    seen.sort_unstable();
    assert_eq!(seen, (3..=102).collect::<Vec<u64>>(), "each process got its own count, none lost or repeated");
    assert_eq!(calls(&run_0_3_0(state.path(), &tool_call("s", "pwd"))), 103);
    // Its session ends: its state goes; another session's count starts again.
    let end = serde_json::json!({ "event": "session_end", "session_id": "s", "cwd": "/", "data": {} }).to_string();
    run_0_3_0(state.path(), &end);
    assert_eq!(calls(&run_0_3_0(state.path(), &tool_call("s", "pwd"))), 1, "forgotten at session end");
}
