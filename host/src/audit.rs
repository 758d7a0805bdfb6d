//! The audit log: one JSON line per hook invocation, appended and flushed as it happens, and
//! hash-chained so that an edited, removed or reordered record is detected
//! (`hookhost audit verify`).
//!
//! Each line is a JSON object whose first fields are `seq` (0, 1, 2, ...) and `prev` (the `hash`
//! of the previous record; 64 zeros for the first), and whose last field is `hash`: the hex
//! sha256 of the line's own text without that field (the bytes before `,"hash":` plus `}`).
//! An edit that does not recompute every later hash breaks the chain; to detect a rewrite of the
//! whole tail, keep the head hash `verify` prints somewhere the writer cannot reach.

use serde::Serialize;
use sha2::{Digest, Sha256};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One invocation, as recorded.
#[derive(Debug, Clone, Serialize)]
pub struct AuditRecord {
    pub ts: String,
    pub hook_id: String,
    pub event: String,
    pub session_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// The plugin and its content digest.
    pub plugin: String,
    pub plugin_sha256: String,
    /// `true`: the matcher hit (or there is none); misses are not invoked and not recorded.
    pub matched: bool,
    pub decision: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Set when a block on an advisory event was ignored.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ignored: bool,
    /// Effect names, in order (`rewrite_input`, `add_context`, ...).
    pub effects: Vec<&'static str>,
    pub duration_us: u64,
    pub fuel: u64,
    pub peak_memory: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_error: Option<&'static str>,
}

/// `prev` of the first record.
const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";
/// `,"hash":"<64 hex>"}` closes every line.
const HASH_SUFFIX_LEN: usize = r#","hash":""}"#.len() + 64;

#[derive(Serialize)]
struct Chained<'a> {
    seq: u64,
    prev: &'a str,
    #[serde(flatten)]
    record: &'a AuditRecord,
}

/// Where the chain stands: the next record's `seq` and `prev`.
struct Head {
    seq: u64,
    hash: String,
}

/// An append-only, hash-chained JSONL file.
pub struct AuditLog {
    path: PathBuf,
    inner: Mutex<(std::fs::File, Head)>,
}

/// Why an existing log cannot be continued.
#[derive(Debug, thiserror::Error)]
pub enum AuditOpenError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("its last line is not a complete hookhost audit record ({0}); check it with `hookhost audit verify` and point the host at a new file")]
    NotChained(String),
}

