//! Tests of `audit.rs`.

use super::*;

fn record(decision: &str) -> AuditRecord {
    AuditRecord {
        observed: false,
        replayed: false,
        event_data: None,
        ts: "2026-01-01T00:00:00Z".into(),
        hook_id: "user:guard".into(),
        event: "pre_tool_use".into(),
        session_id: "s".into(),
        turn_id: None,
        tool_name: Some("bash".into()),
        plugin: "builtin:guard-destructive".into(),
        plugin_sha256: "ab".into(),
        matched: true,
        decision: decision.into(),
        reason: None,
        ignored: false,
        effects: vec![],
        duration_us: 1,
        fuel: 2,
        peak_memory: 3,
        error: None,
        on_error: None,
        recheck: false,
    }
}

fn log_of(n: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    let log = AuditLog::open(&path).unwrap();
    for i in 0..n {
        log.append(&record(if i % 2 == 0 { "pass" } else { "block" }), i % 2 == 1).unwrap();
    }
    (dir, path)
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap().lines().map(str::to_string).collect()
}

fn verify_lines(lines: &[String]) -> Result<Verified, ChainBroken> {
    verify(&lines.iter().map(|l| format!("{l}\n")).collect::<String>())
}

#[test]
fn an_intact_log_verifies_and_reopening_continues_the_chain() {
    let (_dir, path) = log_of(3);
    let first = verify(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(first.records, 3);
    AuditLog::open(&path).unwrap().append(&record("pass"), false).unwrap();
    let second = verify(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(second.records, 4);
    let l = lines(&path);
    assert!(l[0].starts_with(&format!(r#"{{"seq":0,"prev":"{GENESIS}","ts":"#)), "{}", l[0]);
    assert!(l[3].contains(&format!(r#""prev":"{}""#, first.head)), "{}", l[3]);
    assert_eq!(verify("").unwrap(), Verified { records: 0, head: GENESIS.into(), recoveries: vec![] });
}

#[test]
fn an_edited_record_is_detected() {
    let (_dir, path) = log_of(4);
    let mut l = lines(&path);
    l[1] = l[1].replace(r#""decision":"block""#, r#""decision":"pass""#);
    assert_eq!(verify_lines(&l).unwrap_err(), ChainBroken { line: 2, problem: "record 1 does not match its hash: it was edited".into() });
    // The last record has no successor to link to it; its own hash catches the edit.
    let mut l = lines(&path);
    l[3] = l[3].replace(r#""fuel":2"#, r#""fuel":9"#);
    assert_eq!(verify_lines(&l).unwrap_err().line, 4);
}

#[test]
fn a_rehashed_edit_breaks_the_next_link() {
    let (_dir, path) = log_of(3);
    let mut l = lines(&path);
    let edited = l[0].replace(r#""decision":"pass""#, r#""decision":"allow""#);
    let body = format!("{}}}", &edited[..edited.len() - HASH_SUFFIX_LEN]);
    l[0] = format!(r#"{},"hash":"{}"}}"#, &body[..body.len() - 1], sha256_hex(body.as_bytes()));
    let err = verify_lines(&l).unwrap_err();
    assert_eq!(err, ChainBroken { line: 2, problem: "record 1 does not link to the record before it: that record was edited, or records were removed or reordered".into() });
}

#[test]
fn removed_and_reordered_records_are_detected() {
    let (_dir, path) = log_of(4);
    let mut l = lines(&path);
    l.remove(1);
    assert_eq!(verify_lines(&l).unwrap_err(), ChainBroken { line: 2, problem: "record 2 where record 1 should be: records were removed or reordered".into() });
    let mut l = lines(&path);
    l.swap(2, 3);
    assert_eq!(verify_lines(&l).unwrap_err(), ChainBroken { line: 3, problem: "record 3 where record 2 should be: records were removed or reordered".into() });
    let mut l = lines(&path);
    l.remove(0);
    assert_eq!(verify_lines(&l).unwrap_err().line, 1);
}

#[test]
fn foreign_lines_are_moved_aside_and_the_chain_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    std::fs::write(&path, "{\"hook_id\":\"x\"}\n").unwrap();
    let log = AuditLog::open(&path).unwrap();
    log.append(&record("pass"), false).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let verified = verify(&text).unwrap();
    assert_eq!(verified.records, 2, "the recovery and the new record: {text}");
    assert_eq!(verified.recoveries[0].1.torn_bytes, 16);
    let aside = std::fs::read_to_string(&verified.recoveries[0].1.moved_to).unwrap();
    assert_eq!(aside, "{\"hook_id\":\"x\"}\n");
    assert_eq!(verify("{\"hook_id\":\"x\"}\n").unwrap_err().problem, "no `seq` field: not a hookhost audit record");
    assert_eq!(verify("nonsense\n").unwrap_err().line, 1);
}

#[test]
fn a_torn_tail_is_moved_aside_and_the_recovery_recorded() {
    let (dir, path) = log_of(2);
    let mut text = std::fs::read_to_string(&path).unwrap();
    let good = verify(&text).unwrap();
    text.push_str(r#"{"seq":2,"prev":"ab"#);
    std::fs::write(&path, &text).unwrap();
    assert_eq!(verify(&text).unwrap_err().problem, "the last line has no newline: a write was cut short, or the file was edited (the next writer moves it aside and records the recovery)");

    let log = AuditLog::open(&path).unwrap();
    log.append(&record("pass"), false).unwrap();
    let v = verify(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(v.records, 4, "2 good + recovered + the new one");
    let aside: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().path()).filter(|p| p != &path).collect();
    assert_eq!(aside.len(), 1);
    assert_eq!(std::fs::read_to_string(&aside[0]).unwrap(), r#"{"seq":2,"prev":"ab"#);
    assert_eq!(v.recoveries, vec![(3, Recovery { torn_bytes: 19, moved_to: aside[0].display().to_string() })]);
    let l = lines(&path);
    assert!(l[2].contains(&format!(r#""seq":2,"prev":"{}""#, good.head)), "{}", l[2]);
    // A torn first record: the whole file is moved aside and the chain starts over.
    std::fs::write(&path, "{\"seq\":0").unwrap();
    AuditLog::open(&path).unwrap().append(&record("pass"), false).unwrap();
    let v = verify(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!((v.records, v.recoveries.len()), (2, 1));
}

#[test]
fn a_cut_tail_is_found_against_a_saved_head() {
    let (_dir, path) = log_of(4);
    let log = AuditLog::open(&path).unwrap();
    let (seq, saved) = log.head().unwrap();
    assert_eq!(seq, 3);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(verify_expecting(&text, &saved).unwrap().head, saved);
    // Appending after the saved head is fine.
    log.append(&record("pass"), false).unwrap();
    assert!(verify_expecting(&std::fs::read_to_string(&path).unwrap(), &saved).is_ok());
    // Cutting the last two records leaves an intact, shorter chain: only the saved head tells.
    let cut: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
    assert_eq!(verify(&cut).unwrap().records, 2);
    let err = verify_expecting(&cut, &saved).unwrap_err();
    assert_eq!(err, ChainBroken { line: 2, problem: format!("no record has the expected head hash {saved}: records after it were cut from the tail, or the log was replaced") });
}

#[test]
fn writers_on_threads_and_handles_keep_one_chain() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                // Each thread its own handle, as separate processes would have.
                let log = AuditLog::open(&path).unwrap();
                for _ in 0..50 {
                    log.append(&record("pass"), false).unwrap();
                }
            });
        }
    });
    assert_eq!(verify(&std::fs::read_to_string(&path).unwrap()).unwrap().records, 200);
}

#[test]
fn a_failed_write_is_returned() {
    let log = AuditLog::open(Path::new("/dev/full")).unwrap();
    let err = log.append(&record("pass"), false).unwrap_err();
    assert!(err.starts_with("cannot write the audit log /dev/full: No space left on device"), "{err}");
    assert_eq!(log.head(), None, "a failed write does not advance the chain");
}

#[test]
fn a_record_of_any_depth_reads_back_and_the_log_continues() {
    let (_dir, path) = log_of(1);
    // An event nested deeper than a JSON parser reads (serde_json stops at 128 levels).
    let mut deep = serde_json::json!("x");
    for _ in 0..200 {
        deep = serde_json::json!([deep]);
    }
    let log = AuditLog::open(&path).unwrap();
    log.append(&AuditRecord { event_data: Some(deep), ..record("pass") }, false).unwrap();
    drop(log);
    let again = AuditLog::open(&path).expect("the next run continues the chain");
    again.append(&record("block"), true).unwrap();
    assert_eq!(verify(&std::fs::read_to_string(&path).unwrap()).unwrap().records, 3);
}

#[cfg(unix)]
#[test]
fn logs_are_owner_only() {
    use std::os::unix::fs::PermissionsExt as _;
    let (dir, path) = log_of(1);
    assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    // One made before, readable by others: made owner-only when next opened.
    let old = dir.path().join("old.jsonl");
    std::fs::write(&old, "").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
    AuditLog::open(&old).unwrap();
    assert_eq!(std::fs::metadata(&old).unwrap().permissions().mode() & 0o777, 0o600);
}
