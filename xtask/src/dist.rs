//! `cargo xtask dist`: build hookhost for each release target and write the release — per target
//! an archive (the binaries, LICENSE, README, shell completions) and its SBOM; `SHA256SUMS` and
//! its minisign signature (and one per archive, for cargo-binstall); the installers carrying the
//! release key and the digest of this release's `SHA256SUMS`; the npm packages; the Homebrew
//! formula. Everything but the signatures is the same bytes from the same commit.

use crate::archive::{self, Entry};
use crate::targets::{self, Builder, Target};
use crate::{npm, packaging, sbom, smoke};
use anyhow::{bail, Context, Result};
use sha2::Digest;
use std::path::{Path, PathBuf};
use std::process::Command;

#[derive(clap::Args)]
pub struct Args {
    /// A target triple to release (repeatable), or `all` for every release target. Default:
    /// this machine's.
    #[arg(long = "target", value_name = "TRIPLE")]
    targets: Vec<String>,
    /// The directory the release is written to (replaced). Default: target/dist.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The minisign secret key that signs the release; its password, if it has one, in
    /// HOOKHOST_RELEASE_KEY_PASSWORD.
    #[arg(long, value_name = "FILE")]
    key: PathBuf,
    /// Sign with a key that is not hookhost's release key (packaging/release.pub): a fork's or
    /// a test's release. The installers then carry that key.
    #[arg(long)]
    unofficial: bool,
    /// Package the `hookhost` and `hookhost-send` in DIR (built for this machine) instead of
    /// building them: the release of one target from binaries built elsewhere.
    #[arg(long, value_name = "DIR")]
    prebuilt: Option<PathBuf>,
    /// Where the release will be downloaded from, as the installers, the Homebrew formula and
    /// cargo-binstall name it. Default: the repository's GitHub release of this version.
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Build every target a second time, in another directory, and fail unless both builds
    /// give the same bytes.
    #[arg(long)]
    check_reproducible: bool,
    /// Skip the smoke tests of the binaries (a test of the packaging alone).
    #[arg(long)]
    skip_smoke: bool,
}

/// What a release is made from: the source tree's version, commit and time.
pub struct Release {
    pub version: String,
    pub repository: String,
    pub commit: String,
    /// The commit's time (or `SOURCE_DATE_EPOCH`): every timestamp in the artifacts.
    pub epoch: u64,
    pub base_url: String,
}

impl Release {
    pub fn read(root: &Path, base_url: Option<String>) -> Result<Release> {
        let manifest: toml::Value = toml::from_str(&std::fs::read_to_string(root.join("Cargo.toml")).context("reading Cargo.toml")?)?;
        let package = &manifest["workspace"]["package"];
        let version = package["version"].as_str().context("Cargo.toml: no workspace.package.version")?.to_string();
        let repository = package["repository"].as_str().context("Cargo.toml: no workspace.package.repository")?.trim_end_matches('/').to_string();
        let commit = git(root, &["rev-parse", "HEAD"])?;
        let epoch = match std::env::var("SOURCE_DATE_EPOCH") {
            Ok(s) => s.parse().with_context(|| format!("SOURCE_DATE_EPOCH={s:?} is not a number of seconds"))?,
            Err(_) => git(root, &["log", "-1", "--format=%ct"])?.parse().context("git log: the commit's time")?,
        };
        let base_url = base_url.unwrap_or_else(|| format!("{repository}/releases/download/v{version}")).trim_end_matches('/').to_string();
        Ok(Release { version, repository, commit, epoch, base_url })
    }

    /// RFC 3339 UTC time of the epoch.
    pub fn timestamp(&self) -> String {
        let (y, m, d) = crate::archive::civil_from_days((self.epoch / 86_400) as i64);
        let secs = self.epoch % 86_400;
        format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs % 3600 / 60, secs % 60)
    }
}

