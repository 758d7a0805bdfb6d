//! From a config's `bundles = [...]` to a [`Plan`]: find each reference's digest (the lock
//! file, the reference itself, or the registry), fetch it (local directory registry, or an OCI
//! registry through the content-addressed cache), check it (digests, then the trust policy)
//! before anything is compiled or cached, and turn its hook specs into `{bundle}:{name}` hooks.

use super::oci::{tag_of, Remote};
use super::revoke::{self, List, Revoked};
use super::store::{open_artifact, Artifact, Store};
use super::trust::Policy;
use super::{Bundle, BundleError, ErrorKind};
use hookhost_config::{ConfigFile, Plan, Registry};
use hookhost_config::BundlePlugin;
use hookhost_types::{BundleName, BundleRef, Capability, Digest, HookSpec, PluginRef};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    let from = format!("bundle {r}");
    // The list as read and what the trust policy honours of it, verified once per fetch.
    let verified = |list: List| {
        let revoked = revoke::verify(&list, &r.name, policy);
        (list, revoked)
    };
    // `tag`: the tag the digest was read from, when it was (a version tag must name an artifact
    // of that very version: a tag re-pointed at an older signed artifact is a downgrade).
    let check = |artifact: &Artifact, digest: Digest, (list, revoked): (List, Revoked), tag: Option<&str>| -> Result<Fetched, BundleError> {
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
    };
    let digest_hint = r.digest.as_ref().or(pinned);
    let parse_digest = |d: String| d.parse::<Digest>().map_err(|e| BundleError::new(ErrorKind::Registry, format!("{from}: {e}")));
    match registry {
        Registry::Dir(dir) => {
            let store = Store::new(dir);
            // Revocations are sticky here too: a list rolled back to before a revocation does
            // not withdraw what this host has seen (kept in the cache, per registry and bundle).
            let sticky_file = cache.map(|c| dir_revocations_cache(c, dir, &r.name));
            let revocations = verified(sticky(dir_revocations(&store, &r.name)?, sticky_file.as_deref(), &r.name));
            let mut tag = None;
            let digest = match digest_hint {
                Some(d) => d.clone(),
                None => {
                    let (digest, read_from) = resolve_dir_tag(&store, r, dir, &revocations.1)?;
                    tag = Some(read_from);
                    parse_digest(digest)?
                }
            };
            // A verified copy is kept in the cache, as for OCI pulls: a locked config runs on when
            // the registry directory is gone (an unmounted share, a deleted checkout).
            let cache_store = cache.map(|c| Store::new(c.join("bundles")));
            let (artifact, from_registry) = match store.get(digest.as_str()) {
                Ok(a) => (a, true),
                Err(e) if e.kind() == ErrorKind::NotFound => match cache_store.as_ref().map(|c| c.get(digest.as_str())) {
                    Some(Ok(a)) => {
                        tracing::info!(bundle = %r, "{} does not hold {digest}; the copy cached when it did is used", dir.display());
                        (a, false)
                    }
                    _ => return Err(BundleError::new(ErrorKind::NotFound, format!("{from}: not found: {}", e.message()))),
                },
                Err(e) if e.kind() == ErrorKind::Integrity => return Err(BundleError::new(ErrorKind::Integrity, format!("{from}: the registry is corrupt: {}; push the bundle again", e.message()))),
                Err(e) => return Err(e.context(&from)),
            };
            let fetched = check(&artifact, digest, revocations, tag.as_deref())?;
            if let (Some(cache_store), true) = (&cache_store, from_registry) {
                if !cache_store.holds(fetched.digest.as_str()) {
                    if let Err(e) = cache_store.put(&artifact, None) {
                        tracing::warn!(bundle = %r, "cannot cache the bundle: {e}");
                    }
                }
            }
            Ok(fetched)
        }
        Registry::Oci(location) => {
            let mut remote = Remote::new(location)?;
            remote.progress = progress.cloned();
            let revocations_file = cache.map(|c| revocations_cache(c, &remote, &r.name));
            // Asking the registry for the tag: its revocations are read now, once (a range
            // skips revoked versions).
            let mut revocations = None;
            let mut tag = None;
            let digest = match digest_hint {
                Some(d) => d.clone(),
                None => {
                    let fresh = verified(oci_revocations(&remote, &r.name, revocations_file.as_deref()).await);
                    let asked = async {
                        let t = oci_tag(r, &remote, &fresh.1).await?;
                        let digest = remote.resolve(&r.name, &t).await.map_err(|e| e.context(&from))?;
                        tag = Some(t);
                        Ok(digest)
                    }
                    .await;
                    revocations = Some(fresh);
                    parse_digest(remembered_resolution(cache, &remote, r, asked, opts.resolve_ttl)?)?
                }
            };
            let cache_store = cache.map(|c| Store::new(c.join("bundles")));
            if let Some(cache_store) = &cache_store {
                match cache_store.get(digest.as_str()) {
                    Ok(artifact) => {
                        // Offline unless refreshing: the revocations cached when the registry was
                        // last asked.
                        let revocations = match (revocations, opts.refresh, &revocations_file) {
                            (Some(read), _, _) => read,
                            (None, true, _) => verified(oci_revocations(&remote, &r.name, revocations_file.as_deref()).await),
                            (None, false, Some(f)) => verified(cached_revocations(f)),
                            (None, false, None) => verified(List::default()),
                        };
                        let fetched = check(&artifact, digest, revocations, tag.as_deref())?;
                        if let (Some(cache), None) = (cache, digest_hint) {
                            remember_resolution(cache, &remote, r, &fetched.digest);
                        }
                        return Ok(fetched);
                    }
                    Err(e) if e.kind() == ErrorKind::NotFound => {}
                    Err(e) => {
                        tracing::warn!(bundle = %r, "cached copy is damaged, fetching it again: {e}");
                        cache_store.evict(digest.as_str());
                    }
                }
            }
            if let Some(p) = progress {
                p.pulling(&r.name, &remote.registry, digest.as_str());
            }
            let artifact = remote.fetch(&r.name, digest.as_str()).await.map_err(|e| e.context(&from))?;
            let revocations = match revocations {
                Some(read) => read,
                None => verified(oci_revocations(&remote, &r.name, revocations_file.as_deref()).await),
            };
            let fetched = check(&artifact, digest, revocations, tag.as_deref())?;
            if let Some(cache_store) = &cache_store {
                if let Err(e) = cache_store.put(&artifact, None) {
                    tracing::warn!(bundle = %r, "cannot cache the bundle: {e}");
                }
            }
            if let (Some(cache), None) = (cache, digest_hint) {
                remember_resolution(cache, &remote, r, &fetched.digest);
            }
            Ok(fetched)
        }
    }
}

