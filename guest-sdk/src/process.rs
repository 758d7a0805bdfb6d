//! Run a process on the host (`hookhost:hooks/process`). Only plugins granted `process:exec` by
//! the host may call it; elsewhere the call returns an error.

/// What to run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Command {
    /// The program and its arguments (the program is looked up on the host's `PATH`).
    pub argv: Vec<String>,
    /// The complete environment of the process.
    pub env: Vec<(String, String)>,
    /// What the process reads on stdin.
    pub stdin: Vec<u8>,
    /// Its working directory (the host's default when `None`).
    pub cwd: Option<String>,
    /// Its deadline; the host also stops it at the hook's own, whichever comes first.
    pub timeout_ms: u32,
    /// `(env var, contents)`: the host writes the contents to an owner-only temporary file,
    /// passes its path in the variable, and deletes it after the run.
    pub payload_file: Option<(String, Vec<u8>)>,
}

/// How it ended.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Output {
    /// Its exit status, when it exited.
    pub status: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// What it wrote on stdout.
    pub stdout: Vec<u8>,
    /// What it wrote on stderr.
    pub stderr: Vec<u8>,
    /// Whether its deadline stopped it.
    pub timed_out: bool,
    /// stdout+stderr went over the host's cap; the process was stopped.
    pub truncated: bool,
}

/// Run `cmd`; `Err` when it could not be started (or the capability is not granted).
#[cfg(target_arch = "wasm32")]
pub fn run(cmd: Command) -> Result<Output, String> {
    use crate::bindings::hookhost::hooks::process as p;
    let out = p::run(&p::Command {
        argv: cmd.argv,
        env: cmd.env,
        stdin: cmd.stdin,
        cwd: cmd.cwd,
        timeout_ms: cmd.timeout_ms,
        payload: cmd.payload_file.map(|(env_var, contents)| p::PayloadFile { env_var, contents }),
    })?;
    Ok(Output {
        status: out.status,
        signal: out.signal,
        stdout: out.stdout,
        stderr: out.stderr,
        timed_out: out.timed_out,
        truncated: out.truncated,
    })
}

/// Outside wasm there is no host to ask.
#[cfg(not(target_arch = "wasm32"))]
pub fn run(_cmd: Command) -> Result<Output, String> {
    Err("process.run is only available to a plugin running inside hookhost".into())
}
