//! Typed decisions as the host sees them, and how they merge along a chain.

use crate::event::EffectKind;
use serde::Serialize;
use serde_json::Value;

/// The verdict of one hook or of a whole chain. Ordered by precedence:
/// `halt > block > ask > allow > pass` (docs/CONFIG.md, "The chain").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    /// No opinion: the action goes ahead as the runtime would have it.
    Pass,
    /// Approve the action (skips the runtime's own permission prompt where it has one).
    Allow,
    /// Ask the human before the action goes ahead.
    Ask,
    /// Refuse the action; the reason goes back to the model.
    Block,
    /// Stop the agent.
    Halt,
}

impl VerdictKind {
    /// The snake_case name used in JSON.
    pub fn as_str(&self) -> &'static str {
        match self {
            VerdictKind::Pass => "pass",
            VerdictKind::Allow => "allow",
            VerdictKind::Ask => "ask",
            VerdictKind::Block => "block",
            VerdictKind::Halt => "halt",
        }
    }
}

/// A verdict with its reason and (for blocks) the message for the human.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// What was decided.
    pub kind: VerdictKind,
    /// Why, for the model and the logs.
    pub reason: Option<String>,
    /// What to show the human, when it differs from the reason.
    pub user_message: Option<String>,
}

impl Verdict {
    /// No opinion.
    pub fn pass() -> Self {
        Verdict { kind: VerdictKind::Pass, reason: None, user_message: None }
    }

    /// A block with its reason.
    pub fn block(reason: impl Into<String>) -> Self {
        Verdict { kind: VerdictKind::Block, reason: Some(reason.into()), user_message: None }
    }

    /// Whether this verdict stops a blocking event's chain.
    pub fn stops_chain(&self) -> bool {
        matches!(self.kind, VerdictKind::Block | VerdictKind::Halt)
    }
}

/// An effect a hook asked for. JSON payloads are already parsed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Effect {
    /// Replace a tool call's arguments.
    RewriteInput {
        /// The new arguments.
        arguments: Value,
    },
    /// Replace the user's prompt.
    RewritePrompt {
        /// The new prompt.
        message: String,
    },
    /// Replace a tool's output before the model sees it.
    RewriteOutput {
        /// The new output.
        result: Value,
    },
    /// Add text to the model's context.
    AddContext {
        /// The text.
        text: String,
    },
    /// Show the human a message.
    NotifyUser {
        /// The message.
        text: String,
    },
    /// Key/value pairs for the audit log and traces.
    Annotate {
        /// The pairs, in order.
        pairs: Vec<(String, String)>,
    },
    /// Replace a compaction summary.
    ReplaceSummary {
        /// The new summary.
        summary: String,
    },
}

impl Effect {
    /// Which kind of effect this is.
    pub fn kind(&self) -> EffectKind {
        match self {
            Effect::RewriteInput { .. } => EffectKind::RewriteInput,
            Effect::RewritePrompt { .. } => EffectKind::RewritePrompt,
            Effect::RewriteOutput { .. } => EffectKind::RewriteOutput,
            Effect::AddContext { .. } => EffectKind::AddContext,
            Effect::NotifyUser { .. } => EffectKind::NotifyUser,
            Effect::Annotate { .. } => EffectKind::Annotate,
            Effect::ReplaceSummary { .. } => EffectKind::ReplaceSummary,
        }
    }

    /// The snake_case name used in JSON and error messages.
    pub fn name(&self) -> &'static str {
        match self {
            Effect::RewriteInput { .. } => "rewrite_input",
            Effect::RewritePrompt { .. } => "rewrite_prompt",
            Effect::RewriteOutput { .. } => "rewrite_output",
            Effect::AddContext { .. } => "add_context",
            Effect::NotifyUser { .. } => "notify_user",
            Effect::Annotate { .. } => "annotate",
            Effect::ReplaceSummary { .. } => "replace_summary",
        }
    }

    /// Effects that change the payload are reported in `patch`, not in `effects`.
    pub fn is_rewrite(&self) -> bool {
        matches!(self, Effect::RewriteInput { .. } | Effect::RewritePrompt { .. } | Effect::RewriteOutput { .. })
    }
}

/// What one hook decided.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The verdict.
    pub verdict: Verdict,
    /// The effects asked for, in order.
    pub effects: Vec<Effect>,
}

impl Decision {
    /// No opinion, no effects.
    pub fn pass() -> Self {
        Decision { verdict: Verdict::pass(), effects: Vec::new() }
    }
}

/// The reason a block for hookhost's own failure gives — an event it could not read, a chain that
/// could not run, a daemon that did not answer: the failure, and that it is one. The host's
/// runtime answers and `hookhost-send` (which links no host) say it alike.
pub fn own_failure_reason(error: &str) -> String {
    format!("hookhost could not decide, so it blocks (its own failures block before an action; `--fail-open` lets them through): {error}")
}