/// A tag's resolution, remembered in the cache: when the registry cannot be reached, a
/// resolution made within `ttl` stands in for it (with a warning); an older one does not.
fn resolution_key(remote: &Remote, r: &BundleRef) -> String {
    format!("{}/{}@{}", remote.registry, remote.repository(&r.name), r.version.as_deref().unwrap_or_default())
}

fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Remember that `r` resolved to `digest` (once the bundle it names was verified).
fn remember_resolution(cache: &Path, remote: &Remote, r: &BundleRef, digest: &Digest) {
    let file = cache.join("resolutions.json");
    let mut known: BTreeMap<String, (String, u64)> = std::fs::read(&file).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
    known.insert(resolution_key(remote, r), (digest.to_string(), now_secs()));
    let tmp = file.with_extension("json.tmp");
    let written = std::fs::create_dir_all(cache).and_then(|_| std::fs::write(&tmp, serde_json::to_vec(&known).expect("json"))).and_then(|_| std::fs::rename(&tmp, &file));
    if let Err(e) = written {
        tracing::warn!("cannot remember the resolution of {r}: {e}");
    }
}

/// The registry's answer for a tag, or when it cannot be reached, a resolution remembered
/// within `ttl` (with a warning).
fn remembered_resolution(cache: Option<&Path>, remote: &Remote, r: &BundleRef, asked: Result<String, BundleError>, ttl: std::time::Duration) -> Result<String, BundleError> {
    let Some(cache) = cache else { return asked };
    let now = now_secs();
    let known: BTreeMap<String, (String, u64)> = std::fs::read(cache.join("resolutions.json")).ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
    match asked {
        Ok(digest) => Ok(digest),
        Err(e) if e.kind() == ErrorKind::Unreachable => match known.get(&resolution_key(remote, r)) {
            Some((digest, at)) if now.saturating_sub(*at) < ttl.as_secs() => {
                tracing::warn!("{e}; using its resolution from {} ago ({digest}, within resolve_ttl); run `hookhost lock` to stop depending on the registry", ago(now.saturating_sub(*at)));
                Ok(digest.clone())
            }
            Some((_, at)) => Err(BundleError::new(ErrorKind::Unreachable, format!("{}; its last resolution is {} old, beyond resolve_ttl ({}); write a lock file (`hookhost lock`) so runs do not depend on the registry", e.message(), ago(now.saturating_sub(*at)), ago(ttl.as_secs())))),
            None => Err(e),
        },
        Err(e) => Err(e),
    }
}

