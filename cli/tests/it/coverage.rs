//! `hookhost coverage`: tool calls in an agent's transcripts that never reached hookhost, from
//! hookhost's own audit log (written here by `hookhost run`, as a runtime's hook would).

use std::path::Path;
use std::process::Output;

const SESSION: &str = "0dcc0f1a-4cb2-45c6-9b2c-490674c0eee1";

fn hookhost(dir: &Path, args: &[&str], stdin: &str) -> Output {
    crate::common::hookhost_with(
        |c| {
            c.args(args).current_dir(dir).env("HOME", dir.join("home")).env("XDG_CONFIG_HOME", dir.join("home/.config")).env("HOOKHOST_CACHE_DIR", std::env::temp_dir().join("hookhost-install-tests-cache"));
        },
        stdin.as_bytes(),
    )
}

/// One tool call reaching hookhost as Claude Code sends it: a record in the audit log.
fn call(dir: &Path, session: &str, tool: &str) {
    let event = serde_json::json!({"session_id": session, "hook_event_name": "PreToolUse", "cwd": dir, "tool_name": tool, "tool_input": {"command": "ls"}});
    let out = hookhost(dir, &["run", "--output", "claude-code", "--audit", "audit.jsonl"], &event.to_string());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn coverage_names_the_calls_that_never_reached_hookhost() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("home")).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let transcript = std::fs::read_to_string(root.join("examples/transcripts/claude-code.jsonl")).unwrap();
    let projects = d.join("projects/app");
    std::fs::create_dir_all(projects.join(SESSION).join("subagents")).unwrap();
    std::fs::write(projects.join(format!("{SESSION}.jsonl")), &transcript).unwrap();
    // A subagent of the session called an MCP tool.
    let mcp = transcript.lines().find(|l| l.contains("\"tool_use\"")).unwrap().replace("\"name\":\"Bash\"", "\"name\":\"mcp__fs__write_file\"").replace("\"isSidechain\":false", "\"isSidechain\":true");
    std::fs::write(projects.join(SESSION).join("subagents/agent-a1.jsonl"), format!("{mcp}\n")).unwrap();
    // Another session, whose hooks never ran.
    std::fs::write(projects.join("other.jsonl"), transcript.replace(SESSION, "other-session")).unwrap();

    // One of the session's two Bash calls reached hookhost.
    call(d, SESSION, "Bash");
    let out = hookhost(d, &["coverage", "--audit", "audit.jsonl", "--json", "projects"], "");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["calls"], 5, "{report:#}");
    assert_eq!(report["missed"], 4, "{report:#}");
    assert_eq!(report["by_tool"]["Bash"], serde_json::json!({"calls": 4, "reached": 1, "missed": 3}));
    assert_eq!(report["by_path"]["subagent"], serde_json::json!({"calls": 1, "reached": 0, "missed": 1}));
    assert_eq!(report["by_path"]["hooks never ran in the session"], serde_json::json!({"calls": 2, "reached": 0, "missed": 2}));
    assert_eq!(report["by_path"]["main agent"], serde_json::json!({"calls": 2, "reached": 1, "missed": 1}));

    // Every call of the session reached hookhost: only the other session is a gap.
    call(d, SESSION, "Bash");
    call(d, SESSION, "mcp__fs__write_file");
    let out = hookhost(d, &["coverage", "--audit", "audit.jsonl", &format!("projects/app/{SESSION}.jsonl"), &format!("projects/app/{SESSION}")], "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("3 tool call(s) in 2 session file(s); 0 never reached hookhost"), "{stdout}");
    let out = hookhost(d, &["coverage", "--audit", "audit.jsonl", "projects/app/other.jsonl"], "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout.contains("gap: session other-session — 2 of 2 Bash call(s) never reached hookhost (hooks never ran in the session)"), "{stdout}");

    // No audit log to join: said, with the fix.
    let out = hookhost(d, &["coverage", "projects"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no audit log to join: the config in effect sets no audit_log; pass --audit FILE"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn copilot_and_gemini_transcripts_count_each_call_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("home")).unwrap();
    // GitHub Copilot CLI's session events, as 1.0.102 writes them (trimmed).
    let copilot = [
        r#"{"type":"session.start","data":{"sessionId":"cp-1","producer":"copilot-agent","copilotVersion":"1.0.102"}}"#,
        r#"{"type":"assistant.message","data":{"toolRequests":[{"toolCallId":"call_1","name":"bash","arguments":{"command":"ls"}}]}}"#,
        r#"{"type":"tool.execution_start","data":{"toolCallId":"call_1","toolName":"bash","arguments":{"command":"ls"}}}"#,
        r#"{"type":"tool.execution_complete","data":{"toolCallId":"call_1","success":true}}"#,
    ]
    .join("\n");
    std::fs::write(d.join("events.jsonl"), copilot).unwrap();
    // Gemini CLI's chat file: the model's message is written again once its tool call is done.
    let gemini = [
        r#"{"sessionId":"gm-1","projectHash":"ab","startTime":"2026-11-28T01:23:52.256Z","kind":"main"}"#,
        r#"{"id":"m1","type":"user","content":[{"text":"Mark it."}]}"#,
        r#"{"id":"m2","type":"gemini","content":"","toolCalls":[{"id":"run_1","name":"run_shell_command","args":{"command":"touch x"}}]}"#,
        r#"{"$set":{"lastUpdated":"2026-11-28T01:23:52.493Z"}}"#,
        r#"{"id":"m2","type":"gemini","content":"","toolCalls":[{"id":"run_1","name":"run_shell_command","args":{"command":"touch x"},"result":[]}]}"#,
    ]
    .join("\n");
    std::fs::write(d.join("session-gm.jsonl"), gemini).unwrap();
    std::fs::write(d.join("audit.jsonl"), "").unwrap();
    let out = hookhost(d, &["coverage", "--audit", "audit.jsonl", "--json", "events.jsonl", "session-gm.jsonl"], "");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["by_tool"]["bash"], serde_json::json!({"calls": 1, "reached": 0, "missed": 1}), "{report:#}");
    assert_eq!(report["by_tool"]["run_shell_command"], serde_json::json!({"calls": 1, "reached": 0, "missed": 1}), "{report:#}");
}

#[test]
fn coverage_into_a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    std::fs::write(dir.path().join("audit.jsonl"), "").unwrap();
    let mut cmd = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"));
    cmd.args(["coverage", "--audit", "audit.jsonl"]).arg(root.join("examples/transcripts/claude-code.jsonl")).current_dir(dir.path());
    let out = crate::common::with_reader_gone(cmd);
    // The gaps are still the answer (exit 1), and nothing panics.
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}
