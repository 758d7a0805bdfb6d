//! A lean hook that exercises what that build changes: its heap (an arena in the initial memory,
//! then `memory.grow`) and its panics (no stderr: they reach the host through `log`).
//!
//! On `pre_tool_use` with a shell command:
//! - `panic ...`: panics with a message naming the command;
//! - `grow N`: allocates and fills N MiB (beyond the arena), then allows with the sum of bytes;
//! - `spin`: loops forever (only the wall-clock limit stops it when its fuel is ample);
//! - `rm ...`: blocks; anything else: passes.

use hookhost_sdk::prelude::*;

struct Lean;

impl Hook for Lean {
    fn handle(event: Event, _ctx: Context) -> HookResult {
        let Some(cmd) = event.shell_command() else { return Ok(Decision::pass()) };
        let mut words = cmd.split_whitespace();
        match words.next() {
            Some("panic") => panic!("lean guest panicked on purpose: {cmd}"),
            Some("grow") => {
                let mib: usize = words.next().and_then(|w| w.parse().ok()).ok_or("grow needs a size in MiB")?;
                let blocks: Vec<Vec<u8>> = (0..mib).map(|i| vec![(i % 251) as u8 + 1; 1 << 20]).collect();
                let sum: u64 = blocks.iter().map(|b| b.iter().map(|&x| u64::from(x)).sum::<u64>()).sum();
                Ok(Decision::allow_because(format!("grew {mib} MiB, sum {sum}")))
            }
            Some("spin") => loop {
                std::hint::black_box(&cmd);
            },
            Some("rm") => Ok(Decision::block(format!("lean guest blocks: {cmd}"))),
            _ => Ok(Decision::pass()),
        }
    }
}

export_hook!(Lean);
