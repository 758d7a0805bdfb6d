//! Writing an outcome back in a runtime's own hook protocol (`hookhost run --output P`), so a
//! runtime can call hookhost as one of its command hooks and read the answer as it reads any
//! hook's: Claude Code, Codex, Gemini CLI, docker-agent, Starchild, or hookhost's own outcome
//! JSON.
//!
//! Each protocol maps every verdict and effect to what its runtime documents, per event. What a
//! runtime has no field for is never dropped silently: it becomes a note (one stderr line). The
//! references implemented here:
//!
//! - Claude Code: its hooks reference, "Hook output" (<https://code.claude.com/docs/en/hooks>);
//! - Codex: its hooks documentation (`hooks.json`) and the checks its hook engine applies to
//!   every answer (`codex-rs/hooks/src/engine/output_parser.rs`): close to Claude Code's, but
//!   stricter — an answer Codex refuses runs the tool, so it has its own writer (`codex.rs`);
//! - Gemini CLI: its hooks reference (`docs/hooks/reference.md` of google-gemini/gemini-cli);
//! - docker-agent: its hooks reference (seed 003: `hook_specific_output`, `decision: block`);
//! - Starchild: its shell-hook output protocol (seed 004: `decision`, `tool_input`, `context`,
//!   `systemMessage`).

use crate::dispatch::Outcome;
use hookhost_types::{Effect, EventName, HookEvent, VerdictKind};
use serde_json::{json, Map, Value};

mod codex;

/// A runtime's hook protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// hookhost's own outcome JSON.
    Json,
    /// Claude Code command hooks.
    ClaudeCode,
    /// Codex command hooks (Claude Code's wire protocol, with Codex's own stricter rules).
    Codex,
    /// Gemini CLI command hooks.
    GeminiCli,
    /// docker-agent command hooks.
    DockerAgent,
    /// Starchild shell hooks.
    Starchild,
}

impl Protocol {
    /// Every protocol, in the order messages list them.
    pub const ALL: [Protocol; 6] = [Protocol::Json, Protocol::ClaudeCode, Protocol::Codex, Protocol::GeminiCli, Protocol::DockerAgent, Protocol::Starchild];

    /// The protocol named on a command line.
    pub fn parse(name: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Its name (`claude-code`, `gemini-cli`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Json => "json",
            Protocol::ClaudeCode => "claude-code",
            Protocol::Codex => "codex",
            Protocol::GeminiCli => "gemini-cli",
            Protocol::DockerAgent => "docker-agent",
            Protocol::Starchild => "starchild",
        }
    }

    /// Every name, for messages.
    pub fn names() -> String {
        Protocol::ALL.iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
    }
}

/// What a command hook answers: its stdout, notes for stderr (one line each), its exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The runtime's JSON (empty: nothing to say).
    pub stdout: String,
    /// What the runtime has no field for, one line each.
    pub notes: Vec<String>,
    /// The exit code.
    pub code: u8,
}

/// The parts of an outcome a protocol writes.
struct Parts<'a> {
    event: &'a EventName,
    tool: Option<&'a str>,
    kind: VerdictKind,
    reason: Option<String>,
    context: Vec<&'a str>,
    notices: Vec<String>,
    annotations: Vec<(String, String)>,
    arguments: Option<&'a Value>,
    prompt: Option<&'a str>,
    result: Option<&'a Value>,
    summary: Option<&'a str>,
}

impl<'a> Parts<'a> {
    fn of(event: &'a HookEvent, outcome: &'a Outcome) -> Parts<'a> {
        let mut notices = Vec::new();
        let mut context = Vec::new();
        let mut annotations = Vec::new();
        for effect in &outcome.effects {
            match effect {
                Effect::AddContext { text } => context.push(text.as_str()),
                Effect::NotifyUser { text } => notices.push(text.clone()),
                Effect::Annotate { pairs } => annotations.extend(pairs.iter().cloned()),
                _ => {}
            }
        }
        // What the human should see of a block, when it differs from the model's reason.
        if let Some(message) = outcome.user_message.as_ref().filter(|m| Some(*m) != outcome.reason.as_ref()) {
            if outcome.decision >= VerdictKind::Ask {
                notices.push(message.clone());
            }
        }
        let patch = outcome.patch.as_ref();
        let reason = outcome.reason.clone().or_else(|| outcome.user_message.clone());
        Parts {
            event: &event.name,
            tool: event.tool_name(),
            kind: outcome.decision,
            reason,
            context,
            notices,
            annotations,
            arguments: patch.and_then(|p| p.get("arguments")),
            prompt: patch.and_then(|p| p.get("message")).and_then(Value::as_str),
            result: patch.and_then(|p| p.get("result")),
            summary: patch.and_then(|p| p.get("summary")).and_then(Value::as_str),
        }
    }

    fn reason_or(&self, default: &str) -> String {
        self.reason.clone().unwrap_or_else(|| default.to_string())
    }
}

