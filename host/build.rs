//! Embeds the built-in plugins in the binary: the checked-in, reproducible components of
//! `host/builtins/` (built from `plugins/*` — the bash adapter pre-initialised — by
//! `HOOKHOST_BLESS=1 cargo test --workspace --test builtins`, which without
//! `HOOKHOST_BLESS` checks that they are what the sources build). A build compiles no guest.
//!
//! In a release build with the `precompiled-builtins` feature (what `cargo install` makes),
//! their code compiled ahead of time is embedded too, so the first use of a built-in maps code
//! instead of compiling it (seconds and hundreds of MB for the bash adapter). That takes a
//! second, compile-only wasmtime build (`target/precompile`), which debug and test builds skip:
//! there a built-in compiles on first use, once per precompile cache.

use hookhost_guest_build::Manifest;
use std::path::{Path, PathBuf};

fn main() {
    // LMDB (the hooks' state store) calls advapi32 on Windows; lmdb-master-sys links it only when
    // its build script runs on Windows, so a cross build from Linux would not (a dynamic library
    // of this crate is linked after every crate's objects, where LMDB's need it).
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("windows") {
        println!("cargo:rustc-link-lib=advapi32");
    }
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = manifest_dir.parent().unwrap().to_path_buf();
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let builtins_dir = root.join(hookhost_guest_build::BUILTINS_DIR);
    hookhost_guest_build::rerun_if_changed(&[builtins_dir.clone()]);
    let manifest = Manifest::read(&root).unwrap_or_else(|e| panic!("{e}: host/builtins/ is part of the source tree; restore it with `git checkout host/builtins`"));
    // A change to a built-in's sources is not in the binary until the components are rebuilt:
    // say so on every build until they are (the check in CI fails on it too).
    hookhost_guest_build::rerun_if_changed(&hookhost_guest_build::BUILTIN_SOURCES.iter().map(|s| root.join(s)).collect::<Vec<_>>());
    match hookhost_guest_build::sources_digest(&root) {
        Ok(digest) if digest == manifest.sources => {}
        Ok(_) => println!("cargo:warning=the built-in plugins' sources changed since host/builtins/ was built: this build embeds the old components; rebuild them with `HOOKHOST_BLESS=1 cargo test --workspace --test builtins`"),
        Err(e) => println!("cargo:warning=cannot read the built-in plugins' sources ({e}); embedding host/builtins/ as it is"),
    }
    let built: Vec<(String, PathBuf)> = manifest
        .builtins
        .iter()
        .map(|(name, digest, file)| {
            let path = builtins_dir.join(file);
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("reading the built-in plugin {}: {e}; restore it with `git checkout host/builtins`", path.display()));
            let actual = hookhost_guest_build::hex(&<sha2::Sha256 as sha2::Digest>::digest(&bytes));
            assert!(actual == *digest, "{} has SHA-256 {actual}, not the {digest} host/builtins/MANIFEST names: restore it with `git checkout host/builtins`, or rebuild the built-ins with `HOOKHOST_BLESS=1 cargo test --workspace --test builtins`", path.display());
            (name.clone(), path)
        })
        .collect();

    // The code is compiled for the machine that builds: useless to a cross-compiled binary
    // (wasmtime would refuse it there and compile anyway), so not embedded in one.
    let native = std::env::var("TARGET").ok() == std::env::var("HOST").ok();
    let release = std::env::var("PROFILE").as_deref() == Ok("release");
    // `HOOKHOST_PRECOMPILER`: a `hookhost-precompile` already built (the test build's), used
    // instead of building one, in any profile: how CI checks this path — the embedded code a
    // binary maps on a built-in's first use — without a release build (.ci/run).
    println!("cargo:rerun-if-env-changed=HOOKHOST_PRECOMPILER");
    let given = std::env::var_os("HOOKHOST_PRECOMPILER").filter(|t| !t.is_empty()).map(PathBuf::from);
    let precompiled = match (std::env::var_os("CARGO_FEATURE_PRECOMPILED_BUILTINS").is_some() && (release || given.is_some()), native) {
        (true, true) => {
            hookhost_guest_build::rerun_if_changed(&[manifest_dir.join("precompile"), manifest_dir.join("src/compile_settings.rs")]);
            let tool = given.unwrap_or_else(|| {
                let target_dir = hookhost_guest_build::workspace_target_dir(&root);
                hookhost_guest_build::build_precompiler(&root.join("Cargo.toml"), &target_dir.join("precompile"))
            });
            hookhost_guest_build::precompile(&tool, &built, &out_dir)
        }
        (true, false) => {
            println!("cargo:warning=cross-compiling: the built-in plugins are not precompiled (they compile on first use)");
            Vec::new()
        }
        (false, _) => Vec::new(),
    };
    // The digests are those of the manifest, checked above: loading a built-in never hashes it
    // at run time (13 MB for the bash adapter: ~8 ms, most of a cached load).
    let mut code = String::from(
        "/// Built-in plugins: (name, component bytes, hex sha256, its code compiled at build time and\n/// zstd-packed, or empty).\npub static BUILTINS: &[(&str, &[u8], &str, &[u8])] = &[\n",
    );
    for ((name, path), (_, digest, _)) in built.iter().zip(&manifest.builtins) {
        let packed = match precompiled.iter().find(|(n, _)| n == name) {
            Some((_, file)) => format!("include_bytes!({:?})", file.display().to_string()),
            None => "&[]".to_string(),
        };
        code.push_str(&format!("    ({name:?}, include_bytes!({:?}), {digest:?}, {packed}),\n", absolute(path).display().to_string()));
    }
    code.push_str("];\n");
    std::fs::write(out_dir.join("builtins.rs"), code).unwrap();
}

fn absolute(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
