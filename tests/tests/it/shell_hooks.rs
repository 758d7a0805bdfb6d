//! The shell hooks of the runtimes' hooks documentation (Everruns, docker-agent, Starchild), run
//! unchanged through the bash adapter: in the sandbox (in-wasm bash) where they need no host tools,
//! and as real host processes (real bash, jq and python3) where `process:exec` is granted.

use hookhost::VerdictKind;
use hookhost_tests::{event, have, host, shell_hook, try_host, GRANT_PROCESS};
use serde_json::json;

/// The config for one shell hook in `mode`, with the grant when it is host mode.
fn cfg(mode: &str, id: &str, ev: &str, extra: &str, settings: &[(&str, &str)]) -> String {
    let mut s = settings.to_vec();
    s.push(("mode", mode));
    let grant = if mode == "host" { GRANT_PROCESS } else { "" };
    format!("{}{grant}", shell_hook(id, ev, extra, &s))
}

const MODES: [&str; 2] = ["sandbox", "host"];

fn host_ready(mode: &str, tools: &[&str]) -> bool {
    mode == "sandbox" || tools.iter().all(|t| have(t))
}

fn pre(tool: &str, args: serde_json::Value) -> hookhost::HookEvent {
    hookhost::HookEvent::pre_tool_use(tool, args)
}

fn prompt(text: &str) -> hookhost::HookEvent {
    event(json!({"event": "user_prompt_submit", "session_id": "ses_1", "turn_id": "trn_1", "data": {"message": text}}))
}

// ---- Everruns ----

#[tokio::test]
async fn everruns_guard_rm() {
    let cmd = r#"echo '{"decision":"block","reason":"rm -rf is not allowed","user_message":"That command is blocked by policy."}'"#;
    let matcher = r#"matcher = { tool_name = "bash", args_jsonpath = "$.commands", deny_regex = '(?:^|;|&&|\|)\s*rm\s+-rf\b' }
on_error = "block""#;
    for mode in MODES.into_iter().filter(|m| host_ready(m, &["bash"])) {
        let h = host(&cfg(mode, "guard_rm", "pre_tool_use", matcher, &[("command", cmd)])).await;
        let out = h.dispatch(&pre("bash", json!({"commands": "rm -rf /tmp/x"}))).await;
        assert_eq!((out.decision, out.reason.as_deref(), out.user_message.as_deref()), (VerdictKind::Block, Some("rm -rf is not allowed"), Some("That command is blocked by policy.")), "{mode}");
        let ok = h.dispatch(&pre("bash", json!({"commands": "ls -la"}))).await;
        assert_eq!(ok.decision, VerdictKind::Pass, "{mode}");
        assert!(ok.hooks.is_empty(), "{mode}: matcher miss");
    }
}

const SECRET_GUARD: &str = r#"msg=$(echo "$EVERRUNS_HOOK_PAYLOAD_JSON" | jq -r '.data.message'); if printf '%s' "$msg" | grep -qiE 'BEGIN (RSA|OPENSSH|EC|DSA) PRIVATE KEY'; then echo '{"decision":"block","reason":"prompt contains a private key","user_message":"Your message looks like it contains a private key and was blocked. Remove the secret and resend."}'; else echo '{}'; fi"#;

#[tokio::test]
async fn everruns_private_key_prompt_guard() {
    for mode in MODES.into_iter().filter(|m| host_ready(m, &["bash", "jq", "grep"])) {
        let h = host(&cfg(mode, "block_secrets_in_prompt", "user_prompt_submit", "on_error = \"block\"\ntimeout_ms = 5000", &[("command", SECRET_GUARD)])).await;
        let out = h.dispatch(&prompt("here:\n-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n")).await;
        assert_eq!(out.decision, VerdictKind::Block, "{mode}: {out:?}");
        assert_eq!(out.reason.as_deref(), Some("prompt contains a private key"));
        assert_eq!(out.user_message.as_deref(), Some("Your message looks like it contains a private key and was blocked. Remove the secret and resend."));
        let fine = h.dispatch(&prompt("hello")).await;
        assert_eq!((fine.decision, fine.hooks[0].error.clone()), (VerdictKind::Allow, None), "{mode}");
    }
}

