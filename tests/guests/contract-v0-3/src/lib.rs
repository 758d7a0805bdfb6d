//! A `hookhost:hooks@0.3.0` hook that remembers (`state`, new in 0.3.0):
//! - a tool call counts itself (`incr("calls")`) and blocks when its command is the one the
//!   previous call of this session ran ("repeated: CMD (call N)"); else it passes, annotated
//!   with the count;
//! - a prompt `keys` blocks with this hook's keys in the session, `big` tries a value over the
//!   host's 64 KiB bound and blocks with the error it got, `forget` deletes the last command,
//!   `ttl` keeps a value for one second; any other prompt passes.
//! A store the host cannot reach is the hook's error (its `on_error` decides).

wit_bindgen::generate!({ path: "../../../wit/0.3.0", world: "hook" });

use exports::hookhost::hooks::handler::{Context, Decision, Event, Guest};
use hookhost::hooks::state::{self, StateError};
use hookhost::hooks::types::{BlockInfo, Effect, Verdict};

struct V03;

fn text(e: StateError) -> String {
    match e {
        StateError::Quota(m) => format!("quota: {m}"),
        StateError::Invalid(m) => format!("invalid: {m}"),
        StateError::Unavailable(m) => format!("unavailable: {m}"),
    }
}

fn block(reason: String) -> Decision {
    Decision { verdict: Verdict::Block(BlockInfo { reason: Some(reason), user_message: None }), effects: Vec::new() }
}

fn pass() -> Decision {
    Decision { verdict: Verdict::Pass, effects: Vec::new() }
}

impl Guest for V03 {
    fn validate_settings(_settings: String) -> Result<(), String> {
        Ok(())
    }

    fn handle(event: Event, _ctx: Context) -> Result<Decision, String> {
        match event {
            Event::PreToolUse(call) => {
                // The command, found without a JSON parser: `"command":"..."` (the tests send plain ones).
                let cmd = call.arguments.split("\"command\":\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap_or(&call.name).to_string();
                let n = state::incr("calls", 1, None).map_err(text)?;
                let previous = state::get("last").map_err(text)?;
                state::set("last", &cmd, None).map_err(text)?;
                if previous.as_deref() == Some(cmd.as_str()) {
                    return Ok(block(format!("repeated: {cmd} (call {n})")));
                }
                Ok(Decision { verdict: Verdict::Pass, effects: vec![Effect::Annotate(vec![("calls".into(), n.to_string())])] })
            }
            Event::UserPromptSubmit(p) => match p.message.as_str() {
                "keys" => Ok(block(format!("keys: {}", state::keys("").map_err(text)?.join(",")))),
                "big" => match state::set("big", &"x".repeat(70 * 1024), None) {
                    Ok(()) => Ok(block("the host took a 70 KiB value".into())),
                    Err(e) => Ok(block(text(e))),
                },
                "forget" => {
                    state::delete("last").map_err(text)?;
                    Ok(pass())
                }
                "ttl" => {
                    state::set("short", "1", Some(1)).map_err(text)?;
                    Ok(pass())
                }
                _ => Ok(pass()),
            },
            _ => Ok(pass()),
        }
    }
}

export!(V03);
