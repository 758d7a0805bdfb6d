//! `hookhost coverage SESSION...`: the tool calls an agent made (its own transcripts: Claude
//! Code session files, Codex rollout files, GitHub Copilot CLI's session events, Gemini CLI's
//! chat files) joined with hookhost's audit log — which of them
//! never reached hookhost, per tool and per path (a subagent, an MCP tool, a session whose hooks
//! never ran), so that a runtime's gaps are seen instead of assumed away.
//!
//! The join is per session and tool: the transcript's `PreToolUse` calls against the audit
//! log's `pre_tool_use` dispatches of the same session and tool. A dispatch is counted once: by
//! its first record where the config sets `audit_events = true` (the record keeps the event),
//! else by the hook that ran most often for that session and tool (every hook of a dispatch
//! writes a record; a re-check is not a dispatch). Replayed records (`hookhost replay`, `diff`)
//! are not dispatches a runtime made.

use crate::transcripts;
use crate::usage;
use anyhow::Result;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub(crate) struct CoverageArgs {
    /// hookhost's audit log (repeatable: every machine's, every rotation). Default: the
    /// `audit_log` of the config in effect here.
    #[arg(long, value_name = "FILE")]
    pub audit: Vec<PathBuf>,
    /// One JSON object instead of tables.
    #[arg(long)]
    pub json: bool,
    /// Claude Code session files (`~/.claude/projects/*/*.jsonl`, their `subagents/`), Codex
    /// rollout files (`~/.codex/sessions/**/rollout-*.jsonl`), Copilot CLI session events
    /// (`~/.copilot/session-state/*/events.jsonl`), Gemini CLI chats
    /// (`~/.gemini/tmp/*/chats/session-*.jsonl`), or directories holding them.
    #[arg(required = true, value_name = "SESSION")]
    pub sessions: Vec<PathBuf>,
}

/// One tool call of a transcript.
struct Call {
    session: String,
    tool: String,
    path: &'static str,
}

/// Where a call was made.
fn path_of(file: &Path, tool: &str) -> &'static str {
    let in_subagent = file.components().any(|c| c.as_os_str() == "subagents") || file.file_name().is_some_and(|n| n.to_string_lossy().starts_with("agent-"));
    if in_subagent {
        "subagent"
    } else if tool.starts_with("mcp__") || tool.starts_with("mcp_") {
        "mcp tool"
    } else {
        "main agent"
    }
}

/// The session files under `path` (itself when a file).
fn session_files(path: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.is_file() {
        out.push(path.to_path_buf());
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?.flatten().map(|e| e.path()).collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            session_files(&e, out)?;
        } else if e.extension().is_some_and(|x| x == "jsonl") {
            out.push(e);
        }
    }
    Ok(())
}

/// The tool calls of a transcript hookhost reads for coverage only (not as events to replay):
/// GitHub Copilot CLI's `events.jsonl` (`session.start` names the session; each
/// `tool.execution_start` is a call, `toolName`) and Gemini CLI's chat files (the first line
/// names the session; each `toolCalls` entry of a `gemini` message is a call — a message is
/// written again as it completes, so calls are counted once by their `id`). `None`: neither.
fn other_transcript(file: &Path, text: &str) -> Option<(&'static str, Vec<Call>)> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty()).filter_map(|l| serde_json::from_str::<Value>(l).ok());
    let first = lines.next()?;
    if first["type"] == "session.start" && first["data"]["producer"] == "copilot-agent" {
        let session = first["data"]["sessionId"].as_str()?.to_string();
        let calls = lines
            .filter(|e| e["type"] == "tool.execution_start")
            .filter_map(|e| e["data"]["toolName"].as_str().map(str::to_string))
            .map(|tool| Call { session: session.clone(), path: path_of(file, &tool), tool })
            .collect();
        return Some(("GitHub Copilot CLI session", calls));
    }
    if first["sessionId"].is_string() && first.get("projectHash").is_some() {
        let session = first["sessionId"].as_str()?.to_string();
        let mut seen = std::collections::BTreeSet::new();
        let mut calls = Vec::new();
        for m in lines.filter(|m| m["type"] == "gemini") {
            for c in m["toolCalls"].as_array().into_iter().flatten() {
                let (Some(id), Some(tool)) = (c["id"].as_str(), c["name"].as_str()) else { continue };
                if seen.insert(id.to_string()) {
                    calls.push(Call { session: session.clone(), path: path_of(file, tool), tool: tool.to_string() });
                }
            }
        }
        return Some(("Gemini CLI chat", calls));
    }
    None
}

/// The dispatches per (session, tool) an audit log records.
fn dispatches(file: &Path, into: &mut BTreeMap<(String, String), Dispatches>) -> Result<(), String> {
    let text = transcripts::read_recording(file, "audit log")?;
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let r: Value = serde_json::from_str(line).map_err(|e| format!("{}:{}: not JSON ({e}); is this hookhost's audit log?", file.display(), i + 1))?;
        if r["event"] != "pre_tool_use" || r["replayed"] == true || r["recheck"] == true {
            continue;
        }
        let (Some(session), Some(tool)) = (r["session_id"].as_str(), r["tool_name"].as_str()) else { continue };
        let d = into.entry((session.to_string(), tool.to_string())).or_default();
        if r.get("event_data").is_some() {
            d.with_event += 1;
        }
        *d.per_hook.entry(r["hook_id"].as_str().unwrap_or("").to_string()).or_default() += 1;
    }
    Ok(())
}

