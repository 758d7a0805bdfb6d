//! A runtime whose hooks file is YAML holding one list of hook entries under a key
//! (`Layout::YamlList`: Starchild's `config/shell_hooks.yaml`, `hooks:` a list of
//! `{event, command, matcher, timeout}`, its agent-hooks guide). The file is the user's: install
//! adds hookhost's entries and uninstall takes them out with `yaml-edit`, which keeps every
//! comment, blank line, quote and indentation of the rest; the result is parsed back and must
//! hold exactly the entries it held before plus hookhost's, or nothing is written.

use super::json::Json;
use super::runtimes::{self, Runtime, Target};
use std::str::FromStr;
use yaml_edit::Document;

/// The key holding the list.
const KEY: &str = "hooks";

/// The entries of a file's list, as data (what the runtime reads): `None` when it has none (an
/// empty file, no `hooks` key, or one with no value), or why it cannot be read.
fn entries(text: &str) -> Result<Option<Vec<serde_json::Value>>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let value: serde_json::Value = serde_norway::from_str(text).map_err(|e| format!("it is not valid YAML ({e})"))?;
    match value.get(KEY) {
        Some(serde_json::Value::Array(items)) => Ok(Some(items.clone())),
        None | Some(serde_json::Value::Null) if value.is_object() || value.is_null() => Ok(None),
        Some(_) => Err(format!("its `{KEY}` is not a list")),
        None => Err("it does not hold a mapping".into()),
    }
}

/// Whether a list entry is hookhost's (its `command` runs `hookhost` or `hookhost-send`).
fn is_ours(entry: &serde_json::Value) -> bool {
    serde_json::from_value::<Json>(entry.clone()).is_ok_and(|h| runtimes::is_ours(&h))
}

/// hookhost's entry for `event` (its keys in the guide's order: `event`, then `command`).
fn entry(runtime: Runtime, target: &Target, event: &str) -> Json {
    let mut e = Json::obj();
    e.set("event", Json::str(event));
    e.set("command", Json::str(target.command(runtime, event)));
    e
}

/// The file's text with hookhost's entries (`Some`: put these, after the others) or without
/// them (`None`), everything else kept as it was.
fn edit(text: Option<&str>, ours: Option<Vec<Json>>) -> Result<String, String> {
    let text = text.unwrap_or("");
    let list = entries(text)?;
    let before = list.clone().unwrap_or_default();
    let ours = ours.unwrap_or_default();
    let wanted: Vec<serde_json::Value> = before.iter().filter(|e| !is_ours(e)).cloned().chain(ours.iter().map(Json::to_value)).collect();
    if wanted == before {
        return Ok(text.to_string());
    }
    let yaml = |v: &Json| serde_norway::to_string(v).map_err(|e| format!("cannot write YAML: {e}"));
    // A mapping of the user's is edited in place; an empty (or comments-only) file gets the list
    // after what it holds.
    let doc = Document::from_str(text).ok().filter(|d| d.as_mapping().is_some());
    let after = match (doc, list) {
        (Some(doc), Some(_)) => {
            let items = doc.as_mapping().and_then(|m| m.get_sequence(KEY)).ok_or(format!("its `{KEY}` is not a list"))?;
            for i in (0..before.len()).rev().filter(|&i| is_ours(&before[i])) {
                items.remove(i);
            }
            for item in &ours {
                let node = Document::from_str(&yaml(item)?).map_err(|e| format!("cannot write YAML: {e}"))?;
                items.push(node.as_mapping().ok_or("cannot write YAML: an entry is not a mapping")?);
            }
            doc.to_string()
        }
        // No list yet (none of the user's entries, then): `hooks:` set to hookhost's.
        (Some(doc), None) => {
            let new = Document::from_str(&yaml(&Json::Array(ours))?).map_err(|e| format!("cannot write YAML: {e}"))?;
            doc.as_mapping().ok_or("it does not hold a mapping")?.set(KEY, new.as_sequence().ok_or("cannot write YAML: the entries are not a list")?);
            doc.to_string()
        }
        (None, _) => {
            let mut file = Json::obj();
            file.set(KEY, Json::Array(ours));
            let sep = if text.is_empty() || text.ends_with('\n') { "" } else { "\n" };
            format!("{text}{sep}{}", yaml(&file)?)
        }
    };
    // What the runtime will read must be exactly what was meant: else write nothing.
    match entries(&after) {
        Ok(read) if read.as_deref().unwrap_or_default() == wanted.as_slice() => Ok(after),
        _ => Err(format!("could not edit its `{KEY}` list so that it reads back as intended; add the entries docs/INTEGRATIONS.md shows by hand")),
    }
}

/// The file's text with hookhost's entries for every event `runtime` wires.
pub(crate) fn wire(runtime: Runtime, text: Option<&str>, target: &Target) -> Result<String, String> {
    edit(text, Some(runtime.events().iter().map(|(event, _)| entry(runtime, target, event)).collect()))
}

