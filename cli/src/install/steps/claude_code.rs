//! Claude Code: no trust step (a user's or a project's hooks run as written, the project's once
//! its workspace is trusted); `allowManagedHooksOnly` and `disableAllHooks` in its settings
//! (<https://code.claude.com/docs/en/settings>, <https://code.claude.com/docs/en/hooks>).

use super::{settings, Steps};
use crate::install::json::Json;
use crate::install::runtimes::{Places, Runtime, Scope};
use crate::install::Edit;
use std::path::Path;

pub(super) struct ClaudeCode;

impl Steps for ClaudeCode {
    fn managed_only_setting(&self) -> Option<&'static str> {
        Some("allowManagedHooksOnly")
    }

    fn allow_managed_hooks_only(&self, _hooks_path: &Path, doc: &mut Json, hooks_added: &mut Vec<String>, notes: &mut Vec<String>) -> Result<Option<Edit>, String> {
        if doc.get("allowManagedHooksOnly").and_then(Json::as_bool) != Some(true) {
            doc.set("allowManagedHooksOnly", Json::Bool(true));
            hooks_added.push("allowManagedHooksOnly".to_string());
            notes.push("Claude Code runs only managed hooks from now on: no user or repository hook (and no disableAllHooks) changes what runs".into());
        }
        Ok(None)
    }

    fn switched_off(&self, runtime: Runtime, places: &Places, wired_managed: bool) -> Vec<String> {
        let mut off = Vec::new();
        let managed = runtime.hooks_file(Scope::Managed, places).unwrap_or_default();
        for path in [places.home.join(".claude/settings.json"), places.project.join(".claude/settings.json"), places.project.join(".claude/settings.local.json"), managed.clone()] {
            let Some(doc) = settings(&path) else { continue };
            let is_managed = path == managed;
            if doc.get("disableAllHooks").and_then(Json::as_bool) == Some(true) && (is_managed || !wired_managed) {
                off.push(format!("{} says \"disableAllHooks\": true (every hook not in managed settings is off)", path.display()));
            }
            if is_managed && !wired_managed && doc.get("allowManagedHooksOnly").and_then(Json::as_bool) == Some(true) {
                off.push(format!("{} says \"allowManagedHooksOnly\": true (only managed hooks run, and hookhost is not one)", path.display()));
            }
        }
        off
    }

    fn probe(&self, cwd: &str) -> serde_json::Value {
        serde_json::json!({"session_id": "hookhost-doctor", "transcript_path": "", "cwd": cwd, "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
    }

    fn denies(&self, answer: &serde_json::Value) -> bool {
        answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    }
}
