//! The readable table `hookhost replay` prints.

use hookhost::{HookEvent, Outcome};

pub struct Row {
    cells: [String; 7],
}

/// One printable line (control characters escaped: a reason cannot drive the terminal or
/// start a forged row), at most `max` characters.
fn clip(text: &str, max: usize) -> String {
    let one_line = hookhost::printable(text).into_owned();
    if one_line.chars().count() <= max {
        return one_line;
    }
    let cut: String = one_line.chars().take(max - 1).collect();
    format!("{cut}…")
}

/// An outcome's decision as a cell: `pass`, `block`, `pass +rewrite(arguments)`.
pub(crate) fn decision_cell(outcome: &Outcome) -> String {
    let mut decision = outcome.decision.as_str().to_string();
    if let Some(patch) = &outcome.patch {
        decision.push_str(&format!(" +rewrite({})", patch.keys().cloned().collect::<Vec<_>>().join(",")));
    }
    decision
}

pub(crate) fn subject(ev: &HookEvent) -> String {
    if let Some(tool) = ev.tool_name() {
        let args = ev.arguments().map(|a| ["command", "cmd", "commands", "path"].iter().find_map(|k| a.get(*k).and_then(|v| v.as_str())).map(str::to_string).unwrap_or_else(|| a.to_string()));
        return format!("{tool}: {}", args.unwrap_or_default());
    }
    ev.data.get("message").and_then(|m| m.as_str()).map(|m| format!("\"{m}\"")).unwrap_or_else(|| "-".into())
}

