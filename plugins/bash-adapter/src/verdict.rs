//! Reading a script's result, per dialect (each runtime's hooks reference, cited by its
//! profile in `hookhost_types::runtime`), into a canonical decision.
//! `Err` is an executor error: the hook's `on_error` decides what it means.

use crate::dialect::{Dialect, Exit, Run};
use hookhost_sdk::{Decision, Effect, Event, Value, Verdict};

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn first_of(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| text(v, k))
}

fn nonempty(s: &str) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_string())
}

fn block(reason: Option<String>, user_message: Option<String>) -> Decision {
    Decision { verdict: Verdict::Block { reason, user_message }, effects: Vec::new() }
}

/// Parse stdout as a JSON object, or say why it is not one.
fn object(stdout: &str) -> Result<Value, String> {
    let v: Value = serde_json::from_str(stdout.trim()).map_err(|e| format!("hook printed invalid JSON ({e})"))?;
    if v.is_object() {
        Ok(v)
    } else {
        Err("hook printed JSON that is not an object".into())
    }
}

/// How a dialect's results are read: one row per shell dialect ([`reader`]).
struct Reader {
    /// A run that exited with a code: its decision, or an executor error.
    read: fn(&Event, i32, &str, Option<String>) -> Result<Decision, String>,
    /// Whether a pre-tool hook killed by a signal denies the call (GitHub Copilot CLI: "hook
    /// errored", seen with the real Copilot CLI 1.0.102) rather than being an executor error.
    signal_denies_tool: bool,
}

/// The reader of each shell dialect (a runtime's [`Dialect::dialect`]), each from its
/// runtime's hooks reference.
fn reader(dialect: Dialect) -> Reader {
    let of = |read, signal_denies_tool| Reader { read, signal_denies_tool };
    match dialect {
        // OpenCode has no shell hooks of its own: its plugin speaks hookhost's envelope.
        Dialect::Everruns | Dialect::OpenCode => of(everruns, false),
        Dialect::ClaudeCode | Dialect::Codex | Dialect::QwenCode => of(claude_code, false),
        Dialect::DockerAgent => of(docker_agent, false),
        Dialect::GeminiCli => of(gemini_cli, false),
        Dialect::Starchild => of(starchild, false),
        Dialect::Copilot => of(copilot, true),
        Dialect::Cursor => of(cursor, false),
        Dialect::Antigravity => of(antigravity, false),
    }
}

/// Interpret a finished run.
pub fn interpret(dialect: Dialect, event: &Event, run: &Run) -> Result<Decision, String> {
    let reader = reader(dialect);
    // Failures are executor errors in every dialect, Starchild's too: the hook's on_error
    // decides (Starchild's documented fail-open is its converted hooks' `on_error = "warn"`).
    match &run.exit {
        Exit::Overflow => return Err("hook output exceeded 64 KiB (stdout and stderr together)".into()),
        Exit::TimedOut => return Err("hook timed out".into()),
        Exit::Signal(_) if reader.signal_denies_tool && matches!(event, Event::PreToolUse(_)) => {
            return Ok(block(Some(COPILOT_HOOK_ERRORED.into()), None));
        }
        Exit::Signal(sig) => return Err(format!("hook was killed by signal {sig}")),
        _ => {}
    }
    if let Some(why) = crate::dialect::start_failure_of(run) {
        return Err(why);
    }
    let Exit::Code(code) = run.exit else { unreachable!("other exits handled above") };
    let mut decision = (reader.read)(event, code, run.stdout.trim(), nonempty(&run.stderr))?;
    decision.effects.retain(|e| event.accepts(e));
    Ok(decision)
}

/// Claude Code's exit codes and output (its hooks reference, "Hook output"): exit 2 blocks with
/// stderr, JSON on exit 0 decides, plain stdout is context where the event takes it.
fn claude_code(event: &Event, code: i32, stdout: &str, stderr: Option<String>) -> Result<Decision, String> {
    exit_two_blocks(code, stdout, stderr, |v| peer_json(&CLAUDE_KEYS, v), |text| match event {
        Event::UserPromptSubmit { .. } | Event::SessionStart { .. } => Decision::pass().add_context(text),
        _ => Decision::pass(),
    })
}