#[tokio::test]
async fn everruns_prompt_rewrite_with_jq() {
    let cmd = r#"echo "$EVERRUNS_HOOK_PAYLOAD_JSON" | jq -c '{decision:"mutate",patch:{message:("[reminder: follow the house style guide]\n" + .data.message)}}'"#;
    for mode in MODES.into_iter().filter(|m| host_ready(m, &["bash", "jq"])) {
        let h = host(&cfg(mode, "prepend_style_note", "user_prompt_submit", "", &[("command", cmd)])).await;
        let out = h.dispatch(&prompt("write a parser")).await;
        assert_eq!(out.hooks[0].error, None, "{mode}");
        assert_eq!(out.patch.unwrap()["message"], "[reminder: follow the house style guide]\nwrite a parser", "{mode}");
    }
}

#[tokio::test]
async fn everruns_session_init_and_turn_log_in_the_sandbox_filesystem() {
    // The hooks report (as the reason of a block, which advisory events record and ignore) what
    // they found and what they wrote, so a failed jq or write cannot pass unnoticed; every call
    // starts with an empty filesystem.
    let init = r#"before=$(cat /workspace/.bootstrap 2>/dev/null || echo none); echo 'session bootstrapped' > /workspace/.bootstrap; echo "{\"decision\":\"block\",\"reason\":\"before=$before now=$(cat /workspace/.bootstrap)\"}""#;
    let h = host(&cfg("sandbox", "init", "session_start", "", &[("command", init)])).await;
    for _ in 0..2 {
        let out = h.dispatch(&event(json!({"event": "session_start", "data": {"source": "startup"}}))).await;
        assert_eq!((out.decision, out.hooks[0].error.clone()), (VerdictKind::Pass, None), "advisory: the block is ignored");
        assert_eq!(out.hooks[0].reason.as_deref(), Some("before=none now=session bootstrapped"));
    }

    let log = r#"echo "$EVERRUNS_HOOK_PAYLOAD_JSON" | jq -r '.ts + " turn " + .turn_id + " success=" + (.data.success | tostring)' >> /workspace/.turn-log; echo "{\"decision\":\"block\",\"reason\":$(jq -Rs . < /workspace/.turn-log)}""#;
    let h = host(&cfg("sandbox", "log_turn_end", "turn_end", "timeout_ms = 3000", &[("command", log)])).await;
    for _ in 0..2 {
        let out = h.dispatch(&event(json!({"event": "turn_end", "turn_id": "trn_9", "ts": "2026-01-01T00:00:00Z", "data": {"success": true}}))).await;
        assert_eq!(out.hooks[0].error, None);
        assert_eq!(out.hooks[0].reason.as_deref(), Some("2026-01-01T00:00:00Z turn trn_9 success=true\n"), "one line, written this call");
    }
}

/// A payload too large for one environment string (Linux: 128 KiB) reaches a host-mode hook
/// through the payload file alone; it never fails with E2BIG and falls through to pass.
#[tokio::test]
async fn everruns_host_mode_passes_a_big_payload_through_the_file_only() {
    if !host_ready("host", &["bash", "wc"]) {
        return;
    }
    let script = r#"echo "{\"decision\":\"block\",\"reason\":\"env=${EVERRUNS_HOOK_PAYLOAD_JSON+set} file=$(wc -c < "$EVERRUNS_HOOK_PAYLOAD_PATH" | tr -d ' ')\"}""#;
    let h = host(&cfg("host", "big", "user_prompt_submit", "on_error = \"warn\"\ntimeout_ms = 5000", &[("command", script)])).await;
    let out = h.dispatch(&prompt(&"x".repeat(128 << 10))).await;
    assert_eq!(out.hooks[0].error, None, "{out:?}");
    assert_eq!(out.decision, VerdictKind::Block, "{out:?}");
    let reason = out.reason.unwrap();
    let size: usize = reason.strip_prefix("env= file=").unwrap_or_else(|| panic!("{reason}")).parse().unwrap();
    assert!(size > 128 << 10, "{size}");
    // A small payload still has the variable too.
    let out = h.dispatch(&prompt("hi")).await;
    assert!(out.reason.as_deref().unwrap().starts_with("env=set file="), "the variable is set for small payloads: {:?}", out.reason);
}

