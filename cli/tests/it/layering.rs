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

/// The source roots whose files the circle check reads (every crate of the workspace).
const SOURCE_ROOTS: &[&str] = &["crates/types/src", "crates/config/src", "crates/bundle/src", "host/src", "host/guest-build/src", "host/precompile/src", "cli/src", "guest-sdk/src", "plugins/guard-destructive/src", "plugins/redact-secrets/src", "plugins/bash-adapter/src", "plugins/shell-parse/src", "plugins/secret-scan/src", "tests/src", "examples/embed/src"];

/// The modules of one directory level: a module is `X.rs` with whatever is under `X/`.
fn modules_at(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<std::path::PathBuf>> {
    fn files_under(path: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        if path.is_dir() {
            for entry in std::fs::read_dir(path).unwrap() {
                files_under(&entry.unwrap().path(), out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path.to_path_buf());
        }
    }
    let mut modules = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if matches!(name.as_str(), "lib" | "main" | "mod" | "tests" | "bin") || (path.is_file() && path.extension().is_none_or(|e| e != "rs")) {
            continue;
        }
        let files: &mut Vec<std::path::PathBuf> = modules.entry(name).or_default();
        files_under(&path, files);
    }
    modules
}

/// The first path segment of every `prefix::name` and `prefix::{a, b::c}` in `text` (comments
/// left out).
fn referenced(text: &str, prefix: &str) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
        // A trailing comment too (`// ` after code; `https://` has no space before it).
        let mut rest = line.find(" // ").map_or(line, |at| &line[..at]);
        while let Some(at) = rest.find(&format!("{prefix}::")) {
            let before = rest[..at].chars().last();
            rest = &rest[at + prefix.len() + 2..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                // Top-level items of the group, nested groups skipped.
                let (mut depth, mut item) = (0, String::new());
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            names.insert(item.trim().split("::").next().unwrap_or("").to_string());
                            item.clear();
                            continue;
                        }
                        _ => {}
                    }
                    if depth == 0 {
                        item.push(c);
                    }
                }
                names.insert(item.trim().split("::").next().unwrap_or("").to_string());
            } else {
                names.insert(rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect());
            }
        }
    }
    names
}

/// A circle among `edges`, if there is one.
fn circle(edges: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(node: &str, edges: &std::collections::BTreeMap<String, std::collections::BTreeSet<String>>, path: &mut Vec<String>, done: &mut std::collections::BTreeSet<String>) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, edges, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = std::collections::BTreeSet::new();
    edges.keys().find_map(|node| visit(node, edges, &mut Vec::new(), &mut done))
}

/// No two source files (or module directories) of one level import each other, directly or
/// round a longer circle: each module can be read, and changed, knowing only what it uses.
/// A crate's top-level modules are linked by `crate::x` (and `super::x` from a top-level
/// file), a module directory's children by `super::x`.
#[test]
fn no_import_circles_between_source_files() {
    let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let mut circles = Vec::new();
    let mut levels = 0;
    for src in SOURCE_ROOTS {
        let mut todo = vec![(root.join(src), true)];
        while let Some((dir, top)) = todo.pop() {
            let modules = modules_at(&dir);
            let mut edges = std::collections::BTreeMap::new();
            for (name, files) in &modules {
                let mut uses = std::collections::BTreeSet::new();
                for file in files {
                    let text = std::fs::read_to_string(file).unwrap();
                    let direct_child = file.parent() == Some(dir.as_path()) || file.parent() == Some(dir.join(name).as_path()) && file.file_stem().is_some_and(|s| s == "mod");
                    if top {
                        uses.extend(referenced(&text, "crate"));
                    }
                    if direct_child {
                        uses.extend(referenced(&text, "super"));
                    }
                }
                uses.retain(|u| u != name && modules.contains_key(u));
                edges.insert(name.clone(), uses);
            }
            if let Some(found) = circle(&edges) {
                circles.push(format!("{}: {}", dir.strip_prefix(root).unwrap_or(&dir).display(), found.join(" → ")));
            }
            levels += 1;
            for name in modules.keys() {
                if dir.join(name).is_dir() {
                    todo.push((dir.join(name), false));
                }
            }
        }
    }
    assert!(levels > 20, "read {levels} module levels");
    assert!(circles.is_empty(), "import circles:\n{}", circles.join("\n"));
    // The checker finds one when there is one.
    let made_up = [("a", "b"), ("b", "c"), ("c", "a")].map(|(from, to)| (from.to_string(), [to.to_string()].into()));
    assert_eq!(circle(&made_up.into_iter().collect()), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    assert_eq!(referenced("use crate::{store::{A, B}, trust, oci::x};\nlet y = crate::wit::v0_1::X; // crate::not", "crate"), ["oci", "store", "trust", "wit"].map(String::from).into());
}
