//! Fail-closed behaviour that only shows across processes (issue #12): the audit chain with
//! several writers at once, a full disk, a torn tail and a cut tail; the stop-loop cap when
//! every event is its own `hookhost run`; a precompile cache that was tampered with; and hooks'
//! state when a run is killed mid-write.

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};


fn hookhost_env(args: &[&str], stdin: &str, env: &[(&str, &Path)]) -> Output {
    let mut cmd = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"));
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn hookhost");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn hookhost(args: &[&str], stdin: &str) -> Output {
    hookhost_env(args, stdin, &[])
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).trim_end().to_string()
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "exit {:?}: {}", out.status.code(), stderr(out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

const RM: &str = r#"{"event":"pre_tool_use","data":{"tool_name":"bash","tool_call_id":"c","arguments":{"command":"rm -rf /"}}}"#;
const LS: &str = r#"{"event":"pre_tool_use","data":{"tool_name":"bash","tool_call_id":"c","arguments":{"command":"ls"}}}"#;

#[test]
fn concurrent_processes_keep_one_audit_chain() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl").display().to_string();
    let session = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/session.jsonl");
    let children: Vec<_> = (0..6)
        .map(|_| {
            crate::common::bin(env!("CARGO_BIN_EXE_hookhost"))
                .args(["replay", "--json", "--audit", &log, session])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let one = hookhost(&["replay", "--json", "--audit", &dir.path().join("one.jsonl").display().to_string(), session], "");
    assert!(one.status.success());
    let per_run = std::fs::read_to_string(dir.path().join("one.jsonl")).unwrap().lines().count();
    let out = hookhost(&["audit", "verify", &log], "");
    assert!(out.status.success(), "the chain forked: {}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with(&format!("ok: {} records, chain intact", 6 * per_run)), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn an_audit_write_failure_blocks_unless_configured_to_warn() {
    let out = json(&hookhost(&["run", "--audit", "/dev/full"], LS));
    assert_eq!(out["decision"], "block");
    assert_eq!(
        out["reason"],
        "cannot write the audit log /dev/full: No space left on device (os error 28); blocking because audit_failure = \"block\" (set audit_failure = \"warn\" to keep the hooks' decision)"
    );
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("hooks.toml");
    std::fs::write(
        &cfg,
        "audit_failure = \"warn\"\n[[hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n",
    )
    .unwrap();
    let out = hookhost(&["run", "--config", &cfg.display().to_string(), "--audit", "/dev/full"], LS);
    assert_eq!(json(&out)["decision"], "pass");
    assert!(stderr(&out).contains("cannot write the audit log /dev/full"), "{}", stderr(&out));
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "audit_failure = \"ignore\"\n").unwrap();
    let out = hookhost(&["check", "--config", &bad.display().to_string()], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown variant `ignore`, expected `block` or `warn`"), "{}", stderr(&out));
}

#[test]
fn a_torn_audit_tail_is_recovered_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let log_s = log.display().to_string();
    assert!(hookhost(&["run", "--audit", &log_s], RM).status.success());
    let mut f = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    f.write_all(br#"{"seq":1,"prev":"0f"#).unwrap();
    drop(f);
    let out = hookhost(&["run", "--audit", &log_s], RM);
    assert_eq!(json(&out)["decision"], "block", "the run goes on after the recovery");
    let out = hookhost(&["audit", "verify", &log_s], "");
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let aside: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().path()).filter(|p| p != &log).collect();
    assert_eq!(aside.len(), 1);
    assert!(aside[0].file_name().unwrap().to_str().unwrap().starts_with("audit.jsonl.torn-"));
    assert_eq!(std::fs::read_to_string(&aside[0]).unwrap(), r#"{"seq":1,"prev":"0f"#);
    assert_eq!(
        text,
        format!("note: line 2: a writer found a torn last line (19 bytes), moved it to {} and recorded the recovery\nok: 3 records, chain intact; head hash {}\n", aside[0].display(), text.trim_end().rsplit(' ').next().unwrap())
    );
}

#[test]
fn a_cut_audit_tail_is_caught_against_the_head_printed_with_v() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("audit.jsonl");
    let log_s = log.display().to_string();
    assert!(hookhost(&["run", "--audit", &log_s], LS).status.success());
    let out = hookhost(&["run", "-v", "--audit", &log_s], RM);
    let line = stderr(&out);
    // `ls` wrote two records (guard, redactor), `rm -rf /` one (the guard's block).
    let prefix = format!("hookhost: audit {log_s}: head record 2, hash ");
    assert!(line.starts_with(&prefix), "{line}");
    let head = line[prefix.len()..].to_string();
    let ok = hookhost(&["audit", "verify", "--expect-head", &head, &log_s], "");
    assert!(ok.status.success(), "{}", stderr(&ok));
    // Cut the last record: still a valid chain, but the saved head is gone.
    let text = std::fs::read_to_string(&log).unwrap();
    let kept: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
    std::fs::write(&log, kept).unwrap();
    assert!(hookhost(&["audit", "verify", &log_s], "").status.success());
    let out = hookhost(&["audit", "verify", "--expect-head", &head, &log_s], "");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), format!("hookhost: {log_s}:2: no record has the expected head hash {head}: records after it were cut from the tail, or the log was replaced"));
    let out = hookhost(&["audit", "verify", "--expect-head", "abc", &log_s], "");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), "hookhost: error: --expect-head: \"abc\" is not a head hash (64 lowercase hex digits, as `run --audit F -v` prints)");
}

