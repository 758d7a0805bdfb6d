//! GitHub Copilot CLI, from its hooks reference (github/docs
//! `content/copilot/reference/hooks-reference.md`, "Hook events", "Hook event input payloads",
//! "Matcher filtering"): camelCase event names, and input that names no event (hookhost infers
//! it from the fields, or takes it from `hookhost run --event-name`). A prompt reaches the model
//! through `userPromptTransformed`, the one prompt event whose command-hook output Copilot reads
//! (`userPromptSubmitted`'s is dropped): hookhost's prompt event is that one.

use super::{event, MatchOn as On, Naming, Profile, Runtime};
use crate::event::EventName as E;

pub(super) const PROFILE: Profile = Profile {
    name: "copilot",
    title: "GitHub Copilot CLI",
    reference: "https://docs.github.com/en/copilot/reference/hooks-reference",
    events: &[
        event("preToolUse", Some(E::PreToolUse), On::Tool),
        event("permissionRequest", Some(E::PermissionRequest), On::Tool),
        event("postToolUse", Some(E::PostToolUse), On::Tool),
        event("postToolUseFailure", None, On::Field("tool_name")),
        event("userPromptTransformed", Some(E::UserPromptSubmit), On::Nothing),
        event("userPromptSubmitted", None, On::Nothing),
        event("sessionStart", Some(E::SessionStart), On::Nothing),
        event("sessionEnd", Some(E::SessionEnd), On::Nothing),
        event("agentStop", Some(E::Stop), On::Nothing),
        event("subagentStart", None, On::Field("agent_name")),
        event("subagentStop", Some(E::SubagentStop), On::Nothing),
        event("preCompact", Some(E::PreCompact), On::Field("trigger")),
        event("notification", Some(E::Notification), On::Field("kind")),
        event("errorOccurred", None, On::Nothing),
    ],
    naming: Naming::Camel,
    config_dir: Some(".github"),
    config_files: &[".github/hooks/*.json", "~/.copilot/hooks/*.json"],
    config_syntax: Some(Runtime::Copilot),
    dialect: Runtime::Copilot,
};