#[derive(Default)]
struct Dispatches {
    with_event: usize,
    per_hook: BTreeMap<String, usize>,
}

impl Dispatches {
    fn count(&self) -> usize {
        if self.with_event > 0 {
            self.with_event
        } else {
            self.per_hook.values().copied().max().unwrap_or(0)
        }
    }
}

#[derive(Serialize, Default, Clone)]
struct Row {
    calls: usize,
    reached: usize,
    missed: usize,
}

pub(crate) async fn coverage(args: CoverageArgs) -> Result<ExitCode> {
    let audits = if args.audit.is_empty() {
        let host = crate::loading::load(&crate::HostArgs { config: None, dialect: None, audit: None, grant: vec![], locked: false, no_project: false, verbose: false }).await?;
        match host.audit_log() {
            Some(log) => vec![log.path().to_path_buf()],
            None => return Err(usage("no audit log to join: the config in effect sets no audit_log; pass --audit FILE, or set audit_log in the config so hookhost records each call (docs/CONFIG.md, \"Audit log\")")),
        }
    } else {
        args.audit.clone()
    };
    let mut seen = BTreeMap::new();
    for a in &audits {
        dispatches(a, &mut seen).map_err(usage)?;
    }
    let mut files = Vec::new();
    for s in &args.sessions {
        session_files(s, &mut files).map_err(usage)?;
    }
    let mut calls = Vec::new();
    let mut unread = Vec::new();
    for f in &files {
        let name = f.display().to_string();
        let text = transcripts::read_recording(f, "session").map_err(usage)?;
        if let Some((_, found)) = other_transcript(f, &text) {
            calls.extend(found);
            continue;
        }
        let read = transcripts::read_each(&name, &text, &mut |_, ev| {
            if ev.name == hookhost::EventName::PreToolUse {
                let tool = ev.tool_name().unwrap_or("?").to_string();
                calls.push(Call { session: ev.session_id.clone(), path: path_of(f, &tool), tool });
            }
        });
        match read {
            Ok(summary) if summary.kind == "Claude Code transcript" || summary.kind == "Codex rollout" => {}
            Ok(summary) => unread.push(format!("{name}: a {}, not an agent's transcript: left out", summary.kind)),
            Err(e) => unread.push(e),
        }
    }
    // Per session and tool: the transcript's calls against the log's dispatches.
    let mut per_key: BTreeMap<(String, String), (usize, &'static str)> = BTreeMap::new();
    for c in &calls {
        let e = per_key.entry((c.session.clone(), c.tool.clone())).or_insert((0, c.path));
        e.0 += 1;
    }
    let sessions_seen: std::collections::BTreeSet<&str> = seen.keys().map(|(s, _)| s.as_str()).collect();
    let mut by_tool: BTreeMap<String, Row> = BTreeMap::new();
    let mut by_path: BTreeMap<String, Row> = BTreeMap::new();
    let mut gaps = Vec::new();
    for ((session, tool), (n, path)) in &per_key {
        let reached = seen.get(&(session.clone(), tool.clone())).map_or(0, Dispatches::count).min(*n);
        let missed = n - reached;
        // A session hookhost has no record of at all: its hooks never ran.
        let path = if !sessions_seen.contains(session.as_str()) { "hooks never ran in the session" } else { path };
        for row in [by_tool.entry(tool.clone()).or_default(), by_path.entry(path.to_string()).or_default()] {
            row.calls += n;
            row.reached += reached;
            row.missed += missed;
        }
        if missed > 0 {
            gaps.push(serde_json::json!({"session": session, "tool": tool, "path": path, "calls": n, "reached": reached, "missed": missed}));
        }
    }
    let total: usize = by_tool.values().map(|r| r.calls).sum();
    let missed: usize = by_tool.values().map(|r| r.missed).sum();
    if args.json {
        let out = serde_json::json!({"calls": total, "missed": missed, "by_tool": by_tool, "by_path": by_path, "gaps": gaps, "audit_logs": audits, "sessions": files.len(), "left_out": unread});
        say!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        for u in &unread {
            eprintln!("hookhost: {u}");
        }
        let table = |title: &str, rows: &BTreeMap<String, Row>| {
            say!("{title:<32} {:>7} {:>8} {:>7}", "calls", "reached", "missed");
            for (k, r) in rows {
                say!("{k:<32} {:>7} {:>8} {:>7}", r.calls, r.reached, r.missed);
            }
        };
        table("tool", &by_tool);
        say!();
        table("path", &by_path);
        for g in &gaps {
            say!("gap: session {} — {} of {} {} call(s) never reached hookhost ({})", g["session"].as_str().unwrap_or(""), g["missed"], g["calls"], g["tool"].as_str().unwrap_or(""), g["path"].as_str().unwrap_or(""));
        }
        say!("{total} tool call(s) in {} session file(s); {missed} never reached hookhost", files.len());
    }
    if total == 0 {
        return Err(usage("no tool call in the sessions given: name Claude Code session files or Codex rollout files (or the directories holding them)"));
    }
    Ok(if missed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
