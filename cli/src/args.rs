//! The command line: every command, its flags and their help, as clap reads them. What each
//! command does is `main.rs: run` and the modules it names.

use crate::{cli_bundle, coverage, install, loadtest, mcp, new, serve};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Run agent lifecycle hooks as sandboxed WebAssembly components.
#[derive(Parser)]
#[command(name = "hookhost", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(clap::Args, Clone)]
pub(crate) struct HostArgs {
    /// Config file (TOML, or JSON with a .json extension). Default: the embedded config, which
    /// runs the built-in guard-destructive and redact-secrets plugins.
    #[arg(long, short)]
    pub(crate) config: Option<PathBuf>,
    /// The config file's format, when detection should not decide: native, everruns,
    /// docker-agent, claude-code, starchild, copilot.
    #[arg(long, value_name = "FORMAT")]
    pub(crate) dialect: Option<String>,
    /// Append one audit record (JSON line) per hook invocation to this file.
    #[arg(long)]
    pub(crate) audit: Option<PathBuf>,
    /// Grant a capability to every plugin of the config (e.g. `process:exec`, which lets the
    /// bash adapter run hooks with `mode = "host"` as real processes, and runs a peer file's
    /// converted hooks as real processes in its project, as their runtime would; or
    /// `net:http:HOST[:PORT]`, which lets a peer file's http hooks post to that host). Repeatable.
    #[arg(long, value_name = "CAPABILITY")]
    pub(crate) grant: Vec<String>,
    /// Refuse any bundle the lock file next to the config does not pin.
    #[arg(long)]
    pub(crate) locked: bool,
    /// Load no project layer (`.hookhost/hooks.toml` found from the working directory upward;
    /// see docs/ORG.md). The managed and user layers load as always.
    #[arg(long)]
    pub(crate) no_project: bool,
    /// Also print, on stderr, the audit log's head hash after the run (keep it somewhere the
    /// writer cannot reach; `hookhost audit verify --expect-head HASH` detects a cut tail).
    /// With `check`: what each hook's plugin costs (size, load time, imports, memory and fuel
    /// on a sample event against its limits).
    #[arg(long, short)]
    pub(crate) verbose: bool,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Dispatch one event and print the outcome: as hookhost's JSON, or in a runtime's own hook
    /// protocol (`--output claude-code`), so the runtime can run hookhost as a command hook.
    Run {
        #[command(flatten)]
        host: HostArgs,
        /// Event file (JSON). Default: read the event from stdin.
        #[arg(long, short)]
        event: Option<PathBuf>,
        /// How to answer: json (hookhost's outcome, the default), claude-code, codex,
        /// gemini-cli, docker-agent, starchild or copilot (that runtime's hook output, exit codes
        /// included; hookhost's own failures are the runtime's non-blocking error).
        #[arg(long, value_name = "PROTOCOL", default_value = "json")]
        output: String,
        /// The event's name, for a runtime whose hook input names none (GitHub Copilot CLI:
        /// the name its hook is configured under, e.g. `preToolUse`). Without it, hookhost
        /// reads the event from the input's fields.
        #[arg(long, value_name = "NAME")]
        event_name: Option<String>,
        /// With a runtime protocol: a failure of hookhost itself (bad config, bad input, a plugin
        /// that will not load) becomes the runtime's block on every event. Without it, such a
        /// failure blocks the events that gate an action (a tool call, a permission, a prompt)
        /// and is the runtime's non-blocking error on the others.
        #[arg(long, conflicts_with = "fail_open")]
        fail_closed: bool,
        /// With a runtime protocol: a failure of hookhost itself is the runtime's non-blocking
        /// error on every event — the tool runs unchecked. Only for a rollout that must never
        /// stop work (docs/ORG.md).
        #[arg(long)]
        fail_open: bool,
    },
    /// Dispatch a recorded stream of events (one JSON event per line) and show the decisions.
    Replay {
        #[command(flatten)]
        host: HostArgs,
        /// Print one outcome JSON per line instead of a table.
        #[arg(long)]
        json: bool,
        /// The session file (JSONL).
        session: PathBuf,
    },
    /// Replay recorded sessions — hookhost JSONL sessions, Claude Code session files, Codex
    /// rollout files — through two configs and show every event they decide differently;
    /// exit 1 when any does.
    Diff {
        /// The two configs: first the one in force, then the one to compare (`--config OLD
        /// --config NEW`).
        #[arg(long = "config", short = 'c', value_name = "CONFIG", required = true)]
        configs: Vec<PathBuf>,
        /// Grant a capability to every plugin of both configs (as `run --grant`). Repeatable.
        #[arg(long, value_name = "CAPABILITY")]
        grant: Vec<String>,
        /// Load no project layer.
        #[arg(long)]
        no_project: bool,
        /// One JSON line per difference (the event and both outcomes) instead of a table.
        #[arg(long)]
        json: bool,
        /// The recorded sessions.
        #[arg(required = true)]
        sessions: Vec<PathBuf>,
    },
    /// Validate a config and load every plugin it names; print the hook chain.
    Check {
        #[command(flatten)]
        host: HostArgs,
        /// Check this plugin (a .wasm component) alone, as a `pre_tool_use` hook, instead of a
        /// config: with -v, what it costs.
        #[arg(long, conflicts_with = "config")]
        plugin: Option<PathBuf>,
        /// The plugin's settings, as JSON (with --plugin).
        #[arg(long, value_name = "JSON", requires = "plugin")]
        settings: Option<String>,
    },
    /// Run scenario files — each scenario an event and the outcome expected of it — against a
    /// config (or one plugin); print a pass/fail table; exit 1 on any mismatch.
    Test {
        #[command(flatten)]
        host: HostArgs,
        /// Test this plugin (a .wasm component) on every event the scenarios use, instead of a
        /// config; its hooks fail closed (`on_error = "block"`).
        #[arg(long, conflicts_with = "config")]
        plugin: Option<PathBuf>,
        /// The plugin's settings, as JSON (with --plugin).
        #[arg(long, value_name = "JSON", requires = "plugin")]
        settings: Option<String>,
        /// Print the report as JSON (for CI).
        #[arg(long)]
        json: bool,
        /// Scenario files: TOML, or JSON with a .json extension ([[scenario]] with `name`,
        /// `event` and `expect`).
        #[arg(required = true, value_name = "SCENARIOS")]
        scenarios: Vec<PathBuf>,
    },
    /// Write the WIT package hooks are built against (`hooks.wit`, world `hook`) into DIR
    /// (default `wit`), or to stdout with `-`: what wit-bindgen, componentize-py and
    /// componentize-qjs / componentize-js read. hookhost serves every version it lists; the
    /// default is the one the SDKs and `hookhost new` build against.
    Wit {
        /// The directory to write `hooks.wit` into, or `-` for stdout.
        #[arg(default_value = "wit")]
        dir: PathBuf,
        /// The contract version to write: the newest by default (what the SDKs and templates
        /// build against), or an older one hookhost still serves (0.1.0 lacks `context.runtime`).
        #[arg(long, default_value = hookhost::types::NEWEST.version)]
        version: String,
    },
    /// Start a hook project: the example guard hook (block destructive commands, rewrite a
    /// force push, add context to prompts) in LANG, with its build script, the WIT, and
    /// scenarios that `hookhost test` runs.
    New {
        /// The language: rust, python, js or c.
        #[arg(long, value_enum)]
        lang: new::Lang,
        /// The project directory to create; its last part becomes the package name.
        dir: PathBuf,
    },
    /// Inspect configuration.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Approve a project's hooks: record the digest of every hook file of the project around
    /// DIR (`.hookhost/hooks.toml`, the files under `.hookhost/`, peer project files a policy
    /// reads) so they run. A project's hooks do not run until approved, nor after any of those
    /// files changes until approved again.
    Trust {
        /// The project directory, or a directory inside it (default: the current directory).
        dir: Option<PathBuf>,
        /// Your user config, when not the default one (its `[policy] project_peers` says which
        /// peer project files belong to a project).
        #[arg(long, short)]
        config: Option<PathBuf>,
        /// Withdraw the project's approval.
        #[arg(long)]
        forget: bool,
        /// List the approved projects.
        #[arg(long, conflicts_with_all = ["dir", "forget"])]
        list: bool,
    },
    /// Wire hookhost into agent runtimes' own hook settings (Claude Code, Codex, Gemini CLI,
    /// GitHub Copilot CLI): every event hookhost handles there, merged with the hooks already
    /// there, with the runtime's trust step done; a backup of every file changed.
    Install(install::InstallArgs),
    /// Take back exactly what `hookhost install` added (byte for byte where nothing else
    /// changed the file since).
    Uninstall(install::UninstallArgs),
    /// Check that hookhost is really in each runtime's path: wired for every event, the wired
    /// program runs and is this version, the trust step current, nothing switching hooks off, a
    /// live probe denied; and that hookhost's layers load. Exit 1 on any failure.
    Doctor(install::doctor::DoctorArgs),
    /// Which tool calls in agents' own transcripts (Claude Code session files, Codex rollout
    /// files) never reached hookhost, per tool and per path (a subagent, an MCP tool, a session
    /// whose hooks never ran), from hookhost's audit log. Exit 1 when any did not.
    Coverage(coverage::CoverageArgs),
    /// Build, sign, check and inspect hook bundles.
    #[command(subcommand)]
    Bundle(cli_bundle::BundleCommand),
    /// Signing keys.
    #[command(subcommand)]
    Key(cli_bundle::KeyCommand),
    /// Move bundles to and from registries (a local directory, or oci://host[:port]/prefix).
    #[command(subcommand)]
    Registry(cli_bundle::RegistryCommand),
    /// Resolve every bundle of a config and write the lock file next to it.
    Lock {
        #[command(flatten)]
        host: HostArgs,
    },
    /// Re-resolve a config's bundles (version ranges to the newest allowed version), fetch
    /// their revocations, and print what changes — bundles, versions, hooks added, removed or
    /// changed, capabilities requested — before writing the lock file next to the config.
    Update {
        #[command(flatten)]
        host: HostArgs,
        /// Write the lock file without asking.
        #[arg(long)]
        yes: bool,
        /// Print the changes; write nothing.
        #[arg(long, conflicts_with = "yes")]
        dry_run: bool,
    },
    /// Work with audit logs.
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Serve hooks over loopback HTTP or a unix socket: POST /v1/events, POST
    /// /v1/hooks/<protocol> (a runtime's own HTTP hook), GET /healthz, GET /metrics. Reloads on
    /// SIGHUP and when the config file changes; stops gracefully on SIGTERM.
    Serve(serve::ServeArgs),
    /// Serve hooks as an MCP server on stdio: the tool a runtime's MCP-tool hooks call (Claude
    /// Code's `type: "mcp_tool"`), one process for the session instead of one per event. Wired
    /// by `hookhost install --wiring mcp`.
    Mcp(mcp::McpArgs),
    /// Load-test `hookhost serve`: spawn it on a free loopback port and drive it with concurrent
    /// keep-alive clients (good and hostile hooks, reloads during the run, malformed requests),
    /// checking every answer and the daemon's memory and file descriptors. Exit 1 on any
    /// failure.
    LoadTest(loadtest::LoadArgs),
    /// Measure one policy (block destructive shell commands) four ways side by side: wasm hook,
    /// bash adapter sandbox, bash + jq spawned per call, native binary spawned per call.
    /// `hookhost bench guard`: run the guard's corpus through the guard component and print how
    /// many cases each corpus file's rules decide as written (exit 1 on any other decision).
    Bench {
        /// `guard`: the guard's corpus instead of the four-way comparison.
        #[arg(value_parser = ["guard"])]
        what: Option<String>,
        /// Seconds to spend on each way (at least one round of the payload mix runs).
        #[arg(long, default_value_t = 3.0, value_parser = positive_seconds, allow_negative_numbers = true)]
        seconds: f64,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Also run this hook (a .wasm component) on the same payloads, as two more ways: in a
        /// host (a fresh instance per call) and by `hookhost run` spawned per call (its state in
        /// a file of the bench's own). Compare a hook in another language. Repeatable.
        #[arg(long, value_name = "FILE")]
        plugin: Vec<PathBuf>,
    },
    /// Print a shell completion script for hookhost: bash, zsh, fish, elvish or powershell
    /// (e.g. `hookhost completions bash > ~/.local/share/bash-completion/completions/hookhost`).
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

pub(crate) fn positive_seconds(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && v <= 3600.0 => Ok(v),
        _ => Err(format!("{s:?} is not a number of seconds between 0 and 3600")),
    }
}

