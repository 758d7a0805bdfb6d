//! What running a host process differs in per platform (issue #49): how a run's processes are
//! kept together and killed at its deadline, how a program is found and started, and how an
//! exit is read.
//!
//! - Unix: the run gets a new process group, killed whole (`killpg`); on Linux, descendants that
//!   left the group (`setsid`, `setpgid`) are found by the run's marker in their environment
//!   (`/proc/*/environ`) and killed too. A program is found on `PATH` (`:`) by its execute bits
//!   and started by its name as `argv[0]`; a signal that ended it is reported.
//! - Windows: the child is put in a Job Object that kills every process in it when the run ends
//!   (`JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`) or at its deadline (`TerminateJobObject`); a child
//!   that starts a process in the instant before it is assigned leaves that one out. `PATH` is
//!   split on `;`; a program is found with the extensions Windows runs (`.exe`, `.cmd`, `.bat`,
//!   `.com`); `bash` not on `PATH` is looked for where Git for Windows puts it, and `pwsh`
//!   (PowerShell 7) falls back to Windows PowerShell.

/// Kills the run's processes when dropped: no descendant outlives the run, even when the call
/// itself is cancelled by the hook's deadline.
pub(super) struct Group {
    #[cfg_attr(not(unix), allow(dead_code))]
    pgid: i32,
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    marker: String,
    #[cfg(windows)]
    job: Option<job::Job>,
}

impl Group {
    /// The group of a child spawned with [`prepare`]d options.
    pub(super) fn of(child: &tokio::process::Child, marker: String) -> Group {
        Group {
            pgid: child.id().map(|id| id as i32).unwrap_or(-1),
            marker,
            #[cfg(windows)]
            job: child.raw_handle().and_then(job::Job::holding),
        }
    }

    #[cfg(unix)]
    pub(super) fn kill(&self) {
        // SAFETY: killpg only sends a signal; the group id is the child's pid, and the child is
        // not yet reaped while this guard lives (reaping happens after), so the id is ours.
        unsafe {
            libc::killpg(self.pgid, libc::SIGKILL);
        }
        #[cfg(target_os = "linux")]
        kill_marked(&self.marker, self.pgid);
    }

    #[cfg(windows)]
    pub(super) fn kill(&self) {
        if let Some(job) = &self.job {
            job.terminate();
        }
    }

    /// The child is killed by tokio when the run drops it.
    #[cfg(not(any(unix, windows)))]
    pub(super) fn kill(&self) {}
}

