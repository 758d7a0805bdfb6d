//! Starchild, from its shell-hook guide (seed 004): its event names; events it has that
//! hookhost does not model (`on_response_end`, `on_completion_claim`, ...) pass through.

use super::{event, MatchOn as On, Naming, Profile, Runtime};
use crate::event::EventName as E;

pub(super) const PROFILE: Profile = Profile {
    name: "starchild",
    title: "Starchild",
    reference: "Starchild shell hooks (seed 004)",
    events: &[
        event("pre_tool_call", Some(E::PreToolUse), On::Tool),
        event("post_tool_call", Some(E::PostToolUse), On::Tool),
        event("transform_tool_result", Some(E::ToolResultTransform), On::Tool),
        event("on_user_message", Some(E::UserPromptSubmit), On::Nothing),
        event("pre_llm_call", Some(E::BeforeModelCall), On::Nothing),
        event("post_llm_call", Some(E::AfterModelCall), On::Nothing),
        event("on_stop", Some(E::Stop), On::Nothing),
        event("on_session_start", Some(E::SessionStart), On::Nothing),
        event("on_session_end", Some(E::SessionEnd), On::Nothing),
        event("on_response_end", None, On::Nothing),
        event("on_completion_claim", None, On::Nothing),
        event("on_outbound_message", None, On::Nothing),
    ],
    naming: Naming::Canonical,
    config_dir: None,
    config_files: &[],
    config_syntax: Some(Runtime::Starchild),
    dialect: Runtime::Starchild,
};
