//! Peer configuration files as projects ship them (issue #19): every event of each runtime
//! loads, documented handler fields work, hooks hookhost does not run are listed, converted
//! hooks run where they can (a real process under `process:exec`, else the sandbox with the
//! project mounted read-only), a hook that cannot start blocks the events it guards, and
//! lifecycle matchers test their documented field.

use hookhost::{ConfigFile, Host, HookEvent, Outcome, Runs, VerdictKind};
use hookhost_tests::{fresh_session, have};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A project directory holding `.claude/settings.json` (and any other files given).
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new(settings: Value, files: &[(&str, &str)]) -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".claude/hooks")).unwrap();
        std::fs::write(dir.path().join(".claude/settings.json"), serde_json::to_string_pretty(&settings).unwrap()).unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
        Project { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn settings(&self) -> PathBuf {
        self.root().join(".claude/settings.json")
    }

    fn config(&self) -> ConfigFile {
        ConfigFile::load(&self.settings()).unwrap_or_else(|e| panic!("{e}"))
    }

    async fn host(&self, grant: bool) -> Host {
        let mut b = Host::builder().config(self.config());
        if grant {
            b = b.grant_all(hookhost::Capability::ProcessExec);
        }
        b.build().await.unwrap_or_else(|e| panic!("{e}"))
    }
}

fn ev(v: Value) -> HookEvent {
    HookEvent::from_value(v).unwrap()
}

fn pre_bash(command: &str) -> HookEvent {
    ev(json!({"hook_event_name": "PreToolUse", "session_id": fresh_session("peer"), "tool_name": "Bash", "tool_input": {"command": command}}))
}

fn command(cmd: &str) -> Value {
    json!({"type": "command", "command": cmd})
}

/// Claude Code's hook events as its hooks reference lists them.
const CLAUDE_EVENTS: [&str; 33] = [
    "PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "PermissionDenied", "PostToolBatch", "UserPromptSubmit",
    "UserPromptExpansion", "Stop", "StopFailure", "SubagentStart", "SubagentStop", "SessionStart", "SessionEnd", "Setup", "PreCompact",
    "PostCompact", "Notification", "Elicitation", "ElicitationResult", "ConfigChange", "InstructionsLoaded", "FileChanged", "CwdChanged",
    "TeammateIdle", "TaskCreated", "TaskCompleted", "WorktreeCreate", "WorktreeRemove", "PreModelSwitch", "PostModelSwitch",
    "MessageDisplay", "DirectoryAdded",
];

