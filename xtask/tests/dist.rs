//! `cargo xtask dist` end to end, for this machine's target: the release written from the
//! `hookhost` and `hookhost-send` this test build made (`--prebuilt`: the release build itself is
//! the release command's job, minutes longer than CI has), its signatures checked by the real
//! `minisign`, written twice to the same bytes; then installed as a user would — `install.sh`
//! from a local directory into an empty HOME (with minisign, and with OpenSSL, as the verifier),
//! and the npm packages from their packed tarballs with the registry unreachable — and each
//! install replays the example session. A flipped byte in any artifact or signature is refused
//! and installs nothing.

use hookhost_tests::{have, in_ci};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Where this test build left the workspace's binaries (target/debug).
fn bin_dir() -> PathBuf {
    std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().to_path_buf()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn tools_present() -> bool {
    let missing: Vec<&str> = ["minisign", "npm", "openssl", "git"].into_iter().filter(|t| !have(t)).collect();
    if missing.is_empty() {
        return true;
    }
    assert!(!in_ci(), "the release test needs {missing:?} (.ci/run installs them)");
    eprintln!("skipping: {missing:?} not installed");
    false
}

/// A signing key made by hookhost, as a release manager would.
fn key(dir: &Path) -> (PathBuf, String) {
    let out = Command::new(bin_dir().join("hookhost")).args(["key", "generate", "-o"]).arg(dir.join("release")).output().unwrap();
    assert!(out.status.success(), "hookhost key generate: {}", text(&out.stderr));
    let public = std::fs::read_to_string(dir.join("release.pub")).unwrap().lines().nth(1).unwrap().to_string();
    (dir.join("release.key"), public)
}

fn dist(key: &Path, out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .current_dir(root())
        .args(["dist", "--unofficial", "--skip-smoke", "--key"])
        .arg(key)
        .arg("--prebuilt")
        .arg(bin_dir())
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

/// The npm package of this machine's binaries (`@hookhost/cli-linux-x64` here), as packed.
fn npm_platform_tarball(target: &str, version: &str) -> String {
    let cpu = if target.starts_with("aarch64") { "arm64" } else { "x64" };
    let os = if target.contains("apple") { "darwin" } else { "linux" };
    let musl = if target.ends_with("musl") { "-musl" } else { "" };
    format!("hookhost-cli-{os}-{cpu}{musl}-{version}.tgz")
}

fn host_target() -> String {
    text(&Command::new(bin_dir().join("hookhost")).arg("--version").output().unwrap().stdout).split(", ").nth(1).unwrap().to_string()
}

/// Run the release's install.sh (or `script`) from `from` into a fresh HOME; returns the output
/// and that HOME's bin directory.
fn install_sh(script: &Path, from: &Path, verifier: &str) -> (Output, PathBuf, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new("sh").arg(script).arg("--from").arg(from).env("HOME", home.path()).env("HOOKHOST_INSTALL_VERIFIER", verifier).output().unwrap();
    let bin = home.path().join(".local/bin");
    (out, bin, home)
}

/// The example session replayed by an installed hookhost: the guard blocks `rm -rf /`.
fn replays_the_example(hookhost: &Path) {
    let out = Command::new(hookhost).current_dir(root()).args(["replay", "--no-project", "examples/session.jsonl"]).output().unwrap();
    assert!(out.status.success(), "{} replay: {}", hookhost.display(), text(&out.stderr));
    let table = text(&out.stdout);
    assert!(table.lines().any(|l| l.contains("rm -rf / --no-preserve-root") && l.contains("block")), "{table}");
}

/// Claude Code's `PreToolUse` for `rm -rf ~`, answered by `program` (hookhost run, or the thin
/// client falling back to it in-process): denied.
fn blocks_rm_rf_home(program: &Path, args: &[&str]) {
    use std::io::Write;
    let event = r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"},"cwd":"/"}"#;
    let mut child = Command::new(program)
        .args(args)
        .env("HOOKHOST_SERVER", "unix:/nonexistent/hookhost.sock")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(event.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    let answer = text(&o.stdout);
    assert!(o.status.success() && answer.contains(r#""permissionDecision":"deny""#) && answer.contains("rule fs.rm-root"), "{} {args:?}: {answer}{}", program.display(), text(&o.stderr));
}

fn flip_byte(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    let i = at.min(bytes.len() - 1);
    bytes[i] ^= 0x01;
    std::fs::write(path, bytes).unwrap();
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn a_release_is_signed_reproducible_and_installs_with_install_sh_and_npm() {
    if !tools_present() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let (key, public) = key(work.path());
    let (a, b) = (work.path().join("a"), work.path().join("b"));
    for out in [&a, &b] {
        let o = dist(&key, out);
        assert!(o.status.success(), "cargo xtask dist: {}", text(&o.stderr));
    }
    let target = host_target();
    let version = env!("CARGO_PKG_VERSION");
    let archive = format!("hookhost-{version}-{target}.tar.gz");

    // Every artifact but the signatures is the same bytes the second time.
    let sums = std::fs::read_to_string(a.join("SHA256SUMS")).unwrap();
    let names: Vec<&str> = sums.lines().map(|l| l.split("  ").nth(1).unwrap()).collect();
    assert_eq!(names, [format!("hookhost-{version}-{target}.cdx.json"), archive.clone(), format!("npm/hookhost-{version}.tgz"), format!("npm/{}", npm_platform_tarball(&target, version))]);
    for name in names.iter().copied().chain(["SHA256SUMS", "install.sh", "install.ps1", "hookhost.rb"]) {
        assert!(std::fs::read(a.join(name)).unwrap() == std::fs::read(b.join(name)).unwrap(), "{name} differs between two runs of dist");
    }

    // The real minisign accepts the signatures with the release's public key.
    for (file, sig) in [("SHA256SUMS", "SHA256SUMS.minisig"), (archive.as_str(), &format!("{archive}.minisig"))] {
        let o = Command::new("minisign").current_dir(&a).args(["-V", "-P", &public, "-m", file, "-x", sig]).output().unwrap();
        assert!(o.status.success(), "minisign -V {file}: {}{}", text(&o.stdout), text(&o.stderr));
    }
    assert_eq!(std::fs::read_to_string(a.join("hookhost-release.pub")).unwrap().lines().nth(1).unwrap(), public);

    // The archive: the binaries, the licence, the README, four completion scripts.
    let o = Command::new("tar").arg("-tzvf").arg(a.join(&archive)).output().unwrap();
    let listing = text(&o.stdout);
    let stem = format!("hookhost-{version}-{target}");
    for f in ["hookhost", "hookhost-send", "LICENSE", "README.md", "completions/hookhost.bash", "completions/_hookhost", "completions/hookhost.fish", "completions/_hookhost.ps1"] {
        assert!(listing.lines().any(|l| l.ends_with(&format!("{stem}/{f}"))), "{f} not in the archive:\n{listing}");
    }
    assert!(listing.lines().filter(|l| l.ends_with("/hookhost") || l.ends_with("/hookhost-send")).all(|l| l.starts_with("-rwxr-xr-x 0/0")), "{listing}");
    // The SBOM names what is linked in, and the embedded built-ins.
    let sbom: serde_json::Value = serde_json::from_slice(&std::fs::read(a.join(format!("{stem}.cdx.json"))).unwrap()).unwrap();
    let components: Vec<&str> = sbom["components"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap()).collect();
    for c in ["wasmtime", "serde_json", "guard-destructive.wasm", "bash-adapter.wasm"] {
        assert!(components.contains(&c), "{c} not in the SBOM");
    }
    // The installers carry the key that signed the release and the digest of its SHA256SUMS.
    let installer = std::fs::read_to_string(a.join("install.sh")).unwrap();
    let digest = text(&Command::new("sha256sum").arg(a.join("SHA256SUMS")).output().unwrap().stdout).split(' ').next().unwrap().to_string();
    assert!(installer.contains(&format!("RELEASE_KEY='{public}'")) && installer.contains(&format!("RELEASE_SUMS_SHA256='{digest}'")));

    // install.sh into an empty HOME, with each verifier: a working hookhost.
    for verifier in ["minisign", "openssl"] {
        let (o, bin, _home) = install_sh(&a.join("install.sh"), &a, verifier);
        assert!(o.status.success(), "install.sh ({verifier}): {}", text(&o.stderr));
        assert!(text(&o.stderr).contains(&format!("installed hookhost {version} ({target}) in {}", bin.display())), "{}", text(&o.stderr));
        let v = Command::new(bin.join("hookhost")).arg("--version").output().unwrap();
        assert!(text(&v.stdout).starts_with(&format!("hookhost {version} (commit ")), "{}", text(&v.stdout));
        assert!(bin.join("hookhost-send").is_file());
        replays_the_example(&bin.join("hookhost"));
        blocks_rm_rf_home(&bin.join("hookhost"), &["run", "--output", "claude-code", "--no-project"]);
    }

    // A flipped byte anywhere is refused, and nothing is installed: by the stamped installer
    // (digest and signature), and by one without the digest (the signature alone), with
    // each verifier.
    let unpinned = work.path().join("install-unpinned.sh");
    std::fs::write(&unpinned, installer.lines().map(|l| if l.starts_with("RELEASE_SUMS_SHA256=") { "RELEASE_SUMS_SHA256=''".to_string() } else { l.to_string() }).collect::<Vec<_>>().join("\n")).unwrap();
    let sig = std::fs::read_to_string(a.join("SHA256SUMS.minisig")).unwrap();
    let line_start = |n: usize| sig.split_inclusive('\n').take(n).map(str::len).sum::<usize>();
    let cases: &[(&str, usize, &str)] = &[
        (archive.as_str(), 1000, &format!("{archive} does not match SHA256SUMS: a damaged or altered download")),
        ("SHA256SUMS", 3, "SHA256SUMS from"),
        // The signature (line 2), the trusted comment it binds (line 3), the signature of both (line 4).
        ("SHA256SUMS.minisig", line_start(1) + 30, "does not carry a valid signature of hookhost's release key"),
        ("SHA256SUMS.minisig", line_start(2) + 20, "does not carry a valid signature of hookhost's release key"),
        ("SHA256SUMS.minisig", line_start(3) + 10, "does not carry a valid signature of hookhost's release key"),
    ];
    for (i, (file, at, expected)) in cases.iter().enumerate() {
        let bad = work.path().join(format!("bad{i}"));
        copy_dir(&a, &bad);
        flip_byte(&bad.join(file), *at);
        for (script, verifier) in [(a.join("install.sh"), "minisign"), (unpinned.clone(), "minisign"), (unpinned.clone(), "openssl")] {
            let (o, bin, _home) = install_sh(&script, &bad, verifier);
            let err = text(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{file} flipped at {at} ({verifier}, {}): {err}", script.display());
            let expected = if *file == "SHA256SUMS" && script == a.join("install.sh") { "is not the one of hookhost" } else if *file == "SHA256SUMS" { "does not carry a valid signature" } else { expected };
            assert!(err.contains(expected) && err.trim_end().ends_with("hookhost-install: nothing was installed"), "{file} flipped at {at} ({verifier}): {err}");
            assert!(!bin.exists(), "{file} flipped: {} was created", bin.display());
        }
    }
    // With no verifier, only the installer carrying the release's digest installs.
    let (o, _bin, _home) = install_sh(&unpinned, &a, "none");
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("cannot check the release's signature: install minisign"), "{}", text(&o.stderr));
    let (o, bin, _home) = install_sh(&a.join("install.sh"), &a, "none");
    assert!(o.status.success() && bin.join("hookhost").is_file(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("SHA256SUMS checked against the digest this installer carries"), "{}", text(&o.stderr));

    // npm, from the packed tarballs, with the registry unreachable: with its install script the
    // native binary takes the launcher's place; without, the launcher runs it.
    for scripts in [true, false] {
        let prefix = work.path().join(format!("npm-{scripts}"));
        let mut cmd = Command::new("npm");
        cmd.args(["install", "-g", "--no-audit", "--no-fund", "--fetch-retries", "0", "--registry", "http://127.0.0.1:9/", "--prefix"]).arg(&prefix);
        cmd.env("npm_config_cache", work.path().join("npm-cache"));
        if !scripts {
            cmd.arg("--ignore-scripts");
        }
        cmd.arg(a.join("npm").join(npm_platform_tarball(&target, version))).arg(a.join(format!("npm/hookhost-{version}.tgz")));
        let o = cmd.output().unwrap();
        assert!(o.status.success(), "npm install: {}{}", text(&o.stdout), text(&o.stderr));
        let hookhost = prefix.join("bin/hookhost");
        let head = std::fs::read(&hookhost).unwrap()[..4].to_vec();
        assert_eq!(head == b"\x7fELF", scripts, "bin/hookhost with scripts={scripts} starts {head:?}");
        let v = Command::new(&hookhost).arg("--version").output().unwrap();
        assert!(text(&v.stdout).starts_with(&format!("hookhost {version} ")), "{}{}", text(&v.stdout), text(&v.stderr));
        replays_the_example(&hookhost);
        // The thin client too (no daemon here: it runs the event in-process).
        blocks_rm_rf_home(&prefix.join("bin/hookhost-send"), &["--output", "claude-code", "--", "--no-project"]);
    }
}

#[test]
fn dist_refuses_a_key_that_is_not_the_release_key_unless_told() {
    let work = tempfile::tempdir().unwrap();
    let (key, _) = key(work.path());
    let o = Command::new(env!("CARGO_BIN_EXE_xtask")).current_dir(root()).args(["dist", "--key"]).arg(&key).arg("--prebuilt").arg(bin_dir()).arg("--out").arg(work.path().join("out")).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    // A dirty tree is refused first; a clean one for the key.
    assert!(err.contains("is not hookhost's release key (packaging/release.pub holds") || err.contains("the working tree has uncommitted changes"), "{err}");
    assert!(!work.path().join("out").exists(), "nothing is written");
}
