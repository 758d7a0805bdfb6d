//! `hookhost bundle …`, `hookhost key …`, `hookhost registry …`, `hookhost lock`: building,
//! signing and moving bundles.

use crate::{usage, HostArgs};
use anyhow::Result;
use clap::Subcommand;
use hookhost_bundle::oci::{tag_of, Remote};
use hookhost_bundle::store::{Artifact, Store};
use hookhost_bundle::trust::{self, Policy};
use hookhost_bundle::{self as bundle, Bundle, LockMode};
use hookhost_config::{ConfigFile, Registry};
use hookhost_types::ids::sha256_hex;
use hookhost_types::BundleRef;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod lock;
pub(crate) use lock::*;

#[derive(Subcommand)]
pub enum BundleCommand {
    /// Pack a bundle directory (bundle.toml + plugin files) into one archive.
    Pack {
        dir: PathBuf,
        /// Output file. Default: `NAMESPACE-NAME-VERSION.hhb` in the current directory.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Show what a bundle holds: name, version, files with digests and capabilities, hooks,
    /// the manifest digest and the trusted comment a signature must carry.
    Inspect {
        bundle: PathBuf,
        #[arg(long)]
        json: bool,
        /// Say, for each capability a plugin requests, whether this config grants it.
        #[arg(long, short)]
        config: Option<PathBuf>,
    },
    /// Check a bundle: every file against the manifest, and its signatures against the trust
    /// policy of `--config` or the public keys given with `--key`.
    Verify {
        bundle: PathBuf,
        #[command(flatten)]
        trust: TrustArgs,
        #[command(flatten)]
        sigs: SigArgs,
    },
    /// Sign a bundle's manifest (writes `BUNDLE.KEYID.minisig`, minisign format).
    Sign {
        bundle: PathBuf,
        /// The secret key (minisign format). Encrypted keys read their password from
        /// HOOKHOST_KEY_PASSWORD.
        #[arg(long)]
        key: PathBuf,
        /// Signature file to write.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
    /// Print the manifest's exact bytes (what signatures cover; for `minisign -S/-V -m`).
    Manifest { bundle: PathBuf },
    /// Write a bundle's files into a directory (confined to it).
    Unpack { bundle: PathBuf, dir: PathBuf },
    /// Revoke a published version (NAME@VERSION), or with --revoke-key a signing key (NAME
    /// names the bundle whose list carries it): sign a revocation record and publish it next
    /// to the bundle in REGISTRY. Hosts refuse a revoked version or key even when a lock file
    /// pins it, from the next time they read the registry (`hookhost update`).
    Revoke {
        /// The secret key that signs the revocation (a key the hosts trust for the bundle's
        /// namespace). Encrypted keys read their password from HOOKHOST_KEY_PASSWORD.
        #[arg(long)]
        key: PathBuf,
        /// Why: every host that refuses it says this.
        #[arg(long)]
        reason: String,
        /// Revoke this signing key (its id, 16 hex digits, as `hookhost key generate` and
        /// `bundle inspect` print it) instead of a version.
        #[arg(long, value_name = "KEYID")]
        revoke_key: Option<String>,
        /// `namespace/name@version`, or `namespace/name` with --revoke-key.
        target: String,
        /// The registry: a directory, or oci://host[:port]/prefix.
        registry: String,
    },
}

#[derive(Subcommand)]
pub enum KeyCommand {
    /// Generate a signing key pair: PREFIX.key (secret, mode 0600) and PREFIX.pub.
    Generate {
        /// Path prefix of the two files.
        #[arg(long, short, default_value = "hookhost")]
        output: PathBuf,
        /// Replace existing files.
        #[arg(long)]
        force: bool,
    },
}

#[derive(Subcommand)]
pub enum RegistryCommand {
    /// Push a bundle (and its signatures) to a registry: a directory, or oci://host[:port]/prefix.
    Push {
        bundle: PathBuf,
        registry: String,
        #[command(flatten)]
        sigs: SigArgs,
    },
    /// Fetch a bundle (REGISTRY/namespace/name@version or @sha256:…), verify it, and keep it in
    /// the cache (or in the directory registry given with --to).
    Pull {
        reference: String,
        #[command(flatten)]
        trust: TrustArgs,
        /// Copy into this local directory registry instead of the cache.
        #[arg(long)]
        to: Option<PathBuf>,
    },
    /// List the bundles and versions of a registry.
    List { registry: String },
}

#[derive(clap::Args)]
pub struct TrustArgs {
    /// Use this config's [trust] policy (and its [registries] for names).
    #[arg(long, short)]
    config: Option<PathBuf>,
    /// Trust this public key (minisign .pub file) for any bundle. Repeatable.
    #[arg(long, value_name = "PUBKEY")]
    key: Vec<PathBuf>,
}

#[derive(clap::Args)]
pub struct SigArgs {
    /// Signature files. Default: BUNDLE.minisig and BUNDLE.*.minisig next to the bundle.
    #[arg(long = "sig", value_name = "FILE")]
    sigs: Vec<PathBuf>,
}

fn read_bundle(path: &Path) -> Result<Bundle> {
    let bytes = std::fs::read(path).map_err(|e| usage(format!("cannot read the bundle {}: {e}", path.display())))?;
    let shown = path.display().to_string();
    Ok(Bundle::from_parts(bundle::read_archive(&bytes, &shown)?, &shown)?)
}

/// The signature files of a bundle: explicit ones, else its `.minisig` siblings.
fn signatures(bundle: &Path, explicit: &SigArgs) -> Result<Vec<String>> {
    let mut files = explicit.sigs.clone();
    if files.is_empty() {
        let name = bundle.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let dir = bundle.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                let f = entry.file_name().to_string_lossy().into_owned();
                if f.starts_with(&format!("{name}.")) && f.ends_with(".minisig") {
                    files.push(entry.path());
                }
            }
        }
        files.sort();
    }
    files.iter().map(|f| std::fs::read_to_string(f).map_err(|e| usage(format!("cannot read the signature {}: {e}", f.display())))).collect()
}

