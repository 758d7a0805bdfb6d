//! Claude Code, from its hooks reference (<https://code.claude.com/docs/en/hooks>, "Hook
//! events" and "Matcher patterns"): the canonical event of each of its events that hookhost
//! models (the rest pass through as `custom:<Name>` with their payload), and what a matcher
//! is tested on.

use super::{event, MatchOn as On, Naming, Profile, Runtime};
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
};
