//! What a runtime's [`Profile`] holds: its events, where its hooks are configured, how its
//! hooks are handed an event, what its answers must respect, and how `hookhost install` wires
//! it. Each runtime fills one in its own module (`runtime/<runtime>.rs`); the rest of hookhost
//! reads these fields rather than asking which runtime it is.

use crate::event::EventName;
use serde_json::{Map, Value};

use super::Runtime;

/// How a runtime names an event its table does not list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// By hookhost's canonical snake_case name (`turn_start`).
    Canonical,
    /// In PascalCase (`TurnStart`).
    Pascal,
    /// In camelCase (`turnStart`).
    Camel,
}

/// What a runtime's matcher on an event is tested against (Claude Code's "Matcher patterns").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchOn {
    /// The tool name (and a handler's `if` rule).
    Tool,
    /// A field of the event's data.
    Field(&'static str),
    /// Nothing: the event takes no matcher.
    Nothing,
}

/// One event of a runtime.
#[derive(Debug, Clone)]
pub struct RuntimeEvent {
    /// The runtime's own name (`PreToolUse`, `BeforeTool`, `pre_tool_call`).
    pub name: &'static str,
    /// The canonical event it is, where hookhost models it; `None`: it passes through as
    /// `custom:<name>` with its payload.
    pub canonical: Option<EventName>,
    /// What a matcher on it tests.
    pub matcher: MatchOn,
    /// An event hookhost does not model that still gates an action the runtime takes next
    /// (Cursor's `beforeShellExecution`): hookhost's own failure on it is a block, as on the
    /// canonical gating events.
    pub gates: bool,
}

/// Everything hookhost knows of one runtime.
#[derive(Debug)]
pub struct Profile {
    /// The name on command lines and in settings (`claude-code`).
    pub name: &'static str,
    /// The name in messages (`Claude Code`).
    pub title: &'static str,
    /// Where its hook contract is documented: what this profile was written from.
    pub reference: &'static str,
    /// Its events, in its documentation's order; the first row naming a canonical event is the
    /// name hookhost uses for that event when it speaks this runtime.
    pub events: &'static [RuntimeEvent],
    /// How it names an event the table does not list.
    pub naming: Naming,
    /// Its per-project configuration directory (`.claude`), if it has one.
    pub config_dir: Option<&'static str>,
    /// The files it reads hooks from, relative to a project (or `~/` for the user's).
    pub config_files: &'static [&'static str],
    /// Whose config syntax its hook files use, when hookhost reads them as a peer config.
    pub config_syntax: Option<Runtime>,
    /// The shell-hook wire format its command hooks speak (Codex's are Claude Code's).
    pub dialect: Runtime,
    /// How its hooks are handed an event: what its command hooks read, and so what hookhost
    /// reads when the runtime calls it.
    pub payload: Payload,
    /// What an answer to it must respect beyond its JSON (`None`: hookhost has no answer
    /// writer for it; the writers are `hookhost::protocol`'s, one module per runtime).
    pub answer: Option<Answer>,
    /// The project file of its hooks that hookhost's project layer may join
    /// (`[policy] project_peers`), where it has one.
    pub project_hooks: Option<ProjectHooks>,
    /// How `hookhost install` wires it, where it does.
    pub install: Option<Install>,
}

/// How a runtime hands an event to its hooks (and so how hookhost reads one it sends).
#[derive(Debug)]
pub enum Payload {
    /// hookhost's own envelope, Everruns' (`event`, the ids, `data` holding canonical fields),
    /// in `EVERRUNS_HOOK_*` variables for a shell hook.
    Envelope,
    /// One flat snake_case object on stdin whose fields these keys name (Claude Code's shape;
    /// its kin differ only in names).
    Flat(Fields),
    /// camelCase fields on stdin naming no event (GitHub Copilot CLI), read by these functions.
    Camel(CamelReader),
}

