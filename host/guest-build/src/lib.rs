//! Builds guest components from source with a nested `cargo build --target wasm32-…` into a
//! target directory of their own, so the outer build's locks and flags never interfere: the test
//! fixtures (tests/build.rs), and the built-in plugins — which the host embeds from the
//! checked-in, reproducible copies in `host/builtins/` ([`Manifest`]); the check that those are
//! what their sources build is `host/precompile/tests/builtins.rs`.

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

    /// The `--config` values of a nested build for this target, of the workspace at `root`
    /// into `target_dir`.
    fn cargo_config(self, root: &Path, target_dir: &Path) -> Vec<String> {
        let triple = self.triple();
        // A 128 KiB shadow stack instead of rustc's 1 MiB default keeps everything a small hook
        // touches within the first few hundred KiB of its memory, which the host's pool keeps
        // resident between instances (no page faults per call). Overflow still traps: the stack
        // sits below the data (`--stack-first`).
        let mut flags = vec![format!("-Clink-arg=-zstack-size={GUEST_STACK}")];
        // Where the sources were on the machine that built it must not show in the component
        // (panic locations name files): the same sources build the same bytes anywhere, which
        // is what lets `host/builtins/` be checked in and checked. The last matching prefix wins.
        let cargo_home = std::env::var_os("CARGO_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
        // A crate from a registry is named short (`/r/serde_json-1.0.154/src/read.rs`): each
        // panic location is data in the guest's memory, which every call resets (the guard's
        // is kept to three pages).
        let registries: Vec<PathBuf> = cargo_home.iter().flat_map(|h| std::fs::read_dir(h.join("registry/src")).into_iter().flatten()).filter_map(|e| e.ok().map(|e| e.path())).collect();
        let remaps = [(Some(root.to_path_buf()), "/hookhost"), (cargo_home, "/cargo")].into_iter().chain(registries.into_iter().map(|r| (Some(r), "/r"))).chain([(Some(target_dir.to_path_buf()), "/target")]);
        for (from, to) in remaps {
            if let Some(from) = from {
                flags.push(format!("--remap-path-prefix={}={to}", from.display()));
            }
        }
        if self == Target::Lean {
            // getrandom (pulled in by bashkit) has no source of randomness on this target; the
            // hooks built this way never ask it for any.
            flags.extend(["--cfg".to_string(), "getrandom_backend=\"unsupported\"".to_string()]);
        }
        let flags: Vec<String> = flags.iter().map(|f| toml_string(f)).collect();
        let mut config = vec![format!("target.{triple}.rustflags=[{}]", flags.join(", "))];
        if self == Target::Lean {
            config.push(format!("target.{triple}.linker=\"wasm-component-ld\""));
        }
        config
    }
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    let mut out = String::from('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
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
    let root = manifest.parent().unwrap_or(Path::new("."));
    for value in target.cargo_config(root, target_dir) {
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
    run.arg("compile").arg(out);
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

/// The built-in plugins, by how they are built. The bash adapter enables the SDK's `process`
/// feature, which must not unify into the other plugins (they must not import `process`), so
/// each group is a cargo invocation of its own. The guard and the redactor run on every tool
/// call of the default config and need nothing from WASI, so they are built lean (one core
/// module, no WASI imports: a cheaper fresh instance); the adapter's shell uses WASI (clock,
/// randomness) and stays on wasip2.
pub const BUILTIN_GROUPS: &[(&[&str], Target)] = &[(&["guard-destructive", "redact-secrets"], Target::Lean), (&["bash-adapter"], Target::Wasi)];

/// Where the built-ins' checked-in components and their [`Manifest`] are, under the workspace.
pub const BUILTINS_DIR: &str = "host/builtins";

/// What the built-ins are built from, under the workspace root: their crates and what those
/// use of the workspace, the WIT, the toolchain, and how they are built and pre-initialised.
/// (Cargo.lock is not among them: a change to it that reaches a guest shows as a digest the
/// check no longer matches.)
pub const BUILTIN_SOURCES: &[&str] = &[
    "plugins/guard-destructive",
    "plugins/redact-secrets",
    "plugins/bash-adapter",
    "plugins/shell-parse",
    "plugins/secret-scan",
    "crates/types",
    "guest-sdk/Cargo.toml",
    "guest-sdk/src",
    // The contract the guests' bindings read (`guest-sdk` builds against the newest,
    // `wit/0.3.0/`); the older versions under `wit/` are the host's.
    "wit/0.3.0/hooks.wit",
    "rust-toolchain.toml",
    "host/guest-build/src/lib.rs",
    "host/precompile/src/preinit.rs",
];

/// The SHA-256 of [`BUILTIN_SOURCES`] under `root`: every file's path (relative, `/`-separated)
/// and contents, in path order; `target` directories are skipped.
pub fn sources_digest(root: &Path) -> std::io::Result<String> {
    use sha2::Digest as _;
    fn walk(root: &Path, path: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
        let meta = std::fs::symlink_metadata(path)?;
        if meta.is_dir() {
            for entry in std::fs::read_dir(path)? {
                let entry = entry?;
                if entry.file_name() != "target" {
                    walk(root, &entry.path(), files)?;
                }
            }
        } else if meta.is_file() {
            files.push(path.strip_prefix(root).unwrap_or(path).to_path_buf());
        }
        Ok(())
    }
    let mut files = Vec::new();
    for source in BUILTIN_SOURCES {
        walk(root, &root.join(source), &mut files)?;
    }
    let mut names: Vec<(String, PathBuf)> = files.into_iter().map(|f| (f.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/"), f)).collect();
    names.sort();
    let mut hash = sha2::Sha256::new();
    for (name, file) in names {
        let bytes = std::fs::read(root.join(&file))?;
        hash.update((name.len() as u64).to_le_bytes());
        hash.update(name.as_bytes());
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(&bytes);
    }
    Ok(hex(&hash.finalize()))
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `host/builtins/MANIFEST`: the digest of the sources the checked-in built-ins were built
/// from, and each built-in's file and SHA-256.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// [`sources_digest`] when the components were built.
    pub sources: String,
    /// `(name, sha256, file name under host/builtins)`, in [`BUILTIN_GROUPS`] order.
    pub builtins: Vec<(String, String, String)>,
}

impl Manifest {
    /// The manifest's file under the workspace `root`.
    pub fn path(root: &Path) -> PathBuf {
        root.join(BUILTINS_DIR).join("MANIFEST")
    }

    /// Read and parse the manifest under `root`.
    pub fn read(root: &Path) -> Result<Manifest, String> {
        let path = Manifest::path(root);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
        let mut sources = None;
        let mut builtins = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            match fields.as_slice() {
                ["sources", digest] => sources = Some(digest.to_string()),
                ["builtin", name, digest, file] => builtins.push((name.to_string(), digest.to_string(), file.to_string())),
                _ => return Err(format!("{}:{}: expected `sources DIGEST` or `builtin NAME SHA256 FILE`, found {line:?}", path.display(), n + 1)),
            }
        }
        let sources = sources.ok_or_else(|| format!("{}: no `sources` line", path.display()))?;
        Ok(Manifest { sources, builtins })
    }

    /// The manifest as its file holds it.
    pub fn render(&self) -> String {
        let mut text = String::from(
            "# The built-in plugins embedded in hookhost, built from source by\n\
             # `HOOKHOST_BLESS=1 cargo test --workspace --test builtins` (which, without\n\
             # HOOKHOST_BLESS, checks that the files below are what the sources build). Do not edit.\n",
        );
        text.push_str(&format!("sources {}\n", self.sources));
        for (name, digest, file) in &self.builtins {
            text.push_str(&format!("builtin {name} {digest} {file}\n"));
        }
        text
    }
}

/// Build every built-in from source (the groups of [`BUILTIN_GROUPS`] one after another, into
/// `target_dir/guests`) and return `(name, path)` in their order.
pub fn build_builtins(root: &Path, target_dir: &Path) -> Vec<(String, PathBuf)> {
    let manifest = root.join("Cargo.toml");
    // One target directory for every group, one group after another: the groups' wasm differs
    // (other triples, other features), but their proc macros and build scripts (wit-bindgen's,
    // serde's, ~60 crates for the machine) are the same and then compile once. The directory
    // does not show in the bytes (`--remap-path-prefix`).
    let dir = target_dir.join("guests");
    BUILTIN_GROUPS.iter().flat_map(|(group, target)| build(&manifest, group, *target, &dir)).collect()
}
