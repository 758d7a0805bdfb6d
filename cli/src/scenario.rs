//! `hookhost test`: scenario files — each scenario an event and the outcome expected of it —
//! run against a config or a single plugin; a pass/fail table (or JSON), non-zero exit on any
//! mismatch.
//!
//! A scenario file is TOML (or JSON with a `.json` extension):
//!
//! ```toml
//! [[scenario]]
//! name = "rm -rf is blocked"
//! event = { event = "pre_tool_use", data = { tool_name = "bash", arguments = { command = "rm -rf /" } } }
//! expect = { decision = "block", reason_contains = "recursive delete" }
//! ```
//!
//! `event` is any event `hookhost run` reads (the canonical envelope or a runtime's flat shape).

use anyhow::Result;
use hookhost::{HookEvent, Host, Outcome};
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// One scenario file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    scenario: Vec<Scenario>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    name: Option<String>,
    event: Value,
    /// Session state to set before the event, for every plugin of its hooks that keeps state:
    /// `{ key = "value" }`.
    #[serde(default)]
    state: std::collections::BTreeMap<String, String>,
    expect: Expect,
}

/// What the outcome must show; every field given is checked, absent ones are not.
#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub(crate) struct Expect {
    /// `pass`, `allow`, `ask`, `block` or `halt`.
    decision: Option<String>,
    /// A substring of the reason.
    reason_contains: Option<String>,
    /// A substring of the message for the human.
    user_message_contains: Option<String>,
    /// The payload after every rewrite, exactly (`{"arguments": {...}}`, `{"message": "..."}`);
    /// `false`: nothing may be rewritten.
    patch: Option<Value>,
    /// A substring of an added context.
    context_contains: Option<String>,
    /// Session state after the event, for every plugin of its hooks that keeps state: each key
    /// given must hold that value, or (`false`) not be set.
    state: Option<std::collections::BTreeMap<String, StateWant>>,
}

/// What a key of `expect.state` must hold.
#[derive(Deserialize, Clone, Debug, PartialEq)]
#[serde(untagged)]
pub(crate) enum StateWant {
    /// Exactly this value.
    Value(String),
    /// `false`: not set.
    Unset(bool),
}

const DECISIONS: [&str; 5] = ["pass", "allow", "ask", "block", "halt"];

/// A scenario loaded from a file, its event parsed.
pub(crate) struct Loaded {
    pub file: PathBuf,
    pub name: String,
    pub event: HookEvent,
    pub state: std::collections::BTreeMap<String, String>,
    pub expect: Expect,
}

/// Read every scenario of `files`. One message naming the file, the scenario and the fix for
/// anything malformed; nothing runs then.
pub(crate) fn load(files: &[PathBuf]) -> Result<Vec<Loaded>, String> {
    let mut all = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read the scenario file {}: {e}", path.display()))?;
        let file: File = if path.extension().is_some_and(|e| e == "json") {
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?
        } else {
            toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.to_string().trim_end()))?
        };
        if file.scenario.is_empty() {
            return Err(format!("{}: no scenarios; add [[scenario]] tables with `event` and `expect`", path.display()));
        }
        for (i, s) in file.scenario.into_iter().enumerate() {
            let name = s.name.unwrap_or_else(|| format!("scenario {}", i + 1));
            let at = format!("{}: {name:?}", path.display());
            if let Some(d) = &s.expect.decision {
                if !DECISIONS.contains(&d.as_str()) {
                    return Err(format!("{at}: expect.decision {d:?} is not one of {}", DECISIONS.join(", ")));
                }
            }
            let e = &s.expect;
            if e.decision.is_none() && e.reason_contains.is_none() && e.user_message_contains.is_none() && e.patch.is_none() && e.context_contains.is_none() && e.state.is_none() {
                return Err(format!("{at}: expect checks nothing; give decision, reason_contains, user_message_contains, patch, context_contains or state"));
            }
            if let Some(bad) = e.state.iter().flatten().find(|(_, w)| **w == StateWant::Unset(true)) {
                return Err(format!("{at}: expect.state.{}: give the value it must hold, or false for not set", bad.0));
            }
            let event = HookEvent::from_value(s.event).map_err(|e| format!("{at}: event: {e}"))?;
            all.push(Loaded { file: path.clone(), name, event, state: s.state, expect: s.expect });
        }
    }
    Ok(all)
}

/// What a scenario found.
pub(crate) struct Checked {
    pub mismatches: Vec<String>,
    pub outcome: Outcome,
    /// Each state-keeping plugin's session state after the event: `{plugin: {key: value}}`.
    pub state: Value,
}

