// Shared by `remember` (REMEMBER = true) and `remember-not` (false).
use hookhost_sdk::prelude::*;
use hookhost_sdk::state;

struct Remember;

impl Hook for Remember {
    fn handle(event: Event, _ctx: Context) -> HookResult {
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
