//! docker-agent, from its hooks reference
//! (<https://docs.docker.com/ai/docker-agent/configuration/hooks/>, "Hook Types"): its events as the runtime
//! dispatches them. `on_user_input` is the agent *waiting* for input (a notification), not a
//! prompt; `pre_compact` and `before_compaction` both fire before a compaction.
//!
//! Where its hooks live: each agent's YAML (`agents.<name>.hooks`), the user's config
//! (`~/.config/cagent/config.yaml`, `settings.hooks`, from v1.97.0) and, one file per tool,
//! `~/.config/cagent/hooks.d/*.yaml` — each a standalone hooks block, read in name order, a file
//! that does not parse skipped with a warning (docker/docker-agent pull request 3496, "hooks.d
//! drop-in directory and config-dir env override"; `DOCKER_AGENT_CONFIG_DIR`, or its older
//! name `CAGENT_CONFIG_DIR`, moves the directory). `hookhost install` writes its own drop-in
//! there. The hooks block's shape is the agent YAML's: `pre_tool_use` / `post_tool_use` hold
//! matcher groups, the other events the handlers themselves.

use super::{event, Answer, Fields, Install, Layout, Managed, MatchOn as On, Naming, Payload, Profile, Rewrite, Runtime};
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
    install: Some(Install {
        // Its standalone binary (`docker agent` is the same program as a Docker CLI plugin);
        // its config directory in the home says it has run here either way.
        program: "docker-agent",
        home: ".config/cagent",
        home_vars: &["DOCKER_AGENT_CONFIG_DIR", "CAGENT_CONFIG_DIR"],
        user_file: "hooks.d/hookhost.yaml",
        project_file: Err(NO_PROJECT),
        managed: Managed { unix: Err(NO_MANAGED), macos: Err(NO_MANAGED), windows: Err(NO_MANAGED) },
        // The events whose config shape its hooks reference shows (`tool_response_transform`,
        // where a tool's output is rewritten, and `permission_request` are not shown there:
        // a drop-in of the wrong shape is skipped whole, so they are not wired).
        events: &[("pre_tool_use", Some("*")), ("post_tool_use", Some("*")), ("user_prompt_submit", None), ("stop", None)],
        layout: Layout::DropIn,
        http: Err(COMMANDS),
        mcp: Err(COMMANDS),
    }),
};

// (The built-in guard links every profile: its strings count towards the guard's three pages of
// memory, host/src/builtin.rs. Keep them short.)
const NO_PROJECT: &str = "docker-agent has no project hooks file (a project's are in its agent YAML): use --scope user";
const COMMANDS: &str = "docker-agent's hooks are commands: use --wiring send or command";
const NO_MANAGED: &str = "docker-agent has no managed settings: wire it at --scope user for each user";
