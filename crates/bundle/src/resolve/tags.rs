//! Which digest a tag names: asked of the registry, remembered for `resolve_ttl` (and when the
//! registry cannot be reached), newest first among the tags a version pattern matches.

use crate::oci::{tag_of, Remote};
use crate::revoke::Revoked;
use crate::store::Store;
use crate::{BundleError, ErrorKind};
use hookhost_types::{BundleRef, Digest};
use std::collections::BTreeMap;
use std::path::Path;

/// A tag's resolution, remembered in the cache: when the registry cannot be reached, a
/// resolution made within `ttl` stands in for it (with a warning); an older one does not.
fn resolution_key(remote: &Remote, r: &BundleRef) -> String {
    format!("{}/{}@{}", remote.registry, remote.repository(&r.name), r.version.as_deref().unwrap_or_default())
}

fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Remember that `r` resolved to `digest` (once the bundle it names was verified).
pub(super) fn remember_resolution(cache: &Path, remote: &Remote, r: &BundleRef, digest: &Digest) {
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
pub(super) fn remembered_resolution(cache: Option<&Path>, remote: &Remote, r: &BundleRef, asked: Result<String, BundleError>, ttl: std::time::Duration) -> Result<String, BundleError> {
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
pub(super) fn resolve_dir_tag(store: &Store, r: &BundleRef, dir: &Path, revoked: &Revoked) -> Result<(String, String), BundleError> {
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
pub(super) async fn oci_tag(r: &BundleRef, remote: &Remote, revoked: &Revoked) -> Result<String, BundleError> {
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
