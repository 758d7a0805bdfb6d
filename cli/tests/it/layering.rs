//! The crates' dependencies point one way: types ← config ← bundle ← hookhost ← cli. Only the
//! CLI depends on clap or tracing-subscriber (bashkit, whose parser the guard and the Claude
//! `if` rules use, links clap for its own builtins: that is the one path allowed); types and
//! config pull in no wasmtime and no network stack. Checked with `cargo tree` on the real
//! dependency graph.

use std::process::Command;

/// The normal (non-dev, non-build) dependencies of `package`, transitively, by crate name.
fn tree(package: &str, features: &[&str]) -> Vec<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut cmd = Command::new(env!("CARGO"));
    cmd.current_dir(root).args(["tree", "-q", "-p", package, "-e", "normal", "--prefix", "none", "--format", "{p}"]);
    cmd.args(features);
    let out = cmd.output().expect("run cargo tree");
    assert!(out.status.success(), "cargo tree -p {package}: {}", String::from_utf8_lossy(&out.stderr));
    let mut names: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().filter_map(|l| l.split_whitespace().next().map(str::to_string)).collect();
    names.sort();
    names.dedup();
    names
}

fn has(names: &[String], name: &str) -> bool {
    names.iter().any(|n| n == name)
}

/// The crates that depend on `dependency` directly, in `package`'s graph (empty if none).
fn dependents(package: &str, dependency: &str) -> Vec<String> {
    if !has(&tree(package, &[]), dependency) {
        return Vec::new();
    }
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let out = Command::new(env!("CARGO"))
        .current_dir(root)
        .args(["tree", "-q", "-p", package, "-e", "normal", "-i", dependency, "--depth", "1", "--prefix", "none", "--format", "{p}"])
        .output()
        .expect("run cargo tree");
    let mut names: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().skip(1).filter_map(|l| l.split_whitespace().next().map(str::to_string)).collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn dependencies_point_one_way() {
    let types = tree("hookhost-types", &[]);
    for forbidden in ["hookhost-config", "hookhost-bundle", "hookhost", "wasmtime", "reqwest", "tracing-subscriber"] {
        assert!(!has(&types, forbidden), "hookhost-types depends on {forbidden}");
    }
    let config = tree("hookhost-config", &[]);
    assert!(has(&config, "hookhost-types"));
    for forbidden in ["hookhost-bundle", "hookhost", "wasmtime", "reqwest", "oci-client", "tracing-subscriber"] {
        assert!(!has(&config, forbidden), "hookhost-config depends on {forbidden}");
    }
    let bundle = tree("hookhost-bundle", &[]);
    assert!(has(&bundle, "hookhost-config"));
    for forbidden in ["hookhost", "wasmtime", "tracing-subscriber"] {
        assert!(!has(&bundle, forbidden), "hookhost-bundle depends on {forbidden}");
    }
    let library = tree("hookhost", &[]);
    assert!(has(&library, "hookhost-bundle") && has(&library, "wasmtime"));
    for forbidden in ["hookhost-cli", "tracing-subscriber", "guard-destructive", "criterion"] {
        assert!(!has(&library, forbidden), "the hookhost library depends on {forbidden}");
    }
    // An embedder can leave bundles (and the network stack) out.
    let lean = tree("hookhost", &["--no-default-features"]);
    for forbidden in ["hookhost-bundle", "oci-client", "reqwest", "minisign"] {
        assert!(!has(&lean, forbidden), "hookhost without default features depends on {forbidden}");
    }
    for library in ["hookhost-types", "hookhost-config", "hookhost-bundle", "hookhost"] {
        let via = dependents(library, "clap");
        assert!(via.iter().all(|d| d == "bashkit"), "{library} reaches clap through {via:?}, not only bashkit's builtins");
    }
    let cli = tree("hookhost-cli", &[]);
    assert!(has(&cli, "clap") && has(&cli, "hookhost"));
}
