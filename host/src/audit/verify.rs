//! Checking a whole log: every record's hash and its link to the one before.

use super::*;

/// The result of checking a whole log.
#[derive(Debug, PartialEq, Eq)]
pub struct Verified {
    /// Records checked.
    pub records: u64,
    /// The last record's hash (`GENESIS` for an empty log): keep it elsewhere to detect a
    /// rewrite or a cut of the tail (`verify_expecting`).
    pub head: String,
    /// Torn tails writers moved aside: (1-based line of the `recovered` record, what it says).
    pub recoveries: Vec<(usize, Recovery)>,
}

/// Where a log's chain breaks: the 1-based line and what is wrong with it.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct ChainBroken {
    /// The 1-based line.
    pub line: usize,
    /// What is wrong with it.
    pub problem: String,
}

/// Check every record of a log: each line's own hash, the sequence, and the link to the line
/// before. `recovered` records (a writer moved a torn tail aside) are part of the chain and
/// are reported.
pub fn verify(text: &str) -> Result<Verified, ChainBroken> {
    verify_chain(text, None)
}

/// [`verify`], and also check that a head hash saved earlier (e.g. printed by `hookhost run
/// --audit F -v`) is still in the chain: if it is not, records were cut from the tail or the
/// log was replaced.
pub fn verify_expecting(text: &str, expected_head: &str) -> Result<Verified, ChainBroken> {
    verify_chain(text, Some(expected_head))
}

fn verify_chain(text: &str, expected_head: Option<&str>) -> Result<Verified, ChainBroken> {
    let mut expected_seq = 0u64;
    let mut prev = GENESIS.to_string();
    let mut recoveries = Vec::new();
    let mut seen_expected = expected_head.is_none_or(|h| h == GENESIS);
    let broken = |line: usize, problem: String| ChainBroken { line, problem };
    if !text.is_empty() && !text.ends_with('\n') {
        let line = text.lines().count();
        return Err(broken(line, "the last line has no newline: a write was cut short, or the file was edited (the next writer moves it aside and records the recovery)".into()));
    }
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let Link { seq, prev: link, hash: own, recovered } = Link::parse(line).map_err(|problem| broken(n, problem))?;
        if seq != expected_seq {
            return Err(broken(n, format!("record {seq} where record {expected_seq} should be: records were removed or reordered")));
        }
        if link != prev {
            return Err(broken(n, format!("record {seq} does not link to the record before it: that record was edited, or records were removed or reordered")));
        }
        if let Some(r) = recovered {
            recoveries.push((n, r));
        }
        seen_expected |= expected_head == Some(own.as_str());
        prev = own;
        expected_seq += 1;
    }
    if !seen_expected {
        let line = text.lines().count();
        return Err(broken(
            line,
            format!("no record has the expected head hash {}: records after it were cut from the tail, or the log was replaced", expected_head.unwrap_or_default()),
        ));
    }
    Ok(Verified { records: expected_seq, head: prev, recoveries })
}
