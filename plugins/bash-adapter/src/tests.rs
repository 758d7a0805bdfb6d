//! The exit-code conformance table (each runtime's hooks reference), one test per row, every dialect; and the
//! sandbox interpreter running real scripts natively.

use super::*;
use crate::dialect::{Dialect as D, Exit, Run};
use crate::verdict::interpret;

const ALL: [D; 4] = [D::Everruns, D::DockerAgent, D::ClaudeCode, D::Starchild];

fn pre() -> Event {
    Event::pre_tool_use("bash", json!({"command": "ls"}))
}

fn blocked(reason: &str) -> Result<Decision, String> {
    Ok(Decision { verdict: Verdict::Block { reason: Some(reason.into()), user_message: None }, effects: vec![] })
}

fn table(run: Run, event: &Event, want: [Result<Decision, String>; 4]) {
    for (dialect, want) in ALL.into_iter().zip(want) {
        let got = interpret(dialect, event, &run);
        match (&got, &want) {
            (Err(g), Err(w)) => assert!(g.contains(w.as_str()), "{dialect:?}: error {g:?} lacks {w:?}"),
            _ => assert_eq!(got, want, "{dialect:?} on {run:?}"),
        }
    }
}

#[test]
fn exit_0_empty_stdout() {
    table(Run::new(0, "", ""), &pre(), [Ok(Decision::allow()), Ok(Decision::pass()), Ok(Decision::pass()), Ok(Decision::pass())]);
}

#[test]
fn exit_1_empty_stdout() {
    table(
        Run::new(1, "", "nope\n"),
        &pre(),
        [blocked("nope"), Err("hook exited with status 1: nope".into()), Err("hook exited with status 1: nope".into()), Ok(Decision::pass())],
    );
}

#[test]
fn exit_2_empty_stdout() {
    table(Run::new(2, "", "dangerous\n"), &pre(), [blocked("dangerous"), blocked("dangerous"), blocked("dangerous"), blocked("dangerous")]);
}

#[test]
fn json_block_decision() {
    let out = r#"{"decision":"block","reason":"no"}"#;
    table(Run::new(0, out, ""), &pre(), [blocked("no"), blocked("no"), blocked("no"), blocked("no")]);
}

#[test]
fn exit_2_blocks_even_when_the_json_allows() {
    let out = r#"{"hookSpecificOutput":{"permissionDecision":"allow"}}"#;
    assert_eq!(interpret(D::ClaudeCode, &pre(), &Run::new(2, out, "stop")), blocked("stop"));
    let docker = r#"{"decision": "block", "reason": "Dangerous command blocked by policy"}"#;
    assert_eq!(interpret(D::DockerAgent, &pre(), &Run::new(2, docker, "")), blocked("Dangerous command blocked by policy"));
}

#[test]
fn plain_text_stdout() {
    table(Run::new(0, "hello\n", ""), &pre(), [Err("neither nothing nor a JSON decision".into()), Ok(Decision::pass()), Ok(Decision::pass()), Ok(Decision::pass())]);
    let prompt = Event::user_prompt("hi");
    let ctx = Ok(Decision::pass().add_context("hello"));
    table(Run::new(0, "hello\n", ""), &prompt, [Err("neither nothing nor a JSON decision".into()), ctx.clone(), ctx, Ok(Decision::pass())]);
}

#[test]
fn timeout_and_failure_to_start() {
    for exit in [Exit::TimedOut, Exit::StartFailed("cannot start \"nope\"".into()), Exit::Code(127)] {
        let run = Run { exit: exit.clone(), stdout: String::new(), stderr: "bash: nope: command not found".into() };
        // An executor error in every dialect: the converted hook's on_error decides (Starchild's
        // documented fail-open is `warn`, except before a tool call).
        for d in ALL {
            assert!(interpret(d, &pre(), &run).is_err(), "{d:?} {exit:?}");
        }
    }
}

#[test]
fn a_missing_script_is_an_error_even_when_the_launcher_exits_2() {
    let run = Run::new(2, "", "python3: can't open file '/x/missing.py': [Errno 2] No such file or directory");
    for d in [D::Everruns, D::DockerAgent, D::ClaudeCode] {
        let err = interpret(d, &pre(), &run).unwrap_err();
        assert!(err.starts_with("could not start the hook command: python3: can't open file"), "{d:?}: {err}");
    }
    let bash = Run::new(127, "", "bash: ./scripts/validate.sh: No such file or directory");
    assert!(interpret(D::ClaudeCode, &pre(), &bash).is_err());
}

