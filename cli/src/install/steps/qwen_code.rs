//! Qwen Code: Gemini CLI's folder trust (`~/.qwen/trustedFolders.json`, `{"<path>":
//! "TRUST_FOLDER"}`: a project's `.qwen/settings.json` is read only in a trusted folder when
//! `security.folderTrust.enabled` is on), and `disableAllHooks` in any of its settings files
//! switches every hook off (QwenLM/qwen-code `docs/users/features/hooks.md`,
//! `docs/users/configuration/trusted-folders.md`).

use super::gemini_cli::{folder_trust, folder_trusted, folder_untrust};
use super::{settings, Finding, Steps};
use crate::install::json::Json;
use crate::install::runtimes::{Places, Runtime, Scope};
use crate::install::{Edit, Role};
use std::path::Path;

pub(super) struct QwenCode;

impl Steps for QwenCode {
    fn trust(&self, _hooks_path: &Path, _doc: &Json, places: &Places, project: Option<&Path>, notes: &mut Vec<String>) -> Result<Option<Edit>, String> {
        folder_trust(".qwen", "Qwen Code", places, project, notes)
    }

    fn undo(&self, role: Role, path: &Path, current: &str, added: &[String]) -> Result<String, String> {
        folder_untrust("Qwen Code", role, path, current, added)
    }

    fn check_trust(&self, runtime: Runtime, project: bool, places: &Places, _file: &Path, _doc: &Json, fix: &str) -> Vec<Finding> {
        folder_trusted(".qwen", runtime, project, places, fix)
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