#[derive(Subcommand)]
pub(crate) enum AuditCommand {
    /// Check an audit log's hash chain: exit 0 and print the record count and head hash when
    /// intact; exit 1 naming the first line that was edited, removed or reordered.
    Verify {
        /// The audit log (JSONL) to check.
        file: PathBuf,
        /// A head hash saved earlier (printed by `run --audit F -v`): fail if no record has it,
        /// which means records were cut from the tail or the log was replaced.
        #[arg(long, value_name = "HASH")]
        expect_head: Option<String>,
    },
    /// Summarise an audit log per hook: events, blocks and rewrites, what hooks in observe
    /// mode would have blocked and rewritten, failures, p50/p99 time.
    Stats {
        /// The audit log (JSONL).
        file: PathBuf,
        /// Count the records of replayed events (`hookhost replay` / `diff`) too: left out by
        /// default, since they are not traffic the hooks saw.
        #[arg(long)]
        include_replayed: bool,
    },
}

#[derive(Subcommand)]
pub(crate) enum ConfigCommand {
    /// Print the normalised hook list of a config (any supported format), without compiling
    /// plugins (bundles are fetched and verified so their hooks can be listed).
    Show {
        #[command(flatten)]
        host: HostArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Show the layers (managed, user, project): each one's file, settings and hooks, and
        /// what the policies removed or changed.
        #[arg(long)]
        layers: bool,
    },
    /// Print the JSON Schema of the native config format.
    Schema,
}
