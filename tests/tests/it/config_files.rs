//! Config files on disk: a golden error for every validation rule (tests/config/invalid/*, each
//! with its expected message in *.err), and one example of each peer format
//! (tests/config/peers/*) loaded, shown and run.

use hookhost::{ConfigFile, VerdictKind};
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
        let err = match ConfigFile::load(&path) {
            Ok(_) => panic!("{name} loaded, but it is invalid"),
            Err(e) => e.to_string().replace(&path.display().to_string(), name),
        };
        assert_eq!(err.trim_end(), golden.trim_end(), "{name}");
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} golden files");
}

fn summary(config: &ConfigFile) -> Vec<String> {
    config
        .hooks
        .iter()
        .map(|h| {
            let dialect = h.settings.get("dialect").and_then(|d| d.as_str()).unwrap_or("-");
            format!("{} {} {} {}ms {} {}", h.id, h.event, h.plugin, h.limits.timeout.as_millis(), h.on_error.as_str(), dialect)
        })
        .collect()
}

async fn run(config: ConfigFile, event: serde_json::Value) -> hookhost::Outcome {
    let host = hookhost::Host::from_config(config).await.unwrap_or_else(|e| panic!("{e}"));
    host.dispatch(&hookhost::HookEvent::from_value(event).unwrap()).await
}

