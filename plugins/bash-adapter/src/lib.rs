//! `bash-adapter`: runs the shell hooks people already have — written for Everruns,
//! docker-agent, Claude Code or Starchild — unchanged, and maps their results onto canonical
//! decisions (see DIALECTS.md).
//!
//! Settings: `command` (a bash script) or `argv` (a program and its arguments), `env`,
//! `working_dir`, `dialect` (`everruns` default, `docker-agent`, `claude-code`, `starchild`),
//! `mode` (`sandbox` default: an in-wasm bash; `host`: a real process, only where the host
//! grants `process:exec`), `timeout_ms` (host mode; the hook's own deadline applies anyway).

use hookhost_sdk::prelude::*;

pub mod dialect;
#[doc(hidden)]
pub mod fuzz;
mod sandbox;
pub mod verdict;

use dialect::{Delivery, Dialect, Exit, Run};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Sandbox,
    Host,
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
}

const KNOWN: &str = "command, argv, env, working_dir, dialect, mode, timeout_ms";

fn settings(v: &Value) -> Result<Settings, String> {
    let obj = v.as_object().ok_or("settings must be an object")?;
    let mut s = Settings { script: None, argv: None, env: Vec::new(), working_dir: None, dialect: Dialect::Everruns, mode: Mode::Sandbox, timeout_ms: 30_000 };
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
                s.dialect = Dialect::parse(&name).ok_or(format!("settings.dialect {name:?} is not one of everruns, docker-agent, claude-code, starchild"))?;
            }
            "mode" => {
                s.mode = match string()?.as_str() {
                    "sandbox" => Mode::Sandbox,
                    "host" => Mode::Host,
                    other => return Err(format!("settings.mode {other:?} is not one of sandbox, host")),
                }
            }
            "timeout_ms" => {
                s.timeout_ms = value.as_u64().filter(|t| (100..=30_000).contains(t)).ok_or("settings.timeout_ms must be an integer in 100..=30000")? as u32;
            }
            other => return Err(format!("unknown setting {other:?}; known settings are {KNOWN}")),
        }
    }
    match (&s.script, &s.argv) {
        (Some(_), Some(_)) => Err("set either settings.command or settings.argv, not both".into()),
        (None, None) => Err("settings.command (a bash script) or settings.argv is required".into()),
        _ => Ok(s),
    }
}

/// Quote words for bash.
fn shell_join(argv: &[String]) -> String {
    argv.iter().map(|a| format!("'{}'", a.replace('\'', "'\\''"))).collect::<Vec<_>>().join(" ")
}

/// Largest environment value a host-mode hook is given. Linux refuses any single environment
/// string over 128 KiB (MAX_ARG_STRLEN) with E2BIG; a payload above this cap reaches the
/// script through its payload file (`EVERRUNS_HOOK_PAYLOAD_PATH`) only.
pub const ENV_VALUE_CAP: usize = 64 << 10;

fn run_host(s: &Settings, delivery: &Delivery) -> Run {
    use hookhost_sdk::process;
    let argv = match (&s.argv, &s.script) {
        (Some(argv), _) => argv.clone(),
        (None, Some(script)) => vec!["bash".into(), "-c".into(), script.clone()],
        (None, None) => unreachable!("validated"),
    };
    let mut env = s.env.clone();
    env.extend(delivery.env.iter().filter(|(_, v)| v.len() <= ENV_VALUE_CAP || delivery.file_var.is_none()).cloned());
    let cmd = process::Command {
        argv,
        env,
        stdin: if delivery.stdin { delivery.json.clone().into_bytes() } else { Vec::new() },
        cwd: s.working_dir.clone(),
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

pub struct BashAdapter;

impl Hook for BashAdapter {
    fn validate_settings(v: &Value) -> Result<(), String> {
        let s = settings(v)?;
        if s.mode == Mode::Sandbox {
            // Refuse at load what could only fail on every call (and fall through to a pass).
            let script = s.script.clone().unwrap_or_else(|| shell_join(s.argv.as_deref().unwrap_or_default()));
            sandbox::unrunnable(&script)?;
        }
        Ok(())
    }

    fn handle(event: Event, ctx: Context) -> HookResult {
        let s = settings(&ctx.settings)?;
        let project_dir = s.working_dir.clone().or_else(|| ctx.cwd.clone()).unwrap_or_else(|| "/workspace".into());
        let delivery = dialect::deliver(s.dialect, &event, &ctx, &project_dir);
        let run = match s.mode {
            Mode::Host => run_host(&s, &delivery),
            Mode::Sandbox => {
                let script = s.script.clone().unwrap_or_else(|| shell_join(s.argv.as_deref().unwrap_or_default()));
                sandbox::run(&script, &delivery, &s.env, s.working_dir.as_deref().unwrap_or("/workspace"))
            }
        };
        verdict::interpret(s.dialect, &event, &run)
    }
}

export_hook!(BashAdapter);

#[cfg(test)]
mod tests;