/// The trust policy of `--config` (already loaded as `config`) or of `--key` files.
fn policy(args: &TrustArgs, config: Option<&ConfigFile>) -> Result<Policy> {
    match (config, args.key.is_empty()) {
        (Some(_), false) => Err(usage("give --config or --key, not both")),
        (Some(config), true) => Policy::from_config(&config.trust).map_err(|problems| usage(hookhost_config::ConfigError::new(config.source.clone(), problems).to_string())),
        (None, false) => {
            let keys = args.key.iter().map(|p| std::fs::read_to_string(p).map(|t| (p.display().to_string(), t)).map_err(|e| usage(format!("cannot read the key {}: {e}", p.display())))).collect::<Result<Vec<_>>>()?;
            Policy::trusting(&keys).map_err(usage)
        }
        (None, true) => Err(usage("nothing to check signatures against: pass --key PUBKEY (a minisign .pub file) or --config with a [trust] section")),
    }
}

pub async fn bundle(cmd: BundleCommand) -> Result<ExitCode> {
    match cmd {
        BundleCommand::Pack { dir, output } => {
            let b = bundle::pack(&dir)?;
            let out = output.unwrap_or_else(|| PathBuf::from(format!("{}-{}.hhb", b.manifest.name.replace('/', "-"), b.manifest.version)));
            let archive = b.archive();
            std::fs::write(&out, &archive).map_err(|e| usage(format!("cannot write {}: {e}", out.display())))?;
            say!("packed {} → {} ({}, sha256:{})", b.manifest.id(), out.display(), crate::table::human_bytes(archive.len()), sha256_hex(&archive));
            say!("manifest {}; sign it with `hookhost bundle sign --key KEY {}`", b.manifest_digest, out.display());
            Ok(ExitCode::SUCCESS)
        }
        BundleCommand::Inspect { bundle, json, config } => {
            let b = read_bundle(&bundle)?;
            let grants = config.as_deref().map(ConfigFile::load).transpose().map_err(usage)?.map(|c| c.settings.grants);
            let sigs = signatures(&bundle, &SigArgs { sigs: vec![] })?;
            let signer_ids: Vec<String> = sigs.iter().map(|s| trust::signature_key_id(s).unwrap_or_else(|e| e)).collect();
            if json {
                let v = serde_json::json!({
                    "manifest": serde_json::from_slice::<serde_json::Value>(&b.parts.manifest)?,
                    "manifest_digest": b.manifest_digest,
                    "archive_sha256": sha256_hex(&b.archive()),
                    "trusted_comment": trust::trusted_comment(&b),
                    "signatures": signer_ids,
                });
                say!("{}", serde_json::to_string_pretty(&v)?);
                return Ok(ExitCode::SUCCESS);
            }
            let m = &b.manifest;
            say!("{}  {}", m.id(), m.description);
            say!("  manifest   {}", b.manifest_digest);
            say!("  needs      hookhost >= {}, {}", m.min_hookhost, m.wit);
            for p in &m.plugins {
                let caps = if p.capabilities.is_empty() { String::new() } else { format!("  requests {}", p.capabilities.join(", ")) };
                say!("  file       {} ({}, sha256:{}){caps}", p.file, crate::table::human_bytes(p.size as usize), p.sha256);
                // With --config: what that config would let it hold (a bundle's plugin holds only
                // what is granted to it by name).
                if let (Some(grants), Ok(bundle)) = (&grants, m.name.parse()) {
                    let plugin = hookhost::PluginRef::Bundle { bundle, file: p.file.clone() };
                    for cap in &p.capabilities {
                        let granted = cap.parse::<hookhost::Capability>().is_ok_and(|c| grants.allows(&plugin, &c));
                        let how = if granted { "granted by the config".to_string() } else { format!("not granted (to let it: \"{plugin}\" = [\"{cap}\"] under [grants])") };
                        say!("             {cap}: {how}");
                    }
                }
            }
            for (i, h) in m.hooks.iter().enumerate() {
                let id = h.id.clone().unwrap_or_else(|| format!("{}_{i}", h.event));
                say!("  hook       {}:{id} on {} → {}", m.name, h.event, h.executor.plugin);
            }
            say!("  sign with  trusted comment {:?}", trust::trusted_comment(&b));
            if signer_ids.is_empty() {
                say!("  signatures none found next to {}", bundle.display());
            } else {
                say!("  signatures by key {} (not verified; use `hookhost bundle verify`)", signer_ids.join(", "));
            }
            Ok(ExitCode::SUCCESS)
        }
        BundleCommand::Verify { bundle, trust, sigs } => {
            let config = trust.config.as_deref().map(ConfigFile::load).transpose().map_err(usage)?;
            let policy = policy(&trust, config.as_ref())?;
            let b = read_bundle(&bundle)?;
            let sigs = signatures(&bundle, &sigs)?;
            let signers = policy.check(&b, &sigs, &bundle.display().to_string())?;
            say!("ok: {} — {} file(s) match the manifest {}; trusted signer(s): {}", b.manifest.id(), b.parts.files.len(), b.manifest_digest, if signers.is_empty() { "none (not required)".to_string() } else { signers.join(", ") });
            Ok(ExitCode::SUCCESS)
        }
        BundleCommand::Sign { bundle, key, output } => {
            let b = read_bundle(&bundle)?;
            let secret = std::fs::read_to_string(&key).map_err(|e| usage(format!("cannot read the secret key {}: {e}", key.display())))?;
            let password = std::env::var("HOOKHOST_KEY_PASSWORD").ok();
            let (sig, id) = trust::sign(&b, &secret, password).map_err(|e| usage(format!("{}: {e}", key.display())))?;
            let out = output.unwrap_or_else(|| PathBuf::from(format!("{}.{id}.minisig", bundle.display())));
            std::fs::write(&out, sig).map_err(|e| usage(format!("cannot write {}: {e}", out.display())))?;
            say!("signed {} with key {id} → {}", b.manifest.id(), out.display());
            Ok(ExitCode::SUCCESS)
        }
        BundleCommand::Manifest { bundle } => {
            let b = read_bundle(&bundle)?;
            use std::io::Write;
            std::io::stdout().write_all(&b.parts.manifest)?;
            Ok(ExitCode::SUCCESS)
        }
        BundleCommand::Revoke { key, reason, revoke_key, target, registry } => {
            let (name, version) = match (target.split_once('@'), &revoke_key) {
                (Some((n, v)), None) if format!("r/{target}").parse::<BundleRef>().is_ok_and(|r| r.version.is_some() && !r.is_range()) => (n.to_string(), Some(v.to_string())),
                (Some(_), Some(_)) => return Err(usage("with --revoke-key, name the bundle without a version (namespace/name)")),
                (None, Some(_)) => (target.clone(), None),
                _ => return Err(usage(format!("{target:?}: name the version to revoke, namespace/name@1.2.0 (or pass --revoke-key KEYID)"))),
            };
            let name: hookhost_types::BundleName = name.parse().map_err(|_| usage(format!("{name:?} is not a bundle name (namespace/name)")))?;
            let revoked_key = match revoke_key {
                Some(k) if k.len() == 16 && k.bytes().all(|b| b.is_ascii_hexdigit()) => Some(k.to_ascii_uppercase()),
                Some(k) => return Err(usage(format!("--revoke-key: {k:?} is not a key id (16 hex digits)"))),
                None => None,
            };
            if reason.trim().is_empty() {
                return Err(usage("--reason: say why; every host that refuses it shows this"));
            }
            let record = bundle::revoke::Record {
                kind: bundle::revoke::COMMENT_PREFIX.to_string(),
                bundle: name.to_string(),
                version: version.clone(),
                key: revoked_key.clone(),
                reason,
                issued: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()),
            };
            let secret = std::fs::read_to_string(&key).map_err(|e| usage(format!("cannot read the secret key {}: {e}", key.display())))?;
            let (entry, id) = bundle::revoke::sign(&record, &secret, std::env::var("HOOKHOST_KEY_PASSWORD").ok()).map_err(|e| usage(format!("{}: {e}", key.display())))?;
            let reg = Registry::from_location(&registry).map_err(|e| usage(e))?;
            let count = bundle::revoke::publish(&reg, &name, entry).await?;
            let what = match (&version, &revoked_key) {
                (Some(v), _) => format!("{name}@{v}"),
                (None, Some(k)) => format!("key {k} (for {name})"),
                _ => unreachable!("checked above"),
            };
            say!("revoked {what}, signed by key {id} → {}/{name}:{} ({count} revocation(s))", registry.trim_end_matches('/'), bundle::revoke::TAG);
            Ok(ExitCode::SUCCESS)
        }
        BundleCommand::Unpack { bundle, dir } => {
            let b = read_bundle(&bundle)?;
            bundle::unpack(&b, &dir)?;
            say!("unpacked {} into {}", b.manifest.id(), dir.display());
            Ok(ExitCode::SUCCESS)
        }
    }
}

