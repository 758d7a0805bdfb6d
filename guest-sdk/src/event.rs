//! Events as plain Rust values: what a hook receives.

use serde_json::Value;

/// Who and where: shared by every event.
#[derive(Debug, Clone, PartialEq)]
pub struct Context {
    /// `user:{name}` or `{bundle}:{name}`.
    pub hook_id: String,
    /// The session the event belongs to.
    pub session_id: String,
    /// The turn, when the runtime has turns.
    pub turn_id: Option<String>,
    /// The agent, when the runtime names one.
    pub agent_id: Option<String>,
    /// The organisation, when the runtime names one.
    pub org_id: Option<String>,
    /// RFC 3339 time of the event.
    pub ts: String,
    /// The agent's working directory.
    pub cwd: Option<String>,
    /// The agent runtime that sent the event, by hookhost's name for it (`claude-code`,
    /// `codex`, `gemini-cli`, …), when the host knows it (`hookhost run --output RUNTIME`,
    /// `serve`'s `/v1/hooks/RUNTIME`); `None` otherwise. Since contract 0.2.0.
    pub runtime: Option<String>,
    /// The hook's settings from the host configuration (`{}` when none).
    pub settings: Value,
    /// Event data fields the contract does not name (an object, empty when none).
    pub extra: Value,
}

impl Default for Context {
    fn default() -> Self {
        Context {
            hook_id: "user:test".into(),
            session_id: "ses_test".into(),
            turn_id: None,
            agent_id: None,
            org_id: None,
            ts: "1970-01-01T00:00:00Z".into(),
            cwd: None,
            runtime: None,
            settings: Value::Object(Default::default()),
            extra: Value::Object(Default::default()),
        }
    }
}

impl Context {
    /// A test context carrying these settings.
    pub fn with_settings(settings: Value) -> Self {
        Context { settings, ..Context::default() }
    }
}

/// A tool call about to run (or asking for permission).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name (`bash`, `Write`, `mcp__github__create_issue`).
    pub name: String,
    /// The runtime's id of this call.
    pub call_id: String,
    /// The tool's arguments, after any earlier hook's rewrite.
    pub arguments: Value,
}

/// A finished tool call and its result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The tool's name.
    pub name: String,
    /// The runtime's id of this call.
    pub call_id: String,
    /// The arguments it ran with.
    pub arguments: Value,
    /// Its output (a string for plain-text tools).
    pub result: Value,
    /// Whether the tool failed.
    pub is_error: bool,
}

/// The agent wants to stop.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stop {
    /// The agent's final message, when the runtime provides it.
    pub response: Option<String>,
    /// True when the agent already continues because a stop hook blocked.
    pub stop_hook_active: bool,
    /// Consecutive stop-hook blocks so far in this turn.
    pub loop_count: u32,
}

/// Context compaction, before or after.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Compact {
    /// What started it (`manual`, `auto`, ...), when the runtime says.
    pub trigger: Option<String>,
    /// The summary, when there is one.
    pub summary: Option<String>,
}

/// One lifecycle moment.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A session begins.
    SessionStart {
        /// How (`startup`, `resume`, ...), when the runtime says.
        source: Option<String>,
    },
    /// A session ends.
    SessionEnd {
        /// Why, when the runtime says.
        reason: Option<String>,
    },
    /// The user submitted a prompt (it can be rewritten or blocked).
    UserPromptSubmit {
        /// The prompt's text.
        message: String,
    },
    /// A tool is about to run (arguments can be rewritten; the call can be blocked).
    PreToolUse(ToolCall),
    /// The runtime is about to ask the user to approve a tool call.
    PermissionRequest(ToolCall),
    /// A tool's output, before the model sees it (it can be rewritten).
    ToolResultTransform(ToolResult),
    /// A tool ran.
    PostToolUse(ToolResult),
    /// The agent is about to stop (a block makes it continue).
    Stop(Stop),
    /// A subagent is about to stop.
    SubagentStop(Stop),
    /// A turn begins.
    TurnStart,
    /// A turn ends.
    TurnEnd {
        /// Whether it ended without an error.
        success: bool,
    },
    /// Before a model call.
    BeforeModelCall {
        /// The model, when the runtime names it.
        model: Option<String>,
        /// The request as the runtime builds it.
        request: Value,
    },
    /// After a model call.
    AfterModelCall {
        /// The model, when the runtime names it.
        model: Option<String>,
        /// The response as the runtime received it.
        response: Value,
    },
    /// Before the context is compacted (the summary can be replaced).
    PreCompact(Compact),
    /// After the context was compacted.
    PostCompact(Compact),
    /// The runtime notifies the user.
    Notification {
        /// The notice.
        message: String,
        /// Its kind, when the runtime says.
        kind: Option<String>,
    },
    /// An event this contract version does not name, with its data.
    Custom {
        /// The runtime's name for it.
        name: String,
        /// Its data, as the runtime sent it.
        data: Value,
    },
}