/// Write an outcome in `protocol` for the event it answers.
///
/// A rewrite the runtime cannot apply on an event that can block — a prompt (no runtime takes
/// one back), or tool input where the runtime has no field — becomes a block: the chain let the
/// action through only rewritten, and passing the original would be a pass the chain never
/// gave (a redacted secret would reach the model).
pub fn render(protocol: Protocol, event: &HookEvent, outcome: &Outcome) -> Reply {
    let mut parts = Parts::of(event, outcome);
    let mut notes = Vec::new();
    if protocol != Protocol::Json && parts.kind < VerdictKind::Block && event.name.can_block() {
        let what = if parts.prompt.is_some() {
            Some("prompt")
        } else if parts.arguments.is_some() && !takes_tool_input(protocol, &event.name, parts.kind) {
            Some("tool input")
        } else {
            None
        };
        if let Some(what) = what {
            notes.push(format!("the hooks let this {} through only rewritten, and {} cannot take a rewritten {what} here: blocked instead", event.name, protocol_title(protocol)));
            parts.kind = VerdictKind::Block;
            parts.reason = Some(format!("hookhost's hooks allow this only with its {what} rewritten, and this runtime cannot apply the rewrite, so it is blocked{}", parts.reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default()));
            parts.prompt = None;
            parts.arguments = None;
        }
    }
    let stdout = match protocol {
        Protocol::Json => serde_json::to_string(outcome).unwrap_or_default(),
        Protocol::ClaudeCode => claude(protocol, &parts, &mut notes),
        Protocol::Codex => codex::codex(&parts, &mut notes),
        Protocol::GeminiCli => gemini(&parts, &mut notes),
        Protocol::DockerAgent => docker(&parts, &mut notes),
        Protocol::Starchild => starchild(&parts, &mut notes),
    };
    Reply { stdout, notes: notes.into_iter().map(|n| format!("hookhost: {} output: {n}", protocol.name())).collect(), code: 0 }
}

/// hookhost's own failure (bad config, bad input, a plugin that will not load) in `protocol`:
/// the runtime's non-blocking error form — exit 1 and one stderr line — so it never looks like
/// a block; with `fail_closed`, the runtime's block form with a reason naming the failure.
/// Under `json`, exit 2 as always.
pub fn failure(protocol: Protocol, event: Option<&HookEvent>, error: &str, fail_closed: bool) -> Reply {
    let line = format!("hookhost: error: {error}");
    if protocol == Protocol::Json {
        return Reply { stdout: String::new(), notes: vec![line], code: 2 };
    }
    if !fail_closed {
        return Reply { stdout: String::new(), notes: vec![line], code: 1 };
    }
    let reason = format!("hookhost could not decide, and --fail-closed blocks: {error}");
    match event {
        // The event is known: its own block form.
        Some(event) => {
            let outcome = Outcome { decision: VerdictKind::Block, reason: Some(reason), user_message: None, effects: Vec::new(), patch: None, hooks: Vec::new() };
            let mut reply = render(protocol, event, &outcome);
            reply.notes.insert(0, line);
            reply
        }
        // Not even the event could be read: every runtime's universal block, exit 2 with the
        // reason on stderr.
        None => Reply { stdout: String::new(), notes: vec![reason], code: 2 },
    }
}

/// Whether `protocol` takes rewritten tool input on `event` with this verdict.
fn takes_tool_input(protocol: Protocol, event: &EventName, kind: VerdictKind) -> bool {
    match (protocol, event) {
        (_, EventName::PreToolUse) => true,
        (Protocol::ClaudeCode, EventName::PermissionRequest) => kind == VerdictKind::Allow,
        (Protocol::DockerAgent, EventName::PermissionRequest) => true,
        _ => false,
    }
}

fn put(map: &mut Map<String, Value>, key: &str, value: impl Into<Value>) {
    map.insert(key.to_string(), value.into());
}

/// `hookSpecificOutput`, named by its event, when it holds anything (Claude Code, Codex and
/// Gemini CLI share the shape).
fn event_specific(out: &mut Map<String, Value>, specific: Map<String, Value>, event_name: String) {
    if !specific.is_empty() {
        let mut with_name = Map::new();
        put(&mut with_name, "hookEventName", event_name);
        with_name.extend(specific);
        put(out, "hookSpecificOutput", Value::Object(with_name));
    }
}

fn object(map: Map<String, Value>) -> String {
    if map.is_empty() {
        String::new()
    } else {
        Value::Object(map).to_string()
    }
}

/// A tool result as text (the runtimes that take a rewritten output take a string).
fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The Claude Code name of an event (`pre_tool_use` → `PreToolUse`; custom names as they are).
fn pascal(event: &EventName) -> String {
    match event {
        EventName::Custom(name) => name.clone(),
        known => known.as_str().split('_').map(|w| w[..1].to_uppercase() + &w[1..]).collect(),
    }
}

