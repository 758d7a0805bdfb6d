//! What install keeps and touches: its ledger of edits (to undo them), backups, and reading and
//! writing the runtimes' files.

use super::*;

/// The record of install's changes (`installs.json` in hookhost's state directory).
#[derive(Default, Serialize, Deserialize)]
pub(super) struct Ledger {
    pub(super) files: Vec<Record>,
}

#[derive(Clone, Serialize, Deserialize)]
pub(super) struct Record {
    pub(super) path: PathBuf,
    pub(super) runtime: String,
    pub(super) scope: String,
    /// The project, for a project-scope change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) project: Option<PathBuf>,
    pub(super) role: Role,
    /// The copy of the file from before install first changed it; none when install made it.
    pub(super) backup: Option<PathBuf>,
    /// SHA-256 of what install last wrote.
    pub(super) after: String,
    /// What trust install added ("state:<key>", "project:<path>", a folder).
    #[serde(default)]
    pub(super) added: Vec<String>,
    /// The directories install made for the file, deepest first: uninstall removes them when
    /// they are empty again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) made_dirs: Vec<PathBuf>,
}

/// The directories writing `path` would make, deepest first.
pub(super) fn missing_dirs(path: &Path) -> Vec<PathBuf> {
    path.ancestors().skip(1).take_while(|d| !d.as_os_str().is_empty() && !d.exists()).map(Path::to_path_buf).collect()
}

pub(super) fn sha256(text: &str) -> String {
    hookhost_types::ids::sha256_hex(text.as_bytes())
}

pub(super) fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::User => "user",
        Scope::Project => "project",
        Scope::Managed => "managed",
    }
}

/// A file's text; `None` when it does not exist.
pub(super) fn read(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| format!("{}: not UTF-8 text; hookhost install edits text settings only", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

pub(super) fn parse_json(path: &Path, text: Option<&str>) -> Result<Json, String> {
    Json::parse(text.unwrap_or("")).map_err(|e| {
        format!("{}: not JSON ({e}); hookhost install edits plain JSON only: fix the file (comments and trailing commas are not JSON), or add the entries docs/INTEGRATIONS.md shows by hand", path.display())
    })
}

pub(super) fn parse_toml(path: &Path, text: Option<&str>) -> Result<toml_edit::DocumentMut, String> {
    text.unwrap_or("").parse().map_err(|e| format!("{}: not TOML: {e}", path.display()))
}

/// A JSON document's new text: the old text when nothing changed (no reformatting).
pub(super) fn rendered(doc: &Json, old: &Json, before: Option<&str>) -> String {
    match before {
        Some(b) if doc == old => b.to_string(),
        _ => doc.render(before),
    }
}

/// The directory holding the record and the backups: hookhost's state directory for a user's
/// changes; for managed ones, `install/` beside hookhost's managed config (root's, as the files
/// it records).
pub(super) fn state(scope: Scope, places: &Places) -> Result<PathBuf, String> {
    if scope == Scope::Managed {
        let managed = places.system(hookhost_types::paths::SYSTEM_MANAGED_CONFIG);
        return Ok(managed.parent().map(|d| d.join("install")).unwrap_or_default());
    }
    hookhost_types::paths::state_dir().ok_or_else(|| "no state directory is known: set HOME or XDG_STATE_HOME".to_string())
}

pub(super) fn ledger_path(scope: Scope, places: &Places) -> Result<PathBuf, String> {
    Ok(state(scope, places)?.join("installs.json"))
}

pub(super) fn load_ledger(scope: Scope, places: &Places) -> Result<Ledger, String> {
    let path = ledger_path(scope, places)?;
    match read(&path)? {
        None => Ok(Ledger::default()),
        Some(text) => serde_json::from_str(&text).map_err(|e| format!("{}: unreadable ({e}); it records what hookhost install changed: restore it from a backup, or move it aside to start a new record", path.display())),
    }
}

pub(super) fn save_ledger(ledger: &Ledger, scope: Scope, places: &Places) -> Result<(), String> {
    let path = ledger_path(scope, places)?;
    let text = serde_json::to_string_pretty(ledger).map_err(|e| e.to_string())? + "\n";
    write_file(&path, &text, None)
}

/// Write `text` to `path` whole: a temporary file beside it renamed into place (an editor or a
/// runtime reading the file sees the old text or the new, never half), with the old file's
/// permissions, else `mode` (unix; else the temporary file's: the user's alone).
pub(super) fn write_file(path: &Path, text: &str, mode: Option<u32>) -> Result<(), String> {
    // A settings file that is a link (a dotfiles repository's) is written where it points: the
    // link stays a link.
    let resolved = if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        std::fs::canonicalize(path).map_err(|e| format!("{}: a link to nowhere ({e}); fix the link, or remove it", path.display()))?
    } else {
        path.to_path_buf()
    };
    let path = resolved.as_path();
    let dir = path.parent().ok_or_else(|| format!("{}: no parent directory", path.display()))?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| format!("cannot write in {}: {e}", dir.display()))?;
    std::io::Write::write_all(&mut tmp, text.as_bytes()).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    if let Ok(meta) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    } else if let Some(mode) = mode {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(mode)).map_err(|e| format!("cannot set the mode of {}: {e}", path.display()))?;
        }
        #[cfg(not(unix))]
        let _ = mode;
    }
    tmp.persist(path).map_err(|e| format!("cannot replace {}: {}", path.display(), e.error))?;
    Ok(())
}

/// Keep a copy of `text` (what `path` held) under the state directory; its path.
pub(super) fn backup(path: &Path, text: &str, stamp: &str, n: usize, store: &Path) -> Result<PathBuf, String> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "file".into());
    let dest = store.join("backups").join(stamp).join(format!("{n}-{name}"));
    write_file(&dest, text, None)?;
    Ok(dest)
}

pub(super) fn stamp() -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    format!("{now}-{}", std::process::id())
}
