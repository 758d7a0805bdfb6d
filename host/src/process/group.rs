//! What running a host process differs in per platform (issue #49): how a run's processes are
//! kept together and killed at its deadline, how a program is found and started, and how an
//! exit is read.
//!
//! - Unix: the run gets a new process group, killed whole (`killpg`); on Linux, descendants that
//!   left the group (`setsid`, `setpgid`) are found by the run's marker in their environment
//!   (`/proc/*/environ`) and killed too. A program is found on `PATH` (`:`) by its execute bits
//!   and started by its name as `argv[0]`; a signal that ended it is reported.
//! - Windows: the child itself is killed (tokio's `kill_on_drop`); a Job Object that takes its
//!   descendants with it is still to come (issue #49). `PATH` is split on `;`, and any file
//!   found counts as runnable (Windows decides by extension).

/// Kills the run's processes when dropped: no descendant outlives the run, even when the call
/// itself is cancelled by the hook's deadline.
pub(super) struct Group {
    #[cfg_attr(not(unix), allow(dead_code))]
    pgid: i32,
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    marker: String,
}

impl Group {
    /// The group of a child spawned with [`prepare`]d options.
    pub(super) fn of(child: &tokio::process::Child, marker: String) -> Group {
        Group { pgid: child.id().map(|id| id as i32).unwrap_or(-1), marker }
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

    /// The child is killed by tokio when the run drops it.
    #[cfg(not(unix))]
    pub(super) fn kill(&self) {}
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
