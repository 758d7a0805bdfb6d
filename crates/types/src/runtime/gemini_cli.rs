//! Gemini CLI, from its hooks reference (google-gemini/gemini-cli `docs/hooks/reference.md`):
//! Claude Code's shape with its own event names and `decision: "allow" | "deny"`.

use super::{event, MatchOn as On, Naming, Profile, Runtime};
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
};
