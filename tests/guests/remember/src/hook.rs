// Shared by `remember` (REMEMBER = true) and `remember-not` (false).
use hookhost_sdk::prelude::*;
use hookhost_sdk::state;

struct Remember;

impl Hook for Remember {
    fn handle(event: Event, _ctx: Context) -> HookResult {
        // The prompt `churn` (remember only) writes until the host stops the call: the crash
        // test kills its `hookhost run` in the middle of it.
        if let (true, Event::UserPromptSubmit { message }) = (REMEMBER, &event) {
            if message == "churn" {
                let pad = "x".repeat(1000);
                for i in 0u64.. {
                    state::incr("n", 1)?;
                    state::set(&format!("k{}", i % 50), &pad)?;
                }
            }
        }
        let Some(cmd) = event.shell_command() else { return Ok(Decision::pass()) };
        let previous = if REMEMBER {
            let previous = state::get("last")?;
            state::set("last", cmd)?;
            previous
        } else {
            None
        };
        if previous.as_deref() == Some(cmd) {
            return Ok(Decision::block(format!("again: {cmd}")));
        }
        Ok(Decision::pass())
    }
}

export_hook!(Remember);
