//! Gemini CLI: a project's `.gemini/settings.json` is read only in a trusted folder
//! (`~/.gemini/trustedFolders.json`, `{"<path>": "TRUST_FOLDER"}`); `hooksConfig.enabled = false`
//! switches hooks off (Gemini CLI's `docs/hooks/reference.md` and `docs/cli/trusted-folders.md`).

use super::{check_folder, settings, trust_folder, untrust_folder, within, Finding, Steps};
use crate::install::json::Json;
use crate::install::runtimes::{Places, Runtime};
use crate::install::{Edit, Role};
use std::path::{Path, PathBuf};

pub(super) struct GeminiCli;

/// A `trustedFolders.json` in the runtime's directory of the home (`.gemini`, `.qwen`: Qwen
/// Code keeps Gemini CLI's format).
fn trusted_folders(places: &Places, home: &str) -> PathBuf {
    places.home.join(home).join("trustedFolders.json")
}

/// The trust step of a runtime with Gemini CLI's folder trust: a project's folder, not a user's
/// own settings.
pub(super) fn folder_trust(home: &str, title: &str, places: &Places, project: Option<&Path>, notes: &mut Vec<String>) -> Result<Option<Edit>, String> {
    let Some(project) = project else { return Ok(None) };
    trust_folder(trusted_folders(places, home), title, project, notes, trust)
}

/// Undo [`folder_trust`].
pub(super) fn folder_untrust(title: &str, role: Role, path: &Path, current: &str, added: &[String]) -> Result<String, String> {
    untrust_folder(title, role, path, current, added, |doc, added| {
        for key in added {
            if doc.get(key).and_then(Json::as_str) == Some("TRUST_FOLDER") {
                doc.remove(key);
            }
        }
    })
}

/// `doctor`: the project is a trusted folder.
pub(super) fn folder_trusted(home: &str, runtime: Runtime, project: bool, places: &Places, fix: &str) -> Vec<Finding> {
    if !project {
        return Vec::new();
    }
    let path = trusted_folders(places, home);
    let trusted = settings(&path).and_then(|d| rule(&d, &places.project)).is_some_and(|(_, t)| t);
    check_folder(runtime, places, &path, trusted, fix)
}

impl Steps for GeminiCli {
    fn trust(&self, _hooks_path: &Path, _doc: &Json, places: &Places, project: Option<&Path>, notes: &mut Vec<String>) -> Result<Option<Edit>, String> {
        folder_trust(".gemini", "Gemini CLI", places, project, notes)
    }

    fn undo(&self, role: Role, path: &Path, current: &str, added: &[String]) -> Result<String, String> {
        folder_untrust("Gemini CLI", role, path, current, added)
    }

    fn check_trust(&self, runtime: Runtime, project: bool, places: &Places, _file: &Path, _doc: &Json, fix: &str) -> Vec<Finding> {
        folder_trusted(".gemini", runtime, project, places, fix)
    }

    fn switched_off(&self, _runtime: Runtime, places: &Places, _wired_managed: bool) -> Vec<String> {
        let mut off = Vec::new();
        for path in [places.home.join(".gemini/settings.json"), places.project.join(".gemini/settings.json")] {
            let Some(doc) = settings(&path) else { continue };
            if doc.get("hooksConfig").and_then(|h| h.get("enabled")).and_then(Json::as_bool) == Some(false) {
                off.push(format!("{} says \"hooksConfig\": {{\"enabled\": false}}", path.display()));
            }
        }
        off
    }

    fn probe(&self, cwd: &str) -> serde_json::Value {
        serde_json::json!({"session_id": "hookhost-doctor", "cwd": cwd, "hook_event_name": "BeforeTool", "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf /"}})
    }

    fn denies(&self, answer: &serde_json::Value) -> bool {
        answer["decision"] == "deny" || answer["decision"] == "block"
    }
}

/// Gemini CLI's (and Qwen Code's) trust of `project` in a `trustedFolders.json` document: added unless a rule
/// already decides it. Returns (added, warnings).
pub(super) fn trust(doc: &mut Json, project: &Path) -> Result<(Vec<String>, Vec<String>), String> {
    if !matches!(doc, Json::Object(_)) {
        return Err("the file does not hold a JSON object".into());
    }
    let key = project.display().to_string();
    match rule(doc, project) {
        Some((_, true)) => Ok((vec![], vec![])),
        Some((dir, false)) => Ok((vec![], vec![format!("{dir} is marked DO_NOT_TRUST, so the runtime reads no project settings there and hookhost's project hooks do not run; install at --scope user, or trust the folder in the runtime")])),
        None => {
            doc.set(&key, Json::str("TRUST_FOLDER"));
            Ok((vec![key], vec![]))
        }
    }
}

/// The rule of `trustedFolders.json` that decides `project`: the folder it names and whether it
/// trusts. The most specific wins: the folder itself, else the nearest ancestor (a
/// `TRUST_PARENT` rule trusts its folder's parent and what is in it).
pub(super) fn rule(doc: &Json, project: &Path) -> Option<(String, bool)> {
    let mut best: Option<(usize, String, bool)> = None;
    for (dir, rule) in doc.fields() {
        let (scope, trusts) = match rule.as_str() {
            Some("TRUST_FOLDER") => (Path::new(dir).to_path_buf(), true),
            Some("TRUST_PARENT") => (Path::new(dir).parent().unwrap_or(Path::new(dir)).to_path_buf(), true),
            Some("DO_NOT_TRUST") => (Path::new(dir).to_path_buf(), false),
            _ => continue,
        };
        if within(project, &scope.display().to_string()) {
            let depth = scope.components().count();
            if best.as_ref().is_none_or(|(d, _, _)| depth > *d) {
                best = Some((depth, dir.clone(), trusts));
            }
        }
    }
    best.map(|(_, dir, trusts)| (dir, trusts))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_trust_respects_the_users_rules() {
        let mut doc = Json::parse(r#"{"/work": "TRUST_FOLDER", "/work/secret": "DO_NOT_TRUST"}"#).unwrap();
        assert_eq!(trust(&mut doc, Path::new("/work/app")).unwrap(), (vec![], vec![]));
        assert_eq!(trust(&mut doc, Path::new("/work/secret/x")).unwrap().1.len(), 1);
        let text = doc.render(None);
        let (added, _) = trust(&mut doc, Path::new("/elsewhere")).unwrap();
        assert_eq!(added, ["/elsewhere"]);
        let undone = GeminiCli.undo(Role::Trust, Path::new("t.json"), &doc.render(None), &added).unwrap();
        assert_eq!(Json::parse(&undone).unwrap(), Json::parse(&text).unwrap());
    }
}