/// docker-agent's (its hooks reference): Claude Code's rules in snake_case, and plain stdout is
/// context on more events.
fn docker_agent(event: &Event, code: i32, stdout: &str, stderr: Option<String>) -> Result<Decision, String> {
    exit_two_blocks(code, stdout, stderr, |v| peer_json(&DOCKER_KEYS, v), |text| match event {
        Event::SessionStart { .. } | Event::UserPromptSubmit { .. } | Event::TurnStart | Event::PostToolUse(_) | Event::PreCompact(_) | Event::Stop(_) => {
            Decision::pass().add_context(text)
        }
        _ => Decision::pass(),
    })
}

/// Gemini CLI's (its hooks reference): exit 2 blocks, its own JSON, and stdout that is not JSON
/// shown to the user as a system message.
fn gemini_cli(_: &Event, code: i32, stdout: &str, stderr: Option<String>) -> Result<Decision, String> {
    exit_two_blocks(code, stdout, stderr, gemini_json, |text| Decision::pass().notify_user(text))
}

/// Cursor's (its hooks reference, <https://cursor.com/docs/hooks>): exit 2 blocks, and its JSON:
/// `permission` before a tool (`agent_message` the reason, `user_message` the person's,
/// `updated_input` the new input), `continue: false` on a prompt, `followup_message` on a stop
/// (the agent goes on: the stop is blocked), `additional_context` after a tool or at a start.
fn cursor(_: &Event, code: i32, stdout: &str, stderr: Option<String>) -> Result<Decision, String> {
    exit_two_blocks(code, stdout, stderr, cursor_json, |_| Decision::pass())
}

fn cursor_json(v: &Value) -> Decision {
    let mut d = Decision::pass();
    let reason = first_of(v, &["agent_message", "user_message"]);
    match v.get("permission").and_then(Value::as_str) {
        Some("deny") => {
            let user_message = text(v, "user_message").filter(|m| Some(m) != reason.as_ref());
            d.verdict = Verdict::Block { reason, user_message };
        }
        Some("ask") => d.verdict = Verdict::Ask(reason),
        Some("allow") if v.get("agent_message").is_some() => d.verdict = Verdict::Allow(reason),
        _ => {}
    }
    if v.get("continue") == Some(&Value::Bool(false)) {
        d.verdict = Verdict::Block { reason: text(v, "user_message"), user_message: None };
    }
    if let Some(message) = text(v, "followup_message") {
        d.verdict = Verdict::Block { reason: Some(message), user_message: None };
    }
    if let Some(input) = v.get("updated_input").filter(|x| x.is_object()) {
        d.effects.push(Effect::RewriteInput(input.clone()));
    }
    if let Some(c) = text(v, "additional_context") {
        d.effects.push(Effect::AddContext(c));
    }
    d
}

/// Antigravity CLI's (as its users measured it: hookhost_types' `runtime/antigravity.rs`):
/// `decision` `deny` blocks with its `reason`, `ask` and `force_ask` ask, `allow` allows; no
/// decision passes. Its exit codes are not documented: exit 2 blocks as in Gemini CLI, whose
/// hooks it took over, and another non-zero exit is a failure.
fn antigravity(_: &Event, code: i32, stdout: &str, stderr: Option<String>) -> Result<Decision, String> {
    exit_two_blocks(code, stdout, stderr, antigravity_json, |_| Decision::pass())
}

fn antigravity_json(v: &Value) -> Decision {
    let reason = text(v, "reason");
    let verdict = match v.get("decision").and_then(Value::as_str) {
        Some("deny") => Verdict::Block { reason, user_message: None },
        Some("ask" | "force_ask") => Verdict::Ask(reason),
        Some("allow") => Verdict::Allow(reason),
        _ => Verdict::Pass,
    };
    Decision { verdict, effects: Vec::new() }
}

/// The rules Claude Code, docker-agent and Gemini CLI share: exit 2 blocks whatever stdout says
/// (a JSON reason wins over stderr); another non-zero exit is a failure; on exit 0 nothing
/// passes, a JSON object is read by `json`, other text by `plain`.
fn exit_two_blocks(code: i32, stdout: &str, stderr: Option<String>, json: impl Fn(&Value) -> Decision, plain: impl Fn(&str) -> Decision) -> Result<Decision, String> {
    if code == 2 {
        let reason = object(stdout).ok().and_then(|v| first_of(&v, &["reason", "stopReason", "stop_reason"])).or(stderr);
        Ok(block(reason, None))
    } else if code != 0 {
        let detail = stderr.map(|s| format!(": {s}")).unwrap_or_default();
        Err(format!("hook exited with status {code}{detail}"))
    } else if stdout.is_empty() {
        Ok(Decision::pass())
    } else if stdout.starts_with('{') {
        Ok(json(&object(stdout)?))
    } else {
        Ok(plain(stdout))
    }
}