#[tokio::test]
async fn every_claude_code_event_loads_and_unmodelled_ones_run_as_custom_events() {
    let mut hooks = serde_json::Map::new();
    for name in CLAUDE_EVENTS.iter().chain(&["SomeFutureEvent"]) {
        hooks.insert(name.to_string(), json!([{"hooks": [command(&format!("echo '{{\"systemMessage\":\"{name}\"}}'"))]}]));
    }
    hooks.insert("not an event".into(), json!([{"hooks": [command("true")]}]));
    let p = Project::new(json!({ "hooks": hooks }), &[]);
    let config = p.config();
    assert_eq!(config.hooks.len(), 34, "every event of the file, the unknown one included");
    let events: Vec<String> = config.hooks.iter().map(|h| h.event.config_name()).collect();
    for modelled in ["pre_tool_use", "permission_request", "post_tool_use", "user_prompt_submit", "stop", "subagent_stop", "session_start", "session_end", "pre_compact", "post_compact", "notification"] {
        assert!(events.contains(&modelled.to_string()), "{modelled} in {events:?}");
    }
    for custom in ["custom:PostToolUseFailure", "custom:SubagentStart", "custom:TaskCompleted", "custom:SomeFutureEvent"] {
        assert!(events.contains(&custom.to_string()), "{custom} in {events:?}");
    }
    assert_eq!(
        config.warnings,
        [
            "hooks.SomeFutureEvent: \"SomeFutureEvent\" is not a Claude Code event hookhost knows; its hooks run on custom:SomeFutureEvent events, and their matchers are ignored",
            "hooks.not an event: \"not an event\" is not an event name; ignored",
        ]
    );
    // An unmodelled event from the runtime reaches its hooks with its payload.
    let host = p.host(false).await;
    let out = host.dispatch(&ev(json!({"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "error": "exit 1"}))).await;
    assert_eq!(serde_json::to_value(&out.effects).unwrap(), json!([{"type": "notify_user", "text": "PostToolUseFailure"}]));
    assert_eq!(out.decision, VerdictKind::Pass, "custom events are advisory");
}

#[tokio::test]
async fn hooks_hookhost_does_not_run_load_and_are_listed_with_why() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/not-run");
    let listed = |file: &str| -> Vec<String> {
        let config = ConfigFile::load(&dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(config.hooks.is_empty(), "{file}");
        config.not_run.iter().map(|n| format!("{} ({} on {}): {}", n.at, n.kind, n.event, n.why)).collect()
    };
    assert_eq!(listed("claude_prompt_hook.json"), ["hooks.Stop[0].hooks[0] (prompt on stop): a prompt hook asks a model to decide; hookhost runs programs, not model calls"]);
    assert_eq!(listed("docker_unknown_builtin.yaml"), ["agents.root.hooks.turn_start[0] (builtin add_date on turn_start): hookhost has no built-in like docker-agent's \"add_date\" (it provides redact_secrets as builtin:redact-secrets); write it as a command hook"]);
    // Beside hooks that run, in one file: the file loads whole.
    let p = Project::new(
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "http", "url": "http://127.0.0.1:9/hook", "headers": {"X": "1"}},
            {"type": "agent", "prompt": "Verify: $ARGUMENTS"},
            {"type": "command", "command": "exit 0"}
        ]}]}}),
        &[],
    );
    let host = p.host(false).await;
    // The http hook runs (tests/http_hooks.rs), under a net grant.
    assert_eq!(host.hook_ids().collect::<Vec<_>>(), ["user:pre_tool_use_0", "user:pre_tool_use_1"]);
    let kinds: Vec<&str> = host.not_run().iter().map(|n| n.kind.as_str()).collect();
    assert_eq!(kinds, ["agent"]);
}

#[tokio::test]
async fn documented_handler_fields_work_and_undocumented_ones_are_ignored_with_a_warning() {
    let p = Project::new(
        json!({"hooks": {
            "PreToolUse": [{"matcher": "Bash", "description": "group note", "hooks": [
                // Exec form: the program and its arguments, no shell.
                {"type": "command", "command": "sh", "args": ["-c", "echo \"$0 $1\" >&2; exit 2", "exec", "form"], "statusMessage": "Checking…", "blocking": true}
            ]}],
            "UserPromptSubmit": [{"hooks": [
                {"type": "command", "command": "echo once", "once": true},
                {"type": "command", "command": "echo '{\"decision\":\"block\",\"reason\":\"async\"}'; exit 2", "async": true}
            ]}]
        }}),
        &[],
    );
    let config = p.config();
    assert_eq!(
        config.warnings,
        [
            "hooks.PreToolUse[0].description: not a field this runtime documents; ignored",
            "hooks.PreToolUse[0].hooks[0].blocking: not a field this runtime documents; ignored",
        ]
    );
    let spec = &config.hooks[0];
    assert_eq!(spec.description.as_deref(), Some("Checking…"), "statusMessage describes the hook");
    assert_eq!(spec.settings["argv"], json!(["sh", "-c", "echo \"$0 $1\" >&2; exit 2", "exec", "form"]));
    let host = p.host(false).await;
    let out = host.dispatch(&pre_bash("ls")).await;
    assert_eq!((out.decision, out.reason.as_deref()), (VerdictKind::Block, Some("exec form")));

    // once: the first prompt of a session only; async: after the decision, never a block.
    let session = fresh_session("once");
    let prompt = ev(json!({"hook_event_name": "UserPromptSubmit", "session_id": session, "prompt": "hi"}));
    let first = host.dispatch(&prompt).await;
    assert_eq!((first.decision, first.hooks.len()), (VerdictKind::Pass, 1), "{first:?}");
    assert_eq!(serde_json::to_value(&first.effects).unwrap(), json!([{"type": "add_context", "text": "once"}]));
    let second = host.dispatch(&prompt).await;
    assert!(second.hooks.is_empty(), "the once hook ran already in this session: {second:?}");
    let background = host.dispatch_background(&prompt).await;
    assert_eq!(background.len(), 1);
    assert_eq!((background[0].decision, background[0].ignored), (VerdictKind::Block, true), "its block is recorded, and changes nothing");
    let other = host.dispatch(&ev(json!({"hook_event_name": "UserPromptSubmit", "session_id": fresh_session("once"), "prompt": "hi"}))).await;
    assert_eq!(other.hooks.len(), 1, "a new session runs it again");
}

