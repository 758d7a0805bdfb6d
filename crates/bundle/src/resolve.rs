//! From a config's `bundles = [...]` to a [`Plan`]: find each reference's digest (the lock
//! file, the reference itself, or the registry), fetch it (local directory registry, or an OCI
//! registry through the content-addressed cache), check it (digests, then the trust policy)
//! before anything is compiled or cached, and turn its hook specs into `{bundle}:{name}` hooks.

use super::revoke::{self, List, Revoked};
use super::store::{open_artifact, Artifact, Store};
use super::trust::Policy;
use super::{Bundle, BundleError, ErrorKind};
use hookhost_config::{ConfigError, ConfigFile, Plan, Registry};
use hookhost_config::BundlePlugin;
use hookhost_types::{BundleName, BundleRef, Capability, Digest, HookSpec, PluginRef, Problem};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod revocations;
mod source;
mod tags;

use source::{DirSource, OciSource, Source};

/// What a caller is told while bundles move (a terminal shows it; an embedder may log it).
pub trait Progress: Send + Sync {
    /// A bundle is about to be pulled from a registry.
    fn pulling(&self, bundle: &BundleName, registry: &str, digest: &str) {
        let _ = (bundle, registry, digest);
    }
    /// A blob was pushed (`up`) or is being pulled: its title (or digest) and size.
    fn blob(&self, up: bool, title: &str, size: u64) {
        let _ = (up, title, size);
    }
}

fn lock_error(message: String) -> BundleError {
    BundleError::new(ErrorKind::Lock, message)
}

/// A lock file: the digest each bundle reference resolved to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    /// Reference as written (`local/acme/guard@1.0.0`) → artifact digest.
    #[serde(default)]
    pub bundles: BTreeMap<String, Digest>,
}

/// Where a config's lock file lives: next to it, with the extension `lock`.
pub fn lock_path(config: &Path) -> PathBuf {
    config.with_extension("lock")
}