fn git(root: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new("git").current_dir(root).args(args).output().context("running git")?;
    if !out.status.success() {
        bail!("git {} failed: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// One target's binaries, read.
struct Built {
    target: Target,
    hookhost: Vec<u8>,
    send: Vec<u8>,
}

pub fn run(args: Args) -> Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().context("xtask has no parent directory")?.to_path_buf();
    let release = Release::read(&root, args.base_url.clone())?;
    let host = targets::host()?;
    let wanted: Vec<Target> = if args.targets.is_empty() {
        vec![Target::find(&host).with_context(|| format!("this machine ({host}) is not a release target; name one with --target"))?]
    } else {
        targets::named(&args.targets)?
    };
    if args.prebuilt.is_none() {
        targets::add_to_rustup(&root, &wanted)?;
    }
    if args.prebuilt.is_some() && (wanted.len() != 1 || wanted[0].triple != host) {
        bail!("--prebuilt packages this machine's binaries ({host}) only: give no --target, or --target {host}");
    }
    if !git(&root, &["status", "--porcelain", "--untracked-files=no"])?.is_empty() {
        if !args.unofficial {
            bail!("the working tree has uncommitted changes: a release is built from a commit (commit them, or pass --unofficial)");
        }
        if args.prebuilt.is_none() {
            eprintln!("xtask: the working tree has uncommitted changes: the release is built from commit {} without them", &release.commit[..12]);
        }
    }
    let signer = Signer::open(&args.key, &root, args.unofficial)?;
    let out = args.out.clone().unwrap_or_else(|| root.join("target/dist"));
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("emptying {}", out.display()))?;
    }
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;

    // The build reads a checkout of the commit, not the working tree: what is being edited
    // meanwhile does not end up in a release, and the paths it sees are not this clone's.
    let source = match args.prebuilt {
        Some(_) => None,
        None => Some(checkout(&root, &release.commit, &root.join("target/dist-src"))?),
    };
    // What goes around the binaries comes from the same tree they are built from.
    let tree = source.clone().unwrap_or_else(|| root.clone());
    let mut built = Vec::new();
    for t in &wanted {
        let dir = match (&args.prebuilt, &source) {
            (Some(dir), _) => dir.clone(),
            (None, Some(src)) => build(&release, src, *t, &root.join("target"))?,
            (None, None) => unreachable!("a checkout when not prebuilt"),
        };
        let read = |name: &str| {
            let p = dir.join(format!("{name}{}", t.exe_suffix()));
            std::fs::read(&p).with_context(|| format!("reading {}", p.display()))
        };
        let b = Built { target: *t, hookhost: read("hookhost")?, send: read("hookhost-send")? };
        if let (true, Some(_)) = (args.check_reproducible, &source) {
            // Another checkout in another place, another target directory: nothing shared.
            let src = checkout(&root, &release.commit, &root.join("target/dist-check/src"))?;
            let again = build(&release, &src, *t, &root.join("target/dist-check"))?;
            for (name, first) in [("hookhost", &b.hookhost), ("hookhost-send", &b.send)] {
                let p = again.join(format!("{name}{}", t.exe_suffix()));
                if std::fs::read(&p).with_context(|| format!("reading {}", p.display()))? != *first {
                    bail!("{name} for {} is not reproducible: two builds of commit {} differ (compare {} with the first build)", t.triple, release.commit, p.display());
                }
            }
            eprintln!("xtask: {}: two builds, the same bytes", t.triple);
        }
        if !args.skip_smoke {
            smoke_one(&tree, t, &dir, &host)?;
        }
        built.push(b);
    }

    // The completion scripts come from a hookhost of this release that runs here: this
    // machine's build, else a Linux one the smoke test ran (natively or under qemu-user; the
    // same clap definitions on every target; Windows' needs the smoke test's Wine prefix), else
    // a debug build of the same commit.
    let runnable = match &args.prebuilt {
        Some(dir) => Some((dir.clone(), Vec::new())),
        None => {
            let mut linux: Vec<&Target> = wanted.iter().filter(|t| t.node_os == "linux").collect();
            linux.sort_by_key(|t| t.triple != host);
            linux.iter().find_map(|t| Some((release_dir(&root.join("target"), t.triple), smoke::runner(t, &host).ok()?)))
        }
    };
    let completions = completions(&tree, &root.join("target"), runnable)?;
    let mut sums: Vec<(String, Vec<u8>)> = Vec::new();
    let mut archives = Vec::new();
    for b in &built {
        let t = b.target;
        let mut entries = vec![
            Entry { path: format!("hookhost{}", t.exe_suffix()), bytes: b.hookhost.clone(), executable: true },
            Entry { path: format!("hookhost-send{}", t.exe_suffix()), bytes: b.send.clone(), executable: true },
            Entry { path: "LICENSE".into(), bytes: std::fs::read(tree.join("LICENSE")).context("reading LICENSE")?, executable: false },
            Entry { path: "README.md".into(), bytes: std::fs::read(tree.join("README.md")).context("reading README.md")?, executable: false },
        ];
        for (file, text) in &completions {
            entries.push(Entry { path: format!("completions/{file}"), bytes: text.clone(), executable: false });
        }
        let stem = t.stem(&release.version);
        let bytes = if t.windows() { archive::zip(&stem, &mut entries, release.epoch)? } else { archive::tar_gz(&stem, &mut entries, release.epoch)? };
        let name = t.archive_name(&release.version);
        write(&out.join(&name), &bytes)?;
        write(&out.join(format!("{name}.minisig")), signer.sign(&bytes, &format!("{name} {}", release.commit))?.as_bytes())?;
        sums.push((name.clone(), bytes.clone()));
        archives.push((t, name, sha256_hex(&bytes)));
        let sbom = sbom::cyclonedx(&tree, t.triple, &release.version, &release.commit, &release.timestamp())?;
        let sbom_name = format!("{stem}.cdx.json");
        write(&out.join(&sbom_name), &sbom)?;
        sums.push((sbom_name, sbom));
    }

    let npm_dir = out.join("npm");
    for (name, bytes) in npm::packages(&release, &built.iter().map(|b| (b.target, b.hookhost.as_slice(), b.send.as_slice())).collect::<Vec<_>>(), &tree, &npm_dir)? {
        sums.push((format!("npm/{name}"), bytes));
    }
    sums.sort_by(|a, b| a.0.cmp(&b.0));
    let sums_text: String = sums.iter().map(|(name, bytes)| format!("{}  {name}\n", sha256_hex(bytes))).collect();
    write(&out.join("SHA256SUMS"), sums_text.as_bytes())?;
    write(&out.join("SHA256SUMS.minisig"), signer.sign(sums_text.as_bytes(), &format!("hookhost {} {}", release.version, release.commit))?.as_bytes())?;
    write(&out.join("hookhost-release.pub"), signer.public_file.as_bytes())?;

    let sums_digest = sha256_hex(sums_text.as_bytes());
    let stamp = packaging::Stamp { version: &release.version, base_url: &release.base_url, key: &signer.public_key, sums_sha256: &sums_digest };
    for installer in ["install.sh", "install.ps1"] {
        let template = std::fs::read_to_string(tree.join("packaging").join(installer)).with_context(|| format!("reading packaging/{installer}"))?;
        write(&out.join(installer), packaging::stamp_installer(&template, installer, &stamp)?.as_bytes())?;
    }
    write(&out.join("hookhost.rb"), packaging::homebrew_formula(&release, &archives).as_bytes())?;
    eprintln!("xtask: hookhost {} ({}) for {}: {}", release.version, &release.commit[..12], wanted.iter().map(|t| t.triple).collect::<Vec<_>>().join(", "), out.display());
    Ok(())
}