impl AuditLog {
    /// Open (or create) a log and continue its chain.
    pub fn open(path: &Path) -> Result<AuditLog, AuditOpenError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = std::fs::OpenOptions::new().create(true).read(true).append(true).open(path)?;
        let head = match last_line(&mut file)? {
            None => Head { seq: 0, hash: GENESIS.to_string() },
            Some(line) => {
                let record = Link::parse(&line).map_err(AuditOpenError::NotChained)?;
                Head { seq: record.seq + 1, hash: record.hash }
            }
        };
        Ok(AuditLog { path: path.to_path_buf(), inner: Mutex::new((file, head)) })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append one record and flush it to the file; with `durable` (a block or halt) also wait
    /// until it is on disk, so a crash right after the decision cannot lose its record. A
    /// write failure is reported through tracing, never turned into a hook decision, and does
    /// not advance the chain.
    pub fn append(&self, record: &AuditRecord, durable: bool) {
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let (file, head) = &mut *guard;
        let body = serde_json::to_vec(&Chained { seq: head.seq, prev: &head.hash, record }).expect("audit records serialise");
        let hash = hex(&Sha256::digest(&body));
        let mut line = body;
        line.pop(); // the closing brace
        line.extend_from_slice(format!(r#","hash":"{hash}"}}"#).as_bytes());
        line.push(b'\n');
        let written = file.write_all(&line).and_then(|_| file.flush()).and_then(|_| if durable { file.sync_data() } else { Ok(()) });
        match written {
            Ok(()) => *head = Head { seq: head.seq + 1, hash },
            Err(e) => tracing::error!(path = %self.path.display(), "cannot write the audit log: {e}"),
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The hash a line's body must have: sha256 of the text before `,"hash":` plus `}`.
fn body_hash(line: &str) -> Option<String> {
    let cut = line.len().checked_sub(HASH_SUFFIX_LEN)?;
    let (body, suffix) = (line.get(..cut)?, line.get(cut..)?);
    if !suffix.starts_with(r#","hash":""#) || !suffix.ends_with("\"}") {
        return None;
    }
    let mut hasher = Sha256::new();
    hasher.update(body.as_bytes());
    hasher.update(b"}");
    Some(hex(&hasher.finalize()))
}

/// The chain fields of one record line, whose own hash has been checked.
struct Link {
    seq: u64,
    prev: String,
    hash: String,
}

impl Link {
    fn parse(line: &str) -> Result<Link, String> {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("not a JSON record ({e})"))?;
        let field = |name: &str| v.get(name).ok_or_else(|| format!("no `{name}` field: not a hookhost audit record"));
        let seq = field("seq")?.as_u64().ok_or("`seq` is not a number: not a hookhost audit record")?;
        let text = |name: &str| field(name)?.as_str().map(str::to_string).ok_or_else(|| format!("`{name}` is not a string: not a hookhost audit record"));
        let (prev, hash) = (text("prev")?, text("hash")?);
        if body_hash(line).as_deref() != Some(hash.as_str()) {
            return Err(format!("record {seq} does not match its hash: it was edited"));
        }
        Ok(Link { seq, prev, hash })
    }
}

/// The file's last line, if it has any; an unterminated last line (a torn write) is an error.
fn last_line(file: &mut std::fs::File) -> Result<Option<String>, AuditOpenError> {
    let len = file.seek(SeekFrom::End(0))?;
    if len == 0 {
        return Ok(None);
    }
    // Records are a few hundred bytes; read back far enough to hold the last one whole.
    let mut back = 64 << 10;
    loop {
        let start = len.saturating_sub(back);
        file.seek(SeekFrom::Start(start))?;
        let mut tail = Vec::new();
        file.read_to_end(&mut tail)?;
        if tail.last() != Some(&b'\n') {
            return Err(AuditOpenError::NotChained("it ends without a newline: a write was cut short".into()));
        }
        let text = &tail[..tail.len() - 1];
        match text.iter().rposition(|&b| b == b'\n') {
            Some(i) => return Ok(Some(String::from_utf8_lossy(&text[i + 1..]).into_owned())),
            None if start == 0 => return Ok(Some(String::from_utf8_lossy(text).into_owned())),
            None => back *= 4,
        }
    }
}

/// The result of checking a whole log.
#[derive(Debug, PartialEq, Eq)]
pub struct Verified {
    pub records: u64,
    /// The last record's hash (`GENESIS` for an empty log): keep it elsewhere to detect a
    /// rewrite of the tail.
    pub head: String,
}

/// Where a log's chain breaks: the 1-based line and what is wrong with it.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct ChainBroken {
    pub line: usize,
    pub problem: String,
}

/// Check every record of a log: each line's own hash, the sequence, and the link to the line
/// before.
pub fn verify(text: &str) -> Result<Verified, ChainBroken> {
    let mut expected_seq = 0u64;
    let mut prev = GENESIS.to_string();
    let broken = |line: usize, problem: String| ChainBroken { line, problem };
    if !text.is_empty() && !text.ends_with('\n') {
        let line = text.lines().count();
        return Err(broken(line, "the last line has no newline: a write was cut short, or the file was edited".into()));
    }
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let Link { seq, prev: link, hash: own } = Link::parse(line).map_err(|problem| broken(n, problem))?;
        if seq != expected_seq {
            return Err(broken(n, format!("record {seq} where record {expected_seq} should be: records were removed or reordered")));
        }
        if link != prev {
            return Err(broken(n, format!("record {seq} does not link to the record before it: that record was edited, or records were removed or reordered")));
        }
        prev = own;
        expected_seq += 1;
    }
    Ok(Verified { records: expected_seq, head: prev })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(decision: &str) -> AuditRecord {
        AuditRecord {
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
        }
    }

    fn log_of(n: usize) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("audit.jsonl");
        let log = AuditLog::open(&path).unwrap();
        for i in 0..n {
            log.append(&record(if i % 2 == 0 { "pass" } else { "block" }), i % 2 == 1);
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
        AuditLog::open(&path).unwrap().append(&record("pass"), false);
        let second = verify(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(second.records, 4);
        let l = lines(&path);
        assert!(l[0].starts_with(&format!(r#"{{"seq":0,"prev":"{GENESIS}","ts":"#)), "{}", l[0]);
        assert!(l[3].contains(&format!(r#""prev":"{}""#, first.head)), "{}", l[3]);
        assert_eq!(verify("").unwrap(), Verified { records: 0, head: GENESIS.into() });
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
        l[0] = format!(r#"{},"hash":"{}"}}"#, &body[..body.len() - 1], hex(&Sha256::digest(body.as_bytes())));
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
    fn a_torn_or_foreign_log_is_not_continued() {
        let (_dir, path) = log_of(2);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.truncate(text.len() - 10);
        std::fs::write(&path, &text).unwrap();
        let err = AuditLog::open(&path).err().unwrap().to_string();
        assert_eq!(err, "its last line is not a complete hookhost audit record (it ends without a newline: a write was cut short); check it with `hookhost audit verify` and point the host at a new file");
        assert_eq!(verify(&text).unwrap_err().problem, "the last line has no newline: a write was cut short, or the file was edited");
        std::fs::write(&path, "{\"hook_id\":\"x\"}\n").unwrap();
        let err = AuditLog::open(&path).err().unwrap().to_string();
        assert!(err.contains("(no `seq` field: not a hookhost audit record)"), "{err}");
        assert_eq!(verify("{\"hook_id\":\"x\"}\n").unwrap_err().problem, "no `seq` field: not a hookhost audit record");
        assert_eq!(verify("nonsense\n").unwrap_err().line, 1);
    }
}
