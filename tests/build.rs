//! Builds the test-only guests (tests/guests, their own workspace) and generates a path
//! constant per fixture. A fixture that no test under tests/tests/ names fails the build.

use hookhost_guest_build::Target;
use std::path::PathBuf;

/// Built together; `process-user` (which enables the SDK's `process` feature) separately, so that
/// feature does not leak into the others; `lean` for wasm32-unknown-unknown, as the built-in
/// guard and redactor are.
const FIXTURES: &[(&[&str], Target)] = &[
    (&["scripted", "hostile", "wrong-world", "start-loop", "big-memory", "future-wit", "foreign-import", "contract-v0-2", "contract-v0-3"], Target::Wasi),
    (&["process-user"], Target::Wasi),
    (&["lean", "remember", "remember-not"], Target::Lean),
];

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let root = dir.parent().unwrap();
    let guests = dir.join("guests");
    hookhost_guest_build::rerun_if_changed(&[guests.join("Cargo.toml"), guests.join("scripted"), guests.join("hostile"), guests.join("wrong-world"), guests.join("process-user"), guests.join("start-loop"), guests.join("big-memory"), guests.join("future-wit"), guests.join("contract-v0-2"), guests.join("contract-v0-3"), guests.join("foreign-import"), guests.join("lean"), guests.join("remember"), guests.join("remember-not"), dir.join("tests"), root.join("guest-sdk"), root.join("wit")]);
    let target = hookhost_guest_build::workspace_target_dir(root).join("test-guests");
    let built: Vec<_> = FIXTURES.iter().flat_map(|(group, kind)| hookhost_guest_build::build(&guests.join("Cargo.toml"), group, *kind, &target)).collect();

    fn read_all(dir: &std::path::Path, text: &mut String) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                read_all(&path, text);
            } else {
                text.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    let mut tests_text = String::new();
    read_all(&dir.join("tests"), &mut tests_text);
    let mut code = String::new();
    for (name, path) in built {
        let constant = name.replace('-', "_").to_uppercase();
        assert!(
            tests_text.contains(&format!("fixtures::{constant}")),
            "test fixture {name} is not used by any test in tests/tests/ (reference fixtures::{constant}) — add a test or remove the fixture"
        );
        code.push_str(&format!("/// The `{name}` test guest.\npub const {constant}: &str = {:?};\n", path.display().to_string()));
    }
    code.push_str(&format!("/// A precompile cache for tests.\npub const CACHE_DIR: &str = {:?};\n", target.join("cache").display().to_string()));
    std::fs::write(PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("fixtures.rs"), code).unwrap();
}
