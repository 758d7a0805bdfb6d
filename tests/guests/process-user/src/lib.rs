//! A third-party-style plugin that imports `hookhost:hooks/process`: it runs `echo` on the host
//! and returns what it printed as added context. It loads only where `process:exec` is granted.

use hookhost_sdk::prelude::*;
use hookhost_sdk::process;

struct ProcessUser;

impl Hook for ProcessUser {
    fn handle(_event: Event, _ctx: Context) -> HookResult {
        let out = process::run(process::Command { argv: vec!["echo".into(), "from the host".into()], timeout_ms: 2000, ..Default::default() })?;
        Ok(Decision::pass().add_context(String::from_utf8_lossy(&out.stdout).trim().to_string()))
    }
}

export_hook!(ProcessUser);
