//! Sandbox mode: the script runs in bashkit, an in-process bash interpreter compiled into this
//! component, against a virtual filesystem. No host shell, files, network or environment exist
//! here; the host's fuel, memory and time limits apply to the whole interpreter.

use crate::dialect::{Delivery, Exit, Run};
use bashkit::{Bash, ExecOptions};
use std::path::Path;
use std::sync::{Mutex, OnceLock};

/// Where the payload file lives in the virtual filesystem.
pub const PAYLOAD_PATH: &str = "/tmp/hookhost-payload.json";
const OUTPUT_CAP: usize = 64 << 10;

/// How deep `unrunnable` follows scripts that run other scripts of the project.
const MAX_SCRIPT_DEPTH: usize = 3;

/// What `script` needs that the sandbox does not have, if anything: commands bashkit does not
/// provide (`node`, `python3`, `cargo`), and script files it cannot read. With `project` (the
/// project directory the host mounts read-only at the same path), a script file of the project
/// is read and checked in turn (its `#!` interpreter, or its own commands); without it the
/// sandbox's filesystem starts empty. `vars` are substituted in file names
/// (`$CLAUDE_PROJECT_DIR`). Names hidden from analysis (`$cmd`) are not reported.
pub fn unrunnable(script: &str, project: Option<&Path>, vars: &[(&str, &str)]) -> Result<(), String> {
    gap(builtin_names(), script, project, vars)
}

/// An interpreter built ahead of the call that needs it.
///
/// Building bashkit's interpreter (its built-ins registered, its virtual filesystem laid out) is
/// most of what a short hook costs. The host builds hookhost with the bash adapter
/// pre-initialised: at build time it calls [`prepare`] through the component's
/// `wizer-initialize` export and snapshots the instance's memory (`wasmtime-wizer`), so every
/// fresh instance starts with the interpreter already built. Without that step (a build that
/// does not precompile the built-ins, or a native test) each call builds its own, as before.
static READY: Mutex<Option<Bash>> = Mutex::new(None);

/// The names of the interpreter's built-ins (`jq`, `grep`, `sed`, ...), sorted; set by
/// [`prepare`] when there is a prepared interpreter.
static NAMES: OnceLock<Vec<String>> = OnceLock::new();

/// Build the interpreter a call will take, and its built-ins' names. What the interpreter takes
/// from the clock and randomness here is the build's (the snapshot's): each call gives it its
/// own working directory, environment and `$RANDOM` seed (see [`take`]). The component's
/// `wizer-initialize` export calls this.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub fn prepare() {
    let bash = prepared();
    let _ = NAMES.set(bash.builtin_names());
    *lock() = Some(bash);
}

/// The interpreter [`prepare`] keeps: as [`fresh`] builds it, with a session budget one exec
/// call and one command larger, which [`ready_for_call`]'s seeding of `$RANDOM` spends.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(crate) fn prepared() -> Bash {
    let budget = bashkit::SessionLimits::default();
    let limits = bashkit::SessionLimits::new().max_total_commands(budget.max_total_commands + 1).max_exec_calls(budget.max_exec_calls + 1);
    Bash::builder().session_limits(limits).build()
}

fn lock() -> std::sync::MutexGuard<'static, Option<Bash>> {
    READY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn builtin_names() -> &'static [String] {
    NAMES.get_or_init(|| Bash::builder().build().builtin_names())
}

/// The prepared interpreter, or a new one when there is none (this instance already took it,
/// or was not pre-initialised), set up for this call. `reseed`: whether the script may read
/// `$RANDOM` (see [`ready_for_call`]).
async fn take<'a>(working_dir: &str, env: impl Iterator<Item = (&'a str, &'a str)>, reseed: bool) -> Result<Bash, String> {
    let prepared = lock().take();
    match prepared {
        Some(bash) => ready_for_call(bash, working_dir, env, reseed).await,
        None => Ok(fresh(working_dir, env)),
    }
}

/// Whether a script may read `$RANDOM`: it names it, or it can run files of the mounted project
/// (which may). Only such scripts pay for the reseeding (an exec of its own).
fn may_read_random(script: &str, project: Option<&str>) -> bool {
    project.is_some() || script.contains("RANDOM")
}

/// An interpreter built for this call.
pub(crate) fn fresh<'a>(working_dir: &str, env: impl Iterator<Item = (&'a str, &'a str)>) -> Bash {
    env.fold(Bash::builder().cwd(working_dir), |builder, (k, v)| builder.env(k, v)).build()
}

