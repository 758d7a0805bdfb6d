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
use hookhost_types::ids::sha256_hex;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One invocation, as recorded.
#[derive(Debug, Clone, Serialize)]
pub struct AuditRecord {
    /// When (RFC 3339).
    pub ts: String,
    /// The hook.
    pub hook_id: String,
    /// The event name.
    pub event: String,
    /// The session.
    pub session_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The turn.
    pub turn_id: Option<String>,
    /// The tool, on tool events.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// The plugin and its content digest.
    pub plugin: String,
    /// The plugin's hex sha256.
    pub plugin_sha256: String,
    /// `true`: the matcher hit (or there is none); misses are not invoked and not recorded.
    pub matched: bool,
    /// The verdict (`pass`, `block`, ...).
    pub decision: String,
    /// Its reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Set when a block on an advisory event was ignored.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ignored: bool,
    /// Effect names, in order (`rewrite_input`, `add_context`, ...).
    pub effects: Vec<&'static str>,
    /// Wall-clock time of the invocation.
    pub duration_us: u64,
    /// Fuel consumed.
    pub fuel: u64,
    /// Peak linear memory, bytes.
    pub peak_memory: usize,
    /// How the executor failed, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The `on_error` policy applied to that failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_error: Option<&'static str>,
    /// Set when the hook ran again because a later hook rewrote the payload.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub recheck: bool,
    /// Set for a hook in `observe` mode: its decision and effects were recorded, not applied.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub observed: bool,
    /// Set when the event was replayed from a recording (`hookhost replay`, `hookhost diff`),
    /// not sent by a runtime: `audit stats` leaves such records out.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub replayed: bool,
    /// The event as the runtime sent it, in the first record of each dispatch when the config
    /// sets `audit_events = true` (what `hookhost diff` replays).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_data: Option<serde_json::Value>,
}

/// `prev` of the first record.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";
/// `,"hash":"<64 hex>"}` closes every line.
const HASH_SUFFIX_LEN: usize = r#","hash":""}"#.len() + 64;

#[derive(Serialize)]
struct Chained<'a, T: Serialize> {
    seq: u64,
    prev: &'a str,
    #[serde(flatten)]
    record: &'a T,
}

/// The record a writer appends after moving a torn tail aside: it chains to the last good
/// record, so `verify` accepts the log and reports the recovery.
#[derive(Serialize)]
struct RecoveredRecord {
    ts: String,
    recovered: Recovery,
}

/// What a recovery did (the `recovered` field of its record).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Recovery {
    /// Bytes of the unterminated last line that were moved aside.
    pub torn_bytes: u64,
    /// Where they were moved (`FILE.torn-<unix nanos>`).
    pub moved_to: String,
}

/// Where the chain stands: the next record's `seq` and `prev`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Head {
    seq: u64,
    hash: String,
}

struct Inner {
    file: std::fs::File,
    head: Head,
    /// The file's length after this writer's last write: when it still is, no other writer
    /// appended and the head need not be read again.
    len: u64,
}

/// An append-only, hash-chained JSONL file. Writers in other threads and processes append to
/// the same chain: each append holds an advisory lock (`flock`) on the file while it reads the
/// head and writes its record.
pub struct AuditLog {
    path: PathBuf,
    inner: Mutex<Inner>,
}

/// Why an existing log cannot be continued.
#[derive(Debug, thiserror::Error)]
pub enum AuditOpenError {
    /// It could not be opened, locked or read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("its last line is not a complete hookhost audit record ({0}); check it with `hookhost audit verify` and point the host at a new file")]
    /// Its last line is not a record this writer can chain to.
    NotChained(String),
}

/// Holds the advisory lock on the log file until dropped.
struct Locked<'a>(&'a std::fs::File);

