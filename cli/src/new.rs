//! `hookhost new --lang L NAME`: a hook project to start from. The templates are the example
//! hooks under `examples/hooks/` (compiled in), so what `new` writes is what the test suite
//! builds and checks against the shared scenarios in every language.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::ValueEnum;

/// The languages `new` has a template for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    Rust,
    Python,
    Js,
    C,
}

/// One file of a template: its path in the project, its text, whether it is a script.
struct File {
    path: &'static str,
    text: &'static str,
    executable: bool,
}

macro_rules! file {
    ($lang:literal, $path:literal) => {
        file!($lang, $path, false)
    };
    ($lang:literal, $path:literal, script) => {
        file!($lang, $path, true)
    };
    ($lang:literal, $path:literal, $executable:literal) => {
        File { path: $path, text: include_str!(concat!("../../examples/hooks/", $lang, "/", $path)), executable: $executable }
    };
}

/// The package name the templates carry, replaced by the project's name.
const TEMPLATE_NAME: &str = "example-guard";
const SCENARIOS: &str = include_str!("../../examples/hooks/scenarios.toml");
const BUNDLE: &str = include_str!("../../examples/hooks/bundle.toml");

fn template(lang: Lang) -> Vec<File> {
    match lang {
        Lang::Rust => vec![
            file!("rust", "Cargo.toml"),
            file!("rust", "Cargo.lock"),
            file!("rust", "rust-toolchain.toml"),
            file!("rust", ".cargo/config.toml"),
            file!("rust", "src/lib.rs"),
            file!("rust", "build.sh", script),
            file!("rust", "README.md"),
            file!("rust", ".gitignore"),
        ],
        Lang::Python => vec![
            file!("python", "app.py"),
            file!("python", "hookhost_hooks.py"),
            file!("python", "build.sh", script),
            file!("python", "README.md"),
            file!("python", ".gitignore"),
        ],
        Lang::Js => vec![
            file!("js", "hook.js"),
            file!("js", "hookhost.js"),
            file!("js", "build.mjs"),
            file!("js", "build.sh", script),
            file!("js", "package.json"),
            file!("js", "package-lock.json"),
            file!("js", "README.md"),
            file!("js", ".gitignore"),
        ],
        Lang::C => vec![
            file!("c", "hook.c"),
            file!("c", "build.sh", script),
            file!("c", "README.md"),
            file!("c", ".gitignore"),
        ],
    }
}

/// The project name: the last part of the path (of the directory itself for `.`), usable as a
/// Cargo and npm package name.
fn project_name(dir: &Path) -> Result<String> {
    let full = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let name = full.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let valid = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if !valid {
        bail!(
            "{}: a project name is lowercase letters, digits, `-` and `_`, starting with a letter (it becomes the package name); try `hookhost new --lang rust my-guard`",
            dir.display()
        );
    }
    Ok(name.to_string())
}

/// Write the project for `lang` into `dir`, which must not exist or be empty. Returns the files
/// written, relative to `dir`.
pub fn create(lang: Lang, dir: &Path, wit: &str) -> Result<Vec<PathBuf>> {
    let name = project_name(dir)?;
    if std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some()) {
        bail!("{} exists and is not empty: give a new directory", dir.display());
    }
    let mut files: Vec<(&str, String, bool)> = template(lang)
        .into_iter()
        .map(|f| (f.path, f.text.replace(TEMPLATE_NAME, &name), f.executable))
        .collect();
    files.push(("scenarios.toml", SCENARIOS.to_string(), false));
    files.push(("bundle.toml", BUNDLE.replace(TEMPLATE_NAME, &name), false));
    files.push(("wit/hooks.wit", wit.to_string(), false));
    let mut written = Vec::new();
    for (path, text, executable) in files {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&target, text).with_context(|| format!("cannot write {}", target.display()))?;
        if executable {
            make_executable(&target)?;
        }
        written.push(PathBuf::from(path));
    }
    Ok(written)
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).with_context(|| format!("cannot make {} executable", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_names_its_project_and_keeps_its_scripts_executable() {
        for lang in Lang::value_variants() {
            let dir = tempfile::tempdir().unwrap();
            let project = dir.path().join("my-guard");
            let files = create(*lang, &project, "package hookhost:hooks@0.1.0;").unwrap();
            for expected in ["build.sh", "scenarios.toml", "bundle.toml", "wit/hooks.wit", "README.md"] {
                assert!(files.contains(&PathBuf::from(expected)), "{lang:?}: no {expected}");
            }
            for file in &files {
                let text = std::fs::read_to_string(project.join(file)).unwrap();
                assert!(!text.contains(TEMPLATE_NAME), "{lang:?}: {} still names the template", file.display());
            }
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(project.join("build.sh")).unwrap().permissions().mode();
                assert_eq!(mode & 0o111, 0o111, "{lang:?}: build.sh is not executable");
            }
        }
    }

    /// The examples build in place too (`cd examples/hooks/c && ./build.sh`): their `wit` is a
    /// link into the repository's `wit/`, which must be the contract `new` writes beside the
    /// template, not a folder of versions (the link outlived the move to `wit/<version>/` once).
    #[test]
    fn each_example_builds_against_the_contract_new_writes() {
        let sdk = crate::oneshot::SDK_CONTRACT;
        for lang in Lang::value_variants() {
            let name = format!("{lang:?}").to_lowercase();
            let wit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/hooks").join(&name).join("wit/hooks.wit");
            let text = std::fs::read_to_string(&wit).unwrap_or_else(|e| panic!("{}: {e}", wit.display()));
            assert_eq!(text, sdk.wit, "{}: not the {} contract `hookhost new` writes", wit.display(), sdk.version);
        }
    }

    #[test]
    fn an_empty_directory_is_used_and_named_after_itself() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("policy-7");
        std::fs::create_dir(&project).unwrap();
        create(Lang::C, &project.join("."), "").unwrap();
        let bundle = std::fs::read_to_string(project.join("bundle.toml")).unwrap();
        assert!(bundle.contains("name = \"local/policy-7\""), "{bundle}");
    }

    #[test]
    fn a_bad_name_or_a_used_directory_is_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let err = create(Lang::Rust, &dir.path().join("My Guard"), "").unwrap_err().to_string();
        assert!(err.contains("My Guard: a project name is lowercase letters"), "{err}");
        assert!(!dir.path().join("My Guard").exists());

        let used = dir.path().join("used");
        std::fs::create_dir(&used).unwrap();
        std::fs::write(used.join("keep.txt"), "mine").unwrap();
        let err = create(Lang::Python, &used, "").unwrap_err().to_string();
        assert!(err.contains("exists and is not empty"), "{err}");
        assert_eq!(std::fs::read_dir(&used).unwrap().count(), 1);
    }
}
