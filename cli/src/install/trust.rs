//! Each runtime's trust step, done as the runtime itself records it: without it the wiring is
//! there and nothing runs.
//!
//! - **Codex** runs a hook of a user or project `hooks.json` only when `config.toml` holds
//!   `[hooks.state."<key>"] trusted_hash = "<hash>"` for it, and skips it without a word
//!   otherwise. The key is `<hooks.json's absolute path>:<event, snake_case>:<group
//!   index>:<handler index>`; the hash is `sha256:` + the hex SHA-256 of the compact JSON, keys
//!   sorted, of the hook's normalized identity: `event_name`, the group's `matcher` (none for
//!   UserPromptSubmit and Stop) and `hooks` holding the one handler with `timeout` filled in
//!   (600 s; SessionEnd 1–3 s), `async` (false) and no unset field. From codex-rs
//!   `hooks/src/engine/discovery.rs` (`command_hook_hash`, `hook_key`) and
//!   `config/src/fingerprint.rs` (`version_for_toml`); checked against the hashes the real
//!   Codex reports (`codex app-server`'s `hooks/list`, `currentHash`) in the real-client suite.
//!   A project's `.codex/` is read at all only for a trusted project
//!   (`[projects."<path>"] trust_level = "trusted"`).
//! - **Gemini CLI** reads a project's `.gemini/settings.json` only in a trusted folder:
//!   `~/.gemini/trustedFolders.json`, `{"<path>": "TRUST_FOLDER"}`.
//! - **GitHub Copilot CLI** runs a repository's hooks in prompt mode only for a trusted folder:
//!   `"trusted_folders": [...]` in `~/.copilot/config.json`.

use super::json::Json;
use hookhost_types::ids::sha256_hex;
use std::path::Path;

/// Codex's snake_case label of an event (`PreToolUse` → `pre_tool_use`).
pub(crate) fn codex_label(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

/// The key Codex files a hook's trust under.
pub(crate) fn codex_key(hooks_file: &Path, event: &str, group: usize, handler: usize) -> String {
    format!("{}:{}:{group}:{handler}", hooks_file.display(), codex_label(event))
}

/// The hash Codex computes for a command handler in a matcher group under `event`.
pub(crate) fn codex_hash(event: &str, group: &Json, handler: &Json) -> String {
    let label = codex_label(event);
    let mut h = serde_json::Map::new();
    h.insert("type".into(), "command".into());
    h.insert("command".into(), handler.get("command").and_then(Json::as_str).unwrap_or("").into());
    let timeout = ["timeout", "timeoutSec"].iter().find_map(|k| handler.get(k).map(Json::to_value)).and_then(|v| v.as_u64());
    let timeout = if label == "session_end" { timeout.unwrap_or(1).clamp(1, 3) } else { timeout.unwrap_or(600).max(1) };
    h.insert("timeout".into(), timeout.into());
    h.insert("async".into(), handler.get("async").and_then(Json::as_bool).unwrap_or(false).into());
    if let Some(m) = handler.get("statusMessage").and_then(Json::as_str) {
        h.insert("statusMessage".into(), m.into());
    }
    let mut identity = serde_json::Map::new();
    identity.insert("event_name".into(), label.clone().into());
    if !matches!(label.as_str(), "user_prompt_submit" | "stop") {
        if let Some(m) = group.get("matcher").and_then(Json::as_str) {
            identity.insert("matcher".into(), m.into());
        }
    }
    identity.insert("hooks".into(), serde_json::Value::Array(vec![serde_json::Value::Object(h)]));
    // serde_json's maps are sorted (its preserve_order feature is off): the canonical form.
    let bytes = serde_json::to_vec(&serde_json::Value::Object(identity)).unwrap_or_default();
    format!("sha256:{}", sha256_hex(&bytes))
}

/// Every hookhost handler of a Codex `hooks.json` document: (key, hash).
pub(crate) fn codex_entries(hooks_file: &Path, doc: &Json) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(hooks) = doc.get("hooks") else { return out };
    for (event, items) in hooks.fields() {
        for (gi, group) in items.as_array().into_iter().flatten().enumerate() {
            for (hi, handler) in group.get("hooks").and_then(Json::as_array).into_iter().flatten().enumerate() {
                if super::runtimes::is_ours(handler) {
                    out.push((codex_key(hooks_file, event, gi, hi), codex_hash(event, group, handler)));
                }
            }
        }
    }
    out
}