/// `3m`, `2h 5m`, `40s`.
fn ago(secs: u64) -> String {
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m", secs / 60),
        _ => format!("{}h {}m", secs / 3600, secs % 3600 / 60),
    }
}

/// The digest a directory registry's tag names.
fn resolve_dir_tag(store: &Store, r: &BundleRef, dir: &Path, revoked: &Revoked) -> Result<(String, String), BundleError> {
    let from = format!("bundle {r}");
    let tag = match r.version.as_deref() {
        Some(_) if r.is_range() => {
            let tags: Vec<String> = store.list()?.into_iter().filter_map(|(reference, _)| reference.strip_prefix(&format!("{}:", r.name)).map(str::to_string)).collect();
            newest(r, &tags, revoked).map_err(|why| BundleError::new(ErrorKind::NotFound, format!("{from}: not found: the registry {} has {why}", dir.display())))?
        }
        v => tag_of(v.unwrap_or_default()),
    };
    let reference = format!("{}:{tag}", r.name);
    let digest = store.resolve(&reference).map_err(|e| e.context(&from))?.ok_or_else(|| BundleError::new(ErrorKind::NotFound, format!("{from}: not found: the registry {} has no {reference}", dir.display())))?;
    Ok((digest, tag))
}

/// The OCI tag of a reference: its version, or for a range the newest matching tag.
async fn oci_tag(r: &BundleRef, remote: &Remote, revoked: &Revoked) -> Result<String, BundleError> {
    let from = format!("bundle {r}");
    match r.version.as_deref() {
        Some(_) if r.is_range() => {
            let tags = remote.tags(&r.name).await.map_err(|e| e.context(&from))?;
            newest(r, &tags, revoked).map_err(|why| BundleError::new(ErrorKind::NotFound, format!("{from}: not found: {} has {why}", remote.registry)))
        }
        v => Ok(tag_of(v.unwrap_or_default())),
    }
}