/// The file's text without hookhost's entries.
pub(crate) fn unwire(text: &str) -> Result<String, String> {
    edit(Some(text), None)
}

/// The file as a hooks document (`{"hooks": {event: [entry, …]}}`, as a JSON hooks file holds
/// its handlers), or why the runtime would not read it.
pub(crate) fn read(text: &str) -> Result<Json, String> {
    let mut hooks = serde_json::Map::new();
    for e in entries(text)?.unwrap_or_default() {
        let event = e.get("event").and_then(serde_json::Value::as_str).unwrap_or_default().to_string();
        if let serde_json::Value::Array(list) = hooks.entry(event).or_insert_with(|| serde_json::Value::Array(Vec::new())) {
            list.push(e);
        }
    }
    let mut doc = Json::obj();
    doc.set("hooks", serde_json::from_value(serde_json::Value::Object(hooks)).map_err(|e| e.to_string())?);
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::runtimes::Wiring;
    use std::path::PathBuf;

    fn starchild() -> Runtime {
        *Runtime::all().iter().find(|r| r.name() == "starchild").unwrap()
    }

    fn target() -> Target {
        Target { hookhost: PathBuf::from("/opt/my tools/hookhost"), send: PathBuf::from("/opt/my tools/hookhost-send"), wiring: Wiring::Command, failure_flag: None, server: String::new() }
    }

    const MINE: &str = "# my hooks\nhooks:\n  - event: pre_tool_call\n    matcher: \"rm -rf|mkfs\"  # the guard\n    command: /data/workspace/hooks/guard.py\n    timeout: 10\n\n# end\n";

    /// The user's entries, comments and layout stay; hookhost's come after them; a second run
    /// changes nothing; unwire gives the bytes back.
    #[test]
    fn entries_are_added_after_the_users_and_taken_back_exactly() {
        let wired = wire(starchild(), Some(MINE), &target()).unwrap();
        assert!(wired.starts_with("# my hooks\nhooks:\n  - event: pre_tool_call\n    matcher: \"rm -rf|mkfs\"  # the guard\n"), "{wired}");
        assert!(wired.contains("# end"), "{wired}");
        let read = entries(&wired).unwrap().unwrap();
        assert_eq!(read.len(), 1 + starchild().events().len(), "{wired}");
        assert_eq!(read[1], serde_json::json!({"event": "pre_tool_call", "command": "'/opt/my tools/hookhost' run --output starchild"}));
        assert_eq!(wire(starchild(), Some(&wired), &target()).unwrap(), wired, "a second run changes nothing");
        assert_eq!(unwire(&wired).unwrap(), MINE);
        let doc = read_doc(&wired);
        assert_eq!(runtimes::our_handlers(starchild(), doc.get("hooks").unwrap(), "pre_tool_call").len(), 1);
    }

    fn read_doc(text: &str) -> Json {
        super::read(text).unwrap()
    }

    #[test]
    fn a_new_or_listless_file_gets_a_list() {
        let fresh = wire(starchild(), None, &target()).unwrap();
        assert_eq!(entries(&fresh).unwrap().unwrap().len(), starchild().events().len(), "{fresh}");
        let other = wire(starchild(), Some("# nothing yet\nversion: 1\n"), &target()).unwrap();
        assert!(other.starts_with("# nothing yet\nversion: 1\nhooks:\n"), "{other}");
        assert_eq!(wire(starchild(), Some("hooks: []\n"), &target()).map(|t| entries(&t).unwrap().unwrap().len()), Ok(starchild().events().len()));
        // A key with no value, and a comment that merely names the key, are no list yet.
        let empty_key = wire(starchild(), Some("# my shell hooks\nversion: 1\nhooks:\nother: 2\n"), &target()).unwrap();
        assert!(empty_key.starts_with("# my shell hooks\nversion: 1\nhooks:\n"), "{empty_key}");
        assert_eq!(entries(&empty_key).unwrap().unwrap().len(), starchild().events().len(), "{empty_key}");
        let comment_only = wire(starchild(), Some("# hooks go here\n"), &target()).unwrap();
        assert!(comment_only.starts_with("# hooks go here\nhooks:\n"), "{comment_only}");
        assert_eq!(entries(&comment_only).unwrap().unwrap().len(), starchild().events().len());
    }

    #[test]
    fn a_file_it_cannot_edit_is_refused_whole() {
        assert!(wire(starchild(), Some("hooks: [\n"), &target()).unwrap_err().starts_with("it is not valid YAML"));
        assert_eq!(wire(starchild(), Some("hooks: {a: 1}\n"), &target()).unwrap_err(), "its `hooks` is not a list");
        assert_eq!(wire(starchild(), Some("- a\n"), &target()).unwrap_err(), "it does not hold a mapping");
    }
}