/// A table at `path` in a TOML document, made (as an implicit table, so no empty header is
/// written) where missing. `Err` names the key that holds something else.
fn table_at<'a>(doc: &'a mut toml_edit::DocumentMut, path: &[&str]) -> Result<&'a mut toml_edit::Table, String> {
    let mut table = doc.as_table_mut();
    for (i, key) in path.iter().enumerate() {
        let item = table.entry(key).or_insert_with(|| {
            let mut t = toml_edit::Table::new();
            t.set_implicit(true);
            toml_edit::Item::Table(t)
        });
        table = item.as_table_mut().ok_or_else(|| format!("{} is not a table", path[..=i].join(".")))?;
    }
    Ok(table)
}

/// Record Codex's trust of `entries` (and of the project, when given and not yet decided) in a
/// `config.toml` document. Returns what was added ("state:<key>", "project:<path>") and
/// warnings for what it would not change.
pub(crate) fn codex_trust(doc: &mut toml_edit::DocumentMut, entries: &[(String, String)], project: Option<&Path>) -> Result<(Vec<String>, Vec<String>), String> {
    let (mut added, mut warnings) = (Vec::new(), Vec::new());
    for (key, hash) in entries {
        let state = table_at(doc, &["hooks", "state"])?;
        let t = state.entry(key).or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
        let t = t.as_table_like_mut().ok_or_else(|| format!("hooks.state.\"{key}\" is not a table"))?;
        if t.get("trusted_hash").and_then(|v| v.as_str()) != Some(hash.as_str()) {
            t.insert("trusted_hash", toml_edit::value(hash.as_str()));
            added.push(format!("state:{key}"));
        }
        if t.get("enabled").and_then(|v| v.as_bool()) == Some(false) {
            warnings.push(format!("Codex has hookhost's hook {key} switched off (enabled = false under [hooks.state]); it stays off until you enable it in Codex's /hooks"));
        }
    }
    if let Some(project) = project {
        let key = project.display().to_string();
        let projects = table_at(doc, &["projects"])?;
        let t = projects.entry(&key).or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
        let t = t.as_table_like_mut().ok_or_else(|| format!("projects.\"{key}\" is not a table"))?;
        match t.get("trust_level").and_then(|v| v.as_str()) {
            Some("trusted") => {}
            None => {
                t.insert("trust_level", toml_edit::value("trusted"));
                added.push(format!("project:{key}"));
            }
            Some(other) => warnings.push(format!("Codex has the project {key} as trust_level = \"{other}\", so it reads none of its .codex/ files and hookhost's project hooks do not run; install at --scope user, or trust the project in Codex")),
        }
    }
    Ok((added, warnings))
}

/// Undo what [`codex_trust`] added (`added` as it returned it).
pub(crate) fn codex_untrust(doc: &mut toml_edit::DocumentMut, added: &[String]) {
    for item in added {
        if let Some(key) = item.strip_prefix("state:") {
            if let Some(state) = doc.get_mut("hooks").and_then(|h| h.get_mut("state")).and_then(|s| s.as_table_like_mut()) {
                if let Some(t) = state.get_mut(key).and_then(|t| t.as_table_like_mut()) {
                    t.remove("trusted_hash");
                    if t.is_empty() {
                        state.remove(key);
                    }
                }
                if state.is_empty() {
                    if let Some(h) = doc.get_mut("hooks").and_then(|h| h.as_table_like_mut()) {
                        h.remove("state");
                        if h.is_empty() {
                            doc.remove("hooks");
                        }
                    }
                }
            }
        } else if let Some(key) = item.strip_prefix("project:") {
            if let Some(projects) = doc.get_mut("projects").and_then(|p| p.as_table_like_mut()) {
                if let Some(t) = projects.get_mut(key).and_then(|t| t.as_table_like_mut()) {
                    t.remove("trust_level");
                    if t.is_empty() {
                        projects.remove(key);
                    }
                }
                if projects.is_empty() {
                    doc.remove("projects");
                }
            }
        }
    }
}