impl Lock {
    /// Read a lock file; `None` when there is none.
    pub fn read(path: &Path) -> Result<Option<Lock>, BundleError> {
        match std::fs::read_to_string(path) {
            Ok(text) => toml::from_str(&text).map(Some).map_err(|e| lock_error(format!("{}: not a hookhost lock file ({}); delete it and write it again", path.display(), e.message().trim()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(lock_error(format!("{}: cannot read the lock file ({e})", path.display())).with_source(e)),
        }
    }

    /// Write the lock file (with a header saying what it is).
    pub fn write(&self, path: &Path) -> Result<(), BundleError> {
        let text = format!("# hookhost lock file: the digest each bundle reference resolved to.\n# Commit it; `--locked` refuses any bundle not pinned here. Regenerate with `hookhost lock`.\n\n{}", toml::to_string(self).expect("toml"));
        std::fs::write(path, text).map_err(|e| BundleError::new(ErrorKind::Io, format!("{}: cannot write the lock file ({e})", path.display())).with_source(e))
    }
}

/// How the lock file is used.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LockMode {
    /// Use pinned digests when present; resolve the rest.
    #[default]
    Prefer,
    /// Refuse any reference the lock file does not pin (`--locked`).
    Locked,
    /// Resolve every reference afresh (`hookhost lock`).
    Update,
}

/// A fetched, checked and trusted bundle.
pub struct Fetched {
    /// The bundle, checked.
    pub bundle: Bundle,
    /// The artifact digest (what the lock file records).
    pub digest: Digest,
    /// Trusted signers' key ids.
    pub signers: Vec<String>,
    /// Every signature it carries (what a mirror copies along).
    pub signatures: Vec<String>,
    /// Its revocation list as read (what a mirror copies along too).
    pub revocations: List,
}

/// Fetch and check one bundle. Nothing reaches the cache before it is checked; a corrupt cache
/// entry is evicted and fetched again. Its revocations are read with it (a directory registry's
/// every time; an OCI registry's when the registry is contacted, else the copy cached then) and
/// a revoked version or key refuses it.
pub async fn fetch(r: &BundleRef, registry: &Registry, pinned: Option<&Digest>, cache: Option<&Path>, policy: &Policy, progress: Option<&Arc<dyn Progress>>) -> Result<Fetched, BundleError> {
    fetch_with(r, registry, pinned, cache, policy, progress, FetchOptions::default()).await
}

/// How [`fetch_with`] treats the network.
#[derive(Debug, Clone, Copy)]
pub struct FetchOptions {
    /// Ask an OCI registry for the revocations even when the bundle is cached (`hookhost
    /// update`).
    pub refresh: bool,
    /// How long a tag's resolution is kept to fall back on while the registry is unreachable.
    pub resolve_ttl: std::time::Duration,
}

impl Default for FetchOptions {
    fn default() -> FetchOptions {
        FetchOptions { refresh: false, resolve_ttl: hookhost_config::DEFAULT_RESOLVE_TTL }
    }
}

/// [`fetch`] with options.
pub async fn fetch_with(r: &BundleRef, registry: &Registry, pinned: Option<&Digest>, cache: Option<&Path>, policy: &Policy, progress: Option<&Arc<dyn Progress>>, opts: FetchOptions) -> Result<Fetched, BundleError> {
    match registry {
        Registry::Dir(dir) => fetch_from(&DirSource::new(r, dir, cache), r, pinned, cache, policy, opts).await,
        Registry::Oci(location) => fetch_from(&OciSource::new(r, location, cache, progress, opts.resolve_ttl)?, r, pinned, cache, policy, opts).await,
    }
}

/// One reference from one [`Source`]: the digest, the artifact, its revocations, the checks,
/// and a verified copy kept in the cache.
async fn fetch_from(source: &impl Source, r: &BundleRef, pinned: Option<&Digest>, cache: Option<&Path>, policy: &Policy, opts: FetchOptions) -> Result<Fetched, BundleError> {
    let from = format!("bundle {r}");
    // The list as read and what the trust policy honours of it, verified once per fetch.
    let verified = |list: List| {
        let revoked = revoke::verify(&list, &r.name, policy);
        (list, revoked)
    };
    // The digest: pinned (the reference's own, or the lock file's), else what the tag names
    // now — asked with the registry's revocations read first (a range skips revoked versions).
    let mut revocations = None;
    let digest_hint = r.digest.as_ref().or(pinned);
    let (digest, tag) = match digest_hint {
        Some(d) => (d.clone(), None),
        None => {
            let read = verified(source.revocations(true).await?);
            let (digest, tag) = source.tag(&read.1).await?;
            revocations = Some(read);
            (digest.parse::<Digest>().map_err(|e| BundleError::new(ErrorKind::Registry, format!("{from}: {e}")))?, tag)
        }
    };
    // The artifact, from the cache or the registry in the order the source prefers. A damaged
    // cached copy is dropped (and fetched again where the registry has it).
    let cache_store = cache.map(|c| Store::new(c.join("bundles")));
    let cached = || match cache_store.as_ref().map(|c| (c, c.get(digest.as_str()))) {
        Some((_, Ok(artifact))) => Some(artifact),
        Some((c, Err(e))) if e.kind() != ErrorKind::NotFound => {
            tracing::warn!(bundle = %r, "cached copy is damaged, fetching it again: {e}");
            c.evict(digest.as_str());
            None
        }
        _ => None,
    };
    let (artifact, from_cache) = match source.cache_first().then(cached).flatten() {
        Some(artifact) => (artifact, true),
        None => match source.artifact(&digest).await {
            Ok(artifact) => (artifact, false),
            Err(e) if e.kind() == ErrorKind::NotFound && !source.cache_first() => match cached() {
                Some(artifact) => {
                    tracing::info!(bundle = %r, "the registry does not hold {digest}; the copy cached when it did is used");
                    (artifact, true)
                }
                None => return Err(e),
            },
            Err(e) => return Err(e),
        },
    };
    // Revocations not read yet: from the registry when it was contacted (or this is a refresh),
    // else as they were when it last was.
    let revocations = match revocations {
        Some(read) => read,
        None => verified(source.revocations(!from_cache || opts.refresh).await?),
    };
    let fetched = check(r, policy, &artifact, digest, revocations, tag.as_deref())?;
    if let (Some(cache_store), false) = (&cache_store, from_cache) {
        if !cache_store.holds(fetched.digest.as_str()) {
            if let Err(e) = cache_store.put(&artifact, None) {
                tracing::warn!(bundle = %r, "cannot cache the bundle: {e}");
            }
        }
    }
    if digest_hint.is_none() {
        source.resolved(&fetched.digest);
    }
    Ok(fetched)
}

/// Open `artifact` (fetched for `r` as `digest`) and check it: it is the bundle asked for, a
/// version's `tag` (when the digest was read from one) names that very version — a tag
/// re-pointed at an older signed artifact is a downgrade — and neither the version nor a signer
/// is revoked; then `policy`.
fn check(r: &BundleRef, policy: &Policy, artifact: &Artifact, digest: Digest, (list, revoked): (List, Revoked), tag: Option<&str>) -> Result<Fetched, BundleError> {
    let from = format!("bundle {r}");
    let (bundle, signatures) = open_artifact(artifact, &from)?;
    if bundle.manifest.name != r.name.as_str() || !r.admits(&bundle.manifest.version) {
        return Err(BundleError::new(ErrorKind::Integrity, format!("{from}: the registry served {} instead; a registry may not substitute one bundle for another", bundle.manifest.id())));
    }
    if let Some(version) = tag.map(|t| t.replace('_', "+")).filter(|v| semver::Version::parse(v).is_ok()) {
        if bundle.manifest.version != version {
            return Err(BundleError::new(
                ErrorKind::Integrity,
                format!("{from}: the registry's tag {version} names an artifact of version {} ({digest}); a version's tag must name that version (the tag was re-pointed or rolled back): ask the publisher to push {version} again", bundle.manifest.version),
            ));
        }
    }
    for line in &revoked.ignored {
        tracing::warn!(bundle = %r, "{line}");
    }
    if let Some(notice) = revoked.versions.get(&bundle.manifest.version) {
        return Err(BundleError::new(
            ErrorKind::Revoked,
            format!("{from} ({}): this version is {}; it is refused even when a lock file pins it: move to another version (`hookhost update`) or remove it", bundle.manifest.id(), notice.describe()),
        ));
    }
    let revoked_keys = revoked.keys.iter().map(|(id, notice)| (id.clone(), notice.describe())).collect();
    let signers = policy.check_revoked(&bundle, &signatures, &from, &revoked_keys)?;
    Ok(Fetched { bundle, digest, signers, signatures, revocations: list })
}

/// How bundles are resolved.
#[derive(Clone, Default)]
pub struct Resolver {
    /// How the lock file next to the config is used.
    pub lock_mode: LockMode,
    /// Told of pulls and blobs as they move.
    pub progress: Option<Arc<dyn Progress>>,
    /// Where pulled bundles are cached (`{dir}/bundles`), overriding the config's cache
    /// directory; `Some(None)`: not cached.
    pub cache_dir: Option<Option<PathBuf>>,
}

/// What resolving a config produced.
pub struct Resolution {
    /// What a host loads.
    pub plan: Plan,
    /// The digest each bundle reference resolved to (what a lock file records).
    pub lock: Lock,
    /// Each bundle resolved, in declaration order.
    pub bundles: Vec<Resolved>,
}

/// One bundle as resolved (what `hookhost update` compares).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The reference as written.
    pub reference: String,
    /// The version it resolved to.
    pub version: String,
    /// The artifact digest.
    pub digest: Digest,
    /// Its plugin files and the capabilities each declares.
    pub capabilities: BTreeMap<String, Vec<String>>,
    /// The layer that listed it (`User` for a single config).
    pub layer: hookhost_config::LayerKind,
}

/// Resolve every layer's bundles (each against the lock file next to its own file) and merge
/// the layers into one plan. The lock returned is the user layer's.
///
/// A project layer that fails here — a bundle that does not resolve, or resolves to another
/// artifact than the one approved, a conflict with a higher layer as they merge — is left out
/// (`Plan::project_note` says why) and the other layers resolve as if there were no project.
pub async fn resolve_layers(layers: hookhost_config::Layers, resolver: &Resolver) -> Result<Resolution, BundleError> {
    let fallback = layers.project_fallback();
    match (resolve_each(layers, resolver).await, fallback) {
        (Err(e), Some(fallback)) => match fallback.without_project(&fallback.failure(&e)) {
            Ok(without) => resolve_each(without, resolver).await,
            Err(config) => Err(BundleError::new(ErrorKind::Config, config.to_string())),
        },
        (resolved, _) => resolved,
    }
}

async fn resolve_each(layers: hookhost_config::Layers, resolver: &Resolver) -> Result<Resolution, BundleError> {
    let (layers, merge) = layers.into_parts();
    let mut plans = Vec::with_capacity(layers.len());
    let mut lock = Lock::default();
    let mut bundles = Vec::new();
    for layer in layers {
        let kind = layer.kind;
        let resolved = resolve(layer.config, resolver).await?;
        if kind == hookhost_config::LayerKind::User {
            lock = resolved.lock;
        }
        if let (hookhost_config::LayerKind::Project, Some(approved)) = (kind, merge.approved_project_bundles()) {
            for b in &resolved.bundles {
                let digest = b.digest.to_string();
                match approved.get(&b.reference) {
                    Some(d) if *d == digest => {}
                    Some(d) => {
                        return Err(BundleError::new(ErrorKind::Integrity, format!("bundle {} now resolves to {digest}, not the {d} you approved with the project; review the change and run `hookhost trust` again", b.reference)));
                    }
                    None => return Err(BundleError::new(ErrorKind::Integrity, format!("bundle {} ({digest}) was not approved with the project; review it and run `hookhost trust` again", b.reference))),
                }
            }
        }
        bundles.extend(resolved.bundles.into_iter().map(|b| Resolved { layer: kind, ..b }));
        plans.push((kind, resolved.plan));
    }
    let plan = merge.merge(plans).map_err(|e| BundleError::new(ErrorKind::Config, e.to_string()))?;
    Ok(Resolution { plan, lock, bundles })
}

/// Resolve every bundle of a config: fetched and checked in declaration order, their hooks
/// placed before the user's own. A config without bundles resolves without any I/O.
pub async fn resolve(config: ConfigFile, resolver: &Resolver) -> Result<Resolution, BundleError> {
    let mode = resolver.lock_mode;
    if config.bundles.is_empty() {
        return Ok(Resolution { plan: Plan::base(config), lock: Lock::default(), bundles: Vec::new() });
    }
    let source = config.source.display().to_string();
    let policy = Policy::from_config(&config.trust).map_err(|problems| BundleError::new(ErrorKind::Config, ConfigError::new(config.source.clone(), problems).to_string()))?;
    let lock_file = lock_path(&config.source);
    let lock = match mode {
        LockMode::Prefer | LockMode::Locked => Lock::read(&lock_file)?,
        LockMode::Update => None,
    };
    // Re-resolving: a version's tag must still name the digest it was locked to.
    let previous = match mode {
        LockMode::Update => Lock::read(&lock_file).unwrap_or(None),
        _ => None,
    };
    let opts = FetchOptions { refresh: mode == LockMode::Update, resolve_ttl: config.settings.resolve_ttl };
    let mut resolved = Vec::new();
    if mode == LockMode::Locked && lock.is_none() && config.bundles.iter().any(|b| b.reference.digest.is_none()) {
        return Err(lock_error(format!("{source}: locked, but there is no lock file {}", lock_file.display())));
    }
    let cache = resolver.cache_dir.clone().unwrap_or_else(|| config.effective_cache_dir());
    let mut new_lock = Lock::default();
    let mut contributed: Vec<HookSpec> = Vec::new();
    let mut problems = Vec::new();
    let mut seen_names = BTreeMap::new();
    let mut muted = Vec::new();
    let mut bundle_plugins = std::collections::HashMap::new();
    for decl in &config.bundles {
        let r = &decl.reference;
        let key = r.to_string();
        let pinned = lock.as_ref().and_then(|l| l.bundles.get(&key));
        if mode == LockMode::Locked && pinned.is_none() && r.digest.is_none() {
            return Err(lock_error(format!("{source}: {}: {key} is not in the lock file {}", decl.at, lock_file.display())));
        }
        let registry = config.registries.get(&r.registry).expect("validated at parse");
        let fetched = fetch_with(r, registry, pinned, cache.as_deref(), &policy, resolver.progress.as_ref(), opts).await?;
        if let Some(before) = previous.as_ref().and_then(|l| l.bundles.get(&key)).filter(|d| r.version.is_some() && !r.is_range() && **d != fetched.digest) {
            return Err(BundleError::new(
                ErrorKind::Integrity,
                format!("{source}: {}: the tag of {key} moved: the lock file pins {before}, the registry now names {}; a published version must not change (a registry or a publisher replaced it). Ask the publisher; if you trust the new artifact, delete its line from {} and run again", decl.at, fetched.digest, lock_file.display()),
            ));
        }
        resolved.push(Resolved {
            reference: key.clone(),
            version: fetched.bundle.manifest.version.clone(),
            digest: fetched.digest.clone(),
            capabilities: fetched.bundle.manifest.plugins.iter().map(|p| (p.file.clone(), p.capabilities.clone())).collect(),
            layer: hookhost_config::LayerKind::User,
        });
        if let Some(first) = seen_names.insert(fetched.bundle.manifest.name.clone(), decl.at.clone()) {
            return Err(BundleError::new(ErrorKind::Config, format!("{source}: {}: bundle {} is also listed at {first}; list each bundle once", decl.at, fetched.bundle.manifest.name)));
        }
        tracing::info!(bundle = %key, digest = %fetched.digest, signers = ?fetched.signers, "bundle verified");
        new_lock.bundles.insert(key.clone(), fetched.digest.clone());
        let Bundle { manifest: m, parts, .. } = fetched.bundle;
        let name = r.name.clone();
        let mut files = parts.files;
        // Each plugin file once: its verified bytes (the manifest's sha256 was checked against
        // them), and what it declares. It holds a capability only when declared here and granted
        // to it by name (`Plan::holds`).
        for p in &m.plugins {
            let plugin = PluginRef::Bundle { bundle: name.clone(), file: p.file.clone() };
            let declared: std::collections::BTreeSet<Capability> = p.capabilities.iter().filter_map(|c| c.parse().ok()).collect();
            for cap in config.settings.grants.named(&plugin).filter(|c| !declared.contains(c)) {
                tracing::warn!(%plugin, capability = %cap, "granted, but the bundle's manifest does not declare it: not in effect");
            }
            let bytes = files.remove(&p.file).expect("checked: the manifest lists exactly the files held");
            let digest = Digest::from_hex(&p.sha256).expect("checked when the manifest was read");
            bundle_plugins.insert(plugin, BundlePlugin { bytes: Arc::from(bytes), digest, declared });
        }
        for (i, raw) in m.hooks.iter().enumerate() {
            let at = format!("bundle {} hooks[{i}]", m.id());
            let Some(mut spec) = config.validate_bundle_hook(raw.clone(), &m.name, i, &at, decl.mode, &mut problems) else { continue };
            spec.plugin = spec.plugin.in_bundle(&name);
            if config.disabled_contributions.iter().any(|d| spec.id == *d) {
                tracing::info!(hook_id = %spec.id, "contributed hook muted by disabled_contributions");
                muted.push(spec.id.to_string());
                continue;
            }
            // Bundle HookIds hold a '/', so they can only collide with each other.
            if contributed.iter().any(|h| h.id == spec.id) {
                problems.push(Problem::at(format!("{at}.id"), format!("duplicate hook id {:?}", spec.id)));
                continue;
            }
            contributed.push(spec);
        }
    }
    if !problems.is_empty() {
        return Err(BundleError::new(ErrorKind::Config, format!("{source}: {} problem(s) in bundle hooks:{}", problems.len(), hookhost_types::problem::bulleted(&problems))));
    }
    let plan = Plan::with_bundles(config, contributed, muted, bundle_plugins);
    Ok(Resolution { plan, lock: new_lock, bundles: resolved })
}