/// Seed the scenario's state, dispatch its event, read the state back and compare.
pub(crate) async fn run(host: &Host, s: &Loaded) -> Checked {
    let scopes = host.state_scopes(&s.event);
    let store = host.state_store();
    let mut mismatches = Vec::new();
    if !s.state.is_empty() && scopes.is_empty() {
        mismatches.push("state: no hook of this event keeps state (its plugin does not import hookhost:hooks/state)".to_string());
    }
    for (_, scope) in &scopes {
        for (key, value) in &s.state {
            if let Err(e) = store.set(scope, key, value, None, None) {
                mismatches.push(format!("state: cannot set {key:?}: {e}"));
            }
        }
    }
    let outcome = host.dispatch(&s.event).await;
    let mut after = serde_json::Map::new();
    for (plugin, scope) in &scopes {
        let entries = store.entries(scope).unwrap_or_default();
        after.insert(plugin.clone(), Value::Object(entries.into_iter().map(|(k, v)| (k, Value::String(v))).collect()));
    }
    let state = Value::Object(after);
    mismatches.extend(check(&s.expect, &serde_json::to_value(&outcome).unwrap_or(Value::Null)));
    mismatches.extend(check_state(&s.expect, &state));
    Checked { mismatches, outcome, state }
}

/// Every way the state after the event (`{plugin: {key: value}}`) differs from `expect.state`.
fn check_state(expect: &Expect, state: &Value) -> Vec<String> {
    let Some(want) = &expect.state else { return Vec::new() };
    let plugins = state.as_object().cloned().unwrap_or_default();
    if plugins.is_empty() {
        return vec!["state: no hook of this event keeps state (its plugin does not import hookhost:hooks/state)".to_string()];
    }
    let mut out = Vec::new();
    for (plugin, values) in &plugins {
        for (key, w) in want {
            let got = values.get(key).and_then(Value::as_str);
            match (w, got) {
                (StateWant::Value(v), Some(g)) if v == g => {}
                (StateWant::Unset(false), None) => {}
                (StateWant::Value(v), g) => out.push(format!("state of {plugin}: {key:?} expected {v:?}, got {}", g.map_or("not set".to_string(), |g| format!("{g:?}")))),
                (_, g) => out.push(format!("state of {plugin}: {key:?} expected not set, got {}", g.map_or("not set".to_string(), |g| format!("{g:?}")))),
            }
        }
    }
    out
}

/// Every way `outcome` (hookhost's outcome JSON) differs from `expect`.
pub(crate) fn check(expect: &Expect, outcome: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let text = |key: &str| outcome.get(key).and_then(Value::as_str).unwrap_or("").to_string();
    if let Some(d) = &expect.decision {
        if outcome["decision"] != json!(d) {
            out.push(format!("decision: expected {d}, got {}", outcome["decision"].as_str().unwrap_or("?")));
        }
    }
    for (key, want) in [("reason", &expect.reason_contains), ("user_message", &expect.user_message_contains)] {
        if let Some(want) = want {
            let got = text(key);
            if !got.contains(want.as_str()) {
                out.push(format!("{key}: expected it to contain {want:?}, got {got:?}"));
            }
        }
    }
    if let Some(want) = &expect.patch {
        let got = outcome.get("patch").cloned().unwrap_or(Value::Null);
        let ok = match want {
            Value::Bool(false) => got.is_null(),
            _ => &got == want,
        };
        if !ok {
            out.push(format!("patch: expected {want}, got {}", if got.is_null() { "no rewrite".to_string() } else { got.to_string() }));
        }
    }
    if let Some(want) = &expect.context_contains {
        let contexts: Vec<&str> = outcome["effects"].as_array().into_iter().flatten().filter(|e| e["type"] == "add_context").filter_map(|e| e["text"].as_str()).collect();
        if !contexts.iter().any(|c| c.contains(want.as_str())) {
            out.push(format!("context: expected one containing {want:?}, got {contexts:?}"));
        }
    }
    // Why a mismatch happened, when a hook failed (its on_error decided).
    if !out.is_empty() {
        for h in outcome["hooks"].as_array().into_iter().flatten() {
            if let Some(e) = h["error"].as_str() {
                out.push(format!("hook {} failed: {e}", h["id"].as_str().unwrap_or("?")));
            }
        }
    }
    out
}

/// A config that runs `plugin` (with `settings`) as the only hook on each of `events`.
pub(crate) fn plugin_config(plugin: &Path, settings: &Value, events: &[String]) -> Result<hookhost::ConfigFile, String> {
    let plugin = std::fs::canonicalize(plugin).map_err(|e| format!("--plugin {}: {e}", plugin.display()))?;
    let mut events = events.to_vec();
    events.sort();
    events.dedup();
    let hooks: Vec<Value> = events
        .iter()
        .enumerate()
        .map(|(i, e)| json!({"id": format!("under_test_{i}"), "event": e, "executor": {"plugin": plugin, "settings": settings}, "on_error": "block"}))
        .collect();
    let text = json!({ "hooks": hooks }).to_string();
    hookhost::ConfigFile::parse(&text, Path::new("<hookhost test --plugin>.json"), Path::new(".")).map_err(|e| e.to_string())
}