#[tokio::test]
async fn lifecycle_matchers_test_the_documented_field_of_each_event() {
    let group = |matcher: &str, text: &str| json!([{"matcher": matcher, "hooks": [command(&format!("echo '{{\"systemMessage\":\"{text}\"}}'"))]}]);
    let p = Project::new(
        json!({"hooks": {
            "SessionStart": group("startup|resume", "start"),
            "SessionEnd": group("logout", "end"),
            "Notification": group("idle_prompt", "idle"),
            "PreCompact": group("manual", "compact"),
            "SubagentStop": group("code-reviewer", "reviewed"),
            "PostToolUseFailure": group("Bash", "bash failed"),
            "ConfigChange": group("^project_", "config"),
        }}),
        &[],
    );
    let host = p.host(false).await;
    let fired = |out: Outcome| out.effects.iter().filter_map(|e| serde_json::to_value(e).ok()).map(|v| v["text"].as_str().unwrap_or("").to_string()).collect::<Vec<_>>();
    let cases: &[(Value, &[&str])] = &[
        (json!({"hook_event_name": "SessionStart", "source": "resume"}), &["start"]),
        (json!({"hook_event_name": "SessionStart", "source": "startup"}), &["start"]),
        // The whole payload mentions "resume"; the source does not match.
        (json!({"hook_event_name": "SessionStart", "source": "clear", "note": "resume"}), &[]),
        (json!({"hook_event_name": "SessionEnd", "reason": "logout"}), &["end"]),
        (json!({"hook_event_name": "SessionEnd", "reason": "clear"}), &[]),
        (json!({"hook_event_name": "Notification", "message": "waiting", "notification_type": "idle_prompt"}), &["idle"]),
        (json!({"hook_event_name": "Notification", "message": "idle_prompt", "notification_type": "permission_prompt"}), &[]),
        (json!({"hook_event_name": "PreCompact", "trigger": "manual"}), &["compact"]),
        (json!({"hook_event_name": "PreCompact", "trigger": "auto", "custom_instructions": "manual"}), &[]),
        (json!({"hook_event_name": "SubagentStop", "agent_type": "code-reviewer", "stop_hook_active": false}), &["reviewed"]),
        (json!({"hook_event_name": "SubagentStop", "agent_type": "Explore", "stop_hook_active": false}), &[]),
        (json!({"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "error": "x"}), &["bash failed"]),
        (json!({"hook_event_name": "PostToolUseFailure", "tool_name": "Edit", "error": "Bash"}), &[]),
        (json!({"hook_event_name": "ConfigChange", "source": "project_settings"}), &["config"]),
        (json!({"hook_event_name": "ConfigChange", "source": "user_settings"}), &[]),
    ];
    for (event, want) in cases {
        assert_eq!(fired(host.dispatch(&ev(event.clone())).await), *want, "{event}");
    }
}

const GUARD_SH: &str = "#!/usr/bin/env bash\ncmd=$(jq -r '.tool_input.command')\ncase \"$cmd\" in *--no-verify*) echo \"no --no-verify in $(basename \"$PWD\")\" >&2; exit 2;; esac\n";
const GUARD_PY: &str = "#!/usr/bin/env python3\nimport json, os, sys\ne = json.load(sys.stdin)\nif 'rm -rf' in e['tool_input'].get('command', ''):\n    print(f\"python guard in {os.getcwd() == os.environ['CLAUDE_PROJECT_DIR']}: {os.environ.get('TEAM')}\", file=sys.stderr)\n    sys.exit(2)\n";

fn guarded_project() -> Project {
    Project::new(
        json!({
            "env": {"TEAM": "platform"},
            "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                command("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh"),
                command("python3 .claude/hooks/guard.py")
            ]}]}
        }),
        &[(".claude/hooks/guard.sh", GUARD_SH), (".claude/hooks/guard.py", GUARD_PY)],
    )
}