/// Smoke-test a target's binaries where this machine can run them; say why not where it cannot.
fn smoke_one(root: &Path, t: &Target, dir: &Path, host: &str) -> Result<()> {
    match smoke::runner(t, host) {
        Ok(runner) => smoke::run(root, t, dir, &runner, &root.join("target/smoke")),
        Err(why) if t.node_os == "darwin" => {
            eprintln!("xtask: smoke {}: not run: {why}", t.triple);
            Ok(())
        }
        Err(why) => bail!("{}: cannot smoke-test: {why}", t.triple),
    }
}

/// `cargo xtask smoke`.
pub fn smoke(target: Option<String>, bin_dir: Option<PathBuf>) -> Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().context("xtask has no parent directory")?.to_path_buf();
    let host = targets::host()?;
    let triple = target.unwrap_or_else(|| host.clone());
    let t = Target::find(&triple).with_context(|| format!("--target {triple}: not a release target"))?;
    let dir = bin_dir.unwrap_or_else(|| release_dir(&root.join("target"), &triple));
    smoke_one(&root, &t, &dir, &host)
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Where cargo leaves a release build for `triple`.
fn release_dir(target_dir: &Path, triple: &str) -> PathBuf {
    target_dir.join(triple).join("release")
}

/// The release build of one target: `cargo build` (this machine's target, or Windows through
/// mingw-w64) or `cargo zigbuild` (macOS, musl, Linux on another CPU, and glibc 2.28 for
/// every Linux gnu target, so the binary runs on the distributions people have, not only on the
/// one that built it). Paths are remapped so the binary names no directory of this machine.
fn build(release: &Release, source: &Path, t: Target, target_dir: &Path) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let cargo_home = std::env::var("CARGO_HOME").map(PathBuf::from).unwrap_or_else(|_| PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cargo"));
    let zig = t.builder == Builder::Zig || t.libc == Some("glibc");
    let triple_arg = if t.libc == Some("glibc") { format!("{}.2.28", t.triple) } else { t.triple.to_string() };
    let mut cmd = Command::new(&cargo);
    cmd.current_dir(source);
    if zig {
        if Command::new(&cargo).args(["zigbuild", "--help"]).output().map(|o| !o.status.success()).unwrap_or(true) {
            bail!("{}: cargo-zigbuild is not installed: run packaging/release-tools.sh (pinned cargo-zigbuild, and zig from PyPI)", t.triple);
        }
        cmd.arg("zigbuild");
        // Packed relative relocations need glibc 2.36's loader; 2.28 is the floor here.
        cmd.env("HOOKHOST_RELR", "0");
    } else {
        cmd.arg("build");
    }
    cmd.args(["--release", "--locked", "-p", "hookhost-cli", "--bin", "hookhost", "--bin", "hookhost-send", "--target", &triple_arg, "--target-dir"]).arg(target_dir);
    cmd.env("CARGO_ENCODED_RUSTFLAGS", remap_flags(source, &cargo_home, target_dir).join("\u{1f}"));
    cmd.env("SOURCE_DATE_EPOCH", release.epoch.to_string());
    // macOS links against Apple's frameworks: with the SDK named by SDKROOT where there is one,
    // else against the text stubs of the few framework symbols hookhost imports.
    if t.node_os == "darwin" && std::env::var_os("SDKROOT").is_none() {
        cmd.env("SDKROOT", source.join("packaging/macos-sdk-stubs"));
    }
    eprintln!("xtask: building {} ({})", t.triple, if zig { "cargo zigbuild" } else { "cargo build" });
    let status = cmd.status().context("running cargo")?;
    if !status.success() {
        bail!("the release build for {} failed ({status})", t.triple);
    }
    Ok(release_dir(target_dir, t.triple))
}

