//! Builds the built-in plugins (`plugins/*`) from source and embeds them in the binary — and,
//! with the `precompiled-builtins` feature, their code compiled ahead of time, so the first
//! use of a built-in maps code instead of compiling it (seconds and hundreds of MB for the bash
//! adapter).

use hookhost_guest_build::Target;
use sha2::Digest as _;
use std::path::PathBuf;

/// Built in separate cargo invocations: the bash adapter enables the SDK's `process` feature,
/// which must not unify into the other plugins (they must not import `process`). The guard and
/// the redactor run on every tool call of the default config and need nothing from WASI, so
/// they are built lean (one core module, no WASI imports: a cheaper fresh instance); the
/// adapter's shell uses WASI (clock, randomness) and stays on wasip2.
const BUILTINS: &[(&[&str], Target)] = &[(&["guard-destructive", "redact-secrets"], Target::Lean), (&["bash-adapter"], Target::Wasi)];

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest_dir.parent().unwrap().to_path_buf();
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    hookhost_guest_build::rerun_if_changed(&[root.join("plugins"), root.join("guest-sdk"), root.join("wit")]);
    let target_dir = hookhost_guest_build::workspace_target_dir(&root);
    let manifest = root.join("Cargo.toml");
    // The code is compiled for the machine that builds: useless to a cross-compiled binary
    // (wasmtime would refuse it there and compile anyway), so not embedded in one.
    let native = std::env::var("TARGET").ok() == std::env::var("HOST").ok();
    let precompile = match (std::env::var_os("CARGO_FEATURE_PRECOMPILED_BUILTINS").is_some(), native) {
        (true, true) => {
            hookhost_guest_build::rerun_if_changed(&[manifest_dir.join("precompile"), manifest_dir.join("src/compile_settings.rs")]);
            true
        }
        (true, false) => {
            println!("cargo:warning=cross-compiling: the built-in plugins are not precompiled (they compile on first use)");
            false
        }
        (false, _) => false,
    };
    // Three nested builds that need nothing from one another — the lean guests, the wasip2
    // guest, the precompile tool (a compile-only wasmtime) — each in a target directory of its
    // own, at the same time: they take turns on the cores instead of queueing behind one lock.
    // rustup is asked for missing targets here, one at a time, before the builds start.
    for (_, target) in BUILTINS {
        hookhost_guest_build::ensure_target(*target);
    }
    let (built, tool) = std::thread::scope(|s| {
        let tool = precompile.then(|| s.spawn(|| hookhost_guest_build::build_precompiler(&manifest, &target_dir.join("precompile"))));
        let groups: Vec<_> = BUILTINS
            .iter()
            .map(|(group, target)| {
                let dir = target_dir.join(match target {
                    Target::Lean => "guests-lean",
                    Target::Wasi => "guests",
                });
                let manifest = &manifest;
                s.spawn(move || hookhost_guest_build::build(manifest, group, *target, &dir))
            })
            .collect();
        let built: Vec<_> = groups.into_iter().flat_map(|g| g.join().expect("a guest build panicked; see its message above")).map(|built| private_copy(built, &out_dir)).collect();
        (built, tool.map(|t| t.join().expect("building the precompile tool panicked; see its message above")))
    });
    let precompiled = match tool {
        Some(tool) => hookhost_guest_build::precompile(&tool, &built, &out_dir),
        None => Vec::new(),
    };
    // The digests are computed here so that loading a built-in never hashes it at run time
    // (12 MB for the bash adapter: ~8 ms, most of a cached load).
    let mut code = String::from("/// Built-in plugins: (name, component bytes, hex sha256, its code compiled at build time and\n/// zstd-packed, or empty).\npub static BUILTINS: &[(&str, &[u8], &str, &[u8])] = &[\n");
    for (name, path) in built {
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("reading the built plugin {}: {e}", path.display()));
        let digest: String = sha2::Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        let packed = match precompiled.iter().find(|(n, _)| *n == name) {
            Some((_, file)) => format!("include_bytes!({:?})", file.display().to_string()),
            None => "&[]".to_string(),
        };
        code.push_str(&format!("    ({name:?}, include_bytes!({:?}), {digest:?}, {packed}),\n", path.display().to_string()));
    }
    code.push_str("];\n");
    std::fs::write(out_dir.join("builtins.rs"), code).unwrap();
}

/// A copy of a built plugin in this script's own `OUT_DIR`, which is what gets embedded and
/// hashed: nothing else writes there, so the embedded bytes and their digest cannot drift apart
/// (another build sharing the guests' target directory may rewrite the original). Watching the
/// original instead (`rerun-if-changed`) made every build after a guest rebuild run this
/// script again, since the file is newer than the script's start.
fn private_copy((name, built): (String, PathBuf), out_dir: &std::path::Path) -> (String, PathBuf) {
    let copy = out_dir.join(format!("{name}.wasm"));
    std::fs::copy(&built, &copy).unwrap_or_else(|e| panic!("copying the built plugin {} to {}: {e}", built.display(), copy.display()));
    (name, copy)
}
