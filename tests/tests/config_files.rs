//! Config files on disk: a golden error for every validation rule (tests/config/invalid/*, each
//! with its expected message in *.err), and one example of each peer format
//! (tests/config/peers/*) loaded, shown and run.

use hookhost::{Config, VerdictKind};
use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("config").join(name)
}

#[test]
fn every_invalid_config_fails_with_its_golden_message() {
    let mut checked = 0;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir("invalid")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e != "err")).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_str().unwrap();
        let golden = std::fs::read_to_string(path.with_file_name(format!("{name}.err"))).unwrap_or_else(|_| panic!("{name} has no {name}.err golden file"));
        let err = match Config::load(&path) {
            Ok(_) => panic!("{name} loaded, but it is invalid"),
            Err(e) => e.to_string().replace(&path.display().to_string(), name),
        };
        assert_eq!(err.trim_end(), golden.trim_end(), "{name}");
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} golden files");
}

fn summary(config: &Config) -> Vec<String> {
    config
        .hooks
        .iter()
        .map(|h| {
            let dialect = h.settings.get("dialect").and_then(|d| d.as_str()).unwrap_or("-");
            format!("{} {} {} {}ms {} {}", h.id, h.event, h.plugin, h.limits.timeout.as_millis(), h.on_error.as_str(), dialect)
        })
        .collect()
}

async fn run(config: Config, event: serde_json::Value) -> hookhost::Outcome {
    let host = hookhost::Host::load(config).await.unwrap_or_else(|e| panic!("{e}"));
    host.dispatch(&hookhost::HookEvent::from_value(event).unwrap()).await
}

#[tokio::test]
async fn everruns_capabilities_json() {
    let config = Config::load(&dir("peers").join("everruns.json")).unwrap();
    assert_eq!(
        summary(&config),
        [
            "rust_quality_pack:no_force_push pre_tool_use builtin:bash-adapter 5000ms warn everruns",
            "user:guard_rm pre_tool_use builtin:bash-adapter 5000ms block everruns",
        ]
    );
    assert_eq!(config.muted, ["rust_quality_pack:fmt_after_edit"]);
    let push = run(config.clone(), serde_json::json!({"event": "pre_tool_use", "data": {"tool_name": "bash", "arguments": {"command": "git push --force"}}})).await;
    assert_eq!((push.decision, push.reason.as_deref()), (VerdictKind::Block, Some("force-push is not allowed")), "capability hooks run first");
    let rm = run(config, serde_json::json!({"event": "pre_tool_use", "data": {"tool_name": "bash", "arguments": {"command": "rm -rf /"}}})).await;
    assert_eq!((rm.decision, rm.user_message.as_deref()), (VerdictKind::Block, Some("That command is blocked by policy.")));
}

#[tokio::test]
async fn docker_agent_yaml() {
    let config = Config::load(&dir("peers").join("docker-agent.yaml")).unwrap();
    assert_eq!(
        summary(&config),
        [
            "user:root_pre_tool_use_0 pre_tool_use builtin:bash-adapter 30000ms block docker-agent",
            "user:root_session_start_1 session_start builtin:bash-adapter 10000ms warn docker-agent",
            "user:root_tool_result_transform_2 tool_result_transform builtin:redact-secrets 30000ms warn -",
        ]
    );
    let out = run(config.clone(), serde_json::json!({"hook_event_name": "pre_tool_use", "tool_name": "shell", "tool_input": {"cmd": "sudo rm -rf /"}})).await;
    assert_eq!((out.decision, out.reason.as_deref()), (VerdictKind::Block, Some("Dangerous command blocked by policy")));
    let out = run(config, serde_json::json!({"event": "tool_result_transform", "data": {"tool_name": "shell", "result": "token ghp_0123456789abcdefghijABCDEFGHIJ0123"}})).await;
    assert_eq!(out.patch.unwrap()["result"], "token [REDACTED:github-token]");
}

#[tokio::test]
async fn claude_code_settings_json() {
    let config = Config::load(&dir("peers").join("claude-settings.json")).unwrap();
    assert_eq!(
        summary(&config),
        ["user:pre_tool_use_0 pre_tool_use builtin:bash-adapter 30000ms warn claude-code", "user:user_prompt_submit_1 user_prompt_submit builtin:bash-adapter 30000ms warn claude-code"]
    );
    let rm = run(config.clone(), serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}})).await;
    assert_eq!((rm.decision, rm.reason.as_deref()), (VerdictKind::Block, Some("rm is not allowed here")));
    let ls = run(config.clone(), serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}})).await;
    assert!(ls.hooks.is_empty(), "the if rule keeps the hook from running: {ls:?}");
    let prompt = run(config, serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": "hi"})).await;
    assert_eq!(serde_json::to_value(&prompt.effects).unwrap(), serde_json::json!([{"type": "add_context", "text": "Remember: this repo uses tabs."}]));
}

#[tokio::test]
async fn starchild_shell_hooks_yaml() {
    let config = Config::load(&dir("peers").join("starchild.yaml")).unwrap();
    assert_eq!(summary(&config), ["user:pre_tool_use_0 pre_tool_use builtin:bash-adapter 5000ms warn starchild"]);
    let out = run(config.clone(), serde_json::json!({"event": "pre_tool_call", "tool_name": "bash", "tool_input": {"command": "mkfs.ext4 /dev/sda1"}})).await;
    assert_eq!(out.reason.as_deref(), Some("[security] This command is irreversible: mkfs.ext4 /dev/sda1"));
    let ls = run(config, serde_json::json!({"event": "pre_tool_call", "tool_name": "bash", "tool_input": {"command": "ls"}})).await;
    assert!(ls.hooks.is_empty(), "the payload matcher keeps the script from running");
}
