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
//! - docker-agent: its hooks reference (`hook_specific_output`, `decision: block`);
//! - Starchild: its shell-hook output protocol (its agent-hooks guide: `decision`,
//!   `tool_input`, `context`, `systemMessage`);
//! - Qwen Code: its hooks reference (`docs/users/features/hooks.md` of QwenLM/qwen-code):
//!   Claude Code's answers, less what it does not document (`qwen_code.rs`);
//! - Cursor: its hooks reference (<https://cursor.com/docs/hooks>): `permission` before a
//!   tool, `continue` on a prompt, `followup_message` on a stop (`cursor.rs`);
//! - Antigravity CLI: `decision` (`allow` / `deny` / `force_ask`) and `reason`, as its users
//!   measured agy 1.0 and 1.1 (`antigravity.rs`; no documentation of its own can be read);
//! - OpenCode: no hook protocol, but hookhost's own plugin, which reads what `opencode.rs`
//!   writes (through OpenCode's plugin API).

use crate::dispatch::Outcome;
use hookhost_types::runtime::{Answer, Rewrite};
use hookhost_types::{Effect, EventName, HookEvent, Runtime, VerdictKind};
use serde_json::{Map, Value};

mod antigravity;
mod claude_code;
mod codex;
mod copilot;
mod cursor;
mod docker_agent;
mod gemini_cli;
mod opencode;
mod qwen_code;
mod starchild;

/// How an outcome is written: hookhost's own outcome JSON, or a runtime's hook protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// hookhost's own outcome JSON.
    Json,
    /// A runtime's command-hook answer (one that has a writer here: see [`Protocol::all`]).
    Runtime(Runtime),
}

impl Protocol {
    /// Every protocol, in the order messages list them: `json`, then each runtime hookhost
    /// answers ([`Runtime::answered`]; each has a writer here, which a test checks).
    pub fn all() -> impl Iterator<Item = Protocol> {
        std::iter::once(Protocol::Json).chain(Runtime::answered().map(Protocol::Runtime))
    }

    /// The protocol named on a command line.
    pub fn parse(name: &str) -> Option<Protocol> {
        Protocol::all().find(|p| p.name() == name)
    }

    /// Its name (`json`, `claude-code`, `gemini-cli`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Json => "json",
            Protocol::Runtime(runtime) => runtime.name(),
        }
    }

    /// Its name in messages.
    pub fn title(self) -> &'static str {
        match self {
            Protocol::Json => "hookhost's outcome JSON",
            Protocol::Runtime(runtime) => runtime.title(),
        }
    }

    /// Every name, for messages.
    pub fn names() -> String {
        Protocol::all().map(|p| p.name()).collect::<Vec<_>>().join(", ")
    }
}

/// A runtime's answer writer: the outcome's parts in, its stdout (empty: nothing to say) and
/// exit code out, notes for what it has no field for.
type Writer = fn(&Parts, &mut Vec<String>) -> String;

/// The answer writer of each runtime whose profile has an answer. A new runtime's writer is a
/// module beside these, named here.
fn writer(runtime: Runtime) -> Option<Writer> {
    Some(match runtime {
        Runtime::ClaudeCode => |p, notes| claude_code::claude(Protocol::Runtime(Runtime::ClaudeCode), p, notes),
        Runtime::Codex => codex::codex,
        Runtime::GeminiCli => gemini_cli::gemini,
        Runtime::DockerAgent => docker_agent::docker,
        Runtime::Starchild => starchild::starchild,
        Runtime::Copilot => copilot::copilot,
        Runtime::OpenCode => opencode::opencode,
        Runtime::QwenCode => qwen_code::qwen,
        Runtime::Cursor => cursor::cursor,
        Runtime::Antigravity => antigravity::antigravity,
        // It embeds the library and reads the outcome itself.
        Runtime::Everruns => return None,
    })
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
#[derive(Clone)]
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
    // An event the runtime does not document and hookhost does not model passes through (the
    // runtime's pass, unless a hook registered for it decided otherwise): say so, once.
    if let (Protocol::Runtime(runtime), EventName::Custom(name)) = (protocol, &event.name) {
        if runtime.event(name).is_none() {
            notes.push(format!("{name} is not an event hookhost knows for {}: it ran as custom:{name}, on the hooks registered for that name only", protocol.title()));
        }
    }
    if protocol != Protocol::Json && parts.kind < VerdictKind::Block && event.name.can_block() {
        let what = if parts.prompt.is_some() && !takes_prompt(protocol, &event.name) {
            Some("prompt")
        } else if parts.arguments.is_some() && !takes_tool_input(protocol, &event.name, parts.kind) {
            Some("tool input")
        } else {
            None
        };
        if let Some(what) = what {
            notes.push(format!("the hooks let this {} through only rewritten, and {} cannot take a rewritten {what} here: blocked instead", event.name, protocol.title()));
            parts.kind = VerdictKind::Block;
            parts.reason = Some(format!("hookhost's hooks allow this only with its {what} rewritten, and this runtime cannot apply the rewrite, so it is blocked{}", parts.reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default()));
            parts.prompt = None;
            parts.arguments = None;
        }
    }
    // Every runtime reads a decided answer on exit 0 (exit 2 is each one's block by stderr,
    // which carries less than the JSON does).
    let stdout = match protocol {
        Protocol::Runtime(runtime) => match (writer(runtime), runtime.answer()) {
            // Nothing to say, said as the runtime wants it said (Gemini CLI: `{}`).
            (Some(write), Some(answer)) => Some(write(&parts, &mut notes)).filter(|s| !s.is_empty()).unwrap_or_else(|| answer.nothing.to_string()),
            _ => serde_json::to_string(outcome).unwrap_or_default(),
        },
        Protocol::Json => serde_json::to_string(outcome).unwrap_or_default(),
    };
    Reply { stdout, notes: notes.into_iter().map(|n| format!("hookhost: {} output: {n}", protocol.name())).collect(), code: 0 }
}

