//! A `hookhost:hooks@0.2.0` hook: blocks every tool call, naming the runtime that sent it
//! (`context.runtime`, new in 0.2.0), and logs through 0.2.0's `log`.

wit_bindgen::generate!({ path: "../../../wit/0.2.0", world: "hook" });

use exports::hookhost::hooks::handler::{Context, Decision, Event, Guest};
use hookhost::hooks::types::{BlockInfo, Verdict};

struct V02;

impl Guest for V02 {
    fn validate_settings(_settings: String) -> Result<(), String> {
        Ok(())
    }

    fn handle(event: Event, ctx: Context) -> Result<Decision, String> {
        let runtime = ctx.runtime.unwrap_or_else(|| "no runtime".into());
        hookhost::hooks::log::log(hookhost::hooks::log::Level::Info, &format!("called by {runtime}"));
        let verdict = match event {
            Event::PreToolUse(call) => Verdict::Block(BlockInfo { reason: Some(format!("{} sent by {runtime}", call.name)), user_message: None }),
            _ => Verdict::Pass,
        };
        Ok(Decision { verdict, effects: Vec::new() })
    }
}

export!(V02);
