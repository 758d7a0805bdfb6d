//! The `hookhost` command line: a thin layer over the library.

use anyhow::Result;
use hookhost::protocol::OnFailure;
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

mod args;
mod audit_stats;
mod commands;
mod bench;
mod coverage;
mod diff;
mod install;
mod jsonrpc;
mod cli_bundle;
mod loading;
mod loadtest;
mod mcp;
mod new;
mod oneshot;
mod scenario;
mod serve;
mod stats;
mod table;
mod transcripts;
mod trust;

pub(crate) use loading::{dialect, explain_bundle, load, load_in, read_layers, resolver, terminal_progress};
pub(crate) use args::HostArgs;
use args::{AuditCommand, Cli, Command, ConfigCommand};

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
        Command::Run { host, event, output, fail_closed, fail_open, event_name } => commands::run_event(&host, event.as_deref(), &output, event_name.as_deref(), OnFailure::from_flags(fail_open, fail_closed)).await,
        Command::Diff { configs, grant, no_project, json, sessions } => commands::diff(&configs, grant, no_project, json, &sessions).await,
        Command::Replay { host, json, session } => commands::replay(&host, &session, json).await,
        Command::Config(ConfigCommand::Show { host, json, layers }) => commands::config_show(&host, json, layers).await,
        Command::Config(ConfigCommand::Schema) => {
            say!("{}", hookhost_config::schema());
            Ok(ExitCode::SUCCESS)
        }
        Command::Audit(AuditCommand::Stats { file, include_replayed }) => commands::audit_stats(&file, include_replayed),
        Command::Audit(AuditCommand::Verify { file, expect_head }) => commands::audit_verify(&file, expect_head.as_deref()),
        Command::LoadTest(args) => commands::load_test(args).await,
        Command::Completions { shell } => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "hookhost", &mut std::io::stdout());
            Ok(ExitCode::SUCCESS)
        }
        Command::Bench { what: Some(_), json, plugin, .. } => commands::bench_guard(&plugin, json).await,
        Command::Bench { seconds, json, plugin, .. } => commands::bench(seconds, &plugin, json).await,
        Command::Bundle(cmd) => cli_bundle::bundle(cmd).await,
        Command::Key(cmd) => cli_bundle::key(cmd),
        Command::Registry(cmd) => cli_bundle::registry(cmd).await,
        Command::Lock { host } => cli_bundle::lock(&host).await,
        Command::Update { host, yes, dry_run } => cli_bundle::update(&host, yes, dry_run).await,
        Command::Serve(args) => serve::serve(args).await,
        Command::Mcp(args) => mcp::mcp(args).await,
        Command::Install(args) => install::install(args),
        Command::Uninstall(args) => install::uninstall(args),
        Command::Doctor(args) => install::doctor::doctor(args).await,
        Command::Coverage(args) => coverage::coverage(args).await,
        Command::Wit { dir, version } => oneshot::write_wit(&dir, &version),
        Command::Trust { dir, config, forget, list } => trust::trust(dir, config, forget, list).await,
        Command::New { lang, dir } => commands::new_project(lang, &dir),
        Command::Test { host, plugin, settings, json, scenarios } => commands::test(&host, plugin.as_deref(), settings.as_deref(), json, &scenarios).await,
        Command::Check { host, plugin, settings } => commands::check(&host, plugin.as_deref(), settings.as_deref()).await,
    }
}
