//! hookhost's project tasks, run as `cargo xtask <task>` (the alias in `.cargo/config.toml`).
//!
//! - `cargo xtask dist --key FILE [--target TRIPLE|all]`: the signed release artifacts
//!   (docs/RELEASING.md).
//! - `cargo xtask check [--target TRIPLE|all]`: every release target (default: all but this
//!   machine's) type-checks, without building (CI runs it).
//! - `cargo xtask smoke [--target TRIPLE] [--bin-dir DIR]`: the smoke test of one target's
//!   binaries, run natively, under qemu-user or under wine.

mod archive;
mod check;
mod dist;
mod npm;
mod packaging;
mod sbom;
mod smoke;
mod targets;

use clap::Parser;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "hookhost's project tasks")]
enum Task {
    /// Build the release: per target an archive and its SBOM; SHA256SUMS and its minisign
    /// signature; the installers; the npm packages; the Homebrew formula.
    Dist(dist::Args),
    /// Type-check the library and both binaries for release targets (default: every one but
    /// this machine's), without building them: what CI runs.
    Check(check::Args),
    /// Smoke-test one target's binaries here: natively, under qemu-user (Linux arm64) or wine
    /// (Windows).
    Smoke {
        /// The target (default: this machine's).
        #[arg(long, value_name = "TRIPLE")]
        target: Option<String>,
        /// The directory holding its `hookhost` and `hookhost-send` (default: its release build,
        /// target/TRIPLE/release).
        #[arg(long, value_name = "DIR")]
        bin_dir: Option<std::path::PathBuf>,
    },
}

fn main() -> std::process::ExitCode {
    let result = match Task::parse() {
        Task::Dist(args) => dist::run(args),
        Task::Check(args) => check::run(args),
        Task::Smoke { target, bin_dir } => dist::smoke(target, bin_dir),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