fn claude(protocol: Protocol, p: &Parts, notes: &mut Vec<String>) -> String {
    use EventName as E;
    let mut out = Map::new();
    let mut specific = Map::new();
    let mut decision = Map::new(); // PermissionRequest's `decision` object
    match (p.kind, p.event) {
        (VerdictKind::Halt, _) => {
            put(&mut out, "continue", false);
            put(&mut out, "stopReason", p.reason_or("stopped by a hook"));
        }
        (VerdictKind::Block, E::PreToolUse) => {
            put(&mut specific, "permissionDecision", "deny");
            put(&mut specific, "permissionDecisionReason", p.reason_or("blocked by a hook"));
        }
        (VerdictKind::Block, E::PermissionRequest) => {
            put(&mut decision, "behavior", "deny");
            put(&mut decision, "message", p.reason_or("denied by a hook"));
        }
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
        (VerdictKind::Ask, event) => notes.push(format!("{} has no \"ask\" on {}; the runtime's own flow decides", protocol_title(protocol), pascal(event))),
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
            event => notes.push(format!("the rewritten tool input is dropped: {} takes one on PreToolUse, or on an allowed PermissionRequest, not on {}", protocol_title(protocol), pascal(event))),
        }
    }
    if p.prompt.is_some() {
        notes.push(format!("the rewritten prompt is dropped: {} cannot rewrite a prompt (block it, or add context)", protocol_title(protocol)));
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
            (event, _) => notes.push(format!("the rewritten tool output is dropped: {} replaces a tool's output on PostToolUse only, not on {}", protocol_title(protocol), pascal(event))),
        }
    }
    // A blocked prompt is not shown back ("Original prompt: …"): it may hold what the block
    // was about (a secret).
    if p.kind >= VerdictKind::Block && *p.event == E::UserPromptSubmit {
        put(&mut specific, "suppressOriginalPrompt", true);
    }
    if p.summary.is_some() {
        notes.push(format!("the replacement summary is dropped: {} has no field for one", protocol_title(protocol)));
    }
    if !p.context.is_empty() {
        match p.event {
            E::PreToolUse | E::PostToolUse | E::UserPromptSubmit | E::SessionStart => put(&mut specific, "additionalContext", p.context.join("\n\n")),
            E::Custom(name) if name == "PostToolUseFailure" || name == "SubagentStart" => put(&mut specific, "additionalContext", p.context.join("\n\n")),
            event => notes.push(format!("the added context is dropped: {} takes context on PreToolUse, PostToolUse, UserPromptSubmit and SessionStart, not on {}", protocol_title(protocol), pascal(event))),
        }
    }
    if !p.notices.is_empty() {
        put(&mut out, "systemMessage", p.notices.join("\n"));
    }
    if !decision.is_empty() {
        put(&mut specific, "decision", Value::Object(decision));
    }
    event_specific(&mut out, specific, pascal(p.event));
    object(out)
}

fn protocol_title(p: Protocol) -> &'static str {
    match p {
        Protocol::Codex => "Codex",
        Protocol::GeminiCli => "Gemini CLI",
        Protocol::DockerAgent => "docker-agent",
        Protocol::Starchild => "Starchild",
        _ => "Claude Code",
    }
}

/// Gemini CLI's name of an event.
fn gemini_name(event: &EventName) -> String {
    use EventName as E;
    match event {
        E::PreToolUse => "BeforeTool".into(),
        E::PostToolUse => "AfterTool".into(),
        E::UserPromptSubmit => "BeforeAgent".into(),
        E::Stop => "AfterAgent".into(),
        E::BeforeModelCall => "BeforeModel".into(),
        E::AfterModelCall => "AfterModel".into(),
        E::PreCompact => "PreCompress".into(),
        other => pascal(other),
    }
}