impl Row {
    pub fn new(line: usize, ev: &HookEvent, outcome: &Outcome) -> Row {
        let hooks = if outcome.hooks.is_empty() {
            "-".to_string()
        } else {
            outcome
                .hooks
                .iter()
                .filter(|h| !h.observed)
                .map(|h| {
                    let id = h.id.short();
                    let mark = if h.error.is_some() { "!" } else { "" };
                    // ↻: a re-check after a later hook rewrote the payload.
                    let again = if h.recheck { "↻" } else { "" };
                    format!("{id}={}{mark}{again}", h.decision.as_str())
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        // Hooks in observe mode: what they would have decided and changed, not applied.
        let observed: Vec<String> = outcome
            .hooks
            .iter()
            .filter(|h| h.observed)
            .map(|h| {
                let id = h.id.short();
                let effects = if h.effects.is_empty() { String::new() } else { format!("+{}", h.effects.join("+")) };
                format!("{id}={}{effects}{}", h.decision.as_str(), if h.error.is_some() { "!" } else { "" })
            })
            .collect();
        let observed = if observed.is_empty() { "-".to_string() } else { observed.join(" ") };
        let decision = decision_cell(outcome);
        let note = outcome
            .reason
            .clone()
            .or_else(|| outcome.hooks.iter().find_map(|h| h.error.clone()))
            .unwrap_or_default();
        Row { cells: [line.to_string(), ev.name.to_string(), clip(&subject(ev), 44), decision, hooks, observed, clip(&note, 70)] }
    }
}

/// `hookhost diff`: one row per event the two configs decide differently.
pub fn diff_table(rows: &[[String; 5]]) -> String {
    let rows: Vec<[String; 5]> = rows.iter().map(|[at, event, subject, change, why]| [at.clone(), event.clone(), clip(subject, 44), change.clone(), clip(why, 70)]).collect();
    grid(["at", "event", "subject", "old → new", "reason"], &rows)
}

pub fn render(rows: &[Row]) -> String {
    // The observed column only when a hook in observe mode ran.
    if rows.iter().any(|r| r.cells[5] != "-") {
        let cells: Vec<[String; 7]> = rows.iter().map(|r| r.cells.clone()).collect();
        return grid(["line", "event", "subject", "decision", "hooks", "observed (not applied)", "reason / error"], &cells);
    }
    let cells: Vec<[String; 6]> = rows.iter().map(|r| {
        let [line, event, subject, decision, hooks, _, note] = r.cells.clone();
        [line, event, subject, decision, hooks, note]
    }).collect();
    grid(["line", "event", "subject", "decision", "hooks", "reason / error"], &cells)
}

/// Columns padded to their widest cell; the last column is not padded.
fn grid<const N: usize>(header: [&str; N], rows: &[[String; N]]) -> String {
    let mut widths = header.map(|h| h.chars().count());
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; N]| {
        let mut out = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i == N - 1 {
                out.push_str(cell);
            } else {
                out.push_str(&format!("{cell:<w$}  "));
            }
        }
        out.trim_end().to_string() + "\n"
    };
    let mut out = line(header);
    for row in rows {
        out.push_str(&line(row.each_ref().map(String::as_str)));
    }
    out
}

fn executor(h: &hookhost::HookSpec) -> String {
    let mut text = h.plugin.to_string();
    let s = &h.settings;
    if let Some(d) = s.get("dialect").and_then(|v| v.as_str()) {
        text.push_str(&format!(" {d}"));
    }
    if let Some(m) = s.get("mode").and_then(|v| v.as_str()) {
        text.push_str(&format!(" {m}"));
    }
    if let Some(c) = s.get("command").and_then(|v| v.as_str()) {
        text.push_str(&format!(": {}", clip(c, 50)));
    }
    text
}

fn matcher(h: &hookhost::HookSpec) -> String {
    h.matcher_spec.as_ref().map(|m| serde_json::to_string(m).unwrap_or_default()).unwrap_or_else(|| "-".into())
}

/// `hookhost config show`: one row per hook, in chain order.
pub fn hooks_table(config: &hookhost::Plan) -> String {
    let rows: Vec<[String; 7]> = config
        .hooks()
        .iter()
        .map(|h| [h.id.to_string(), h.event.to_string(), matcher(h), h.limits.timeout.as_millis().to_string(), h.on_error.as_str().to_string(), h.mode.as_str().to_string(), executor(h)])
        .collect();
    let mut out = grid(["id", "event", "matcher", "timeout_ms", "on_error", "mode", "executor"], &rows);
    for id in config.muted() {
        out.push_str(&format!("(muted by disabled_contributions: {id})\n"));
    }
    out
}

/// `hookhost config show --json`.
pub fn hooks_json(config: &hookhost::Plan) -> serde_json::Value {
    let hooks: Vec<serde_json::Value> = config
        .hooks()
        .iter()
        .map(|h| {
            serde_json::json!({
                "id": h.id, "event": h.event.as_str(), "matcher": h.matcher_spec, "timeout_ms": h.limits.timeout.as_millis() as u64,
                "on_error": h.on_error.as_str(), "plugin": h.plugin.to_string(), "settings": h.settings,
                "layer": layer_of(config, &h.id),
            })
        })
        .collect();
    serde_json::json!({"hooks": hooks, "muted": config.muted()})
}

/// The layer a hook came from.
fn layer_of(plan: &hookhost::Plan, id: &str) -> Option<&'static str> {
    plan.layers().iter().find(|l| l.hooks.iter().any(|h| h == id)).map(|l| l.kind.as_str())
}

