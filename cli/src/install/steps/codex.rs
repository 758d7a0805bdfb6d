//! Codex: it runs a hook of a user or project `hooks.json` only when `config.toml` holds
//! `[hooks.state."<key>"] trusted_hash = "<hash>"` for it, and skips it without a word
//! otherwise. The key is `<hooks.json's absolute path>:<event, snake_case>:<group
//! index>:<handler index>`; the hash is `sha256:` + the hex SHA-256 of the compact JSON, keys
//! sorted, of the hook's normalized identity: `event_name`, the group's `matcher` (none for
//! UserPromptSubmit and Stop) and `hooks` holding the one handler with `timeout` filled in
//! (600 s; SessionEnd 1–3 s), `async` (false) and no unset field. From codex-rs
//! `hooks/src/engine/discovery.rs` (`command_hook_hash`, `hook_key`) and
//! `config/src/fingerprint.rs` (`version_for_toml`); checked against the hashes the real
//! Codex reports (`codex app-server`'s `hooks/list`, `currentHash`) in the real-client suite.
//! A project's `.codex/` is read at all only for a trusted project
//! (`[projects."<path>"] trust_level = "trusted"`). `[features] hooks = false` switches hooks
//! off; `allow_managed_hooks_only` in the `requirements.toml` beside the system `hooks.json`
//! runs managed hooks only.

use super::{toml_file, Finding, Steps};
use crate::install::json::Json;
use crate::install::runtimes::{self, Places, Runtime, Scope};
use crate::install::{parse_toml, read, Edit, Role};
use hookhost_types::ids::sha256_hex;
use std::path::{Path, PathBuf};

pub(super) struct Codex;

/// Codex's `config.toml`, in its home (`$CODEX_HOME`, else `~/.codex`).
fn config(places: &Places) -> PathBuf {
    runtimes::codex_home(places).join("config.toml")
}