fn gemini(p: &Parts, notes: &mut Vec<String>) -> String {
    use EventName as E;
    let mut out = Map::new();
    let mut specific = Map::new();
    match p.kind {
        VerdictKind::Halt => {
            put(&mut out, "continue", false);
            put(&mut out, "stopReason", p.reason_or("stopped by a hook"));
        }
        VerdictKind::Block => {
            put(&mut out, "decision", "deny");
            put(&mut out, "reason", p.reason_or("blocked by a hook"));
        }
        // Gemini CLI cannot ask the human from a hook: what needs a human's yes is refused.
        VerdictKind::Ask => {
            put(&mut out, "decision", "deny");
            put(&mut out, "reason", format!("needs a human's confirmation: {}", p.reason_or("a hook asks to confirm this")));
            notes.push("Gemini CLI has no \"ask\"; it is written as \"deny\" with the reason".into());
        }
        VerdictKind::Allow if *p.event == E::PreToolUse => {
            put(&mut out, "decision", "allow");
            if let Some(reason) = &p.reason {
                put(&mut out, "reason", reason.as_str());
            }
        }
        VerdictKind::Allow | VerdictKind::Pass => {}
    }
    if let Some(args) = p.arguments {
        match p.event {
            E::PreToolUse => put(&mut specific, "tool_input", args.clone()),
            event => notes.push(format!("the rewritten tool input is dropped: Gemini CLI takes one on BeforeTool, not on {}", gemini_name(event))),
        }
    }
    if let Some(result) = p.result {
        match p.event {
            E::PostToolUse | E::ToolResultTransform => {
                put(&mut specific, "tool_output", as_text(result));
                // Gemini CLI (0.61) does not apply `tool_output`; a deny's reason is what reaches
                // the model in place of the tool's result, so the redacted text goes there too.
                if p.kind < VerdictKind::Block {
                    put(&mut out, "decision", "deny");
                    put(&mut out, "reason", as_text(result));
                }
            }
            event => notes.push(format!("the rewritten tool output is dropped: Gemini CLI takes one on AfterTool, not on {}", gemini_name(event))),
        }
    }
    if p.prompt.is_some() {
        notes.push("the rewritten prompt is dropped: Gemini CLI cannot rewrite a prompt (block it, or add context)".into());
    }
    if p.summary.is_some() {
        notes.push("the replacement summary is dropped: Gemini CLI has no field for one".into());
    }
    if !p.context.is_empty() {
        match p.event {
            E::PostToolUse | E::UserPromptSubmit | E::SessionStart => put(&mut specific, "additionalContext", p.context.join("\n\n")),
            event => notes.push(format!("the added context is dropped: Gemini CLI takes context on AfterTool, BeforeAgent and SessionStart, not on {}", gemini_name(event))),
        }
    }
    if !p.notices.is_empty() {
        put(&mut out, "systemMessage", p.notices.join("\n"));
    }
    event_specific(&mut out, specific, gemini_name(p.event));
    // Gemini CLI parses stdout as JSON on exit 0: say nothing as `{}`.
    if out.is_empty() {
        "{}".into()
    } else {
        Value::Object(out).to_string()
    }
}

fn docker(p: &Parts, notes: &mut Vec<String>) -> String {
    use EventName as E;
    let mut out = Map::new();
    let mut specific = Map::new();
    let permission_event = matches!(p.event, E::PreToolUse | E::PermissionRequest);
    match p.kind {
        VerdictKind::Halt => {
            put(&mut out, "continue", false);
            put(&mut out, "stop_reason", p.reason_or("stopped by a hook"));
        }
        VerdictKind::Block => {
            // docker-agent accepts only "" or "block" as a decision.
            put(&mut out, "decision", "block");
            put(&mut out, "reason", p.reason_or("blocked by a hook"));
            if permission_event {
                put(&mut specific, "permission_decision", "deny");
                put(&mut specific, "permission_decision_reason", p.reason_or("blocked by a hook"));
            }
        }
        VerdictKind::Ask | VerdictKind::Allow if permission_event => {
            put(&mut specific, "permission_decision", if p.kind == VerdictKind::Ask { "ask" } else { "allow" });
            if let Some(r) = &p.reason {
                put(&mut specific, "permission_decision_reason", r.clone());
            }
        }
        VerdictKind::Ask => notes.push(format!("docker-agent has no \"ask\" on {}; the runtime's own flow decides", p.event)),
        VerdictKind::Allow | VerdictKind::Pass => {}
    }
    if let Some(args) = p.arguments {
        match permission_event {
            true => put(&mut specific, "updated_input", args.clone()),
            false => notes.push(format!("the rewritten tool input is dropped: docker-agent takes one on pre_tool_use and permission_request, not on {}", p.event)),
        }
    }
    if let Some(result) = p.result {
        match p.event {
            E::ToolResultTransform => put(&mut specific, "updated_tool_response", as_text(result)),
            event => notes.push(format!("the rewritten tool output is dropped: docker-agent takes one on tool_response_transform, not on {event}")),
        }
    }
    if let Some(summary) = p.summary {
        match p.event {
            E::PreCompact => put(&mut specific, "summary", summary),
            event => notes.push(format!("the replacement summary is dropped: docker-agent takes one before a compaction, not on {event}")),
        }
    }
    if p.prompt.is_some() {
        notes.push("the rewritten prompt is dropped: docker-agent cannot rewrite a prompt (block it, or add context)".into());
    }
    if !p.context.is_empty() {
        match p.event {
            E::SessionStart | E::UserPromptSubmit | E::TurnStart | E::PostToolUse | E::PreCompact | E::Stop => put(&mut specific, "additional_context", p.context.join("\n\n")),
            event => notes.push(format!("the added context is dropped: docker-agent takes context on session_start, user_prompt_submit, turn_start, post_tool_use, pre_compact and stop, not on {event}")),
        }
    }
    if !p.annotations.is_empty() && permission_event {
        let metadata: Map<String, Value> = p.annotations.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
        put(&mut specific, "metadata", Value::Object(metadata));
    }
    if !p.notices.is_empty() {
        put(&mut out, "system_message", p.notices.join("\n"));
    }
    if !specific.is_empty() {
        put(&mut out, "hook_specific_output", Value::Object(specific));
    }
    object(out)
}

