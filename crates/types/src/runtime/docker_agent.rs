//! docker-agent, from its hooks reference
//! (<https://docs.docker.com/ai/docker-agent/configuration/hooks/>, "Hook Types"): its events as the runtime
//! dispatches them. `on_user_input` is the agent *waiting* for input (a notification), not a
//! prompt; `pre_compact` and `before_compaction` both fire before a compaction.

use super::{event, Answer, Fields, MatchOn as On, Naming, Payload, Profile, Rewrite, Runtime};
use crate::event::EventName as E;

pub(super) const PROFILE: Profile = Profile {
    name: "docker-agent",
    title: "docker-agent",
    reference: "https://docs.docker.com/ai/docker-agent/configuration/hooks/",
    events: &[
        event("pre_tool_use", Some(E::PreToolUse), On::Tool),
        event("tool_response_transform", Some(E::ToolResultTransform), On::Tool),
        event("post_tool_use", Some(E::PostToolUse), On::Tool),
        event("permission_request", Some(E::PermissionRequest), On::Tool),
        event("session_start", Some(E::SessionStart), On::Nothing),
        event("user_prompt_submit", Some(E::UserPromptSubmit), On::Nothing),
        event("user_steering_messages_submit", None, On::Nothing),
        event("user_followup_submit", None, On::Nothing),
        event("turn_start", Some(E::TurnStart), On::Nothing),
        event("turn_end", Some(E::TurnEnd), On::Nothing),
        event("before_llm_call", Some(E::BeforeModelCall), On::Nothing),
        event("after_llm_call", Some(E::AfterModelCall), On::Nothing),
        event("session_end", Some(E::SessionEnd), On::Nothing),
        event("pre_compact", Some(E::PreCompact), On::Nothing),
        event("before_compaction", Some(E::PreCompact), On::Nothing),
        event("after_compaction", Some(E::PostCompact), On::Nothing),
        event("subagent_stop", Some(E::SubagentStop), On::Nothing),
        event("stop", Some(E::Stop), On::Nothing),
        event("notification", Some(E::Notification), On::Nothing),
        event("on_user_input", Some(E::Notification), On::Nothing),
        event("on_error", None, On::Nothing),
        event("on_max_iterations", None, On::Nothing),
        event("on_agent_switch", None, On::Nothing),
        event("on_session_resume", None, On::Nothing),
        event("on_tool_approval_decision", None, On::Nothing),
        event("worktree_create", None, On::Nothing),
    ],
    naming: Naming::Canonical,
    config_dir: None,
    config_files: &[],
    config_syntax: Some(Runtime::DockerAgent),
    dialect: Runtime::DockerAgent,
    payload: Payload::Flat(Fields {
        event: "hook_event_name",
        session_id: "session_id",
        tool_call_id: Some("tool_use_id"),
        result: "tool_response",
        tool_error: Some("tool_error"),
        prompt: "prompt",
        response: "stop_response",
        agent_id: false,
        timestamp: false,
        model_payloads: false,
        env: &[],
    }),
    // A permission_request hook's `updated_input` is taken whatever it decides.
    answer: Some(Answer { soft_error_exit: 1, nothing: "", input_before_tool: true, input_on_permission: Rewrite::Yes, prompt_rewrite: false }),
    project_hooks: None,
    install: None,
};
