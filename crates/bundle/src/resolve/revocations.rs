//! A bundle's revocation list as a resolve sees it: from a directory or OCI registry, kept in
//! the cache, and sticky (a registry that drops a record cannot take a revocation back).

use crate::oci::Remote;
use crate::revoke::{self, List};
use crate::store::Store;
use crate::{BundleError, ErrorKind};
use hookhost_types::BundleName;
use std::path::{Path, PathBuf};

/// A directory registry's revocation list for `name` (none when it has none).
pub(super) fn dir_revocations(store: &Store, name: &BundleName) -> Result<List, BundleError> {
    let from = format!("{} {name}:{}", store.root.display(), revoke::TAG);
    match store.resolve(&format!("{name}:{}", revoke::TAG))? {
        None => Ok(List::default()),
        Some(digest) => List::from_artifact(&store.get(&digest)?, &from),
    }
}

/// Where an OCI registry's revocation list for `name` is cached.
pub(super) fn revocations_cache(cache: &Path, remote: &Remote, name: &BundleName) -> PathBuf {
    let key = hookhost_types::ids::sha256_hex(format!("{}/{}", remote.registry, remote.repository(name)).as_bytes());
    cache.join("revocations").join(format!("{key}.json"))
}

pub(super) fn cached_revocations(file: &Path) -> List {
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
pub(super) fn dir_revocations_cache(cache: &Path, dir: &Path, name: &BundleName) -> PathBuf {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let key = hookhost_types::ids::sha256_hex(format!("dir:{}/{name}", dir.display()).as_bytes());
    cache.join("revocations").join(format!("{key}.json"))
}

/// Revocations are sticky: the records of `fetched` joined to those seen before (kept in
/// `file`), so a registry that later serves a shorter list (or none) — rolled back, or replaced
/// — does not withdraw what this host has seen. Which records count is decided by the trust
/// policy each time (`revoke::verify`).
pub(super) fn sticky(fetched: List, file: Option<&Path>, name: &BundleName) -> List {
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
pub(super) async fn oci_revocations(remote: &Remote, name: &BundleName, file: Option<&Path>) -> List {
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