#[tokio::test]
async fn everruns_fmt_rs_needs_host_tools() {
    let fmt = "cargo fmt --check 2>&1 || cargo fmt";
    let matcher = r#"matcher = { tool_name = "edit_file", args_jsonpath = "$.path", match_regex = '\.rs$' }"#;
    // The sandbox has no cargo: refused at load, naming the hook and the fix.
    let err = try_host(&cfg("sandbox", "fmt_rs", "post_tool_use", matcher, &[("command", fmt)])).await.err().expect("refused");
    assert_eq!(err.to_string(), "user:fmt_rs: plugin builtin:bash-adapter rejected its settings: the command cannot run in the sandbox: it runs `cargo`, which the sandbox does not have (it provides bash built-ins such as jq, grep and sed, and its filesystem starts empty); run it as a real process with settings.mode = \"host\" and grant process:exec to builtin:bash-adapter; fix executor.settings");
}

// ---- docker-agent ----

const VALIDATE_COMMAND: &str = r#"INPUT=$(cat)
TOOL_NAME=$(echo "$INPUT" | jq -r '.tool_name')
CMD=$(echo "$INPUT" | jq -r '.tool_input.cmd // empty')
if [[ "$TOOL_NAME" == "shell" ]]; then
if [[ "$CMD" =~ ^sudo ]] || [[ "$CMD" =~ rm.*-rf ]]; then
echo '{"decision": "block", "reason": "Dangerous command blocked by policy"}'
exit 2
fi
fi
echo '{}'
exit 0"#;

#[tokio::test]
async fn docker_validate_command() {
    for mode in MODES.into_iter().filter(|m| host_ready(m, &["bash", "jq"])) {
        let h = host(&cfg(mode, "validate", "pre_tool_use", "matcher = { tool_name_glob = \"shell|edit_file\" }", &[("command", VALIDATE_COMMAND), ("dialect", "docker-agent")])).await;
        let out = h.dispatch(&pre("shell", json!({"cmd": "rm -rf /tmp/cache", "cwd": "."}))).await;
        assert_eq!((out.decision, out.reason.as_deref()), (VerdictKind::Block, Some("Dangerous command blocked by policy")), "{mode}");
        let sudo = h.dispatch(&pre("shell", json!({"cmd": "sudo ls"}))).await;
        assert_eq!(sudo.decision, VerdictKind::Block, "{mode}");
        let ok = h.dispatch(&pre("shell", json!({"cmd": "ls"}))).await;
        assert_eq!((ok.decision, ok.hooks[0].error.clone()), (VerdictKind::Pass, None), "{mode}");
    }
}

#[tokio::test]
async fn docker_log_tool_call_writes_the_audit_file() {
    let script = r#"INPUT=$(cat)
TIMESTAMP=$(date -u +"%Y-%m-%dT%H:%M:%SZ")
TOOL_NAME=$(echo "$INPUT" | jq -r '.tool_name')
SESSION_ID=$(echo "$INPUT" | jq -r '.session_id')
echo "$TIMESTAMP | $SESSION_ID | $TOOL_NAME" >> ./audit.log
echo '{"continue": true}'
exit 0"#;
    let ev = event(json!({"event": "post_tool_use", "session_id": "ses_42", "data": {"tool_name": "shell", "tool_call_id": "c", "arguments": {}, "result": "done"}}));
    let sandbox = host(&cfg("sandbox", "log", "post_tool_use", "", &[("command", script), ("dialect", "docker-agent")])).await.dispatch(&ev).await;
    assert_eq!((sandbox.decision, sandbox.hooks[0].error.clone()), (VerdictKind::Pass, None));
    if host_ready("host", &["bash", "jq"]) {
        let dir = tempfile::tempdir().unwrap();
        let wd = dir.path().display().to_string();
        let out = host(&cfg("host", "log", "post_tool_use", "", &[("command", script), ("dialect", "docker-agent"), ("working_dir", &wd)])).await.dispatch(&ev).await;
        assert_eq!(out.hooks[0].error, None);
        let line = std::fs::read_to_string(dir.path().join("audit.log")).unwrap();
        assert!(line.trim_end().ends_with(" | ses_42 | shell"), "{line}");
    }
}