/// A Job Object holding a run's processes (Windows).
#[cfg(windows)]
mod job {
    use std::os::windows::io::RawHandle;
    use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
    use windows_sys::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation, SetInformationJobObject, TerminateJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
        JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    };

    pub(super) struct Job(HANDLE);

    // SAFETY: a job handle may be used and closed from any thread.
    unsafe impl Send for Job {}
    unsafe impl Sync for Job {}

    impl Job {
        /// A new job, killing its processes when closed, holding `process`; `None` when Windows
        /// refuses (the child is then still killed by tokio, its descendants are not).
        pub(super) fn holding(process: RawHandle) -> Option<Job> {
            // SAFETY: each call gets valid arguments: a null name and attributes, a zeroed
            // limit structure of the size passed, and handles this function owns or borrows.
            unsafe {
                let job = CreateJobObjectW(std::ptr::null(), std::ptr::null());
                if job.is_null() {
                    return None;
                }
                let job = Job(job);
                let mut limits: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = std::mem::zeroed();
                limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
                let set = SetInformationJobObject(job.0, JobObjectExtendedLimitInformation, (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(), std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32);
                (set != 0 && AssignProcessToJobObject(job.0, process as HANDLE) != 0).then_some(job)
            }
        }

        pub(super) fn terminate(&self) {
            // SAFETY: the handle is open until drop.
            unsafe {
                TerminateJobObject(self.0, 1);
            }
        }
    }

    impl Drop for Job {
        fn drop(&mut self) {
            // SAFETY: closing the last handle kills what is left in the job (the limit above).
            unsafe {
                CloseHandle(self.0);
            }
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// SIGKILL every process whose environment carries `HOOKHOST_RUN=<marker>` (a run's
/// descendants, wherever they moved), until none is left; reap the ones that are ours except
/// `direct`, the run's own child, which its `wait` reaps (reaping it here would race that wait
/// into ECHILD).
#[cfg(target_os = "linux")]
fn kill_marked(marker: &str, direct: i32) {
    use super::RUN_MARKER;
    let needle = format!("{RUN_MARKER}={marker}\0").into_bytes();
    // A marked process may fork while it is being killed: look again until the scan is clean.
    for _ in 0..4 {
        let mut killed = Vec::new();
        let Ok(dir) = std::fs::read_dir("/proc") else { return };
        for entry in dir.flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<i32>().ok()) else { continue };
            let Ok(env) = std::fs::read(entry.path().join("environ")) else { continue };
            if env.windows(needle.len()).any(|w| w == needle.as_slice()) || env.ends_with(&needle[..needle.len() - 1]) {
                // SAFETY: kill only sends a signal to a process whose environment names this run.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
                killed.push(pid);
            }
        }
        if killed.is_empty() {
            return;
        }
        for pid in killed.into_iter().filter(|p| *p != direct) {
            // Reaps it if it became our child (orphans of a subreaper); ECHILD otherwise.
            // SAFETY: waitpid on a specific pid with WNOHANG does not block or touch others.
            unsafe {
                libc::waitpid(pid, std::ptr::null_mut(), libc::WNOHANG);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
}

/// Start the command in a group of its own, named as it was asked for.
pub(super) fn prepare(command: &mut tokio::process::Command, program: &str) {
    #[cfg(unix)]
    command.arg0(program).process_group(0);
    #[cfg(not(unix))]
    let _ = (command, program);
}

/// What separates directories in `PATH`.
pub(super) const PATH_SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// `PATH` for a process whose environment sets none.
pub(super) const DEFAULT_PATH: &str = if cfg!(windows) {
    r"C:\Windows\System32;C:\Windows;C:\Windows\System32\WindowsPowerShell\v1.0;C:\Program Files\PowerShell\7;C:\Program Files\Git\bin"
} else {
    "/usr/local/bin:/usr/bin:/bin"
};

/// Whether `program` names a file by its path rather than a command looked up on `PATH`.
pub(super) fn is_path(program: &str, windows: bool) -> bool {
    program.contains('/') || (windows && (program.contains('\\') || program.as_bytes().get(1) == Some(&b':')))
}

/// The file names `program` may have in a `PATH` directory: itself, and on Windows, when it has
/// no extension, with each extension Windows runs.
pub(super) fn file_names(program: &str, windows: bool) -> Vec<String> {
    let mut names = vec![program.to_string()];
    if windows && !program.contains('.') {
        names.extend([".exe", ".cmd", ".bat", ".com"].iter().map(|ext| format!("{program}{ext}")));
    }
    names
}

/// What to run when `program` is not found: on Windows, Windows PowerShell for `pwsh`, and Git
/// for Windows' `bash` for `bash` or `sh` (its usual place, when not on `PATH`).
pub(super) fn fallbacks(program: &str, windows: bool) -> &'static [&'static str] {
    match (windows, program) {
        (true, "pwsh") => &["powershell"],
        (true, "bash" | "sh") => &[r"C:\Program Files\Git\bin\bash.exe"],
        _ => &[],
    }
}

/// What to tell the user when `program` cannot be found.
pub(super) fn missing_hint(program: &str, windows: bool) -> &'static str {
    match (windows, program) {
        (true, "bash" | "sh") => "; a host-mode shell hook needs bash: install Git for Windows (Git Bash), or run the hook in the sandbox (no process:exec grant)",
        (_, "pwsh" | "powershell") => "; a powershell hook needs PowerShell: install it, or give the hook a bash command",
        _ => "",
    }
}

/// Whether a file found on `PATH` can be run.
pub(super) fn runnable(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    meta.is_file()
}

/// The signal that ended a process, where there are signals.
pub(super) fn signal(status: &std::process::ExitStatus) -> Option<i32> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        status.signal()
    }
    #[cfg(not(unix))]
    {
        let _ = status;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_found_as_each_os_finds_them() {
        assert_eq!(file_names("bash", false), ["bash"]);
        assert_eq!(file_names("bash", true), ["bash", "bash.exe", "bash.cmd", "bash.bat", "bash.com"]);
        assert_eq!(file_names("check.ps1", true), ["check.ps1"]);
        assert!(is_path(r"C:\tools\x.exe", true) && is_path("C:x.exe", true) && is_path("./x", false));
        assert!(!is_path(r"a\b", false), "a backslash is part of a unix file name");
        assert!(!is_path("bash", true));
        assert_eq!(fallbacks("pwsh", true), ["powershell"]);
        assert_eq!(fallbacks("bash", true), [r"C:\Program Files\Git\bin\bash.exe"]);
        assert!(fallbacks("bash", false).is_empty() && fallbacks("pwsh", false).is_empty());
        assert!(missing_hint("bash", true).contains("Git for Windows"));
        assert_eq!(missing_hint("bash", false), "");
    }
}
