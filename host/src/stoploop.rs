//! Consecutive stop-hook blocks per session, counted across processes.
//!
//! Command-hook runtimes start one `hookhost run` per event, so a count held in memory would
//! start at zero every time and a stop hook that always blocks would keep the agent working
//! forever. The count therefore lives in a small file per session under the cache directory
//! (`{cache}/stop-loops/{sha256(session)}`), written atomically (temporary file + rename) and
//! pruned when older than [`MAX_AGE`]. Where a runtime sends its own signal — the canonical
//! `loop_count`, Claude Code's `stop_hook_active` — the larger of the two counts wins.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// Session files untouched for this long are removed.
pub const MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

pub(crate) struct StopLoops {
    /// `{cache}/stop-loops`, or none (no cache directory): counts are kept in memory only.
    dir: Option<PathBuf>,
    memory: Mutex<HashMap<String, u32>>,
}

impl StopLoops {
    pub fn new(cache: Option<&Path>) -> Self {
        Self::named(cache, "stop-loops")
    }

    /// Per-session counts kept under `{cache}/{name}` (the same mechanism records which
    /// `once` hooks already ran in a session).
    pub fn named(cache: Option<&Path>, name: &str) -> Self {
        StopLoops { dir: cache.map(|c| c.join(name)), memory: Mutex::default() }
    }

    fn file(&self, session: &str) -> Option<PathBuf> {
        Some(self.dir.as_ref()?.join(hookhost_types::ids::sha256_hex(session.as_bytes())))
    }

    /// The session's consecutive stop blocks so far.
    pub fn get(&self, session: &str) -> u32 {
        let in_memory = self.memory.lock().unwrap_or_else(|p| p.into_inner()).get(session).copied().unwrap_or(0);
        let on_disk = self
            .file(session)
            .and_then(|f| std::fs::read_to_string(f).ok())
            .and_then(|t| t.trim().parse::<u32>().ok())
            .unwrap_or(0);
        in_memory.max(on_disk)
    }

    /// Record the session's count (0 forgets the session).
    pub fn set(&self, session: &str, n: u32) {
        {
            let mut counts = self.memory.lock().unwrap_or_else(|p| p.into_inner());
            if n == 0 {
                counts.remove(session);
            } else {
                counts.insert(session.to_string(), n);
            }
        }
        let (Some(dir), Some(file)) = (&self.dir, self.file(session)) else { return };
        let written = if n == 0 {
            match std::fs::remove_file(&file) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
                _ => Ok(()),
            }
        } else {
            write_atomically(dir, &file, n)
        };
        if let Err(e) = written {
            tracing::warn!(path = %file.display(), "cannot record the stop-loop count across processes: {e}");
        }
        if n != 0 {
            prune(dir);
        }
    }
}

fn write_atomically(dir: &Path, file: &Path, n: u32) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
    std::fs::write(tmp.path(), n.to_string())?;
    tmp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

/// Remove session files older than [`MAX_AGE`].
fn prune(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let old = entry.metadata().and_then(|m| m.modified()).map(|t| now.duration_since(t).unwrap_or_default() > MAX_AGE).unwrap_or(false);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_survive_a_new_instance_and_reset_removes_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = StopLoops::new(Some(dir.path()));
        a.set("ses/1", 2);
        let b = StopLoops::new(Some(dir.path()));
        assert_eq!(b.get("ses/1"), 2);
        assert_eq!(b.get("other"), 0);
        b.set("ses/1", 0);
        assert_eq!(StopLoops::new(Some(dir.path())).get("ses/1"), 0);
        assert_eq!(std::fs::read_dir(dir.path().join("stop-loops")).unwrap().count(), 0);
    }

    #[test]
    fn old_session_files_are_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let loops = StopLoops::new(Some(dir.path()));
        loops.set("old", 1);
        let old = loops.file("old").unwrap();
        let f = std::fs::File::options().write(true).open(&old).unwrap();
        f.set_modified(SystemTime::now() - MAX_AGE - Duration::from_secs(60)).unwrap();
        loops.set("new", 1);
        assert!(!old.exists());
        assert!(loops.file("new").unwrap().exists());
    }
}
