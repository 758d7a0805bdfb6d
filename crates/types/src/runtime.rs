//! The agent runtimes hookhost speaks to, in one vocabulary: each [`Runtime`] is a module of
//! its own ([`Profile`]) holding what the rest of hookhost looks up about it — its event names
//! and how they map onto hookhost's canonical events, where its hook configuration lives,
//! which config reader reads it, the shell-hook wire format (dialect) its command hooks speak,
//! and the reference it was written from. The config reader (`hookhost-config`), the answer
//! writers (`hookhost::protocol`) and the bash adapter all start from here.
//!
//! Adding a runtime is one module here plus its answer writer and tests; docs/ARCHITECTURE.md
//! lists the steps.

use crate::event::EventName;
use std::fmt;

mod profile;
pub use profile::*;

mod antigravity;
mod claude_code;
mod codex;
mod copilot;
mod cursor;
mod docker_agent;
mod everruns;
mod gemini_cli;
mod opencode;
mod qwen_code;
mod starchild;

use copilot::snake;

/// An agent runtime hookhost reads configs of, answers, or speaks to shell hooks as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Runtime {
    /// Everruns (`user_hooks` capabilities; hookhost's canonical event names).
    Everruns,
    /// Anthropic's Claude Code.
    ClaudeCode,
    /// OpenAI's Codex CLI: Claude Code's wire format with its own, stricter answer checks.
    Codex,
    /// Google's Gemini CLI.
    GeminiCli,
    /// Docker's docker-agent.
    DockerAgent,
    /// Starchild.
    Starchild,
    /// GitHub Copilot CLI.
    Copilot,
    /// OpenCode (hookhost's plugin for it).
    OpenCode,
    /// Qwen Code (a Gemini CLI fork with Claude Code's hook contract).
    QwenCode,
    /// Cursor (its agent and `cursor-agent`).
    Cursor,
    /// Google's Antigravity CLI (`agy`), Gemini CLI's successor.
    Antigravity,
}

const fn event(name: &'static str, canonical: Option<EventName>, matcher: MatchOn) -> RuntimeEvent {
    RuntimeEvent { name, canonical, matcher, gates: false }
}

/// An event hookhost does not model, before an action the runtime lets a hook refuse.
const fn gating_event(name: &'static str, matcher: MatchOn) -> RuntimeEvent {
    RuntimeEvent { name, canonical: None, matcher, gates: true }
}

impl Runtime {
    /// Every runtime, in the order messages list them.
    pub const ALL: [Runtime; 11] = [Runtime::Everruns, Runtime::ClaudeCode, Runtime::Codex, Runtime::GeminiCli, Runtime::DockerAgent, Runtime::Starchild, Runtime::Copilot, Runtime::OpenCode, Runtime::QwenCode, Runtime::Cursor, Runtime::Antigravity];