#[tokio::test]
async fn in_the_sandbox_project_scripts_run_and_a_hook_that_cannot_start_blocks_naming_the_fix() {
    let p = guarded_project();
    let host = p.host(false).await;
    let name = p.root().file_name().unwrap().to_str().unwrap().to_string();
    // The shell script of the project runs in the sandbox, in the project directory.
    let out = host.dispatch(&pre_bash("git commit --no-verify")).await;
    assert_eq!(out.reason.as_deref(), Some(format!("no --no-verify in {name}").as_str()));
    // The Python one cannot: a block naming the hook, what is missing, and the fix.
    let out = host.dispatch(&pre_bash("ls")).await;
    assert_eq!(out.decision, VerdictKind::Block);
    assert_eq!(
        out.reason.as_deref(),
        Some("hook user:pre_tool_use_1 could not start, so it cannot vouch for this action: it runs `python3`, which the sandbox does not have (it provides bash built-ins such as jq, grep and sed, and its filesystem holds only the project, read-only); to run it as a real process, as its runtime would, grant it process:exec (`--grant process:exec`, or grants = [\"process:exec\"] on its [[peers]] entry) (or set peer_start_failure = \"warn\" to let such failures pass)")
    );
    // `check` says so before any event arrives.
    let report = host.report().await;
    assert_eq!(report.iter().map(|r| (r.runs, r.runnable)).collect::<Vec<_>>(), [(Runs::Sandbox, true), (Runs::Sandbox, false)]);
    assert!(report[1].notes[0].starts_with("the command cannot run in the sandbox: it runs `python3`"), "{:?}", report[1].notes);
    assert_eq!(report[0].timeout, std::time::Duration::from_secs(600), "Claude Code's default timeout");
}

#[tokio::test]
async fn under_process_exec_converted_hooks_run_as_their_runtime_runs_them() {
    if !have("python3") || !have("jq") {
        return;
    }
    let p = guarded_project();
    let host = p.host(true).await;
    assert!(host.report().await.iter().all(|r| r.runs == Runs::HostProcess && r.runnable));
    // The project as working directory, $CLAUDE_PROJECT_DIR, settings.json's env.
    let out = host.dispatch(&pre_bash("rm -rf build")).await;
    assert_eq!((out.decision, out.reason.as_deref()), (VerdictKind::Block, Some("python guard in True: platform")));
    let name = p.root().file_name().unwrap().to_str().unwrap().to_string();
    let out = host.dispatch(&pre_bash("git commit --no-verify")).await;
    assert_eq!(out.reason.as_deref(), Some(format!("no --no-verify in {name}").as_str()));
    assert_eq!(host.dispatch(&pre_bash("ls")).await.decision, VerdictKind::Pass);
}

