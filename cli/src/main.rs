//! The `hookhost` command line: a thin layer over the library.

use anyhow::{bail, Result};
use clap::{Parser, Subcommand};
use hookhost::protocol::{OnFailure, Protocol};
use hookhost::HookEvent;
use std::path::PathBuf;
use std::process::ExitCode;

/// `println!` that keeps going when stdout is gone (`hookhost install | head -1`): the work —
/// files written, the record saved — must not stop half-way because a reader left.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// [`say!`] without the newline.
macro_rules! say_raw {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($arg)*);
    }};
}

mod audit_stats;
mod bench;
mod coverage;
mod diff;
mod install;
mod cli_bundle;
mod loading;
mod loadtest;
mod new;
mod oneshot;
mod scenario;
mod serve;
mod stats;
mod table;
mod transcripts;
mod trust;

pub(crate) use loading::{dialect, explain_bundle, load, load_in, read_layers, resolver, terminal_progress};
use loading::{load_one_shot, load_plugin};
use oneshot::{print_audit_head, read_event, replay, run_for_runtime, write_wit, SDK_CONTRACT};

/// Run agent lifecycle hooks as sandboxed WebAssembly components.
#[derive(Parser)]
#[command(name = "hookhost", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args, Clone)]
pub(crate) struct HostArgs {
    /// Config file (TOML, or JSON with a .json extension). Default: the embedded config, which
    /// runs the built-in guard-destructive and redact-secrets plugins.
    #[arg(long, short)]
    config: Option<PathBuf>,
    /// The config file's format, when detection should not decide: native, everruns,
    /// docker-agent, claude-code, starchild, copilot.
    #[arg(long, value_name = "FORMAT")]
    dialect: Option<String>,
    /// Append one audit record (JSON line) per hook invocation to this file.
    #[arg(long)]
    audit: Option<PathBuf>,
    /// Grant a capability to every plugin of the config (e.g. `process:exec`, which lets the
    /// bash adapter run hooks with `mode = "host"` as real processes, and runs a peer file's
    /// converted hooks as real processes in its project, as their runtime would; or
    /// `net:http:HOST[:PORT]`, which lets a peer file's http hooks post to that host). Repeatable.
    #[arg(long, value_name = "CAPABILITY")]
    grant: Vec<String>,
    /// Refuse any bundle the lock file next to the config does not pin.
    #[arg(long)]
    locked: bool,
    /// Load no project layer (`.hookhost/hooks.toml` found from the working directory upward;
    /// see docs/ORG.md). The managed and user layers load as always.
    #[arg(long)]
    no_project: bool,
    /// Also print, on stderr, the audit log's head hash after the run (keep it somewhere the
    /// writer cannot reach; `hookhost audit verify --expect-head HASH` detects a cut tail).
    /// With `check`: what each hook's plugin costs (size, load time, imports, memory and fuel
    /// on a sample event against its limits).
    #[arg(long, short)]
    verbose: bool,
}

#[derive(Subcommand)]
enum Command {
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
        /// The contract version to write: 0.1.0 (the SDKs' and templates') or 0.2.0 (adds
        /// `context.runtime`).
        #[arg(long, default_value = "0.1.0")]
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
        /// Also run this hook (a .wasm component) on the same payloads, as one more way:
        /// compare a hook in another language. Repeatable.
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

fn positive_seconds(s: &str) -> std::result::Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && v <= 3600.0 => Ok(v),
        _ => Err(format!("{s:?} is not a number of seconds between 0 and 3600")),
    }
}