/// The field names of a flat payload. The ones every flat payload shares (`session_id`, `cwd`,
/// `tool_name`, `tool_input`, `notification_type`, `stop_hook_active`, ...) are not listed.
#[derive(Debug)]
pub struct Fields {
    /// The key naming the event (`hook_event_name`; Starchild: `event`).
    pub event: &'static str,
    /// The session's id (`session_id`; Cursor: `conversation_id`).
    pub session_id: &'static str,
    /// The tool call's id, where it sends one (`tool_use_id`).
    pub tool_call_id: Option<&'static str>,
    /// A tool's result (`tool_response`; Starchild: `tool_result`).
    pub result: &'static str,
    /// Whether the tool failed, where it says (docker-agent: `tool_error`).
    pub tool_error: Option<&'static str>,
    /// The user's prompt (`prompt`; Starchild: `message`).
    pub prompt: &'static str,
    /// The agent's last answer, on a stop (`last_assistant_message`, `stop_response`, ...).
    pub response: &'static str,
    /// Whether it sends the agent's id (`agent_id`).
    pub agent_id: bool,
    /// Whether it sends the event's time (`timestamp`).
    pub timestamp: bool,
    /// Whether its model events carry the request and response themselves (`llm_request`,
    /// `llm_response`) rather than the model's id (`model_id`).
    pub model_payloads: bool,
    /// The variables a command hook is given, and what each holds.
    pub env: &'static [(&'static str, EnvValue)],
}

/// What a variable a runtime sets for its command hooks holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnvValue {
    /// The project's directory.
    ProjectDir,
    /// The session's id.
    SessionId,
    /// The working directory (the project's when the event names none).
    Cwd,
}

/// How a payload that names no event is read.
#[derive(Debug)]
pub struct CamelReader {
    /// The event the payload's fields say it is, where they say one (`None`: they do not).
    pub infer: fn(&Map<String, Value>) -> Option<&'static str>,
    /// The payload in the flat shape's snake_case fields.
    pub normalise: fn(Map<String, Value>) -> Map<String, Value>,
}

/// What an answer to a runtime must respect beyond its JSON, each checked with the real client
/// (tests/clients).
#[derive(Debug)]
pub struct Answer {
    /// The exit code of an error that must not block: 1 (GitHub Copilot CLI denies a tool call
    /// whose hook exits non-zero, so there it is 0 with nothing on stdout).
    pub soft_error_exit: u8,
    /// What it is told when there is nothing to say: nothing (Gemini CLI parses stdout as JSON
    /// on exit 0, so there `{}`).
    pub nothing: &'static str,
    /// Whether it applies rewritten tool input before a tool (Qwen Code documents it and does
    /// not: hookhost then blocks what its hooks would let through only rewritten).
    pub input_before_tool: bool,
    /// Whether it takes rewritten tool input on a permission request.
    pub input_on_permission: Rewrite,
    /// Whether it takes a rewritten prompt (GitHub Copilot CLI's `userPromptTransformed`).
    pub prompt_rewrite: bool,
}

/// When a rewrite is taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rewrite {
    /// Never.
    No,
    /// With an allow only.
    WhenAllowed,
    /// Whatever the verdict.
    Yes,
}

/// A project file of a runtime's hooks that hookhost's project layer may join.
#[derive(Debug)]
pub struct ProjectHooks {
    /// The file, relative to the project (`.claude/settings.json`; one of `config_files`).
    pub file: &'static str,
    /// The directory of the scripts its hooks run, which the project's approval covers too.
    pub scripts: Option<&'static str>,
}

/// How `hookhost install` wires a runtime (the files from its settings documentation).
#[derive(Debug)]
pub struct Install {
    /// Its program, looked for on PATH (`claude`).
    pub program: &'static str,
    /// Its own directory in the home (`.claude`): where its user hooks file is, and a sign it
    /// has run here.
    pub home: &'static str,
    /// The variables that move that directory (`CODEX_HOME`), the first one set winning.
    pub home_vars: &'static [&'static str],
    /// Its user hooks file, in that directory (`settings.json`).
    pub user_file: &'static str,
    /// Its project hooks file, in a project (`.claude/settings.json`), or why it has none
    /// (docker-agent reads hooks from each agent's own YAML and the user's config only).
    pub project_file: Result<&'static str, &'static str>,
    /// Its managed (system) hooks file on each OS, or why it has none there.
    pub managed: Managed,
    /// The events hookhost wires, each with the matcher that takes every tool (`None`: every
    /// tool without one, or an event that takes none).
    pub events: &'static [(&'static str, Option<&'static str>)],
    /// How its hooks file holds handlers.
    pub layout: Layout,
    /// Whether `hookhost serve` can be its http hook, or why not.
    pub http: Result<(), &'static str>,
    /// Whether its hooks can call a tool of `hookhost mcp` (a server it keeps connected: no
    /// process per event), and how; or why not.
    pub mcp: Result<McpHooks, &'static str>,
}

