//! A runtime wired by a hooks file of hookhost's alone, in a directory the runtime reads every
//! file of (`Layout::DropIn`: docker-agent's `~/.config/cagent/hooks.d/`, each file a
//! standalone hooks block in its YAML, read in name order, one that does not parse skipped with
//! a warning — docker/docker-agent pull request 3496). Install writes the whole file from the
//! same entries a JSON hooks file would get ([`runtimes::wire`]); uninstall removes it; doctor
//! reads it back, and says so when the runtime would skip it.

use super::json::Json;
use super::runtimes::{self, Runtime, Target};

/// How a drop-in of hookhost's begins: what tells it from a file someone else put there.
const MARK: &str = "# hookhost's hooks for ";

/// Whether a file's text is hookhost's drop-in.
pub(crate) fn is_ours(text: &str) -> bool {
    text.starts_with(MARK)
}

/// The drop-in's text for `target`: a comment saying whose it is, then the hooks block.
pub(crate) fn text(runtime: Runtime, target: &Target) -> Result<String, String> {
    let mut doc = Json::obj();
    runtimes::wire(runtime, &mut doc, target)?;
    let hooks = doc.get("hooks").cloned().unwrap_or_else(Json::obj);
    let yaml = serde_norway::to_string(&hooks).map_err(|e| format!("cannot write the hooks as YAML: {e}"))?;
    Ok(format!(
        "{MARK}{}: written whole by `hookhost install`, removed by `hookhost uninstall`\n# (changes here are replaced by the next install; `hookhost doctor` checks it).\n{yaml}",
        runtime.title()
    ))
}

/// The drop-in as a hooks document (`{"hooks": …}`, as a JSON hooks file holds it), or why the
/// runtime would not read it.
pub(crate) fn read(text: &str) -> Result<Json, String> {
    let value: serde_json::Value = serde_norway::from_str(text).map_err(|e| format!("it is not valid YAML ({e})"))?;
    if !value.is_object() {
        return Err("it does not hold a mapping of events to hooks".into());
    }
    let hooks: Json = serde_json::from_value(value).map_err(|e| format!("cannot read it: {e}"))?;
    let mut doc = Json::obj();
    doc.set("hooks", hooks);
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::runtimes::Wiring;
    use std::path::PathBuf;

    fn docker_agent() -> Runtime {
        *Runtime::all().iter().find(|r| r.name() == "docker-agent").unwrap()
    }

    /// The file has docker-agent's documented shape (its hooks reference: tool events hold
    /// matcher groups, the others handlers) and reads back as hookhost's on every event.
    #[test]
    fn the_drop_in_has_the_runtimes_shape_and_reads_back() {
        let runtime = docker_agent();
        let target = Target { hookhost: PathBuf::from("/opt/my tools/hookhost"), send: PathBuf::from("/opt/my tools/hookhost-send"), wiring: Wiring::Command, failure_flag: None, server: String::new() };
        let text = text(runtime, &target).unwrap();
        assert!(is_ours(&text), "{text}");
        let value: serde_json::Value = serde_norway::from_str(&text).unwrap();
        let command = "'/opt/my tools/hookhost' run --output docker-agent";
        let handler = serde_json::json!({"type": "command", "command": command});
        assert_eq!(value["pre_tool_use"], serde_json::json!([{"matcher": "*", "hooks": [handler]}]));
        assert_eq!(value["post_tool_use"], serde_json::json!([{"matcher": "*", "hooks": [handler]}]));
        assert_eq!(value["user_prompt_submit"], serde_json::json!([handler]));
        assert_eq!(value["stop"], serde_json::json!([handler]));
        assert_eq!(value.as_object().unwrap().len(), 4, "{text}");
        let doc = read(&text).unwrap();
        for (event, _) in runtime.events() {
            assert_eq!(runtimes::our_handlers(runtime, doc.get("hooks").unwrap(), event).len(), 1, "{event}");
        }
        assert!(!is_ours("pre_tool_use: []\n"));
    }

    #[test]
    fn a_drop_in_the_runtime_would_skip_is_said_to_be_unreadable() {
        assert!(read("# hookhost's hooks for docker-agent\npre_tool_use: [\n").unwrap_err().starts_with("it is not valid YAML"));
        assert_eq!(read("- just a list\n").unwrap_err(), "it does not hold a mapping of events to hooks");
    }
}