impl Event {
    /// A `pre_tool_use` event (handy in tests).
    pub fn pre_tool_use(tool: &str, arguments: Value) -> Self {
        Event::PreToolUse(ToolCall { name: tool.into(), call_id: "call_test".into(), arguments })
    }

    /// A `post_tool_use` event (handy in tests).
    pub fn post_tool_use(tool: &str, arguments: Value, result: Value) -> Self {
        Event::PostToolUse(ToolResult {
            name: tool.into(),
            call_id: "call_test".into(),
            arguments,
            result,
            is_error: false,
        })
    }

    /// A `user_prompt_submit` event (handy in tests).
    pub fn user_prompt(message: &str) -> Self {
        Event::UserPromptSubmit { message: message.into() }
    }

    /// The canonical snake_case name (`pre_tool_use`, ...).
    pub fn name(&self) -> &str {
        match self {
            Event::SessionStart { .. } => "session_start",
            Event::SessionEnd { .. } => "session_end",
            Event::UserPromptSubmit { .. } => "user_prompt_submit",
            Event::PreToolUse(_) => "pre_tool_use",
            Event::PermissionRequest(_) => "permission_request",
            Event::ToolResultTransform(_) => "tool_result_transform",
            Event::PostToolUse(_) => "post_tool_use",
            Event::Stop(_) => "stop",
            Event::SubagentStop(_) => "subagent_stop",
            Event::TurnStart => "turn_start",
            Event::TurnEnd { .. } => "turn_end",
            Event::BeforeModelCall { .. } => "before_model_call",
            Event::AfterModelCall { .. } => "after_model_call",
            Event::PreCompact(_) => "pre_compact",
            Event::PostCompact(_) => "post_compact",
            Event::Notification { .. } => "notification",
            Event::Custom { name, .. } => name,
        }
    }

    /// The tool call of `pre_tool_use` / `permission_request`.
    pub fn tool_call(&self) -> Option<&ToolCall> {
        match self {
            Event::PreToolUse(c) | Event::PermissionRequest(c) => Some(c),
            _ => None,
        }
    }

    /// The tool name of any tool event.
    pub fn tool_name(&self) -> Option<&str> {
        match self {
            Event::PreToolUse(c) | Event::PermissionRequest(c) => Some(&c.name),
            Event::PostToolUse(r) | Event::ToolResultTransform(r) => Some(&r.name),
            _ => None,
        }
    }

    /// The shell command of a tool call, whatever the runtime calls the field:
    /// `command` (Claude Code, Everruns), `cmd` (docker-agent) or `commands` (Everruns bash).
    pub fn shell_command(&self) -> Option<&str> {
        let args = match self {
            Event::PreToolUse(c) | Event::PermissionRequest(c) => &c.arguments,
            _ => return None,
        };
        ["command", "cmd", "commands"].iter().find_map(|k| args.get(*k).and_then(Value::as_str))
    }

    /// The prompt text of `user_prompt_submit`.
    pub fn prompt(&self) -> Option<&str> {
        match self {
            Event::UserPromptSubmit { message } => Some(message),
            _ => None,
        }
    }
}

impl Event {
    /// Whether the host accepts this effect on this event (the table in docs/CONFIG.md, "Events"; notify and
    /// annotate are accepted everywhere). A decision carrying an effect its event does not
    /// accept is an executor error, so adapters translating foreign outputs filter with this.
    pub fn accepts(&self, effect: &crate::Effect) -> bool {
        use crate::Effect as F;
        match effect {
            F::NotifyUser(_) | F::Annotate(_) => true,
            F::RewriteInput(_) => matches!(self, Event::PreToolUse(_) | Event::PermissionRequest(_)),
            F::RewritePrompt(_) => matches!(self, Event::UserPromptSubmit { .. }),
            F::RewriteOutput(_) => matches!(self, Event::PostToolUse(_) | Event::ToolResultTransform(_)),
            F::ReplaceSummary(_) => matches!(self, Event::PreCompact(_)),
            F::AddContext(_) => matches!(
                self,
                Event::SessionStart { .. }
                    | Event::UserPromptSubmit { .. }
                    | Event::PreToolUse(_)
                    | Event::PostToolUse(_)
                    | Event::Stop(_)
                    | Event::SubagentStop(_)
                    | Event::TurnStart
                    | Event::PreCompact(_)
                    | Event::Custom { .. }
            ),
        }
    }

    /// Whether a block on this event stops the action (else the event is advisory).
    pub fn can_block(&self) -> bool {
        matches!(
            self,
            Event::UserPromptSubmit { .. }
                | Event::PreToolUse(_)
                | Event::PermissionRequest(_)
                | Event::Stop(_)
                | Event::SubagentStop(_)
                | Event::BeforeModelCall { .. }
                | Event::PreCompact(_)
        )
    }
}