/// Starchild's (its agent-hooks guide): a run that printed nothing passes unless it exited 2
/// with a reason; JSON decides; other text, or JSON that does not parse, passes.
fn starchild(event: &Event, code: i32, stdout: &str, stderr: Option<String>) -> Result<Decision, String> {
    Ok(if stdout.is_empty() {
        match (code, stderr) {
            (2, Some(reason)) => block(Some(reason), None),
            _ => Decision::pass(),
        }
    } else if stdout.starts_with('{') {
        match object(stdout) {
            Ok(v) => starchild_json(event, &v),
            Err(_) => Decision::pass(),
        }
    } else {
        Decision::pass()
    })
}

fn everruns(event: &Event, code: i32, stdout: &str, stderr: Option<String>) -> Result<Decision, String> {
    if stdout.is_empty() {
        return Ok(if code == 0 {
            Decision::allow()
        } else {
            block(Some(stderr.unwrap_or_else(|| format!("hook exited with status {code}"))), None)
        });
    }
    if !stdout.starts_with('{') {
        let shown: String = stdout.chars().take(80).collect();
        return Err(format!("hook printed neither nothing nor a JSON decision: {shown:?}"));
    }
    let v = object(stdout)?;
    let mut d = match v.get("decision").and_then(Value::as_str) {
        None | Some("allow") | Some("mutate") => Decision::allow(),
        Some("block") => block(text(&v, "reason"), text(&v, "user_message")),
        Some(other) => return Err(format!("unknown decision {other:?}; use allow, mutate or block")),
    };
    if let Verdict::Allow(r) = &mut d.verdict {
        *r = text(&v, "reason");
    }
    if let Some(patch) = v.get("patch") {
        d.effects.push(match event {
            Event::UserPromptSubmit { .. } => match patch.get("message").and_then(Value::as_str) {
                Some(m) => Effect::RewritePrompt(m.to_string()),
                None => return Err("patch for user_prompt_submit must be {\"message\": \"...\"}".into()),
            },
            Event::PostToolUse(_) | Event::ToolResultTransform(_) => Effect::RewriteOutput(patch.get("result").cloned().unwrap_or_else(|| patch.clone())),
            _ => match patch.get("arguments") {
                Some(args) if args.is_object() => Effect::RewriteInput(args.clone()),
                _ if patch.is_object() => Effect::RewriteInput(patch.clone()),
                _ => return Err("patch must be a JSON object".into()),
            },
        });
    }
    Ok(d)
}

/// The reason Copilot gives the model for a tool its preToolUse hook failed to decide on.
const COPILOT_HOOK_ERRORED: &str = "Denied by preToolUse hook (hook errored)";

