//! Where a bundle comes from: one [`Source`] per kind of registry — a directory, an OCI
//! registry — so that fetching a reference is one path whatever holds it (`fetch_from` in the
//! parent module): its digest (pinned, or what its tag names now), its artifact (from the
//! registry or from the cache, in the order the source prefers), its revocations, the checks.

use super::revocations::{cached_revocations, dir_revocations, dir_revocations_cache, oci_revocations, revocations_cache, sticky};
use super::tags::{oci_tag, remember_resolution, remembered_resolution, resolve_dir_tag};
use super::Progress;
use crate::oci::Remote;
use crate::revoke::{List, Revoked};
use crate::store::{Artifact, Store};
use crate::{BundleError, ErrorKind};
use hookhost_types::{BundleRef, Digest};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A registry as a fetch of one bundle reference sees it.
pub(super) trait Source {
    /// Whether a copy in the cache is tried before the registry. A remote registry: yes (no
    /// network for a bundle already verified and cached). A directory registry: only when it
    /// does not hold the artifact (it is at hand, and a locked config runs on when it is gone).
    fn cache_first(&self) -> bool;

    /// The bundle's revocation list. `fresh`: as the registry has it now (where it can be
    /// reached); else the copy kept when it was last read may serve.
    fn revocations(&self, fresh: bool) -> impl Future<Output = Result<List, BundleError>> + Send;

    /// The digest the reference's tag names now (a range: the newest version `revoked` leaves),
    /// and the tag it was read from when the registry answered.
    fn tag(&self, revoked: &Revoked) -> impl Future<Output = Result<(String, Option<String>), BundleError>> + Send;

    /// The artifact with `digest`, from the registry.
    fn artifact(&self, digest: &Digest) -> impl Future<Output = Result<Artifact, BundleError>> + Send;

    /// The reference's tag resolved to `digest`, and the bundle was verified.
    fn resolved(&self, digest: &Digest) {
        let _ = digest;
    }
}

/// A directory registry (`registries.NAME = { dir = "..." }`).
pub(super) struct DirSource<'a> {
    r: &'a BundleRef,
    dir: &'a Path,
    store: Store,
    /// Where the revocations seen are kept (sticky: a list rolled back to before a revocation
    /// does not withdraw it), per registry and bundle, in the cache.
    seen: Option<PathBuf>,
}

impl<'a> DirSource<'a> {
    pub(super) fn new(r: &'a BundleRef, dir: &'a Path, cache: Option<&Path>) -> DirSource<'a> {
        DirSource { r, dir, store: Store::new(dir), seen: cache.map(|c| dir_revocations_cache(c, dir, &r.name)) }
    }
}

impl Source for DirSource<'_> {
    fn cache_first(&self) -> bool {
        false
    }

    // The directory is at hand: always read as it is now.
    async fn revocations(&self, _fresh: bool) -> Result<List, BundleError> {
        Ok(sticky(dir_revocations(&self.store, &self.r.name)?, self.seen.as_deref(), &self.r.name))
    }

    async fn tag(&self, revoked: &Revoked) -> Result<(String, Option<String>), BundleError> {
        resolve_dir_tag(&self.store, self.r, self.dir, revoked).map(|(digest, tag)| (digest, Some(tag)))
    }

    async fn artifact(&self, digest: &Digest) -> Result<Artifact, BundleError> {
        let from = format!("bundle {}", self.r);
        self.store.get(digest.as_str()).map_err(|e| match e.kind() {
            ErrorKind::NotFound => BundleError::new(ErrorKind::NotFound, format!("{from}: not found: {}", e.message())),
            ErrorKind::Integrity => BundleError::new(ErrorKind::Integrity, format!("{from}: the registry is corrupt: {}; push the bundle again", e.message())),
            _ => e.context(&from),
        })
    }
}

/// An OCI registry (`registries.NAME = { oci = "..." }`).
pub(super) struct OciSource<'a> {
    r: &'a BundleRef,
    remote: Remote,
    cache: Option<&'a Path>,
    /// Where its revocation list is kept when read, for the runs that do not ask.
    seen: Option<PathBuf>,
    /// How long a tag's resolution serves while the registry cannot be reached.
    resolve_ttl: std::time::Duration,
}

impl<'a> OciSource<'a> {
    pub(super) fn new(r: &'a BundleRef, location: &hookhost_config::OciLocation, cache: Option<&'a Path>, progress: Option<&Arc<dyn Progress>>, resolve_ttl: std::time::Duration) -> Result<OciSource<'a>, BundleError> {
        let mut remote = Remote::new(location)?;
        remote.progress = progress.cloned();
        let seen = cache.map(|c| revocations_cache(c, &remote, &r.name));
        Ok(OciSource { r, remote, cache, seen, resolve_ttl })
    }
}

impl Source for OciSource<'_> {
    fn cache_first(&self) -> bool {
        true
    }

    async fn revocations(&self, fresh: bool) -> Result<List, BundleError> {
        Ok(match (fresh, &self.seen) {
            (true, _) => oci_revocations(&self.remote, &self.r.name, self.seen.as_deref()).await,
            (false, Some(seen)) => cached_revocations(seen),
            (false, None) => List::default(),
        })
    }

    async fn tag(&self, revoked: &Revoked) -> Result<(String, Option<String>), BundleError> {
        let from = format!("bundle {}", self.r);
        let mut tag = None;
        let asked = async {
            let t = oci_tag(self.r, &self.remote, revoked).await?;
            let digest = self.remote.resolve(&self.r.name, &t).await.map_err(|e| e.context(&from))?;
            tag = Some(t);
            Ok(digest)
        }
        .await;
        // Unreachable: a resolution remembered within resolve_ttl serves (no tag then).
        let digest = remembered_resolution(self.cache, &self.remote, self.r, asked, self.resolve_ttl)?;
        Ok((digest, tag))
    }

    async fn artifact(&self, digest: &Digest) -> Result<Artifact, BundleError> {
        if let Some(p) = &self.remote.progress {
            p.pulling(&self.r.name, &self.remote.registry, digest.as_str());
        }
        self.remote.fetch(&self.r.name, digest.as_str()).await.map_err(|e| e.context(&format!("bundle {}", self.r)))
    }

    fn resolved(&self, digest: &Digest) {
        if let Some(cache) = self.cache {
            remember_resolution(cache, &self.remote, self.r, digest);
        }
    }
}
