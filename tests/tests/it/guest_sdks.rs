//! The Python and JavaScript guest SDK helpers, tested natively (no component is built): the
//! Python helpers against the types componentize-py really generates for the `hook` world,
//! the JavaScript helpers under node's test runner. Under `CI=true` a missing toolchain fails.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn ok(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(out.status.success(), "{what} failed:\n{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

#[test]
fn python_helpers_build_the_generated_types() {
    if !hookhost_tests::have("python3") || !hookhost_tests::have("componentize-py") {
        return;
    }
    let bindings = tempfile::tempdir().unwrap();
    ok(Command::new("componentize-py").arg("-d").arg(root().join(format!("wit/{}", hookhost_types::NEWEST.version))).args(["-w", "hook", "bindings"]).arg(bindings.path()), "componentize-py bindings");
    let sdk = root().join("guest-sdk/python");
    let path = std::env::join_paths([bindings.path(), sdk.as_path()]).unwrap();
    ok(Command::new("python3").args(["-m", "unittest", "discover", "-s", "tests", "-v"]).current_dir(&sdk).env("PYTHONPATH", path), "python3 -m unittest");
}

#[test]
fn javascript_helpers_pass_nodes_test_runner() {
    if !hookhost_tests::have("node") {
        return;
    }
    ok(Command::new("node").args(["--test", "test/"]).current_dir(root().join("guest-sdk/js")), "node --test");
}