/// The newest tag whose version `r`'s range admits and no trusted revocation withdrew; else
/// what the registry has instead (`no version of acme/guard matching ^2 (it has 1.0.0, 1.1.0)`).
fn newest(r: &BundleRef, tags: &[String], revoked: &Revoked) -> Result<String, String> {
    let versions: Vec<(semver::Version, &String)> = tags.iter().filter_map(|t| semver::Version::parse(&t.replace('_', "+")).ok().map(|v| (v, t))).collect();
    let matching: Vec<&(semver::Version, &String)> = versions.iter().filter(|(v, _)| r.admits(&v.to_string())).collect();
    if let Some((_, tag)) = matching.iter().filter(|(v, _)| !revoked.versions.contains_key(&v.to_string())).max_by(|a, b| a.0.cmp(&b.0)) {
        return Ok((*tag).clone());
    }
    let range = r.version.as_deref().unwrap_or_default();
    if matching.is_empty() {
        let mut all: Vec<&semver::Version> = versions.iter().map(|(v, _)| v).collect();
        all.sort();
        let has = if all.is_empty() { "no versions".to_string() } else { all.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ") };
        return Err(format!("no version of {} matching {range} (it has {has})", r.name));
    }
    let why: Vec<String> = matching.iter().map(|(v, _)| format!("{v} {}", revoked.versions[&v.to_string()].describe())).collect();
    Err(format!("no version of {} matching {range} that is not revoked ({})", r.name, why.join("; ")))
}

/// A directory registry's revocation list for `name` (none when it has none).
fn dir_revocations(store: &Store, name: &BundleName) -> Result<List, BundleError> {
    let from = format!("{} {name}:{}", store.root.display(), revoke::TAG);
    match store.resolve(&format!("{name}:{}", revoke::TAG))? {
        None => Ok(List::default()),
        Some(digest) => List::from_artifact(&store.get(&digest)?, &from),
    }
}

/// Where an OCI registry's revocation list for `name` is cached.
fn revocations_cache(cache: &Path, remote: &Remote, name: &BundleName) -> PathBuf {
    let key = hookhost_types::ids::sha256_hex(format!("{}/{}", remote.registry, remote.repository(name)).as_bytes());
    cache.join("revocations").join(format!("{key}.json"))
}

fn cached_revocations(file: &Path) -> List {
    match std::fs::read(file) {
        // This host's own record of what it has seen: not capped like a registry's list (a
        // registry serving junk records must not push real ones out).
        Ok(bytes) => serde_json::from_slice::<List>(&bytes).map_err(|e| format!("{}: {e}", file.display())).unwrap_or_else(|e| {
            tracing::warn!("the cached revocation list is damaged ({e}); run `hookhost update` to fetch it again");
            List::default()
        }),
        Err(_) => List::default(),
    }
}

/// Where a directory registry's revocation list for `name`, as seen, is kept.
fn dir_revocations_cache(cache: &Path, dir: &Path, name: &BundleName) -> PathBuf {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let key = hookhost_types::ids::sha256_hex(format!("dir:{}/{name}", dir.display()).as_bytes());
    cache.join("revocations").join(format!("{key}.json"))
}

/// Revocations are sticky: the records of `fetched` joined to those seen before (kept in
/// `file`), so a registry that later serves a shorter list (or none) — rolled back, or replaced
/// — does not withdraw what this host has seen. Which records count is decided by the trust
/// policy each time (`revoke::verify`).
fn sticky(fetched: List, file: Option<&Path>, name: &BundleName) -> List {
    let mut list = file.map(cached_revocations).unwrap_or_default();
    let before = list.revocations.len();
    for entry in fetched.revocations {
        if !list.revocations.contains(&entry) {
            list.revocations.push(entry);
        }
    }
    if let Some(file) = file.filter(|_| list.revocations.len() > before) {
        let write = || -> std::io::Result<()> {
            std::fs::create_dir_all(file.parent().expect("has a parent"))?;
            let tmp = file.with_extension("json.tmp");
            std::fs::write(&tmp, serde_json::to_vec(&list).expect("json"))?;
            std::fs::rename(&tmp, file)
        };
        if let Err(e) = write() {
            tracing::warn!("cannot keep the revocations of {name}: {e}");
        }
    }
    list
}

/// An OCI registry's revocation list for `name`, cached in `file`. Unreachable or broken: the
/// cached copy, with a warning.
async fn oci_revocations(remote: &Remote, name: &BundleName, file: Option<&Path>) -> List {
    let fetched = async {
        let digest = match remote.resolve(name, revoke::TAG).await {
            Ok(d) => d,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(List::default()),
            Err(e) => return Err(e),
        };
        let artifact = remote.fetch(name, &digest).await?;
        List::from_artifact(&artifact, &format!("{}/{}:{}", remote.registry, remote.repository(name), revoke::TAG))
    }
    .await;
    match fetched {
        Ok(fetched) => sticky(fetched, file, name),
        Err(e) => {
            tracing::warn!("cannot read the revocations of {name} from {}: {e}; using the copy fetched before", remote.registry);
            file.map(cached_revocations).unwrap_or_default()
        }
    }
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
    let policy = Policy::from_config(&config.trust).map_err(|problems| BundleError::new(ErrorKind::Config, format!("{source}: {}", problems.join("; "))))?;
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
            let Some(mut spec) = config.validate_bundle_hook(raw.clone(), &m.name, i, &at, &mut problems) else { continue };
            spec.plugin = spec.plugin.in_bundle(&name);
            if config.disabled_contributions.contains(&spec.id) {
                tracing::info!(hook_id = %spec.id, "contributed hook muted by disabled_contributions");
                muted.push(spec.id.clone());
                continue;
            }
            // Bundle HookIds hold a '/', so they can only collide with each other.
            if contributed.iter().any(|h| h.id == spec.id) {
                problems.push(format!("{at}.id: duplicate hook id {:?}", spec.id));
                continue;
            }
            contributed.push(spec);
        }
    }
    if !problems.is_empty() {
        return Err(BundleError::new(ErrorKind::Config, format!("{source}: {} problem(s) in bundle hooks:\n  - {}", problems.len(), problems.join("\n  - "))));
    }
    let mut plan = Plan::base(config);
    plan.muted.extend(muted);
    plan.bundle_plugins = bundle_plugins;
    let at = plan.hooks.iter().position(|h| h.id.starts_with("user:")).unwrap_or(plan.hooks.len());
    plan.hooks.splice(at..at, contributed);
    Ok(Resolution { plan, lock: new_lock, bundles: resolved })
}
