//! Google's Antigravity CLI (`agy`, the successor of Gemini CLI), written from what its users
//! measured — its hooks documentation ships inside the closed-source binary
//! (`agy-customizations/docs/hooks.md`), which nothing here can read:
//! - its hooks file, `hooks.json` in a customization root — `~/.gemini/config/` for the user,
//!   `.agents/` in a project (both read) — holds `{"hooks": {Event: …}}` (websentry-ai/setup
//!   pull request 104, measured on agy 1.0.5); from 1.1 every top-level key names a hook, so
//!   the same file is one named hook called `hooks` (skillsaw's `antigravity-hooks-valid` rule,
//!   measured on agy 1.1.25; safe-chains' `HARNESS-BEHAVIORS.md`, live on 1.1.2). `PreToolUse` /
//!   `PostToolUse` hold matcher groups (`""` and `"*"` match every tool), the other events the
//!   handlers themselves; a file it cannot load is dropped whole, with one line in its debug
//!   log;
//! - its hook input is camelCase protojson naming no event: `conversationId`, `stepIdx`,
//!   `toolCall` (`name`: `run_command`, `view_file`, `write_to_file`, …; `args` in PascalCase,
//!   the shell command in `CommandLine`), `workspacePaths`, `transcriptPath`; after a tool,
//!   `error` too;
//! - its answer: `{"decision": "allow" | "deny" | "ask" | "force_ask", "reason": …}` on stdout.
//!   `deny` blocks the call and the model is told the reason; `force_ask` asks the person even
//!   where they chose "always allow"; `allow` does not skip its own confirmation (1.1.2); no
//!   decision at all leaves it to its own permission flow (it asks).
//!
//! Only `PreToolUse` is shown to run in every version measured (agy 1.0.5 parsed
//! `PreInvocation` / `PostInvocation` / `Stop` and never ran them), and no field to rewrite a
//! tool's input or output is known: install wires `PreToolUse` alone, and a call hookhost would
//! let through only rewritten is blocked. No real-client proof: agy is not installable here.

use super::{event, Answer, CamelReader, Install, Layout, Managed, MatchOn as On, Naming, Payload, Profile, Rewrite, Runtime};
use crate::event::EventName as E;
use serde_json::{Map, Value};

pub(super) const PROFILE: Profile = Profile {
    name: "antigravity",
    title: "Antigravity CLI",
    // agy's own reference (`agy-customizations/docs/hooks.md`) is in its binary: this is the
    // public, measured account of its hooks file (the module's comment names the others).
    reference: "https://github.com/stbenjam/skillsaw/blob/main/docs/rules/antigravity-hooks-valid.md",
    events: &[
        event("PreToolUse", Some(E::PreToolUse), On::Tool),
        event("PostToolUse", Some(E::PostToolUse), On::Tool),
        event("PreInvocation", None, On::Nothing),
        event("PostInvocation", None, On::Nothing),
        event("Stop", Some(E::Stop), On::Nothing),
        event("SessionStart", Some(E::SessionStart), On::Nothing),
    ],
    naming: Naming::Pascal,
    config_dir: Some(".agents"),
    config_files: &[".agents/hooks.json", "~/.gemini/config/hooks.json"],
    config_syntax: Some(Runtime::Antigravity),
    dialect: Runtime::Antigravity,
    payload: Payload::Camel(CamelReader { infer, normalise }),
    // No decision leaves the call to agy's own flow, which asks: hookhost's pass says nothing.
    // An error that must not block is exit 1 with nothing on stdout (agy then asks as well).
    answer: Some(Answer { soft_error_exit: 1, nothing: "", input_before_tool: false, input_on_permission: Rewrite::No, prompt_rewrite: false }),
    project_hooks: None,
    install: Some(Install {
        program: "agy",
        home: ".gemini/config",
        home_vars: &[],
        user_file: "hooks.json",
        project_file: Ok(".agents/hooks.json"),
        managed: Managed { unix: Err(NO_MANAGED), macos: Err(NO_MANAGED), windows: Err(NO_MANAGED) },
        // `""`: every tool, in 1.0 as in 1.1.
        events: &[("PreToolUse", Some(""))],
        layout: Layout::MatcherGroups,
        http: Err(COMMANDS),
        mcp: Err(COMMANDS),
    }),
};

// (Short: the built-in guard links every profile, and its data must fit its three pages.)
const NO_MANAGED: &str = "Antigravity CLI has no managed hooks file known: wire it per user or per project";
const COMMANDS: &str = "Antigravity CLI hooks are commands: use --wiring send or command";

/// The event a payload's fields say it is: a tool call before it runs, or after (`error`).
fn infer(obj: &Map<String, Value>) -> Option<&'static str> {
    if !obj.contains_key("conversationId") {
        return None;
    }
    match (obj.contains_key("toolCall"), obj.contains_key("error")) {
        (true, false) => Some("PreToolUse"),
        (_, true) => Some("PostToolUse"),
        _ => None,
    }
}

/// The payload in hookhost's field names: `conversationId` → `session_id`, `toolCall.name` →
/// `tool_name`, `toolCall.args` → `arguments` (its `CommandLine` as `command`, the name every
/// shell rule reads), `workspacePaths[0]` → `cwd`, every other key in snake_case.
fn normalise(obj: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in obj {
        match key.as_str() {
            "conversationId" => {
                out.insert("session_id".into(), value);
            }
            "toolCall" => {
                let Value::Object(call) = value else { continue };
                if let Some(name) = call.get("name") {
                    out.insert("tool_name".into(), name.clone());
                }
                if let Some(args) = call.get("args") {
                    let mut args = args.clone();
                    if let Some(obj) = args.as_object_mut().filter(|o| !o.contains_key("command")) {
                        if let Some(line) = obj.remove("CommandLine") {
                            obj.insert("command".into(), line);
                        }
                    }
                    out.insert("arguments".into(), args);
                }
            }
            "workspacePaths" => {
                if let Some(first) = value.as_array().and_then(|a| a.first()).filter(|v| v.is_string()) {
                    out.insert("cwd".into(), first.clone());
                }
                out.insert("workspace_paths".into(), value);
            }
            "error" => {
                out.insert("is_error".into(), (!value.is_null() && value != "").into());
                out.insert("error".into(), value);
            }
            other => {
                out.insert(super::snake(other), value);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn its_payload_reads_in_hookhosts_names() {
        let payload = json!({"conversationId": "c1", "stepIdx": 3, "toolCall": {"name": "run_command", "args": {"CommandLine": "rm -rf /", "Cwd": "/w"}}, "workspacePaths": ["/w", "/v"], "transcriptPath": "/t.jsonl"});
        let obj = payload.as_object().unwrap().clone();
        assert_eq!(infer(&obj), Some("PreToolUse"));
        let out = normalise(obj);
        assert_eq!(out["session_id"], "c1");
        assert_eq!(out["tool_name"], "run_command");
        assert_eq!(out["arguments"], json!({"command": "rm -rf /", "Cwd": "/w"}));
        assert_eq!(out["cwd"], "/w");
        assert_eq!(out["step_idx"], 3);
        assert_eq!(out["transcript_path"], "/t.jsonl");
        let after = json!({"conversationId": "c1", "toolCall": null, "error": "exit status 1"});
        assert_eq!(infer(after.as_object().unwrap()), Some("PostToolUse"));
        assert_eq!(normalise(after.as_object().unwrap().clone())["is_error"], true);
        assert_eq!(infer(json!({"toolCall": {}}).as_object().unwrap()), None, "not agy's without its conversation");
    }
}
