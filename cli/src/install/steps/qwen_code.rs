//! Qwen Code: Gemini CLI's folder trust (`~/.qwen/trustedFolders.json`, `{"<path>":
//! "TRUST_FOLDER"}`: a project's `.qwen/settings.json` is read only in a trusted folder when
//! `security.folderTrust.enabled` is on), and `disableAllHooks` in any of its settings files
//! switches every hook off (QwenLM/qwen-code `docs/users/features/hooks.md`,
//! `docs/users/configuration/trusted-folders.md`).

use super::gemini_cli::{rule, trust};
use super::{check_folder, settings, trust_folder, untrust_folder, Finding, Steps};
use crate::install::json::Json;
use crate::install::runtimes::{Places, Runtime, Scope};
use crate::install::{Edit, Role};
use std::path::{Path, PathBuf};

pub(super) struct QwenCode;

fn trusted_folders(places: &Places) -> PathBuf {
    places.home.join(".qwen").join("trustedFolders.json")
}

impl Steps for QwenCode {
    fn trust(&self, _hooks_path: &Path, _doc: &Json, places: &Places, project: Option<&Path>, notes: &mut Vec<String>) -> Result<Option<Edit>, String> {
        let Some(project) = project else { return Ok(None) };
        trust_folder(trusted_folders(places), "Qwen Code", project, notes, trust)
    }

    fn undo(&self, role: Role, path: &Path, current: &str, added: &[String]) -> Result<String, String> {
        untrust_folder("Qwen Code", role, path, current, added, |doc, added| {
            for key in added {
                if doc.get(key).and_then(Json::as_str) == Some("TRUST_FOLDER") {
                    doc.remove(key);
                }
            }
        })
    }

    fn check_trust(&self, runtime: Runtime, project: bool, places: &Places, _file: &Path, _doc: &Json, fix: &str) -> Vec<Finding> {
        if !project {
            return Vec::new();
        }
        let path = trusted_folders(places);
        let trusted = settings(&path).and_then(|d| rule(&d, &places.project)).is_some_and(|(_, t)| t);
        check_folder(runtime, places, &path, trusted, fix)
    }

    fn switched_off(&self, runtime: Runtime, places: &Places, _wired_managed: bool) -> Vec<String> {
        let managed = runtime.hooks_file(Scope::Managed, places).unwrap_or_default();
        let mut off = Vec::new();
        for path in [places.home.join(".qwen/settings.json"), places.project.join(".qwen/settings.json"), managed] {
            let Some(doc) = settings(&path) else { continue };
            if doc.get("disableAllHooks").and_then(Json::as_bool) == Some(true) {
                off.push(format!("{} says \"disableAllHooks\": true", path.display()));
            }
        }
        off
    }

    fn probe(&self, cwd: &str) -> serde_json::Value {
        serde_json::json!({"session_id": "hookhost-doctor", "transcript_path": "", "cwd": cwd, "hook_event_name": "PreToolUse", "timestamp": "2026-01-01T00:00:00Z", "permission_mode": "default", "tool_name": "run_shell_command", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "doctor"})
    }

    fn denies(&self, answer: &serde_json::Value) -> bool {
        answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    }
}
