//! `hookhost audit stats LOG`: what each hook of an audit log did — how often it ran, blocked
//! and rewrote, what hooks in observe mode would have blocked and rewritten, its failures and
//! its time. The summary a rollout reads before it turns `observe` into `enforce`.

use crate::stats::percentile;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

/// The fields of an audit record the summary reads.
#[derive(Deserialize)]
struct Record {
    hook_id: String,
    decision: String,
    #[serde(default)]
    effects: Vec<String>,
    #[serde(default)]
    duration_us: u64,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    recheck: bool,
    #[serde(default)]
    observed: bool,
    #[serde(default)]
    ignored: bool,
    #[serde(default)]
    replayed: bool,
}

#[derive(Default)]
struct PerHook {
    events: u64,
    observed: bool,
    blocked: u64,
    would_block: u64,
    rewrote: u64,
    would_rewrite: u64,
    errors: u64,
    times: Vec<Duration>,
}

/// The summary of an audit log's text, or why there is none. Lines that are not audit records
/// (another program's line, a recovery note) are counted and named, never fatal.
/// Records of replayed events are left out (and counted) unless `include_replayed`.
pub(crate) fn summarise(name: &str, text: &str, include_replayed: bool) -> Result<String, String> {
    let mut hooks: BTreeMap<String, PerHook> = BTreeMap::new();
    let mut skipped = Vec::new();
    let mut replayed = 0u64;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record = match serde_json::from_str::<Record>(line) {
            Ok(r) => r,
            Err(e) => {
                skipped.push(format!("{name}:{}: not an audit record ({e})", i + 1));
                continue;
            }
        };
        // A recording replayed through the config (`replay`, `diff`) is not what happened.
        if record.replayed && !include_replayed {
            replayed += 1;
            continue;
        }
        let h = hooks.entry(record.hook_id).or_default();
        h.observed |= record.observed;
        h.times.push(Duration::from_micros(record.duration_us));
        if record.error.is_some() {
            h.errors += 1;
        }
        if record.recheck {
            continue;
        }
        h.events += 1;
        let blocks = matches!(record.decision.as_str(), "block" | "halt") && !record.ignored;
        let rewrites = record.effects.iter().any(|e| e.starts_with("rewrite_") || e == "replace_summary");
        match record.observed {
            true => {
                h.would_block += u64::from(blocks);
                h.would_rewrite += u64::from(rewrites);
            }
            false => {
                h.blocked += u64::from(blocks);
                h.rewrote += u64::from(rewrites);
            }
        }
    }
    if hooks.is_empty() && replayed == 0 {
        return Err(format!("{name}: no audit record in it ({} line(s) that are not records); is it a hookhost audit log (`audit_log` or `--audit`)?", skipped.len()));
    }
    let mut out = String::new();
    let _ = writeln!(out, "{:<36} {:<8} {:>7} {:>8} {:>11} {:>8} {:>13} {:>7} {:>9} {:>9}", "hook", "mode", "events", "blocked", "would-block", "rewrote", "would-rewrite", "errors", "p50 µs", "p99 µs");
    for (id, h) in &hooks {
        let _ = writeln!(
            out,
            "{:<36} {:<8} {:>7} {:>8} {:>11} {:>8} {:>13} {:>7} {:>9.0} {:>9.0}",
            id,
            if h.observed { "observe" } else { "enforce" },
            h.events,
            h.blocked,
            h.would_block,
            h.rewrote,
            h.would_rewrite,
            h.errors,
            percentile(&h.times, 0.50),
            percentile(&h.times, 0.99)
        );
    }
    for s in &skipped {
        let _ = writeln!(out, "skipped {s}");
    }
    if replayed > 0 {
        let _ = writeln!(out, "left out {replayed} record(s) of replayed events (hookhost replay / diff): they are not traffic the hooks saw (--include-replayed counts them)");
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::summarise;

    #[test]
    fn counts_what_each_hook_did_and_would_have_done() {
        let log = [
            r#"{"hook_id":"user:guard","decision":"block","effects":[],"duration_us":10,"observed":true}"#,
            r#"{"hook_id":"user:guard","decision":"pass","effects":[],"duration_us":30,"observed":true}"#,
            r#"{"hook_id":"user:redact","decision":"pass","effects":["rewrite_input"],"duration_us":20}"#,
            r#"{"hook_id":"user:redact","decision":"pass","effects":[],"duration_us":20,"recheck":true}"#,
            r#"{"hook_id":"user:redact","decision":"block","effects":[],"duration_us":20,"error":"trap","on_error":"block"}"#,
            "not json",
            r#"{"hook_id":"user:guard","decision":"block","effects":[],"duration_us":90,"replayed":true}"#,
        ]
        .join("\n");
        let out = summarise("audit.jsonl", &log, false).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        let cols = |l: &str| l.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(cols(lines[1]), ["user:guard", "observe", "2", "0", "1", "0", "0", "0", "10", "30"]);
        assert_eq!(cols(lines[2]), ["user:redact", "enforce", "2", "1", "0", "1", "0", "1", "20", "20"]);
        assert_eq!(lines[3], "skipped audit.jsonl:6: not an audit record (expected ident at line 1 column 2)");
        assert_eq!(lines[4], "left out 1 record(s) of replayed events (hookhost replay / diff): they are not traffic the hooks saw (--include-replayed counts them)");
    }

    #[test]
    fn a_log_without_records_is_an_error_naming_it() {
        assert_eq!(
            summarise("x.jsonl", "hello\n\n", false).unwrap_err(),
            "x.jsonl: no audit record in it (1 line(s) that are not records); is it a hookhost audit log (`audit_log` or `--audit`)?"
        );
    }
}
