//! Recorded sessions as hook events, for `hookhost diff` (and any replay): hookhost's own JSONL
//! sessions (one event per line, any runtime's flat shape), and two agents' own transcripts,
//! read as they are written:
//!
//! - **Claude Code** session files (`~/.claude/projects/<project>/<session>.jsonl`): a `user`
//!   line whose `message.content` is text is a `UserPromptSubmit`; each `tool_use` block of an
//!   `assistant` line a `PreToolUse` (`name`, `input`); each `tool_result` block of a `user`
//!   line a `PostToolUse` of the call it answers (`tool_use_id`), its `content` the response.
//!   `sessionId` and `cwd` go with every event; `isMeta` lines and Claude Code's bookkeeping
//!   lines (`attachment`, `queue-operation`, `summary`, `system`, `api-request…`, ...) hold no
//!   hook event.
//! - **Codex** rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): `session_meta`
//!   gives the session id and `cwd`; a `response_item` `message` of role `user` is a
//!   `UserPromptSubmit` (text Codex injects — a whole `<environment_context>…` block and the
//!   like — is not the user's); a `function_call` a `PreToolUse` as Codex's hooks send it (its
//!   shell tools `exec_command` / `shell` as `Bash` with `command`, others by name with their
//!   parsed `arguments`); a `custom_tool_call` (`apply_patch`) a `PreToolUse` with `input`; a
//!   `function_call_output` / `custom_tool_call_output` a `PostToolUse` of its call. `event_msg`,
//!   `turn_context` and the other bookkeeping lines hold no hook event.
//!
//! - **hookhost audit logs** (`audit_log`): the event of each dispatch, which a record keeps
//!   (`event_data`, in the first record of the dispatch) when the config sets `audit_events =
//!   true`; the other records hold no event.
//!
//! A line that is not JSON, or whose shape the reader does not know, is counted and named
//! (`file:line`) — never fatal, never dropped silently.

use hookhost::HookEvent;
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap};

/// What reading a recording found, besides its events.
pub(crate) struct Summary {
    /// What the file is (`hookhost session`, `Claude Code transcript`, `Codex rollout`).
    pub kind: &'static str,
    /// How many events it held.
    pub events: usize,
    /// `file:line: why` for each line the reader did not understand.
    pub skipped: Vec<String>,
    /// Lines understood to hold no hook event, by their type.
    pub other: BTreeMap<String, usize>,
}

/// The events of one recorded session, collected (for tests; `replay` and `diff` stream them).
#[cfg(test)]
pub(crate) struct Session {
    pub kind: &'static str,
    pub events: Vec<(usize, HookEvent)>,
    pub skipped: Vec<String>,
    pub other: BTreeMap<String, usize>,
}

/// The reader's state: the file's name, what it found, and where each event goes.
struct Reader<'a> {
    name: String,
    found: Summary,
    sink: &'a mut dyn FnMut(usize, HookEvent),
}

impl Reader<'_> {
    fn emit(&mut self, line: usize, event: HookEvent) {
        self.found.events += 1;
        (self.sink)(line, event);
    }
}

/// The largest recording (a session, a transcript, an audit log) hookhost reads.
pub(crate) const MAX_RECORDING_BYTES: u64 = 256 << 20;

/// A recording's text, read bounded ([`hookhost::types::owner::read_regular`]: a regular file —
/// a FIFO would hang the read, `/dev/zero` never end — of at most [`MAX_RECORDING_BYTES`]),
/// UTF-8 — or one message naming the file (and the line that is not UTF-8) and the fix.
pub(crate) fn read_recording(path: &std::path::Path, what: &str) -> Result<String, String> {
    use hookhost::types::owner::{read_regular, ReadError};
    let name = path.display();
    let bytes = read_regular(path, MAX_RECORDING_BYTES, true).map_err(|e| match e {
        ReadError::Io(e) => format!("cannot read the {what} {name}: {e}"),
        ReadError::NotRegular => format!("{name}: not a regular file (a pipe, a device or a directory); name the {what} itself"),
        ReadError::TooLarge(n) => {
            let size = n.map_or_else(|| "more".to_string(), |n| format!("{} MiB", n >> 20));
            format!("{name}: {size}, over the {} MiB hookhost reads from a {what}; split it (`split -l`) and name the parts", MAX_RECORDING_BYTES >> 20)
        }
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        format!("{name}:{line}: not UTF-8 text; a {what} is JSON lines in UTF-8")
    })
}

