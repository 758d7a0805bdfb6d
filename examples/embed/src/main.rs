//! A Rust agent runtime embedding hookhost, the way Everruns would: its hooks file is read once,
//! a `Host` is built once, and each lifecycle point calls `dispatch` and applies the outcome.
//! See docs/EMBEDDING.md.

use hookhost::{ConfigFile, HookEvent, Host, Outcome, VerdictKind};
use serde_json::{json, Value};
use std::path::Path;

/// What the runtime does with a tool call after its hooks ran (Everruns' allow / mutate /
/// block).
#[derive(Debug, PartialEq)]
enum ToolCall {
    /// Run it with these arguments (rewritten when a hook mutated them).
    Run(Value),
    /// Do not run it; tell the model why.
    Refuse(String),
    /// Stop the agent.
    Stop(String),
}

fn apply_tool_outcome(outcome: &Outcome, arguments: Value) -> ToolCall {
    let reason = outcome.reason.clone().unwrap_or_default();
    match outcome.decision {
        VerdictKind::Block => ToolCall::Refuse(reason),
        VerdictKind::Halt => ToolCall::Stop(reason),
        // `ask` would prompt the user here; this runtime has no one to ask, so it refuses.
        VerdictKind::Ask => ToolCall::Refuse(format!("needs approval: {reason}")),
        VerdictKind::Pass | VerdictKind::Allow => {
            let patched = outcome.patch.as_ref().and_then(|p| p.get("arguments")).cloned();
            ToolCall::Run(patched.unwrap_or(arguments))
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = std::env::args().nth(1).unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/hooks.json").to_string());
    let config = ConfigFile::load(Path::new(&file))?;
    // One host for the life of the runtime; it is Send + Sync, share it behind an Arc.
    let host = Host::builder().config(config).build().await?;

    for command in ["rm -rf /tmp/build", "deploy production", "ls"] {
        let arguments = json!({ "command": command });
        let event = HookEvent::pre_tool_use("bash", arguments.clone());
        let outcome = host.dispatch(&event).await;
        match apply_tool_outcome(&outcome, arguments) {
            ToolCall::Run(args) => println!("pre_tool_use {command:?}: run {}", args["command"]),
            ToolCall::Refuse(why) => println!("pre_tool_use {command:?}: refused: {why}"),
            ToolCall::Stop(why) => println!("pre_tool_use {command:?}: stop the agent: {why}"),
        }
    }

    let prompt = HookEvent::from_value(json!({ "event": "user_prompt_submit", "session_id": "s1", "data": { "message": "hello" } }))?;
    let outcome = host.dispatch(&prompt).await;
    let message = outcome.patch.as_ref().and_then(|p| p.get("message")).and_then(Value::as_str).unwrap_or("hello");
    println!("user_prompt_submit: {:?} → the model sees {message:?}", outcome.decision.as_str());
    Ok(())
}
