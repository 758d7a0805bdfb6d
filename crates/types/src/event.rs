//! Canonical event names and what a verdict means on each (docs/CONFIG.md, "Events"). The JSON envelope
//! an event arrives in is [`crate::envelope`]; each runtime's names are [`crate::runtime`].

use serde::Serialize;
use std::fmt;

/// A lifecycle event name. `Custom` carries names the contract does not know yet.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EventName {
    /// A session begins.
    SessionStart,
    /// A session ends.
    SessionEnd,
    /// The user submitted a prompt (it can be rewritten or blocked).
    UserPromptSubmit,
    /// A tool is about to run (arguments can be rewritten; the call can be blocked).
    PreToolUse,
    /// The runtime is about to ask the user to approve a tool call.
    PermissionRequest,
    /// A tool's output, before the model sees it (it can be rewritten).
    ToolResultTransform,
    /// A tool ran (advisory).
    PostToolUse,
    /// The agent is about to stop (a block makes it continue).
    Stop,
    /// A subagent is about to stop.
    SubagentStop,
    /// A turn begins.
    TurnStart,
    /// A turn ends.
    TurnEnd,
    /// Before a model call.
    BeforeModelCall,
    /// After a model call.
    AfterModelCall,
    /// Before the context is compacted.
    PreCompact,
    /// After the context was compacted (the summary can be replaced).
    PostCompact,
    /// The runtime notifies the user.
    Notification,
    /// An event the contract does not define (`custom:<name>`).
    Custom(String),
}

/// Which rewrite or add-on effects an event honours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EffectKind {
    /// [`Effect::RewriteInput`](crate::Effect::RewriteInput).
    RewriteInput,
    /// [`Effect::RewritePrompt`](crate::Effect::RewritePrompt).
    RewritePrompt,
    /// [`Effect::RewriteOutput`](crate::Effect::RewriteOutput).
    RewriteOutput,
    /// [`Effect::AddContext`](crate::Effect::AddContext).
    AddContext,
    /// [`Effect::NotifyUser`](crate::Effect::NotifyUser).
    NotifyUser,
    /// [`Effect::Annotate`](crate::Effect::Annotate).
    Annotate,
    /// [`Effect::ReplaceSummary`](crate::Effect::ReplaceSummary).
    ReplaceSummary,
}

use EffectKind as K;
use EventName as E;

/// (event, canonical name, can block, effects honoured). Each runtime's names for these are in
/// [`crate::runtime`].
const TABLE: &[(EventName, &str, bool, &[EffectKind])] = &[
    (E::SessionStart, "session_start", false, &[K::AddContext]),
    (E::SessionEnd, "session_end", false, &[]),
    (E::UserPromptSubmit, "user_prompt_submit", true, &[K::RewritePrompt, K::AddContext]),
    (E::PreToolUse, "pre_tool_use", true, &[K::RewriteInput, K::AddContext, K::Annotate]),
    (E::PermissionRequest, "permission_request", true, &[K::RewriteInput, K::Annotate]),
    (E::ToolResultTransform, "tool_result_transform", false, &[K::RewriteOutput]),
    (E::PostToolUse, "post_tool_use", false, &[K::RewriteOutput, K::AddContext]),
    (E::Stop, "stop", true, &[K::AddContext]),
    (E::SubagentStop, "subagent_stop", true, &[K::AddContext]),
    (E::TurnStart, "turn_start", false, &[K::AddContext]),
    (E::TurnEnd, "turn_end", false, &[]),
    (E::BeforeModelCall, "before_model_call", true, &[]),
    (E::AfterModelCall, "after_model_call", false, &[]),
    (E::PreCompact, "pre_compact", true, &[K::ReplaceSummary, K::AddContext]),
    (E::PostCompact, "post_compact", false, &[]),
    (E::Notification, "notification", false, &[]),
];

