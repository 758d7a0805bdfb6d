//! The npm packages, the way the agent CLIs ship native code: `hookhost` (launchers and a
//! postinstall step, `packaging/npm/hookhost/`) with one optional dependency per target,
//! `@hookhost/cli-<os>-<cpu>[-musl]`, whose `os`, `cpu` and `libc` let npm install only the
//! one that runs here. Packed with `npm pack`.

use crate::dist::Release;
use crate::targets::Target;
use anyhow::{bail, Context, Result};
use serde_json::json;
use std::path::Path;
use std::process::Command;

/// Write and pack the packages for `built` into `out`; returns each tarball's name and bytes.
pub fn packages(release: &Release, built: &[(Target, &[u8], &[u8])], root: &Path, out: &Path) -> Result<Vec<(String, Vec<u8>)>> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let staging = tempfile::tempdir().context("making a staging directory")?;
    let repository = json!({ "type": "git", "url": format!("git+{}.git", release.repository) });
    let license = std::fs::read(root.join("LICENSE")).context("reading LICENSE")?;
    let mut dirs = Vec::new();
    for (t, hookhost, send) in built {
        let dir = staging.path().join(t.npm_package().replace('/', "+"));
        std::fs::create_dir_all(dir.join("bin"))?;
        let mut manifest = json!({
            "name": t.npm_package(),
            "version": release.version,
            "description": format!("hookhost's native binaries for {}", t.triple),
            "license": "Apache-2.0",
            "repository": repository,
            "os": [t.node_os],
            "cpu": [t.node_cpu],
            "files": ["bin"],
            "preferUnplugged": true,
        });
        if let Some(libc) = t.libc {
            manifest["libc"] = json!([libc]);
        }
        write_json(&dir.join("package.json"), &manifest)?;
        std::fs::write(dir.join("README.md"), format!("# {}\n\nThe `hookhost` and `hookhost-send` binaries for {}, installed by the `hookhost` package. Install that one: `npm install -g hookhost`.\n", t.npm_package(), t.triple))?;
        std::fs::write(dir.join("LICENSE"), &license)?;
        for (name, bytes) in [("hookhost", hookhost), ("hookhost-send", send)] {
            let p = dir.join("bin").join(format!("{name}{}", t.exe_suffix()));
            std::fs::write(&p, bytes)?;
            set_executable(&p)?;
        }
        dirs.push(dir);
    }

    let main = staging.path().join("hookhost");
    copy_tree(&root.join("packaging/npm/hookhost"), &main)?;
    std::fs::write(main.join("LICENSE"), &license)?;
    let optional: serde_json::Map<String, serde_json::Value> = built.iter().map(|(t, _, _)| (t.npm_package(), json!(release.version))).collect();
    write_json(
        &main.join("package.json"),
        &json!({
            "name": "hookhost",
            "version": release.version,
            "description": "Hooks for agent runtimes as sandboxed WebAssembly components: typed decisions, signed bundles, your shell hooks unchanged.",
            "license": "Apache-2.0",
            "repository": repository,
            "homepage": release.repository,
            "bin": { "hookhost": "bin/hookhost", "hookhost-send": "bin/hookhost-send" },
            "scripts": { "postinstall": "node install.js" },
            "optionalDependencies": optional,
            "engines": { "node": ">=18" },
            "files": ["bin", "lib", "install.js"],
        }),
    )?;
    for b in ["bin/hookhost", "bin/hookhost-send"] {
        set_executable(&main.join(b))?;
    }
    dirs.push(main);

    let mut packed = Vec::new();
    for dir in dirs {
        let output = Command::new("npm").arg("pack").arg(&dir).arg("--pack-destination").arg(out).args(["--silent", "--ignore-scripts"]).output().context("running npm pack: the npm packages need npm")?;
        if !output.status.success() {
            bail!("npm pack {} failed: {}", dir.display(), String::from_utf8_lossy(&output.stderr).trim());
        }
        let name = String::from_utf8_lossy(&output.stdout).lines().last().unwrap_or_default().trim().to_string();
        let bytes = std::fs::read(out.join(&name)).with_context(|| format!("npm pack wrote no {name} in {}", out.display()))?;
        packed.push((name, bytes));
    }
    Ok(packed)
}

fn write_json(path: &Path, v: &serde_json::Value) -> Result<()> {
    let mut text = serde_json::to_string_pretty(v)?;
    text.push('\n');
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
}

fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let e = e?;
        let dest = to.join(e.file_name());
        if e.file_type()?.is_dir() {
            copy_tree(&e.path(), &dest)?;
        } else {
            std::fs::copy(e.path(), &dest).with_context(|| format!("copying {}", e.path().display()))?;
        }
    }
    Ok(())
}

#[cfg(unix)]
fn set_executable(p: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o755)).with_context(|| format!("making {} executable", p.display()))
}

#[cfg(not(unix))]
fn set_executable(_: &Path) -> Result<()> {
    // npm records the mode it packs; the release is made on unix.
    Ok(())
}