    /// What hookhost knows of it.
    pub fn profile(self) -> &'static Profile {
        match self {
            Runtime::Everruns => &everruns::PROFILE,
            Runtime::ClaudeCode => &claude_code::PROFILE,
            Runtime::Codex => &codex::PROFILE,
            Runtime::GeminiCli => &gemini_cli::PROFILE,
            Runtime::DockerAgent => &docker_agent::PROFILE,
            Runtime::Starchild => &starchild::PROFILE,
            Runtime::Copilot => &copilot::PROFILE,
            Runtime::OpenCode => &opencode::PROFILE,
            Runtime::QwenCode => &qwen_code::PROFILE,
            Runtime::Cursor => &cursor::PROFILE,
            Runtime::Antigravity => &antigravity::PROFILE,
        }
    }

    /// The runtime of a command-line or settings name (`claude-code`, `gemini-cli`, ...).
    pub fn parse(name: &str) -> Option<Runtime> {
        Runtime::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Its command-line name.
    pub fn name(self) -> &'static str {
        self.profile().name
    }

    /// Its name in messages.
    pub fn title(self) -> &'static str {
        self.profile().title
    }

    /// Every runtime's name, comma-separated (for messages).
    pub fn names() -> String {
        Runtime::ALL.iter().map(|r| r.name()).collect::<Vec<_>>().join(", ")
    }

    /// What an answer to it must respect, when hookhost answers it as a command hook
    /// (`hookhost run --output`, `hookhost-send --output`).
    pub fn answer(self) -> Option<&'static Answer> {
        self.profile().answer.as_ref()
    }

    /// The runtimes hookhost answers as a command hook, in [`Runtime::ALL`]'s order.
    pub fn answered() -> impl Iterator<Item = Runtime> {
        Runtime::ALL.into_iter().filter(|r| r.answer().is_some())
    }

    /// The shell-hook wire format its command hooks speak.
    pub fn dialect(self) -> Runtime {
        self.profile().dialect
    }

    /// Its event of this name, if it documents one.
    pub fn event(self, name: &str) -> Option<&'static RuntimeEvent> {
        self.profile().events.iter().find(|e| e.name == name)
    }

    /// The canonical event its name stands for: from its table, or (for a runtime that uses
    /// hookhost's names) a canonical name. `None`: an event hookhost does not model.
    pub fn canonical(self, name: &str) -> Option<EventName> {
        match self.event(name) {
            Some(row) => row.canonical.clone(),
            None if self.profile().naming == Naming::Canonical => EventName::from_canonical(name),
            None => None,
        }
    }

    /// The name this runtime gives an event: its table's, else by its naming rule; a custom
    /// event keeps the name it came with (it is the runtime's own already).
    pub fn event_name(self, event: &EventName) -> String {
        if let EventName::Custom(name) = event {
            return name.clone();
        }
        if let Some(row) = self.profile().events.iter().find(|e| e.canonical.as_ref() == Some(event)) {
            return row.name.to_string();
        }
        match self.profile().naming {
            Naming::Canonical => event.as_str().to_string(),
            Naming::Pascal => pascal(event.as_str()),
            Naming::Camel => {
                let p = pascal(event.as_str());
                p[..1].to_lowercase() + &p[1..]
            }
        }
    }

    /// The canonical event any runtime's name stands for (what event inputs may use).
    pub fn any_canonical(name: &str) -> Option<EventName> {
        Runtime::ALL.iter().find_map(|r| r.event(name).and_then(|row| row.canonical.clone()))
    }
}

impl EventName {
    /// Parse a canonical name or any runtime's name for it (what event inputs may use; each
    /// runtime's names are in this module).
    pub fn from_any(name: &str) -> Option<EventName> {
        Self::from_canonical(name).or_else(|| Runtime::any_canonical(name))
    }
}

impl fmt::Display for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Runtime {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> serde::Deserialize<'de> for Runtime {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Runtime::parse(&name).ok_or_else(|| serde::de::Error::custom(format!("{name:?} is not one of {}", Runtime::names())))
    }
}

