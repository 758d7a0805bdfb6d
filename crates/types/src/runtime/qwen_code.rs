//! Qwen Code, from its hooks reference (QwenLM/qwen-code `docs/users/features/hooks.md`) and
//! its settings reference (`docs/users/configuration/settings.md`): a Gemini CLI fork whose
//! hooks took Claude Code's contract — the same event names, `hookSpecificOutput` with
//! `permissionDecision` / `updatedInput`, exit 2 blocks, any other exit does not — in its own
//! settings files (`.qwen/settings.json`), behind its own folder trust. Written from its
//! documentation and checked against the real Qwen Code 0.24.4 (tests/clients: where the two
//! differ, the client's behaviour is what this profile says).

use super::{event, Answer, EnvValue, Fields, Install, Layout, Managed, MatchOn as On, Naming, Payload, Profile, Rewrite, Runtime};
use crate::event::EventName as E;

pub(super) const PROFILE: Profile = Profile {
    name: "qwen-code",
    title: "Qwen Code",
    reference: "https://github.com/QwenLM/qwen-code/blob/main/docs/users/features/hooks.md",
    events: &[
        event("PreToolUse", Some(E::PreToolUse), On::Tool),
        event("PostToolUse", Some(E::PostToolUse), On::Tool),
        event("PostToolUseFailure", None, On::Field("tool_name")),
        event("UserPromptSubmit", Some(E::UserPromptSubmit), On::Nothing),
        event("SessionStart", Some(E::SessionStart), On::Field("source")),
        event("SessionEnd", Some(E::SessionEnd), On::Field("reason")),
        event("SessionDelete", None, On::Nothing),
        event("MessageDisplay", None, On::Nothing),
        event("Stop", Some(E::Stop), On::Nothing),
        event("StopFailure", None, On::Field("error")),
        event("SubagentStart", None, On::Field("agent_type")),
        event("SubagentStop", Some(E::SubagentStop), On::Field("agent_type")),
        event("PreCompact", Some(E::PreCompact), On::Field("trigger")),
        event("PostCompact", Some(E::PostCompact), On::Field("trigger")),
        event("Notification", Some(E::Notification), On::Field("kind")),
        event("PermissionRequest", Some(E::PermissionRequest), On::Tool),
        event("PermissionDenied", None, On::Field("tool_name")),
        event("TodoCreated", None, On::Nothing),
        event("TodoCompleted", None, On::Nothing),
    ],
    naming: Naming::Pascal,
    config_dir: Some(".qwen"),
    config_files: &[".qwen/settings.json", "~/.qwen/settings.json"],
    // Its `hooks` key is Claude Code's: matcher groups holding `command` handlers.
    config_syntax: Some(Runtime::ClaudeCode),
    dialect: Runtime::ClaudeCode,
    // "Hook input": Claude Code's fields, with a `timestamp` and its own project variable.
    payload: Payload::Flat(Fields {
        event: "hook_event_name",
        session_id: "session_id",
        tool_call_id: Some("tool_use_id"),
        result: "tool_response",
        tool_error: None,
        prompt: "prompt",
        response: "last_assistant_message",
        agent_id: false,
        timestamp: true,
        model_payloads: false,
        env: &[("QWEN_PROJECT_DIR", EnvValue::ProjectDir)],
    }),
    // "PermissionRequest": `updatedInput` inside `decision`, beside `behavior`, as Claude Code.
    // Two things its reference does not say, from the real Qwen Code 0.24.4 (the real-client
    // suite): a PreToolUse `updatedInput` is not applied (the tool runs with the model's input:
    // its core tool scheduler reads only the decision), and an empty stdout is a hook error in
    // its telemetry ("hook runner returned no output"), so nothing to say is `{}`.
    answer: Some(Answer { soft_error_exit: 1, nothing: "{}", input_before_tool: false, input_on_permission: Rewrite::WhenAllowed, prompt_rewrite: false }),
    project_hooks: None,
    install: Some(Install {
        program: "qwen",
        home: ".qwen",
        home_vars: &[],
        user_file: "settings.json",
        project_file: Ok(".qwen/settings.json"),
        // Its settings reference, "Settings files": the system settings file, which overrides
        // the user's and the project's.
        managed: Managed {
            unix: Ok("/etc/qwen-code/settings.json"),
            macos: Ok("/Library/Application Support/QwenCode/settings.json"),
            windows: Ok(r"C:\ProgramData\qwen-code\settings.json"),
        },
        // A matcher of "" or "*" takes every tool ("Matcher Syntax").
        events: &[("PreToolUse", Some("*")), ("PermissionRequest", Some("*")), ("UserPromptSubmit", None), ("PostToolUse", Some("*")), ("Stop", None)],
        layout: Layout::Groups,
        http: Err("Qwen Code's http hooks are not wired by hookhost yet (written from its documentation, no real-client proof): use --wiring send (a thin client per event) or command"),
        mcp: Err("Qwen Code hooks are commands, http and prompts, not MCP tools: use --wiring send (a thin client per event) or command"),
    }),
};
