//! Safe rollout, through the binary: `hookhost diff` on recorded sessions (a Claude Code
//! transcript and a Codex rollout, in the shapes those CLIs write) and `hookhost audit stats`
//! over an observe-mode run.

use crate::common::hookhost_with;
use std::process::{Command, Output};

fn hookhost(dir: &std::path::Path, args: &[&str], stdin: &str) -> Output {
    hookhost_with(|c| {
        c.args(args).current_dir(dir);
    }, stdin.as_bytes())
}

const OBSERVED_GUARD: &str = "[[hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\nmode = \"observe\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n";
const ENFORCED_GUARD: &str = "[[hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n";

/// Lines as Claude Code 2.1.332 writes them (trimmed to the fields read), and one it would not.
const CLAUDE_TRANSCRIPT: &str = r#"{"type":"queue-operation","operation":"enqueue","timestamp":"2026-11-26T08:36:27.512Z","sessionId":"0dcc0f1a"}
{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"Please clean up"},"uuid":"a1","timestamp":"2026-11-26T08:36:27.530Z","cwd":"/home/dev/p","sessionId":"0dcc0f1a","version":"2.1.332"}
{"parentUuid":"a1","isSidechain":false,"type":"assistant","message":{"id":"msg_0001","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"tool_use","id":"toolu_0001","name":"Bash","input":{"command":"rm -rf ."}}],"stop_reason":"tool_use"},"uuid":"a2","timestamp":"2026-11-26T08:36:27.600Z","cwd":"/home/dev/p","sessionId":"0dcc0f1a"}
{"parentUuid":"a2","isSidechain":false,"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_0002","name":"Bash","input":{"command":"ls -la"}}]},"uuid":"a3","cwd":"/home/dev/p","sessionId":"0dcc0f1a"}
this line is not JSON
"#;

const CODEX_ROLLOUT: &str = r#"{"timestamp":"2026-11-26T08:35:53.038Z","type":"session_meta","payload":{"id":"01a216ff","cwd":"/home/dev/p","originator":"codex_exec","cli_version":"0.169.0"}}
{"timestamp":"2026-11-26T08:35:53.079Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/home/dev/p</cwd>\n</environment_context>"}]}}
{"timestamp":"2026-11-26T08:35:53.100Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Please clean up"}]}}
{"timestamp":"2026-11-26T08:35:53.600Z","type":"response_item","payload":{"type":"function_call","status":"completed","id":"fc_0003","name":"exec_command","arguments":"{\"cmd\": \"rm -rf .\"}","call_id":"call_0003"}}
{"timestamp":"2026-11-26T08:35:53.660Z","type":"event_msg","payload":{"type":"token_count"}}
"#;

#[test]
fn diff_shows_what_a_stricter_config_changes_on_recorded_transcripts_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, text) in [("old.toml", OBSERVED_GUARD), ("new.toml", ENFORCED_GUARD), ("claude.jsonl", CLAUDE_TRANSCRIPT), ("rollout.jsonl", CODEX_ROLLOUT)] {
        std::fs::write(d.join(name), text).unwrap();
    }
    let out = hookhost(d, &["diff", "--no-project", "--config", "old.toml", "--config", "new.toml", "claude.jsonl", "rollout.jsonl"], "");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    let rows: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    assert!(rows[0].starts_with("claude.jsonl:3 ") && rows[0].contains("Bash: rm -rf .") && rows[0].contains("pass → block") && rows[0].contains("recursive delete of ."), "{stdout}");
    assert!(rows[1].starts_with("rollout.jsonl:4 ") && rows[1].contains("Bash: rm -rf .") && rows[1].contains("pass → block"), "{stdout}");
    assert!(stderr.contains("hookhost: claude.jsonl:5: not JSON"), "the line it did not understand is named: {stderr}");
    assert!(stderr.contains("claude.jsonl: read as a Claude Code transcript: 3 event(s), 1 line(s) with no hook event (queue-operation)"), "{stderr}");
    assert!(stderr.contains("rollout.jsonl: read as a Codex rollout: 2 event(s)"), "{stderr}");
    assert!(stderr.trim_end().ends_with("5 event(s) from 2 file(s): 2 decided differently (2 newly blocked, 0 no longer blocked, 0 otherwise changed); 1 line(s) not understood, named above"), "{stderr}");

    // The same config on both sides: nothing differs, exit 0.
    let same = hookhost(d, &["diff", "--no-project", "--config", "new.toml", "--config", "new.toml", "claude.jsonl"], "");
    assert_eq!(same.status.code(), Some(0), "{}", String::from_utf8_lossy(&same.stderr));
    assert!(same.stdout.is_empty());

    // A file with no event in it is an error naming it; so is one config.
    std::fs::write(d.join("empty.jsonl"), "{\"type\":\"queue-operation\",\"sessionId\":\"s\"}\n").unwrap();
    let empty = hookhost(d, &["diff", "--no-project", "--config", "old.toml", "--config", "new.toml", "empty.jsonl"], "");
    assert_eq!(empty.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&empty.stderr).contains("empty.jsonl: no hook event in it (read as Claude Code transcript"), "{}", String::from_utf8_lossy(&empty.stderr));
    let one = hookhost(d, &["diff", "--no-project", "--config", "old.toml", "claude.jsonl"], "");
    assert_eq!(one.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&one.stderr).contains("give exactly two configs, --config OLD --config NEW (got 1)"));
}

