//! Sandbox mode: the script runs in bashkit, an in-process bash interpreter compiled into this
//! component, against a virtual filesystem. No host shell, files, network or environment exist
//! here; the host's fuel, memory and time limits apply to the whole interpreter.

use crate::dialect::{Delivery, Exit, Run};
use bashkit::{Bash, ExecOptions};
use std::path::Path;

/// Where the payload file lives in the virtual filesystem.
pub const PAYLOAD_PATH: &str = "/tmp/hookhost-payload.json";
const OUTPUT_CAP: usize = 64 << 10;

/// Why `script` cannot run in the sandbox, if it cannot: commands bashkit does not provide
/// (`node`, `python3`, `cargo`), and script files it would have to read (`./hook.sh`,
/// `bash .claude/hooks/x.sh`, `source f`), since the sandbox's filesystem starts empty. Names
/// hidden from analysis (`$cmd`) are not reported.
pub fn unrunnable(script: &str) -> Result<(), String> {
    let parsed = hookhost_shell_parse::parse(script).map_err(|e| format!("the script does not parse ({e})"))?;
    let builtins = Bash::builder().build().builtin_names();
    let mut missing: Vec<String> = Vec::new();
    let mut note = |what: String| {
        if !missing.contains(&what) {
            missing.push(what);
        }
    };
    for words in &parsed.commands {
        let (name, args) = words.split_first().expect("commands have words");
        if name.contains('/') {
            note(format!("the file {name}"));
            continue;
        }
        // Computed names (`$CMD`, `$(…)`) are not known until the script runs.
        if name.contains('$') || parsed.functions.contains(name) {
            continue;
        }
        if !builtins.contains(name) {
            note(format!("`{name}`"));
            continue;
        }
        // An interpreter or `source` given a script file (not `-c STRING`).
        if matches!(name.as_str(), "bash" | "sh" | "source" | ".") {
            let inline = args.iter().any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'));
            if let (Some(file), false) = (args.iter().find(|a| !a.starts_with('-')), inline) {
                note(format!("the file {file}"));
            }
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    Err(format!(
        "the command cannot run in the sandbox: it runs {}, which the sandbox does not have (it provides bash built-ins such as jq, grep and sed, and its filesystem starts empty); run it as a real process with settings.mode = \"host\" and grant process:exec to builtin:bash-adapter",
        missing.join(", ")
    ))
}

/// Run `script` with the dialect's delivery, `env` and `working_dir` (a virtual directory).
pub fn run(script: &str, delivery: &Delivery, env: &[(String, String)], working_dir: &str) -> Run {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_time().build() {
        Ok(rt) => rt,
        Err(e) => return Run { exit: Exit::StartFailed(format!("sandbox runtime: {e}")), stdout: String::new(), stderr: String::new() },
    };
    runtime.block_on(run_async(script, delivery, env, working_dir))
}

async fn run_async(script: &str, delivery: &Delivery, env: &[(String, String)], working_dir: &str) -> Run {
    let failed = |why: String| Run { exit: Exit::StartFailed(why), stdout: String::new(), stderr: String::new() };
    let mut builder = Bash::builder().cwd(working_dir);
    for (k, v) in env.iter().chain(delivery.env.iter()) {
        builder = builder.env(k.clone(), v.clone());
    }
    if let Some(var) = delivery.file_var {
        builder = builder.env(var, PAYLOAD_PATH);
    }
    let mut bash = builder.build();
    let fs = bash.fs();
    for dir in ["/tmp", working_dir] {
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
    match bash.exec_with_options(script, options).await {
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