/// The flags that keep this machine's directories out of a binary: the checkout, cargo's home
/// (the dependencies' sources) and the target directory — generated code a build script writes
/// into `OUT_DIR` (cranelift's ISLE and settings) is compiled with its path, which panics
/// name; two builds in two target directories differed by that path alone. Where several
/// match, rustc takes the last: the checkout, which `dist` makes inside the target directory,
/// comes after it.
fn remap_flags(source: &Path, cargo_home: &Path, target_dir: &Path) -> Vec<String> {
    [(target_dir, "/target"), (cargo_home, "/cargo"), (source, "/hookhost")].iter().map(|(dir, to)| format!("--remap-path-prefix={}={to}", dir.display())).collect()
}

/// A checkout of `commit` at `dir` (a detached git worktree, replaced if there is one).
fn checkout(root: &Path, commit: &str, dir: &Path) -> Result<PathBuf> {
    if dir.exists() {
        let _ = git(root, &["worktree", "remove", "--force", &dir.display().to_string()]);
        if dir.exists() {
            std::fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
        }
        git(root, &["worktree", "prune"])?;
    }
    std::fs::create_dir_all(dir.parent().context("a checkout's parent")?)?;
    git(root, &["worktree", "add", "--detach", &dir.display().to_string(), commit])?;
    Ok(dir.to_path_buf())
}

