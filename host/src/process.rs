//! `hookhost:hooks/process.run` on the host, for plugins granted `process:exec` (the bash
//! adapter in host mode): a new process group, an empty environment plus what the plugin
//! passes (and `HOOKHOST_RUN`, the run's marker), a deadline that kills the whole group and
//! every process still carrying the marker, output capped at 64 KiB, and an owner-only payload
//! file removed afterwards.

mod group;

use group::Group;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};

/// stdout + stderr together, per run (the seed's output cap).
pub const OUTPUT_CAP: usize = 64 << 10;
/// PATH given to a process whose environment does not set one.
pub const DEFAULT_PATH: &str = group::DEFAULT_PATH;
/// Stop the process this long before the hook's own deadline, so the plugin can still report.
const DEADLINE_MARGIN: Duration = Duration::from_millis(50);

/// A command, host-side.
#[derive(Debug, Default)]
pub struct Command {
    pub argv: Vec<String>,
    pub env: Vec<(String, String)>,
    pub stdin: Vec<u8>,
    pub cwd: Option<String>,
    pub timeout: Duration,
    pub payload: Option<(String, Vec<u8>)>,
}

/// How a run ended.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Output {
    pub status: Option<i32>,
    pub signal: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
    pub truncated: bool,
}

/// The environment variable that marks every process of one run (`<hookhost pid>-<n>`).
pub const RUN_MARKER: &str = "HOOKHOST_RUN";

/// Distinguishes the runs of this process.
static RUNS: AtomicUsize = AtomicUsize::new(0);

async fn read_capped(mut from: impl AsyncRead + Unpin, used: &AtomicUsize, group: &Group) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match from.read(&mut buf).await {
            Ok(0) | Err(_) => return (out, false),
            Ok(n) => {
                let before = used.fetch_add(n, Ordering::SeqCst);
                if before + n > OUTPUT_CAP {
                    out.extend_from_slice(&buf[..OUTPUT_CAP.saturating_sub(before).min(n)]);
                    group.kill();
                    return (out, true);
                }
                out.extend_from_slice(&buf[..n]);
            }
        }
    }
}

/// Find `program` on the child's PATH, as the child would. Resolving here (not in the spawn)
/// lets std use posix_spawn instead of fork: a fork of this process copies the page tables of
/// the engine's large instance-pool reservation, which costs about a millisecond per hook.
fn resolve(program: &str, path_var: &str) -> Option<std::path::PathBuf> {
    let windows = cfg!(windows);
    if group::is_path(program, windows) {
        return Some(program.into());
    }
    let runnable = |p: &std::path::Path| std::fs::metadata(p).is_ok_and(|m| group::runnable(&m));
    std::iter::once(program).chain(group::fallbacks(program, windows).iter().copied()).find_map(|name| {
        if group::is_path(name, windows) {
            return runnable(std::path::Path::new(name)).then(|| name.into());
        }
        let names = group::file_names(name, windows);
        path_var.split(group::PATH_SEPARATOR).filter(|d| !d.is_empty()).flat_map(|dir| names.iter().map(move |n| std::path::Path::new(dir).join(n))).find(|c| runnable(c))
    })
}

/// Run a command to completion, the deadline, or the output cap.
pub async fn run(cmd: Command, hook_deadline: Instant) -> Result<Output, String> {
    let Some(program) = cmd.argv.first() else { return Err("empty argv: nothing to run".into()) };
    let budget = hook_deadline.saturating_duration_since(Instant::now()).saturating_sub(DEADLINE_MARGIN);
    let timeout = if cmd.timeout.is_zero() { budget } else { cmd.timeout.min(budget) };

    let path_var = cmd.env.iter().find(|(k, _)| k == "PATH").map_or(DEFAULT_PATH, |(_, v)| v.as_str());
    let resolved = resolve(program, path_var).ok_or_else(|| format!("cannot start {program:?}: not found on PATH {path_var:?}{}", group::missing_hint(program, cfg!(windows))))?;
    let mut command = tokio::process::Command::new(&resolved);
    group::prepare(&mut command, program);
    command.args(&cmd.argv[1..]).env_clear().envs(cmd.env.iter().map(|(k, v)| (k, v))).env("PATH", path_var);
    if let Some(cwd) = &cmd.cwd {
        command.current_dir(cwd);
    }
    // Owner-only (0600) temporary file, deleted when `payload` drops at the end of this call.
    let payload = match &cmd.payload {
        Some((var, contents)) => {
            use std::io::Write;
            let mut file = tempfile::Builder::new().prefix("hookhost-payload-").suffix(".json").tempfile().map_err(|e| format!("cannot write the payload file: {e}"))?;
            // Through the handle tempfile opened (O_EXCL, 0600): never by its path, which
            // another process could have replaced in between.
            file.as_file_mut().write_all(contents).and_then(|()| file.as_file_mut().flush()).map_err(|e| format!("cannot write the payload file: {e}"))?;
            command.env(var, file.path());
            Some(file)
        }
        None => None,
    };
    let marker = format!("{}-{}", std::process::id(), RUNS.fetch_add(1, Ordering::Relaxed));
    command.env(RUN_MARKER, &marker);
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    let mut child = command.spawn().map_err(|e| format!("cannot start {program:?}: {e}"))?;
    let group = Group::of(&child, marker);

    let mut stdin = child.stdin.take();
    let input = cmd.stdin;
    let write = async move {
        if let Some(pipe) = stdin.as_mut() {
            // A script that exits without reading its stdin closes the pipe: not an error.
            let _ = pipe.write_all(&input).await;
        }
        drop(stdin);
    };
    let used = AtomicUsize::new(0);
    let (stdout, stderr) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let work = async {
        let wait = async {
            let status = child.wait().await;
            // The script is done: whatever it left running in its group goes too, which also
            // closes the pipes those children held.
            group.kill();
            status
        };
        let (_, (out, cut_out), (err, cut_err), status) = tokio::join!(write, read_capped(stdout, &used, &group), read_capped(stderr, &used, &group), wait);
        (out, err, cut_out || cut_err, status)
    };
    let result = tokio::time::timeout(timeout, work).await;
    let output = match result {
        Ok((stdout, stderr, truncated, status)) => {
            let status = status.map_err(|e| format!("waiting for {program:?}: {e}"))?;
            Output { status: status.code(), signal: group::signal(&status), stdout, stderr, timed_out: false, truncated }
        }
        Err(_) => {
            group.kill();
            let _ = child.wait().await;
            Output { timed_out: true, ..Output::default() }
        }
    };
    drop(payload);
    Ok(output)
}
