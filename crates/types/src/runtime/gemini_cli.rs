//! Gemini CLI, from its hooks reference (google-gemini/gemini-cli `docs/hooks/reference.md`):
//! Claude Code's shape with its own event names and `decision: "allow" | "deny"`.

use super::{event, Answer, EnvValue, Fields, Install, Layout, Managed, MatchOn as On, Naming, Payload, Profile, Rewrite, Runtime};
use crate::event::EventName as E;

pub(super) const PROFILE: Profile = Profile {
    name: "gemini-cli",
    title: "Gemini CLI",
    reference: "https://github.com/google-gemini/gemini-cli/blob/main/docs/hooks/reference.md",
    events: &[
        event("BeforeTool", Some(E::PreToolUse), On::Tool),
        event("AfterTool", Some(E::PostToolUse), On::Tool),
        event("BeforeAgent", Some(E::UserPromptSubmit), On::Nothing),
        event("AfterAgent", Some(E::Stop), On::Nothing),
        event("BeforeModel", Some(E::BeforeModelCall), On::Nothing),
        event("AfterModel", Some(E::AfterModelCall), On::Nothing),
        event("BeforeToolSelection", None, On::Nothing),
        event("PreCompress", Some(E::PreCompact), On::Nothing),
        event("SessionStart", Some(E::SessionStart), On::Nothing),
        event("SessionEnd", Some(E::SessionEnd), On::Nothing),
        event("Notification", Some(E::Notification), On::Nothing),
    ],
    naming: Naming::Pascal,
    config_dir: Some(".gemini"),
    config_files: &[".gemini/settings.json", "~/.gemini/settings.json"],
    config_syntax: None,
    dialect: Runtime::GeminiCli,
    // "Hook input": no tool call id; the model events carry the request and response.
    payload: Payload::Flat(Fields {
        event: "hook_event_name",
        session_id: "session_id",
        tool_call_id: None,
        result: "tool_response",
        tool_error: None,
        prompt: "prompt",
        response: "prompt_response",
        agent_id: false,
        timestamp: true,
        model_payloads: true,
        // It sets Claude Code's name too, for hooks written for both.
        env: &[("GEMINI_PROJECT_DIR", EnvValue::ProjectDir), ("GEMINI_SESSION_ID", EnvValue::SessionId), ("GEMINI_CWD", EnvValue::Cwd), ("CLAUDE_PROJECT_DIR", EnvValue::ProjectDir)],
    }),
    // It parses stdout as JSON on exit 0: nothing to say is `{}`.
    answer: Some(Answer { soft_error_exit: 1, nothing: "{}", input_before_tool: true, input_on_permission: Rewrite::No, prompt_rewrite: false }),
    project_hooks: None,
    install: Some(Install {
        program: "gemini",
        home: ".gemini",
        home_vars: &[],
        user_file: "settings.json",
        project_file: Ok(".gemini/settings.json"),
        // Its configuration docs (docs/cli/configuration.md, "Settings files"): system settings.
        managed: Managed {
            unix: Ok("/etc/gemini-cli/settings.json"),
            macos: Ok("/Library/Application Support/GeminiCli/settings.json"),
            windows: Ok(r"C:\ProgramData\gemini-cli\settings.json"),
        },
        events: &[("BeforeTool", Some(".*")), ("AfterTool", Some(".*")), ("BeforeAgent", None), ("AfterAgent", None)],
        layout: Layout::Groups,
        http: Err("Gemini CLI has no http hooks: use --wiring send (a thin client per event) or command"),
        mcp: Err("Gemini CLI hooks are commands only: use --wiring send (a thin client per event) or command"),
    }),
};