/// Whether `folder` is `dir` or inside it.
fn within(folder: &Path, dir: &str) -> bool {
    folder.starts_with(Path::new(dir))
}

/// Gemini CLI's trust of `project` in a `trustedFolders.json` document: added unless a rule
/// already decides it. Returns (added, warning).
pub(crate) fn gemini_trust(doc: &mut Json, project: &Path) -> Result<(Vec<String>, Vec<String>), String> {
    if !matches!(doc, Json::Object(_)) {
        return Err("the file does not hold a JSON object".into());
    }
    let key = project.display().to_string();
    match gemini_rule(doc, project) {
        Some((_, true)) => Ok((vec![], vec![])),
        Some((dir, false)) => Ok((vec![], vec![format!("Gemini CLI has {dir} as DO_NOT_TRUST, so it reads no project settings there and hookhost's project hooks do not run; install at --scope user, or trust the folder in Gemini CLI")])),
        None => {
            doc.set(&key, Json::str("TRUST_FOLDER"));
            Ok((vec![key], vec![]))
        }
    }
}

/// The rule of `trustedFolders.json` that decides `project`: the folder it names and whether it
/// trusts. The most specific wins: the folder itself, else the nearest ancestor (a
/// `TRUST_PARENT` rule trusts its folder's parent and what is in it).
pub(crate) fn gemini_rule(doc: &Json, project: &Path) -> Option<(String, bool)> {
    let mut best: Option<(usize, String, bool)> = None;
    for (dir, rule) in doc.fields() {
        let (scope, trusts) = match rule.as_str() {
            Some("TRUST_FOLDER") => (Path::new(dir).to_path_buf(), true),
            Some("TRUST_PARENT") => (Path::new(dir).parent().unwrap_or(Path::new(dir)).to_path_buf(), true),
            Some("DO_NOT_TRUST") => (Path::new(dir).to_path_buf(), false),
            _ => continue,
        };
        if within(project, &scope.display().to_string()) {
            let depth = scope.components().count();
            if best.as_ref().is_none_or(|(d, _, _)| depth > *d) {
                best = Some((depth, dir.clone(), trusts));
            }
        }
    }
    best.map(|(_, dir, trusts)| (dir, trusts))
}

/// Copilot's trust of `project` in a `config.json` document (`trusted_folders`).
pub(crate) fn copilot_trust(doc: &mut Json, project: &Path) -> Result<(Vec<String>, Vec<String>), String> {
    if !matches!(doc, Json::Object(_)) {
        return Err("the file does not hold a JSON object".into());
    }
    if copilot_trusts(doc, project) {
        return Ok((vec![], vec![]));
    }
    let key = project.display().to_string();
    match doc.get_mut("trusted_folders") {
        Some(Json::Array(list)) => list.push(Json::str(&key)),
        Some(_) => return Err("its \"trusted_folders\" is not an array".into()),
        None => doc.set("trusted_folders", Json::Array(vec![Json::str(&key)])),
    }
    Ok((vec![key], vec![]))
}

/// Whether Copilot's `config.json` trusts `project` (it or a folder it is in).
pub(crate) fn copilot_trusts(doc: &Json, project: &Path) -> bool {
    doc.get("trusted_folders").and_then(Json::as_array).into_iter().flatten().filter_map(Json::as_str).any(|d| within(project, d))
}