#[tokio::test]
async fn everruns_capabilities_json() {
    let config = ConfigFile::load(&dir("peers").join("everruns.json")).unwrap();
    assert_eq!(
        summary(&config),
        [
            "rust_quality_pack:no_force_push pre_tool_use builtin:bash-adapter 5000ms block everruns",
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
    let config = ConfigFile::load(&dir("peers").join("docker-agent.yaml")).unwrap();
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
    let config = ConfigFile::load(&dir("peers").join("claude-settings.json")).unwrap();
    assert_eq!(
        summary(&config),
        // Claude Code's timeouts: the hook's own (120 s), else its default of 600 s.
        // A Claude Code hook's failure does not block (no `onFailure: "block"` here).
        ["user:pre_tool_use_0 pre_tool_use builtin:bash-adapter 120000ms warn claude-code", "user:user_prompt_submit_1 user_prompt_submit builtin:bash-adapter 600000ms warn claude-code"]
    );
    let rm = run(config.clone(), serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf build"}})).await;
    assert_eq!((rm.decision, rm.reason.as_deref()), (VerdictKind::Block, Some("rm is not allowed here")));
    let ls = run(config.clone(), serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}})).await;
    assert!(ls.hooks.is_empty(), "the if rule keeps the hook from running: {ls:?}");
    let prompt = run(config, serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": "hi"})).await;
    assert_eq!(serde_json::to_value(&prompt.effects).unwrap(), serde_json::json!([{"type": "add_context", "text": "Remember: this repo uses tabs."}]));
}

#[tokio::test]
async fn github_copilot_cli_hook_file() {
    let config = ConfigFile::load(&dir("peers").join("copilot-hooks.json")).unwrap();
    // Copilot's default timeout is 30 s; its hooks fail open (a non-zero exit before a tool is
    // read as a deny by the adapter).
    // (Events in the file's key order: Copilot runs each event's hooks on their own.)
    assert_eq!(summary(&config), ["user:post_tool_use_0 post_tool_use builtin:bash-adapter 30000ms warn copilot", "user:pre_tool_use_1 pre_tool_use builtin:bash-adapter 10000ms warn copilot"]);
    let not_run: Vec<(&str, &str)> = config.not_run.iter().map(|n| (n.at.as_str(), n.kind.as_str())).collect();
    assert_eq!(not_run, [("hooks.agentStop[0]", "command"), ("hooks.sessionStart[0]", "prompt")]);
    // Copilot's own payloads: camelCase, no event name.
    let copilot = |extra: serde_json::Value| {
        let mut v = serde_json::json!({"sessionId": "s", "timestamp": 1767225600000u64, "cwd": "/repo"});
        v.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        v
    };
    let rm = run(config.clone(), copilot(serde_json::json!({"toolName": "bash", "toolArgs": {"command": "rm -rf build"}}))).await;
    assert_eq!((rm.decision, rm.reason.as_deref()), (VerdictKind::Block, Some("rm -rf is not allowed here")));
    let ls = run(config.clone(), copilot(serde_json::json!({"toolName": "bash", "toolArgs": {"command": "ls"}}))).await;
    assert_eq!(ls.decision, VerdictKind::Pass);
    let edit = run(config.clone(), copilot(serde_json::json!({"toolName": "edit", "toolArgs": {"command": "rm -rf build"}}))).await;
    assert!(edit.hooks.is_empty(), "the anchored matcher is on the tool name: {edit:?}");
    let leaked = run(config, copilot(serde_json::json!({"toolName": "bash", "toolArgs": {"command": "env"}, "toolResult": {"resultType": "success", "textResultForLlm": "KEY=sk-live-123"}}))).await;
    assert_eq!(leaked.patch.unwrap()["result"], "[REDACTED]");
}

/// Cursor's `hooks.json`: told from Copilot's by its events and `failClosed` (or by its place,
/// `.cursor/hooks.json`); `failClosed` is a hook that blocks when it fails, the matcher is on
/// the whole tool name, and its commands get Cursor's payload and are read in its dialect.
#[tokio::test]
async fn cursor_hook_file() {
    let file = dir("peers").join("cursor-hooks.json");
    let config = ConfigFile::load(&file).unwrap();
    // (Events in key order: Cursor runs each event's hooks on their own.)
    assert_eq!(summary(&config), ["user:user_prompt_submit_0 user_prompt_submit builtin:bash-adapter 30000ms warn cursor", "user:pre_tool_use_1 pre_tool_use builtin:bash-adapter 10000ms block cursor"]);
    let not_run: Vec<(&str, &str)> = config.not_run.iter().map(|n| (n.at.as_str(), n.kind.as_str())).collect();
    assert_eq!(not_run, [("hooks.stop[0]", "prompt")]);
    let cursor = |tool: &str, command: &str| {
        let v = serde_json::json!({"hook_event_name": "preToolUse", "conversation_id": "c1", "generation_id": "g1", "workspace_roots": ["/repo"], "tool_name": tool, "tool_input": {"command": command}});
        hookhost::HookEvent::read(v.to_string().as_bytes(), Some(hookhost::Runtime::Cursor), None).unwrap()
    };
    let host = hookhost::Host::from_config(config).await.unwrap_or_else(|e| panic!("{e}"));
    let rm = host.dispatch(&cursor("Shell", "rm -rf build")).await;
    assert_eq!((rm.decision, rm.reason.as_deref()), (VerdictKind::Block, Some("rm -rf is not allowed here")));
    // Its `permission: "allow"` is every permission hook's "nothing against" (a pass).
    let ls = host.dispatch(&cursor("Shell", "ls")).await;
    assert_eq!((ls.decision, ls.hooks.len()), (VerdictKind::Pass, 1));
    assert!(host.dispatch(&cursor("ShellX", "rm -rf build")).await.hooks.is_empty(), "the matcher is on the whole tool name");

    // With nothing of Cursor's own in it, its place says whose it is; elsewhere it is Copilot's.
    let plain = r#"{"version": 1, "hooks": {"preToolUse": [{"command": "true"}]}}"#;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join(".cursor")).unwrap();
    std::fs::write(tmp.path().join(".cursor/hooks.json"), plain).unwrap();
    std::fs::write(tmp.path().join("hooks.json"), plain).unwrap();
    let dialect = |path: &Path| summary(&ConfigFile::load(path).unwrap())[0].rsplit(' ').next().unwrap().to_string();
    assert_eq!(dialect(&tmp.path().join(".cursor/hooks.json")), "cursor");
    assert_eq!(dialect(&tmp.path().join("hooks.json")), "copilot");
    // What is malformed is named.
    std::fs::write(tmp.path().join(".cursor/hooks.json"), r#"{"version": 2, "hooks": {"stop": [{"command": "x", "failClosed": "yes"}, {"timeout": 5}]}}"#).unwrap();
    let err = ConfigFile::load(&tmp.path().join(".cursor/hooks.json")).unwrap_err().to_string();
    for said in ["version: 2 is not a version hookhost reads; Cursor hook files are version 1", "hooks.stop[0].failClosed: must be true or false", "hooks.stop[1].command: required"] {
        assert!(err.contains(said), "{said} not in: {err}");
    }
}

/// Antigravity CLI's `hooks.json`: named hooks at the top level (one switched off with
/// `enabled: false`), matcher groups on the tool events and bare handlers on the others; read
/// as Antigravity's by its place (`.agents/hooks.json`) or when named; its commands get agy's
/// camelCase payload and are read in its dialect.
#[tokio::test]
async fn antigravity_hooks_json() {
    let file = dir("peers").join("antigravity-hooks.json");
    let config = ConfigFile::load_as(&file, hookhost_config::peer::Format::parse("antigravity")).unwrap();
    assert_eq!(summary(&config), ["user:pre_tool_use_0 pre_tool_use builtin:bash-adapter 10000ms block antigravity", "user:stop_1 stop builtin:bash-adapter 60000ms warn antigravity"]);
    let not_run: Vec<(&str, &str)> = config.not_run.iter().map(|n| (n.at.as_str(), n.kind.as_str())).collect();
    assert_eq!(not_run, [("reminder.PreInvocation[0]", "prompt")]);
    assert!(config.warnings.iter().any(|w| w.starts_with("switched-off: \"enabled\": false")), "{:?}", config.warnings);
    let agy = |tool: &str, command: &str| {
        let v = serde_json::json!({"conversationId": "c1", "stepIdx": 1, "toolCall": {"name": tool, "args": {"CommandLine": command}}, "workspacePaths": ["/repo"]});
        hookhost::HookEvent::read(v.to_string().as_bytes(), Some(hookhost::Runtime::Antigravity), None).unwrap()
    };
    let host = hookhost::Host::from_config(config).await.unwrap_or_else(|e| panic!("{e}"));
    let rm = host.dispatch(&agy("run_command", "rm -rf build")).await;
    assert_eq!((rm.decision, rm.reason.as_deref()), (VerdictKind::Block, Some("rm -rf is not allowed here")));
    let ls = host.dispatch(&agy("run_command", "ls")).await;
    assert_eq!((ls.decision, ls.hooks.len()), (VerdictKind::Pass, 1));
    assert!(host.dispatch(&agy("view_file", "rm -rf build")).await.hooks.is_empty(), "the matcher is on the tool name");

    // Its place says whose it is: a project's `.agents/hooks.json`, agy 1.0's `{"hooks": …}`
    // wrapper read as the hook named `hooks`; elsewhere the same text is Claude Code's.
    let plain = r#"{"hooks": {"PreToolUse": [{"matcher": "", "hooks": [{"type": "command", "command": "true"}]}]}}"#;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join(".agents")).unwrap();
    std::fs::write(tmp.path().join(".agents/hooks.json"), plain).unwrap();
    std::fs::write(tmp.path().join("settings.json"), plain).unwrap();
    let dialect = |path: &Path| summary(&ConfigFile::load(path).unwrap())[0].rsplit(' ').next().unwrap().to_string();
    assert_eq!(dialect(&tmp.path().join(".agents/hooks.json")), "antigravity");
    assert_eq!(dialect(&tmp.path().join("settings.json")), "claude-code");
    // What agy would reject is named.
    std::fs::write(tmp.path().join(".agents/hooks.json"), r#"{"h": {"enabled": "no"}, "g": {"Stop": [{"type": "COMMAND", "command": "x"}], "PreToolUse": [{"matcher": 1, "hooks": []}]}, "f": []}"#).unwrap();
    let err = ConfigFile::load(&tmp.path().join(".agents/hooks.json")).unwrap_err().to_string();
    for said in ["h.enabled: must be true or false", "g.Stop[0].type: \"COMMAND\" is not a hook type Antigravity CLI runs", "g.PreToolUse[0].matcher: must be a string", "f: must be a named hook"] {
        assert!(err.contains(said), "{said} not in: {err}");
    }
}

#[tokio::test]
async fn starchild_shell_hooks_yaml() {
    let config = ConfigFile::load(&dir("peers").join("starchild.yaml")).unwrap();
    assert_eq!(summary(&config), ["user:pre_tool_use_0 pre_tool_use builtin:bash-adapter 5000ms warn starchild"], "Starchild's bridge fails open");
    let out = run(config.clone(), serde_json::json!({"event": "pre_tool_call", "tool_name": "bash", "tool_input": {"command": "mkfs.ext4 /dev/sda1"}})).await;
    assert_eq!((out.decision, out.reason.as_deref()), (VerdictKind::Block, Some("[security] This command is irreversible: mkfs.ext4 /dev/sda1")));
    let ls = run(config, serde_json::json!({"event": "pre_tool_call", "tool_name": "bash", "tool_input": {"command": "ls"}})).await;
    assert!(ls.hooks.is_empty(), "the payload matcher keeps the script from running");
}

/// One peer file per format holding a single `pre_tool_use` hook with this command (and a 1 s
/// timeout), written to `dir`.
fn peer_guard(dir: &Path, format: &str, command: &str) -> PathBuf {
    let json = |v: serde_json::Value| v.to_string();
    let (name, text) = match format {
        "claude-code" => ("settings.json", json(serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": command, "timeout": 1}]}]}}))),
        "everruns" => ("hooks.json", json(serde_json::json!({"capabilities": [{"ref": "user_hooks", "config": {"hooks": [{"id": "guard", "event": "pre_tool_use", "timeout_ms": 1000, "executor": {"type": "bash", "command": command}}]}}]}))),
        "docker-agent" => ("agent.yaml", format!("agents:\n  root:\n    hooks:\n      pre_tool_use:\n        - matcher: '*'\n          hooks:\n            - type: command\n              timeout: 1\n              command: {}\n", json(serde_json::json!(command)))),
        "starchild" => ("shell_hooks.yaml", format!("hooks:\n  - event: pre_tool_call\n    timeout: 1\n    command: {}\n", json(serde_json::json!(command)))),
        other => unreachable!("{other}"),
    };
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

const FORMATS: [&str; 4] = ["claude-code", "everruns", "docker-agent", "starchild"];

/// A converted guard before a tool call that fails (here: it outlives its timeout) does what its
/// runtime documents: it blocks in the Everruns, docker-agent and Starchild formats; in Claude
/// Code's it is a non-blocking error unless the hook sets `onFailure: "block"` — and a
/// hookhost config that includes it can ask for that for every hook (`peer_on_failure`).
#[tokio::test]
async fn a_converted_guard_that_fails_does_what_its_runtime_documents() {
    let tmp = tempfile::tempdir().unwrap();
    let ls = || serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}});
    for format in FORMATS {
        let config = ConfigFile::load(&peer_guard(tmp.path(), format, "sleep 10; echo '{}'")).unwrap_or_else(|e| panic!("{format}: {e}"));
        // Claude Code and Starchild document a failed hook as non-blocking; Everruns and
        // docker-agent fail closed before a tool call.
        let blocks = !matches!(format, "claude-code" | "starchild");
        assert_eq!(config.hooks[0].on_error, if blocks { hookhost::OnError::Block } else { hookhost::OnError::Warn }, "{format}");
        let out = run(config, ls()).await;
        assert_eq!(out.decision, if blocks { VerdictKind::Block } else { VerdictKind::Pass }, "{format}: {out:?}");
        assert!(out.hooks[0].error.as_deref().is_some_and(|e| e.contains("timed out after 1000 ms")), "{format}: the failure is recorded either way: {out:?}");
        if blocks {
            assert_eq!(out.reason.as_deref(), Some("hook failed: timed out after 1000 ms"), "{format}");
        }
    }
    // Claude Code's own opt-in.
    let settings = tmp.path().join("strict.json");
    std::fs::write(&settings, serde_json::json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "exit 1", "onFailure": "block"}]}]}}).to_string()).unwrap();
    let out = run(ConfigFile::load(&settings).unwrap(), ls()).await;
    assert_eq!(out.decision, VerdictKind::Block, "{out:?}");
    std::fs::write(&settings, serde_json::json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "exit 1", "onFailure": "sometimes"}]}]}}).to_string()).unwrap();
    let err = ConfigFile::load(&settings).unwrap_err().to_string();
    assert!(err.contains("onFailure: \"sometimes\" is not \"block\" or \"continue\""), "{err}");
    // hookhost's own: every hook of an included peer file fails closed.
    let lax = peer_guard(tmp.path(), "claude-code", "exit 1");
    let native = tmp.path().join("hooks.toml");
    std::fs::write(&native, format!("peer_on_failure = \"block\"\n[[peers]]\npath = {:?}\n", lax.display().to_string())).unwrap();
    let out = run(ConfigFile::load(&native).unwrap(), ls()).await;
    assert_eq!(out.decision, VerdictKind::Block, "{out:?}");
    std::fs::write(&native, format!("[[peers]]\npath = {:?}\n", lax.display().to_string())).unwrap();
    let out = run(ConfigFile::load(&native).unwrap(), ls()).await;
    assert_eq!((out.decision, out.hooks[0].error.as_deref()), (VerdictKind::Pass, Some("builtin:bash-adapter returned an error: hook exited with status 1")), "{out:?}");
}

