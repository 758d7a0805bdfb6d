//! From a config's `bundles = [...]` to hooks in the chain: parse each reference, find its
//! digest (the lock file, the reference itself, or the registry), fetch it (local directory
//! registry, or an OCI registry through the content-addressed cache), check it (digests, then
//! the trust policy) before anything is compiled or cached, and turn its hook specs into
//! `{bundle}:{name}` hooks.

use super::oci::{tag_of, Remote};
use super::store::{open_artifact, Artifact, Store, StoreError};
use super::{Bundle, BundleError};
use crate::config::{Config, HookSpec, PluginRef};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// `registry/namespace/name@version` or `registry/namespace/name@sha256:<hex>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleRef {
    /// A registry name from the config (`local`, `org`), or a location on the command line.
    pub registry: String,
    /// `namespace/name`.
    pub name: String,
    pub version: Option<String>,
    pub digest: Option<String>,
}

impl std::fmt::Display for BundleRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}@{}", self.registry, self.name, self.digest.as_deref().or(self.version.as_deref()).unwrap_or(""))
    }
}

impl BundleRef {
    pub fn parse(text: &str) -> Result<BundleRef, String> {
        let usage = "write registry/namespace/name@version (like local/acme/secret-guard@1.4.0) or registry/namespace/name@sha256:<digest>";
        let (path, at) = text.rsplit_once('@').ok_or_else(|| format!("{text:?} has no @version; {usage}"))?;
        let mut parts: Vec<&str> = path.rsplitn(3, '/').collect();
        if parts.len() != 3 || parts[2].is_empty() {
            return Err(format!("{text:?} does not name a registry and a namespace/name; {usage}"));
        }
        parts.reverse();
        let name = format!("{}/{}", parts[1], parts[2]);
        if !super::valid_bundle_name(&name) {
            return Err(format!("{name:?} in {text:?} is not a bundle name (lowercase letters, digits, '-', '_', '.'); {usage}"));
        }
        let (version, digest) = match at.strip_prefix("sha256:") {
            Some(hex) if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()) => (None, Some(at.to_string())),
            Some(_) => return Err(format!("{at:?} in {text:?} is not a sha256 digest (64 lowercase hex digits)")),
            None if semver::Version::parse(at).is_ok() => (Some(at.to_string()), None),
            None => return Err(format!("{at:?} in {text:?} is not a semantic version; {usage}")),
        };
        Ok(BundleRef { registry: parts[0].to_string(), name, version, digest })
    }
}

/// `[registries.NAME]` as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawRegistry {
    /// A local directory registry (relative to the config file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// An OCI registry: `host[:port][/prefix]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oci: Option<String>,
    /// Allow plain HTTP to a registry that is not on loopback.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub insecure_http: bool,
}

/// A registry a bundle can come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registry {
    Dir(PathBuf),
    Oci { location: String, insecure_http: bool },
}

impl Registry {
    /// A registry named on the command line: `oci://host[:port][/prefix]` (also `https://` and
    /// `http://`, the latter for loopback only) or a directory.
    pub fn from_location(location: &str) -> Registry {
        if ["oci://", "https://", "http://"].iter().any(|s| location.starts_with(s)) {
            Registry::Oci { location: location.to_string(), insecure_http: false }
        } else {
            Registry::Dir(PathBuf::from(location))
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Registry::Dir(p) => p.display().to_string(),
            Registry::Oci { location, .. } => ["oci://", "https://", "http://"].iter().find_map(|s| location.strip_prefix(s)).unwrap_or(location).to_string(),
        }
    }
}

/// The default local directory registry: `$HOOKHOST_REGISTRY`, else
/// `$XDG_DATA_HOME/hookhost/registry`, else `~/.local/share/hookhost/registry`.
pub fn default_local_registry() -> PathBuf {
    if let Some(dir) = std::env::var_os("HOOKHOST_REGISTRY") {
        return PathBuf::from(dir);
    }
    let data = std::env::var_os("XDG_DATA_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")));
    data.unwrap_or_else(|| PathBuf::from(".")).join("hookhost/registry")
}

/// Validate `[registries]`; `local` exists even when not written.
pub fn registries(raw: &BTreeMap<String, RawRegistry>, base: &Path, problems: &mut Vec<String>) -> BTreeMap<String, Registry> {
    let mut out = BTreeMap::new();
    out.insert("local".to_string(), Registry::Dir(default_local_registry()));
    for (name, r) in raw {
        let at = format!("registries.{name}");
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_')) {
            problems.push(format!("{at}: registry names use lowercase letters, digits, '-' and '_'"));
            continue;
        }
        match (&r.path, &r.oci) {
            (Some(p), None) => {
                out.insert(name.clone(), Registry::Dir(base.join(p)));
            }
            (None, Some(loc)) => match Remote::new(loc, r.insecure_http) {
                Ok(_) => {
                    out.insert(name.clone(), Registry::Oci { location: loc.clone(), insecure_http: r.insecure_http });
                }
                Err(e) => problems.push(format!("{at}.oci: {e}")),
            },
            _ => problems.push(format!("{at}: give exactly one of path (a local directory registry) or oci (host[:port][/prefix])")),
        }
    }
    out
}

