//! Project hooks: a `.hookhost/hooks.toml` found from the working directory upward (and, when
//! a policy asks, a peer runtime's project file such as `.claude/settings.json`). A cloned
//! repository's hook files are untrusted: they load only once `hookhost trust DIR` recorded the
//! digest of every one of them, and again only after a change is approved.

use crate::policy::PROJECT_PEER_FILES;
use crate::RawConfig;
use hookhost_types::ids::sha256_hex;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The project layer's own file, relative to the project root.
pub const PROJECT_FILE: &str = ".hookhost/hooks.toml";

/// The most files one project's approval covers, and the most bytes they may hold.
const MAX_FILES: usize = 2000;
const MAX_BYTES: u64 = 256 << 20;

/// A project found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The directory holding `.hookhost/` (or the peer's directory).
    pub root: PathBuf,
    /// `.hookhost/hooks.toml`, if it exists.
    pub hooks_file: Option<PathBuf>,
    /// Peer project files that exist, with their format (`claude-code`).
    pub peer_files: Vec<(String, PathBuf)>,
}

impl Project {
    /// The files that make this project's layer, for messages.
    pub fn layer_files(&self) -> Vec<&Path> {
        self.hooks_file.iter().map(PathBuf::as_path).chain(self.peer_files.iter().map(|(_, p)| p.as_path())).collect()
    }
}

/// The project around `cwd`: the nearest directory, from `cwd` upward, that holds
/// `.hookhost/hooks.toml` or one of `peers`' project files. The home directory and what is
/// above it are not projects (`~/.claude/settings.json` is a user file).
pub fn find(cwd: &Path, peers: &[String]) -> Option<Project> {
    let cwd = std::fs::canonicalize(cwd).ok()?;
    let home = std::env::var_os("HOME").and_then(|h| std::fs::canonicalize(h).ok());
    let mut dir = Some(cwd.as_path());
    while let Some(d) = dir {
        if home.as_deref().is_some_and(|h| h == d || h.starts_with(d)) {
            return None;
        }
        let hooks_file = Some(d.join(PROJECT_FILE)).filter(|p| p.is_file());
        let peer_files: Vec<(String, PathBuf)> = PROJECT_PEER_FILES
            .iter()
            .filter(|(name, _)| peers.iter().any(|p| p == name))
            .map(|(name, rel)| (name.to_string(), d.join(rel)))
            .filter(|(_, p)| p.is_file())
            .collect();
        if hooks_file.is_some() || !peer_files.is_empty() {
            return Some(Project { root: d.to_path_buf(), hooks_file, peer_files });
        }
        dir = d.parent();
    }
    None
}

/// The files a project's approval covers, by path relative to its root (or absolute, outside
/// it), each with its sha256: everything under `.hookhost/`, the peer project files and their
/// hook scripts directory (`.claude/hooks/`), and the peer files and plugins `hooks.toml` names.
pub fn scan(project: &Project) -> Result<BTreeMap<String, String>, String> {
    let mut files = Vec::new();
    walk(&project.root.join(".hookhost"), &mut files)?;
    for (format, path) in &project.peer_files {
        files.push(path.clone());
        if format == "claude-code" {
            walk(&project.root.join(".claude/hooks"), &mut files)?;
        }
    }
    if let Some(hooks) = &project.hooks_file {
        let base = hooks.parent().unwrap_or(&project.root);
        if let Ok(raw) = crate::read_text(hooks).map_err(|_| ()).and_then(|t| toml::from_str::<RawConfig>(&t).map_err(|_| ())) {
            let named = raw.peers.iter().map(|p| p.path.clone());
            let plugins = raw.hooks.iter().chain(raw.capabilities.iter().flat_map(|c| c.hooks.iter())).map(|h| &h.executor.plugin).filter(|p| !p.starts_with("builtin:")).map(PathBuf::from);
            for p in named.chain(plugins) {
                let p = base.join(p);
                if p.is_file() {
                    files.push(p);
                }
            }
        }
    }
    files.sort();
    files.dedup();
    if files.len() > MAX_FILES {
        return Err(format!("{} holds {} files, over the {MAX_FILES} a project's hooks may have", project.root.display(), files.len()));
    }
    let mut out = BTreeMap::new();
    let mut total = 0u64;
    for path in files {
        let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {} ({e})", path.display()))?;
        total += bytes.len() as u64;
        if total > MAX_BYTES {
            return Err(format!("{}: the project's hook files hold over {} MiB", project.root.display(), MAX_BYTES >> 20));
        }
        let name = path.strip_prefix(&project.root).map_or_else(|_| path.display().to_string(), |p| p.display().to_string());
        out.insert(name, format!("sha256:{}", sha256_hex(&bytes)));
    }
    Ok(out)
}