/// A runtime whose hooks can call a tool of an MCP server it has connected (Claude Code's
/// `type: "mcp_tool"` handler). The tool's arguments are a template the runtime fills from its
/// hook input, one `${field}` at a time, every value as text (JSON text for an object);
/// [`McpHooks::payload`] puts the hook input back together from them.
#[derive(Debug)]
pub struct McpHooks {
    /// The input fields every event's template names.
    pub common: &'static [&'static str],
    /// The fields each wired event adds.
    pub events: &'static [(&'static str, &'static [&'static str])],
    /// The fields whose values are not strings (objects, booleans), handed over as JSON text.
    pub structured: &'static [&'static str],
    /// Where it lists the MCP servers of its user, in the home (`.claude.json`).
    pub servers_file: &'static str,
    /// Where in that file one project's servers are, the project's path between the two parts
    /// (`projects` / `mcpServers`: a server of the user in that project only).
    pub project_servers: (&'static str, &'static str),
    /// Why its managed settings cannot list hookhost's server, if they cannot.
    pub managed: Result<(), &'static str>,
}

impl McpHooks {
    /// The fields `event`'s template names (an event not listed: the common ones).
    pub fn fields(&self, event: &str) -> impl Iterator<Item = &'static str> + '_ {
        let extra = self.events.iter().find(|(e, _)| *e == event).map_or(&[][..], |(_, f)| f);
        self.common.iter().chain(extra).copied()
    }

    /// The tool's arguments for `event`: each field as the runtime's `${field}` placeholder.
    pub fn template(&self, event: &str) -> Map<String, Value> {
        self.fields(event).map(|f| (f.to_string(), Value::String(format!("${{{f}}}")))).collect()
    }

    /// The hook input the runtime filled `template` from, out of the tool's arguments: an
    /// empty value is a field the input did not have; a structured field's text is parsed
    /// (kept as text when it does not parse: a field of another type than expected). Arguments
    /// already JSON (a client that sends them so) are taken as they are.
    pub fn payload(&self, arguments: Map<String, Value>) -> Map<String, Value> {
        arguments
            .into_iter()
            .filter_map(|(key, value)| match value {
                Value::String(s) if s.is_empty() => None,
                Value::String(s) if self.structured.contains(&key.as_str()) => {
                    let parsed = serde_json::from_str(&s).unwrap_or(Value::String(s));
                    Some((key, parsed))
                }
                other => Some((key, other)),
            })
            .collect()
    }
}

/// A runtime's managed hooks file per OS (`Err`: why there is none).
#[derive(Debug)]
pub struct Managed {
    /// Linux and the other unixes.
    pub unix: Result<&'static str, &'static str>,
    /// macOS.
    pub macos: Result<&'static str, &'static str>,
    /// Windows.
    pub windows: Result<&'static str, &'static str>,
}

/// How a hooks file holds handlers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `hooks.<Event>` holds matcher groups (`matcher`, and `hooks`: handlers with `type` and
    /// `command`): Claude Code's shape.
    Groups,
    /// `hooks.<event>` holds the handlers themselves, and the file has a `version` (GitHub
    /// Copilot CLI's `bash` and `powershell` commands; Cursor's `command`s).
    Handlers {
        /// The file's `version`.
        version: u64,
        /// The handler's key holding the command (`bash`: Copilot, which takes a `powershell`
        /// one beside it on Windows; `command`: Cursor).
        key: &'static str,
        /// Whether each handler says whether the runtime blocks when it fails (Cursor's
        /// `failClosed`): set where `hookhost run` would block on its own failure.
        fail_closed: bool,
    },
    /// No hooks file: a plugin module of hookhost's own, which the runtime loads and which
    /// asks hookhost per event (OpenCode's JavaScript plugins). Install writes it whole.
    Plugin,
    /// `hooks.<Event>` holds matcher groups on the events wired with a matcher and the
    /// handlers themselves on the others (Antigravity CLI's `hooks.json`).
    MatcherGroups,
    /// A YAML file of the user's holding one list of hook entries, `{event, command, …}`
    /// (Starchild's `config/shell_hooks.yaml`, `hooks:`): install adds hookhost's entries to the
    /// list and uninstall takes them out, the rest of the file kept as it was.
    YamlList,
    /// A hooks file of hookhost's alone, in a directory the runtime reads every file of
    /// (docker-agent's `hooks.d/`), in the runtime's YAML hooks format: an event wired with a
    /// matcher holds matcher groups, the others the handlers themselves. Install writes it
    /// whole; uninstall removes it.
    DropIn,
}

