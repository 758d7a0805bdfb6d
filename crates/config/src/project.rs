//! Project hooks: a `.hookhost/hooks.toml` found from the working directory upward (and, when
//! a policy asks, a peer runtime's project file such as `.claude/settings.json`). A cloned
//! repository's hook files are untrusted: they load only once `hookhost trust DIR` recorded the
//! digest of every one of them (and of every bundle they resolved to), and again only after a
//! change is approved.
//!
//! What the approval covers is read once, bounded, into a [`Snapshot`]: regular files only, no
//! symbolic link that leaves the project, at most [`MAX_FILE_BYTES`] a file. The loader parses
//! the project's config and peer files and loads its plugins from those same bytes, so what runs
//! is exactly what was hashed. A `.hookhost/` (or peer file) owned by another user, or writable
//! by others, is ignored, as git ignores a repository it does not trust (`safe.directory`).

use crate::RawConfig;
use hookhost_types::ids::sha256_hex;
use hookhost_types::Runtime;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The project layer's own file, relative to the project root.
pub const PROJECT_FILE: &str = ".hookhost/hooks.toml";

/// The most files one project's approval covers, and the most bytes they may hold.
const MAX_FILES: usize = 2000;
const MAX_BYTES: u64 = 256 << 20;
/// The largest single file a project's hooks may be made of (a Python component is ~40 MB).
pub const MAX_FILE_BYTES: u64 = 128 << 20;
/// How deep directories under `.hookhost/` may nest.
const MAX_DEPTH: usize = 16;

/// A project found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The directory holding `.hookhost/` (or the peer's directory).
    pub root: PathBuf,
    /// `.hookhost/hooks.toml`, if it exists.
    pub hooks_file: Option<PathBuf>,
    /// Peer project files that exist, with the runtime whose they are.
    pub peer_files: Vec<(Runtime, PathBuf)>,
    /// Why this project is not read at all (its hook files belong to another user, or others
    /// may write them), if so.
    pub ignored: Option<String>,
}

impl Project {
    /// The files that make this project's layer, for messages.
    pub fn layer_files(&self) -> Vec<&Path> {
        self.hooks_file.iter().map(PathBuf::as_path).chain(self.peer_files.iter().map(|(_, p)| p.as_path())).collect()
    }
}

/// Why `path` is not to be trusted as this user's own ([`hookhost_types::owner::not_own`]).
pub fn not_own(path: &Path) -> Option<String> {
    hookhost_types::owner::not_own(path)
}

/// The project around `cwd`: the nearest directory, from `cwd` upward, that holds
/// `.hookhost/hooks.toml` or one of `peers`' project files. The home directory and what is
/// above it are not projects (`~/.claude/settings.json` is a user file). A project whose hook
/// files another user owns, or others may write, is returned with [`Project::ignored`] set.
pub fn find(cwd: &Path, peers: &[Runtime]) -> Option<Project> {
    let cwd = std::fs::canonicalize(cwd).ok()?;
    let home = std::env::var_os("HOME").and_then(|h| std::fs::canonicalize(h).ok());
    let mut dir = Some(cwd.as_path());
    while let Some(d) = dir {
        if home.as_deref().is_some_and(|h| h == d || h.starts_with(d)) {
            return None;
        }
        let hookhost_dir = d.join(".hookhost");
        let hooks_file = Some(d.join(PROJECT_FILE)).filter(|p| std::fs::symlink_metadata(p).is_ok());
        let peer_files: Vec<(Runtime, PathBuf)> = peers
            .iter()
            .filter_map(|r| r.profile().project_hooks.as_ref().map(|h| (*r, d.join(h.file))))
            .filter(|(_, p)| std::fs::symlink_metadata(p).is_ok())
            .collect();
        if hooks_file.is_some() || !peer_files.is_empty() {
            let mut own = Vec::new();
            if hooks_file.is_some() {
                own.push(hookhost_dir.clone());
            }
            own.extend(hooks_file.iter().cloned());
            for (_, p) in &peer_files {
                own.extend(p.parent().map(Path::to_path_buf));
                own.push(p.clone());
            }
            let ignored = own.iter().find_map(|p| not_own(p));
            return Some(Project { root: d.to_path_buf(), hooks_file, peer_files, ignored });
        }
        dir = d.parent();
    }
    None
}

/// One file of a project's hooks, as read for its approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnapshotFile {
    /// Its resolved path (inside the project).
    pub path: PathBuf,
    /// Its bytes.
    pub bytes: Arc<[u8]>,
    /// `sha256:HEX` of the bytes.
    pub digest: String,
}

/// The files a project's approval covers, read once: what the approval hashes is what loads.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    /// By path relative to the project root.
    pub files: BTreeMap<String, SnapshotFile>,
}

