//! The project layer as it loads: an approved project's `.hookhost/hooks.toml` and the peer
//! files a policy asked for, read from the bytes its approval hashed, with what a project may
//! not set dropped (and said so) and hooks that would mount more than the project refused.

use super::error;
use crate::peer::Format;
use crate::project;
use crate::{ConfigError, ConfigFile, Problem, RawConfig, RawPeer};
use std::path::{Path, PathBuf};

/// Read an approved project's layer: its `.hookhost/hooks.toml` and the peer project files
/// a policy asked for, as one config. What a project may not set is dropped and said so.
pub(super) fn load_project(found: &project::Project, snapshot: &project::Snapshot, restrictions: &mut Vec<String>) -> Result<ConfigFile, ConfigError> {
    let (file, base, mut raw) = match &found.hooks_file {
        Some(path) => {
            let text = snapshot.text(path).map_err(|e| error(path, Problem::file(format!("cannot read the project config ({e})"))))?;
            let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let raw: RawConfig = ConfigFile::raw(&text, path, Some(Format::Native))?;
            (path.clone(), base, raw)
        }
        None => (found.peer_files[0].1.clone(), found.root.clone(), RawConfig::default()),
    };
    // Its signing keys are part of what was approved: read from the same bytes.
    for key in raw.trust.iter_mut().flat_map(|t| t.keys.iter_mut()) {
        if let Some(rel) = key.public_key_file.take() {
            let text = snapshot.text(&base.join(&rel)).map_err(|e| error(&file, Problem::file(format!("trust key {}: {e}", rel.display()))))?;
            key.public_key = Some(text);
        }
    }
    let at = file.display();
    if raw.policy.take().is_some() {
        restrictions.push(format!("project {at}: [policy] ignored: a project cannot set policy"));
    }
    for (field, set) in [
        ("audit_log", raw.audit_log.take().is_some()),
        ("audit_failure", raw.audit_failure.take().is_some()),
        ("audit_events", raw.audit_events.take().is_some()),
        ("cache_dir", raw.cache_dir.take().is_some()),
        ("stop_loop_cap", raw.stop_loop_cap.take().is_some()),
        ("resolve_ttl", raw.resolve_ttl.take().is_some()),
        ("state_ttl", raw.state_ttl.take().is_some()),
        ("state_max_kib", raw.state_max_kib.take().is_some()),
    ] {
        if set {
            restrictions.push(format!("project {at}: {field} ignored: a project cannot change host settings (set it in your user config)"));
        }
    }
    for (runtime, path) in &found.peer_files {
        raw.peers.push(RawPeer { path: path.clone(), format: Some(runtime.name().to_string()), grants: Vec::new(), project_dir: Some(found.root.clone()) });
    }
    if !raw.peers.is_empty() {
        let before = raw.capabilities.len();
        crate::peer::include_with(&mut raw, &base, &|p: &Path| snapshot.text(p)).map_err(|problems| ConfigError::new(file.clone(), problems))?;
        // A project's peer files are named apart from the user's own (`project-claude-code:…`).
        for cap in &mut raw.capabilities[before..] {
            cap.id = format!("project-{}", cap.id);
        }
    }
    let mut config = raw.validate(&base).map_err(|problems| ConfigError::new(file.clone(), problems))?;
    // A project hook's sandbox may read the project, nothing else of the machine.
    let root = std::fs::canonicalize(&found.root).unwrap_or_else(|_| found.root.clone());
    let outside: Vec<Problem> = config
        .hooks
        .iter()
        .filter_map(|h| {
            let dir = h.settings.get("project_dir").and_then(serde_json::Value::as_str)?;
            let real = std::fs::canonicalize(dir).unwrap_or_else(|_| PathBuf::from(dir));
            (!real.starts_with(&root)).then(|| Problem::file(format!("hook {}: settings.project_dir {dir:?} is outside the project {}; a project's hooks may mount only the project itself: remove it or point it inside the project", h.id, root.display())))
        })
        .collect();
    if !outside.is_empty() {
        return Err(ConfigError::new(file, outside));
    }
    config.source = file;
    Ok(config)
}
