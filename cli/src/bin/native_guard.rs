//! `hookhost-native-guard`: the guard-destructive policy as a plain native program with the
//! Claude Code hook contract (event JSON on stdin; exit 2 with the reason on stderr blocks).
//!
//! `hookhost bench` spawns it once per call: the "native binary per call" baseline, running the
//! very code the wasm plugin runs, so the comparison isolates the cost of a process.

use serde_json::Value;
use std::io::Read;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut input = String::new();
    if let Err(e) = std::io::stdin().read_to_string(&mut input) {
        eprintln!("hookhost-native-guard: cannot read the event from stdin: {e}");
        return ExitCode::from(1);
    }
    let event: Value = match serde_json::from_str(&input) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("hookhost-native-guard: stdin is not JSON: {e}");
            return ExitCode::from(1);
        }
    };
    let Some(command) = event.pointer("/tool_input/command").and_then(Value::as_str) else { return ExitCode::SUCCESS };
    match guard_destructive::check(command, false) {
        Some(why) => {
            eprintln!("destructive command blocked: {why}");
            ExitCode::from(2)
        }
        None => ExitCode::SUCCESS,
    }
}