#[tokio::test]
async fn docker_session_lifecycle_adds_context() {
    let start = r#"INPUT=$(cat)
SESSION_ID=$(echo "$INPUT" | jq -r '.session_id // "unknown"')
echo "Session $SESSION_ID started at $(date)" >> /tmp/agent-session.log
echo '{"hook_specific_output":{"additional_context":"Session initialized."}}'"#;
    for mode in MODES.into_iter().filter(|m| host_ready(m, &["bash", "jq"])) {
        let h = host(&cfg(mode, "start", "session_start", "timeout_ms = 10000", &[("command", start), ("dialect", "docker-agent")])).await;
        let out = h.dispatch(&event(json!({"event": "session_start", "session_id": "s1", "data": {"source": "startup"}}))).await;
        assert_eq!(serde_json::to_value(&out.effects).unwrap(), json!([{"type": "add_context", "text": "Session initialized."}]), "{mode}: {out:?}");
    }
}

#[tokio::test]
async fn docker_permission_request_allow_and_metadata() {
    let allow = r#"INPUT=$(cat)
CMD=$(echo "$INPUT" | jq -r '.tool_input.cmd // ""')
if echo "$CMD" | grep -qE '^(ls|pwd|cat) '; then
echo '{"hook_specific_output":{"permission_decision":"allow","permission_decision_reason":"safe read-only command"}}'
fi"#;
    let meta = r#"INPUT=$(cat)
CMD=$(echo "$INPUT" | jq -r '.tool_input.cmd // ""')
if echo "$CMD" | grep -qE '\brm\b'; then
echo '{"hook_specific_output":{"metadata":{"risk":"high","note":"deletes files"}}}'
fi"#;
    let perm = |cmd: &str| event(json!({"event": "permission_request", "data": {"tool_name": "shell", "tool_call_id": "c", "arguments": {"cmd": cmd}}}));
    for mode in MODES.into_iter().filter(|m| host_ready(m, &["bash", "jq", "grep"])) {
        let config = [
            cfg(mode, "auto_allow", "permission_request", "matcher = { tool_name = \"shell\" }", &[("command", allow), ("dialect", "docker-agent")]),
            shell_hook("risk", "permission_request", "matcher = { tool_name = \"shell\" }", &[("command", meta), ("dialect", "docker-agent"), ("mode", mode)]),
        ]
        .concat();
        let h = host(&config).await;
        let ls = h.dispatch(&perm("ls -la")).await;
        assert_eq!((ls.decision, ls.reason.as_deref()), (VerdictKind::Allow, Some("safe read-only command")), "{mode}");
        let rm = h.dispatch(&perm("rm x")).await;
        assert_eq!(rm.decision, VerdictKind::Pass, "{mode}: falls through to the human prompt");
        assert_eq!(serde_json::to_value(&rm.effects).unwrap(), json!([{"type": "annotate", "pairs": [["note", "deletes files"], ["risk", "high"]]}]), "{mode}");
    }
}

// ---- Starchild ----

#[tokio::test]
async fn starchild_minimal_block_example() {
    if !have("python3") || !have("bash") {
        return;
    }
    let script = r#"payload="$(cat)"
python3 - "$payload" <<'PY'
import json, sys, re
ev = json.loads(sys.argv[1])
cmd = (ev.get("tool_input") or {}).get("command", "")
if re.search(r"rm\s+-rf\s+/|dd\s+if=|mkfs", cmd):
    print(json.dumps({"decision": "block", "reason": f"This command is irreversible and would erase data, so I've blocked it: {cmd}"}))
else:
    print("{}")
PY"#;
    let h = host(&cfg("host", "guard", "pre_tool_use", "", &[("command", script), ("dialect", "starchild")])).await;
    let out = h.dispatch(&pre("bash", json!({"command": "rm -rf /"}))).await;
    assert_eq!((out.decision, out.reason.as_deref()), (VerdictKind::Block, Some("This command is irreversible and would erase data, so I've blocked it: rm -rf /")));
    assert_eq!(h.dispatch(&pre("bash", json!({"command": "ls"}))).await.decision, VerdictKind::Pass);
}

