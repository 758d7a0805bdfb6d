//! `bash-adapter`: runs the shell hooks people already have — written for Everruns,
//! docker-agent, Claude Code or Starchild — unchanged, and maps their results onto canonical
//! decisions (the runtime profiles in `hookhost_types::runtime`).
//!
//! Settings: `command` (a bash script) or `argv` (a program and its arguments), `env`,
//! `working_dir`, `dialect` (`everruns` default, `docker-agent`, `claude-code`, `starchild`),
//! `mode` (`sandbox` default: an in-wasm bash; `host`: a real process, only where the host
//! grants `process:exec`; `auto`: the host picks `host` where it granted `process:exec`, else
//! `sandbox` — what converted peer hooks use), `timeout_ms` (host mode; the hook's own
//! deadline applies anyway), `project_dir` (the runtime's project directory: the working
//! directory and `$CLAUDE_PROJECT_DIR`; in the sandbox the host mounts it read-only at the
//! same path), `shell` (host mode: the shell that runs `command`, default `bash`), and
//! `start_failure` (`block` or `warn`: what a hook that could not start — a missing program
//! or script — becomes; set for converted peer hooks, which then load even when they cannot
//! run in the sandbox; without it such a sandbox script is refused at load).
//!
//! A hook with `url` instead of `command`/`argv` is a peer's HTTP hook (`http.rs`): the event
//! is POSTed to the URL with `headers` through `wasi:http`, which the host lets out only under a
//! `net:http:HOST[:PORT]` grant, and the response body is read as the dialect's stdout.

#![deny(missing_docs)]

use hookhost_sdk::prelude::*;

pub mod dialect;
#[doc(hidden)]
pub mod fuzz;
pub mod http;
mod projectfs;
mod sandbox;
pub mod verdict;

use dialect::{Delivery, Dialect, Exit, Run};
use hookhost_types::adapter::{AdapterMode, AdapterRefusal, AdapterSettings, StartFailure, SHELLS};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Sandbox,
    Host,
    /// `url`: POST the event through `wasi:http`.
    Http,
}

/// A hook's settings as the adapter runs them: [`AdapterSettings`] (the one type the config
/// reader writes and the host checks at load), resolved for running.
#[derive(Debug, Clone)]
struct Settings {
    script: Option<String>,
    argv: Option<Vec<String>>,
    env: Vec<(String, String)>,
    working_dir: Option<String>,
    dialect: Dialect,
    mode: Mode,
    timeout_ms: u32,
    project_dir: Option<String>,
    shell: Option<String>,
    start_failure: Option<StartFailure>,
    url: Option<http::Url>,
    /// The URL as written, for messages.
    url_text: String,
    headers: Vec<(String, String)>,
}

/// The longest `timeout_ms`: a peer runtime's own default (Claude Code's 600 s).
pub use hookhost_types::adapter::MAX_TIMEOUT_MS;

fn settings(v: &Value) -> Result<Settings, String> {
    let typed = AdapterSettings::from_json(v)?;
    let url = typed.url.as_deref().map(http::Url::parse).transpose()?;
    Ok(Settings {
        mode: match typed.runs() {
            None => Mode::Http,
            Some(AdapterMode::Host) => Mode::Host,
            // `auto` is the host's to resolve at load; one it did not resolve (a host without
            // process:exec) is the sandbox.
            Some(AdapterMode::Sandbox | AdapterMode::Auto) => Mode::Sandbox,
        },
        script: typed.command,
        argv: typed.argv,
        env: typed.env.into_iter().collect(),
        working_dir: typed.working_dir,
        dialect: typed.dialect.unwrap_or(Dialect::Everruns).dialect(),
        timeout_ms: typed.timeout_ms.unwrap_or(30_000) as u32,
        project_dir: typed.project_dir,
        shell: typed.shell,
        start_failure: typed.start_failure,
        url,
        url_text: typed.url.unwrap_or_default(),
        headers: typed.headers.into_iter().collect(),
    })
}

/// Quote words for bash.
fn shell_join(argv: &[String]) -> String {
    argv.iter().map(|a| format!("'{}'", a.replace('\'', "'\\''"))).collect::<Vec<_>>().join(" ")
}

