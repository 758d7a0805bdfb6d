//! Decisions: a verdict plus effects, built with named constructors.

use serde_json::Value;

/// What the hook says about the action.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// No opinion; the chain goes on.
    Pass,
    /// Skip the human permission prompt (never overrides a host deny rule).
    Allow(Option<String>),
    /// Force the human permission prompt.
    Ask(Option<String>),
    /// Stop the action. Ignored (and logged) on advisory events.
    Block {
        /// Why: shown to the model and recorded in the audit log.
        reason: Option<String>,
        /// What the human sees, when different from the reason.
        user_message: Option<String>,
    },
    /// Stop the agent loop.
    Halt(Option<String>),
}

/// A change the hook asks for, applied by the host when the event allows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Replace the tool's arguments (a JSON object).
    RewriteInput(Value),
    /// Replace the user's prompt text.
    RewritePrompt(String),
    /// Replace the tool's result.
    RewriteOutput(Value),
    /// Extra context for the model.
    AddContext(String),
    /// A message for the human.
    NotifyUser(String),
    /// Key/value annotations for the audit log.
    Annotate(Vec<(String, String)>),
    /// Replace the compaction summary.
    ReplaceSummary(String),
}

/// A verdict and the effects that go with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// What the hook says about the action.
    pub verdict: Verdict,
    /// What it asks to change, in order.
    pub effects: Vec<Effect>,
}

impl Decision {
    fn of(verdict: Verdict) -> Self {
        Decision { verdict, effects: Vec::new() }
    }

    /// No opinion.
    pub fn pass() -> Self {
        Self::of(Verdict::Pass)
    }

    /// Allow without asking the human.
    pub fn allow() -> Self {
        Self::of(Verdict::Allow(None))
    }

    /// Allow, with a reason for the audit log.
    pub fn allow_because(reason: impl Into<String>) -> Self {
        Self::of(Verdict::Allow(Some(reason.into())))
    }

    /// Ask the human.
    pub fn ask(reason: impl Into<String>) -> Self {
        Self::of(Verdict::Ask(Some(reason.into())))
    }

    /// Block, with a reason shown to the model and recorded.
    pub fn block(reason: impl Into<String>) -> Self {
        Self::of(Verdict::Block { reason: Some(reason.into()), user_message: None })
    }

    /// Stop the agent loop.
    pub fn halt(reason: impl Into<String>) -> Self {
        Self::of(Verdict::Halt(Some(reason.into())))
    }

    /// Set the message the human sees (on a block).
    pub fn with_user_message(mut self, message: impl Into<String>) -> Self {
        if let Verdict::Block { user_message, .. } = &mut self.verdict {
            *user_message = Some(message.into());
        }
        self
    }

    /// Add any effect.
    pub fn with(mut self, effect: Effect) -> Self {
        self.effects.push(effect);
        self
    }

    /// Replace the tool call's arguments.
    pub fn rewrite_input(self, arguments: Value) -> Self {
        self.with(Effect::RewriteInput(arguments))
    }

    /// Replace the user's prompt.
    pub fn rewrite_prompt(self, prompt: impl Into<String>) -> Self {
        self.with(Effect::RewritePrompt(prompt.into()))
    }

    /// Replace the tool's result.
    pub fn rewrite_output(self, result: Value) -> Self {
        self.with(Effect::RewriteOutput(result))
    }

    /// Give the model extra context.
    pub fn add_context(self, text: impl Into<String>) -> Self {
        self.with(Effect::AddContext(text.into()))
    }

    /// Show the human a message.
    pub fn notify_user(self, text: impl Into<String>) -> Self {
        self.with(Effect::NotifyUser(text.into()))
    }

    /// Attach a key/value annotation for the audit log.
    pub fn annotate(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        let pair = (key.into(), value.into());
        match self.effects.iter_mut().find_map(|e| match e {
            Effect::Annotate(pairs) => Some(pairs),
            _ => None,
        }) {
            Some(pairs) => pairs.push(pair),
            None => self.effects.push(Effect::Annotate(vec![pair])),
        }
        self
    }

    /// Replace the compaction summary.
    pub fn replace_summary(self, summary: impl Into<String>) -> Self {
        self.with(Effect::ReplaceSummary(summary.into()))
    }

    /// True for a block verdict.
    pub fn is_block(&self) -> bool {
        matches!(self.verdict, Verdict::Block { .. })
    }

    /// The block reason, when this is a block.
    pub fn block_reason(&self) -> Option<&str> {
        match &self.verdict {
            Verdict::Block { reason, .. } => reason.as_deref(),
            _ => None,
        }
    }
}
