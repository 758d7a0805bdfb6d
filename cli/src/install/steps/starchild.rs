//! Starchild (its agent-hooks guide: the `agent-hooks` skill of
//! starchild-ai-agent/official-skills): a hook in `config/shell_hooks.yaml` runs only when its
//! `(event, command)` pair is approved and the master switch is on (`shell_hooks.enabled: true`
//! in `config/agent.yaml`). Both are Starchild's own state, set by its loopback self-approve
//! API (`POST http://localhost:8000/internal/runtime/hooks/approve`, `{"command": …}`: every
//! event the command is wired to, and the switch), or by `/hooks approve <event> <command>` and
//! `/hooks on`: install says which command to approve; doctor reads the switch (the approvals
//! are kept where no file of Starchild's documents them: its `/hooks doctor` shows them).

use super::{Finding, Steps};
use crate::install::json::Json;
use crate::install::runtimes::{Places, Runtime};
use crate::install::Edit;
use std::path::Path;

pub(super) struct Starchild;

/// The workspace of a hooks file (`<workspace>/config/shell_hooks.yaml`).
fn workspace(hooks_path: &Path) -> Option<&Path> {
    hooks_path.parent()?.parent()
}

/// Whether the master switch in `<workspace>/config/agent.yaml` is on.
fn switched_on(workspace: &Path) -> Result<bool, String> {
    let path = workspace.join("config/agent.yaml");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let value: serde_json::Value = serde_norway::from_str(&text).map_err(|e| format!("{} is not valid YAML ({e})", path.display()))?;
    Ok(value.pointer("/shell_hooks/enabled").and_then(serde_json::Value::as_bool) == Some(true))
}

impl Steps for Starchild {
    fn trust(&self, hooks_path: &Path, doc: &Json, _places: &Places, _project: Option<&Path>, notes: &mut Vec<String>) -> Result<Option<Edit>, String> {
        let mut commands: Vec<&str> = Vec::new();
        for (_, entries) in doc.get("hooks").map(Json::fields).unwrap_or_default() {
            for entry in entries.as_array().into_iter().flatten().filter(|e| crate::install::runtimes::is_ours(e)) {
                if let Some(c) = entry.get("command").and_then(Json::as_str).filter(|c| !commands.contains(c)) {
                    commands.push(c);
                }
            }
        }
        for command in commands {
            let body = serde_json::json!({ "command": command }).to_string();
            notes.push(format!(
                "trust: Starchild runs these entries of {} only once approved, with its hooks switched on: inside its container, curl -s -X POST http://localhost:8000/internal/runtime/hooks/approve -H 'Content-Type: application/json' -d '{}' (or /hooks approve <event> {command}, then /hooks on)",
                hooks_path.display(),
                body.replace('\'', r"'\''")
            ));
        }
        Ok(None)
    }

    fn check_trust(&self, runtime: Runtime, _project: bool, _places: &Places, file: &Path, _doc: &Json, _fix: &str) -> Vec<Finding> {
        let Some(workspace) = workspace(file) else { return Vec::new() };
        let outcome = match switched_on(workspace) {
            Ok(true) => Ok(format!("shell_hooks.enabled is true in {} (each entry must be approved as well: Starchild's /hooks doctor lists them)", workspace.join("config/agent.yaml").display())),
            Ok(false) => Err((
                format!("{}'s master switch is off ({} does not say shell_hooks.enabled: true): no hook of {} runs", runtime.title(), workspace.join("config/agent.yaml").display(), file.display()),
                "approve hookhost's command with Starchild's self-approve API (it switches hooks on), or /hooks approve and /hooks on".into(),
            )),
            Err(e) => Err((e, "fix the file".into())),
        };
        vec![("switched on", outcome)]
    }

    fn switched_off(&self, _runtime: Runtime, _places: &Places, _wired_managed: bool) -> Vec<String> {
        Vec::new()
    }

    fn probe(&self, cwd: &str) -> serde_json::Value {
        serde_json::json!({"event": "pre_tool_call", "session_id": "hookhost-doctor", "cwd": cwd, "tool_name": "bash", "tool_input": {"command": "rm -rf /"}})
    }

    fn denies(&self, answer: &serde_json::Value) -> bool {
        answer["decision"] == "block"
    }
}
