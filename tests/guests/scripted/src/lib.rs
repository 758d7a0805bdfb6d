//! Returns the decision its settings describe — the wasm twin of a shell hook that echoes a
//! fixed JSON decision (Everruns' guard_rm example). Settings:
//! `{"verdict": "pass|allow|ask|block|halt", "reason", "user_message",
//!   "append_to_command": " --flag", "add_context": "...", "rewrite_output": <json>,
//!   "rewrite_prompt": "...", "replace_in_command": ["from", "to"], "fail": "message"}`

use hookhost_sdk::prelude::*;

fn text<'a>(s: &'a Value, key: &str) -> Option<&'a str> {
    s.get(key).and_then(Value::as_str)
}

struct Scripted;

impl Hook for Scripted {
    fn validate_settings(s: &Value) -> Result<(), String> {
        match text(s, "verdict") {
            None | Some("pass" | "allow" | "ask" | "block" | "halt") => Ok(()),
            Some(other) => Err(format!("settings.verdict {other:?} is not one of pass, allow, ask, block, halt")),
        }
    }

    fn handle(event: Event, ctx: Context) -> HookResult {
        let s = &ctx.settings;
        if let Some(msg) = text(s, "fail") {
            return Err(msg.to_string());
        }
        let reason = text(s, "reason").unwrap_or("scripted").to_string();
        let mut d = match text(s, "verdict").unwrap_or("pass") {
            "allow" => Decision::allow_because(reason),
            "ask" => Decision::ask(reason),
            "block" => Decision::block(reason),
            "halt" => Decision::halt(reason),
            _ => Decision::pass(),
        };
        if let Some(m) = text(s, "user_message") {
            d = d.with_user_message(m);
        }
        if let (Some(suffix), Some(call)) = (text(s, "append_to_command"), event.tool_call()) {
            let mut args = call.arguments.clone();
            let cmd = args.get("command").and_then(Value::as_str).unwrap_or("").to_string();
            args["command"] = Value::String(cmd + suffix);
            d = d.rewrite_input(args);
        }
        if let (Some([from, to]), Some(call)) = (s.get("replace_in_command").and_then(Value::as_array).map(Vec::as_slice), event.tool_call()) {
            let mut args = call.arguments.clone();
            let cmd = args.get("command").and_then(Value::as_str).unwrap_or("").to_string();
            args["command"] = Value::String(cmd.replace(from.as_str().unwrap_or(""), to.as_str().unwrap_or("")));
            d = d.rewrite_input(args);
        }
        if let Some(c) = text(s, "add_context") {
            d = d.add_context(c);
        }
        if let Some(out) = s.get("rewrite_output") {
            d = d.rewrite_output(out.clone());
        }
        if let Some(p) = text(s, "rewrite_prompt") {
            d = d.rewrite_prompt(p);
        }
        Ok(d)
    }
}

export_hook!(Scripted);