/// Every regular file under `dir` (symbolic links to directories are not followed).
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("cannot list {} ({e})", dir.display())),
    };
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list {} ({e})", dir.display()))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(|e| format!("cannot read {} ({e})", path.display()))?;
        if kind.is_dir() {
            walk(&path, out)?;
        } else if path.is_file() {
            out.push(path);
        }
        if out.len() > MAX_FILES {
            return Err(format!("{} holds over {MAX_FILES} files, more than a project's hooks may have", dir.display()));
        }
    }
    Ok(())
}

/// Whether a project's files are the ones approved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Every file is as approved.
    Approved,
    /// Never approved.
    New,
    /// Approved before, and these files changed since (`path (changed|new|removed)`).
    Changed(Vec<String>),
    /// Its files or the approvals could not be read: it does not load, for this reason.
    Unreadable(String),
}

/// One approved project.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Approved {
    /// When, in seconds since the Unix epoch.
    pub at: u64,
    /// Each file's sha256.
    pub files: BTreeMap<String, String>,
}

/// The approvals on this machine, kept in the user's state directory.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Approvals {
    /// Project root → what was approved.
    #[serde(default)]
    pub projects: BTreeMap<String, Approved>,
}

/// Where approvals are kept: `$XDG_STATE_HOME/hookhost/approved-projects.json`.
pub fn approvals_file() -> Option<PathBuf> {
    Some(hookhost_types::paths::state_dir()?.join("approved-projects.json"))
}

impl Approvals {
    /// Read the approvals (none when the file does not exist).
    pub fn read(path: &Path) -> Result<Approvals, String> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| format!("{}: not a hookhost approvals file ({e}); move it away and approve your projects again", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Approvals::default()),
            Err(e) => Err(format!("{}: cannot read the project approvals ({e})", path.display())),
        }
    }

    /// Write them (private to this user; replaced whole, never half-written).
    pub fn write(&self, path: &Path) -> Result<(), String> {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        let fail = |e: std::io::Error| format!("{}: cannot write the project approvals ({e})", path.display());
        if let Some(dir) = path.parent() {
            std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).map_err(fail)?;
        }
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_string_pretty(self).expect("serialises")).map_err(fail)?;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600)).map_err(fail)?;
        std::fs::rename(&tmp, path).map_err(fail)
    }

    /// Whether `files` of the project at `root` are what was approved.
    pub fn check(&self, root: &Path, files: &BTreeMap<String, String>) -> Approval {
        let Some(approved) = self.projects.get(&root.display().to_string()) else { return Approval::New };
        let mut changes = Vec::new();
        for (name, digest) in files {
            match approved.files.get(name) {
                None => changes.push(format!("{name} (new)")),
                Some(d) if d != digest => changes.push(format!("{name} (changed)")),
                Some(_) => {}
            }
        }
        for name in approved.files.keys().filter(|n| !files.contains_key(*n)) {
            changes.push(format!("{name} (removed)"));
        }
        if changes.is_empty() {
            Approval::Approved
        } else {
            Approval::Changed(changes)
        }
    }
}

/// The project at `root` as it is now, and whether it is approved (reading the approvals).
pub fn status(project: &Project) -> Result<(BTreeMap<String, String>, Approval), String> {
    let files = scan(project)?;
    let Some(path) = approvals_file() else { return Ok((files, Approval::New)) };
    let approvals = Approvals::read(&path)?;
    let approval = approvals.check(&project.root, &files);
    Ok((files, approval))
}

/// Record `files` as the approved state of the project at `root`.
pub fn approve(root: &Path, files: BTreeMap<String, String>) -> Result<PathBuf, String> {
    let path = approvals_file().ok_or("no state directory is known (set HOME or XDG_STATE_HOME)")?;
    let mut approvals = Approvals::read(&path)?;
    let at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    approvals.projects.insert(root.display().to_string(), Approved { at, files });
    approvals.write(&path)?;
    Ok(path)
}

/// Forget the approval of the project at `root`; whether there was one.
pub fn forget(root: &Path) -> Result<bool, String> {
    let path = approvals_file().ok_or("no state directory is known (set HOME or XDG_STATE_HOME)")?;
    let mut approvals = Approvals::read(&path)?;
    let had = approvals.projects.remove(&root.display().to_string()).is_some();
    if had {
        approvals.write(&path)?;
    }
    Ok(had)
}