/// A prepared interpreter given what [`fresh`] builds in: the working directory (and `$PWD`),
/// the environment, and — with `reseed` — a `$RANDOM` seed of its own: the snapshot's is the
/// same in every instance.
pub(crate) async fn ready_for_call<'a>(mut bash: Bash, working_dir: &str, env: impl Iterator<Item = (&'a str, &'a str)>, reseed: bool) -> Result<Bash, String> {
    let mut state = bash.shell_state();
    state.cwd = working_dir.into();
    if let Some(pwd) = state.env.get_mut("PWD") {
        *pwd = working_dir.to_string();
    }
    bash.restore_shell_state(&state);
    for (k, v) in env {
        bash.set_env(k, v);
    }
    if reseed {
        bash.exec(&format!("RANDOM={}", random_seed())).await.map_err(|e| format!("sandbox bash could not seed $RANDOM: {e}"))?;
    }
    Ok(bash)
}

#[cfg(target_arch = "wasm32")]
fn random_seed() -> u32 {
    wasip2::random::random::get_random_u64() as u32
}

#[cfg(not(target_arch = "wasm32"))]
fn random_seed() -> u32 {
    use std::hash::{BuildHasher, Hasher};
    std::collections::hash_map::RandomState::new().build_hasher().finish() as u32
}

/// The variables a script's file names may use: `$CLAUDE_PROJECT_DIR`, when there is a project.
pub fn project_vars(project: Option<&str>) -> Vec<(&'static str, &str)> {
    project.map(|d| vec![("CLAUDE_PROJECT_DIR", d)]).unwrap_or_default()
}

/// [`unrunnable`] with the interpreter's built-in names at hand.
fn gap(builtins: &[String], script: &str, project: Option<&Path>, vars: &[(&str, &str)]) -> Result<(), String> {
    let mut missing: Vec<String> = Vec::new();
    check_script(script, project, vars, builtins, 0, &mut missing)?;
    if missing.is_empty() {
        return Ok(());
    }
    let fs = if project.is_some() { "its filesystem holds only the project, read-only" } else { "its filesystem starts empty" };
    Err(format!("it runs {}, which the sandbox does not have (it provides bash built-ins such as jq, grep and sed, and {fs})", missing.join(", ")))
}

fn note(missing: &mut Vec<String>, what: String) {
    if !missing.contains(&what) {
        missing.push(what);
    }
}

/// `$NAME` and `${NAME}` of `vars` replaced in a word.
fn expand(word: &str, vars: &[(&str, &str)]) -> String {
    let mut out = word.to_string();
    for (name, value) in vars {
        out = out.replace(&format!("${{{name}}}"), value).replace(&format!("${name}"), value);
    }
    out
}

fn check_script(script: &str, project: Option<&Path>, vars: &[(&str, &str)], builtins: &[String], depth: usize, missing: &mut Vec<String>) -> Result<(), String> {
    let parsed = hookhost_shell_parse::parse(script).map_err(|e| format!("the script does not parse ({e})"))?;
    for words in &parsed.commands {
        let (name, args) = words.split_first().expect("commands have words");
        if name.contains('/') {
            check_file(name, project, vars, builtins, depth, missing);
            continue;
        }
        // Computed names (`$CMD`, `$(…)`) are not known until the script runs.
        if name.contains('$') || parsed.functions.contains(name) {
            continue;
        }
        if !builtins.contains(name) {
            note(missing, format!("`{name}`"));
            continue;
        }
        // An interpreter or `source` given a script file (not `-c STRING`).
        if matches!(name.as_str(), "bash" | "sh" | "source" | ".") {
            let inline = args.iter().any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'));
            if let (Some(file), false) = (args.iter().find(|a| !a.starts_with('-')), inline) {
                check_file(file, project, vars, builtins, depth, missing);
            }
        }
    }
    Ok(())
}

/// A script file the command runs: present in the mounted project (and runnable there), or
/// missing.
fn check_file(file: &str, project: Option<&Path>, vars: &[(&str, &str)], builtins: &[String], depth: usize, missing: &mut Vec<String>) {
    let absent = || format!("the file {file}");
    let Some(project) = project else { return note(missing, absent()) };
    let path = expand(file, vars);
    if path.contains('$') {
        return; // computed: known only when it runs
    }
    let path = if path.starts_with('/') { std::path::PathBuf::from(&path) } else { project.join(&path) };
    if !path.starts_with(project) {
        return note(missing, format!("the file {file} (outside the project)"));
    }
    let Ok(text) = std::fs::read_to_string(&path) else { return note(missing, format!("the file {file} (not in the project)")) };
    if let Some(line) = text.strip_prefix("#!").and_then(|t| t.lines().next()) {
        let mut parts = line.split_whitespace();
        let program = parts.next().unwrap_or("");
        let interpreter = match program.rsplit('/').next() {
            Some("env") => parts.find(|p| !p.starts_with('-')).unwrap_or(""),
            Some(name) => name,
            None => "",
        };
        if !matches!(interpreter, "bash" | "sh" | "") {
            return note(missing, format!("`{interpreter}` (for {file})"));
        }
    }
    if depth < MAX_SCRIPT_DEPTH {
        if let Err(why) = check_script(&text, Some(project), vars, builtins, depth + 1, missing) {
            note(missing, format!("{file}, which does not parse ({why})"));
        }
    }
}

