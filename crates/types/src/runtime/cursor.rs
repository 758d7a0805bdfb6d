//! Cursor (its agent and the `cursor-agent` CLI), from its hooks reference
//! (<https://cursor.com/docs/hooks>): camelCase events in `hooks.json` (`version: 1`, a list of
//! `command` entries per event, each with its own `timeout` and `failClosed`), flat snake_case
//! input naming the event in `hook_event_name` and the session as `conversation_id` (beside
//! `generation_id`, `workspace_roots`, `cursor_version`), and answers per kind of event: a
//! `permission` (`allow` / `deny` / `ask`) before a tool, `continue` on a prompt,
//! `followup_message` on a stop. Written from its documentation only: no real-client proof
//! (docs/INTEGRATIONS.md says so).

use super::{event, gating_event, Answer, Fields, Install, Layout, Managed, MatchOn as On, Naming, Payload, Profile, Rewrite, Runtime};
use crate::event::EventName as E;

pub(super) const PROFILE: Profile = Profile {
    name: "cursor",
    title: "Cursor",
    reference: "https://cursor.com/docs/hooks",
    events: &[
        event("sessionStart", Some(E::SessionStart), On::Nothing),
        event("sessionEnd", Some(E::SessionEnd), On::Nothing),
        // "Generic tool use hooks (fires for all tools)": hookhost's tool events.
        event("preToolUse", Some(E::PreToolUse), On::Tool),
        event("postToolUse", Some(E::PostToolUse), On::Tool),
        event("postToolUseFailure", None, On::Field("tool_name")),
        event("subagentStart", None, On::Nothing),
        event("subagentStop", Some(E::SubagentStop), On::Nothing),
        // The older per-kind events, which `preToolUse` / `postToolUse` cover (install wires
        // those). One wired by hand runs as a custom event; the `before…` ones still gate what
        // Cursor does next, so hookhost's own failure there blocks.
        gating_event("beforeShellExecution", On::Nothing),
        event("afterShellExecution", None, On::Nothing),
        gating_event("beforeMCPExecution", On::Field("tool_name")),
        event("afterMCPExecution", None, On::Field("tool_name")),
        gating_event("beforeReadFile", On::Nothing),
        event("afterFileEdit", None, On::Nothing),
        event("beforeSubmitPrompt", Some(E::UserPromptSubmit), On::Nothing),
        event("preCompact", Some(E::PreCompact), On::Nothing),
        event("stop", Some(E::Stop), On::Nothing),
        event("afterAgentResponse", None, On::Nothing),
        event("afterAgentThought", None, On::Nothing),
        event("beforeTabFileRead", None, On::Nothing),
        event("afterTabFileEdit", None, On::Nothing),
    ],
    naming: Naming::Camel,
    config_dir: Some(".cursor"),
    config_files: &[".cursor/hooks.json", "~/.cursor/hooks.json"],
    config_syntax: Some(Runtime::Cursor),
    dialect: Runtime::Cursor,
    payload: Payload::Flat(Fields {
        event: "hook_event_name",
        session_id: "conversation_id",
        tool_call_id: None,
        result: "tool_output",
        tool_error: None,
        prompt: "prompt",
        response: "text",
        agent_id: false,
        timestamp: false,
        model_payloads: false,
        env: &[],
    }),
    // A permission hook's stdout must be JSON naming its `permission` (anything else is "invalid
    // JSON", and with `failClosed` a block): the writer always says one; `{}` elsewhere.
    answer: Some(Answer { soft_error_exit: 1, nothing: "{}", input_before_tool: true, input_on_permission: Rewrite::No, prompt_rewrite: false }),
    project_hooks: None,
    install: Some(Install {
        program: "cursor-agent",
        home: ".cursor",
        home_vars: &[],
        user_file: "hooks.json",
        project_file: Ok(".cursor/hooks.json"),
        // "Enterprise" hooks, the ones its administrators deploy (MDM).
        managed: Managed {
            unix: Ok("/etc/cursor/hooks.json"),
            macos: Ok("/Library/Application Support/Cursor/hooks.json"),
            windows: Ok(r"C:\ProgramData\Cursor\hooks.json"),
        },
        events: &[("preToolUse", None), ("postToolUse", None), ("beforeSubmitPrompt", None), ("stop", None)],
        layout: Layout::Handlers { version: 1, key: "command", fail_closed: true },
        http: Err("Cursor hooks are commands (and prompts) only: use --wiring send (a thin client per event) or command"),
        mcp: Err("Cursor hooks are commands (and prompts) only: use --wiring send (a thin client per event) or command"),
    }),
};