/// GitHub Copilot CLI's exit codes and outputs (its hooks reference, "Exit codes for command
/// hooks" and each event's decision control): on `preToolUse` and `permissionRequest` exit 2
/// denies, and on `preToolUse` any other non-zero exit denies too (Copilot fails closed there;
/// a timeout, which passes, is an executor error before this); elsewhere a non-zero exit is a
/// hook failure, except exit 2 after a failed tool, whose stderr is recovery guidance.
fn copilot(event: &Event, code: i32, stdout: &str, stderr: Option<String>) -> Result<Decision, String> {
    let before_tool = matches!(event, Event::PreToolUse(_));
    let permission = matches!(event, Event::PermissionRequest(_));
    match code {
        0 => {}
        2 if before_tool || permission => return Ok(block(Some(stderr.filter(|_| before_tool).unwrap_or_else(|| "Denied by preToolUse hook".into())), None)),
        // Exit 2 after a failed tool: its stderr is recovery guidance for the model (the real
        // Copilot CLI 1.0.102 reads stderr there, not stdout).
        2 if matches!(event, Event::Custom { name, .. } if name == "postToolUseFailure") => {
            return Ok(stderr.map_or_else(Decision::pass, |guidance| Decision::pass().add_context(guidance)));
        }
        _ if before_tool => return Ok(block(Some(COPILOT_HOOK_ERRORED.into()), None)),
        _ => {
            let detail = stderr.map(|s| format!(": {s}")).unwrap_or_default();
            return Err(format!("hook exited with status {code}{detail}"));
        }
    }
    // What is left after Copilot's progress lines is one JSON document, or nothing.
    let kept: Vec<&str> = stdout.lines().filter(|l| !object(l).is_ok_and(|v| v.get("type").and_then(Value::as_str) == Some("progress"))).collect();
    let kept = kept.join("\n");
    if kept.trim().is_empty() {
        return Ok(Decision::pass());
    }
    // Output that does not parse is no output (Copilot's default behaviour).
    let Ok(v) = object(&kept) else { return Ok(Decision::pass()) };
    let mut d = Decision::pass();
    if let Some(p) = v.get("permissionDecision").and_then(Value::as_str) {
        let reason = text(&v, "permissionDecisionReason");
        d.verdict = match p {
            "allow" => Verdict::Allow(reason),
            "ask" => Verdict::Ask(reason),
            "deny" => Verdict::Block { reason, user_message: None },
            _ => Verdict::Pass,
        };
    }
    match v.get("behavior").and_then(Value::as_str) {
        Some("deny") if v.get("interrupt") == Some(&Value::Bool(true)) => d.verdict = Verdict::Halt(text(&v, "message")),
        Some("deny") => d.verdict = Verdict::Block { reason: text(&v, "message"), user_message: None },
        Some("allow") => d.verdict = Verdict::Allow(None),
        _ => {}
    }
    if v.get("decision").and_then(Value::as_str) == Some("block") {
        d.verdict = Verdict::Block { reason: text(&v, "reason"), user_message: None };
    }
    if let Some(args) = v.get("modifiedArgs").filter(|a| a.is_object()) {
        d.effects.push(Effect::RewriteInput(args.clone()));
    }
    if let Some(text) = v.get("modifiedResult").and_then(|r| r.get("textResultForLlm")) {
        d.effects.push(Effect::RewriteOutput(text.clone()));
    }
    if let Some(prompt) = text(&v, "modifiedTransformedPrompt").filter(|p| !p.is_empty()) {
        d.effects.push(Effect::RewritePrompt(prompt));
    }
    if let Some(c) = text(&v, "additionalContext") {
        d.effects.push(Effect::AddContext(c));
    }
    Ok(d)
}

/// The JSON keys of Claude Code's output (camelCase) and docker-agent's (snake_case).
struct Keys {
    specific: &'static str,
    permission: &'static str,
    permission_reason: &'static str,
    updated_input: &'static str,
    context: &'static str,
    updated_output: &'static str,
    /// Claude Code's replacement for an MCP tool's output (`updatedMCPToolOutput`).
    updated_mcp_output: Option<&'static str>,
    system: &'static str,
}

const CLAUDE_KEYS: Keys = Keys {
    specific: "hookSpecificOutput",
    permission: "permissionDecision",
    permission_reason: "permissionDecisionReason",
    updated_input: "updatedInput",
    context: "additionalContext",
    updated_output: "updatedToolOutput",
    updated_mcp_output: Some("updatedMCPToolOutput"),
    system: "systemMessage",
};

const DOCKER_KEYS: Keys = Keys {
    specific: "hook_specific_output",
    permission: "permission_decision",
    permission_reason: "permission_decision_reason",
    updated_input: "updated_input",
    context: "additional_context",
    updated_output: "updated_tool_response",
    updated_mcp_output: None,
    system: "system_message",
};

/// Claude Code's and docker-agent's JSON output, in `keys`' names.
fn peer_json(keys: &Keys, v: &Value) -> Decision {
    let spec = v.get(keys.specific).cloned().unwrap_or(Value::Null);
    let mut d = Decision::pass();
    if v.get("continue") == Some(&Value::Bool(false)) {
        d = Decision { verdict: Verdict::Halt(first_of(v, &["stopReason", "stop_reason"])), effects: Vec::new() };
    } else if let Some(p) = spec.get(keys.permission).and_then(Value::as_str) {
        let reason = text(&spec, keys.permission_reason);
        d.verdict = match p {
            "allow" => Verdict::Allow(reason),
            "ask" => Verdict::Ask(reason),
            "deny" => Verdict::Block { reason, user_message: None },
            _ => Verdict::Pass,
        };
    } else if let Some(behavior) = spec.get("decision").and_then(|x| x.get("behavior")).and_then(Value::as_str) {
        // Claude Code PermissionRequest.
        let reason = spec.get("decision").and_then(|x| text(x, "message"));
        d.verdict = match behavior {
            "allow" => Verdict::Allow(reason),
            "deny" => Verdict::Block { reason, user_message: None },
            _ => Verdict::Pass,
        };
    } else {
        match v.get("decision").and_then(Value::as_str) {
            Some("block") => d.verdict = Verdict::Block { reason: text(v, "reason"), user_message: None },
            Some("approve") => d.verdict = Verdict::Allow(text(v, "reason")),
            _ => {}
        }
    }
    // Claude Code's PermissionRequest carries its new input inside `decision`.
    let input = spec.get(keys.updated_input).or_else(|| spec.get("decision").and_then(|x| x.get("updatedInput")));
    if let Some(input) = input.filter(|x| x.is_object()) {
        d.effects.push(Effect::RewriteInput(input.clone()));
    }
    // Claude Code replaces an MCP tool's output with `updatedMCPToolOutput`.
    if let Some(out) = spec.get(keys.updated_output).or_else(|| keys.updated_mcp_output.and_then(|k| spec.get(k))) {
        d.effects.push(Effect::RewriteOutput(out.clone()));
    }
    if let Some(c) = text(&spec, keys.context) {
        d.effects.push(Effect::AddContext(c));
    }
    if let Some(s) = text(&spec, "summary") {
        d.effects.push(Effect::ReplaceSummary(s));
    }
    if let Some(meta) = spec.get("metadata").and_then(Value::as_object) {
        let pairs = meta.iter().map(|(k, v)| (k.clone(), v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()))).collect();
        d.effects.push(Effect::Annotate(pairs));
    }
    if let Some(m) = text(v, keys.system) {
        d.effects.push(Effect::NotifyUser(m));
    }
    d
}

