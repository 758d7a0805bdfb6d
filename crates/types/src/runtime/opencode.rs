//! OpenCode, from its plugin documentation (<https://opencode.ai/docs/plugins/>, "Events") and
//! the hooks its plugin API (`@opencode-ai/plugin`, `Hooks`) declares. OpenCode has no command
//! hooks: a plugin — a JavaScript module it loads from `.opencode/plugin/` or
//! `~/.config/opencode/plugin/` — gets `tool.execute.before` (the call's `args`, changed in
//! place; an exception blocks the call and its message reaches the model),
//! `tool.execute.after` (the tool's `output`, replaceable), `chat.message` (the user's message
//! and its text parts) and the `event` stream (`session.created`, `session.idle`, ...). hookhost's
//! plugin for it (`hookhost install --runtime opencode`) sends each as hookhost's own envelope
//! to `hookhost run --output opencode` (or `hookhost-send`) and reads the answer
//! `host/src/protocol/opencode.rs` writes: the names below are the plugin API's.

use super::{event, Answer, Install, Layout, Managed, MatchOn as On, Naming, Payload, Profile, Rewrite, Runtime};
use crate::event::EventName as E;

pub(super) const PROFILE: Profile = Profile {
    name: "opencode",
    title: "OpenCode",
    reference: "https://opencode.ai/docs/plugins/",
    events: &[
        event("tool.execute.before", Some(E::PreToolUse), On::Tool),
        event("tool.execute.after", Some(E::PostToolUse), On::Tool),
        event("chat.message", Some(E::UserPromptSubmit), On::Nothing),
        event("session.created", Some(E::SessionStart), On::Nothing),
        event("session.idle", Some(E::Stop), On::Nothing),
        event("session.compacted", Some(E::PostCompact), On::Nothing),
    ],
    naming: Naming::Canonical,
    config_dir: Some(".opencode"),
    config_files: &["opencode.json", "opencode.jsonc", ".opencode/plugin/hookhost.js", ".opencode/plugin/*.ts", ".opencode/plugins/*.js", "~/.config/opencode/opencode.json", "~/.config/opencode/plugin/*.js"],
    config_syntax: None,
    dialect: Runtime::Everruns,
    payload: Payload::Envelope,
    // Its plugin is hookhost's own: it reads `hookhost run --output opencode`'s answer
    // (`host/src/protocol/opencode.rs`) and applies what OpenCode's plugin API can take — new
    // tool arguments, a new tool output, a new message. Exit 1 is hookhost's error that must not
    // block, which the plugin honours after a tool; before a tool call or a message it blocks on
    // that as on any other failure (hookhost never means exit 1 there but with --fail-open).
    answer: Some(Answer { soft_error_exit: 1, nothing: "", input_before_tool: true, input_on_permission: Rewrite::No, prompt_rewrite: true }),
    project_hooks: None,
    install: Some(Install {
        program: "opencode",
        home: ".config/opencode",
        home_vars: &[],
        user_file: "plugin/hookhost.js",
        project_file: Ok(".opencode/plugin/hookhost.js"),
        managed: Managed { unix: Err(NO_MANAGED), macos: Err(NO_MANAGED), windows: Err(NO_MANAGED) },
        events: &[("tool.execute.before", None), ("tool.execute.after", None), ("chat.message", None)],
        layout: Layout::Plugin,
        http: Err("OpenCode has no http hooks: its plugin asks hookhost per event — use --wiring send (to hookhost serve) or command"),
        mcp: Err("OpenCode's plugin hooks call no MCP tools: use --wiring send (to hookhost serve) or command; `hookhost mcp proxy` covers its MCP servers"),
    }),
};

const NO_MANAGED: &str = "OpenCode has no managed settings hookhost can write: wire it at --scope user for each user (or --scope project in each repository)";
