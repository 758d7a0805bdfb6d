//! Starchild, from its shell-hook guide (the `agent-hooks` skill of
//! <https://github.com/starchild-ai-agent/official-skills>): its event names; events it has that
//! hookhost does not model (`on_response_end`, `on_completion_claim`, ...) pass through.

use super::{event, Answer, Fields, MatchOn as On, Naming, Payload, Profile, Rewrite, Runtime};
use crate::event::EventName as E;

pub(super) const PROFILE: Profile = Profile {
    name: "starchild",
    title: "Starchild",
    reference: "https://github.com/starchild-ai-agent/official-skills (agent-hooks/SKILL.md)",
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
    payload: Payload::Flat(Fields {
        event: "event",
        session_id: "session_id",
        tool_call_id: None,
        result: "tool_result",
        tool_error: None,
        prompt: "message",
        response: "response",
        agent_id: true,
        timestamp: false,
        model_payloads: false,
        env: &[],
    }),
    answer: Some(Answer { soft_error_exit: 1, nothing: "", input_before_tool: true, input_on_permission: Rewrite::No, prompt_rewrite: false }),
    project_hooks: None,
    install: None,
};
