//! The audit log: one JSON line per hook invocation, appended and flushed as it happens.

use serde::Serialize;
use std::io::Write;
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

/// An append-only JSONL file.
pub struct AuditLog {
    path: PathBuf,
    file: Mutex<std::fs::File>,
}

impl AuditLog {
    pub fn open(path: &Path) -> std::io::Result<AuditLog> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
        Ok(AuditLog { path: path.to_path_buf(), file: Mutex::new(file) })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append one record and flush it. A write failure is reported through tracing, never
    /// turned into a hook decision.
    pub fn append(&self, record: &AuditRecord) {
        let mut line = serde_json::to_vec(record).expect("audit records serialise");
        line.push(b'\n');
        let mut file = self.file.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = file.write_all(&line).and_then(|_| file.flush()) {
            tracing::error!(path = %self.path.display(), "cannot write the audit log: {e}");
        }
    }
}