impl EventName {
    fn row(&self) -> Option<&'static (EventName, &'static str, bool, &'static [EffectKind])> {
        TABLE.iter().find(|row| &row.0 == self)
    }

    /// Every canonical name, in table order (for error messages).
    pub fn canonical_names() -> impl Iterator<Item = &'static str> {
        TABLE.iter().map(|row| row.1)
    }

    /// Parse a canonical name only (what config files must use).
    pub fn from_canonical(name: &str) -> Option<EventName> {
        TABLE.iter().find(|row| row.1 == name).map(|row| row.0.clone())
    }

    /// Parse a name as a config file writes it: a canonical name, or `custom:<name>` for an
    /// event hookhost does not model (a peer's `PostToolUseFailure` is `custom:PostToolUseFailure`).
    pub fn from_config(name: &str) -> Option<EventName> {
        match name.strip_prefix("custom:") {
            Some(custom) if crate::text::is_plain_name(custom) => Some(E::Custom(custom.to_string())),
            Some(_) => None,
            None => Self::from_canonical(name),
        }
    }

    /// The name as a config file writes it (see [`EventName::from_config`]).
    pub fn config_name(&self) -> String {
        match self {
            E::Custom(name) => format!("custom:{name}"),
            known => known.as_str().to_string(),
        }
    }


    /// The canonical snake_case name.
    pub fn as_str(&self) -> &str {
        match self {
            E::Custom(name) => name,
            known => known.row().map(|row| row.1).unwrap_or("custom"),
        }
    }

    /// Whether a `block` verdict on this event stops the action (else it is advisory).
    pub fn can_block(&self) -> bool {
        self.row().map(|row| row.2).unwrap_or(false)
    }

    /// Whether this event gates what the agent does next — a tool call, a permission, a prompt
    /// reaching the model — so that a hook host that cannot decide must stop it rather than let
    /// it through (a stop or a compaction can block too, but blocking those on a failure would
    /// keep the agent going, not stop anything). A custom event does when a runtime's profile
    /// marks it so (Cursor's `beforeShellExecution`, wired by hand).
    pub fn gates_an_action(&self) -> bool {
        match self {
            E::PreToolUse | E::PermissionRequest | E::UserPromptSubmit => true,
            E::Custom(name) => crate::Runtime::ALL.iter().any(|r| r.event(name).is_some_and(|e| e.gates)),
            _ => false,
        }
    }

    /// Whether hooks on this event see a tool call (and may carry a matcher).
    pub fn is_tool_event(&self) -> bool {
        matches!(self, E::PreToolUse | E::PermissionRequest | E::PostToolUse | E::ToolResultTransform)
    }

    /// Whether this event honours an effect of the given kind. Notify and annotate are always
    /// allowed: they change nothing the agent acts on.
    pub fn honours(&self, kind: EffectKind) -> bool {
        matches!(kind, K::NotifyUser | K::Annotate)
            || self.row().map(|row| row.3.contains(&kind)).unwrap_or(matches!(kind, K::AddContext))
    }

    /// Whether any effect that changes the payload (tool input, prompt, tool output, summary)
    /// is honoured on this event: when none is, no hook of the chain can change what the next
    /// one sees.
    pub fn honours_a_rewrite(&self) -> bool {
        [K::RewriteInput, K::RewritePrompt, K::RewriteOutput, K::ReplaceSummary].into_iter().any(|k| self.honours(k))
    }
}

impl fmt::Display for EventName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for EventName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_events_can_have_their_payload_rewritten() {
        let rewritable: Vec<&str> = EventName::canonical_names().filter(|n| EventName::from_canonical(n).unwrap().honours_a_rewrite()).collect();
        assert_eq!(rewritable, ["user_prompt_submit", "pre_tool_use", "permission_request", "tool_result_transform", "post_tool_use", "pre_compact"]);
        assert!(!EventName::Custom("deploy".into()).honours_a_rewrite());
    }

    #[test]
    fn blocking_table_matches_the_design() {
        let blocking: Vec<_> = TABLE.iter().filter(|r| r.2).map(|r| r.1).collect();
        assert_eq!(
            blocking,
            ["user_prompt_submit", "pre_tool_use", "permission_request", "stop", "subagent_stop", "before_model_call", "pre_compact"]
        );
        assert!(EventName::PreToolUse.honours(EffectKind::RewriteInput));
        assert!(!EventName::PreToolUse.honours(EffectKind::RewriteOutput));
    }
}