#[test]
fn audit_stats_of_an_observe_run_shows_what_would_have_been_blocked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("hooks.toml"), format!("audit_log = \"audit.jsonl\"\n{OBSERVED_GUARD}")).unwrap();
    for command in ["rm -rf /", "ls", "mkfs.ext4 /dev/sda"] {
        let event = serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash", "tool_input": {"command": command}}).to_string();
        let out = hookhost(d, &["run", "--no-project", "--config", "hooks.toml", "--output", "claude-code"], &event);
        assert_eq!((out.status.code(), out.stdout.as_slice()), (Some(0), &b""[..]), "observed: the runtime's pass for {command}");
    }
    let out = hookhost(d, &["audit", "stats", "audit.jsonl"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let row: Vec<&str> = text.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(&row[..8], ["user:guard", "observe", "3", "0", "2", "0", "0", "0"], "{text}");
    let missing = hookhost(d, &["audit", "stats", "nope.jsonl"], "");
    assert_eq!(missing.status.code(), Some(2));
}

/// docs/ORG.md's rollout walkthrough, run as written: its files written from its `# file:`
/// blocks, its `hookhost` commands run by bash (exit codes as annotated), and every line of the
/// output it shows found in what they printed.
#[test]
fn the_org_rollout_walkthrough_runs_as_written() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let doc = std::fs::read_to_string(root.join("docs/ORG.md")).unwrap();
    let start = doc.find("## Rolling out a change").expect("the walkthrough's section");
    let section = &doc[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("examples/transcripts")).unwrap();
    for f in ["examples/session.jsonl", "examples/transcripts/claude-code.jsonl"] {
        std::fs::copy(root.join(f), d.join(f)).unwrap();
    }
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_hookhost")).parent().unwrap().to_path_buf();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let normal = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let (mut files, mut commands, mut shown) = (0, 0, 0);
    let mut last_output = String::new();
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        let Some(lang) = line.strip_prefix("```") else { continue };
        let block: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
        match lang {
            "toml" => {
                let name = block[0].strip_prefix("# file: ").and_then(|r| r.split_whitespace().next()).expect("a walkthrough file block starts with # file: NAME");
                std::fs::write(d.join(name), block.join("\n") + "\n").unwrap();
                files += 1;
            }
            "sh" => {
                last_output.clear();
                for cmd in block.iter().filter(|l| l.starts_with("hookhost ")) {
                    let want: i32 = cmd.split("# exits ").nth(1).map_or(0, |n| n.trim().parse().unwrap());
                    let out = crate::common::bin("bash").arg("-c").arg(cmd).current_dir(d).env("PATH", &path).output().unwrap();
                    assert_eq!(out.status.code(), Some(want), "{cmd}\n{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
                    last_output.push_str(&String::from_utf8_lossy(&out.stdout));
                    commands += 1;
                }
            }
            "text" => {
                let printed: Vec<String> = last_output.lines().map(normal).collect();
                for want in block.iter().filter(|l| !l.trim().is_empty()) {
                    assert!(printed.contains(&normal(want)), "docs/ORG.md shows\n  {want}\nbut the commands printed:\n{last_output}");
                    shown += 1;
                }
            }
            _ => {}
        }
    }
    assert_eq!((files, commands), (3, 3), "the walkthrough's files and commands");
    assert!(shown >= 4, "the walkthrough shows what the commands print");
    // And what the walkthrough says happened did: the observed rule changed no decision.
    let stats = String::from_utf8_lossy(&hookhost(d, &["audit", "stats", "--include-replayed", "audit.jsonl"], "").stdout).to_string();
    assert!(stats.lines().any(|l| normal(l).starts_with("user:strict_rm observe 2 0 1")), "{stats}");
}

