//! GitHub Copilot CLI: a repository's hooks run (in prompt mode) only for a trusted folder
//! (`"trusted_folders": [...]` in `~/.copilot/config.json`); `disableAllHooks` there switches
//! hooks off (docs.github.com, Copilot CLI "hooks reference" and "configuration").

use super::{check_folder, settings, trust_folder, untrust_folder, within, Finding, Steps};
use crate::install::json::Json;
use crate::install::runtimes::{Places, Runtime};
use crate::install::{Edit, Role};
use std::path::{Path, PathBuf};

pub(super) struct Copilot;

fn config(places: &Places) -> PathBuf {
    places.home.join(".copilot").join("config.json")
}

impl Steps for Copilot {
    fn trust(&self, _hooks_path: &Path, _doc: &Json, places: &Places, project: Option<&Path>, notes: &mut Vec<String>) -> Result<Option<Edit>, String> {
        let Some(project) = project else { return Ok(None) };
        trust_folder(config(places), "GitHub Copilot CLI", project, notes, trust)
    }

    fn undo(&self, role: Role, path: &Path, current: &str, added: &[String]) -> Result<String, String> {
        untrust_folder("GitHub Copilot CLI", role, path, current, added, |doc, added| {
            if let Some(Json::Array(list)) = doc.get_mut("trusted_folders") {
                list.retain(|d| !d.as_str().is_some_and(|d| added.iter().any(|a| a == d)));
                if list.is_empty() {
                    doc.remove("trusted_folders");
                }
            }
        })
    }

    fn check_trust(&self, runtime: Runtime, project: bool, places: &Places, _file: &Path, _doc: &Json, fix: &str) -> Vec<Finding> {
        if !project {
            return Vec::new();
        }
        let path = config(places);
        let trusted = settings(&path).is_some_and(|d| trusts(&d, &places.project));
        check_folder(runtime, places, &path, trusted, fix)
    }

    fn switched_off(&self, _runtime: Runtime, places: &Places, _wired_managed: bool) -> Vec<String> {
        let path = config(places);
        if settings(&path).and_then(|d| d.get("disableAllHooks").and_then(Json::as_bool)) == Some(true) {
            vec![format!("{} says \"disableAllHooks\": true", path.display())]
        } else {
            Vec::new()
        }
    }

    fn probe(&self, cwd: &str) -> serde_json::Value {
        serde_json::json!({"sessionId": "hookhost-doctor", "timestamp": 0, "cwd": cwd, "toolName": "bash", "toolArgs": "{\"command\":\"rm -rf /\"}"})
    }

    fn denies(&self, answer: &serde_json::Value) -> bool {
        answer["permissionDecision"] == "deny"
    }
}

/// Copilot's trust of `project` in a `config.json` document (`trusted_folders`).
fn trust(doc: &mut Json, project: &Path) -> Result<(Vec<String>, Vec<String>), String> {
    if !matches!(doc, Json::Object(_)) {
        return Err("the file does not hold a JSON object".into());
    }
    if trusts(doc, project) {
        return Ok((vec![], vec![]));
    }
    let key = project.display().to_string();
    match doc.get_mut("trusted_folders") {
        Some(Json::Array(list)) => list.push(Json::str(&key)),
        Some(_) => return Err("its \"trusted_folders\" is not an array".into()),
        None => doc.set("trusted_folders", Json::Array(vec![Json::str(&key)])),
    }
    Ok((vec![key], vec![]))
}

/// Whether Copilot's `config.json` trusts `project` (it or a folder it is in).
fn trusts(doc: &Json, project: &Path) -> bool {
    doc.get("trusted_folders").and_then(Json::as_array).into_iter().flatten().filter_map(Json::as_str).any(|d| within(project, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_trust_is_added_and_taken_back() {
        let mut cp = Json::obj();
        let (added, _) = trust(&mut cp, Path::new("/p")).unwrap();
        assert!(trusts(&cp, Path::new("/p/sub")));
        assert_eq!(trust(&mut cp, Path::new("/p/sub")).unwrap(), (vec![], vec![]), "already trusted through /p");
        let undone = Copilot.undo(Role::Trust, Path::new("c.json"), &cp.render(None), &added).unwrap();
        assert_eq!(Json::parse(&undone).unwrap(), Json::obj());
    }
}