/// The runtime variables (`CLAUDE_PROJECT_DIR`, `CLAUDE_PLUGIN_ROOT`) in an exec-form argument.
fn expand_runtime_vars(arg: &str, delivery: &Delivery, env: &[(String, String)]) -> String {
    let mut out = arg.to_string();
    for (name, value) in delivery.env.iter().chain(env).filter(|(n, _)| matches!(n.as_str(), "CLAUDE_PROJECT_DIR" | "CLAUDE_PLUGIN_ROOT")) {
        out = out.replace(&format!("${{{name}}}"), value).replace(&format!("${name}"), value);
    }
    out
}

/// Largest environment value a host-mode hook is given. Linux refuses any single environment
/// string over 128 KiB (MAX_ARG_STRLEN) with E2BIG; a payload above this cap reaches the
/// script through its payload file (`EVERRUNS_HOOK_PAYLOAD_PATH`) only.
pub const ENV_VALUE_CAP: usize = 64 << 10;

fn run_host(s: &Settings, delivery: &Delivery, cwd: Option<String>) -> Run {
    use hookhost_sdk::process;
    let argv = match (&s.argv, &s.script) {
        // No shell expands the exec form: the runtime's own variables are substituted here,
        // as the runtime does (`${CLAUDE_PROJECT_DIR}/hooks/x.py`).
        (Some(argv), _) => argv.iter().map(|a| expand_runtime_vars(a, delivery, &s.env)).collect(),
        (None, Some(script)) => {
            let shell = s.shell.as_deref().unwrap_or("bash");
            let flags = SHELLS.iter().find(|(n, _)| *n == shell).map_or(&["-c"][..], |(_, f)| f);
            std::iter::once(shell.to_string()).chain(flags.iter().map(|f| f.to_string())).chain([script.clone()]).collect()
        }
        (None, None) => unreachable!("validated"),
    };
    let mut env = s.env.clone();
    env.extend(delivery.env.iter().filter(|(_, v)| v.len() <= ENV_VALUE_CAP || delivery.file_var.is_none()).cloned());
    let cmd = process::Command {
        argv,
        env,
        stdin: if delivery.stdin { delivery.json.clone().into_bytes() } else { Vec::new() },
        cwd,
        timeout_ms: s.timeout_ms,
        payload_file: delivery.file_var.map(|var| (var.to_string(), delivery.json.clone().into_bytes())),
    };
    match process::run(cmd) {
        Err(why) => Run { exit: Exit::StartFailed(why), stdout: String::new(), stderr: String::new() },
        Ok(out) => {
            let exit = if out.timed_out {
                Exit::TimedOut
            } else if out.truncated {
                Exit::Overflow
            } else if let Some(sig) = out.signal {
                Exit::Signal(sig)
            } else {
                Exit::Code(out.status.unwrap_or(-1))
            };
            Run { exit, stdout: String::from_utf8_lossy(&out.stdout).into_owned(), stderr: String::from_utf8_lossy(&out.stderr).into_owned() }
        }
    }
}

/// POST the event; a usable response is a run that exited 0 with the body as its stdout.
fn run_http(s: &Settings, delivery: &Delivery) -> Result<Run, http::Failure> {
    let url = s.url.as_ref().expect("http mode has a url");
    let (status, body) = http::post(url, &s.url_text, &s.headers, &delivery.json, s.timeout_ms)?;
    let stdout = http::read_response(&s.url_text, status, &body).map_err(http::Failure::Failed)?;
    Ok(Run::new(0, &stdout, ""))
}

impl Settings {
    /// The script the sandbox runs.
    fn sandbox_script(&self) -> String {
        self.script.clone().unwrap_or_else(|| shell_join(self.argv.as_deref().unwrap_or_default()))
    }

    /// Why this hook cannot run in the sandbox, if it cannot: a shell other than bash, or
    /// programs and files the sandbox does not have (files in the mounted project count).
    fn sandbox_gap(&self) -> Result<(), String> {
        self.shell_gap()?;
        sandbox::unrunnable(&self.sandbox_script(), self.project_dir.as_deref().map(std::path::Path::new), &sandbox::project_vars(self.project_dir.as_deref()))
    }

    /// A shell other than bash, which the sandbox does not have.
    fn shell_gap(&self) -> Result<(), String> {
        match self.shell.as_deref().filter(|s| !matches!(*s, "bash" | "sh")) {
            Some(shell) => Err(format!("it asks for the {shell} shell, and the sandbox runs bash only")),
            None => Ok(()),
        }
    }
}