#[test]
fn overflow_half_json_and_non_object_json() {
    let overflow = Run { exit: Exit::Overflow, stdout: String::new(), stderr: String::new() };
    for d in ALL {
        assert_eq!(interpret(d, &pre(), &overflow).unwrap_err(), "hook output exceeded 64 KiB (stdout and stderr together)");
    }
    let half = Run::new(0, r#"{"decision":"bl"#, "");
    for d in [D::Everruns, D::DockerAgent, D::ClaudeCode] {
        assert!(interpret(d, &pre(), &half).unwrap_err().starts_with("hook printed invalid JSON"), "{d:?}");
    }
    assert_eq!(interpret(D::Starchild, &pre(), &half), Ok(Decision::pass()));
    let array = Run::new(0, "[1,2]", "");
    assert!(interpret(D::Everruns, &pre(), &array).is_err());
    assert_eq!(interpret(D::ClaudeCode, &pre(), &array), Ok(Decision::pass()), "not JSON-object stdout is plain text");
}

#[test]
fn peer_json_maps_onto_canonical_effects() {
    let out = r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check","updatedInput":{"command":"ls -a"},"additionalContext":"ctx"},"systemMessage":"hi"}"#;
    assert_eq!(
        interpret(D::ClaudeCode, &pre(), &Run::new(0, out, "")),
        Ok(Decision::ask("check").rewrite_input(json!({"command": "ls -a"})).add_context("ctx").notify_user("hi"))
    );
    let halt = r#"{"continue":false,"stopReason":"enough"}"#;
    assert_eq!(interpret(D::ClaudeCode, &pre(), &Run::new(0, halt, "")), Ok(Decision::halt("enough")));
    assert_eq!(interpret(D::Starchild, &pre(), &Run::new(0, halt, "")), blocked("enough"), "starchild: continue:false blocks");
    let meta = r#"{"hook_specific_output":{"metadata":{"risk":"high"}}}"#;
    let perm = Event::PermissionRequest(ToolCall { name: "shell".into(), call_id: "c".into(), arguments: json!({"cmd": "rm x"}) });
    assert_eq!(interpret(D::DockerAgent, &perm, &Run::new(0, meta, "")), Ok(Decision::pass().annotate("risk", "high")));
    let everruns = r#"{"decision":"mutate","patch":{"message":"[reminder] hi"}}"#;
    assert_eq!(interpret(D::Everruns, &Event::user_prompt("hi"), &Run::new(0, everruns, "")), Ok(Decision::allow().rewrite_prompt("[reminder] hi")));
    let starchild = r#"{"tool_input":{"command":"ls -l","new_key":1}}"#;
    assert_eq!(interpret(D::Starchild, &pre(), &Run::new(0, starchild, "")), Ok(Decision::pass().rewrite_input(json!({"command": "ls -l"}))), "existing keys only");
}

#[test]
fn gemini_cli_results_read_as_its_hooks_reference_says() {
    let run = |code, out: &str, err: &str| interpret(D::GeminiCli, &pre(), &Run::new(code, out, err));
    assert_eq!(run(0, "", ""), Ok(Decision::pass()));
    assert_eq!(run(2, "", "dangerous\n"), blocked("dangerous"), "exit 2 is its system block");
    assert_eq!(run(1, "", "oops"), Err("hook exited with status 1: oops".into()), "other exits are warnings: an executor error");
    assert_eq!(run(0, r#"{"decision":"deny","reason":"no"}"#, ""), blocked("no"));
    assert_eq!(run(0, r#"{"decision":"block","reason":"no"}"#, ""), blocked("no"));
    assert_eq!(run(0, r#"{"decision":"allow","reason":"fine"}"#, ""), Ok(Decision::allow_because("fine")));
    assert_eq!(run(0, r#"{"continue":false,"stopReason":"enough"}"#, ""), Ok(Decision::halt("enough")));
    let rewrite = r#"{"hookSpecificOutput":{"hookEventName":"BeforeTool","tool_input":{"command":"ls -a"}},"systemMessage":"hi"}"#;
    assert_eq!(run(0, rewrite, ""), Ok(Decision::pass().rewrite_input(json!({"command": "ls -a"})).notify_user("hi")));
    assert_eq!(run(0, "plain words", ""), Ok(Decision::pass().notify_user("plain words")), "text on stdout is a system message");
    let context = r#"{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"it is Monday"}}"#;
    assert_eq!(interpret(D::GeminiCli, &Event::user_prompt("hi"), &Run::new(0, context, "")), Ok(Decision::pass().add_context("it is Monday")));
    assert_eq!(crate::dialect::Dialect::parse("codex").map(D::dialect), Some(D::ClaudeCode), "Codex speaks Claude Code's protocol");
}

#[test]
fn gemini_cli_gets_its_own_event_names_and_fields() {
    let ctx = Context { session_id: "s1".into(), ts: "2026-11-24T00:00:00Z".into(), ..Context::default() };
    let d = crate::dialect::deliver(D::GeminiCli, &pre(), &ctx, "/p");
    let v: Value = serde_json::from_str(&d.json).unwrap();
    assert_eq!((v["hook_event_name"].as_str(), v["tool_input"]["command"].as_str(), v["timestamp"].as_str()), (Some("BeforeTool"), Some("ls"), Some("2026-11-24T00:00:00Z")));
    assert!(d.stdin && d.env.contains(&("GEMINI_PROJECT_DIR".into(), "/p".into())));
    let stop = Event::Stop(hookhost_sdk::Stop { response: Some("done".into()), stop_hook_active: true, loop_count: 0 });
    let v: Value = serde_json::from_str(&crate::dialect::deliver(D::GeminiCli, &stop, &ctx, "/p").json).unwrap();
    assert_eq!((v["hook_event_name"].as_str(), v["prompt_response"].as_str(), v["stop_hook_active"].as_bool()), (Some("AfterAgent"), Some("done"), Some(true)));
    for (event, name) in [(Event::user_prompt("x"), "BeforeAgent"), (Event::SessionStart { source: None }, "SessionStart"), (Event::PreCompact(Default::default()), "PreCompress")] {
        assert_eq!(crate::dialect::event_name(D::GeminiCli, &event), name);
    }
}

#[test]
fn copilot_gets_its_camel_case_payload_and_its_answers_are_read() {
    let ctx = Context { session_id: "s1".into(), ts: "2026-01-01T00:00:01.500Z".into(), cwd: Some("/repo".into()), ..Context::default() };
    let d = crate::dialect::deliver(D::Copilot, &pre(), &ctx, "/repo");
    let v: Value = serde_json::from_str(&d.json).unwrap();
    assert_eq!(v, json!({"sessionId": "s1", "timestamp": 1767225601500u64, "cwd": "/repo", "toolName": "bash", "toolArgs": {"command": "ls"}}), "no event name: Copilot's payloads name none");
    assert!(d.stdin && d.env.is_empty());
    let post = Event::post_tool_use("bash", json!({"command": "env"}), json!("KEY=1"));
    let v: Value = serde_json::from_str(&crate::dialect::deliver(D::Copilot, &post, &ctx, "/repo").json).unwrap();
    assert_eq!(v["toolResult"], json!({"resultType": "success", "textResultForLlm": "KEY=1"}));
    let read = |event: &Event, code: i32, out: &str, err: &str| interpret(D::Copilot, event, &Run::new(code, out, err));
    assert_eq!(read(&pre(), 0, r#"{"permissionDecision":"deny","permissionDecisionReason":"no"}"#, ""), blocked("no"));
    assert_eq!(read(&pre(), 0, "{\"type\":\"progress\",\"message\":\"checking\"}\n{\"permissionDecision\":\"ask\"}", ""), Ok(Decision { verdict: Verdict::Ask(None), effects: Vec::new() }), "progress lines are not the answer");
    assert_eq!(read(&pre(), 0, r#"{"modifiedArgs":{"command":"ls -a"}}"#, ""), Ok(Decision::pass().rewrite_input(json!({"command": "ls -a"}))));
    // Before a tool, every non-zero exit denies; elsewhere it is a hook failure.
    assert_eq!(read(&pre(), 2, r#"{"permissionDecision":"allow"}"#, "nope"), blocked("nope"));
    assert_eq!(read(&pre(), 1, "", "boom"), blocked("Denied by preToolUse hook (hook errored)"));
    assert_eq!(read(&post, 1, "", "boom"), Err("hook exited with status 1: boom".into()));
    // After a failed tool, exit 2's stderr (not its stdout) is guidance for the model, as is
    // additionalContext on exit 0 — both as the real Copilot CLI 1.0.102 reads them.
    let failed = Event::Custom { name: "postToolUseFailure".into(), data: json!({"toolName": "view", "error": "Path does not exist"}) };
    assert_eq!(read(&failed, 2, "ignored", "look in src/"), Ok(Decision::pass().add_context("look in src/")));
    assert_eq!(read(&failed, 0, r#"{"additionalContext":"look in src/"}"#, ""), Ok(Decision::pass().add_context("look in src/")));
    // A hook killed by a signal denies before a tool too (the real Copilot CLI: "hook errored").
    let killed = Run { exit: Exit::Signal(9), ..Run::new(0, "", "") };
    assert_eq!(interpret(D::Copilot, &pre(), &killed), blocked("Denied by preToolUse hook (hook errored)"));
    assert_eq!(interpret(D::Copilot, &post, &killed), Err("hook was killed by signal 9".into()));
    assert_eq!(read(&post, 0, r#"{"modifiedResult":{"resultType":"success","textResultForLlm":"KEY=[REDACTED]"}}"#, ""), Ok(Decision::pass().rewrite_output(json!("KEY=[REDACTED]"))));
    assert_eq!(read(&post, 0, "not json", ""), Ok(Decision::pass()), "output that does not parse is no output");
    let stop = Event::Stop(Default::default());
    assert_eq!(read(&stop, 0, r#"{"decision":"block","reason":"run the tests"}"#, ""), blocked("run the tests"));
}

#[test]
fn effects_an_event_does_not_accept_are_dropped() {
    let out = r#"{"hook_specific_output":{"additional_context":"x","updated_tool_response":"y"}}"#;
    let end = Event::SessionEnd { reason: None };
    assert_eq!(interpret(D::DockerAgent, &end, &Run::new(0, out, "")), Ok(Decision::pass()));
}

fn sandboxed(settings: Value, event: Event) -> HookResult {
    BashAdapter::handle(event, Context { settings, cwd: Some("/workspace".into()), ..Context::default() })
}

#[test]
fn sandbox_runs_the_seed_guard_rm_echo() {
    let cmd = r#"echo '{"decision":"block","reason":"rm -rf is not allowed","user_message":"That command is blocked by policy."}'"#;
    let d = sandboxed(json!({"command": cmd}), pre()).unwrap();
    assert_eq!(d, Decision::block("rm -rf is not allowed").with_user_message("That command is blocked by policy."));
}

#[test]
fn sandbox_delivers_everruns_env_and_payload_file_and_stdin_for_peers() {
    let cmd = r#"test "$(jq -r .data.arguments.command "$EVERRUNS_HOOK_PAYLOAD_PATH")" = "$(echo "$EVERRUNS_HOOK_PAYLOAD_JSON" | jq -r .data.arguments.command)" && [ "$EVERRUNS_HOOK_TOOL_NAME" = bash ] && echo "{\"decision\":\"block\",\"reason\":\"$EVERRUNS_HOOK_EVENT\"}""#;
    assert_eq!(sandboxed(json!({"command": cmd}), pre()).unwrap().block_reason(), Some("pre_tool_use"));
    let peer = r#"INPUT=$(cat); echo "$INPUT" | jq -r .hook_event_name >&2; exit 2"#;
    assert_eq!(sandboxed(json!({"command": peer, "dialect": "claude-code"}), pre()).unwrap().block_reason(), Some("PreToolUse"));
    assert_eq!(sandboxed(json!({"command": peer, "dialect": "docker-agent"}), pre()).unwrap().block_reason(), Some("pre_tool_use"));
}

#[test]
fn sandbox_has_no_host_tools_or_files() {
    let err = sandboxed(json!({"command": "cargo fmt --check"}), pre()).unwrap_err();
    assert!(err.starts_with("could not start the hook command"), "{err}");
    // This crate's own manifest exists on the host, not in the virtual filesystem.
    let host_file = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let cmd = format!("cat {host_file} >/dev/null 2>&1 && echo '{{\"decision\":\"block\",\"reason\":\"host file\"}}' || echo '{{}}'");
    assert_eq!(sandboxed(json!({"command": cmd}), pre()).unwrap(), Decision::allow());
    let env = sandboxed(json!({"command": "[ -z \"$HOME_SECRET$CARGO\" ] && echo '{}'"}), pre()).unwrap();
    assert_eq!(env, Decision::allow(), "no host environment");
}

/// The interpreter the build prepares (see `sandbox::prepare`) answers every call as one built
/// for that call would: same working directory and `$PWD`, environment, variables, exit codes,
/// command counts (its `$RANDOM` seeding is not the hook's).
#[test]
fn a_prepared_interpreter_runs_as_one_built_for_the_call() {
    let script = r#"echo "pwd=$PWD $(pwd) home=$HOME user=$USER x=$X seconds=$SECONDS exit=$? lineno=$LINENO"; cd ..; echo "now=$PWD old=$OLDPWD"; env | grep -v '^_=' | sort; set | grep -c . ; ls -d /tmp /home/user 2>&1; false; echo "status=$?""#;
    let env = [("X", "y z"), ("EVERRUNS_HOOK_EVENT", "pre_tool_use")];
    let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    let run = |mut bash: bashkit::Bash| {
        let result = rt.block_on(bash.exec(script)).unwrap();
        let (commands, execs) = bash.session_counters();
        (result.exit_code, result.stdout.to_string(), result.stderr.to_string(), commands, execs)
    };
    let fresh = run(crate::sandbox::fresh("/work/dir", env.into_iter()));
    let prepared = rt.block_on(crate::sandbox::ready_for_call(crate::sandbox::prepared(), "/work/dir", env.into_iter(), false)).unwrap();
    assert_eq!(run(prepared), fresh);
    // Reseeding `$RANDOM` is one exec call and one command of the prepared interpreter's
    // budget, which is that much larger.
    let reseeded = rt.block_on(crate::sandbox::ready_for_call(crate::sandbox::prepared(), "/work/dir", env.into_iter(), true)).unwrap();
    let (code, out, err, commands, execs) = run(reseeded);
    assert_eq!((code, out, err, commands - 1, execs - 1), fresh);
    assert!(fresh.1.starts_with("pwd=/work/dir /work/dir home=/home/sandbox user=sandbox x=y z seconds=0 exit=0 lineno=1\n"), "{}", fresh.1);
}

#[test]
fn settings_are_checked() {
    assert!(BashAdapter::validate_settings(&json!({"command": "true", "dialect": "claude-code", "mode": "host"})).is_ok());
    // Refusals cross to the host typed: read back as the host reads them.
    let err = |v: Value| {
        let wire = BashAdapter::validate_settings(&v).unwrap_err();
        hookhost_types::adapter::AdapterRefusal::decode(&wire).unwrap_or_else(|| panic!("not a typed refusal: {wire}")).to_string()
    };
    assert_eq!(err(json!({})), "settings.command (a bash script), settings.argv or settings.url is required");
    assert_eq!(err(json!({"url": "http://h/", "command": "x"})), "set one of settings.command, settings.argv or settings.url");
    assert_eq!(err(json!({"url": "ftp://h/"})), "settings.url \"ftp://h/\" must start with http:// or https://");
    assert_eq!(err(json!({"url": "http://h/", "mode": "host"})), "settings.mode does not apply to a url hook (it runs in no shell)");
    assert_eq!(err(json!({"command": "x", "headers": {"a": "b"}})), "settings.headers applies to url hooks only");
    assert_eq!(err(json!({"url": "http://h/", "headers": {"a": 1}})), "settings.headers: invalid type: integer `1`, expected a string");
    assert!(BashAdapter::validate_settings(&json!({"url": "http://127.0.0.1:9/h", "headers": {"a": "b"}, "allowed_env_vars": ["X"], "dialect": "claude-code", "mode": "auto"})).is_ok());
    assert_eq!(err(json!({"command": "x", "argv": ["y"]})), "set either settings.command or settings.argv, not both");
    assert_eq!(err(json!({"command": "x", "dialect": "zsh"})), "settings.dialect: \"zsh\" is not one of everruns, claude-code, codex, gemini-cli, docker-agent, starchild, copilot, opencode, qwen-code, cursor, antigravity");
    assert_eq!(err(json!({"command": "x", "shell": "fish"})), "settings.shell \"fish\" is not one of bash, sh, zsh, dash, powershell, pwsh");
    assert_eq!(err(json!({"command": "x", "color": 1})), "unknown setting \"color\"; known settings are command, argv, url, headers, allowed_env_vars, env, working_dir, dialect, mode, timeout_ms, project_dir, shell, start_failure");
    assert_eq!(err(json!({"command": "x", "project_dir": "repo"})), "settings.project_dir \"repo\" must be an absolute path");
    assert_eq!(err(json!({"command": "x", "start_failure": "ignore"})), "settings.start_failure: unknown variant `ignore`, expected `block` or `warn`");
    assert_eq!(err(json!({"command": "x", "mode": "yes"})), "settings.mode: unknown variant `yes`, expected one of `sandbox`, `host`, `auto`");
    assert_eq!(err(json!({"command": "x", "timeout_ms": 600_001})), "settings.timeout_ms 600001 must be an integer in 100..=600000");
    assert!(BashAdapter::validate_settings(&json!({"command": "true", "timeout_ms": 600_000, "mode": "auto"})).is_ok());
    // A shell other than bash cannot be had in the sandbox: refused at load like a missing program.
    assert!(err(json!({"command": "x", "shell": "pwsh"})).starts_with("the command cannot run in the sandbox: it asks for the pwsh shell, and the sandbox runs bash only; run it as a real process"));
}

#[test]
fn peer_hooks_that_cannot_start_load_and_block_naming_the_hook_and_the_fix() {
    // With start_failure set (converted peer hooks), an unrunnable script loads...
    assert_eq!(BashAdapter::validate_settings(&json!({"command": "node guard.js", "dialect": "claude-code", "start_failure": "block"})), Ok(()));
    let ctx = |settings: Value| Context { settings, hook_id: "user:pre_tool_use_0".into(), cwd: Some("/workspace".into()), ..Context::default() };
    // ...and on each call answers for it: a block naming the hook, what is missing, and the fix.
    let d = BashAdapter::handle(pre(), ctx(json!({"command": "node guard.js", "dialect": "claude-code", "start_failure": "block"}))).unwrap();
    assert_eq!(
        d.block_reason(),
        Some("hook user:pre_tool_use_0 could not start, so it cannot vouch for this action: it runs `node`, which the sandbox does not have (it provides bash built-ins such as jq, grep and sed, and its filesystem starts empty); to run it as a real process, as its runtime would, grant it process:exec (`--grant process:exec`, or grants = [\"process:exec\"] on its [[peers]] entry) (or set peer_start_failure = \"warn\" to let such failures pass)")
    );
    // Under "warn" it is an executor error (the hook's on_error decides).
    let e = BashAdapter::handle(pre(), ctx(json!({"command": "node guard.js", "start_failure": "warn"}))).unwrap_err();
    assert!(e.starts_with("it runs `node`"), "{e}");
    // A command not found at run time (hidden from analysis) is a start failure too.
    let d = BashAdapter::handle(pre(), ctx(json!({"command": "$TOOL --check", "start_failure": "block", "env": {"TOOL": "rubocop"}}))).unwrap();
    assert!(d.block_reason().unwrap().starts_with("hook user:pre_tool_use_0 could not start, so it cannot vouch for this action: could not start the hook command"), "{d:?}");
    // A script that ran and failed follows its runtime's rules, not the start-failure policy.
    let e = BashAdapter::handle(pre(), ctx(json!({"command": "echo boom >&2; exit 1", "dialect": "claude-code", "start_failure": "block"}))).unwrap_err();
    assert_eq!(e, "hook exited with status 1: boom");
}

#[test]
fn the_project_is_mounted_read_only_and_its_scripts_are_checked() {
    let project = std::env::temp_dir().join(format!("hookhost-project-{}", std::process::id()));
    let hooks = project.join(".claude/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::write(hooks.join("guard.sh"), "#!/usr/bin/env bash\ncmd=$(jq -r .tool_input.command)\ncase \"$cmd\" in *--no-verify*) echo 'no --no-verify' >&2; exit 2;; esac\n").unwrap();
    std::fs::write(hooks.join("fmt.py"), "#!/usr/bin/env python3\nprint('x')\n").unwrap();
    std::fs::write(hooks.join("calls-node.sh"), "#!/bin/bash\nnode lint.js\n").unwrap();
    let dir = project.to_str().unwrap();
    let vars = [("CLAUDE_PROJECT_DIR", dir)];
    let check = |script: &str| crate::sandbox::unrunnable(script, Some(project.as_path()), &vars);
    assert_eq!(check("bash .claude/hooks/guard.sh"), Ok(()));
    assert_eq!(check("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh"), Ok(()));
    let gap = |what: &str| Err(format!("it runs {what}, which the sandbox does not have (it provides bash built-ins such as jq, grep and sed, and its filesystem holds only the project, read-only)"));
    assert_eq!(check("$CLAUDE_PROJECT_DIR/.claude/hooks/fmt.py"), gap("`python3` (for $CLAUDE_PROJECT_DIR/.claude/hooks/fmt.py)"));
    assert_eq!(check("bash .claude/hooks/calls-node.sh"), gap("`node`"));
    assert_eq!(check("bash .claude/hooks/gone.sh"), gap("the file .claude/hooks/gone.sh (not in the project)"));
    assert_eq!(check("/etc/hookhost-x.sh"), gap("the file /etc/hookhost-x.sh (outside the project)"));
    // It runs: the script of the project is read through the mount, in the project directory.
    let settings = |cmd: &str| json!({"command": cmd, "dialect": "claude-code", "project_dir": dir, "start_failure": "block"});
    let commit = |cmd: &str| Event::pre_tool_use("Bash", json!({"command": cmd}));
    let ctx = |cmd: &str| Context { settings: settings(cmd), ..Context::default() };
    let d = BashAdapter::handle(commit("git commit --no-verify"), ctx("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.sh")).unwrap();
    assert_eq!(d.block_reason(), Some("no --no-verify"));
    assert_eq!(BashAdapter::handle(commit("git commit"), ctx("bash .claude/hooks/guard.sh")).unwrap(), Decision::pass());
    assert_eq!(BashAdapter::handle(commit("x"), ctx("[ \"$(pwd)\" = \"$CLAUDE_PROJECT_DIR\" ] || exit 2")).unwrap(), Decision::pass(), "runs in the project");
    // Read-only: nothing the script writes reaches the project.
    let w = BashAdapter::handle(commit("x"), ctx("echo hi > \"$CLAUDE_PROJECT_DIR/new.txt\" || { echo 'read-only' >&2; exit 2; }")).unwrap();
    assert_eq!(w.block_reason(), Some(format!("bash: line 1: {dir}/new.txt: the project is mounted read-only in the sandbox\nread-only").as_str()));
    assert!(!project.join("new.txt").exists());
    std::fs::remove_dir_all(&project).unwrap();
}

#[test]
fn sandbox_scripts_that_cannot_run_are_refused_at_load() {
    let check = |cmd: &str| crate::BashAdapter::validate_settings(&json!({"command": cmd})).map_err(|wire| hookhost_types::adapter::AdapterRefusal::decode(&wire).expect("a typed refusal").to_string());
    for ok in [
        "echo '{}'",
        "jq -r .tool_input.command | grep -q rm && exit 2 || true",
        "f() { echo hi; }; f",
        "x=$(cat); echo \"$x\" | sed 's/a/b/' | wc -c",
        "bash -c 'echo hi'",
        "if [ -n \"$X\" ]; then printf '%s' \"$X\"; fi",
        "$CMD --flag",
    ] {
        assert_eq!(check(ok), Ok(()), "{ok}");
    }
    let tail = "which the sandbox does not have (it provides bash built-ins such as jq, grep and sed, and its filesystem starts empty); run it as a real process with settings.mode = \"host\" and grant process:exec to builtin:bash-adapter";
    for (bad, what) in [
        ("node .claude/hooks/guard.js", "`node`"),
        ("python3 hook.py; npx prettier --check .", "`python3`, `npx`"),
        ("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh", "the file $CLAUDE_PROJECT_DIR/.claude/hooks/check.sh"),
        ("./scripts/guard.sh && exit 0", "the file ./scripts/guard.sh"),
        ("bash .claude/hooks/x.sh", "the file .claude/hooks/x.sh"),
        ("source ./env.sh; echo '{}'", "the file ./env.sh"),
        ("cargo fmt --check 2>&1 || cargo fmt", "`cargo`"),
    ] {
        assert_eq!(check(bad), Err(format!("the command cannot run in the sandbox: it runs {what}, {tail}")), "{bad}");
    }
    // Host mode runs real programs: nothing to check here.
    assert_eq!(crate::BashAdapter::validate_settings(&json!({"command": "node x.js", "mode": "host"})), Ok(()));
    assert!(check("echo 'unterminated").unwrap_err().starts_with("the command cannot run in the sandbox: the script does not parse"));
}