/// Each event of a recording as `replay` and `diff` run it: in hookhost's own working
/// directory, not the one the recording names — a transcript (someone else's, say) never
/// chooses the directory whose project and `.claude/hooks` scripts host-mode hooks run. Said
/// once per file, at the first recorded `cwd` replaced.
pub(crate) fn replay_here(name: &str) -> impl FnMut(HookEvent) -> HookEvent + '_ {
    let here = std::env::current_dir().ok().map(|d| d.display().to_string());
    let mut said = false;
    move |mut event: HookEvent| {
        if let (Some(h), Some(c)) = (&here, &event.cwd) {
            if h != c {
                if !said {
                    eprintln!("hookhost: {name}: events recorded in {c} run in {h} instead: a recording never chooses where hooks run");
                    said = true;
                }
                event.cwd = Some(h.clone());
            }
        }
        event
    }
}

/// Read a recording line by line, handing each event to `sink` as it is read (a recording of a
/// million lines never sits in memory as a million events), or say why it holds none.
pub(crate) fn read_each(name: &str, text: &str, sink: &mut dyn FnMut(usize, HookEvent)) -> Result<Summary, String> {
    let lines = || text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).map(|(i, l)| (i + 1, l));
    // What the file is: the first line that says (each line parsed, and dropped, until one does).
    let kind = lines().find_map(|(_, l)| serde_json::from_str::<Value>(l).ok().as_ref().and_then(kind_of)).unwrap_or("hookhost session");
    let mut s = Reader { name: name.to_string(), found: Summary { kind, events: 0, skipped: Vec::new(), other: BTreeMap::new() }, sink };
    match kind {
        "hookhost session" => {
            for (line, text) in lines() {
                match HookEvent::from_json(text) {
                    Ok(ev) => s.emit(line, ev),
                    Err(e) => s.found.skipped.push(format!("{name}:{line}: {e}")),
                }
            }
        }
        _ => {
            // The lines that are JSON objects; a skip naming each other one.
            let mut skipped = Vec::new();
            let objects = lines().filter_map(|(line, text)| match serde_json::from_str::<Value>(text) {
                Ok(v @ Value::Object(_)) => Some((line, v)),
                Ok(_) => {
                    skipped.push(format!("{name}:{line}: not a JSON object"));
                    None
                }
                Err(e) => {
                    skipped.push(format!("{name}:{line}: not JSON ({e})"));
                    None
                }
            });
            match kind {
                "hookhost audit log" => audit_log(objects, &mut s),
                "Claude Code transcript" => claude_code(name, objects, &mut s),
                _ => codex(name, objects, &mut s),
            }
            s.found.skipped.extend(skipped);
        }
    }
    let mut found = s.found;
    // In the order of their lines.
    found.skipped.sort_by_key(|m| m.get(name.len() + 1..).and_then(|r| r.split(':').next()).and_then(|n| n.parse::<usize>().ok()).unwrap_or(0));
    if found.events == 0 && kind == "hookhost audit log" {
        return Err(format!("{name}: an audit log, but none of its records keeps its event; set audit_events = true in the config for the records to keep them (they then hold prompts and tool output: keep the log as you keep sessions)"));
    }
    if found.events == 0 {
        return Err(format!(
            "{name}: no hook event in it (read as {kind}: {} line(s) not understood, {} without an event); give a hookhost session (one event per line), a Claude Code session file or a Codex rollout file",
            found.skipped.len(),
            found.other.values().sum::<usize>()
        ));
    }
    Ok(found)
}

/// Read a recording whole (tests).
#[cfg(test)]
pub(crate) fn read(name: &str, text: &str) -> Result<Session, String> {
    let mut events = Vec::new();
    let found = read_each(name, text, &mut |line, ev| events.push((line, ev)))?;
    Ok(Session { kind: found.kind, events, skipped: found.skipped, other: found.other })
}

/// Each event of a recording, read on a thread of its own and handed over as it is read (at
/// most `ahead` in flight), for `replay` and `diff` to run one at a time.
pub(crate) fn stream(name: String, text: String, ahead: usize) -> (tokio::sync::mpsc::Receiver<(usize, HookEvent)>, std::thread::JoinHandle<Result<Summary, String>>) {
    let (tx, rx) = tokio::sync::mpsc::channel(ahead.max(1));
    let reader = std::thread::spawn(move || {
        read_each(&name, &text, &mut |line, ev| {
            // The receiver gone (the output closed): the rest is read and dropped.
            let _ = tx.blocking_send((line, ev));
        })
    });
    (rx, reader)
}

