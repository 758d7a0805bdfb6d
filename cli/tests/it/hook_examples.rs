//! The example hook in every language, made the way a new author makes it — `hookhost new
//! --lang L`, then the project's own `build.sh` with its pinned toolchain — must pass the shared
//! scenarios, all must agree on every outcome, and each must pack into a signed bundle. JavaScript is
//! built twice, with each engine `build.sh` offers: QuickJS (componentize-qjs, the default) and
//! SpiderMonkey (componentize-js, driven through its JavaScript API). Under
//! `CI=true` a missing toolchain fails (.ci/run installs them); elsewhere the language is skipped,
//! loudly.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The builds (`hookhost new` language, then `-` and a `JS_ENGINE` where it is not the
/// default), with the host tools each needs.
const LANGS: [(&str, &[&str]); 5] = [
    ("rust", &["cargo", "rustup"]),
    ("python", &["python3"]),
    ("js", &["node", "npm"]),
    ("js-spidermonkey", &["node", "npm"]),
    ("c", &["clang-19", "cargo", "curl", "sha256sum"]),
];

fn work_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("hook-examples")
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{what} failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

/// `hookhost new --lang L`, then `./build.sh`; the project directory.
fn new_and_build(lang: &str) -> PathBuf {
    let project = work_dir().join(format!("guard-{lang}"));
    let _ = std::fs::remove_dir_all(&project);
    std::fs::create_dir_all(work_dir()).unwrap();
    let (language, engine) = lang.split_once('-').map_or((lang, None), |(l, e)| (l, Some(e)));
    run(crate::common::bin(env!("CARGO_BIN_EXE_hookhost")).args(["new", "--lang", language]).arg(&project), &format!("hookhost new --lang {language}"));
    let mut build = Command::new("./build.sh");
    build.current_dir(&project);
    if let Some(engine) = engine {
        build.env("JS_ENGINE", engine);
    }
    // Rust: keep the build outputs between runs, outside the throwaway project.
    build.env("CARGO_TARGET_DIR", work_dir().join("rust-target"));
    run(&mut build, &format!("{lang}: ./build.sh"));
    assert!(project.join("hook.wasm").is_file(), "{lang}: build.sh wrote no hook.wasm");
    project
}

/// The project as a signed bundle, the way its `bundle.toml` says: pack, sign with a new key,
/// verify.
fn pack_and_sign(lang: &str, project: &Path) {
    let hookhost = || {
        let mut c = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"));
        c.current_dir(project);
        c
    };
    run(hookhost().args(["bundle", "pack", "."]), &format!("{lang}: hookhost bundle pack"));
    let bundle = format!("local-guard-{lang}-0.1.0.hhb");
    assert!(project.join(&bundle).is_file(), "{lang}: no {bundle}");
    run(hookhost().args(["key", "generate", "-o", "team"]), &format!("{lang}: hookhost key generate"));
    run(hookhost().args(["bundle", "sign", "--key", "team.key", &bundle]), &format!("{lang}: hookhost bundle sign"));
    let verified = run(hookhost().args(["bundle", "verify", &bundle, "--key", "team.pub"]), &format!("{lang}: hookhost bundle verify"));
    assert!(verified.starts_with(&format!("ok: local/guard-{lang}@0.1.0")), "{lang}: {verified}");
}

/// `hookhost test --json` on the project's hook and scenarios: every scenario must pass. Returns
/// each scenario's outcome as the user sees it (decision, reason, message, effects, patch).
fn scenario_outcomes(lang: &str, project: &Path) -> Vec<(String, Value)> {
    // A cache of its own: the first run compiles (saying so when it takes a while), the second maps.
    let cache = project.join("precompile-cache");
    let _ = std::fs::remove_dir_all(&cache);
    let test = || crate::common::bin(env!("CARGO_BIN_EXE_hookhost")).args(["test", "--json", "--plugin", "hook.wasm", "scenarios.toml"]).env("HOOKHOST_CACHE_DIR", &cache).env_remove("HOOKHOST_LOG").current_dir(project).output().unwrap();
    let out = test();
    let notes = String::from_utf8_lossy(&out.stderr).to_string();
    if matches!(lang, "python" | "js" | "js-spidermonkey") {
        // A language runtime inside takes seconds to compile: the user is told, then told when it is done.
        let hook = project.join("hook.wasm").display().to_string();
        assert!(notes.contains(&format!("hookhost::compile: compiling {hook} (")) && notes.contains(" MiB), once: later loads map it from the precompile cache ...") && notes.contains(&format!("hookhost::compile: compiled {hook} in ")), "{lang}: {notes}");
    }
    let again = String::from_utf8_lossy(&test().stderr).to_string();
    assert!(!again.contains("compiling"), "{lang}: the second run compiled again: {again}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{lang}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    let expected = std::fs::read_to_string(project.join("scenarios.toml")).unwrap().matches("[[scenario]]").count();
    assert_eq!((report["passed"].as_u64(), report["failed"].as_u64()), (Some(expected as u64), Some(0)), "{lang}: {report:#}");
    assert!(out.status.success(), "{lang}: hookhost test exited {:?}", out.status);
    report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let o = &s["outcome"];
            let seen = serde_json::json!({
                "decision": o["decision"], "reason": o["reason"], "user_message": o["user_message"],
                "effects": o["effects"], "patch": o["patch"],
            });
            (s["name"].as_str().unwrap().to_string(), seen)
        })
        .collect()
}

#[test]
fn the_example_hook_behaves_the_same_in_rust_python_javascript_and_c() {
    let available: Vec<&str> = LANGS.iter().filter(|(_, tools)| tools.iter().all(|t| hookhost_tests::have(t))).map(|(l, _)| *l).collect();
    // The four builds are independent: run them side by side.
    let results: Vec<(&str, Vec<(String, Value)>)> = std::thread::scope(|s| {
        let builds: Vec<_> = available.iter().map(|lang| (*lang, s.spawn(move || new_and_build(lang)))).collect();
        builds
            .into_iter()
            .map(|(lang, b)| {
                let project = b.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                let outcomes = scenario_outcomes(lang, &project);
                pack_and_sign(lang, &project);
                (lang, outcomes)
            })
            .collect()
    });
    assert!(!results.is_empty(), "no language could be built here");
    let (first, reference) = &results[0];
    for (lang, outcomes) in &results[1..] {
        for ((name, want), (_, got)) in reference.iter().zip(outcomes) {
            assert_eq!(got, want, "{lang} and {first} disagree on {name:?}");
        }
    }
    eprintln!("agreed on {} scenarios: {}", reference.len(), results.iter().map(|(l, _)| *l).collect::<Vec<_>>().join(", "));
}

#[test]
fn new_refuses_a_directory_in_use_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let used = dir.path().join("guard");
    std::fs::create_dir(&used).unwrap();
    std::fs::write(used.join("mine.txt"), "keep").unwrap();
    let out = common::hookhost_with(
        |c| {
            c.args(["new", "--lang", "python"]).arg(&used);
        },
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("guard exists and is not empty: give a new directory"), "{err}");
    assert_eq!(std::fs::read_dir(&used).unwrap().count(), 1);
}
