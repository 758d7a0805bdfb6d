//! The project directory inside the sandbox: a read-only bashkit filesystem over `std::fs`.
//!
//! In the component, `std::fs` reaches only what the host preopened for this instance (the
//! project, read-only, at its own path), so the host's WASI capability is the boundary; this
//! backend adds the read-only answers bashkit expects (every change is refused) and keeps
//! paths inside the project. bashkit's own `RealFs` needs tokio's blocking pool, which a
//! single-threaded component does not have.

use bashkit::{async_trait, DirEntry, FileType, FsBackend, Metadata, Result};
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

pub struct ProjectFs {
    root: PathBuf,
}

impl ProjectFs {
    pub fn new(root: &Path) -> Self {
        ProjectFs { root: root.to_path_buf() }
    }

    /// The host path of a path inside the mount (`/src/x` → `{root}/src/x`); `..` never
    /// climbs above the root.
    fn real(&self, path: &Path) -> PathBuf {
        let mut out = self.root.clone();
        let mut depth = 0usize;
        for c in path.components() {
            match c {
                Component::Normal(part) => {
                    out.push(part);
                    depth += 1;
                }
                Component::ParentDir if depth > 0 => {
                    out.pop();
                    depth -= 1;
                }
                _ => {}
            }
        }
        out
    }
}

fn read_only<T>() -> Result<T> {
    Err(std::io::Error::new(std::io::ErrorKind::PermissionDenied, "the project is mounted read-only in the sandbox").into())
}

fn metadata(m: &std::fs::Metadata) -> Metadata {
    let file_type = if m.is_dir() {
        FileType::Directory
    } else if m.is_symlink() {
        FileType::Symlink
    } else {
        FileType::File
    };
    // WASI has no permission bits: scripts of the project count as executable, as hook
    // scripts a runtime runs are.
    Metadata {
        file_type,
        size: if m.is_dir() { 0 } else { m.len() },
        mode: 0o555,
        modified: m.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        created: m.created().unwrap_or(SystemTime::UNIX_EPOCH),
    }
}

#[async_trait]
impl FsBackend for ProjectFs {
    async fn read(&self, path: &Path) -> Result<Vec<u8>> {
        Ok(std::fs::read(self.real(path))?)
    }
    async fn write(&self, _: &Path, _: &[u8]) -> Result<()> {
        read_only()
    }
    async fn append(&self, _: &Path, _: &[u8]) -> Result<()> {
        read_only()
    }
    async fn mkdir(&self, _: &Path, _: bool) -> Result<()> {
        read_only()
    }
    async fn remove(&self, _: &Path, _: bool) -> Result<()> {
        read_only()
    }
    async fn stat(&self, path: &Path) -> Result<Metadata> {
        Ok(metadata(&std::fs::metadata(self.real(path))?))
    }
    async fn read_dir(&self, path: &Path) -> Result<Vec<DirEntry>> {
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(self.real(path))? {
            let entry = entry?;
            let Ok(meta) = entry.metadata() else { continue };
            entries.push(DirEntry { name: entry.file_name().to_string_lossy().into_owned(), metadata: metadata(&meta) });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }
    async fn exists(&self, path: &Path) -> Result<bool> {
        Ok(self.real(path).exists())
    }
    async fn rename(&self, _: &Path, _: &Path) -> Result<()> {
        read_only()
    }
    async fn copy(&self, _: &Path, _: &Path) -> Result<()> {
        read_only()
    }
    async fn symlink(&self, _: &Path, _: &Path) -> Result<()> {
        read_only()
    }
    async fn read_link(&self, path: &Path) -> Result<PathBuf> {
        Ok(std::fs::read_link(self.real(path))?)
    }
    async fn chmod(&self, _: &Path, _: u32) -> Result<()> {
        read_only()
    }
}