/// `pre_tool_use` → `PreToolUse`.
pub fn pascal(name: &str) -> String {
    name.split('_').filter(|w| !w.is_empty()).map(|w| w[..1].to_uppercase() + &w[1..]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for r in Runtime::ALL {
            assert_eq!(Runtime::parse(r.name()), Some(r));
            assert_eq!(Runtime::ALL.iter().filter(|o| o.name() == r.name()).count(), 1);
        }
        assert_eq!(Runtime::parse("claude"), None);
    }

    #[test]
    fn each_table_names_an_event_once_and_maps_back() {
        for r in Runtime::ALL {
            let events = r.profile().events;
            for (i, e) in events.iter().enumerate() {
                assert!(!events[..i].iter().any(|o| o.name == e.name), "{r}: {} listed twice", e.name);
                if let Some(c) = &e.canonical {
                    assert_eq!(r.canonical(e.name).as_ref(), Some(c), "{r}: {}", e.name);
                }
            }
            // Every canonical event has a name in every runtime, and that name reads back as it.
            for name in EventName::canonical_names() {
                let canonical = EventName::from_canonical(name).unwrap();
                let native = r.event_name(&canonical);
                if r.event(&native).is_some() || r.profile().naming == Naming::Canonical {
                    assert_eq!(r.canonical(&native), Some(canonical), "{r}: {native}");
                }
            }
        }
    }

    #[test]
    fn the_runtimes_names_for_events() {
        use EventName as E;
        assert_eq!(Runtime::ClaudeCode.event_name(&E::PreToolUse), "PreToolUse");
        assert_eq!(Runtime::ClaudeCode.event_name(&E::TurnStart), "TurnStart");
        assert_eq!(Runtime::GeminiCli.event_name(&E::PreToolUse), "BeforeTool");
        assert_eq!(Runtime::GeminiCli.event_name(&E::PreCompact), "PreCompress");
        assert_eq!(Runtime::Starchild.event_name(&E::UserPromptSubmit), "on_user_message");
        assert_eq!(Runtime::DockerAgent.event_name(&E::BeforeModelCall), "before_llm_call");
        assert_eq!(Runtime::DockerAgent.event_name(&E::PreCompact), "pre_compact");
        assert_eq!(Runtime::Everruns.event_name(&E::PreToolUse), "pre_tool_use");
        assert_eq!(Runtime::Codex.event_name(&E::Custom("SubagentStart".into())), "SubagentStart");
        assert_eq!(Runtime::DockerAgent.canonical("on_user_input"), Some(E::Notification), "waiting for input, not a prompt (its hooks reference)");
        assert_eq!(Runtime::DockerAgent.canonical("before_compaction"), Some(E::PreCompact));
        assert_eq!(Runtime::ClaudeCode.canonical("PostToolUseFailure"), None);
        assert_eq!(Runtime::Codex.dialect(), Runtime::ClaudeCode);
        assert_eq!(Runtime::Copilot.event_name(&E::PreToolUse), "preToolUse");
        assert_eq!(Runtime::Copilot.event_name(&E::UserPromptSubmit), "userPromptTransformed", "the prompt event whose answer Copilot reads");
        assert_eq!(Runtime::Copilot.event_name(&E::TurnStart), "turnStart");
        assert_eq!(Runtime::Copilot.canonical("agentStop"), Some(E::Stop));
        assert_eq!(Runtime::Copilot.canonical("errorOccurred"), None);
    }

    #[test]
    fn an_mcp_hook_template_covers_every_wired_event_and_reads_back() {
        for r in Runtime::ALL {
            let Some(Ok(mcp)) = r.profile().install.as_ref().map(|i| i.mcp.as_ref()) else { continue };
            for (event, _) in r.profile().install.as_ref().unwrap().events {
                assert!(mcp.events.iter().any(|(e, _)| e == event), "{r}: the wired event {event} has no mcp fields");
            }
        }
        let mcp = Runtime::ClaudeCode.profile().install.as_ref().unwrap().mcp.as_ref().unwrap();
        let template = mcp.template("PreToolUse");
        assert_eq!(template["tool_input"], "${tool_input}");
        assert_eq!(template["hook_event_name"], "${hook_event_name}");
        assert!(!template.contains_key("prompt"));
        // As Claude Code fills it: objects as JSON text, booleans as text, a missing field "".
        let filled = serde_json::json!({
            "hook_event_name": "PreToolUse", "session_id": "s1", "agent_id": "", "cwd": "/p",
            "tool_name": "Bash", "tool_input": "{\"command\":\"rm -rf /\"}", "stop_hook_active": "true",
            "tool_response": "plain text, not JSON", "prompt": {"already": "json"},
        });
        let payload = mcp.payload(filled.as_object().unwrap().clone());
        assert_eq!(payload["tool_input"], serde_json::json!({"command": "rm -rf /"}));
        assert_eq!(payload["stop_hook_active"], true);
        assert_eq!(payload["tool_response"], "plain text, not JSON", "kept as text when it is not JSON");
        assert_eq!(payload["prompt"], serde_json::json!({"already": "json"}));
        assert!(!payload.contains_key("agent_id"), "an empty value is a field the input did not have");
        assert_eq!(payload["hook_event_name"], "PreToolUse");
    }
}