/// What hookhost's own failure — an event it cannot read, a config that does not load, a chain
/// that cannot run — becomes in a runtime's protocol. Never a pass the user did not choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnFailure {
    /// The default: a block where the event gates what the agent does next (a tool call, a
    /// permission, a prompt) or could not be read at all; on other events (a session's start,
    /// a stop, a tool's result) the runtime's non-blocking error, shown to the user — a block
    /// there would keep the agent going or hide nothing.
    #[default]
    Closed,
    /// `--fail-open`: the runtime's non-blocking error on every event (the tool runs).
    Open,
    /// `--fail-closed`: the runtime's block on every event.
    Always,
}

impl OnFailure {
    /// From the command-line flags (`--fail-open`, `--fail-closed`; neither: the default).
    pub fn from_flags(fail_open: bool, fail_closed: bool) -> OnFailure {
        match (fail_open, fail_closed) {
            (_, true) => OnFailure::Always,
            (true, false) => OnFailure::Open,
            (false, false) => OnFailure::Closed,
        }
    }

    /// Whether a failure on `event` (`None`: not even its name could be read) is answered with a
    /// block.
    pub fn blocks(self, event: Option<&EventName>) -> bool {
        match self {
            OnFailure::Open => false,
            OnFailure::Always => true,
            OnFailure::Closed => event.is_none_or(EventName::gates_an_action),
        }
    }

    /// The flag that sets this, to pass on to another hookhost command (`None`: the default).
    pub fn flag(self) -> Option<&'static str> {
        match self {
            OnFailure::Closed => None,
            OnFailure::Open => Some("--fail-open"),
            OnFailure::Always => Some("--fail-closed"),
        }
    }
}

pub use hookhost_types::decision::own_failure_reason as failure_reason;

/// hookhost's own failure (bad config, bad input, a plugin that will not load) in `protocol`:
/// where `on_failure` blocks ([`OnFailure::blocks`]), the event's own block form with a reason
/// naming the failure (every runtime's universal block, exit 2, when not even the event could
/// be read); elsewhere the runtime's non-blocking error — exit 1 and one stderr line (Copilot:
/// exit 0) — so it never looks like a block. Under `json`, exit 2 as always.
pub fn failure(protocol: Protocol, event: Option<&HookEvent>, error: &str, on_failure: OnFailure) -> Reply {
    let line = format!("hookhost: error: {error}");
    if protocol == Protocol::Json {
        return Reply { stdout: String::new(), notes: vec![line], code: 2 };
    }
    if !on_failure.blocks(event.map(|e| &e.name)) {
        // The runtime's error that does not block (GitHub Copilot CLI's is exit 0: it denies a
        // tool call whose hook exits non-zero).
        let code = answer(protocol).map_or(1, |a| a.soft_error_exit);
        return Reply { stdout: String::new(), notes: vec![line], code };
    }
    let reason = failure_reason(error);
    match event {
        // The event is known: its own block form.
        Some(event) => {
            let mut reply = render(protocol, event, &Outcome::block(reason));
            reply.notes.insert(0, line);
            reply
        }
        // Not even the event could be read: every runtime's universal block, exit 2 with the
        // reason on stderr.
        None => Reply { stdout: String::new(), notes: vec![reason], code: 2 },
    }
}

/// The answer rules of `protocol`'s runtime (`None`: hookhost's own JSON).
fn answer(protocol: Protocol) -> Option<&'static Answer> {
    match protocol {
        Protocol::Runtime(runtime) => runtime.answer(),
        Protocol::Json => None,
    }
}

/// Whether `protocol` takes a rewritten prompt on `event` (GitHub Copilot CLI's
/// `userPromptTransformed` alone does).
fn takes_prompt(protocol: Protocol, event: &EventName) -> bool {
    *event == EventName::UserPromptSubmit && answer(protocol).is_some_and(|a| a.prompt_rewrite)
}

/// Whether `protocol` takes rewritten tool input on `event` with this verdict.
fn takes_tool_input(protocol: Protocol, event: &EventName, kind: VerdictKind) -> bool {
    match event {
        EventName::PreToolUse => answer(protocol).is_none_or(|a| a.input_before_tool),
        EventName::PermissionRequest => match answer(protocol).map_or(Rewrite::No, |a| a.input_on_permission) {
            Rewrite::Yes => true,
            Rewrite::WhenAllowed => kind == VerdictKind::Allow,
            Rewrite::No => false,
        },
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

#[cfg(test)]
mod tests;