/// A stop hook that always blocks, as a Claude Code command hook run in the sandbox.
const STOP_HOOK: &str = "stop_loop_cap = 2\n[[hooks]]\nid = \"not_done\"\nevent = \"stop\"\nexecutor = { plugin = \"builtin:bash-adapter\", settings = { dialect = \"claude-code\", command = \"echo 'tests are failing' >&2; exit 2\" } }\n";

#[test]
fn the_stop_loop_cap_holds_across_processes() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("hooks.toml");
    std::fs::write(&cfg, STOP_HOOK).unwrap();
    let cfg = cfg.display().to_string();
    // A session id no other test run shares (the cache directory is the user's).
    let session = format!("stop-loop-{}-{}", std::process::id(), std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos());
    let stop = format!(r#"{{"event":"stop","session_id":"{session}","data":{{}}}}"#);
    let decisions: Vec<String> = (0..4).map(|_| json(&hookhost(&["run", "--config", &cfg], &stop))["decision"].as_str().unwrap().to_string()).collect();
    // Two blocks, then the cap lets the agent stop, and the count starts over.
    assert_eq!(decisions, ["block", "block", "pass", "block"]);
    let out = json(&hookhost(&["run", "--config", &cfg], &stop));
    assert_eq!(out["decision"], "block");
    let out = json(&hookhost(&["run", "--config", &cfg], &stop));
    assert_eq!(out["reason"], "stop hooks blocked 2 times in a row; the stop_loop_cap of 2 lets the agent stop");
    // A prompt in between resets the count: two more blocks before the cap, not one.
    assert_eq!(json(&hookhost(&["run", "--config", &cfg], &stop))["decision"], "block");
    json(&hookhost(&["run", "--config", &cfg], &format!(r#"{{"event":"user_prompt_submit","session_id":"{session}","data":{{"message":"go on"}}}}"#)));
    assert_eq!(json(&hookhost(&["run", "--config", &cfg], &stop))["decision"], "block");
    assert_eq!(json(&hookhost(&["run", "--config", &cfg], &stop))["decision"], "block");
    assert_eq!(json(&hookhost(&["run", "--config", &cfg], &stop))["decision"], "pass");
}

#[test]
fn claude_codes_stop_hook_active_and_the_canonical_loop_count_are_honoured() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("hooks.toml");
    std::fs::write(&cfg, STOP_HOOK).unwrap();
    let cfg = cfg.display().to_string();
    let fresh = |tag: &str| format!("{tag}-{}-{}", std::process::id(), std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos());
    let claude = format!(r#"{{"hook_event_name":"Stop","session_id":"{}","stop_hook_active":true}}"#, fresh("cc"));
    // stop_hook_active: at least one block already; one more is allowed, then the cap.
    assert_eq!(json(&hookhost(&["run", "--config", &cfg], &claude))["decision"], "block");
    assert_eq!(json(&hookhost(&["run", "--config", &cfg], &claude))["decision"], "pass");
    let counted = format!(r#"{{"event":"stop","session_id":"{}","data":{{"loop_count":2}}}}"#, fresh("lc"));
    assert_eq!(json(&hookhost(&["run", "--config", &cfg], &counted))["decision"], "pass");
}

fn cwasm_entries(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "cwasm")).collect();
    v.sort();
    v
}

fn entry_of(dir: &Path, builtin: &str) -> std::path::PathBuf {
    let digest = sha256_hex(hookhost::builtin_plugin(builtin).unwrap());
    cwasm_entries(dir).into_iter().find(|p| p.file_name().unwrap().to_str().unwrap().starts_with(&digest)).unwrap()
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_swapped_precompile_cache_entry_is_recompiled_never_run() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let env = [("HOOKHOST_CACHE_DIR", cache.as_path())];
    assert!(hookhost_env(&["check"], "", &env).status.success());
    let guard = entry_of(&cache, "guard-destructive");
    let redact = entry_of(&cache, "redact-secrets");
    // Put the redactor's (validly tagged) native code under the guard's name: a different
    // program than the audit log's plugin_sha256 would claim.
    std::fs::copy(&redact, &guard).unwrap();
    let out = hookhost_env(&["run"], RM, &env);
    assert_eq!(json(&out)["decision"], "block", "the real guard ran");
    assert!(stderr(&out).contains("a precompile cache entry failed its authentication check (replaced, or written with another key); recompiling"), "{}", stderr(&out));
    assert_ne!(std::fs::read(&guard).unwrap(), std::fs::read(&redact).unwrap(), "the entry was rewritten");
    // The redactor's entry and its seal together under the guard's name: the seal is bound to
    // the name it was made for.
    let seal = |p: &Path| std::path::PathBuf::from(format!("{}.seal", p.display()));
    std::fs::copy(&redact, &guard).unwrap();
    std::fs::copy(seal(&redact), seal(&guard)).unwrap();
    let out = hookhost_env(&["run"], RM, &env);
    assert_eq!(json(&out)["decision"], "block", "the real guard ran");
    assert!(stderr(&out).contains("a precompile cache entry's seal does not check out (written with another key, or tampered with); recompiling"), "{}", stderr(&out));
    // The same bytes rewritten in place (a backup restored): the file changed, so its code is
    // read and checked once, found genuine, and used without compiling.
    let code = std::fs::read(&guard).unwrap();
    std::fs::write(&guard, &code).unwrap();
    let out = hookhost_env(&["run", "-v"], RM, &env);
    assert_eq!(json(&out)["decision"], "block");
    assert_eq!(stderr(&out), "", "no warning for a genuine entry");
    // An entry others may write is not trusted either.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&guard, std::fs::Permissions::from_mode(0o666)).unwrap();
    let out = hookhost_env(&["run"], RM, &env);
    assert_eq!(json(&out)["decision"], "block");
    assert!(stderr(&out).contains("ignoring a precompile cache entry that is writable by group or others (mode 666); recompiling"), "{}", stderr(&out));
    // The key is private.
    let key = std::fs::metadata(cache.join(".hookhost-cache-key")).unwrap();
    assert_eq!(key.permissions().mode() & 0o777, 0o600);
}

#[test]
fn a_cache_directory_others_can_write_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
    let out = hookhost_env(&["run"], LS, &[("HOOKHOST_CACHE_DIR", cache.as_path())]);
    assert_eq!(out.status.code(), Some(2));
    let c = cache.display();
    assert_eq!(
        stderr(&out),
        format!("hookhost: error: the cache directory {c} is writable by group or others (mode 777); its precompiled code runs inside hookhost, so it must be yours and writable only by you: `chmod go-w {c}` (and chown it to yourself), or set cache_dir / $HOOKHOST_CACHE_DIR to such a directory")
    );
    assert_eq!(cwasm_entries(&cache).len(), 0, "nothing was written to it");
    // Owned by someone else: as root, give the directory away; otherwise point at /usr
    // (root's, mode 755).
    std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o755)).unwrap();
    // SAFETY: geteuid has no preconditions.
    let me = unsafe { libc::geteuid() };
    let (foreign, owner) = if me == 0 {
        std::os::unix::fs::chown(&cache, Some(65534), Some(65534)).unwrap();
        (cache.clone(), 65534)
    } else {
        (std::path::PathBuf::from("/usr"), 0)
    };
    let out = hookhost_env(&["run"], LS, &[("HOOKHOST_CACHE_DIR", foreign.as_path())]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).starts_with(&format!("hookhost: error: the cache directory {} is owned by uid {owner}, not by you (uid {me});", foreign.display())), "{}", stderr(&out));
}