fn kind_of(v: &Value) -> Option<&'static str> {
    if v.get("hook_id").is_some() && v.get("plugin_sha256").is_some() {
        return Some("hookhost audit log");
    }
    let ty = v.get("type")?.as_str()?;
    if v.get("payload").is_some() && matches!(ty, "session_meta" | "response_item" | "event_msg" | "turn_context") {
        return Some("Codex rollout");
    }
    if v.get("sessionId").is_some() && (v.get("message").is_some() || v.get("uuid").is_some() || ty == "queue-operation") {
        return Some("Claude Code transcript");
    }
    None
}

fn event(s: &mut Reader<'_>, line: usize, mut fields: Map<String, Value>, session: &str, cwd: Option<&str>) {
    fields.insert("session_id".into(), json!(session));
    if let Some(cwd) = cwd {
        fields.insert("cwd".into(), json!(cwd));
    }
    match HookEvent::from_value(Value::Object(fields)) {
        Ok(ev) => s.emit(line, ev),
        Err(e) => s.found.skipped.push(format!("{}:{line}: {e}", s.name)),
    }
}

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The tool calls read so far, so that a result finds the call it answers: a call is a
/// `PreToolUse`, its result a `PostToolUse` with the call's tool and input.
#[derive(Default)]
struct Calls(HashMap<String, (String, Value)>);

impl Calls {
    #[allow(clippy::too_many_arguments)]
    fn call(&mut self, s: &mut Reader<'_>, line: usize, id: &str, tool: String, input: Value, session: &str, cwd: Option<&str>) {
        self.0.insert(id.to_string(), (tool.clone(), input.clone()));
        event(s, line, object(json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input, "tool_use_id": id})), session, cwd);
    }

    #[allow(clippy::too_many_arguments)]
    fn result(&self, s: &mut Reader<'_>, line: usize, id: &str, response: Value, session: &str, cwd: Option<&str>) {
        match self.0.get(id).cloned() {
            Some((tool, input)) => event(s, line, object(json!({"hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": input, "tool_response": response, "tool_use_id": id})), session, cwd),
            None => s.found.skipped.push(format!("{}:{line}: the result of tool call {id:?}, whose call is not in the file", s.name)),
        }
    }
}

fn audit_log(lines: impl Iterator<Item = (usize, Value)>, s: &mut Reader<'_>) {
    for (line, v) in lines {
        match v.get("event_data") {
            Some(event) => match HookEvent::from_value(event.clone()) {
                Ok(ev) => s.emit(line, ev),
                Err(e) => s.found.skipped.push(format!("{}:{line}: event_data: {e}", s.name)),
            },
            None if v.get("hook_id").is_some() => *s.found.other.entry("hook record".into()).or_default() += 1,
            None => *s.found.other.entry("recovery note".into()).or_default() += 1,
        }
    }
}

fn claude_code(name: &str, lines: impl Iterator<Item = (usize, Value)>, s: &mut Reader<'_>) {
    let mut calls = Calls::default();
    for (line, v) in lines {
        let ty = v.get("type").and_then(Value::as_str).unwrap_or("").to_string();
        let session = v.get("sessionId").and_then(Value::as_str).unwrap_or("transcript").to_string();
        let cwd = v.get("cwd").and_then(Value::as_str).map(str::to_string);
        let content = v.get("message").and_then(|m| m.get("content"));
        match (ty.as_str(), content) {
            ("user" | "assistant", _) if v.get("isMeta").and_then(Value::as_bool) == Some(true) => *s.found.other.entry(format!("{ty} (isMeta)")).or_default() += 1,
            ("user", Some(Value::String(prompt))) => {
                event(s, line, object(json!({"hook_event_name": "UserPromptSubmit", "prompt": prompt})), &session, cwd.as_deref());
            }
            ("user" | "assistant", Some(Value::Array(blocks))) => {
                let mut texts = Vec::new();
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("tool_use") => {
                            let id = b.get("id").and_then(Value::as_str).unwrap_or("");
                            let tool = b.get("name").and_then(Value::as_str).unwrap_or("").to_string();
                            calls.call(s, line, id, tool, b.get("input").cloned().unwrap_or(json!({})), &session, cwd.as_deref());
                        }
                        Some("tool_result") => {
                            let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                            calls.result(s, line, id, b.get("content").cloned().unwrap_or(Value::Null), &session, cwd.as_deref());
                        }
                        Some("text") if ty == "user" => texts.extend(b.get("text").and_then(Value::as_str).map(str::to_string)),
                        _ => {}
                    }
                }
                if !texts.is_empty() {
                    event(s, line, object(json!({"hook_event_name": "UserPromptSubmit", "prompt": texts.join("\n")})), &session, cwd.as_deref());
                }
            }
            ("user" | "assistant", _) => s.found.skipped.push(format!("{name}:{line}: a {ty} line without message.content")),
            ("", _) => s.found.skipped.push(format!("{name}:{line}: no \"type\"; not a Claude Code transcript line")),
            (other, _) => *s.found.other.entry(other.to_string()).or_default() += 1,
        }
    }
}

