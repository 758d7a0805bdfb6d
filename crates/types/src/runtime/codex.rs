//! Codex, from its hooks documentation (<https://developers.openai.com/codex/hooks>) and the
//! event names its hook engine accepts (`HookEventNameWire` in openai/codex
//! `codex-rs/hooks/schema/generated/`). Its command hooks speak Claude Code's wire format;
//! its answers have their own writer (Codex refuses any field outside its schema).

use super::{event, Answer, Install, Layout, Managed, MatchOn as On, Naming, Payload, Profile, Rewrite, Runtime};
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
    payload: Payload::Flat(super::claude_code::FIELDS),
    answer: Some(Answer { soft_error_exit: 1, nothing: "", input_before_tool: true, input_on_permission: Rewrite::No, prompt_rewrite: false }),
    project_hooks: None,
    install: Some(Install {
        program: "codex",
        home: ".codex",
        home_vars: &["CODEX_HOME"],
        user_file: "hooks.json",
        project_file: Ok(".codex/hooks.json"),
        // Its system layer (/etc/codex): a hooks.json there is managed and runs without a trust
        // step (checked with Codex 0.169's hooks/list: source "system", trustStatus "managed").
        managed: Managed {
            unix: Ok("/etc/codex/hooks.json"),
            macos: Ok("/etc/codex/hooks.json"),
            windows: Err("Codex on Windows takes managed hooks only from enterprise policy (requirements pushed by MDM or the cloud), not from a file hookhost can write: wire it at --scope user"),
        },
        // No matcher: every tool, `apply_patch` edits included.
        events: &[("PreToolUse", None), ("PermissionRequest", None), ("UserPromptSubmit", None), ("PostToolUse", None), ("Stop", None)],
        layout: Layout::Groups,
        http: Err("Codex has no http hooks: use --wiring send (a thin client per event) or command"),
        mcp: Err("Codex hooks are commands only: use --wiring send (a thin client per event) or command"),
    }),
};
