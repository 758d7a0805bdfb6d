//! Used by build scripts (the host's built-in plugins, the test fixtures) to build guest
//! components from source with a nested `cargo build --target wasm32-…` into a target
//! directory of their own, so the outer build's locks and flags never interfere.

#![deny(missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// How a guest is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// `wasm32-wasip2`: Rust std on WASI 0.2 (stdio, clocks, random, environment). What a hook
    /// needs when it uses WASI; std imports a dozen WASI interfaces and the component holds
    /// three core modules (the hook, the preview-1 adapter and its shims).
    Wasi,
    /// `wasm32-unknown-unknown`, linked into a component by the toolchain's own
    /// `wasm-component-ld`: one core module that imports only what the hook's WIT world names.
    /// A fresh instance of it is ~5 µs cheaper to create (docs/PERFORMANCE.md). std has no
    /// stdio, clock or randomness there; hookhost-sdk sends panics through `log` and gives the
    /// allocator a heap in the initial memory.
    Lean,
}

impl Target {
    /// The Rust target triple (`wasm32-wasip2`, `wasm32-unknown-unknown`).
    pub fn triple(self) -> &'static str {
        match self {
            Target::Wasi => "wasm32-wasip2",
            Target::Lean => "wasm32-unknown-unknown",
        }
    }

    /// The `--config` values of a nested build for this target.
    fn cargo_config(self) -> Vec<String> {
        let triple = self.triple();
        // A 128 KiB shadow stack instead of rustc's 1 MiB default keeps everything a small hook
        // touches within the first few hundred KiB of its memory, which the host's pool keeps
        // resident between instances (no page faults per call). Overflow still traps: the stack
        // sits below the data (`--stack-first`).
        let stack = format!("\"-Clink-arg=-zstack-size={GUEST_STACK}\"");
        match self {
            Target::Wasi => vec![format!("target.{triple}.rustflags=[{stack}]")],
            // getrandom (pulled in by bashkit) has no source of randomness on this target; the
            // hooks built this way never ask it for any.
            Target::Lean => vec![
                format!("target.{triple}.linker=\"wasm-component-ld\""),
                format!("target.{triple}.rustflags=[{stack}, \"--cfg\", \"getrandom_backend=\\\"unsupported\\\"\"]"),
            ],
        }
    }
}

/// Shadow-stack size of the guests built here (see `Target::cargo_config`).
pub const GUEST_STACK: usize = 128 << 10;

/// Make sure the wasm target is installed. rustup does not install the toolchain file's
/// targets by itself on every machine (`RUSTUP_AUTO_INSTALL=0`), so ask it explicitly.
pub fn ensure_target(target: Target) {
    let triple = target.triple();
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let libdir = Command::new(&rustc).args(["--print", "target-libdir", "--target", triple]).output();
    let installed = matches!(&libdir, Ok(out) if out.status.success() && Path::new(String::from_utf8_lossy(&out.stdout).trim()).exists());
    if installed {
        return;
    }
    let status = Command::new("rustup").args(["target", "add", triple]).status();
    match status {
        Ok(s) if s.success() => {}
        other => panic!("the {triple} target is missing and `rustup target add {triple}` failed ({other:?}); install it by hand"),
    }
}

/// The workspace's target directory, as the outer cargo sees it.
pub fn workspace_target_dir(workspace_root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| workspace_root.join("target"))
}

/// Build `packages` of the workspace at `manifest` (release, for `target`) into `target_dir`
/// and return `(package, path to its .wasm)` for each.
pub fn build(manifest: &Path, packages: &[&str], target: Target, target_dir: &Path) -> Vec<(String, PathBuf)> {
    ensure_target(target);
    let triple = target.triple();
    let mut cmd = nested_cargo();
    cmd.arg("build").arg("--release").arg("--target").arg(triple).arg("--manifest-path").arg(manifest).arg("--target-dir").arg(target_dir);
    for p in packages {
        cmd.arg("-p").arg(p);
    }
    for value in target.cargo_config() {
        cmd.arg("--config").arg(value);
    }
    // The workspace's release profile is the shipped host binary's (whole-program LTO, one code
    // unit: minutes of linking). The guests keep cargo's default release settings, so a test
    // build (which builds them) takes no longer and the built-ins stay as the suite measures them.
    cmd.args(["--config", "profile.release.lto=false", "--config", "profile.release.codegen-units=16"]);
    let status = cmd.status().unwrap_or_else(|e| panic!("could not run cargo to build guests: {e}"));
    assert!(status.success(), "building guest components {packages:?} for {triple} failed; see the cargo output above");
    packages
        .iter()
        .map(|p| {
            let file = target_dir.join(triple).join("release").join(format!("{}.wasm", p.replace('-', "_")));
            assert!(file.exists(), "guest {p} built but {} is missing", file.display());
            (p.to_string(), file)
        })
        .collect()
}

/// The cargo running this build, for a nested invocation: without what the outer build sets for
/// itself (its flags, jobserver and wrappers are for another target and target directory).
fn nested_cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "CARGO_BUILD_TARGET_DIR",
        "CARGO_MAKEFLAGS",
        "MAKEFLAGS",
        "MFLAGS",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_LLVM_COV",
        "CARGO_PRIMARY_PACKAGE",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// Build `hookhost-precompile` from the workspace at `manifest`, for this machine, into
/// `target_dir` (a directory of its own: the outer build holds its own directory's lock), and
/// return the tool's path. It needs nothing from the guests, so it can build while they do.
pub fn build_precompiler(manifest: &Path, target_dir: &Path) -> PathBuf {
    let mut cmd = nested_cargo();
    cmd.args(["build", "-p", "hookhost-precompile", "--manifest-path"]).arg(manifest).arg("--target-dir").arg(target_dir);
    // Its wasmtime and cranelift at opt-level 1, not the workspace's 3: the tool runs once per
    // build, and its output is the same either way. Measured alone on 2 cores: 317 s to build
    // instead of 388 s, 21.8 s to compile the three built-ins instead of 17.6 s.
    cmd.args(["--config", "profile.dev.package.\"*\".opt-level=1"]);
    let status = cmd.status().unwrap_or_else(|e| panic!("could not run cargo to build hookhost-precompile: {e}"));
    assert!(status.success(), "building hookhost-precompile failed; see the cargo output above");
    target_dir.join("debug").join("hookhost-precompile")
}

/// Compile `components` (`(name, path)`) ahead of time with the `tool` [`build_precompiler`]
/// made, and write `out/<name>.cwasm.zst` for each. Returns `(name, path of the packed code)`.
pub fn precompile(tool: &Path, components: &[(String, PathBuf)], out: &Path) -> Vec<(String, PathBuf)> {
    let mut run = Command::new(tool);
    run.arg(out);
    for (name, path) in components {
        run.arg(format!("{name}={}", path.display()));
    }
    let status = run.status().unwrap_or_else(|e| panic!("could not run {}: {e}", tool.display()));
    assert!(status.success(), "precompiling the built-in plugins failed; see the output above");
    components.iter().map(|(name, _)| (name.clone(), out.join(format!("{name}.cwasm.zst")))).collect()
}

/// Tell cargo to rerun the build script when anything under these paths changes.
pub fn rerun_if_changed(paths: &[PathBuf]) {
    for p in paths {
        println!("cargo:rerun-if-changed={}", p.display());
    }
}
