//! Loops forever in `_initialize`, which wit-component runs as the component's start: every
//! instantiation spins before any export can be called.

use hookhost_sdk::prelude::*;

#[no_mangle]
pub extern "C" fn _initialize() {
    let mut x: u64 = 0;
    loop {
        x = std::hint::black_box(x.wrapping_add(1));
    }
}

struct Never;

impl Hook for Never {
    fn handle(_event: Event, _ctx: Context) -> HookResult {
        Ok(Decision::allow())
    }
}

export_hook!(Never);