/// Run `script` with the dialect's delivery, `env` and `working_dir` (a virtual directory).
/// `project` is mounted read-only at its own path, when the host gave this instance it. With
/// `check_first`, a script that cannot run here (see [`unrunnable`]) does not start: the run
/// ends as a start failure saying what is missing — checked with the interpreter built for the
/// run, so the check costs no second interpreter.
pub fn run(script: &str, delivery: &Delivery, env: &[(String, String)], working_dir: &str, project: Option<&str>, check_first: bool) -> Run {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_time().build() {
        Ok(rt) => rt,
        Err(e) => return Run { exit: Exit::StartFailed(format!("sandbox runtime: {e}")), stdout: String::new(), stderr: String::new() },
    };
    let run = runtime.block_on(run_async(script, delivery, env, working_dir, project, check_first));
    discard(runtime);
    run
}

/// Let go of what a call built without taking it apart. A plugin instance handles one event and
/// is then thrown away with its memory (hookhost instantiates per event), so in the component
/// the interpreter's and the runtime's destructors — freeing every built-in, variable and file,
/// ~10% of a short hook — would be wasted work. Native builds (the tests) drop as usual.
fn discard<T>(value: T) {
    if cfg!(target_arch = "wasm32") {
        std::mem::forget(value);
    }
}

async fn run_async(script: &str, delivery: &Delivery, env: &[(String, String)], working_dir: &str, project: Option<&str>, check_first: bool) -> Run {
    let failed = |why: String| Run { exit: Exit::StartFailed(why), stdout: String::new(), stderr: String::new() };
    let named_project = project;
    // Only a directory the host preopened for this instance is visible here at all.
    let project = project.filter(|p| Path::new(p).is_dir());
    if check_first {
        if let Err(why) = gap(builtin_names(), script, named_project.map(Path::new), &project_vars(named_project)) {
            return failed(why);
        }
    }
    let vars = env.iter().chain(delivery.env.iter()).map(|(k, v)| (k.as_str(), v.as_str()));
    let reseed = may_read_random(script, project);
    let mut bash = match take(working_dir, vars.chain(delivery.file_var.map(|var| (var, PAYLOAD_PATH))), reseed).await {
        Ok(bash) => bash,
        Err(why) => return failed(why),
    };
    if let Some(dir) = project {
        let fs = std::sync::Arc::new(bashkit::PosixFs::new(crate::projectfs::ProjectFs::new(Path::new(dir))));
        if let Err(e) = bash.mount(dir, fs) {
            return failed(format!("sandbox filesystem: cannot mount the project {dir}: {e}"));
        }
    }
    let fs = bash.fs();
    for dir in ["/tmp", working_dir] {
        if project.is_some_and(|p| Path::new(dir).starts_with(p)) {
            continue;
        }
        if let Err(e) = fs.mkdir(Path::new(dir), true).await {
            return failed(format!("sandbox filesystem: cannot create {dir}: {e}"));
        }
    }
    if delivery.file_var.is_some() {
        if let Err(e) = fs.write_file(Path::new(PAYLOAD_PATH), delivery.json.as_bytes()).await {
            return failed(format!("sandbox filesystem: cannot write the payload file: {e}"));
        }
    }
    let options = if delivery.stdin { ExecOptions::new().stdin(delivery.json.as_str()) } else { ExecOptions::new() };
    let outcome = bash.exec_with_options(script, options).await;
    discard(bash);
    match outcome {
        Ok(result) => {
            let stdout = result.stdout.to_string();
            let stderr = result.stderr.to_string();
            let exit = if result.stdout_truncated || result.stderr_truncated || stdout.len() + stderr.len() > OUTPUT_CAP {
                Exit::Overflow
            } else {
                Exit::Code(result.exit_code)
            };
            Run { exit, stdout, stderr }
        }
        Err(e) => failed(format!("sandbox bash could not run the script: {e}")),
    }
}
