//! Claude Code's hook answers, from its hooks reference, "Hook output"
//! (<https://code.claude.com/docs/en/hooks>): `hookSpecificOutput` per event
//! (`permissionDecision`, `updatedInput`, `updatedToolOutput`, `additionalContext`), top-level
//! `decision: "block"`, `continue: false` for a halt.

use super::{event_specific, object, put, Parts, Protocol};
use hookhost_types::{EventName, Runtime, VerdictKind};
use serde_json::{json, Map, Value};

pub(super) fn claude(protocol: Protocol, p: &Parts, notes: &mut Vec<String>) -> String {
    use EventName as E;
    let mut out = Map::new();
    let mut specific = Map::new();
    let mut decision = Map::new(); // PermissionRequest's `decision` object
    let halt = p.kind == VerdictKind::Halt;
    if halt {
        put(&mut out, "continue", false);
        put(&mut out, "stopReason", p.reason_or("stopped by a hook"));
    }
    match (p.kind, p.event) {
        // `continue: false` stops the agent after the tool it was about to run, not before
        // (seen with the real Claude Code 2.1.332: the command ran, then the turn ended), so a
        // halt before a tool denies the tool as a block does.
        (VerdictKind::Halt | VerdictKind::Block, E::PreToolUse) => {
            put(&mut specific, "permissionDecision", "deny");
            put(&mut specific, "permissionDecisionReason", p.reason_or(if halt { "stopped by a hook" } else { "blocked by a hook" }));
        }
        (VerdictKind::Halt | VerdictKind::Block, E::PermissionRequest) => {
            put(&mut decision, "behavior", "deny");
            put(&mut decision, "message", p.reason_or(if halt { "stopped by a hook" } else { "denied by a hook" }));
            if halt {
                put(&mut decision, "interrupt", true);
            }
        }
        (VerdictKind::Halt, _) => {}
        (VerdictKind::Block, _) => {
            put(&mut out, "decision", "block");
            put(&mut out, "reason", p.reason_or("blocked by a hook"));
        }
        (VerdictKind::Ask, E::PreToolUse) => {
            put(&mut specific, "permissionDecision", "ask");
            if let Some(r) = &p.reason {
                put(&mut specific, "permissionDecisionReason", r.clone());
            }
        }
        // A permission request is the runtime asking already.
        (VerdictKind::Ask, E::PermissionRequest) => {}
        (VerdictKind::Ask, event) => notes.push(format!("{} has no \"ask\" on {}; the runtime's own flow decides", protocol.title(), Runtime::ClaudeCode.event_name(event))),
        (VerdictKind::Allow, E::PreToolUse) => {
            put(&mut specific, "permissionDecision", "allow");
            if let Some(r) = &p.reason {
                put(&mut specific, "permissionDecisionReason", r.clone());
            }
        }
        (VerdictKind::Allow, E::PermissionRequest) => put(&mut decision, "behavior", "allow"),
        (VerdictKind::Allow | VerdictKind::Pass, _) => {}
    }
    if let Some(args) = p.arguments {
        match p.event {
            E::PreToolUse => put(&mut specific, "updatedInput", args.clone()),
            E::PermissionRequest if decision.get("behavior") == Some(&json!("allow")) => put(&mut decision, "updatedInput", args.clone()),
            event => notes.push(format!("the rewritten tool input is dropped: {} takes one on PreToolUse, or on an allowed PermissionRequest, not on {}", protocol.title(), Runtime::ClaudeCode.event_name(event))),
        }
    }
    if p.prompt.is_some() {
        notes.push(format!("the rewritten prompt is dropped: {} cannot rewrite a prompt (block it, or add context)", protocol.title()));
    }
    if let Some(result) = p.result {
        match (p.event, p.tool) {
            // `updatedToolOutput` replaces any tool's output (Claude Code 2.1.121 on); older
            // versions read `updatedMCPToolOutput`, for MCP tools only.
            (E::PostToolUse, tool) => {
                put(&mut specific, "updatedToolOutput", result.clone());
                if tool.is_some_and(|t| t.starts_with("mcp__")) {
                    put(&mut specific, "updatedMCPToolOutput", result.clone());
                }
            }
            (event, _) => notes.push(format!("the rewritten tool output is dropped: {} replaces a tool's output on PostToolUse only, not on {}", protocol.title(), Runtime::ClaudeCode.event_name(event))),
        }
    }
    // A blocked prompt is not shown back ("Original prompt: …"): it may hold what the block
    // was about (a secret).
    if p.kind >= VerdictKind::Block && *p.event == E::UserPromptSubmit {
        put(&mut specific, "suppressOriginalPrompt", true);
    }
    if p.summary.is_some() {
        notes.push(format!("the replacement summary is dropped: {} has no field for one", protocol.title()));
    }
    if !p.context.is_empty() {
        match p.event {
            E::PreToolUse | E::PostToolUse | E::UserPromptSubmit | E::SessionStart => put(&mut specific, "additionalContext", p.context.join("\n\n")),
            E::Custom(name) if name == "PostToolUseFailure" || name == "SubagentStart" => put(&mut specific, "additionalContext", p.context.join("\n\n")),
            event => notes.push(format!("the added context is dropped: {} takes context on PreToolUse, PostToolUse, UserPromptSubmit and SessionStart, not on {}", protocol.title(), Runtime::ClaudeCode.event_name(event))),
        }
    }
    if !p.notices.is_empty() {
        put(&mut out, "systemMessage", p.notices.join("\n"));
    }
    if !decision.is_empty() {
        put(&mut specific, "decision", Value::Object(decision));
    }
    event_specific(&mut out, specific, Runtime::ClaudeCode.event_name(p.event));
    object(out)
}

