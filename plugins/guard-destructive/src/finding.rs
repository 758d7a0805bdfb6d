//! What a rule finds: its verdict and reason, and how a line's findings combine.

/// What a rule decides about a command it matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Not run.
    Block,
    /// Run only if the human confirms (the runtime's nearest form where it cannot ask).
    Ask,
}

/// A rule's finding: its verdict and the reason, which names the rule and what to do instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// Block or ask.
    pub verdict: Verdict,
    /// Why, for the agent and the human.
    pub reason: String,
}

impl Finding {
    /// The first block among `findings`, else the first ask: a later `rm -rf /` outranks an
    /// earlier `git stash drop`.
    pub(crate) fn first_block_else_ask(findings: impl Iterator<Item = Option<Finding>>) -> Option<Finding> {
        let mut ask = None;
        for f in findings.flatten() {
            if f.verdict == Verdict::Block {
                return Some(f);
            }
            ask.get_or_insert(f);
        }
        ask
    }
}