#[tokio::test]
async fn a_host_process_that_cannot_start_blocks_a_guarded_event_and_warns_an_advisory_one() {
    let p = Project::new(
        json!({"hooks": {
            "PreToolUse": [{"hooks": [command("hookhost-no-such-interpreter .claude/hooks/x.js")]}],
            "Stop": [{"hooks": [command("python3 .claude/hooks/missing.py")]}],
            "PostToolUse": [{"hooks": [command("hookhost-no-such-interpreter x")]}]
        }}),
        &[],
    );
    let host = p.host(true).await;
    let out = host.dispatch(&pre_bash("ls")).await;
    assert_eq!(out.decision, VerdictKind::Block);
    let reason = out.reason.unwrap();
    assert!(reason.starts_with("hook user:pre_tool_use_1 could not start, so it cannot vouch for this action: could not start the hook command: bash: line 1: hookhost-no-such-interpreter: command not found; install what it runs or fix the path"), "{reason}");
    if have("python3") {
        let stop = host.dispatch(&ev(json!({"hook_event_name": "Stop", "session_id": fresh_session("stop"), "stop_hook_active": false}))).await;
        assert_eq!(stop.decision, VerdictKind::Block, "a missing script is a start failure, not Claude Code's exit-2 block: {stop:?}");
        assert!(stop.reason.unwrap().contains("can't open file"));
    }
    let post = host.dispatch(&ev(json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {}, "tool_response": "ok"}))).await;
    assert_eq!(post.decision, VerdictKind::Pass);
    assert!(post.hooks[0].error.as_deref().unwrap().contains("command not found"), "advisory: a warning in the trace: {post:?}");
}

#[tokio::test]
async fn a_hookhost_config_includes_peer_files_with_their_grants_and_start_failure_policy() {
    if !have("python3") {
        return;
    }
    let p = guarded_project();
    let native = p.root().join("hooks.toml");
    std::fs::write(&native, "peer_start_failure = \"warn\"\n\n[[peers]]\npath = \".claude/settings.json\"\ngrants = [\"process:exec\"]\n\n[[peers]]\npath = \"sidecar.yaml\"\nformat = \"starchild\"\n").unwrap();
    std::fs::write(p.root().join("sidecar.yaml"), "hooks:\n  - event: pre_tool_call\n    command: node never-installed.js\n").unwrap();
    let config = ConfigFile::load(&native).unwrap_or_else(|e| panic!("{e}"));
    let ids: Vec<&str> = config.hooks.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["claude-code:pre_tool_use_0", "claude-code:pre_tool_use_1", "starchild:pre_tool_use_0"]);
    let host = Host::builder().config(config).build().await.unwrap_or_else(|e| panic!("{e}"));
    let runs: Vec<Runs> = host.report().await.iter().map(|r| r.runs).collect();
    assert_eq!(runs, [Runs::HostProcess, Runs::HostProcess, Runs::Sandbox], "the grant is the included file's alone");
    let out = host.dispatch(&pre_bash("rm -rf build")).await;
    assert_eq!(out.reason.as_deref(), Some("python guard in True: platform"));
    // peer_start_failure = "warn": the Starchild hook that cannot start is an executor error;
    // its on_error decides: Starchild's bridge fails open, so it passes, with the error recorded.
    let out = host.dispatch(&pre_bash("ls")).await;
    assert_eq!(out.decision, VerdictKind::Pass);
    assert!(out.hooks.iter().any(|h| h.error.as_deref().is_some_and(|e| e.contains("it runs `node`"))), "{out:?}");

    // Mistakes in [[peers]] name the entry and the fix.
    let bad = |toml: &str| ConfigFile::parse(toml, Path::new("h.toml"), p.root()).unwrap_err().to_string();
    assert_eq!(
        bad("[[peers]]\npath = \"nope.json\"\n"),
        format!("h.toml: peers[0].path: cannot read {}/nope.json (No such file or directory (os error 2)); check the path (it is relative to this config)", p.root().display())
    );
    assert_eq!(bad("[[peers]]\npath = \".claude/settings.json\"\nformat = \"native\"\n"), "h.toml: peers[0].format: \"native\" is not a peer format; use everruns, claude-code, docker-agent, starchild, copilot, cursor, antigravity");
    assert!(bad("[[peers]]\npath = \".claude/settings.json\"\ngrants = [\"net:all\"]\n").starts_with("h.toml: peers[0].grants: "));
    assert_eq!(bad("[[peers]]\npath = \"/dev/zero\"\n"), "h.toml: peers[0].path: cannot read /dev/zero (not a regular file); check the path (it is relative to this config)");
    assert_eq!(bad("[[peers]]\npath = \"hooks.toml\"\n"), format!("h.toml: peers[0].path: {} is a native hookhost config, not a peer file; merge its hooks into this one", native.display()));
}