/// A converted hook whose command needs a program or a script file the sandbox does not have
/// loads (the file loads whole), and on the event it guards blocks, naming the hook and the
/// fix — never a pass, in every format.
#[tokio::test]
async fn converted_hooks_that_cannot_run_in_the_sandbox_load_and_block_naming_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    for (format, id) in [("claude-code", "user:pre_tool_use_0"), ("everruns", "user:guard"), ("docker-agent", "user:root_pre_tool_use_0"), ("starchild", "user:pre_tool_use_0")] {
        // An Everruns hook runs in the session's workspace: no project is mounted for it.
        let missing_file = if format == "everruns" { "the file ./scripts/validate.sh" } else { "the file ./scripts/validate.sh (not in the project)" };
        for (command, what) in [("node \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.js", "`node`"), ("./scripts/validate.sh", missing_file), ("python3 .claude/hooks/check.py || uv run x", "`python3`, `uv`")] {
            let config = ConfigFile::load(&peer_guard(tmp.path(), format, command)).unwrap();
            let out = run(config, serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}})).await;
            assert_eq!(out.decision, VerdictKind::Block, "{format} {command}");
            let reason = out.reason.unwrap();
            assert!(reason.starts_with(&format!("hook {id} could not start, so it cannot vouch for this action: it runs {what}, which the sandbox does not have")), "{format}: {reason}");
        }
    }
}