/// The shell completion scripts, from `runnable` (a directory of built Linux binaries and how to
/// start them here), or else from `cargo run` of the debug build of the checkout at
/// `root` — in the workspace's target directory `target_dir`, whose dependencies are built
/// already (the checkout's own would start from nothing).
fn completions(root: &Path, target_dir: &Path, runnable: Option<(PathBuf, Vec<String>)>) -> Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for (shell, file) in [("bash", "hookhost.bash"), ("zsh", "_hookhost"), ("fish", "hookhost.fish"), ("powershell", "_hookhost.ps1")] {
        let mut cmd = match &runnable {
            Some((dir, runner)) => {
                let program = dir.join("hookhost");
                let mut c = Command::new(runner.first().map(PathBuf::from).unwrap_or_else(|| program.clone()));
                if !runner.is_empty() {
                    c.args(&runner[1..]).arg(&program);
                }
                c
            }
            None => {
                let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
                c.current_dir(root).args(["run", "-q", "--locked", "-p", "hookhost-cli", "--bin", "hookhost", "--target-dir"]).arg(target_dir).arg("--");
                c
            }
        };
        let output = cmd.args(["completions", shell]).stdin(std::process::Stdio::null()).output().context("running hookhost completions")?;
        if !output.status.success() || output.stdout.is_empty() {
            bail!("hookhost completions {shell} failed: {}", String::from_utf8_lossy(&output.stderr).trim());
        }
        out.push((file.to_string(), output.stdout));
    }
    Ok(out)
}

/// The release key, opened.
struct Signer {
    key: minisign::SecretKey,
    public: minisign::PublicKey,
    /// Its public key, base64 (what `minisign -P` takes).
    public_key: String,
    /// Its public key file (`minisign -p`).
    public_file: String,
}

impl Signer {
    fn open(path: &Path, root: &Path, unofficial: bool) -> Result<Signer> {
        let text = std::fs::read_to_string(path).with_context(|| format!("--key {}: cannot read the secret key", path.display()))?;
        let boxed = minisign::SecretKeyBox::from_string(&text).map_err(|e| anyhow::anyhow!("--key {}: not a minisign secret key ({e})", path.display()))?;
        let key = match std::env::var("HOOKHOST_RELEASE_KEY_PASSWORD") {
            Ok(pw) => boxed.into_secret_key(Some(pw)),
            Err(_) => boxed.into_unencrypted_secret_key(),
        }
        .map_err(|e| anyhow::anyhow!("--key {}: cannot open it ({e}); an encrypted key's password goes in HOOKHOST_RELEASE_KEY_PASSWORD", path.display()))?;
        let public = minisign::PublicKey::from_secret_key(&key).map_err(|e| anyhow::anyhow!("--key {}: {e}", path.display()))?;
        let public_key = public.to_base64();
        let official = std::fs::read_to_string(root.join("packaging/release.pub")).context("reading packaging/release.pub")?;
        let official_key = official.lines().nth(1).unwrap_or_default().trim();
        if !unofficial && official_key != public_key {
            bail!("--key {} is not hookhost's release key (packaging/release.pub holds {official_key}); pass --unofficial to sign a release of your own, whose installers then carry your key", path.display());
        }
        let public_file = public.to_box().map_err(|e| anyhow::anyhow!("{e}"))?.into_string();
        Ok(Signer { key, public, public_key, public_file })
    }

    /// A minisign signature of `bytes` whose trusted comment is `comment`.
    fn sign(&self, bytes: &[u8], comment: &str) -> Result<String> {
        let sig = minisign::sign(Some(&self.public), &self.key, std::io::Cursor::new(bytes), Some(comment), Some("signature of a hookhost release artifact")).map_err(|e| anyhow::anyhow!("signing: {e}"))?;
        Ok(sig.into_string())
    }
}