impl Snapshot {
    /// Each file's digest, by name (what an approval records).
    pub fn digests(&self) -> BTreeMap<String, String> {
        self.files.iter().map(|(n, f)| (n.clone(), f.digest.clone())).collect()
    }

    /// The bytes read for `path` (resolved first), if the snapshot holds that file.
    pub fn get(&self, path: &Path) -> Option<&SnapshotFile> {
        let path = std::fs::canonicalize(path).ok()?;
        self.files.values().find(|f| f.path == path)
    }

    /// The text of `path` as read, or why it cannot be had.
    pub fn text(&self, path: &Path) -> std::io::Result<String> {
        use std::io::{Error, ErrorKind};
        let file = self.get(path).ok_or_else(|| Error::new(ErrorKind::NotFound, "not among the project's approved files (a hook file must be inside the project)"))?;
        String::from_utf8(file.bytes.to_vec()).map_err(|_| Error::new(ErrorKind::InvalidData, "not UTF-8 text"))
    }
}

/// What a project's approval covers, by resolved path: everything under `.hookhost/`, the peer
/// project files and their hook scripts directory (`.claude/hooks/`), and the peer files,
/// plugins and trust key files `hooks.toml` names. A link that leaves the project, a file that is not a regular
/// file, or one named outside the project is an error: such a project does not load.
fn covered(project: &Project, root: &Path) -> Result<BTreeSet<PathBuf>, String> {
    let mut files = BTreeSet::new();
    let mut seen = BTreeSet::new();
    walk(root, &project.root.join(".hookhost"), &mut files, &mut seen, 0)?;
    for (runtime, path) in &project.peer_files {
        files.insert(inside(root, path)?);
        if let Some(scripts) = runtime.profile().project_hooks.as_ref().and_then(|h| h.scripts) {
            walk(root, &project.root.join(scripts), &mut files, &mut seen, 0)?;
        }
    }
    if let Some(hooks) = &project.hooks_file {
        let base = hooks.parent().unwrap_or(&project.root);
        let text = read_bounded(&inside(root, hooks)?, crate::MAX_CONFIG_BYTES)?;
        if let Ok(raw) = std::str::from_utf8(&text).map_err(|_| ()).and_then(|t| toml::from_str::<RawConfig>(t).map_err(|_| ())) {
            let keys = raw.trust.iter().flat_map(|t| t.keys.iter()).filter_map(|k| k.public_key_file.clone());
            let named = raw.peers.iter().map(|p| p.path.clone()).chain(keys);
            let plugins = raw.hooks.iter().chain(raw.capabilities.iter().flat_map(|c| c.hooks.iter())).map(|h| &h.executor.plugin).filter(|p| !p.starts_with("builtin:")).map(PathBuf::from);
            for p in named.chain(plugins) {
                let p = base.join(p);
                if std::fs::symlink_metadata(&p).is_ok() {
                    files.insert(inside(root, &p).map_err(|e| format!("{e} (named in {})", hooks.display()))?);
                }
            }
        }
    }
    Ok(files)
}

/// `path` resolved, which must be a regular file inside `root` (itself resolved).
fn inside(root: &Path, path: &Path) -> Result<PathBuf, String> {
    let real = std::fs::canonicalize(path).map_err(|e| format!("cannot read {} ({e})", path.display()))?;
    if !real.starts_with(root) {
        return Err(format!("{} leads outside the project (to {}); a project's hook files must be inside it: move the file into the project", path.display(), real.display()));
    }
    let meta = std::fs::metadata(&real).map_err(|e| format!("cannot read {} ({e})", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{} is not a regular file (a directory, FIFO, socket or device); remove it", path.display()));
    }
    Ok(real)
}

/// Every regular file under `dir`, following links that stay inside the project.
fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<PathBuf>, seen: &mut BTreeSet<PathBuf>, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("{} nests directories deeper than {MAX_DEPTH}", dir.display()));
    }
    let real = match std::fs::canonicalize(dir) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(format!("cannot list {} ({e})", dir.display())),
    };
    if !real.starts_with(root) {
        return Err(format!("{} leads outside the project (to {}); a project's hook files must be inside it", dir.display(), real.display()));
    }
    if !seen.insert(real.clone()) {
        return Ok(());
    }
    let entries = std::fs::read_dir(&real).map_err(|e| format!("cannot list {} ({e})", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot list {} ({e})", dir.display()))?;
        let path = entry.path();
        let meta = std::fs::metadata(&path).map_err(|e| format!("cannot read {} ({e})", path.display()))?;
        if meta.is_dir() {
            walk(root, &path, out, seen, depth + 1)?;
        } else {
            out.insert(inside(root, &path)?);
        }
        if out.len() > MAX_FILES {
            return Err(format!("{} holds over {MAX_FILES} files, more than a project's hooks may have", dir.display()));
        }
    }
    Ok(())
}