pub fn key(cmd: KeyCommand) -> Result<ExitCode> {
    let KeyCommand::Generate { output, force } = cmd;
    let secret_path = output.with_extension("key");
    let public_path = output.with_extension("pub");
    for p in [&secret_path, &public_path] {
        if p.exists() && !force {
            return Err(usage(format!("{} exists; pass --force to replace it, or choose another --output", p.display())));
        }
    }
    let label = output.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "hookhost".into());
    let (secret, public, id) = trust::generate_key(&label).map_err(usage)?;
    {
        use std::io::Write;
        let mut f = hookhost::types::owner::create_private_file(&secret_path).map_err(|e| usage(format!("cannot write {}: {e}", secret_path.display())))?;
        f.write_all(secret.as_bytes())?;
    }
    std::fs::write(&public_path, &public).map_err(|e| usage(format!("cannot write {}: {e}", public_path.display())))?;
    say!("key {id}: secret key {} (keep it private; mode 0600), public key {}", secret_path.display(), public_path.display());
    say!("trust it with: [[trust.keys]] public_key = {:?}, allow = [\"your-namespace/*\"]", public.lines().nth(1).unwrap_or_default());
    Ok(ExitCode::SUCCESS)
}

fn split_reference(text: &str, config: Option<&ConfigFile>) -> Result<(BundleRef, Registry)> {
    // The registry part may be a location with slashes (oci://host/prefix, ./dir), so parse the
    // reference with a placeholder registry and keep what precedes namespace/name.
    let (path, _) = text.rsplit_once('@').ok_or_else(|| usage(format!("{text:?} has no @version; write REGISTRY/namespace/name@version")))?;
    let r: BundleRef = text.parse().map_err(usage)?;
    let location = path[..path.len() - r.name.len()].trim_end_matches('/');
    let registry = match config.and_then(|c| c.registries.get(location)) {
        Some(reg) => reg.clone(),
        None => Registry::from_location(location).map_err(|e| anyhow::anyhow!(e))?,
    };
    Ok((BundleRef { registry: location.to_string(), ..r }, registry))
}