/// The pass/fail table.
pub(crate) fn table(rows: &[(&Loaded, &Checked)]) -> String {
    let mut out = String::new();
    let name_w = rows.iter().map(|(s, _)| s.name.chars().count()).max().unwrap_or(8).clamp(8, 48);
    out.push_str(&format!("{:<name_w$}  {:<20}  {:<8}  {:<8}  result\n", "scenario", "event", "expected", "got"));
    for (s, r) in rows {
        let name: String = s.name.chars().take(name_w).collect();
        let expected = s.expect.decision.as_deref().unwrap_or("-");
        let got = serde_json::to_value(r.outcome.decision).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        // One line a row, whatever a hook's error text holds (a stack trace, say).
        let result = if r.mismatches.is_empty() { "ok".to_string() } else { format!("FAIL: {}", r.mismatches.join("; ")).lines().map(str::trim_end).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" | ") };
        out.push_str(&format!("{name:<name_w$}  {:<20}  {expected:<8}  {got:<8}  {result}\n", s.event.name.config_name()));
        // The session state it left, for the plugins that keep any.
        for (plugin, values) in r.state.as_object().into_iter().flatten() {
            let pairs: Vec<String> = values.as_object().into_iter().flatten().map(|(k, v)| format!("{k}={}", cut(v.as_str().unwrap_or_default()))).collect();
            if !pairs.is_empty() {
                let line = format!("  state of {plugin}: {}", pairs.join(", "));
                out.push_str(&hookhost::printable(&line));
                out.push('\n');
            }
        }
    }
    let failed = rows.iter().filter(|(_, r)| !r.mismatches.is_empty()).count();
    out.push_str(&format!("\n{} passed, {failed} failed\n", rows.len() - failed));
    out
}

/// A value as the table shows it: 60 characters at most.
fn cut(v: &str) -> String {
    match v.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &v[..i]),
        None => v.to_string(),
    }
}

/// The report as JSON, for CI.
pub(crate) fn json_report(rows: &[(&Loaded, &Checked)]) -> Value {
    let failed = rows.iter().filter(|(_, r)| !r.mismatches.is_empty()).count();
    json!({
        "passed": rows.len() - failed,
        "failed": failed,
        "scenarios": rows.iter().map(|(s, r)| json!({
            "file": s.file,
            "name": s.name,
            "event": s.event.name.config_name(),
            "ok": r.mismatches.is_empty(),
            "mismatches": r.mismatches,
            "outcome": r.outcome,
            "state": r.state,
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(v: Value) -> Expect {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn expected_state_is_checked_per_plugin() {
        let want = expect(json!({"state": {"n": "2", "gone": false}}));
        assert!(check_state(&want, &json!({"p.wasm": {"n": "2"}})).is_empty());
        assert_eq!(check_state(&want, &json!({"p.wasm": {"n": "3", "gone": "x"}})), ["state of p.wasm: \"gone\" expected not set, got \"x\"", "state of p.wasm: \"n\" expected \"2\", got \"3\""]);
        assert_eq!(check_state(&want, &json!({})), ["state: no hook of this event keeps state (its plugin does not import hookhost:hooks/state)"]);
        assert!(check_state(&expect(json!({"decision": "pass"})), &json!({})).is_empty(), "nothing asked of state");
    }

    #[test]
    fn each_expectation_is_checked_and_each_mismatch_said() {
        let outcome = json!({"decision": "block", "reason": "destructive command blocked: rm", "user_message": "No.", "effects": [{"type": "add_context", "text": "it is Monday"}], "patch": {"arguments": {"command": "ls"}}, "hooks": []});
        assert!(check(&expect(json!({"decision": "block", "reason_contains": "destructive", "user_message_contains": "No", "context_contains": "Monday", "patch": {"arguments": {"command": "ls"}}})), &outcome).is_empty());
        assert_eq!(check(&expect(json!({"decision": "pass"})), &outcome), vec!["decision: expected pass, got block"]);
        assert_eq!(check(&expect(json!({"reason_contains": "secret"})), &outcome), vec!["reason: expected it to contain \"secret\", got \"destructive command blocked: rm\""]);
        assert_eq!(check(&expect(json!({"patch": false})), &outcome), vec!["patch: expected false, got {\"arguments\":{\"command\":\"ls\"}}"]);
        assert_eq!(check(&expect(json!({"context_contains": "Tuesday"})), &outcome), vec!["context: expected one containing \"Tuesday\", got [\"it is Monday\"]"]);
        let failed = json!({"decision": "block", "effects": [], "hooks": [{"id": "user:h", "error": "trap: unreachable"}]});
        assert_eq!(check(&expect(json!({"decision": "pass"})), &failed), vec!["decision: expected pass, got block", "hook user:h failed: trap: unreachable"]);
    }
}