/// A block's audit record is on disk before the block is returned: traced with `strace`, the
/// record's write and its `fdatasync` come before the decision reaches stdout. (Killing the
/// process after the decision could not tell: written data survives a kill in the page cache;
/// only the sync order shows it would survive a crash.)
#[test]
fn a_blocks_audit_record_is_synced_before_the_decision_is_printed() {
    if !hookhost_tests::have("strace") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (log, trace, event) = (dir.path().join("audit.jsonl"), dir.path().join("trace"), dir.path().join("ev.json"));
    std::fs::write(&event, RM).unwrap();
    let out = crate::common::bin("strace")
        .args(["-f", "-e", "trace=openat,write,fdatasync,fsync", "-o"])
        .arg(&trace)
        .arg(env!("CARGO_BIN_EXE_hookhost"))
        .args(["run", "--audit"])
        .arg(&log)
        .arg("--event")
        .arg(&event)
        .output()
        .unwrap();
    assert_eq!(json(&out)["decision"], "block");
    let trace = std::fs::read_to_string(&trace).unwrap();
    let lines: Vec<&str> = trace.lines().collect();
    let opened = lines.iter().find(|l| l.contains(&format!("\"{}\"", log.display())) && l.contains("openat(")).expect("the log is opened");
    let fd = opened.rsplit("= ").next().unwrap().trim();
    let at = |pattern: &str| lines.iter().position(|l| l.contains(pattern)).unwrap_or_else(|| panic!("no {pattern:?} in the trace:\n{trace}"));
    let record = at(&format!("write({fd}, \"{{\\\"seq\\\":0"));
    let synced = at(&format!("fdatasync({fd})"));
    let printed = at("write(1, \"{\\\"decision\\\":\\\"block\\\"");
    assert!(record < synced && synced < printed, "record at {record}, sync at {synced}, decision at {printed}:\n{trace}");
}

