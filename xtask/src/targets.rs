//! The platforms hookhost is released for, and what each one's artifacts are called.

/// How a target's release binary is built on this (Linux x86_64) machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builder {
    /// `cargo build`: the machine's own target, or Windows through mingw-w64's linker.
    Cargo,
    /// `cargo zigbuild`: zig as the C compiler and linker (macOS, musl, Linux on another CPU).
    Zig,
}

/// One release target.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// The Rust target triple.
    pub triple: &'static str,
    /// Node's `process.platform` and `process.arch` (the npm package's `os` and `cpu`).
    pub node_os: &'static str,
    pub node_cpu: &'static str,
    /// Linux's C library, for npm's `libc` field and the installers' choice.
    pub libc: Option<&'static str>,
    pub builder: Builder,
    /// CI type-checks it (`cargo xtask check --ci`). Besides the machine's own Linux x86_64 glibc
    /// (the test build), Windows, macOS arm64 and Linux arm64 musl together compile every OS our
    /// code has a `cfg` for and, on Linux, both CPUs and both C libraries (the `libc` types that
    /// differ: `c_char` unsigned on arm64 Linux, `setrlimit`'s resource an `int` on musl). The others
    /// differ from a checked one only in what no `cfg` of ours reads; each type-check costs CI
    /// ~100 s on 2 cores, and the release command builds and links them all.
    pub ci: bool,
}

/// Every target a release carries, in the order the release notes list them.
pub const ALL: &[Target] = &[
    Target { triple: "x86_64-unknown-linux-gnu", node_os: "linux", node_cpu: "x64", libc: Some("glibc"), builder: Builder::Cargo, ci: false },
    Target { triple: "aarch64-unknown-linux-gnu", node_os: "linux", node_cpu: "arm64", libc: Some("glibc"), builder: Builder::Zig, ci: false },
    Target { triple: "x86_64-unknown-linux-musl", node_os: "linux", node_cpu: "x64", libc: Some("musl"), builder: Builder::Zig, ci: false },
    Target { triple: "aarch64-unknown-linux-musl", node_os: "linux", node_cpu: "arm64", libc: Some("musl"), builder: Builder::Zig, ci: true },
    Target { triple: "x86_64-apple-darwin", node_os: "darwin", node_cpu: "x64", libc: None, builder: Builder::Zig, ci: false },
    Target { triple: "aarch64-apple-darwin", node_os: "darwin", node_cpu: "arm64", libc: None, builder: Builder::Zig, ci: true },
    Target { triple: "x86_64-pc-windows-gnu", node_os: "win32", node_cpu: "x64", libc: None, builder: Builder::Cargo, ci: true },
];

impl Target {
    pub fn find(triple: &str) -> Option<Target> {
        ALL.iter().copied().find(|t| t.triple == triple)
    }

    pub fn windows(&self) -> bool {
        self.node_os == "win32"
    }

    /// `.exe` on Windows.
    pub fn exe_suffix(&self) -> &'static str {
        if self.windows() { ".exe" } else { "" }
    }

    /// `.zip` on Windows (Explorer and `Expand-Archive` open it), `.tar.gz` elsewhere.
    pub fn archive_suffix(&self) -> &'static str {
        if self.windows() { ".zip" } else { ".tar.gz" }
    }

    /// The archive's top directory, and the archive's name without its suffix.
    pub fn stem(&self, version: &str) -> String {
        format!("hookhost-{version}-{}", self.triple)
    }

    pub fn archive_name(&self, version: &str) -> String {
        format!("{}{}", self.stem(version), self.archive_suffix())
    }

    /// The npm package carrying this target's binaries: `@hookhost/cli-linux-x64`,
    /// `@hookhost/cli-linux-x64-musl`, `@hookhost/cli-win32-x64`, ...
    pub fn npm_package(&self) -> String {
        let musl = if self.libc == Some("musl") { "-musl" } else { "" };
        format!("@hookhost/cli-{}-{}{musl}", self.node_os, self.node_cpu)
    }
}

