//! The soak: many tasks dispatching a mix of well-behaved and hostile hooks at once for a
//! while, every decision checked, with resident memory, open file descriptors and leftover
//! processes measured at the start and the end.
//!
//! Run it (a few minutes; not part of `cargo test`):
//! `cargo run --release -p hookhost-tests --example soak -- 180`.
//! `tests/tests/soak.rs` runs it for two seconds as a smoke test.

use crate::{bash, fixtures, shell_hook, GRANT_PROCESS};
use hookhost::{perf, Host, HookEvent, VerdictKind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One kind of dispatch and what it must decide.
struct Case {
    name: &'static str,
    host: Host,
    event: HookEvent,
    decision: VerdictKind,
    /// A substring of the executor error the first hook must report (None: no error).
    error: Option<&'static [&'static str]>,
}

/// Figures of one soak run.
#[derive(Debug)]
pub struct Report {
    /// How long it ran.
    pub seconds: f64,
    /// Concurrent tasks dispatching.
    pub tasks: usize,
    /// Events dispatched.
    pub dispatches: u64,
    /// Dispatches whose decision and error matched the expected ones.
    pub checked: u64,
    /// Each dispatch that decided otherwise, described.
    pub wrong: Vec<String>,
    /// Resident memory after the warm-up (the first fifth of the run) and at the end.
    pub rss_warm: u64,
    /// See `rss_warm`.
    pub rss_end: u64,
    /// Open file descriptors at the start and at the end.
    pub fds_start: usize,
    /// See `fds_start`.
    pub fds_end: usize,
    /// Processes left from the hooks' children (the marker's `sleep`s) at the end.
    pub leftover_processes: usize,
    /// Dispatches per scenario.
    pub per_case: Vec<(&'static str, u64)>,
}

/// Allowed resident-memory growth between the end of the warm-up and the end of the run.
pub const RSS_NOISE: u64 = 16 << 20;

impl Report {
    /// Every decision right, and no growth in memory, descriptors or processes.
    pub fn ok(&self) -> bool {
        self.wrong.is_empty()
            && self.checked == self.dispatches
            && self.rss_end <= self.rss_warm + RSS_NOISE
            && self.fds_end <= self.fds_start
            && self.leftover_processes == 0
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mib = |b: u64| b as f64 / (1 << 20) as f64;
        writeln!(f, "soak: {:.0} s, {} concurrent tasks", self.seconds, self.tasks)?;
        writeln!(f, "  dispatches      {} ({:.0}/s)", self.dispatches, self.dispatches as f64 / self.seconds)?;
        writeln!(f, "  checked         {} ({} wrong)", self.checked, self.wrong.len())?;
        for w in self.wrong.iter().take(5) {
            writeln!(f, "    wrong: {w}")?;
        }
        writeln!(f, "  resident MiB    {:.1} after warm-up -> {:.1} at the end ({:+.1})", mib(self.rss_warm), mib(self.rss_end), mib(self.rss_end) - mib(self.rss_warm))?;
        writeln!(f, "  open fds        {} -> {}", self.fds_start, self.fds_end)?;
        writeln!(f, "  leftover procs  {}", self.leftover_processes)?;
        let cases: Vec<String> = self.per_case.iter().map(|(n, c)| format!("{n}={c}")).collect();
        writeln!(f, "  per case        {}", cases.join(" "))?;
        write!(f, "  result          {}", if self.ok() { "ok" } else { "FAILED" })
    }
}

fn hostile(on_error: &str, timeout_ms: u32) -> String {
    format!(
        "[[hooks]]\nid = \"hostile\"\nevent = \"pre_tool_use\"\ntimeout_ms = {timeout_ms}\non_error = \"{on_error}\"\nexecutor = {{ plugin = \"{}\", memory_mib = 16, fuel = 20000000 }}\n\
         [[hooks]]\nid = \"after\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = \"builtin:guard-destructive\" }}\n",
        fixtures::HOSTILE
    )
}

async fn cases(marker: &str) -> Vec<Case> {
    let guard = "[[hooks]]\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n";
    let sandbox = shell_hook("sandbox", "pre_tool_use", "", &[("command", r#"echo '{"decision":"block","reason":"sandboxed no"}'"#)]);
    // A host-mode hook that leaves a child ignoring SIGTERM and then outlives its deadline.
    let forker = format!(
        "{GRANT_PROCESS}{}",
        shell_hook("forker", "pre_tool_use", "timeout_ms = 200\non_error = \"block\"", &[("mode", "host"), ("command", &format!("(trap '' TERM; sleep {marker}) & sleep {marker}"))])
    );
    let host = |toml: String| async move { crate::host(&toml).await };
    let fuel_or_time: &[&str] = &["ran out of fuel", "timed out"];
    vec![
        Case { name: "guard-allow", host: host(guard.into()).await, event: bash("ls -la"), decision: VerdictKind::Pass, error: None },
        Case { name: "guard-block", host: host(guard.into()).await, event: bash("rm -rf /"), decision: VerdictKind::Block, error: None },
        Case { name: "loop", host: host(hostile("block", 300)).await, event: bash("loop"), decision: VerdictKind::Block, error: Some(fuel_or_time) },
        Case { name: "bomb", host: host(hostile("allow", 300)).await, event: bash("bomb"), decision: VerdictKind::Pass, error: Some(&["exceeded the memory limit"]) },
        Case { name: "panic", host: host(hostile("warn", 300)).await, event: bash("panic"), decision: VerdictKind::Pass, error: Some(&["panicked on purpose"]) },
        Case { name: "flood", host: host(hostile("warn", 300)).await, event: bash("flood"), decision: VerdictKind::Pass, error: Some(&["trapped"]) },
        Case { name: "sleep", host: host(hostile("block", 100)).await, event: bash("sleep"), decision: VerdictKind::Block, error: Some(&["timed out"]) },
        Case { name: "trap", host: host(hostile("allow", 300)).await, event: bash("trap"), decision: VerdictKind::Pass, error: Some(&["unreachable"]) },
        Case { name: "behaved", host: host(hostile("block", 300)).await, event: bash("ls"), decision: VerdictKind::Allow, error: None },
        Case { name: "sandbox-shell", host: host(sandbox).await, event: bash("ls"), decision: VerdictKind::Block, error: None },
        Case { name: "host-forker", host: host(forker).await, event: bash("ls"), decision: VerdictKind::Block, error: Some(&["timed out"]) },
    ]
}

fn check(case: &Case, out: &hookhost::Outcome) -> Result<(), String> {
    let err = out.hooks.first().and_then(|h| h.error.as_deref());
    let error_ok = match (case.error, err) {
        (None, None) => true,
        (Some(any), Some(e)) => any.iter().any(|s| e.contains(s)),
        _ => false,
    };
    if out.decision != case.decision || !error_ok {
        return Err(format!("{}: decided {:?} with error {err:?}", case.name, out.decision));
    }
    Ok(())
}

/// Processes whose command line contains `marker` (the hooks' children).
fn processes_with(marker: &str) -> usize {
    let Ok(dir) = std::fs::read_dir("/proc") else { return 0 };
    dir.filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().bytes().all(|b| b.is_ascii_digit()))
        .filter(|e| std::fs::read(e.path().join("cmdline")).map(|c| String::from_utf8_lossy(&c).contains(marker)).unwrap_or(false))
        .count()
}

/// Run the soak for `duration` with `tasks` concurrent dispatch loops on a runtime with
/// `threads` workers.
pub fn run(duration: Duration, tasks: usize, threads: usize) -> Report {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(threads).enable_all().build().expect("runtime");
    // A marker unique to this run, in the children's command lines.
    let marker = format!("37{}.25", std::process::id());
    let cases = Arc::new(rt.block_on(cases(&marker)));
    let fds_start = perf::open_fds().unwrap_or(0);
    let counts: Arc<Vec<AtomicU64>> = Arc::new(cases.iter().map(|_| AtomicU64::new(0)).collect());
    let checked = Arc::new(AtomicU64::new(0));
    let wrong = Arc::new(std::sync::Mutex::new(Vec::new()));
    let started = Instant::now();
    let warm_until = started + duration / 5;
    let rss_warm = Arc::new(AtomicU64::new(0));
    let handles: Vec<_> = (0..tasks)
        .map(|t| {
            let (cases, counts, checked, wrong, rss_warm) = (cases.clone(), counts.clone(), checked.clone(), wrong.clone(), rss_warm.clone());
            rt.spawn(async move {
                let mut i = t;
                while started.elapsed() < duration {
                    let case = &cases[i % cases.len()];
                    let out = case.host.dispatch(&case.event).await;
                    counts[i % cases.len()].fetch_add(1, Ordering::Relaxed);
                    match check(case, &out) {
                        Ok(()) => {
                            checked.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(w) => wrong.lock().unwrap().push(w),
                    }
                    if Instant::now() >= warm_until && rss_warm.load(Ordering::Relaxed) == 0 {
                        rss_warm.store(perf::resident_bytes().unwrap_or(0), Ordering::Relaxed);
                    }
                    i += tasks;
                }
            })
        })
        .collect();
    for h in handles {
        rt.block_on(h).expect("soak task");
    }
    // Give killed children a moment to be reaped before counting.
    std::thread::sleep(Duration::from_millis(300));
    let per_case = cases.iter().zip(counts.iter()).map(|(c, n)| (c.name, n.load(Ordering::Relaxed))).collect();
    let dispatches = counts.iter().map(|n| n.load(Ordering::Relaxed)).sum();
    let report = Report {
        seconds: started.elapsed().as_secs_f64(),
        tasks,
        dispatches,
        checked: checked.load(Ordering::Relaxed),
        wrong: std::mem::take(&mut *wrong.lock().unwrap()),
        rss_warm: rss_warm.load(Ordering::Relaxed),
        rss_end: perf::resident_bytes().unwrap_or(0),
        fds_start,
        fds_end: perf::open_fds().unwrap_or(0),
        leftover_processes: processes_with(&marker),
        per_case,
    };
    drop(cases);
    report
}
