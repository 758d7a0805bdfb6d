//! `bash-adapter`: runs the shell hooks people already have — written for Everruns,
//! docker-agent, Claude Code or Starchild — unchanged, and maps their results onto canonical
//! decisions (see DIALECTS.md).
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

use hookhost_sdk::prelude::*;

pub mod dialect;
#[doc(hidden)]
pub mod fuzz;
pub mod http;
mod projectfs;
mod sandbox;
pub mod verdict;

use dialect::{Delivery, Dialect, Exit, Run};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Sandbox,
    Host,
    /// `url`: POST the event through `wasi:http`.
    Http,
}

/// What a hook that could not start becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StartFailure {
    /// A block naming the hook and the fix (on events that can block).
    Block,
    /// An executor error: the hook's `on_error` decides.
    Warn,
}

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

const KNOWN: &str = "command, argv, url, headers, allowed_env_vars, env, working_dir, dialect, mode, timeout_ms, project_dir, shell, start_failure";

/// The longest `timeout_ms`: a peer runtime's own default (Claude Code's 600 s).
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// Shells `settings.shell` may name, and the flag that hands each the script.
const SHELLS: &[(&str, &[&str])] = &[("bash", &["-c"]), ("sh", &["-c"]), ("zsh", &["-c"]), ("dash", &["-c"]), ("powershell", &["-NoProfile", "-Command"]), ("pwsh", &["-NoProfile", "-Command"])];

fn settings(v: &Value) -> Result<Settings, String> {
    let obj = v.as_object().ok_or("settings must be an object")?;
    let mut s = Settings {
        script: None,
        argv: None,
        env: Vec::new(),
        working_dir: None,
        dialect: Dialect::Everruns,
        mode: Mode::Sandbox,
        timeout_ms: 30_000,
        project_dir: None,
        shell: None,
        start_failure: None,
        url: None,
        url_text: String::new(),
        headers: Vec::new(),
    };
    for (key, value) in obj {
        let string = || value.as_str().map(str::to_string).ok_or(format!("settings.{key} must be a string"));
        match key.as_str() {
            "command" => s.script = Some(string()?),
            "argv" => {
                let items = value.as_array().ok_or("settings.argv must be a list of strings")?;
                let argv: Option<Vec<String>> = items.iter().map(|i| i.as_str().map(str::to_string)).collect();
                s.argv = Some(argv.filter(|a| !a.is_empty()).ok_or("settings.argv must be a non-empty list of strings")?);
            }
            "env" => {
                let map = value.as_object().ok_or("settings.env must be a table of strings")?;
                for (k, v) in map {
                    let v = v.as_str().ok_or(format!("settings.env.{k} must be a string"))?;
                    s.env.push((k.clone(), v.to_string()));
                }
            }
            "working_dir" => s.working_dir = Some(string()?),
            "dialect" => {
                let name = string()?;
                s.dialect = Dialect::parse(&name).ok_or(format!("settings.dialect {name:?} is not one of everruns, docker-agent, claude-code, codex, gemini-cli, starchild"))?;
            }
            "mode" => {
                s.mode = match string()?.as_str() {
                    // `auto` is the host's to resolve at load; one it did not resolve (a host
                    // without process:exec) is the sandbox.
                    "sandbox" | "auto" => Mode::Sandbox,
                    "host" => Mode::Host,
                    other => return Err(format!("settings.mode {other:?} is not one of sandbox, host, auto")),
                }
            }
            "timeout_ms" => {
                s.timeout_ms = value.as_u64().filter(|t| (100..=MAX_TIMEOUT_MS).contains(t)).ok_or(format!("settings.timeout_ms must be an integer in 100..={MAX_TIMEOUT_MS}"))? as u32;
            }
            "project_dir" => {
                let dir = string()?;
                if !dir.starts_with('/') {
                    return Err(format!("settings.project_dir {dir:?} must be an absolute path"));
                }
                s.project_dir = Some(dir);
            }
            "shell" => {
                let shell = string()?;
                if !SHELLS.iter().any(|(name, _)| *name == shell) {
                    return Err(format!("settings.shell {shell:?} is not one of {}", SHELLS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")));
                }
                s.shell = Some(shell);
            }
            "start_failure" => {
                s.start_failure = Some(match string()?.as_str() {
                    "block" => StartFailure::Block,
                    "warn" => StartFailure::Warn,
                    other => return Err(format!("settings.start_failure {other:?} is not one of block, warn")),
                })
            }
            "url" => {
                s.url_text = string()?;
                s.url = Some(http::Url::parse(&s.url_text)?);
            }
            "headers" => {
                let map = value.as_object().ok_or("settings.headers must be a table of strings")?;
                for (k, v) in map {
                    let v = v.as_str().ok_or(format!("settings.headers.{k} must be a string"))?;
                    s.headers.push((k.clone(), v.to_string()));
                }
            }
            // Resolved into `headers` by the host (only names listed here, from its environment).
            "allowed_env_vars" => {
                value.as_array().filter(|a| a.iter().all(Value::is_string)).ok_or("settings.allowed_env_vars must be a list of variable names")?;
            }
            other => return Err(format!("unknown setting {other:?}; known settings are {KNOWN}")),
        }
    }
    if s.url.is_some() {
        if s.script.is_some() || s.argv.is_some() {
            return Err("set one of settings.command, settings.argv or settings.url".into());
        }
        if obj.get("mode").and_then(Value::as_str).is_some_and(|m| m != "auto") {
            return Err("settings.mode does not apply to a url hook (it runs in no shell)".into());
        }
        s.mode = Mode::Http;
        return Ok(s);
    }
    if !s.headers.is_empty() {
        return Err("settings.headers applies to url hooks only".into());
    }
    match (&s.script, &s.argv) {
        (Some(_), Some(_)) => Err("set either settings.command or settings.argv, not both".into()),
        (None, None) => Err("settings.command (a bash script), settings.argv or settings.url is required".into()),
        _ => Ok(s),
    }
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

pub struct BashAdapter;

impl Hook for BashAdapter {
    fn validate_settings(v: &Value) -> Result<(), String> {
        let s = settings(v)?;
        // Refuse at load what could only fail on every call (and fall through to a pass) —
        // unless the hook says what a start failure becomes (converted peer hooks load whole
        // and answer for it on each call).
        if s.mode == Mode::Sandbox && s.start_failure.is_none() {
            s.sandbox_gap().map_err(|gap| format!("the command cannot run in the sandbox: {gap}; run it as a real process with settings.mode = \"host\" and grant process:exec to builtin:bash-adapter"))?;
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