// ---- capabilities ----

#[tokio::test]
async fn host_mode_without_the_grant_does_not_load() {
    let text = try_host(&shell_hook("h", "pre_tool_use", "", &[("command", "true"), ("mode", "host")])).await.err().unwrap().to_string();
    assert_eq!(
        text,
        "user:h: plugin builtin:bash-adapter needs the capability process:exec (its settings ask for mode = \"host\", which runs a real process), which is not granted; if you trust it, add `[grants]` \"builtin:bash-adapter\" = [\"process:exec\"]` to the config"
    );
}

#[tokio::test]
async fn host_mode_payload_file_is_owner_only_and_removed_and_the_environment_is_empty() {
    if !have("bash") || !have("stat") {
        return;
    }
    let script = r#"printf '{"decision":"block","reason":"%s %s %s %s"}' "$(stat -c %a "$EVERRUNS_HOOK_PAYLOAD_PATH")" "$EVERRUNS_HOOK_PAYLOAD_PATH" "${HOME:-nohome}" "$MY_VAR""#;
    let h = host(&cfg("host", "probe", "pre_tool_use", "", &[("command", script)]).replace("mode = \"host\"", "mode = \"host\", env = { MY_VAR = \"mine\" }")).await;
    let out = h.dispatch(&pre("bash", json!({"command": "ls"}))).await;
    let reason = out.reason.unwrap_or_else(|| panic!("{:?}", out.hooks));
    let parts: Vec<&str> = reason.split(' ').collect();
    assert_eq!(parts[0], "600", "payload file permissions");
    assert!(!std::path::Path::new(parts[1]).exists(), "payload file {} removed after the hook", parts[1]);
    assert_eq!(parts[2], "nohome", "no inherited environment");
    assert_eq!(parts[3], "mine", "the hook's own env is passed");
}

// ---- the pre-initialised sandbox ----

/// hookhost's build pre-initialises the bash adapter (its interpreter built, then snapshotted:
/// `host/precompile/src/preinit.rs`), so a fresh instance starts ready. Each call still gets
/// its own working directory, environment, `$RANDOM` seed and `$SECONDS` count, and an
/// `exit 0` hook costs about a fifth of the fuel it does when each call builds the interpreter
/// (~0.51 M against ~2.63 M) — the check that the snapshot is what runs.
#[tokio::test]
async fn the_sandbox_starts_ready_and_each_call_gets_its_own_shell() {
    let script = r#"echo "$RANDOM$RANDOM $SECONDS $PWD $(pwd) $X" >&2; exit 2"#;
    let h = host(&shell_hook("probe", "pre_tool_use", "", &[("command", script), ("working_dir", "/work/dir"), ("env", "")]).replace("env = \"\"", "env = { X = \"from the hook\" }")).await;
    let mut seen = Vec::new();
    for _ in 0..2 {
        let out = h.dispatch(&pre("bash", json!({"command": "ls"}))).await;
        let reason = out.reason.unwrap_or_else(|| panic!("{:?}", out.hooks));
        let (random, rest) = reason.split_once(' ').unwrap();
        assert_eq!(rest, "0 /work/dir /work/dir from the hook");
        seen.push(random.to_string());
    }
    assert_ne!(seen[0], seen[1], "each instance seeds $RANDOM afresh");
    let quiet = host(&shell_hook("quiet", "pre_tool_use", "", &[("command", "exit 0")])).await;
    let out = quiet.dispatch(&pre("bash", json!({"command": "ls"}))).await;
    let fuel = out.hooks[0].fuel;
    assert!(fuel < 1_200_000, "an exit-0 sandbox hook took {fuel} fuel: is the bash adapter pre-initialised?");
}