/// A lock file: the digest each bundle reference resolved to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    #[serde(default)]
    pub bundles: BTreeMap<String, String>,
}

/// Where a config's lock file lives: next to it, with the extension `lock`.
pub fn lock_path(config: &Path) -> PathBuf {
    config.with_extension("lock")
}

impl Lock {
    pub fn read(path: &Path) -> Result<Option<Lock>, BundleError> {
        match std::fs::read_to_string(path) {
            Ok(text) => toml::from_str(&text).map(Some).map_err(|e| BundleError(format!("{}: not a hookhost lock file ({}); delete it and run `hookhost lock`", path.display(), e.message().trim()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(BundleError(format!("{}: cannot read the lock file ({e})", path.display()))),
        }
    }

    pub fn write(&self, path: &Path) -> Result<(), BundleError> {
        let text = format!("# hookhost lock file: the digest each bundle reference resolved to.\n# Commit it; `--locked` refuses any bundle not pinned here. Regenerate with `hookhost lock`.\n\n{}", toml::to_string(self).expect("toml"));
        std::fs::write(path, text).map_err(|e| BundleError(format!("{}: cannot write the lock file ({e})", path.display())))
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
    pub bundle: Bundle,
    /// The artifact digest (what the lock file records).
    pub digest: String,
    /// Trusted signers' key ids.
    pub signers: Vec<String>,
    /// Every signature it carries (what a mirror copies along).
    pub signatures: Vec<String>,
}

/// Fetch and check one bundle. Nothing reaches the cache before it is checked; a corrupt cache
/// entry is evicted and fetched again.
pub async fn fetch(r: &BundleRef, registry: &Registry, pinned: Option<&str>, cache: Option<&Path>, policy: &super::trust::Policy, progress: bool) -> Result<Fetched, BundleError> {
    let from = format!("bundle {r}");
    let check = |artifact: &Artifact, digest: &str| -> Result<Fetched, BundleError> {
        let (bundle, signatures) = open_artifact(artifact, &from)?;
        if bundle.manifest.name != r.name || r.version.as_ref().is_some_and(|v| *v != bundle.manifest.version) {
            return Err(BundleError(format!("{from}: the registry served {} instead; a registry may not substitute one bundle for another", bundle.manifest.id())));
        }
        let signers = policy.check(&bundle, &signatures, &from)?;
        Ok(Fetched { bundle, digest: digest.to_string(), signers, signatures })
    };
    let digest_hint = r.digest.as_deref().or(pinned);
    match registry {
        Registry::Dir(dir) => {
            let store = Store::new(dir);
            let digest = match digest_hint {
                Some(d) => d.to_string(),
                None => {
                    let tag = format!("{}:{}", r.name, tag_of(r.version.as_deref().unwrap_or_default()));
                    store.resolve(&tag).map_err(|e| BundleError(format!("{from}: {e}")))?.ok_or_else(|| BundleError(format!("{from}: not found: the registry {} has no {tag}; push it with `hookhost registry push BUNDLE {}` or check `hookhost registry list {}`", dir.display(), dir.display(), dir.display())))?
                }
            };
            let artifact = store.get(&digest).map_err(|e| match e {
                StoreError::Missing(m) => BundleError(format!("{from}: not found: {m}")),
                StoreError::Corrupt(m) => BundleError(format!("{from}: the registry is corrupt: {m}; push the bundle again")),
                StoreError::Io(m) => BundleError(format!("{from}: {m}")),
            })?;
            check(&artifact, &digest)
        }
        Registry::Oci { location, insecure_http } => {
            let mut remote = Remote::new(location, *insecure_http)?;
            remote.progress = progress;
            let digest = match digest_hint {
                Some(d) => d.to_string(),
                None => remote.resolve(&r.name, &tag_of(r.version.as_deref().unwrap_or_default())).await.map_err(|e| BundleError(format!("{from}: {e}")))?,
            };
            let cache = cache.map(|c| Store::new(c.join("bundles")));
            if let Some(cache) = &cache {
                match cache.get(&digest) {
                    Ok(artifact) => {
                        return check(&artifact, &digest);
                    }
                    Err(StoreError::Missing(_)) => {}
                    Err(e) => {
                        tracing::warn!(bundle = %r, "cached copy is damaged, fetching it again: {e}");
                        cache.evict(&digest);
                    }
                }
            }
            if progress {
                eprintln!("pulling {} from {} ({digest})", r.name, remote.registry);
            }
            let artifact = remote.fetch(&r.name, &digest).await.map_err(|e| BundleError(format!("{from}: {e}")))?;
            let fetched = check(&artifact, &digest)?;
            if let Some(cache) = &cache {
                if let Err(e) = cache.put(&artifact, None) {
                    tracing::warn!(bundle = %r, "cannot cache the bundle: {e}");
                }
            }
            Ok(fetched)
        }
    }
}

/// Resolve every bundle of a config into hooks, in declaration order, placed before the user's
/// own hooks; the config's `bundles` are consumed. Returns the lock of what was resolved
/// (what `hookhost lock` writes).
pub async fn resolve(config: &mut Config, mode: LockMode) -> Result<Lock, crate::LoadError> {
    let bad = |m: String| crate::LoadError::Bundle(BundleError(m));
    let lock_file = lock_path(&config.source);
    let lock = match mode {
        LockMode::Prefer | LockMode::Locked => Lock::read(&lock_file).map_err(crate::LoadError::Bundle)?,
        LockMode::Update => None,
    };
    if mode == LockMode::Locked && lock.is_none() && config.bundles.iter().any(|b| b.reference.digest.is_none()) {
        return Err(bad(format!("{}: --locked, but there is no lock file {}; run `hookhost lock --config {}` and commit it", config.source.display(), lock_file.display(), config.source.display())));
    }
    let cache = crate::engine::cache_dir(config.cache_dir.as_deref());
    let mut new_lock = Lock::default();
    let mut contributed: Vec<HookSpec> = Vec::new();
    let mut problems = Vec::new();
    let decls = std::mem::take(&mut config.bundles);
    let mut seen_names = BTreeMap::new();
    for decl in &decls {
        let r = &decl.reference;
        let key = r.to_string();
        let pinned = lock.as_ref().and_then(|l| l.bundles.get(&key)).map(String::as_str);
        if mode == LockMode::Locked && pinned.is_none() && r.digest.is_none() {
            return Err(bad(format!("{}: {}: {key} is not in the lock file {}; run `hookhost lock --config {}` and commit the lock file", config.source.display(), decl.at, lock_file.display(), config.source.display())));
        }
        let registry = config.registries.get(&r.registry).expect("validated at parse");
        let fetched = fetch(r, registry, pinned, cache.as_deref(), &config.trust, decl.progress).await.map_err(crate::LoadError::Bundle)?;
        if let Some(first) = seen_names.insert(fetched.bundle.manifest.name.clone(), decl.at.clone()) {
            return Err(bad(format!("{}: {}: bundle {} is also listed at {first}; list each bundle once", config.source.display(), decl.at, fetched.bundle.manifest.name)));
        }
        tracing::info!(bundle = %key, digest = %fetched.digest, signers = ?fetched.signers, "bundle verified");
        new_lock.bundles.insert(key.clone(), fetched.digest.clone());
        let Bundle { manifest: m, parts, .. } = fetched.bundle;
        let mut files = parts.files;
        // Each plugin file once: its verified bytes (the manifest's sha256 was checked against
        // them), and what it declares. It holds a capability only when declared here and granted
        // to it by name (`Config::holds`).
        for p in &m.plugins {
            let plugin = PluginRef::Bundle { bundle: m.name.clone(), file: p.file.clone() };
            for cap in config.grants.per_plugin.get(&plugin).into_iter().flatten().filter(|c| !p.capabilities.contains(c)) {
                tracing::warn!(%plugin, capability = %cap, "granted, but the bundle's manifest does not declare it: not in effect");
            }
            config.bundle_caps.insert(plugin.clone(), p.capabilities.iter().cloned().collect());
            let bytes = files.remove(&p.file).expect("checked: the manifest lists exactly the files held");
            config.bundle_plugins.insert(plugin, (Arc::from(bytes), p.sha256.clone()));
        }
        for (i, raw) in m.hooks.iter().enumerate() {
            let at = format!("bundle {} hooks[{i}]", m.id());
            let Some(mut spec) = crate::config::validate_hook(raw.clone(), &m.name, i, &at, config.defaults, &mut problems) else { continue };
            let file = match &spec.plugin {
                PluginRef::Builtin(name) => format!("builtin:{name}"),
                PluginRef::Path(p) => p.to_string_lossy().into_owned(),
                PluginRef::Bundle { file, .. } => file.clone(),
            };
            spec.plugin = PluginRef::Bundle { bundle: m.name.clone(), file };
            if config.disabled_contributions.contains(&spec.id) {
                tracing::info!(hook_id = %spec.id, "contributed hook muted by disabled_contributions");
                config.muted.push(spec.id.clone());
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
        return Err(bad(format!("{}: {} problem(s) in bundle hooks:\n  - {}", config.source.display(), problems.len(), problems.join("\n  - "))));
    }
    for id in &config.disabled_contributions {
        if id.contains('/') && !config.muted.contains(id) {
            tracing::warn!(hook_id = %id, "disabled_contributions names no hook of this config's bundles");
        }
    }
    let at = config.hooks.iter().position(|h| h.id.starts_with("user:")).unwrap_or(config.hooks.len());
    config.hooks.splice(at..at, contributed);
    Ok(new_lock)
}