/// An audit log whose config kept the events (`audit_events = true`) replays in `diff`; one
/// that did not is an error that says how to get them.
#[test]
fn diff_replays_an_audit_log_that_kept_its_events() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let keeping = format!("audit_log = \"kept.jsonl\"\naudit_events = true\n{OBSERVED_GUARD}");
    std::fs::write(d.join("keeping.toml"), keeping).unwrap();
    std::fs::write(d.join("plain.toml"), format!("audit_log = \"plain.jsonl\"\n{OBSERVED_GUARD}")).unwrap();
    std::fs::write(d.join("old.toml"), OBSERVED_GUARD).unwrap();
    std::fs::write(d.join("new.toml"), ENFORCED_GUARD).unwrap();
    for config in ["keeping.toml", "plain.toml"] {
        for command in ["rm -rf /", "ls"] {
            let event = serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash", "tool_input": {"command": command}}).to_string();
            assert!(hookhost(d, &["run", "--no-project", "--config", config], &event).status.success());
        }
    }
    let out = hookhost(d, &["diff", "--no-project", "--config", "old.toml", "--config", "new.toml", "kept.jsonl"], "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.lines().nth(1).is_some_and(|l| l.starts_with("kept.jsonl:1 ") && l.contains("Bash: rm -rf /") && l.contains("pass → block")), "{stdout}");
    assert_eq!(stdout.lines().count(), 2, "one difference: {stdout}");
    let out = hookhost(d, &["diff", "--no-project", "--config", "old.toml", "--config", "new.toml", "plain.jsonl"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("plain.jsonl: an audit log, but none of its records keeps its event; set audit_events = true"), "{}", String::from_utf8_lossy(&out.stderr));
    // A kept event holds no secret the redactor would mask (issue #48).
    let secret = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX";
    let event = serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Bash", "tool_input": {"command": format!("OPENAI_API_KEY={secret} ./deploy.sh")}}).to_string();
    assert!(hookhost(d, &["run", "--no-project", "--config", "keeping.toml"], &event).status.success());
    let kept = std::fs::read_to_string(d.join("kept.jsonl")).unwrap();
    assert!(!kept.contains(secret) && kept.contains("OPENAI_API_KEY=[REDACTED:api-key] ./deploy.sh"), "{kept}");
    // The kept events do not break the log's chain.
    assert!(hookhost(d, &["audit", "verify", "kept.jsonl"], "").status.success());
}

/// Issue #48: replaying a recording (someone else's transcript, say) never runs hooks in the
/// directory it names — its `cwd` would be `$CLAUDE_PROJECT_DIR` for a host-mode hook, and that
/// directory's `.claude/hooks` script would run — and what replay writes to a config's audit
/// log is marked replayed, which `audit stats` leaves out.
#[cfg(unix)]
#[test]
fn a_recording_never_chooses_where_hooks_run_nor_counts_as_traffic() {
    let dir = tempfile::tempdir().unwrap();
    let (elsewhere, here) = (dir.path().join("elsewhere"), dir.path().join("here"));
    std::fs::create_dir_all(elsewhere.join(".claude/hooks")).unwrap();
    std::fs::create_dir_all(&here).unwrap();
    let marker = dir.path().join("ran");
    let script = elsewhere.join(".claude/hooks/x.sh");
    std::fs::write(&script, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = "audit_log = \"audit.jsonl\"\n[[hooks]]\nid = \"project-script\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:bash-adapter\", settings = { command = \"\\\"$CLAUDE_PROJECT_DIR\\\"/.claude/hooks/x.sh\", mode = \"host\", dialect = \"claude-code\" } }\n";
    std::fs::write(here.join("hooks.toml"), config).unwrap();
    let transcript = format!(
        "{}\n",
        serde_json::json!({"type": "assistant", "sessionId": "s", "cwd": elsewhere.display().to_string(), "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}]}})
    );
    std::fs::write(here.join("theirs.jsonl"), transcript).unwrap();
    let out = hookhost(&here, &["replay", "--no-project", "--config", "hooks.toml", "--grant", "process:exec", "theirs.jsonl"], "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!marker.exists(), "the recorded directory's script ran: {stderr}");
    let here_c = std::fs::canonicalize(&here).unwrap();
    assert!(stderr.contains(&format!("hookhost: theirs.jsonl: events recorded in {} run in {} instead: a recording never chooses where hooks run", elsewhere.display(), here_c.display())), "{stderr}");
    // Its audit records are marked, and not counted as traffic.
    let log = std::fs::read_to_string(here.join("audit.jsonl")).unwrap();
    assert!(!log.is_empty() && log.lines().all(|l| l.contains("\"replayed\":true")), "{log}");
    let stats = hookhost(&here, &["audit", "stats", "audit.jsonl"], "");
    let stats_out = String::from_utf8_lossy(&stats.stdout);
    assert!(stats.status.success() && stats_out.contains("left out 1 record(s) of replayed events"), "{stats_out}{}", String::from_utf8_lossy(&stats.stderr));
}

/// Issue #48: recordings are read bounded — a FIFO or a device is refused at once (a FIFO once
/// hung `replay` silently, `/dev/zero` grew without end), bytes that are not UTF-8 name their
/// line — by `replay`, `diff`, `audit stats` and `audit verify` alike.
#[cfg(unix)]
#[test]
fn recordings_are_read_bounded_and_named_when_they_are_not_text() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("g.toml"), ENFORCED_GUARD).unwrap();
    let fifo = d.join("pipe.jsonl");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let mut bad = b"{\"event\":\"session_start\",\"data\":{}}\n{\"event\":\"session_start\",\"data\":{}}\n".to_vec();
    bad.extend_from_slice(b"{\"event\":\"session_start\",\"data\":{\"x\":\"\xff\"}}\n");
    std::fs::write(d.join("bad.jsonl"), &bad).unwrap();
    for (args, file, what) in [
        (vec!["replay", "--no-project", "--config", "g.toml"], "pipe.jsonl", "session file"),
        (vec!["diff", "--no-project", "--config", "g.toml", "--config", "g.toml"], "pipe.jsonl", "session file"),
        (vec!["audit", "stats"], "pipe.jsonl", "audit log"),
        (vec!["audit", "verify"], "/dev/zero", "audit log"),
        (vec!["replay", "--no-project", "--config", "g.toml"], "/dev/zero", "session file"),
    ] {
        let started = std::time::Instant::now();
        let mut all = args.clone();
        all.push(file);
        let out = hookhost(d, &all, "");
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr).trim_end(), format!("hookhost: error: {file}: not a regular file (a pipe, a device or a directory); name the {what} itself"), "{all:?}");
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "{all:?}");
    }
    for args in [vec!["replay", "--no-project", "--config", "g.toml", "bad.jsonl"], vec!["audit", "stats", "bad.jsonl"]] {
        let out = hookhost(d, &args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("bad.jsonl:3: not UTF-8 text"), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// Issue #48: a recording is read as it runs — a 300,000-line session replays (`--json`, one
/// outcome a line) in bounded memory, not one parsed value per line held at once.
#[cfg(target_os = "linux")]
#[test]
fn a_long_recording_replays_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let line = "{\"event\":\"session_start\",\"session_id\":\"s\",\"data\":{\"source\":\"startup\",\"padding\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}\n";
    std::fs::write(d.join("long.jsonl"), line.repeat(300_000)).unwrap();
    let mut child = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"))
        .args(["replay", "--no-project", "--json", "long.jsonl"])
        .current_dir(d)
        .env_remove("HOOKHOST_MANAGED_CONFIG")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Its peak resident set (VmHWM, Linux's /proc), read until it exits.
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    let exit = loop {
        if let Some(kib) = std::fs::read_to_string(&status).ok().and_then(|s| s.lines().find_map(|l| l.strip_prefix("VmHWM:").and_then(|v| v.trim().trim_end_matches(" kB").parse::<u64>().ok()))) {
            peak_kib = peak_kib.max(kib);
        }
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    assert!(exit.success());
    // The file is 36 MB; read whole into values it took over ten times that.
    assert!(peak_kib > 0 && peak_kib < 250 * 1024, "peak RSS {} MiB", peak_kib / 1024);
}