/// `hookhost config show --layers`: each layer with its file, settings and hooks, then what the
/// policies removed or changed, then a project that did not load.
pub fn layers_table(plan: &hookhost::Plan, unapproved: Option<&str>) -> String {
    let mut out = String::new();
    for l in plan.layers() {
        out.push_str(&format!("{} layer: {}
", l.kind, l.source.display()));
        for s in &l.settings {
            out.push_str(&format!("  setting  {s}
"));
        }
        for h in &l.hooks {
            out.push_str(&format!("  hook     {h}
"));
        }
        if l.settings.is_empty() && l.hooks.is_empty() {
            out.push_str("  (nothing)
");
        }
    }
    for id in plan.muted() {
        out.push_str(&format!("muted by disabled_contributions: {id}
"));
    }
    out.push_str(&restrictions(plan.restrictions()));
    if let Some(note) = unapproved {
        out.push_str(&format!("not loaded: {note}
"));
    }
    out
}

/// `hookhost config show --layers --json`.
pub fn layers_json(plan: &hookhost::Plan, unapproved: Option<&str>) -> serde_json::Value {
    serde_json::json!({"layers": plan.layers(), "muted": plan.muted(), "restrictions": plan.restrictions(), "unapproved_project": unapproved})
}

/// Where each layer came from (`check`): one line each, the managed file saying whether the
/// environment named it.
pub fn layer_sources(layers: &[(&str, std::path::PathBuf)]) -> String {
    let mut out = String::new();
    for (kind, source) in layers {
        let how = match *kind {
            "managed" => match hookhost_types::paths::managed_config().1 {
                hookhost_types::paths::ManagedSource::Env => format!(" (named by HOOKHOST_MANAGED_CONFIG; an installed {} would win)", hookhost_types::paths::SYSTEM_MANAGED_CONFIG),
                _ => " (installed)".into(),
            },
            "user" if source.to_string_lossy().starts_with('<') => " (no user config: the built-in guard and redactors)".into(),
            _ => String::new(),
        };
        out.push_str(&format!("layer {kind}: {}{how}\n", source.display()));
    }
    out
}

/// What the layers' policies removed or changed (`check`, `config show --layers`).
pub fn restrictions(lines: &[String]) -> String {
    if lines.is_empty() {
        return String::new();
    }
    let mut out = format!("restricted: {} thing(s) removed or changed by a layer's policy:\n", lines.len());
    for l in lines {
        out.push_str(&format!("  {l}\n"));
    }
    out
}

/// What `check` prints after its first line: where each hook runs (and, for a converted peer
/// hook that cannot run in the sandbox, what it needs and the line that fixes it), the hooks
/// loaded but not run, and what was ignored.
pub fn check_report(report: &[hookhost::HookReport], not_run: &[hookhost::config::NotRun], warnings: &[String]) -> String {
    let mut out = String::new();
    let mut mounts: Vec<&std::path::Path> = Vec::new();
    for r in report {
        let mut facts = vec![r.runs.as_str().to_string(), format!("timeout {}", human_duration(r.timeout))];
        if r.background {
            facts.push("background".into());
        }
        if r.once {
            facts.push("once per session".into());
        }
        out.push_str(&format!("  {} ({}): {}\n", r.id, r.event, facts.join(", ")));
        for note in &r.notes {
            out.push_str(&format!("    {note}\n"));
        }
        if let Some(dir) = r.read_dir.as_deref().filter(|d| !mounts.contains(d)) {
            mounts.push(dir);
        }
        match (r.runnable, r.needs.as_deref()) {
            (true, _) => {}
            (false, Some(grant)) if grant.starts_with("net:http:") => out.push_str(&format!("    if you trust that host: pass --grant {grant} (or add grants = [\"{grant}\"] to its [[peers]] entry); until then it cannot run: a block on events that can block (peer_start_failure), a warning on others\n")),
            (false, _) => out.push_str("    to run it as a real process, as its runtime would: pass --grant process:exec (or add grants = [\"process:exec\"] to its [[peers]] entry); until then it cannot start: a block on events that can block (peer_start_failure), a warning on others\n"),
        }
    }
    for dir in mounts {
        out.push_str(&format!("sandboxed shell hooks see the project {}, read-only\n", dir.display()));
    }
    if !not_run.is_empty() {
        out.push_str(&format!("not run: {} hook(s) load but do not run:\n", not_run.len()));
        for n in not_run {
            out.push_str(&format!("  {} ({} on {}): {}\n", n.at, n.kind, n.event, n.why));
        }
    }
    if !warnings.is_empty() {
        out.push_str(&format!("warnings: {}\n", warnings.len()));
        for w in warnings {
            out.push_str(&format!("  {w}\n"));
        }
    }
    out
}

/// The rules each built-in guard hook enforces, as its `packs` and `allow` settings leave them
/// (`hookhost check -v`).
pub fn guard_rules(report: &[hookhost::HookReport]) -> String {
    use guard_destructive::{Policy, Verdict, PACKS};
    let mut out = String::new();
    for r in report.iter().filter(|r| r.plugin == "builtin:guard-destructive") {
        let settings: serde_json::Value = serde_json::from_str(&r.settings).unwrap_or_default();
        // The hook loaded, so its settings were accepted: the guard's own reading of them.
        let policy = match Policy::from_settings(&settings) {
            Ok(policy) => policy,
            Err(why) => {
                out.push_str(&format!("\nguard {}: {why}\n", r.id));
                continue;
            }
        };
        let (packs, rules) = (policy.packs(), policy.rules());
        out.push_str(&format!("\nguard {}: packs {} (of {}); {} rule(s) in force\n", r.id, if packs.is_empty() { "none".to_string() } else { packs.join(", ") }, PACKS.join(", "), rules.len()));
        for rule in rules {
            let verdict = if rule.verdict == Verdict::Block { "block" } else { "ask" };
            out.push_str(&format!("  {verdict:5} {:27} {}\n", rule.name, rule.what));
        }
        if !policy.allow.is_empty() {
            out.push_str(&format!("  allowed: {}\n", policy.allow.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>().join(", ")));
        }
    }
    out
}

/// `check -v`: what each hook's plugin costs, against its limits.
pub fn profile(profiles: &[hookhost::HookProfile]) -> String {
    let mut out = String::from("\nplugins (a fresh instance on a sample event of each hook's kind):\n");
    for p in profiles {
        out.push_str(&format!("  {} — {}, {}, loaded in {} ({})\n", p.id, p.plugin, human_bytes(p.size), human_micros(p.load_time), p.code.describe()));
        match &p.sample {
            Ok((memory, fuel)) => out.push_str(&format!(
                "    memory {} of {} (memory_mib); fuel {} of {} a call (fuel)\n",
                human_bytes(*memory),
                human_bytes(p.memory_limit),
                thousands(*fuel),
                thousands(p.fuel_limit)
            )),
            Err(why) => out.push_str(&format!("    {}\n", clip(why, 160))),
        }
        out.push_str(&format!("    imports ({}): {}\n", p.imports.len(), p.imports.join(", ")));
    }
    out
}

/// A size as people read it: `0.5 KiB`, `655.5 KiB`, `17.6 MiB`.
pub(crate) fn human_bytes(n: usize) -> String {
    if n >= 1 << 20 {
        format!("{:.1} MiB", n as f64 / f64::from(1u32 << 20))
    } else {
        format!("{:.1} KiB", n as f64 / 1024.0)
    }
}

fn human_micros(d: std::time::Duration) -> String {
    match d.as_micros() {
        us if us >= 1000 => format!("{:.1} ms", us as f64 / 1000.0),
        us => format!("{us} µs"),
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn human_duration(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if ms >= 1000 && ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_cell_is_one_inert_line() {
        assert_eq!(super::clip("bad\u{1b}]0;pwned\u{7}\nsecond", 70), "bad\\u{1b}]0;pwned\\u{7}\\nsecond");
        assert_eq!(super::clip("abcdef", 4), "abc…");
    }

    #[test]
    fn figures_read_as_people_write_them() {
        assert_eq!((super::thousands(17215), super::thousands(10_000_000), super::thousands(7)), ("17,215".into(), "10,000,000".into(), "7".into()));
        assert_eq!((super::human_bytes(512), super::human_bytes(1536), super::human_bytes(64 << 20)), ("0.5 KiB".into(), "1.5 KiB".into(), "64.0 MiB".into()));
    }
}