#[test]
fn every_docker_agent_and_starchild_event_loads() {
    let tmp = tempfile::tempdir().unwrap();
    // docker-agent's events (its hooks reference): modelled ones map, the rest are custom.
    let docker = [
        ("pre_tool_use", "pre_tool_use"), ("tool_response_transform", "tool_result_transform"), ("post_tool_use", "post_tool_use"),
        ("permission_request", "permission_request"), ("session_start", "session_start"), ("user_prompt_submit", "user_prompt_submit"),
        ("user_steering_messages_submit", "custom:user_steering_messages_submit"), ("user_followup_submit", "custom:user_followup_submit"),
        ("turn_start", "turn_start"), ("turn_end", "turn_end"), ("before_llm_call", "before_model_call"), ("after_llm_call", "after_model_call"),
        ("session_end", "session_end"), ("pre_compact", "pre_compact"), ("before_compaction", "pre_compact"), ("after_compaction", "post_compact"),
        ("subagent_stop", "subagent_stop"), ("on_user_input", "notification"), ("stop", "stop"), ("notification", "notification"),
        ("on_error", "custom:on_error"), ("on_max_iterations", "custom:on_max_iterations"), ("on_agent_switch", "custom:on_agent_switch"),
        ("on_session_resume", "custom:on_session_resume"), ("on_tool_approval_decision", "custom:on_tool_approval_decision"), ("worktree_create", "custom:worktree_create"),
    ];
    let mut yaml = String::from("agents:\n  root:\n    hooks:\n");
    for (name, _) in docker {
        yaml.push_str(&format!("      {name}:\n        - type: command\n          command: \"true\"\n"));
    }
    let path = tmp.path().join("agent.yaml");
    std::fs::write(&path, yaml).unwrap();
    let config = ConfigFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut got: Vec<String> = config.hooks.iter().map(|h| h.event.config_name()).collect();
    let mut want: Vec<String> = docker.iter().map(|(_, e)| e.to_string()).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want);

    // Starchild's events (its agent-hooks guide): `on_response_end`, `on_outbound_message` and
    // `on_completion_claim` have no canonical counterpart yet.
    let starchild = [
        ("on_user_message", "user_prompt_submit"), ("pre_tool_call", "pre_tool_use"), ("post_tool_call", "post_tool_use"),
        ("transform_tool_result", "tool_result_transform"), ("pre_llm_call", "before_model_call"), ("post_llm_call", "after_model_call"),
        ("on_response_end", "custom:on_response_end"), ("on_stop", "stop"), ("on_outbound_message", "custom:on_outbound_message"),
        ("on_completion_claim", "custom:on_completion_claim"), ("on_session_start", "session_start"), ("on_session_end", "session_end"),
    ];
    let mut yaml = String::from("hooks:\n");
    for (name, _) in starchild {
        yaml.push_str(&format!("  - event: {name}\n    command: \"true\"\n"));
    }
    yaml.push_str("  - event: \"not an event\"\n    command: \"true\"\n");
    let path = tmp.path().join("shell_hooks.yaml");
    std::fs::write(&path, yaml).unwrap();
    let config = ConfigFile::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<String> = config.hooks.iter().map(|h| h.event.config_name()).collect();
    assert_eq!(got, starchild.iter().map(|(_, e)| e.to_string()).collect::<Vec<_>>());
    assert_eq!(config.warnings, ["hooks[12].event: \"not an event\" is not an event name; ignored"]);
}
