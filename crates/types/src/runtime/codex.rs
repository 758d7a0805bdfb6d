//! Codex, from its hooks documentation (<https://developers.openai.com/codex/hooks>) and the
//! event names its hook engine accepts (`HookEventNameWire` in openai/codex
//! `codex-rs/hooks/schema/generated/`). Its command hooks speak Claude Code's wire format;
//! its answers have their own writer (Codex refuses any field outside its schema).

use super::{event, MatchOn as On, Naming, Profile, Runtime};
use crate::event::EventName as E;

pub(super) const PROFILE: Profile = Profile {
    name: "codex",
    title: "Codex",
    reference: "https://developers.openai.com/codex/hooks",
    events: &[
        event("PreToolUse", Some(E::PreToolUse), On::Tool),
        event("PermissionRequest", Some(E::PermissionRequest), On::Tool),
        event("PostToolUse", Some(E::PostToolUse), On::Tool),
        event("SessionStart", Some(E::SessionStart), On::Field("source")),
        event("UserPromptSubmit", Some(E::UserPromptSubmit), On::Nothing),
        event("Stop", Some(E::Stop), On::Nothing),
        event("PreCompact", Some(E::PreCompact), On::Nothing),
        event("PostCompact", Some(E::PostCompact), On::Nothing),
    ],
    naming: Naming::Pascal,
    config_dir: Some(".codex"),
    config_files: &[".codex/hooks.json", "~/.codex/hooks.json"],
    config_syntax: None,
    dialect: Runtime::ClaudeCode,
};
