//! hookhost's project tasks, run as `cargo xtask <task>` (the alias in `.cargo/config.toml`).
//!
//! - `cargo xtask dist --key FILE [--target TRIPLE|all]`: the signed release artifacts
//!   (docs/RELEASING.md).

mod archive;
mod dist;
mod npm;
mod packaging;
mod sbom;
mod targets;

use clap::Parser;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "hookhost's project tasks")]
enum Task {
    /// Build the release: per target an archive and its SBOM; SHA256SUMS and its minisign
    /// signature; the installers; the npm packages; the Homebrew formula.
    Dist(dist::Args),
}

fn main() -> std::process::ExitCode {
    let result = match Task::parse() {
        Task::Dist(args) => dist::run(args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
