//! Claude Code, from its hooks reference (<https://code.claude.com/docs/en/hooks>, "Hook
//! events" and "Matcher patterns"): the canonical event of each of its events that hookhost
//! models (the rest pass through as `custom:<Name>` with their payload), and what a matcher
//! is tested on.

use super::{event, Answer, McpHooks, EnvValue, Fields, Install, Layout, Managed, MatchOn as On, Naming, Payload, ProjectHooks, Profile, Rewrite, Runtime};
use crate::event::EventName as E;

pub(super) const PROFILE: Profile = Profile {
    name: "claude-code",
    title: "Claude Code",
    reference: "https://code.claude.com/docs/en/hooks",
    events: &[
        event("PreToolUse", Some(E::PreToolUse), On::Tool),
        event("PermissionRequest", Some(E::PermissionRequest), On::Tool),
        event("PostToolUse", Some(E::PostToolUse), On::Tool),
        event("PostToolUseFailure", None, On::Field("tool_name")),
        event("PermissionDenied", None, On::Field("tool_name")),
        event("PostToolBatch", None, On::Nothing),
        event("UserPromptSubmit", Some(E::UserPromptSubmit), On::Nothing),
        event("UserPromptExpansion", None, On::Field("command_name")),
        event("Stop", Some(E::Stop), On::Nothing),
        event("StopFailure", None, On::Field("error")),
        event("SubagentStart", None, On::Field("agent_type")),
        event("SubagentStop", Some(E::SubagentStop), On::Field("agent_type")),
        event("SessionStart", Some(E::SessionStart), On::Field("source")),
        event("SessionEnd", Some(E::SessionEnd), On::Field("reason")),
        event("Setup", None, On::Field("trigger")),
        event("PreCompact", Some(E::PreCompact), On::Field("trigger")),
        event("PostCompact", Some(E::PostCompact), On::Field("trigger")),
        event("Notification", Some(E::Notification), On::Field("kind")),
        event("Elicitation", None, On::Field("mcp_server_name")),
        event("ElicitationResult", None, On::Field("mcp_server_name")),
        event("ConfigChange", None, On::Field("source")),
        event("InstructionsLoaded", None, On::Field("load_reason")),
        event("FileChanged", None, On::Field("file_name")),
        event("CwdChanged", None, On::Nothing),
        event("TeammateIdle", None, On::Nothing),
        event("TaskCreated", None, On::Nothing),
        event("TaskCompleted", None, On::Nothing),
        event("WorktreeCreate", None, On::Nothing),
        event("WorktreeRemove", None, On::Nothing),
        event("PreModelSwitch", None, On::Nothing),
        event("PostModelSwitch", None, On::Nothing),
        event("MessageDisplay", None, On::Nothing),
        event("DirectoryAdded", None, On::Nothing),
    ],
    naming: Naming::Pascal,
    config_dir: Some(".claude"),
    config_files: &[".claude/settings.json", ".claude/settings.local.json", "~/.claude/settings.json"],
    config_syntax: Some(Runtime::ClaudeCode),
    dialect: Runtime::ClaudeCode,
    payload: Payload::Flat(FIELDS),
    // "PermissionRequest decision control": `updatedInput` goes with `behavior: "allow"`.
    answer: Some(Answer { soft_error_exit: 1, nothing: "", input_before_tool: true, input_on_permission: Rewrite::WhenAllowed, prompt_rewrite: false }),
    project_hooks: Some(ProjectHooks { file: ".claude/settings.json", scripts: Some(".claude/hooks") }),
    install: Some(Install {
        program: "claude",
        home: ".claude",
        home_vars: &[],
        user_file: "settings.json",
        project_file: Ok(".claude/settings.json"),
        // Its settings reference, "Settings files": managed-settings.json.
        managed: Managed {
            unix: Ok("/etc/claude-code/managed-settings.json"),
            macos: Ok("/Library/Application Support/ClaudeCode/managed-settings.json"),
            windows: Ok(r"C:\ProgramData\ClaudeCode\managed-settings.json"),
        },
        events: &[("PreToolUse", None), ("PermissionRequest", None), ("UserPromptSubmit", None), ("PostToolUse", None), ("Stop", None)],
        layout: Layout::Groups,
        http: Ok(()),
        mcp: Ok(MCP),
    }),
};

/// Its `mcp_tool` hooks (from 2.1.118; the hooks reference, "MCP tool hooks"): the arguments
/// are a template whose `${path}` strings it fills from the hook input — an object as JSON
/// text, a missing field as "" — and the tool's text answer is read as a command hook's
/// stdout. The fields are its "Hook input" per event; its MCP servers are `mcpServers` in
/// `~/.claude.json` (`projects.<path>.mcpServers` for one project: its "local" scope).
const MCP: McpHooks = McpHooks {
    common: &["hook_event_name", "session_id", "transcript_path", "cwd", "permission_mode", "agent_id", "agent_type"],
    events: &[
        ("PreToolUse", &["tool_name", "tool_input", "tool_use_id"]),
        ("PermissionRequest", &["tool_name", "tool_input", "permission_suggestions"]),
        ("PostToolUse", &["tool_name", "tool_input", "tool_response", "tool_use_id"]),
        ("UserPromptSubmit", &["prompt"]),
        ("Stop", &["stop_hook_active", "last_assistant_message"]),
    ],
    structured: &["tool_input", "tool_response", "permission_suggestions", "stop_hook_active"],
    servers_file: ".claude.json",
    project_servers: ("projects", "mcpServers"),
    // Its managed-mcp.json takes every MCP server out of the user's hands.
    managed: Err("Claude Code's managed MCP file (managed-mcp.json) takes exclusive control of MCP servers — a user could then add none of their own — so managed hooks are wired with --wiring command or send"),
};

/// Its hooks' input ("Hook input"): what Codex sends too.
pub(super) const FIELDS: Fields = Fields {
    event: "hook_event_name",
    session_id: "session_id",
    tool_call_id: Some("tool_use_id"),
    result: "tool_response",
    tool_error: None,
    prompt: "prompt",
    response: "last_assistant_message",
    agent_id: false,
    timestamp: false,
    model_payloads: false,
    env: &[("CLAUDE_PROJECT_DIR", EnvValue::ProjectDir)],
};