/// The targets `--target` names: triples, or `all` for every release target.
pub fn named(names: &[String]) -> anyhow::Result<Vec<Target>> {
    if names.iter().any(|t| t == "all") {
        return Ok(ALL.to_vec());
    }
    names
        .iter()
        .map(|t| Target::find(t).ok_or_else(|| anyhow::anyhow!("--target {t}: not a release target; use one of {}", ALL.iter().map(|t| t.triple).collect::<Vec<_>>().join(", "))))
        .collect()
}

/// The target triple of the machine running this (what `rustc -vV` calls the host).
pub fn host() -> anyhow::Result<String> {
    let out = std::process::Command::new("rustc").arg("-vV").output().map_err(|e| anyhow::anyhow!("cannot run rustc -vV: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(|h| h.trim().to_string())
        .ok_or_else(|| anyhow::anyhow!("rustc -vV names no host"))
}

/// `rustup target add` for the targets rustup does not have yet (rustup does not add them by
/// itself on every machine: `RUSTUP_AUTO_INSTALL=0`).
pub fn add_to_rustup(root: &std::path::Path, wanted: &[Target]) -> anyhow::Result<()> {
    let installed = std::process::Command::new("rustup").current_dir(root).args(["target", "list", "--installed"]).output().map_err(|e| anyhow::anyhow!("cannot run rustup: {e}"))?;
    let installed = String::from_utf8_lossy(&installed.stdout);
    let missing: Vec<&str> = wanted.iter().map(|t| t.triple).filter(|t| !installed.lines().any(|l| l.trim() == *t)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let status = std::process::Command::new("rustup").current_dir(root).args(["target", "add"]).args(&missing).status().map_err(|e| anyhow::anyhow!("cannot run rustup: {e}"))?;
    if !status.success() {
        anyhow::bail!("`rustup target add {}` failed ({status}); add the targets by hand", missing.join(" "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_conventions_the_installers_and_npm_expect() {
        let win = Target::find("x86_64-pc-windows-gnu").unwrap();
        assert_eq!(win.archive_name("1.2.3"), "hookhost-1.2.3-x86_64-pc-windows-gnu.zip");
        assert_eq!(win.npm_package(), "@hookhost/cli-win32-x64");
        let musl = Target::find("aarch64-unknown-linux-musl").unwrap();
        assert_eq!(musl.archive_name("1.2.3"), "hookhost-1.2.3-aarch64-unknown-linux-musl.tar.gz");
        assert_eq!(musl.npm_package(), "@hookhost/cli-linux-arm64-musl");
        // One npm package per name: two targets may not share one.
        let mut names: Vec<String> = ALL.iter().map(|t| t.npm_package()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ALL.len());
    }

    #[test]
    fn target_names_are_release_triples_or_all() {
        let names = |v: &[&str]| named(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(names(&["all"]).unwrap().len(), ALL.len());
        let two: Vec<_> = names(&["aarch64-apple-darwin", "x86_64-pc-windows-gnu"]).unwrap().iter().map(|t| t.triple).collect();
        assert_eq!(two, ["aarch64-apple-darwin", "x86_64-pc-windows-gnu"]);
        let err = names(&["x86_64-unknown-linux-gnu", "riscv64gc-unknown-linux-gnu"]).unwrap_err().to_string();
        assert!(err.starts_with("--target riscv64gc-unknown-linux-gnu: not a release target; use one of x86_64-unknown-linux-gnu, "), "{err}");
    }

    #[test]
    fn ci_checks_every_os_and_on_linux_both_cpus_and_c_libraries() {
        let ci: Vec<&Target> = ALL.iter().filter(|t| t.ci).collect();
        for os in ["darwin", "win32"] {
            assert!(ci.iter().any(|t| t.node_os == os), "no {os} target in CI");
        }
        // Linux x86_64 glibc is the machine's own build; the CI set adds the other CPU and libc.
        assert!(ci.iter().any(|t| t.node_os == "linux" && t.node_cpu == "arm64" && t.libc == Some("musl")));
        assert!(!ci.iter().any(|t| t.triple == "x86_64-unknown-linux-gnu"), "the host's own is the test build");
    }
}
