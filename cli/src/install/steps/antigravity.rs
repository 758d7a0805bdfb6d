//! Antigravity CLI: no trust step known, no managed hooks file known. From agy 1.1 every
//! top-level key of `hooks.json` names a hook and `"enabled": false` inside one switches it off
//! (skillsaw's `antigravity-hooks-valid` rule, measured on agy 1.1.25): hookhost's entries are
//! in the one called `hooks` (agy 1.0's wrapper key), so an `enabled: false` there switches
//! hookhost off. Its answers are `hookhost run --output antigravity`'s (`decision: "deny"`).

use super::{settings, Steps};
use crate::install::json::Json;
use crate::install::runtimes::{Places, Runtime, Scope};

pub(super) struct Antigravity;

impl Steps for Antigravity {
    fn switched_off(&self, runtime: Runtime, places: &Places, _wired_managed: bool) -> Vec<String> {
        let mut off = Vec::new();
        for path in [Scope::User, Scope::Project].into_iter().filter_map(|scope| runtime.hooks_file(scope, places).ok()) {
            let Some(doc) = settings(&path) else { continue };
            if doc.get("hooks").and_then(|h| h.get("enabled")).and_then(Json::as_bool) == Some(false) {
                off.push(format!("{} says \"hooks\": {{\"enabled\": false}} (the named hook holding hookhost's entries)", path.display()));
            }
        }
        off
    }

    /// Its shell tool's call as agy sends it (`run_command`, the command in `CommandLine`).
    fn probe(&self, cwd: &str) -> serde_json::Value {
        serde_json::json!({"conversationId": "hookhost-doctor", "stepIdx": 0, "toolCall": {"name": "run_command", "args": {"CommandLine": "rm -rf /", "Cwd": cwd}}, "workspacePaths": [cwd]})
    }

    fn denies(&self, answer: &serde_json::Value) -> bool {
        answer["decision"] == "deny"
    }
}