impl<'a> Locked<'a> {
    fn new(file: &'a std::fs::File) -> std::io::Result<Self> {
        file.lock()?;
        Ok(Locked(file))
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

impl AuditLog {
    /// Open (or create) a log and continue its chain. A torn last line (a write cut short by a
    /// full disk or a crash) is moved aside into `FILE.torn-<ts>` and a `recovered` record
    /// chained to the last good one is appended; a last line that is complete but not a
    /// hookhost record is refused.
    pub fn open(path: &Path) -> Result<AuditLog, AuditOpenError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        // Owner-only: records hold commands, paths and (with `audit_events`) whole events.
        let file = owner_only(std::fs::OpenOptions::new().create(true).read(true).append(true)).open(path)?;
        tighten(&file, path);
        let (head, len) = {
            let _lock = Locked::new(&file)?;
            read_head(&file, path)?
        };
        Ok(AuditLog { path: path.to_path_buf(), inner: Mutex::new(Inner { file, head, len }) })
    }

    /// The log file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The last record's sequence number and hash as this writer last saw them (`None` for an
    /// empty log). Keep the hash somewhere the writer cannot reach and check it later with
    /// `hookhost audit verify --expect-head`.
    pub fn head(&self) -> Option<(u64, String)> {
        let inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        (inner.head.seq > 0).then(|| (inner.head.seq - 1, inner.head.hash.clone()))
    }

    /// Append one record and flush it to the file; with `durable` (a block or halt) also wait
    /// until it is on disk, so a crash right after the decision cannot lose its record. A
    /// failed write does not advance the chain and is returned: the caller decides what it
    /// means for the decision (`audit_failure`).
    pub fn append(&self, record: &AuditRecord, durable: bool) -> Result<(), String> {
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let inner = &mut *guard;
        let written = (|| -> Result<(), AuditOpenError> {
            let _lock = Locked::new(&inner.file)?;
            if inner.file.metadata()?.len() != inner.len {
                // Another writer appended since: continue from its head.
                (inner.head, inner.len) = read_head(&inner.file, &self.path)?;
            }
            let (line, hash) = chain_line(&inner.head, record);
            write_line(&inner.file, &line, durable)?;
            inner.head = Head { seq: inner.head.seq + 1, hash };
            inner.len += line.len() as u64;
            Ok(())
        })();
        written.map_err(|e| {
            tracing::error!(path = %self.path.display(), "cannot write the audit log: {e}");
            format!("cannot write the audit log {}: {e}", self.path.display())
        })
    }
}

/// Files this module creates are readable by their owner only (mode 0600; on Windows [`tighten`]
/// gives the log its owner-only access list).
fn owner_only(options: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(options, 0o600);
    options
}

/// A log made before hookhost made them owner-only: made so now (best effort; a log of another
/// user's cannot be changed, and is reported by the write that fails). On Windows: any account
/// but the user's own in its access list (`hookhost_types::owner`).
fn tighten(file: &std::fs::File, _path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if let Ok(meta) = file.metadata() {
            if meta.permissions().mode() & 0o077 != 0 {
                let _ = file.set_permissions(std::fs::Permissions::from_mode(0o600));
            }
        }
    }
    #[cfg(windows)]
    if file.metadata().is_ok_and(|meta| !hookhost_types::owner::owner_only(_path, &meta)) {
        let _ = hookhost_types::owner::make_private(_path);
    }
    #[cfg(not(unix))]
    let _ = file;
}