/// Gemini CLI's JSON output (its hooks reference, "Common output fields" and each event's
/// `hookSpecificOutput`): `decision` allow / deny (or block), `reason`, `continue: false` +
/// `stopReason`, `systemMessage`; `hookSpecificOutput.tool_input` (BeforeTool),
/// `tool_output` (AfterTool) and `additionalContext`.
fn gemini_json(v: &Value) -> Decision {
    let spec = v.get("hookSpecificOutput").cloned().unwrap_or(Value::Null);
    let reason = text(v, "reason");
    let mut d = Decision::pass();
    if v.get("continue") == Some(&Value::Bool(false)) {
        d.verdict = Verdict::Halt(first_of(v, &["stopReason", "reason"]));
    } else {
        match v.get("decision").and_then(Value::as_str) {
            Some("deny" | "block") => d.verdict = Verdict::Block { reason, user_message: None },
            Some("allow" | "approve") => d.verdict = Verdict::Allow(reason),
            Some("ask") => d.verdict = Verdict::Ask(reason),
            _ => {}
        }
    }
    if let Some(input) = spec.get("tool_input").filter(|x| x.is_object()) {
        d.effects.push(Effect::RewriteInput(input.clone()));
    }
    if let Some(out) = spec.get("tool_output") {
        d.effects.push(Effect::RewriteOutput(out.clone()));
    }
    if let Some(c) = text(&spec, "additionalContext") {
        d.effects.push(Effect::AddContext(c));
    }
    if let Some(m) = text(v, "systemMessage") {
        d.effects.push(Effect::NotifyUser(m));
    }
    d
}

/// Starchild's own outputs, and Claude Code outputs translated the Starchild way.
fn starchild_json(event: &Event, v: &Value) -> Decision {
    let spec = v.get("hookSpecificOutput").cloned().unwrap_or(Value::Null);
    let mut d = Decision::pass();
    let denied = spec.get("permissionDecision").and_then(Value::as_str) == Some("deny");
    if v.get("decision").and_then(Value::as_str) == Some("block") || denied || v.get("continue") == Some(&Value::Bool(false)) {
        let reason = first_of(v, &["reason", "stopReason"]).or_else(|| text(&spec, "permissionDecisionReason"));
        d.verdict = Verdict::Block { reason, user_message: None };
    }
    let new_input = v.get("tool_input").or_else(|| spec.get("updatedInput"));
    if let (Some(Value::Object(new)), Some(call)) = (new_input, event.tool_call()) {
        // Starchild rewrites existing keys only.
        let mut args = call.arguments.clone();
        if let Some(obj) = args.as_object_mut() {
            for (k, val) in new {
                if obj.contains_key(k) {
                    obj.insert(k.clone(), val.clone());
                }
            }
        }
        d.effects.push(Effect::RewriteInput(args));
    }
    if let Some(c) = text(v, "context").or_else(|| text(&spec, "additionalContext")) {
        d.effects.push(Effect::AddContext(c));
    }
    if let Some(m) = first_of(v, &["systemMessage", "add_warning"]) {
        d.effects.push(Effect::NotifyUser(m));
    }
    d
}