pub async fn registry(cmd: RegistryCommand) -> Result<ExitCode> {
    let progress = crate::terminal_progress();
    match cmd {
        RegistryCommand::Push { bundle, registry, sigs } => {
            let b = read_bundle(&bundle)?;
            let sigs = signatures(&bundle, &sigs)?;
            let artifact = Artifact::of(&b, &sigs);
            let tag = tag_of(&b.manifest.version);
            let digest = match Registry::from_location(&registry).map_err(|e| anyhow::anyhow!(e))? {
                Registry::Dir(dir) => Store::new(&dir).put(&artifact, Some(&format!("{}:{tag}", b.manifest.name))).map_err(|e| anyhow::anyhow!("{e}"))?,
                Registry::Oci(location) => {
                    let mut remote = Remote::new(&location)?;
                    remote.progress = progress;
                    remote.push(&b.manifest.name, &tag, &artifact).await?
                }
            };
            say!("pushed {} with {} signature(s) → {}/{}@{} ({digest})", b.manifest.id(), sigs.len(), registry.trim_end_matches('/'), b.manifest.name, b.manifest.version);
            Ok(ExitCode::SUCCESS)
        }
        RegistryCommand::Pull { reference, trust, to } => {
            let config = trust.config.as_deref().map(ConfigFile::load).transpose().map_err(usage)?;
            let policy = policy(&trust, config.as_ref())?;
            let (r, registry) = split_reference(&reference, config.as_ref())?;
            let cache = hookhost_types::paths::cache_dir(config.as_ref().and_then(|c| c.settings.cache_dir.as_deref()));
            let fetched = hookhost_bundle::resolve::fetch(&r, &registry, None, cache.as_deref(), &policy, progress.as_ref()).await.map_err(|e| anyhow::anyhow!(crate::explain_bundle(&e, None)))?;
            if let Some(dir) = to {
                Store::new(&dir).put(&Artifact::of(&fetched.bundle, &fetched.signatures), Some(&format!("{}:{}", r.name, tag_of(&fetched.bundle.manifest.version)))).map_err(|e| anyhow::anyhow!("{e}"))?;
                // The revocations travel with it: a mirror must not run what its source withdrew.
                for entry in fetched.revocations.revocations.clone() {
                    bundle::revoke::publish(&Registry::Dir(dir.clone()), &r.name, entry).await?;
                }
            }
            say!("pulled {} ({}); trusted signer(s): {}", fetched.bundle.manifest.id(), fetched.digest, fetched.signers.join(", "));
            // Pre-warm: its plugins compiled into the precompile cache now, not on the agent's
            // first event.
            if let Some(cache) = &cache {
                let engine = hookhost::Engine::shared()?;
                let mut warmed = 0;
                for (file, bytes) in &fetched.bundle.parts.files {
                    engine.precompile(&format!("{}:{file}", r.name), bytes, cache).map_err(|e| anyhow::anyhow!("{e}"))?;
                    warmed += 1;
                }
                say!("precompiled {warmed} plugin(s) into {}", cache.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        RegistryCommand::List { registry } => {
            let rows: Vec<(String, Vec<String>)> = match Registry::from_location(&registry).map_err(|e| anyhow::anyhow!(e))? {
                Registry::Dir(dir) => {
                    if !dir.join("index.json").is_file() {
                        return Err(usage(format!("{} is not a directory registry (no index.json); push a bundle there first, or check the path", dir.display())));
                    }
                    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
                    for (reference, _) in Store::new(&dir).list().map_err(|e| anyhow::anyhow!("{e}"))? {
                        let (name, tag) = reference.rsplit_once(':').unwrap_or((&reference, ""));
                        match rows.iter_mut().find(|(n, _)| n == name) {
                            Some((_, tags)) => tags.push(tag.to_string()),
                            None => rows.push((name.to_string(), vec![tag.to_string()])),
                        }
                    }
                    rows
                }
                Registry::Oci(location) => Remote::new(&location)?.list().await?,
            };
            for (name, tags) in rows {
                say!("{name}  {}", tags.join(" "));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