/// Read a regular file, refusing more than `cap` bytes; never follows a final link or waits on
/// a FIFO (opened non-blocking, checked to be a regular file before any read).
fn read_bounded(path: &Path, cap: u64) -> Result<Vec<u8>, String> {
    use hookhost_types::owner::{read_regular, ReadError};
    read_regular(path, cap, false).map_err(|e| match e {
        ReadError::Io(e) => format!("cannot read {} ({e})", path.display()),
        ReadError::NotRegular => format!("{} is not a regular file; remove it", path.display()),
        ReadError::TooLarge(Some(n)) => format!("{} holds {n} bytes, over the {} MiB one of a project's hook files may hold", path.display(), cap >> 20),
        ReadError::TooLarge(None) => format!("{} holds over the {} MiB one of a project's hook files may hold", path.display(), cap >> 20),
    })
}

/// Read every file a project's approval covers, once and bounded (see [`Snapshot`]).
pub fn scan(project: &Project) -> Result<Snapshot, String> {
    if let Some(why) = &project.ignored {
        return Err(format!("ignored: {why}; hookhost reads only project hook files you own and only you can write (as git does with safe.directory)"));
    }
    let root = std::fs::canonicalize(&project.root).map_err(|e| format!("cannot read {} ({e})", project.root.display()))?;
    let files = covered(project, &root)?;
    if files.len() > MAX_FILES {
        return Err(format!("{} holds {} files, over the {MAX_FILES} a project's hooks may have", project.root.display(), files.len()));
    }
    let mut out = Snapshot::default();
    let mut total = 0u64;
    for path in files {
        let bytes = read_bounded(&path, MAX_FILE_BYTES)?;
        total += bytes.len() as u64;
        if total > MAX_BYTES {
            return Err(format!("{}: the project's hook files hold over {} MiB", project.root.display(), MAX_BYTES >> 20));
        }
        let name = path.strip_prefix(&root).map_or_else(|_| path.display().to_string(), |p| p.display().to_string());
        let digest = format!("sha256:{}", sha256_hex(&bytes));
        out.files.insert(name, SnapshotFile { path, bytes: Arc::from(bytes), digest });
    }
    Ok(out)
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
    /// Its files or the approvals could not be read, or it is not this user's to trust: it
    /// does not load, for this reason.
    Unreadable(String),
    /// Approved, but it failed to load (a conflict with a higher layer, a refused setting, a
    /// bundle that does not resolve to what was approved, ...): left out, for this reason,
    /// and the other layers load as if there were no project.
    Failed(String),
}

/// One approved project.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Approved {
    /// When, in seconds since the Unix epoch.
    pub at: u64,
    /// Each file's sha256.
    pub files: BTreeMap<String, String>,
    /// Each bundle reference of the project's config → the artifact digest it resolved to.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub bundles: BTreeMap<String, String>,
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
        use hookhost_types::owner;
        let fail = |e: std::io::Error| format!("{}: cannot write the project approvals ({e})", path.display());
        if let Some(dir) = path.parent() {
            owner::create_private_dir(dir).map_err(fail)?;
        }
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_string_pretty(self).expect("serialises")).map_err(fail)?;
        owner::make_private(&tmp).map_err(fail)?;
        std::fs::rename(&tmp, path).map_err(fail)
    }

    /// What was approved for the project at `root`, if anything.
    pub fn get(&self, root: &Path) -> Option<&Approved> {
        self.projects.get(&root.display().to_string())
    }

    /// Whether `files` of the project at `root` are what was approved.
    pub fn check(&self, root: &Path, files: &BTreeMap<String, String>) -> Approval {
        let Some(approved) = self.get(root) else { return Approval::New };
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

/// The project as it is now (its files read once), whether it is approved, and the bundle
/// digests that were approved with it.
pub fn status(project: &Project) -> Result<(Snapshot, Approval, BTreeMap<String, String>), String> {
    let snapshot = scan(project)?;
    let Some(path) = approvals_file() else { return Ok((snapshot, Approval::New, BTreeMap::new())) };
    let approvals = Approvals::read(&path)?;
    let approval = approvals.check(&project.root, &snapshot.digests());
    let bundles = approvals.get(&project.root).map(|a| a.bundles.clone()).unwrap_or_default();
    Ok((snapshot, approval, bundles))
}

/// Record `files` (and the digests the project's bundles resolved to) as the approved state of
/// the project at `root`.
pub fn approve(root: &Path, files: BTreeMap<String, String>, bundles: BTreeMap<String, String>) -> Result<PathBuf, String> {
    let path = approvals_file().ok_or("no state directory is known (set HOME or XDG_STATE_HOME)")?;
    let mut approvals = Approvals::read(&path)?;
    let at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    approvals.projects.insert(root.display().to_string(), Approved { at, files, bundles });
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