/// What a hook that could not start becomes under its `start_failure` policy.
fn start_failed(s: &Settings, ctx: &Context, why: String) -> HookResult {
    match s.start_failure {
        Some(StartFailure::Block) => {
            let grant = s.url.as_ref().map(http::Url::grant).unwrap_or_default();
            let fix = match s.mode {
                Mode::Sandbox => "to run it as a real process, as its runtime would, grant it process:exec (`--grant process:exec`, or grants = [\"process:exec\"] on its [[peers]] entry)".to_string(),
                Mode::Host => "install what it runs or fix the path".to_string(),
                Mode::Http => format!("if you trust that host, grant it (`--grant {grant}`, or grants = [\"{grant}\"] on its [[peers]] entry)"),
            };
            Ok(Decision::block(format!("hook {} could not start, so it cannot vouch for this action: {why}; {fix} (or set peer_start_failure = \"warn\" to let such failures pass)", ctx.hook_id)))
        }
        _ => Err(why),
    }
}

/// The adapter hook: runs a shell hook in its dialect (see the module docs).
pub struct BashAdapter;

impl Hook for BashAdapter {
    fn validate_settings(v: &Value) -> Result<(), String> {
        // Refusals cross to the host typed (`AdapterRefusal`), not as text it would have to read.
        let s = settings(v).map_err(|message| AdapterRefusal::Settings { message }.encode())?;
        // Refuse at load what could only fail on every call (and fall through to a pass) —
        // unless the hook says what a start failure becomes (converted peer hooks load whole
        // and answer for it on each call).
        if s.mode == Mode::Sandbox && s.start_failure.is_none() {
            s.sandbox_gap().map_err(|gap| AdapterRefusal::Sandbox { gap }.encode())?;
        }
        Ok(())
    }

    fn handle(event: Event, ctx: Context) -> HookResult {
        let s = settings(&ctx.settings)?;
        let project_dir = s.project_dir.clone().or_else(|| s.working_dir.clone()).or_else(|| ctx.cwd.clone()).unwrap_or_else(|| "/workspace".into());
        // A relative working_dir is relative to the project.
        let cwd = match (&s.working_dir, &s.project_dir) {
            (Some(wd), Some(p)) if !wd.starts_with('/') => Some(format!("{}/{wd}", p.trim_end_matches('/'))),
            (Some(wd), _) => Some(wd.clone()),
            (None, Some(p)) => Some(p.clone()),
            (None, None) => None,
        };
        let delivery = dialect::deliver(s.dialect, &event, &ctx, &project_dir);
        let run = match s.mode {
            Mode::Http => match run_http(&s, &delivery) {
                Ok(run) => run,
                Err(http::Failure::Denied(why)) => return start_failed(&s, &ctx, why),
                Err(http::Failure::Failed(why)) => return Err(why),
            },
            Mode::Host => run_host(&s, &delivery, cwd),
            Mode::Sandbox => {
                // A peer hook says what is missing before running, rather than "command not
                // found" (or a pass, when a later command of its script succeeds).
                let check_first = s.start_failure.is_some();
                if let (true, Err(why)) = (check_first, s.shell_gap()) {
                    return start_failed(&s, &ctx, why);
                }
                sandbox::run(&s.sandbox_script(), &delivery, &s.env, cwd.as_deref().unwrap_or("/workspace"), s.project_dir.as_deref(), check_first)
            }
        };
        if let Some(why) = dialect::start_failure_of(&run) {
            return start_failed(&s, &ctx, why);
        }
        verdict::interpret(s.dialect, &event, &run)
    }
}

export_hook!(BashAdapter);

/// `wizer-initialize`: builds the sandbox's interpreter ahead of any call. hookhost's build runs
/// it once and snapshots the result (see `sandbox::prepare`). The pre-initialised component
/// still exports it (see `host/precompile/src/preinit.rs`); the host never calls it.
#[cfg(target_arch = "wasm32")]
mod init {
    wit_bindgen::generate!({
        inline: "package hookhost:bash-adapter; world init { export wizer-initialize: func(); }",
        world: "init",
    });

    struct Init;

    impl Guest for Init {
        fn wizer_initialize() {
            crate::sandbox::prepare();
        }
    }

    export!(Init);
}

#[cfg(test)]
mod tests;
