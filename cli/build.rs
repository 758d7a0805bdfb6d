//! Name the commit and target in `hookhost --version`, and link the binaries with packed
//! relative relocations (DT_RELR) on Linux with glibc: a PIE
//! binary this size carries ~62,000 relative relocations (1.5 MB of `.rela.dyn`) that the
//! dynamic loader reads at every start; packed they are 16 KB. Each `hookhost run` a runtime
//! spawns starts ~0.3 ms sooner here (docs/PERFORMANCE.md), and the binary stays
//! position-independent (ASLR). GNU ld ≥ 2.38 and lld apply it only when the C library
//! supports it (glibc ≥ 2.36) and ignore it otherwise. `HOOKHOST_RELR=0` leaves it out: the
//! release builds (`cargo xtask dist`) link against glibc 2.28 with zig, whose linker would
//! pack them for a loader that cannot read them.
fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    println!("cargo:rerun-if-env-changed=HOOKHOST_RELR");
    if os == "linux" && env == "gnu" && std::env::var("HOOKHOST_RELR").as_deref() != Ok("0") {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
    // `hookhost --version`: the commit and target this binary was built from.
    let target = std::env::var("TARGET").unwrap_or_default();
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=HOOKHOST_TARGET={target}");
    println!("cargo:rustc-env=HOOKHOST_COMMIT={commit}");
    // A new commit (or a switched branch) builds a binary that says so.
    let git = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("../.git");
    for f in ["HEAD", "refs"] {
        if git.join(f).exists() {
            println!("cargo:rerun-if-changed={}", git.join(f).display());
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