/// Undo [`gemini_trust`] / [`copilot_trust`].
pub(crate) fn untrust_folder(doc: &mut Json, added: &[String], copilot: bool) {
    for key in added {
        if copilot {
            if let Some(Json::Array(list)) = doc.get_mut("trusted_folders") {
                list.retain(|d| d.as_str() != Some(key));
                if list.is_empty() {
                    doc.remove("trusted_folders");
                }
            }
        } else if doc.get(key).and_then(Json::as_str) == Some("TRUST_FOLDER") {
            doc.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hashes the real Codex 0.169.0 reported (`codex app-server`, `hooks/list`, `currentHash`)
    // for these two entries of a project's .codex/hooks.json.
    #[test]
    fn codex_hashes_as_codex_does() {
        let group = Json::parse(r#"{"matcher": "Bash", "hooks": [{"type": "command", "command": "hookhost run --output codex"}]}"#).unwrap();
        let h = &group.get("hooks").unwrap().as_array().unwrap()[0];
        assert_eq!(codex_hash("PreToolUse", &group, h), "sha256:9f980ca280d4c2ce93414592349cab73571421a0e916803e7d58fcb31772bdad");
        let group = Json::parse(r#"{"hooks": [{"type": "command", "command": "hookhost run --output codex", "timeout": 30, "statusMessage": "x"}]}"#).unwrap();
        let h = &group.get("hooks").unwrap().as_array().unwrap()[0];
        assert_eq!(codex_hash("Stop", &group, h), "sha256:7247abfbf8d7a61b121ee995a9176ff713899e0774e2e4b34e48112d5cdfeca7");
        assert_eq!(codex_key(Path::new("/p/.codex/hooks.json"), "PreToolUse", 0, 1), "/p/.codex/hooks.json:pre_tool_use:0:1");
    }

    #[test]
    fn codex_trust_is_added_and_taken_back_exactly() {
        let text = "# mine\nmodel = \"x\"\n\n[projects.\"/other\"]\ntrust_level = \"trusted\"\n";
        let mut doc: toml_edit::DocumentMut = text.parse().unwrap();
        let entries = vec![("/p/.codex/hooks.json:stop:0:0".to_string(), "sha256:ab".to_string())];
        let (added, warnings) = codex_trust(&mut doc, &entries, Some(Path::new("/p"))).unwrap();
        assert!(warnings.is_empty());
        assert_eq!(added, ["state:/p/.codex/hooks.json:stop:0:0", "project:/p"]);
        let written = doc.to_string();
        assert!(written.starts_with(text), "{written}");
        assert!(written.contains("[hooks.state.\"/p/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:ab\""), "{written}");
        // A second time: nothing to add.
        assert_eq!(codex_trust(&mut doc, &entries, Some(Path::new("/p"))).unwrap().0, Vec::<String>::new());
        codex_untrust(&mut doc, &added);
        assert_eq!(doc.to_string(), text);
    }

    #[test]
    fn folder_trust_respects_the_users_rules() {
        let mut doc = Json::parse(r#"{"/work": "TRUST_FOLDER", "/work/secret": "DO_NOT_TRUST"}"#).unwrap();
        assert_eq!(gemini_trust(&mut doc, Path::new("/work/app")).unwrap(), (vec![], vec![]));
        assert_eq!(gemini_trust(&mut doc, Path::new("/work/secret/x")).unwrap().1.len(), 1);
        assert_eq!(gemini_trust(&mut doc, Path::new("/elsewhere")).unwrap().0, ["/elsewhere"]);
        let mut cp = Json::obj();
        let (added, _) = copilot_trust(&mut cp, Path::new("/p")).unwrap();
        assert!(copilot_trusts(&cp, Path::new("/p/sub")));
        untrust_folder(&mut cp, &added, true);
        assert_eq!(cp, Json::obj());
    }
}
