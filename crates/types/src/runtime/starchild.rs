//! Starchild, from its shell-hook guide (the `agent-hooks` skill of
//! <https://github.com/starchild-ai-agent/official-skills>): its event names; events it has that
//! hookhost does not model (`on_response_end`, `on_completion_claim`, ...) pass through.
//!
//! Where its hooks live: `config/shell_hooks.yaml` in its workspace (`/data/workspace` in its
//! container), `hooks:` a list of `{event, command, matcher, timeout}`. A hook runs only when
//! the master switch is on (`shell_hooks.enabled: true` in `config/agent.yaml`) and the
//! `(event, command)` pair is approved — both done by its loopback self-approve API
//! (`POST http://localhost:8000/internal/runtime/hooks/approve {"command": …}`), or by hand
//! with `/hooks approve` and `/hooks on`. Its bridge fails open: a command it cannot run is a
//! "continue".

use super::{event, Answer, Fields, Install, Layout, Managed, MatchOn as On, Naming, Payload, Profile, Rewrite, Runtime};
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
    config_files: &["config/shell_hooks.yaml"],
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
    install: Some(Install {
        // No program of its own on a desk: it is a server in its container, whose workspace
        // is where hookhost finds it.
        program: "starchild",
        home: "/data/workspace",
        home_vars: &[],
        user_file: "config/shell_hooks.yaml",
        // Another workspace than the container's (`--project DIR`).
        project_file: Ok("config/shell_hooks.yaml"),
        managed: Managed { unix: Err(NO_MANAGED), macos: Err(NO_MANAGED), windows: Err(NO_MANAGED) },
        events: &[("pre_tool_call", None), ("on_user_message", None)],
        layout: Layout::YamlList,
        http: Err("Starchild's http hooks cannot reach loopback: use --wiring send or command"),
        mcp: Err("Starchild's hooks are commands: use --wiring send or command"),
    }),
};

// (Short: the built-in guard links every profile, and its data must fit its three pages.)
const NO_MANAGED: &str = "Starchild has no managed settings: its hooks are its workspace's";
