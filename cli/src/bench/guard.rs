//! `hookhost bench --guard`: the guard's cost per corpus file, a decision at a time.

use super::*;

/// One corpus file's run through the guard component (`hookhost bench guard`).
#[derive(Debug, Serialize)]
pub struct GuardFile {
    /// The corpus file (`core-git.txt`).
    pub file: String,
    /// Its cases.
    pub cases: usize,
    /// How many the component decided as the corpus says.
    pub agree: usize,
    /// Its cases by what they expect: block, ask, allow.
    pub expect: [usize; 3],
    /// Median time of one decision (a fresh instance each), µs.
    pub p50_us: f64,
    /// The cases it decided otherwise: `file:line: command: want X, got Y`.
    pub disagreements: Vec<String>,
}

/// `hookhost bench guard`: every case of the guard's corpus (plugins/guard-destructive/corpus)
/// through the guard component — the built-in one with its shipped settings (self-protection
/// on), or `plugin` — as a `pre_tool_use` of the case's tool (a shell tool unless it names
/// another) with the case's `cwd`, each a fresh instance; per file, how many it decides as
/// written.
pub async fn guard(plugin: Option<&Path>) -> Result<Vec<GuardFile>> {
    use guard_destructive::Verdict;
    let plugin = match plugin {
        Some(p) => Some(std::fs::canonicalize(p).with_context(|| format!("--plugin {}", p.display()))?),
        None => None,
    };
    // One host per `packs` setting the corpus asks for. A `--plugin` that refuses a `packs`
    // setting disagrees on those cases; the rest still run.
    let mut hosts: Vec<(Option<Vec<&str>>, Result<Host, String>)> = Vec::new();
    let cases = guard_destructive::corpus::cases().map_err(anyhow::Error::msg)?;
    for case in &cases {
        if hosts.iter().any(|(packs, _)| *packs == case.packs) {
            continue;
        }
        let mut settings = Vec::new();
        if let Some(packs) = &case.packs {
            settings.push(format!("packs = [{}]", packs.iter().map(|p| toml_string(p)).collect::<Vec<_>>().join(", ")));
        }
        let name = plugin.as_ref().map_or("\"builtin:guard-destructive\"".to_string(), |p| toml_string(&p.to_string_lossy()));
        // On post_tool_use too: the `taint` cases' results (`ran`) reach it there.
        let executor = format!("executor = {{ plugin = {name}, settings = {{ {} }} }}", settings.join(", "));
        let loaded = host_on(&["pre_tool_use", "post_tool_use"], &executor, hookhost::kv::StateStore::in_memory(Default::default())).await;
        if case.packs.is_none() || plugin.is_none() {
            // The plain host must load: without it nothing runs.
            hosts.push((case.packs.clone(), Ok(loaded?)));
        } else {
            hosts.push((case.packs.clone(), loaded.map_err(|e| format!("{e:#}"))));
        }
    }
    let mut files: Vec<GuardFile> = Vec::new();
    let mut samples: Vec<Vec<Duration>> = Vec::new();
    for case in &cases {
        if files.last().is_none_or(|f| f.file != case.file) {
            files.push(GuardFile { file: case.file.to_string(), cases: 0, agree: 0, expect: [0; 3], p50_us: 0.0, disagreements: Vec::new() });
            samples.push(Vec::new());
        }
        let (file, times) = (files.last_mut().unwrap(), samples.last_mut().unwrap());
        let (tool, arguments) = case.call().map_err(anyhow::Error::msg)?;
        let mut event = match &case.result {
            // A `ran` case: the call's result, which the guard sees and passes.
            Some(output) => {
                let mut data = serde_json::Map::new();
                data.insert("tool_name".into(), tool.into());
                data.insert("tool_call_id".into(), "call_1".into());
                data.insert("arguments".into(), arguments);
                data.insert("result".into(), Value::String(output.clone()));
                HookEvent::new(hookhost::EventName::PostToolUse, data)
            }
            None => HookEvent::pre_tool_use(tool, arguments),
        };
        event.cwd = case.cwd.map(str::to_string);
        event.session_id = case.session_id();
        let want = match case.expect {
            Some(Verdict::Block) => "block",
            Some(Verdict::Ask) => "ask",
            None => "allow",
        };
        file.cases += 1;
        file.expect[match want { "block" => 0, "ask" => 1, _ => 2 }] += 1;
        let host = match &hosts.iter().find(|(packs, _)| *packs == case.packs).expect("a host for every packs setting").1 {
            Ok(host) => host,
            Err(e) => {
                file.disagreements.push(format!("{}:{}: {:?}: not run: with packs = {:?} the plugin does not load: {e}", case.file, case.line, case.command, case.packs.as_deref().unwrap_or_default()));
                continue;
            }
        };
        let started = Instant::now();
        let outcome = host.dispatch(&event).await;
        times.push(started.elapsed());
        let got = match outcome.decision {
            hookhost::VerdictKind::Block | hookhost::VerdictKind::Halt => "block",
            hookhost::VerdictKind::Ask => "ask",
            _ => "allow",
        };
        let rule_ok = want == "allow" || outcome.reason.as_deref().is_some_and(|r| r.contains(&format!("(rule {})", case.rule)));
        if got == want && rule_ok && outcome.hooks.iter().all(|h| h.error.is_none()) {
            file.agree += 1;
        } else {
            let error = outcome.hooks.iter().find_map(|h| h.error.clone()).map(|e| format!(" (error: {e})")).unwrap_or_default();
            file.disagreements.push(format!("{}:{}: {:?}: want {want} by {}, got {got}: {}{error}", case.file, case.line, case.command, case.rule, outcome.reason.as_deref().unwrap_or("-")));
        }
    }
    for (file, times) in files.iter_mut().zip(&samples) {
        file.p50_us = crate::stats::percentile(times, 0.5);
    }
    Ok(files)
}

/// The agreement table of `hookhost bench guard`.
pub fn render_guard(files: &[GuardFile], plugin: &str) -> String {
    let total: usize = files.iter().map(|f| f.cases).sum();
    let agree: usize = files.iter().map(|f| f.agree).sum();
    let mut out = format!("hookhost bench guard: {total} corpus cases through {plugin}, a fresh instance per case\n\n");
    out.push_str(&format!("{:24} {:>6} {:>14} {:>6} {:>5} {:>6} {:>9}\n", "corpus file", "cases", "agree", "block", "ask", "allow", "p50"));
    let pct = |a: usize, n: usize| if n == 0 { 100.0 } else { a as f64 * 100.0 / n as f64 };
    for f in files {
        out.push_str(&format!("{:24} {:>6} {:>6} ({:>5.1}%) {:>6} {:>5} {:>6} {:>6.1} µs\n", f.file, f.cases, f.agree, pct(f.agree, f.cases), f.expect[0], f.expect[1], f.expect[2], f.p50_us));
    }
    out.push_str(&format!("{:24} {:>6} {:>6} ({:>5.1}%)\n", "all", total, agree, pct(agree, total)));
    let wrong: Vec<&String> = files.iter().flat_map(|f| &f.disagreements).collect();
    if !wrong.is_empty() {
        out.push_str(&format!("\n{} decided otherwise:\n", wrong.len()));
        for w in wrong.iter().take(50) {
            out.push_str(&format!("  {w}\n"));
        }
    }
    out
}