fn starchild(p: &Parts, notes: &mut Vec<String>) -> String {
    use EventName as E;
    let mut out = Map::new();
    match p.kind {
        // Starchild stops nothing but the action at hand: a halt and an ask are its block.
        VerdictKind::Halt | VerdictKind::Block | VerdictKind::Ask => {
            put(&mut out, "decision", "block");
            put(&mut out, "reason", p.reason_or("blocked by a hook"));
            if p.kind != VerdictKind::Block {
                notes.push(format!("Starchild has no \"{}\"; it is written as a block", p.kind.as_str()));
            }
        }
        VerdictKind::Allow | VerdictKind::Pass => {}
    }
    if let Some(args) = p.arguments {
        match p.event {
            E::PreToolUse => put(&mut out, "tool_input", args.clone()),
            event => notes.push(format!("the rewritten tool input is dropped: Starchild takes one on pre_tool_call, not on {event}")),
        }
    }
    if !p.context.is_empty() {
        match p.event {
            E::BeforeModelCall => put(&mut out, "context", p.context.join("\n\n")),
            event => notes.push(format!("the added context is dropped: Starchild takes context on pre_llm_call, not on {event}")),
        }
    }
    for (what, present) in [("rewritten prompt", p.prompt.is_some()), ("rewritten tool output", p.result.is_some()), ("replacement summary", p.summary.is_some())] {
        if present {
            notes.push(format!("the {what} is dropped: Starchild has no field for it on {}", p.event));
        }
    }
    if !p.notices.is_empty() {
        put(&mut out, "systemMessage", p.notices.join("\n"));
    }
    object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookhost_types::HookEvent;

    fn outcome(decision: VerdictKind, reason: Option<&str>, effects: Vec<Effect>, patch: Option<Value>) -> Outcome {
        Outcome {
            decision,
            reason: reason.map(str::to_string),
            user_message: None,
            effects,
            patch: patch.and_then(|p| p.as_object().cloned()),
            hooks: Vec::new(),
        }
    }

    fn ev(name: &str) -> HookEvent {
        HookEvent::from_value(json!({"hook_event_name": name, "tool_name": "Bash", "tool_input": {"command": "ls"}})).unwrap()
    }

    fn out(p: Protocol, event: &str, o: Outcome) -> (Value, Vec<String>) {
        let reply = render(p, &ev(event), &o);
        assert_eq!(reply.code, 0);
        let v = if reply.stdout.is_empty() { Value::Null } else { serde_json::from_str(&reply.stdout).unwrap() };
        (v, reply.notes)
    }

    #[test]
    fn a_pass_says_nothing_the_runtime_would_flag() {
        for p in [Protocol::ClaudeCode, Protocol::Codex, Protocol::DockerAgent, Protocol::Starchild] {
            assert_eq!(out(p, "PreToolUse", outcome(VerdictKind::Pass, None, vec![], None)), (Value::Null, vec![]), "{p:?}");
        }
        assert_eq!(out(Protocol::GeminiCli, "PreToolUse", outcome(VerdictKind::Pass, None, vec![], None)).0, json!({}), "Gemini CLI reads JSON on exit 0");
    }

    #[test]
    fn claude_code_verdicts_per_event() {
        let c = |event: &str, kind, reason| out(Protocol::ClaudeCode, event, outcome(kind, reason, vec![], None)).0;
        assert_eq!(c("PreToolUse", VerdictKind::Block, Some("no")), json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no"}}));
        assert_eq!(c("PreToolUse", VerdictKind::Ask, Some("sure?")), json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "ask", "permissionDecisionReason": "sure?"}}));
        assert_eq!(c("PreToolUse", VerdictKind::Allow, None), json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}));
        assert_eq!(c("PreToolUse", VerdictKind::Halt, Some("enough")), json!({"continue": false, "stopReason": "enough"}));
        assert_eq!(c("PermissionRequest", VerdictKind::Block, Some("no")), json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no"}}}));
        assert_eq!(c("PermissionRequest", VerdictKind::Allow, None), json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}));
        assert_eq!(c("UserPromptSubmit", VerdictKind::Block, Some("secret")), json!({"decision": "block", "reason": "secret", "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "suppressOriginalPrompt": true}}));
        // A redacted output replaces any tool's (and an MCP tool's the older way too).
        let redacted = |tool: &str| {
            let event = HookEvent::from_value(json!({"hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": {}, "tool_response": "key sk-1"})).unwrap();
            let reply = render(Protocol::ClaudeCode, &event, &outcome(VerdictKind::Pass, None, vec![], Some(json!({"result": "key [REDACTED]"}))));
            serde_json::from_str::<Value>(&reply.stdout).unwrap()["hookSpecificOutput"].clone()
        };
        assert_eq!(redacted("Bash"), json!({"hookEventName": "PostToolUse", "updatedToolOutput": "key [REDACTED]"}));
        assert_eq!(redacted("mcp__db__q"), json!({"hookEventName": "PostToolUse", "updatedToolOutput": "key [REDACTED]", "updatedMCPToolOutput": "key [REDACTED]"}));
        assert_eq!(c("Stop", VerdictKind::Block, Some("tests fail")), json!({"decision": "block", "reason": "tests fail"}));
        // Effects: rewritten input, context, a message for the human.
        let o = outcome(VerdictKind::Allow, None, vec![Effect::AddContext { text: "ctx".into() }, Effect::NotifyUser { text: "hi".into() }], Some(json!({"arguments": {"command": "ls -a"}})));
        assert_eq!(
            out(Protocol::ClaudeCode, "PreToolUse", o).0,
            json!({"systemMessage": "hi", "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "ls -a"}, "additionalContext": "ctx"}})
        );
        let (v, notes) = out(Protocol::ClaudeCode, "SessionStart", outcome(VerdictKind::Pass, None, vec![Effect::AddContext { text: "branch main".into() }], None));
        assert_eq!((v, notes), (json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "branch main"}}), vec![]));
        // What Claude Code has no field for is said, not dropped.
        let (v, notes) = out(Protocol::ClaudeCode, "Notification", outcome(VerdictKind::Pass, None, vec![Effect::AddContext { text: "x".into() }], None));
        assert_eq!(v, Value::Null);
        assert_eq!(notes, ["hookhost: claude-code output: the added context is dropped: Claude Code takes context on PreToolUse, PostToolUse, UserPromptSubmit and SessionStart, not on Notification"]);
    }

    #[test]
    fn a_rewrite_the_runtime_cannot_apply_on_a_guarded_event_blocks() {
        let o = outcome(VerdictKind::Pass, None, vec![], Some(json!({"message": "key [REDACTED]"})));
        for p in [Protocol::ClaudeCode, Protocol::Codex, Protocol::GeminiCli, Protocol::DockerAgent, Protocol::Starchild] {
            let reply = render(p, &ev("UserPromptSubmit"), &o);
            let v: Value = serde_json::from_str(&reply.stdout).unwrap();
            let text = v.to_string();
            assert!(text.contains("block") || text.contains("deny"), "{p:?}: {text}");
            assert!(text.contains("hookhost's hooks allow this only with its prompt rewritten"), "{p:?}: {text}");
            assert!(reply.notes[0].contains("cannot take a rewritten prompt here: blocked instead"), "{p:?}: {:?}", reply.notes);
        }
        // A permission request Claude Code is not told to allow cannot carry new input either.
        let o = outcome(VerdictKind::Pass, None, vec![], Some(json!({"arguments": {"command": "ls"}})));
        let (v, _) = out(Protocol::ClaudeCode, "PermissionRequest", o.clone());
        assert_eq!(v["hookSpecificOutput"]["decision"]["behavior"], "deny");
        let (v, _) = out(Protocol::DockerAgent, "PermissionRequest", o);
        assert_eq!(v, json!({"hook_specific_output": {"updated_input": {"command": "ls"}}}));
    }

    #[test]
    fn gemini_docker_and_starchild_forms() {
        let block = outcome(VerdictKind::Block, Some("no"), vec![], None);
        assert_eq!(out(Protocol::GeminiCli, "PreToolUse", block.clone()).0, json!({"decision": "deny", "reason": "no"}));
        assert_eq!(
            out(Protocol::DockerAgent, "PreToolUse", block.clone()).0,
            json!({"decision": "block", "reason": "no", "hook_specific_output": {"permission_decision": "deny", "permission_decision_reason": "no"}})
        );
        assert_eq!(out(Protocol::DockerAgent, "UserPromptSubmit", block.clone()).0, json!({"decision": "block", "reason": "no"}));
        assert_eq!(out(Protocol::Starchild, "PreToolUse", block).0, json!({"decision": "block", "reason": "no"}));
        let rewrite = outcome(VerdictKind::Pass, None, vec![], Some(json!({"arguments": {"command": "ls -l"}})));
        assert_eq!(out(Protocol::GeminiCli, "PreToolUse", rewrite.clone()).0, json!({"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": "ls -l"}}}));
        assert_eq!(out(Protocol::DockerAgent, "PreToolUse", rewrite.clone()).0, json!({"hook_specific_output": {"updated_input": {"command": "ls -l"}}}));
        assert_eq!(out(Protocol::Starchild, "PreToolUse", rewrite).0, json!({"tool_input": {"command": "ls -l"}}));
        let (v, notes) = out(Protocol::GeminiCli, "PreToolUse", outcome(VerdictKind::Ask, Some("sure?"), vec![], None));
        assert_eq!((v, notes.len()), (json!({"decision": "deny", "reason": "needs a human's confirmation: sure?"}), 1));
        let (v, notes) = out(Protocol::Starchild, "Stop", outcome(VerdictKind::Halt, Some("enough"), vec![], None));
        assert_eq!(v, json!({"decision": "block", "reason": "enough"}));
        assert_eq!(notes, ["hookhost: starchild output: Starchild has no \"halt\"; it is written as a block"]);
        // Gemini CLI 0.61 does not apply `tool_output`: the redacted text reaches the model as a
        // deny's reason.
        let after = HookEvent::from_value(json!({"hook_event_name": "AfterTool", "tool_name": "run_shell_command", "tool_input": {}, "tool_response": {"llmContent": "key sk-1"}})).unwrap();
        let reply = render(Protocol::GeminiCli, &after, &outcome(VerdictKind::Pass, None, vec![], Some(json!({"result": "key [REDACTED]"}))));
        assert_eq!(serde_json::from_str::<Value>(&reply.stdout).unwrap(), json!({"decision": "deny", "reason": "key [REDACTED]", "hookSpecificOutput": {"hookEventName": "AfterTool", "tool_output": "key [REDACTED]"}}));
        let context = outcome(VerdictKind::Pass, None, vec![Effect::AddContext { text: "c".into() }], None);
        assert_eq!(out(Protocol::DockerAgent, "SessionStart", context.clone()).0, json!({"hook_specific_output": {"additional_context": "c"}}));
        assert_eq!(out(Protocol::GeminiCli, "UserPromptSubmit", context).0, json!({"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": "c"}}));
    }

    #[test]
    fn hookhosts_own_failures_never_look_like_a_block_unless_asked() {
        for p in [Protocol::ClaudeCode, Protocol::Codex, Protocol::GeminiCli, Protocol::DockerAgent, Protocol::Starchild] {
            let reply = failure(p, Some(&ev("PreToolUse")), "hooks.toml: bad", false);
            assert_eq!((reply.stdout.as_str(), reply.code), ("", 1), "{p:?}: the runtime's non-blocking error");
            assert_eq!(reply.notes, ["hookhost: error: hooks.toml: bad"]);
            let closed = failure(p, Some(&ev("PreToolUse")), "hooks.toml: bad", true);
            assert_eq!(closed.code, 0);
            assert!(closed.stdout.contains("hookhost could not decide, and --fail-closed blocks: hooks.toml: bad"), "{p:?}: {}", closed.stdout);
            let unreadable = failure(p, None, "stdin: not JSON", true);
            assert_eq!((unreadable.code, unreadable.notes[0].as_str()), (2, "hookhost could not decide, and --fail-closed blocks: stdin: not JSON"));
        }
        assert_eq!(failure(Protocol::Json, None, "x", false).code, 2, "hookhost's own exit code for bad input");
    }

    /// Codex's own checks of a hook's answer, as its hook engine applies them
    /// (`codex-rs/hooks/src/engine/output_parser.rs`, and the generated schemas' closed field
    /// sets): `Some(why)` is an answer Codex marks as a failed hook — and then runs the tool.
    fn codex_refuses(event: &str, answer: &Value) -> Option<String> {
        let Some(obj) = answer.as_object() else { return (!answer.is_null()).then(|| "not an object".to_string()) };
        let blocks_with_decision = matches!(event, "PreToolUse" | "PostToolUse" | "UserPromptSubmit" | "Stop");
        for key in obj.keys() {
            let known = matches!(key.as_str(), "continue" | "stopReason" | "suppressOutput" | "systemMessage" | "hookSpecificOutput") || (blocks_with_decision && matches!(key.as_str(), "decision" | "reason"));
            if !known {
                return Some(format!("unknown field {key}"));
            }
        }
        let specific = obj.get("hookSpecificOutput").and_then(Value::as_object);
        let allowed: &[&str] = match event {
            "PreToolUse" => &["hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext"],
            "PermissionRequest" => &["hookEventName", "decision"],
            "PostToolUse" | "UserPromptSubmit" | "SessionStart" => &["hookEventName", "additionalContext"],
            _ => &["hookEventName"],
        };
        if let Some(key) = specific.and_then(|s| s.keys().find(|k| !allowed.contains(&k.as_str()))) {
            return Some(format!("unknown hookSpecificOutput field {key}"));
        }
        let stops = obj.get("continue") == Some(&json!(false));
        let reason_ok = |v: Option<&Value>| v.and_then(Value::as_str).is_some_and(|r| !r.trim().is_empty());
        match event {
            "PreToolUse" | "PermissionRequest" if stops || obj.contains_key("stopReason") || obj.contains_key("suppressOutput") => return Some("unsupported universal field".into()),
            "PreToolUse" => {
                let s = specific.cloned().unwrap_or_default();
                match (s.get("permissionDecision").and_then(Value::as_str), s.contains_key("updatedInput")) {
                    (Some("allow"), false) => return Some("bare allow".into()),
                    (Some("ask"), _) => return Some("ask".into()),
                    (Some("deny"), false) if !reason_ok(s.get("permissionDecisionReason")) => return Some("deny without a reason".into()),
                    (Some("deny"), true) | (None, true) => return Some("updatedInput without allow".into()),
                    (None, false) if s.contains_key("permissionDecisionReason") => return Some("reason without decision".into()),
                    _ => {}
                }
            }
            "PermissionRequest" => {
                if let Some(d) = specific.and_then(|s| s.get("decision")).and_then(Value::as_object) {
                    if d.keys().any(|k| !matches!(k.as_str(), "behavior" | "message")) {
                        return Some("unsupported decision field".into());
                    }
                }
            }
            "PostToolUse" if obj.contains_key("suppressOutput") => return Some("suppressOutput".into()),
            _ => {}
        }
        if blocks_with_decision && obj.get("decision") == Some(&json!("block")) && !reason_ok(obj.get("reason")) {
            return Some("block without a reason".into());
        }
        None
    }

    #[test]
    fn every_codex_answer_is_one_codex_accepts_and_none_fails_open() {
        let args = json!({"arguments": {"command": "curl -H 'Authorization: [REDACTED]' x"}});
        let effects = || vec![Effect::AddContext { text: "ctx".into() }, Effect::NotifyUser { text: "note".into() }];
        for event in ["PreToolUse", "PermissionRequest", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart", "Notification"] {
            for kind in [VerdictKind::Pass, VerdictKind::Allow, VerdictKind::Ask, VerdictKind::Block, VerdictKind::Halt] {
                for (patch, with_effects) in [(None, false), (None, true), (Some(args.clone()), false), (Some(json!({"result": "token=[REDACTED]"})), true), (Some(json!({"message": "[REDACTED]"})), false)] {
                    let o = outcome(kind, Some("because"), if with_effects { effects() } else { vec![] }, patch.clone());
                    let (v, _) = out(Protocol::Codex, event, o);
                    assert_eq!(codex_refuses(event, &v), None, "{event} {kind:?} {patch:?}: {v}");
                }
            }
        }
        let c = |event: &str, kind, reason: Option<&str>, patch| out(Protocol::Codex, event, outcome(kind, reason, vec![], patch));
        let deny = |reason: &str| json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}});
        // What would have been refused (and run the command) is a deny that holds.
        assert_eq!(c("PreToolUse", VerdictKind::Block, Some("no"), None).0, deny("no"));
        assert_eq!(c("PreToolUse", VerdictKind::Block, Some("  "), None).0, deny("blocked by a hook"), "Codex refuses an empty reason");
        let (v, notes) = c("PreToolUse", VerdictKind::Ask, Some("sure?"), None);
        assert_eq!(v, deny("needs a human's confirmation, which Codex cannot ask for here: sure?"));
        assert_eq!(notes, ["hookhost: codex output: Codex cannot ask from a PreToolUse hook (it refuses permissionDecision:ask): the tool call is denied instead"]);
        assert_eq!(c("PreToolUse", VerdictKind::Halt, Some("enough"), None).0, deny("enough"));
        // A rewrite is applied the one way Codex takes it; a bare allow says nothing.
        let (v, _) = c("PreToolUse", VerdictKind::Pass, None, Some(args.clone()));
        assert_eq!(v, json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": {"command": "curl -H 'Authorization: [REDACTED]' x"}}}));
        assert_eq!(c("PreToolUse", VerdictKind::Allow, Some("fine"), None).0, Value::Null);
        // A redacted tool output reaches the model as the block's reason, instead of the original.
        let (v, _) = c("PostToolUse", VerdictKind::Pass, None, Some(json!({"result": "token=[REDACTED]"})));
        assert_eq!(v, json!({"decision": "block", "reason": "token=[REDACTED]"}));
        // A permission request: no new input, no interrupt.
        assert_eq!(c("PermissionRequest", VerdictKind::Halt, Some("stop"), None).0, json!({"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "stop"}}}));
        let (v, _) = c("PermissionRequest", VerdictKind::Allow, None, Some(args));
        assert_eq!(v["hookSpecificOutput"]["decision"]["behavior"], "deny", "input Codex cannot take here: blocked, not passed: {v}");
        assert_eq!(c("UserPromptSubmit", VerdictKind::Halt, Some("bye"), None).0, json!({"continue": false, "stopReason": "bye"}));
    }
}