/// Whether a user message is text Codex injects (`<environment_context>…</environment_context>`).
fn injected(text: &str) -> bool {
    let t = text.trim();
    let Some(tag) = t.strip_prefix('<').and_then(|r| r.split(['>', ' ']).next()) else { return false };
    !tag.is_empty() && t.ends_with(&format!("</{tag}>"))
}

fn codex(name: &str, lines: impl Iterator<Item = (usize, Value)>, s: &mut Reader<'_>) {
    let mut session = "rollout".to_string();
    let mut cwd: Option<String> = None;
    let mut calls = Calls::default();
    for (line, v) in lines {
        let ty = v.get("type").and_then(Value::as_str).unwrap_or("").to_string();
        let p = v.get("payload").cloned().unwrap_or(Value::Null);
        match ty.as_str() {
            "session_meta" => {
                session = p.get("id").and_then(Value::as_str).unwrap_or(&session).to_string();
                cwd = p.get("cwd").and_then(Value::as_str).map(str::to_string).or(cwd);
            }
            "turn_context" => {
                cwd = p.get("cwd").and_then(Value::as_str).map(str::to_string).or(cwd);
                *s.found.other.entry(ty).or_default() += 1;
            }
            "response_item" => match p.get("type").and_then(Value::as_str) {
                Some("message") if p.get("role").and_then(Value::as_str) == Some("user") => {
                    let texts: Vec<&str> = p.get("content").and_then(Value::as_array).into_iter().flatten().filter_map(|c| c.get("text").and_then(Value::as_str)).filter(|t| !injected(t)).collect();
                    if texts.is_empty() {
                        *s.found.other.entry("response_item message (injected context)".into()).or_default() += 1;
                    } else {
                        event(s, line, object(json!({"hook_event_name": "UserPromptSubmit", "prompt": texts.join("\n")})), &session, cwd.as_deref());
                    }
                }
                Some(kind @ ("function_call" | "custom_tool_call")) => {
                    let call_id = p.get("call_id").and_then(Value::as_str).unwrap_or("");
                    let tool = p.get("name").and_then(Value::as_str).unwrap_or("");
                    let (tool, input) = match kind {
                        "function_call" => codex_tool(tool, p.get("arguments").and_then(Value::as_str).and_then(|a| serde_json::from_str::<Value>(a).ok()).unwrap_or(json!({}))),
                        _ => (tool.to_string(), json!({"input": p.get("input").cloned().unwrap_or(Value::Null)})),
                    };
                    calls.call(s, line, call_id, tool, input, &session, cwd.as_deref());
                }
                Some("function_call_output" | "custom_tool_call_output") => {
                    let call_id = p.get("call_id").and_then(Value::as_str).unwrap_or("");
                    calls.result(s, line, call_id, p.get("output").cloned().unwrap_or(Value::Null), &session, cwd.as_deref());
                }
                Some(other) => *s.found.other.entry(format!("response_item {other}")).or_default() += 1,
                None => s.found.skipped.push(format!("{name}:{line}: a response_item without a payload type")),
            },
            "" => s.found.skipped.push(format!("{name}:{line}: no \"type\"; not a Codex rollout line")),
            other => *s.found.other.entry(other.to_string()).or_default() += 1,
        }
    }
}

