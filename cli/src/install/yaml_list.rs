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

/// The entries of a file's list, as data (what the runtime reads), or why it has none.
fn entries(text: &str) -> Result<Vec<serde_json::Value>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let value: serde_json::Value = serde_norway::from_str(text).map_err(|e| format!("it is not valid YAML ({e})"))?;
    match value.get(KEY) {
        None | Some(serde_json::Value::Null) if value.is_object() || value.is_null() => Ok(Vec::new()),
        Some(serde_json::Value::Array(items)) => Ok(items.clone()),
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
    let before = entries(text)?;
    let ours = ours.unwrap_or_default();
    let kept: Vec<serde_json::Value> = before.iter().filter(|e| !is_ours(e)).cloned().collect();
    let wanted: Vec<serde_json::Value> = kept.iter().cloned().chain(ours.iter().map(Json::to_value)).collect();
    if wanted == before {
        return Ok(text.to_string());
    }
    let after = if text.trim().is_empty() || before.is_empty() && !text.contains(KEY) {
        // No list yet (so nothing of the user's in one): append one; the rest of the file,
        // comments included, stays above it.
        let mut list = Json::obj();
        list.set(KEY, Json::Array(ours));
        let list = serde_norway::to_string(&list).map_err(|e| format!("cannot write YAML: {e}"))?;
        let sep = if text.is_empty() || text.ends_with('\n') { "" } else { "\n" };
        format!("{text}{sep}{list}")
    } else {
        let doc = Document::from_str(text).map_err(|e| format!("cannot edit it as YAML ({e})"))?;
        let mapping = doc.as_mapping().ok_or("it does not hold a mapping")?;
        let list = mapping.get_sequence(KEY).ok_or(format!("its `{KEY}` is not a list"))?;
        for i in (0..before.len()).rev() {
            if is_ours(&before[i]) {
                list.remove(i);
            }
        }
        for item in ours {
            let one = serde_norway::to_string(&item).map_err(|e| format!("cannot write YAML: {e}"))?;
            let node = Document::from_str(&one).map_err(|e| format!("cannot write YAML: {e}"))?;
            list.push(node.as_mapping().ok_or("cannot write YAML: an entry is not a mapping")?);
        }
        doc.to_string()
    };
    // What the runtime will read must be exactly what was meant: else write nothing.
    match entries(&after) {
        Ok(read) if read == wanted => Ok(after),
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
    let mut by_event: Vec<(String, Vec<serde_json::Value>)> = Vec::new();
    for e in entries(text)? {
        let event = e.get("event").and_then(serde_json::Value::as_str).unwrap_or_default().to_string();
        match by_event.iter_mut().find(|(name, _)| *name == event) {
            Some((_, list)) => list.push(e),
            None => by_event.push((event, vec![e])),
        }
    }
    let hooks: serde_json::Map<String, serde_json::Value> = by_event.into_iter().map(|(k, v)| (k, serde_json::Value::Array(v))).collect();
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
        let read = entries(&wired).unwrap();
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
        assert_eq!(entries(&fresh).unwrap().len(), starchild().events().len(), "{fresh}");
        let other = wire(starchild(), Some("# nothing yet\nversion: 1\n"), &target()).unwrap();
        assert!(other.starts_with("# nothing yet\nversion: 1\nhooks:\n"), "{other}");
        assert_eq!(wire(starchild(), Some("hooks: []\n"), &target()).map(|t| entries(&t).unwrap().len()), Ok(starchild().events().len()));
    }

    #[test]
    fn a_file_it_cannot_edit_is_refused_whole() {
        assert!(wire(starchild(), Some("hooks: [\n"), &target()).unwrap_err().starts_with("it is not valid YAML"));
        assert_eq!(wire(starchild(), Some("hooks: {a: 1}\n"), &target()).unwrap_err(), "its `hooks` is not a list");
        assert_eq!(wire(starchild(), Some("- a\n"), &target()).unwrap_err(), "it does not hold a mapping");
    }
}
