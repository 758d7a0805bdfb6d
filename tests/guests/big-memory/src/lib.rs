//! An ordinary hook whose module declares a 1 GiB initial linear memory.

use hookhost_sdk::prelude::*;

struct Big;

impl Hook for Big {
    fn handle(_event: Event, _ctx: Context) -> HookResult {
        Ok(Decision::allow())
    }
}

export_hook!(Big);
