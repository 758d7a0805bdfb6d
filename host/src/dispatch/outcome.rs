//! What a dispatch answers: the chain's verdict, effects and rewritten payload, and what each
//! hook did.

use hookhost_types::{Effect, HookId, VerdictKind};
use serde::Serialize;
use serde_json::{Map, Value};

/// What one hook did during a dispatch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookTrace {
    /// The hook.
    pub id: HookId,
    /// The verdict this hook contributed (after `on_error`, for a failed hook).
    pub decision: VerdictKind,
    /// Its reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// True when the verdict was ignored because the event is advisory.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ignored: bool,
    /// True for a re-check: the hook ran again because a later hook rewrote the payload.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub recheck: bool,
    /// True for a hook in `observe` mode: `decision`, `reason` and `effects` are what it would
    /// have done; none of it applied.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub observed: bool,
    /// What an observed hook would have changed (`rewrite_input`, `add_context`, ...).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<&'static str>,
    /// Wall-clock time of the invocation.
    pub duration_us: u64,
    /// Fuel consumed.
    pub fuel: u64,
    /// How the executor failed, if it did (its `on_error` decided the verdict).
    pub error: Option<String>,
}

/// The result of a dispatch: the final verdict, effects, the rewritten payload, and a trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// The chain's verdict.
    pub decision: VerdictKind,
    /// Why (for the model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What to show the human, when it differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_message: Option<String>,
    /// Effects that do not rewrite the payload (`add_context`, `notify_user`, `annotate`).
    pub effects: Vec<Effect>,
    /// The payload after every rewrite (`arguments`, `message`, `result`, `summary`); absent
    /// when nothing was rewritten.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch: Option<Map<String, Value>>,
    /// What each invoked hook did, in order.
    pub hooks: Vec<HookTrace>,
}

impl Outcome {
    /// A block with this reason, no hook having run: what hookhost answers itself when its chain
    /// cannot decide (its own failure, a chain out of time).
    pub fn block(reason: String) -> Outcome {
        Outcome { decision: VerdictKind::Block, reason: Some(reason), user_message: None, effects: Vec::new(), patch: None, hooks: Vec::new() }
    }

    /// True when the final verdict is a block.
    pub fn is_block(&self) -> bool {
        self.decision == VerdictKind::Block
    }
}