impl Steps for Codex {
    fn managed_only_setting(&self) -> Option<&'static str> {
        Some("allow_managed_hooks_only")
    }

    fn allow_managed_hooks_only(&self, hooks_path: &Path, _doc: &mut Json, _hooks_added: &mut Vec<String>, notes: &mut Vec<String>) -> Result<Option<Edit>, String> {
        // Codex's requirements beside its system hooks.json: only managed hooks are
        // discovered (checked with Codex 0.169's hooks/list: a project's hooks are not listed).
        let path = hooks_path.with_file_name("requirements.toml");
        let before = read(&path)?;
        let mut req = parse_toml(&path, before.as_deref())?;
        if req.get("allow_managed_hooks_only").and_then(|v| v.as_bool()) == Some(true) {
            return Ok(None);
        }
        req.insert("allow_managed_hooks_only", toml_edit::value(true));
        notes.push("Codex runs only managed hooks from now on: no user or project hooks.json adds to them".into());
        Ok(Some(Edit { path, before, after: req.to_string(), role: Role::ManagedOnly, added: vec!["allow_managed_hooks_only".to_string()] }))
    }

    fn trust(&self, hooks_path: &Path, doc: &Json, places: &Places, project: Option<&Path>, notes: &mut Vec<String>) -> Result<Option<Edit>, String> {
        let path = config(places);
        let before = read(&path)?;
        let mut cfg = parse_toml(&path, before.as_deref())?;
        let entries = entries(hooks_path, doc);
        let (added, warnings) = trust(&mut cfg, &entries, project).map_err(|e| format!("{}: {e}", path.display()))?;
        notes.extend(warnings);
        if added.iter().any(|a| a.starts_with("state:")) {
            notes.push(format!("trust: Codex will run hookhost's {} hooks of {} (their trusted_hash under [hooks.state] in {}; Codex asks again if they change)", entries.len(), hooks_path.display(), path.display()));
        }
        if let Some(p) = added.iter().find_map(|a| a.strip_prefix("project:")) {
            notes.push(format!("trust: Codex will read the project {p}'s .codex/ files (trust_level = \"trusted\" in {})", path.display()));
        }
        Ok((!added.is_empty()).then(|| Edit { path, before, after: cfg.to_string(), role: Role::Trust, added }))
    }

    fn undo(&self, role: Role, path: &Path, current: &str, added: &[String]) -> Result<String, String> {
        let mut doc = parse_toml(path, Some(current))?;
        match role {
            Role::Trust => untrust(&mut doc, added),
            Role::ManagedOnly => {
                for key in added {
                    doc.remove(key);
                }
            }
            Role::Hooks | Role::ManagedConfig | Role::McpServer => return Err(format!("{}: not a Codex trust or requirements file; nothing was changed", path.display())),
        }
        Ok(doc.to_string())
    }

    fn check_trust(&self, _runtime: Runtime, project: bool, places: &Places, file: &Path, doc: &Json, fix: &str) -> Vec<Finding> {
        let path = config(places);
        let cfg = toml_file(&path);
        let state = cfg.get("hooks").and_then(|h| h.get("state"));
        let mut stale = Vec::new();
        let entries = entries(file, doc);
        for (key, hash) in &entries {
            let t = state.and_then(|s| s.get(key));
            if t.and_then(|t| t.get("enabled")).and_then(|v| v.as_bool()) == Some(false) {
                stale.push(format!("{key} (switched off)"));
            } else if t.and_then(|t| t.get("trusted_hash")).and_then(|v| v.as_str()) != Some(hash.as_str()) {
                stale.push(key.clone());
            }
        }
        let mut out = vec![(
            "trusted",
            if stale.is_empty() {
                Ok(format!("{} hooks trusted in {}", entries.len(), path.display()))
            } else {
                Err((format!("Codex skips these hookhost hooks without a word: no current trusted_hash in {}: {}", path.display(), stale.join(", ")), fix.to_string()))
            },
        )];
        if project {
            let key = places.project.display().to_string();
            let level = cfg.get("projects").and_then(|p| p.get(&key)).and_then(|t| t.get("trust_level")).and_then(|v| v.as_str());
            out.push((
                "project trusted",
                if level == Some("trusted") {
                    Ok(format!("{key} is a trusted project"))
                } else {
                    Err((format!("Codex reads no .codex/ file of {key} (trust_level {level:?} in {})", path.display()), fix.to_string()))
                },
            ));
        }
        out
    }

    fn switched_off(&self, runtime: Runtime, places: &Places, wired_managed: bool) -> Vec<String> {
        let mut off = Vec::new();
        if wired_managed {
            // Neither switch reaches managed hooks.
            return off;
        }
        if let Ok(hooks) = runtime.hooks_file(Scope::Managed, places) {
            let req = hooks.with_file_name("requirements.toml");
            if toml_file(&req).get("allow_managed_hooks_only").and_then(|v| v.as_bool()) == Some(true) {
                off.push(format!("{} says allow_managed_hooks_only = true (only managed hooks run, and hookhost is not one)", req.display()));
            }
        }
        // Yours, and a trusted project's own .codex/config.toml (it outranks yours).
        for path in [config(places), places.project.join(".codex").join("config.toml")] {
            if toml_file(&path).get("features").and_then(|f| f.get("hooks")).and_then(|v| v.as_bool()) == Some(false) {
                off.push(format!("{} says [features] hooks = false", path.display()));
            }
        }
        off
    }

    fn probe(&self, cwd: &str) -> serde_json::Value {
        serde_json::json!({"session_id": "hookhost-doctor", "turn_id": "t", "cwd": cwd, "model": "probe", "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "rm -rf /"}})
    }

    fn denies(&self, answer: &serde_json::Value) -> bool {
        answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    }
}

/// Codex's snake_case label of an event (`PreToolUse` → `pre_tool_use`).
fn label(event: &str) -> String {
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
fn key(hooks_file: &Path, event: &str, group: usize, handler: usize) -> String {
    format!("{}:{}:{group}:{handler}", hooks_file.display(), label(event))
}

/// The hash Codex computes for a command handler in a matcher group under `event`.
fn hash(event: &str, group: &Json, handler: &Json) -> String {
    let label = label(event);
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
fn entries(hooks_file: &Path, doc: &Json) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(hooks) = doc.get("hooks") else { return out };
    for (event, items) in hooks.fields() {
        for (gi, group) in items.as_array().into_iter().flatten().enumerate() {
            for (hi, handler) in group.get("hooks").and_then(Json::as_array).into_iter().flatten().enumerate() {
                if crate::install::runtimes::is_ours(handler) {
                    out.push((key(hooks_file, event, gi, hi), hash(event, group, handler)));
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
fn trust(doc: &mut toml_edit::DocumentMut, entries: &[(String, String)], project: Option<&Path>) -> Result<(Vec<String>, Vec<String>), String> {
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

/// Undo what [`trust`] added (`added` as it returned it).
fn untrust(doc: &mut toml_edit::DocumentMut, added: &[String]) {
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

#[cfg(test)]
mod tests {
    use super::*;

    // Hashes the real Codex 0.169.0 reported (`codex app-server`, `hooks/list`, `currentHash`)
    // for these two entries of a project's .codex/hooks.json.
    #[test]
    fn codex_hashes_as_codex_does() {
        let group = Json::parse(r#"{"matcher": "Bash", "hooks": [{"type": "command", "command": "hookhost run --output codex"}]}"#).unwrap();
        let h = &group.get("hooks").unwrap().as_array().unwrap()[0];
        assert_eq!(hash("PreToolUse", &group, h), "sha256:9f980ca280d4c2ce93414592349cab73571421a0e916803e7d58fcb31772bdad");
        let group = Json::parse(r#"{"hooks": [{"type": "command", "command": "hookhost run --output codex", "timeout": 30, "statusMessage": "x"}]}"#).unwrap();
        let h = &group.get("hooks").unwrap().as_array().unwrap()[0];
        assert_eq!(hash("Stop", &group, h), "sha256:7247abfbf8d7a61b121ee995a9176ff713899e0774e2e4b34e48112d5cdfeca7");
        assert_eq!(key(Path::new("/p/.codex/hooks.json"), "PreToolUse", 0, 1), "/p/.codex/hooks.json:pre_tool_use:0:1");
    }

    #[test]
    fn codex_trust_is_added_and_taken_back_exactly() {
        let text = "# mine\nmodel = \"x\"\n\n[projects.\"/other\"]\ntrust_level = \"trusted\"\n";
        let mut doc: toml_edit::DocumentMut = text.parse().unwrap();
        let entries = vec![("/p/.codex/hooks.json:stop:0:0".to_string(), "sha256:ab".to_string())];
        let (added, warnings) = trust(&mut doc, &entries, Some(Path::new("/p"))).unwrap();
        assert!(warnings.is_empty());
        assert_eq!(added, ["state:/p/.codex/hooks.json:stop:0:0", "project:/p"]);
        let written = doc.to_string();
        assert!(written.starts_with(text), "{written}");
        assert!(written.contains("[hooks.state.\"/p/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:ab\""), "{written}");
        // A second time: nothing to add.
        assert_eq!(trust(&mut doc, &entries, Some(Path::new("/p"))).unwrap().0, Vec::<String>::new());
        untrust(&mut doc, &added);
        assert_eq!(doc.to_string(), text);
    }
}
