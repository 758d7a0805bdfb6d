//! `cargo xtask check`: release targets type-check — the library and both binaries (`hookhost`,
//! `hookhost-send`) — without building or linking them: by default every one but this machine's
//! (whose build the tests are); `--ci` the ones CI checks ([`Target::ci`]). The release command
//! builds, links and smoke-tests them all.
//!
//! One `cargo-zigbuild check` for all the targets: cargo schedules the targets' crates together,
//! so both cores stay busy to the end, and zig is the C compiler the build scripts of `ring` and
//! `zstd-sys` need for each target (mingw-w64's gcc is not needed for a check).

use crate::targets::{self, Target};
use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::process::Command;

#[derive(clap::Args)]
pub struct Args {
    /// A target triple to check (repeatable), or `all` for every release target. Default: every
    /// release target but this machine's.
    #[arg(long = "target", value_name = "TRIPLE")]
    targets: Vec<String>,
    /// The targets CI checks ([`Target::ci`]): with this machine's own, every OS, CPU and C
    /// library pairing the code differs by.
    #[arg(long, conflicts_with = "targets")]
    ci: bool,
}

pub fn run(args: Args) -> Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().context("xtask has no parent directory")?.to_path_buf();
    let wanted: Vec<Target> = if args.ci {
        targets::ALL.iter().copied().filter(|t| t.ci).collect()
    } else if args.targets.is_empty() {
        let host = targets::host()?;
        targets::ALL.iter().copied().filter(|t| t.triple != host).collect()
    } else {
        targets::named(&args.targets)?
    };
    // cargo-zigbuild's own `check` (`cargo zigbuild` is its build); it runs the cargo on PATH.
    if Command::new("cargo-zigbuild").arg("--version").output().map(|o| !o.status.success()).unwrap_or(true) {
        bail!("cargo-zigbuild is not installed: run packaging/release-tools.sh (pinned cargo-zigbuild and zig, from PyPI)");
    }
    targets::add_to_rustup(&root, &wanted)?;
    let mut cmd = Command::new("cargo-zigbuild");
    cmd.current_dir(&root).args(["check", "--quiet", "--locked", "-p", "hookhost-cli", "-p", "hookhost"]);
    for t in &wanted {
        cmd.args(["--target", t.triple]);
    }
    let names = wanted.iter().map(|t| t.triple).collect::<Vec<_>>().join(", ");
    eprintln!("xtask: type-checking {names}");
    let status = cmd.status().context("running cargo-zigbuild")?;
    if !status.success() {
        bail!("the type check failed for one of {names} ({status}); the errors above name the target");
    }
    Ok(())
}
