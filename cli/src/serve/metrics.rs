//! `/metrics`: per route and status, per hook invocations, decisions, errors and a latency
//! histogram, config reloads — as Prometheus text.

use hookhost::Outcome;
use std::collections::BTreeMap;

/// Latency buckets of the histogram, in seconds.
const BUCKETS: [f64; 10] = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1.0];

#[derive(Default)]
pub(super) struct HookMetrics {
    invocations: u64,
    decisions: BTreeMap<&'static str, u64>,
    /// What observe-mode hooks would have decided (never applied).
    observed: BTreeMap<&'static str, u64>,
    errors: BTreeMap<String, u64>,
    buckets: [u64; BUCKETS.len()],
    sum_seconds: f64,
}

#[derive(Default)]
pub(super) struct Metrics {
    pub(super) requests: BTreeMap<(String, u16), u64>,
    pub(super) hooks: BTreeMap<String, HookMetrics>,
    pub(super) reloads: BTreeMap<&'static str, u64>,
}

impl Metrics {
    pub(super) fn record(&mut self, outcome: &Outcome) {
        for trace in &outcome.hooks {
            let m = self.hooks.entry(trace.id.to_string()).or_default();
            m.invocations += 1;
            let counts = if trace.observed { &mut m.observed } else { &mut m.decisions };
            *counts.entry(trace.decision.as_str()).or_default() += 1;
            if let Some(error) = &trace.error {
                // The kind of failure, not its text: a bounded label set.
                let kind = error.split_whitespace().nth(1).unwrap_or("error").trim_end_matches(':').to_string();
                *m.errors.entry(kind).or_default() += 1;
            }
            let seconds = trace.duration_us as f64 / 1e6;
            m.sum_seconds += seconds;
            for (i, le) in BUCKETS.iter().enumerate() {
                if seconds <= *le {
                    m.buckets[i] += 1;
                }
            }
        }
    }

    pub(super) fn render(&self) -> String {
        let mut out = String::new();
        out.push_str("# HELP hookhost_requests_total HTTP requests served, by route and status.\n# TYPE hookhost_requests_total counter\n");
        for ((route, status), n) in &self.requests {
            out.push_str(&format!("hookhost_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}\n"));
        }
        out.push_str("# HELP hookhost_reloads_total Config reloads, by result.\n# TYPE hookhost_reloads_total counter\n");
        for (result, n) in &self.reloads {
            out.push_str(&format!("hookhost_reloads_total{{result=\"{result}\"}} {n}\n"));
        }
        out.push_str("# HELP hookhost_hook_invocations_total Hook invocations.\n# TYPE hookhost_hook_invocations_total counter\n");
        for (hook, m) in &self.hooks {
            out.push_str(&format!("hookhost_hook_invocations_total{{hook=\"{hook}\"}} {}\n", m.invocations));
        }
        out.push_str("# HELP hookhost_hook_decisions_total Hook verdicts, by decision.\n# TYPE hookhost_hook_decisions_total counter\n");
        for (hook, m) in &self.hooks {
            for (decision, n) in &m.decisions {
                out.push_str(&format!("hookhost_hook_decisions_total{{hook=\"{hook}\",decision=\"{decision}\"}} {n}\n"));
            }
        }
        out.push_str("# HELP hookhost_hook_observed_total What hooks in observe mode would have decided (not applied), by decision.\n# TYPE hookhost_hook_observed_total counter\n");
        for (hook, m) in &self.hooks {
            for (decision, n) in &m.observed {
                out.push_str(&format!("hookhost_hook_observed_total{{hook=\"{hook}\",decision=\"{decision}\"}} {n}\n"));
            }
        }
        out.push_str("# HELP hookhost_hook_errors_total Hook executor failures, by kind.\n# TYPE hookhost_hook_errors_total counter\n");
        for (hook, m) in &self.hooks {
            for (kind, n) in &m.errors {
                out.push_str(&format!("hookhost_hook_errors_total{{hook=\"{hook}\",kind=\"{kind}\"}} {n}\n"));
            }
        }
        out.push_str("# HELP hookhost_hook_duration_seconds Hook invocation time.\n# TYPE hookhost_hook_duration_seconds histogram\n");
        for (hook, m) in &self.hooks {
            for (i, le) in BUCKETS.iter().enumerate() {
                out.push_str(&format!("hookhost_hook_duration_seconds_bucket{{hook=\"{hook}\",le=\"{le}\"}} {}\n", m.buckets[i]));
            }
            out.push_str(&format!("hookhost_hook_duration_seconds_bucket{{hook=\"{hook}\",le=\"+Inf\"}} {}\n", m.invocations));
            out.push_str(&format!("hookhost_hook_duration_seconds_sum{{hook=\"{hook}\"}} {}\n", m.sum_seconds));
            out.push_str(&format!("hookhost_hook_duration_seconds_count{{hook=\"{hook}\"}} {}\n", m.invocations));
        }
        out
    }
}