/// A record's line (with its trailing newline) and hash, chained to `head`.
fn chain_line<T: Serialize>(head: &Head, record: &T) -> (Vec<u8>, String) {
    let body = serde_json::to_vec(&Chained { seq: head.seq, prev: &head.hash, record }).expect("audit records serialise");
    let hash = sha256_hex(&body);
    let mut line = body;
    line.pop(); // the closing brace
    line.extend_from_slice(format!(r#","hash":"{hash}"}}"#).as_bytes());
    line.push(b'\n');
    (line, hash)
}

fn write_line(mut file: &std::fs::File, line: &[u8], durable: bool) -> std::io::Result<()> {
    file.write_all(line)?;
    file.flush()?;
    if durable {
        file.sync_data()?;
    }
    Ok(())
}

/// The chain's head and the file's length, read under the lock. A torn last line is moved
/// aside and a `recovered` record appended first.
fn read_head(file: &std::fs::File, path: &Path) -> Result<(Head, u64), AuditOpenError> {
    let mut reader = file;
    let len = reader.seek(SeekFrom::End(0))?;
    let tail = last_line(&mut reader, len)?;
    let head = match tail {
        Tail::Empty => Head { seq: 0, hash: GENESIS.to_string() },
        Tail::Complete { line, from } => match link_head(&line) {
            Ok(head) => head,
            Err(e) => return set_aside(file, path, from, len, &e),
        },
        Tail::Torn { last_good: Some((line, from)), .. } if link_head(&line).is_err() => {
            let e = link_head(&line).err().map(|e| e.to_string()).unwrap_or_default();
            return set_aside(file, path, from, len, &e);
        }
        Tail::Torn { last_good, torn_from } => return recover(file, path, last_good.as_ref().map(|(l, _)| l.as_str()), torn_from, len),
    };
    Ok((head, len))
}

/// How many lines that are not hookhost records a writer moves aside before it gives up.
const MAX_FOREIGN_LINES: usize = 1024;

/// The log ends in complete lines that are not hookhost records (written by something else,
/// or edited): they are moved aside, from `from` on, as a torn tail is, and a `recovered`
/// record chained to the last record that is one says so — an unreadable record never stops
/// the log (and with it every decision) from going on. Reported as a warning; `audit verify`
/// lists the recovery.
fn set_aside(file: &std::fs::File, path: &Path, from: u64, len: u64, why: &impl std::fmt::Display) -> Result<(Head, u64), AuditOpenError> {
    let mut reader = file;
    let mut cut = from;
    for _ in 0..MAX_FOREIGN_LINES {
        let good = match last_line(&mut reader, cut)? {
            Tail::Empty => None,
            Tail::Complete { line, from } if link_head(&line).is_err() => {
                cut = from;
                continue;
            }
            Tail::Complete { line, .. } => Some(line),
            Tail::Torn { .. } => return Err(AuditOpenError::NotChained(format!("{why} (and the line before it is torn)"))),
        };
        tracing::warn!(path = %path.display(), "the audit log ends in {} byte(s) that are not hookhost records ({why}); moving them aside and going on", len - cut);
        return recover(file, path, good.as_deref(), cut, len);
    }
    Err(AuditOpenError::NotChained(format!("{why}; the {MAX_FOREIGN_LINES} lines before it are not hookhost records either: move the log aside")))
}

fn link_head(line: &str) -> Result<Head, AuditOpenError> {
    let record = Link::parse(line).map_err(AuditOpenError::NotChained)?;
    Ok(Head { seq: record.seq + 1, hash: record.hash })
}

/// Move the torn bytes `[torn_from, len)` into `FILE.torn-<unix nanos>`, cut the file back to
/// its last complete line, and append a `recovered` record chained to it.
fn recover(file: &std::fs::File, path: &Path, last_good: Option<&str>, torn_from: u64, len: u64) -> Result<(Head, u64), AuditOpenError> {
    let head = match last_good {
        Some(line) => link_head(line)?,
        None => Head { seq: 0, hash: GENESIS.to_string() },
    };
    let mut reader = file;
    reader.seek(SeekFrom::Start(torn_from))?;
    let mut torn = Vec::new();
    reader.read_to_end(&mut torn)?;
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".torn-{nanos}"));
    let aside = PathBuf::from(aside);
    owner_only(std::fs::OpenOptions::new().write(true).create_new(true)).open(&aside)?.write_all(&torn)?;
    file.set_len(torn_from)?;
    tracing::warn!(path = %path.display(), moved_to = %aside.display(), bytes = len - torn_from, "the audit log ended in a torn line; moved it aside and recorded the recovery");
    let recovery = RecoveredRecord { ts: hookhost_types::time::now_rfc3339(), recovered: Recovery { torn_bytes: len - torn_from, moved_to: aside.display().to_string() } };
    let (line, hash) = chain_line(&head, &recovery);
    let mut writer = file;
    writer.write_all(&line)?;
    writer.sync_data()?;
    Ok((Head { seq: head.seq + 1, hash }, torn_from + line.len() as u64))
}

/// The hash a line's body must have: sha256 of the text before `,"hash":` plus `}`.
fn body_hash(line: &str) -> Option<String> {
    let cut = line.len().checked_sub(HASH_SUFFIX_LEN)?;
    let (body, suffix) = (line.get(..cut)?, line.get(cut..)?);
    if !suffix.starts_with(r#","hash":""#) || !suffix.ends_with("\"}") {
        return None;
    }
    Some(sha256_hex(format!("{body}}}").as_bytes()))
}

/// The chain fields of one record line, whose own hash has been checked.
struct Link {
    seq: u64,
    prev: String,
    hash: String,
    /// Set on a `recovered` record.
    recovered: Option<Recovery>,
}