/// A Codex function call as Codex's hooks name it: its shell tools are `Bash` with a
/// `command` string.
fn codex_tool(name: &str, args: Value) -> (String, Value) {
    let command = match (name, args.get("cmd").or_else(|| args.get("command"))) {
        ("exec_command" | "shell" | "shell_command" | "local_shell", Some(Value::String(c))) => Some(c.clone()),
        ("exec_command" | "shell" | "shell_command" | "local_shell", Some(Value::Array(argv))) => {
            let words: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
            // `["bash", "-lc", "script"]` is the script.
            Some(match words.as_slice() {
                [shell, flag, script] if shell.ends_with("sh") && flag.starts_with('-') && flag.contains('c') => script.to_string(),
                _ => words.join(" "),
            })
        }
        _ => None,
    };
    match command {
        Some(c) => ("Bash".into(), json!({"command": c})),
        None => (name.to_string(), args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claude_code_transcript_reads_as_prompts_and_tool_calls() {
        let text = [
            r#"{"type":"queue-operation","operation":"enqueue","sessionId":"s1"}"#,
            r#"{"type":"user","sessionId":"s1","cwd":"/p","uuid":"u1","message":{"role":"user","content":"clean up"}}"#,
            r#"{"type":"attachment","sessionId":"s1","cwd":"/p","uuid":"u2"}"#,
            r#"{"type":"assistant","sessionId":"s1","cwd":"/p","uuid":"u3","message":{"role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"rm -rf build"}}]}}"#,
            r#"{"type":"user","sessionId":"s1","cwd":"/p","uuid":"u4","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"done"}]}}"#,
            r#"{"type":"user","sessionId":"s1","cwd":"/p","uuid":"u5","isMeta":true,"message":{"role":"user","content":"<command-name>/clear</command-name>"}}"#,
            r#"{"type":"user","sessionId":"s1","cwd":"/p","uuid":"u6","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"?"}]}}"#,
            "{not json",
        ]
        .join("\n");
        let s = read("t.jsonl", &text).unwrap();
        assert_eq!(s.kind, "Claude Code transcript");
        let got: Vec<(usize, String, Option<String>)> = s.events.iter().map(|(l, e)| (*l, e.name.to_string(), e.tool_name().map(str::to_string))).collect();
        assert_eq!(got, [(2, "user_prompt_submit".into(), None), (4, "pre_tool_use".into(), Some("Bash".into())), (5, "post_tool_use".into(), Some("Bash".into()))]);
        assert_eq!(s.events[1].1.data["arguments"], json!({"command": "rm -rf build"}));
        assert_eq!(s.events[1].1.session_id, "s1");
        assert_eq!(s.skipped.len(), 2, "{:?}", s.skipped);
        assert_eq!(s.skipped[0], "t.jsonl:7: the result of tool call \"t9\", whose call is not in the file");
        assert!(s.skipped[1].starts_with("t.jsonl:8: not JSON"), "{:?}", s.skipped);
        assert_eq!(s.other.get("attachment"), Some(&1));
        assert_eq!(s.other.get("user (isMeta)"), Some(&1));
    }

    #[test]
    fn a_codex_rollout_reads_as_codex_hooks_see_it() {
        let text = [
            r#"{"timestamp":"t","type":"session_meta","payload":{"id":"r1","cwd":"/repo"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"}]}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"delete the build"}]}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"rm -rf build\"}","call_id":"c1"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"ok"}}"#,
            r#"{"timestamp":"t","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\": [\"bash\", \"-lc\", \"ls -la\"]}","call_id":"c2"}}"#,
            r#"{"timestamp":"t","type":"event_msg","payload":{"type":"token_count"}}"#,
        ]
        .join("\n");
        let s = read("r.jsonl", &text).unwrap();
        assert_eq!(s.kind, "Codex rollout");
        let got: Vec<(usize, String)> = s.events.iter().map(|(l, e)| (*l, e.name.to_string())).collect();
        assert_eq!(got, [(3, "user_prompt_submit".into()), (4, "pre_tool_use".into()), (5, "post_tool_use".into()), (6, "pre_tool_use".into())]);
        assert_eq!((s.events[1].1.tool_name(), &s.events[1].1.data["arguments"]), (Some("Bash"), &json!({"command": "rm -rf build"})));
        assert_eq!(s.events[3].1.data["arguments"], json!({"command": "ls -la"}));
        assert_eq!(s.events[1].1.session_id, "r1");
        assert!(s.skipped.is_empty(), "{:?}", s.skipped);
    }

    #[test]
    fn a_file_without_an_event_is_an_error_naming_it() {
        let err = read("x.jsonl", "{\"type\":\"queue-operation\",\"sessionId\":\"s\"}\n").err().unwrap();
        assert_eq!(err, "x.jsonl: no hook event in it (read as Claude Code transcript: 0 line(s) not understood, 1 without an event); give a hookhost session (one event per line), a Claude Code session file or a Codex rollout file");
        assert!(read("y.jsonl", "hello\n").err().unwrap().starts_with("y.jsonl: no hook event in it (read as hookhost session: 1 line(s) not understood"));
    }
}
