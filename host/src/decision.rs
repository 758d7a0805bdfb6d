//! Typed decisions as the host sees them, and how they merge along a chain.

use crate::event::EffectKind;
use serde::Serialize;
use serde_json::Value;

/// The verdict of one hook or of a whole chain. Ordered by precedence:
/// `halt > block > ask > allow > pass` (DESIGN.md §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    Pass,
    Allow,
    Ask,
    Block,
    Halt,
}

impl VerdictKind {
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
    pub kind: VerdictKind,
    pub reason: Option<String>,
    pub user_message: Option<String>,
}

impl Verdict {
    pub fn pass() -> Self {
        Verdict { kind: VerdictKind::Pass, reason: None, user_message: None }
    }

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
    RewriteInput { arguments: Value },
    RewritePrompt { message: String },
    RewriteOutput { result: Value },
    AddContext { text: String },
    NotifyUser { text: String },
    Annotate { pairs: Vec<(String, String)> },
    ReplaceSummary { summary: String },
}

impl Effect {
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
    pub verdict: Verdict,
    pub effects: Vec<Effect>,
}

impl Decision {
    pub fn pass() -> Self {
        Decision { verdict: Verdict::pass(), effects: Vec::new() }
    }
}