impl Link {
    /// Read a record's chain fields where the writer puts them — `{"seq":N,"prev":"<hash>",`
    /// first, `,"hash":"<hash>"}` last — without parsing the record between: a record is
    /// readable back whatever its event holds (nesting deeper than a JSON parser reads, say),
    /// so one record can never make the log impossible to continue.
    fn parse(line: &str) -> Result<Link, String> {
        let not_ours = |what: &str| format!("{what}: not a hookhost audit record");
        let Some(rest) = line.strip_prefix(r#"{"seq":"#) else {
            return Err(match serde_json::from_str::<serde::de::IgnoredAny>(line) {
                Err(e) => format!("not a JSON record ({e})"),
                Ok(_) => not_ours("no `seq` field"),
            });
        };
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let seq: u64 = rest[..digits].parse().map_err(|_| not_ours("`seq` is not a number"))?;
        let rest = rest[digits..].strip_prefix(r#","prev":""#).ok_or_else(|| not_ours("no `prev` after `seq`"))?;
        let prev = rest.get(..64).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()) && rest.as_bytes().get(64) == Some(&b'"')).ok_or_else(|| not_ours("`prev` is not a hash"))?.to_string();
        let cut = line.len().checked_sub(HASH_SUFFIX_LEN).ok_or_else(|| not_ours("no `hash` at its end"))?;
        let hash = line.get(cut..).and_then(|s| s.strip_prefix(r#","hash":""#)).and_then(|s| s.strip_suffix("\"}")).filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()));
        let hash = hash.ok_or_else(|| not_ours("no `hash` at its end"))?.to_string();
        if body_hash(line).as_deref() != Some(hash.as_str()) {
            return Err(format!("record {seq} does not match its hash: it was edited"));
        }
        // A `recovered` record is small and written by this module: read whole.
        let recovered = match rest.find(r#""recovered":"#).filter(|_| line.len() < 4096) {
            None => None,
            Some(_) => {
                let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("record {seq}: not JSON ({e})"))?;
                match v.get("recovered") {
                    None => None,
                    Some(r) => Some(serde_json::from_value(r.clone()).map_err(|e| format!("record {seq}: `recovered` is malformed ({e})"))?),
                }
            }
        };
        Ok(Link { seq, prev, hash, recovered })
    }
}

/// How a log file ends.
enum Tail {
    Empty,
    /// Its last line, complete, and where it starts.
    Complete { line: String, from: u64 },
    /// It ends without a newline: the last complete line and where it starts (if any), and
    /// where the torn bytes start.
    Torn { last_good: Option<(String, u64)>, torn_from: u64 },
}

/// Read how the file's first `len` bytes end.
fn last_line(file: &mut &std::fs::File, len: u64) -> Result<Tail, AuditOpenError> {
    if len == 0 {
        return Ok(Tail::Empty);
    }
    // Records are a few hundred bytes; read back far enough to hold the last one whole.
    let mut back = 64 << 10;
    loop {
        let start = len.saturating_sub(back);
        file.seek(SeekFrom::Start(start))?;
        let mut tail = Vec::new();
        Read::take(&mut *file, len - start).read_to_end(&mut tail)?;
        let torn = tail.last() != Some(&b'\n');
        // The complete part ends with its last newline.
        let complete_end = match tail.iter().rposition(|&b| b == b'\n') {
            Some(i) => i,
            None if start == 0 => return Ok(Tail::Torn { last_good: None, torn_from: 0 }),
            None => {
                back *= 4;
                continue;
            }
        };
        let text = &tail[..complete_end];
        let line = match text.iter().rposition(|&b| b == b'\n') {
            Some(i) => (String::from_utf8_lossy(&text[i + 1..]).into_owned(), start + i as u64 + 1),
            None if start == 0 => (String::from_utf8_lossy(text).into_owned(), 0),
            None => {
                back *= 4;
                continue;
            }
        };
        return Ok(if torn { Tail::Torn { last_good: Some(line), torn_from: start + complete_end as u64 + 1 } } else { Tail::Complete { line: line.0, from: line.1 } });
    }
}

mod verify;
pub use verify::{verify, verify_expecting, ChainBroken, Verified};

#[cfg(test)]
mod tests;
