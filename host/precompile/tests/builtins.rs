//! The built-in plugins hookhost embeds are the checked-in components of `host/builtins/`.
//! This test builds them from source the way they were made — each plugin for its target
//! (`hookhost_guest_build::BUILTIN_GROUPS`), the bash adapter then pre-initialised by this
//! crate's `preinit` — and checks that the bytes are the same, file by file.
//!
//! With `HOOKHOST_BLESS=1` it writes what it built into `host/builtins/` (and the manifest)
//! instead: how a change to a plugin, the SDK, the WIT or the toolchain reaches the binary.

use hookhost_guest_build::{Manifest, BUILTINS_DIR};
use sha2::Digest as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

#[test]
fn the_checked_in_builtins_are_what_their_sources_build() {
    let root = root();
    let bless = std::env::var_os("HOOKHOST_BLESS").is_some_and(|v| v == "1");
    let target = hookhost_guest_build::workspace_target_dir(&root);
    let sources = hookhost_guest_build::sources_digest(&root).unwrap();
    let scratch = target.join("builtins-check");
    std::fs::create_dir_all(&scratch).unwrap();
    let mut built = Vec::new();
    for (name, path) in hookhost_guest_build::build_builtins(&root, &target) {
        let copy = scratch.join(format!("{name}.wasm"));
        std::fs::copy(&path, &copy).unwrap();
        built.push((name, copy));
    }
    // The bash adapter exports `wizer-initialize`; the others are left as built.
    let out = Command::new(env!("CARGO_BIN_EXE_hookhost-precompile")).arg("preinit").args(built.iter().map(|(_, p)| p)).output().unwrap();
    assert!(out.status.success(), "pre-initialising the built-ins: {}", String::from_utf8_lossy(&out.stderr));
    let fresh = Manifest {
        sources,
        builtins: built.iter().map(|(name, path)| (name.clone(), hookhost_guest_build::hex(&sha2::Sha256::digest(std::fs::read(path).unwrap())), format!("{name}.wasm"))).collect(),
    };
    if bless {
        let dir = root.join(BUILTINS_DIR);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, path) in &built {
            std::fs::copy(path, dir.join(format!("{name}.wasm"))).unwrap();
        }
        std::fs::write(Manifest::path(&root), fresh.render()).unwrap();
        eprintln!("wrote {} built-ins and their manifest into {}", built.len(), dir.display());
        return;
    }
    let checked_in = Manifest::read(&root).unwrap();
    let fix = "rebuild them with `HOOKHOST_BLESS=1 cargo test --workspace --test builtins` and commit host/builtins/";
    assert_eq!(checked_in.sources, fresh.sources, "the built-ins' sources changed since host/builtins/ was built: {fix}");
    for ((name, want, file), (_, got, _)) in checked_in.builtins.iter().zip(&fresh.builtins) {
        assert_eq!(want, got, "{name}: the checked-in {BUILTINS_DIR}/{file} is not what its sources build here: {fix}");
        let on_disk = hookhost_guest_build::hex(&sha2::Sha256::digest(std::fs::read(root.join(BUILTINS_DIR).join(file)).unwrap()));
        assert_eq!(&on_disk, want, "{BUILTINS_DIR}/{file} does not match its manifest line: `git checkout {BUILTINS_DIR}`, or {fix}");
    }
    assert_eq!(checked_in.builtins.len(), fresh.builtins.len(), "the manifest names {} built-ins, the sources build {}: {fix}", checked_in.builtins.len(), fresh.builtins.len());
}