/// `check` reports every converted hook that cannot run in the sandbox, each with what it needs.
#[tokio::test]
async fn every_unrunnable_converted_hook_is_reported_at_once() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("settings.json");
    let hooks = serde_json::json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "node guard.js"}]}],
        "PostToolUse": [{"hooks": [{"type": "command", "command": "echo ok"}, {"type": "command", "command": "./fmt.sh"}]}]
    }});
    std::fs::write(&path, hooks.to_string()).unwrap();
    let host = hookhost::Host::from_config(ConfigFile::load(&path).unwrap()).await.unwrap_or_else(|e| panic!("{e}"));
    let report = host.report().await;
    let unrunnable: Vec<(String, String)> = report.iter().filter(|r| !r.runnable).map(|r| (r.id.clone(), r.notes[0].clone())).collect();
    // Events in the file's key order as JSON objects are read (sorted), hooks numbered in turn.
    assert_eq!(unrunnable.len(), 2, "{report:?}");
    assert_eq!(unrunnable[0].0, "user:post_tool_use_1");
    assert!(unrunnable[0].1.starts_with("the command cannot run in the sandbox: it runs the file ./fmt.sh (not in the project)"), "{unrunnable:?}");
    assert_eq!(unrunnable[1].0, "user:pre_tool_use_2");
    assert!(unrunnable[1].1.starts_with("the command cannot run in the sandbox: it runs `node`"), "{unrunnable:?}");
}