#[derive(Subcommand)]
enum AuditCommand {
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
enum ConfigCommand {
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

/// A failure the user must fix (bad config, bad input): exit code 2.
#[derive(Debug)]
struct UsageError(String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

pub(crate) fn usage(msg: impl std::fmt::Display) -> anyhow::Error {
    UsageError(msg.to_string()).into()
}

/// `hookhost --version`: the version, the commit and target it was built from, and whether the
/// built-in plugins' native code is embedded (a release build) or compiled on first use.
fn long_version() -> String {
    let code = if hookhost::builtins_precompiled() { "built-ins' native code embedded" } else { "built-ins compiled on first use" };
    format!("{} (commit {}, {}, {code})", env!("CARGO_PKG_VERSION"), env!("HOOKHOST_COMMIT"), env!("HOOKHOST_TARGET"))
}

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        // Warnings, and the note that a large plugin is being compiled (seconds, once).
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("HOOKHOST_LOG").unwrap_or_else(|_| "warn,hookhost::compile=info".into()))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let cli = {
        use clap::{CommandFactory, FromArgMatches};
        // Made once per process, for clap's `&'static str`.
        let long: &'static str = Box::leak(long_version().into_boxed_str());
        let matches = Cli::command().long_version(long).get_matches();
        Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    };
    // One event and out: no worker threads to start (the daemon and the benches get them).
    let runtime = match &cli.command {
        Command::Run { .. } => tokio::runtime::Builder::new_current_thread().enable_all().build(),
        _ => tokio::runtime::Builder::new_multi_thread().enable_all().build(),
    };
    let runtime = match runtime {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("hookhost: error: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let code = match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("hookhost: error: {e:#}");
            ExitCode::from(if e.is::<UsageError>() { 2 } else { 1 })
        }
    };
    // The answer is out. A hook that timed out may have left a blocking read behind (a FIFO in
    // a mounted project never answers); waiting for it would hold the runtime's call open.
    runtime.shutdown_background();
    code
}

async fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Run { host: args, event, output, fail_closed, fail_open, event_name } => {
            let protocol = Protocol::parse(&output).ok_or_else(|| usage(format!("--output: unknown protocol {output:?}; use one of {}", Protocol::names())))?;
            if protocol != Protocol::Json {
                return Ok(run_for_runtime(&args, event.as_deref(), event_name.as_deref(), protocol, OnFailure::from_flags(fail_open, fail_closed)).await);
            }
            let host = load_one_shot(&args).await?;
            let (bytes, from) = read_event(event.as_deref())?;
            let event = HookEvent::read(&bytes, None, event_name.as_deref()).map_err(|e| usage(format!("{from}: {e}")))?;
            let outcome = host.dispatch(&event).await;
            println!("{}", serde_json::to_string(&outcome)?);
            // Background hooks run once the decision is out, and change nothing.
            std::io::Write::flush(&mut std::io::stdout())?;
            host.dispatch_background(&event).await;
            print_audit_head(&host, args.verbose);
            Ok(ExitCode::SUCCESS)
        }
        Command::Diff { configs, grant, no_project, json, sessions } => {
            let [old, new] = configs.as_slice() else {
                return Err(usage(format!("give exactly two configs, --config OLD --config NEW (got {})", configs.len())));
            };
            // Each config's hooks audit into a scratch file, not the config's own log: a
            // comparison is not activity.
            let scratch = tempfile::tempdir().map_err(|e| usage(format!("cannot make a scratch directory: {e}")))?;
            let args = |config: &PathBuf, n: usize| HostArgs { config: Some(config.clone()), dialect: None, audit: Some(scratch.path().join(format!("audit-{n}.jsonl"))), grant: grant.clone(), locked: false, no_project, verbose: false };
            let (mut old, mut new) = (load(&args(old, 0)).await?, load(&args(new, 1)).await?);
            old.replaying();
            new.replaying();
            diff::diff(&old, &new, &sessions, json).await
        }
        Command::Replay { host: args, json, session } => {
            // Its records in the config's audit log are marked replayed.
            let mut host = load(&args).await?;
            host.replaying();
            let code = replay(&host, &session, json).await?;
            print_audit_head(&host, args.verbose);
            Ok(code)
        }
        Command::Config(ConfigCommand::Show { host, json, layers }) => {
            let found = read_layers(&host)?;
            // Bundles are fetched and verified (not compiled) so their hooks show in the chain.
            let plan = hookhost_bundle::resolve_layers(found, &resolver(&host, None)).await.map_err(|e| usage(explain_bundle(&e, Some(&host))))?.plan;
            let unapproved = plan.project_note().map(str::to_string);
            if let Some(note) = &unapproved {
                eprintln!("hookhost: {note}");
            }
            if layers {
                if json {
                    println!("{}", serde_json::to_string_pretty(&table::layers_json(&plan, unapproved.as_deref()))?);
                } else {
                    print!("{}", table::layers_table(&plan, unapproved.as_deref()));
                }
            } else if json {
                println!("{}", serde_json::to_string_pretty(&table::hooks_json(&plan))?);
            } else {
                print!("{}", table::hooks_table(&plan));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Config(ConfigCommand::Schema) => {
            println!("{}", hookhost_config::schema());
            Ok(ExitCode::SUCCESS)
        }
        Command::Audit(AuditCommand::Stats { file, include_replayed }) => {
            let text = transcripts::read_recording(&file, "audit log").map_err(usage)?;
            print!("{}", audit_stats::summarise(&file.display().to_string(), &text, include_replayed).map_err(usage)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Audit(AuditCommand::Verify { file, expect_head }) => {
            let text = transcripts::read_recording(&file, "audit log").map_err(usage)?;
            if let Some(h) = &expect_head {
                if h.len() != 64 || !h.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()) {
                    return Err(usage(format!("--expect-head: {h:?} is not a head hash (64 lowercase hex digits, as `run --audit F -v` prints)")));
                }
            }
            let result = match &expect_head {
                Some(h) => hookhost::verify_audit_log_expecting(&text, h),
                None => hookhost::verify_audit_log(&text),
            };
            match result {
                Ok(v) => {
                    for (line, r) in &v.recoveries {
                        println!("note: line {line}: a writer found a torn last line ({} bytes), moved it to {} and recorded the recovery", r.torn_bytes, r.moved_to);
                    }
                    println!("ok: {} records, chain intact; head hash {}", v.records, v.head);
                    Ok(ExitCode::SUCCESS)
                }
                Err(broken) => {
                    eprintln!("hookhost: {}:{}: {}", file.display(), broken.line, broken.problem);
                    Ok(ExitCode::from(1))
                }
            }
        }
        Command::LoadTest(args) => {
            let report = tokio::task::spawn_blocking(move || loadtest::run(&args).map(|r| (r, args))).await??;
            let (report, args) = report;
            if args.json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", report.render());
            }
            let failures = report.failures(args.reloads);
            for f in &failures {
                eprintln!("hookhost load-test: {f}");
            }
            Ok(if failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "hookhost", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench { what: Some(_), json, plugin, .. } => {
            if plugin.len() > 1 {
                bail!("hookhost bench guard takes one --plugin (a guard component to check instead of the built-in one)");
            }
            let files = bench::guard(plugin.first().map(PathBuf::as_path)).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&files)?);
            } else {
                let name = plugin.first().map_or("builtin:guard-destructive".to_string(), |p| p.display().to_string());
                print!("{}", bench::render_guard(&files, &name));
            }
            Ok(if files.iter().all(|f| f.agree == f.cases) { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Command::Bench { seconds, json, plugin, .. } => {
            let report = bench::run(seconds, &plugin).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", bench::render(&report));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Bundle(cmd) => cli_bundle::bundle(cmd).await,
        Command::Key(cmd) => cli_bundle::key(cmd),
        Command::Registry(cmd) => cli_bundle::registry(cmd).await,
        Command::Lock { host } => cli_bundle::lock(&host).await,
        Command::Update { host, yes, dry_run } => cli_bundle::update(&host, yes, dry_run).await,
        Command::Serve(args) => serve::serve(args).await,
        Command::Install(args) => install::install(args),
        Command::Uninstall(args) => install::uninstall(args),
        Command::Doctor(args) => install::doctor::doctor(args).await,
        Command::Coverage(args) => coverage::coverage(args).await,
        Command::Wit { dir, version } => write_wit(&dir, &version),
        Command::Trust { dir, config, forget, list } => trust::trust(dir, config, forget, list).await,
        Command::New { lang, dir } => {
            let files = new::create(lang, &dir, SDK_CONTRACT.wit).map_err(|e| usage(format!("{e:#}")))?;
            println!("wrote {} files into {}", files.len(), dir.display());
            println!("next: cd {} && ./build.sh && hookhost test --plugin hook.wasm scenarios.toml", dir.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::Test { host: args, plugin, settings, json, scenarios } => {
            let loaded = scenario::load(&scenarios).map_err(usage)?;
            let host = match &plugin {
                Some(path) => {
                    let events: Vec<String> = loaded.iter().map(|s| s.event.name.config_name()).collect();
                    load_plugin(&args, path, settings.as_deref(), &events).await?
                }
                None => load(&args).await?,
            };
            let mut checked = Vec::with_capacity(loaded.len());
            for s in &loaded {
                checked.push(scenario::run(&host, s).await);
            }
            let rows: Vec<_> = loaded.iter().zip(checked.iter()).collect();
            if json {
                println!("{}", serde_json::to_string_pretty(&scenario::json_report(&rows))?);
            } else {
                print!("{}", scenario::table(&rows));
            }
            Ok(if checked.iter().all(|c| c.mismatches.is_empty()) { ExitCode::SUCCESS } else { ExitCode::from(1) })
        }
        Command::Check { host, plugin, settings } => {
            let loaded = match &plugin {
                Some(path) => load_plugin(&host, path, settings.as_deref(), &["pre_tool_use".to_string()]).await?,
                None => load(&host).await?,
            };
            let ids: Vec<&str> = loaded.hook_ids().collect();
            println!("ok: {} hook(s) loaded: {}", ids.len(), ids.join(", "));
            print!("{}", table::check_report(&loaded.report().await, loaded.not_run(), loaded.warnings()));
            print!("{}", table::restrictions(loaded.restrictions()));
            print!("{}", table::layer_sources(loaded.layer_sources()));
            print!("{}", loaded.protection());
            if host.verbose {
                print!("{}", table::guard_rules(&loaded.report().await));
                print!("{}", table::profile(&loaded.profile().await));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
