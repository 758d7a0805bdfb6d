//! `hookhost diff --config OLD --config NEW SESSION...`: replay recorded sessions through two
//! configs and show every event on which they decide differently — the check before a policy
//! change ships (exit 1 when anything differs, so CI can gate a bundle release on it).

use crate::oneshot::to_stdout;
use crate::table;
use crate::transcripts;
use anyhow::Result;
use hookhost::{Host, Outcome};
use std::path::PathBuf;
use std::process::ExitCode;

/// What an outcome decides: its verdict, its rewrites, its other effects.
fn decided(o: &Outcome) -> (String, String, String) {
    (o.decision.as_str().to_string(), serde_json::to_string(&o.patch).unwrap_or_default(), serde_json::to_string(&o.effects).unwrap_or_default())
}

/// How one side reads in the table: the decision, `+rewrite(...)`, `+effects`.
fn side(o: &Outcome) -> String {
    let mut s = table::decision_cell(o);
    if !o.effects.is_empty() {
        s.push_str(&format!(" +{}", o.effects.iter().map(hookhost::Effect::name).collect::<Vec<_>>().join("+")));
    }
    s
}

/// A difference, for `--json`.
#[derive(serde::Serialize)]
struct Difference<'a> {
    file: String,
    line: usize,
    event: serde_json::Value,
    old: &'a Outcome,
    new: &'a Outcome,
}

pub(crate) async fn diff(old: &Host, new: &Host, sessions: &[PathBuf], json: bool) -> Result<ExitCode> {
    let (mut events, mut differ, mut newly_blocked, mut unblocked, mut skipped) = (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut rows: Vec<[String; 5]> = Vec::new();
    let mut read_any = false;
    for path in sessions {
        let name = path.display().to_string();
        let text = transcripts::read_recording(path, "session file").map_err(crate::usage)?;
        // Read as it runs: one event in memory at a time (and a few read ahead).
        let (mut stream, reader) = transcripts::stream(name.clone(), text, 64);
        let mut here = transcripts::replay_here(&name);
        let mut closed = false;
        while let Some((line, event)) = stream.recv().await {
            if closed {
                continue;
            }
            let event = &here(event);
            events += 1;
            let (a, b) = (old.dispatch(event).await, new.dispatch(event).await);
            if decided(&a) == decided(&b) {
                continue;
            }
            differ += 1;
            let (was, is) = (a.decision.as_str(), b.decision.as_str());
            let blocks = |d: &str| matches!(d, "block" | "halt");
            newly_blocked += usize::from(blocks(is) && !blocks(was));
            unblocked += usize::from(blocks(was) && !blocks(is));
            if json {
                let d = Difference { file: name.clone(), line, event: event.to_value(), old: &a, new: &b };
                closed = !to_stdout(&format!("{}\n", serde_json::to_string(&d)?))?;
            } else {
                let why = b.reason.clone().or_else(|| a.reason.clone()).unwrap_or_default();
                rows.push([format!("{name}:{line}"), event.name.to_string(), table::subject(event), format!("{} → {}", side(&a), side(&b)), why]);
            }
        }
        let session = reader.join().map_err(|_| crate::usage(format!("{name}: the reader failed")))?.map_err(crate::usage)?;
        if closed {
            return Ok(ExitCode::from(1));
        }
        read_any = true;
        let without: usize = session.other.values().sum();
        eprintln!(
            "hookhost: {name}: read as a {}: {} event(s){}",
            session.kind,
            session.events,
            if without > 0 { format!(", {without} line(s) with no hook event ({})", session.other.keys().cloned().collect::<Vec<_>>().join(", ")) } else { String::new() }
        );
        for s in &session.skipped {
            eprintln!("hookhost: {s}: skipped (not understood)");
        }
        skipped += session.skipped.len();
    }
    if !read_any {
        return Err(crate::usage("name at least one session file"));
    }
    if !json && !rows.is_empty() && !to_stdout(&table::diff_table(&rows))? {
        return Ok(ExitCode::from(1));
    }
    eprintln!(
        "{events} event(s) from {} file(s): {differ} decided differently ({newly_blocked} newly blocked, {unblocked} no longer blocked, {} otherwise changed){}",
        sessions.len(),
        differ - newly_blocked - unblocked,
        if skipped > 0 { format!("; {skipped} line(s) not understood, named above") } else { String::new() }
    );
    Ok(if differ > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
