//! Cursor: no trust step (its hooks reference names none: a user's, a project's and the
//! enterprise `hooks.json` all run), and no setting that switches hooks off. hookhost's entries
//! carry `failClosed` where `hookhost run` blocks on its own failure, so a crash or a timeout of
//! hookhost blocks there too (<https://cursor.com/docs/hooks>).

use super::Steps;
use crate::install::runtimes::{Places, Runtime};

pub(super) struct Cursor;

impl Steps for Cursor {
    fn switched_off(&self, _runtime: Runtime, _places: &Places, _wired_managed: bool) -> Vec<String> {
        Vec::new()
    }

    fn probe(&self, cwd: &str) -> serde_json::Value {
        serde_json::json!({"conversation_id": "hookhost-doctor", "generation_id": "doctor", "hook_event_name": "preToolUse", "workspace_roots": [cwd], "cwd": cwd, "tool_name": "Shell", "tool_input": {"command": "rm -rf /"}})
    }

    fn denies(&self, answer: &serde_json::Value) -> bool {
        answer["permission"] == "deny"
    }
}
