//! docker-agent: no trust step (it runs every hook in its user config and `hooks.d/`), no
//! managed settings, and no setting that switches hooks off; its answers are
//! `hookhost run --output docker-agent`'s (`decision: "block"` before a tool). Its hooks
//! reference: <https://docs.docker.com/ai/docker-agent/configuration/hooks/>.

use super::Steps;
use crate::install::runtimes::{Places, Runtime};

pub(super) struct DockerAgent;

impl Steps for DockerAgent {
    fn switched_off(&self, _runtime: Runtime, _places: &Places, _wired_managed: bool) -> Vec<String> {
        Vec::new()
    }

    /// Its shell tool's call as its hooks reference shows it (`shell`, the command in `cmd`).
    fn probe(&self, cwd: &str) -> serde_json::Value {
        serde_json::json!({"session_id": "hookhost-doctor", "cwd": cwd, "hook_event_name": "pre_tool_use", "tool_name": "shell", "tool_use_id": "probe", "tool_input": {"cmd": "rm -rf /", "cwd": "."}})
    }

    fn denies(&self, answer: &serde_json::Value) -> bool {
        answer["decision"] == "block"
    }
}
