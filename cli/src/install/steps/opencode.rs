//! OpenCode: no trust step (it loads every plugin in `.opencode/plugin/` and
//! `~/.config/opencode/plugin/`), no managed settings, no setting that switches plugins off
//! (<https://opencode.ai/docs/plugins/>). Its plugin is hookhost's own, which sends hookhost's
//! envelope and reads `hookhost run --output opencode`'s answer: that is what doctor's probe is.

use super::Steps;
use crate::install::runtimes::{Places, Runtime};

pub(super) struct OpenCode;

impl Steps for OpenCode {
    fn switched_off(&self, _runtime: Runtime, _places: &Places, _wired_managed: bool) -> Vec<String> {
        Vec::new()
    }

    fn probe(&self, cwd: &str) -> serde_json::Value {
        serde_json::json!({"event": "pre_tool_use", "session_id": "hookhost-doctor", "cwd": cwd, "runtime": "opencode",
                           "data": {"tool_name": "bash", "tool_call_id": "probe", "arguments": {"command": "rm -rf /", "description": "probe"}}})
    }

    fn denies(&self, answer: &serde_json::Value) -> bool {
        answer["decision"] == "block"
    }
    // (The answer is `hookhost run --output opencode`'s: host/src/protocol/opencode.rs.)
}