/// Where address space is limited (`ulimit -v`), the default engine cannot reserve a hook's
/// memory: hookhost cannot run its hooks, and a runtime hears a block (never a pass).
/// `HOOKHOST_POOLING=0` reserves each memory's largest allowed size only, and the hooks run.
#[cfg(unix)]
#[test]
fn a_limited_address_space_fails_closed_and_hookhost_pooling_0_runs_in_it() {
    let session = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/session.jsonl");
    let cache = tempfile::tempdir().unwrap();
    let limited = |pooling: &str, args: &str, stdin: &str| {
        let mut sh = crate::common::bin("sh");
        sh.args(["-c", &format!("ulimit -v 3000000 && exec \"$0\" {args}"), env!("CARGO_BIN_EXE_hookhost")]).env("HOOKHOST_POOLING", pooling).env("HOOKHOST_CACHE_DIR", cache.path());
        crate::common::output_of(sh, stdin.as_bytes())
    };
    let ls = r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/"}"#;
    let out = limited("1", "run --output claude-code --no-project", ls);
    let answer = String::from_utf8_lossy(&out.stdout);
    assert!(answer.contains(r#""permissionDecision":"deny""#) && answer.contains("mmap failed to reserve"), "{answer}{}", stderr(&out));
    let out = limited("0", "run --output claude-code --no-project", ls);
    assert!(out.status.success() && !String::from_utf8_lossy(&out.stdout).contains("deny"), "{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    let out = limited("0", &format!("replay --no-project --json {session}"), "");
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // `rm -rf /` (line 5) blocked by the guard's rule, `cargo test` (line 8) passes: no failures.
    assert!(lines[4]["reason"].as_str().unwrap().contains("(rule fs.rm-no-preserve-root)"), "{}", lines[4]);
    assert_eq!(lines[7]["decision"], "pass", "{}", lines[7]);
    assert!(lines.iter().flat_map(|l| l["hooks"].as_array().unwrap()).all(|h| h["error"].is_null()));
}

/// Hooks' session state (issue #52) when a `hookhost run` is killed (SIGKILL) while its hook is
/// writing — the `remember` test guest's prompt `churn` increments `n` and rewrites 50 padded
/// keys until stopped: three times over, every row and index entry of the store still reads back
/// ([`hookhost::kv::StateStore::verify`]), `n`
/// only grows (what a killed run committed stays; what it had not is rolled back), and the next
/// run reads and writes it.
#[cfg(unix)]
#[test]
fn a_run_killed_mid_write_leaves_a_readable_store() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let config = dir.path().join("hooks.toml");
    let plugin = hookhost_tests::fixtures::REMEMBER;
    std::fs::write(&config, format!("[[hooks]]\nid = \"r\"\nevent = \"user_prompt_submit\"\nexecutor = {{ plugin = {plugin:?}, fuel = 100000000000 }}\ntimeout_ms = 30000\n\n[[hooks]]\nid = \"t\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = {plugin:?} }}\n")).unwrap();
    let store = state.join(hookhost::kv::FILE_NAME);
    // Read as another process would: every row and the expiry index whole, then `n`.
    let count = || -> i64 {
        if !store.exists() {
            return 0;
        }
        let reader = hookhost::kv::StateStore::at(&store, Default::default());
        assert!(reader.verify().unwrap() >= 1);
        let scope = hookhost::kv::Scope::of(plugin, "s", Some("/"));
        reader.get(&scope, "n", None).unwrap().map(|v| v.parse().unwrap()).unwrap_or(0)
    };
    let mut last = 0;
    for round in 0..3 {
        let mut cmd = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"));
        cmd.args(["run", "--no-project", "--config", config.to_str().unwrap()]).env("HOOKHOST_STATE_DIR", &state).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null());
        let mut child = cmd.spawn().unwrap();
        child.stdin.take().unwrap().write_all(br#"{"event": "user_prompt_submit", "session_id": "s", "cwd": "/", "data": {"message": "churn"}}"#).unwrap();
        // Writing, for a while: the count moves (read by another connection, as a run would).
        let started = std::time::Instant::now();
        while count() < last + 200 {
            assert!(started.elapsed() < std::time::Duration::from_secs(60), "round {round}: the churn never got going");
            assert!(child.try_wait().unwrap().is_none(), "round {round}: the run ended before it was killed");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let now = count();
        assert!(now >= last + 200, "round {round}: {now} after {last}: a committed count was lost");
        last = now;
    }
    // The next run of the same session reads and writes the store as ever.
    let call = |cmd: &str| hookhost_env(&["run", "--no-project", "--config", config.to_str().unwrap()], &format!(r#"{{"event": "pre_tool_use", "session_id": "s", "cwd": "/", "data": {{"tool_name": "Bash", "arguments": {{"command": "{cmd}"}}}}}}"#), &[("HOOKHOST_STATE_DIR", &state)]);
    assert_eq!(json(&call("make"))["decision"], "pass");
    assert_eq!(json(&call("make"))["reason"], "again: make");
    assert_eq!(count(), last, "the count is where the last killed run left it");
}
