//! Bundles as OCI artifacts, and a content-addressed store for them on disk.
//!
//! The artifact layout is the CNCF wasm one (config `application/vnd.wasm.config.v0+json`, each
//! plugin an `application/wasm` layer titled with its path) plus two hookhost layer types: the
//! bundle manifest and each signature. The same artifact is pushed to OCI registries and kept
//! in an [OCI image layout] directory, which is both the local directory registry and the cache
//! of pulled bundles — so a digest means the same thing everywhere.
//!
//! Reading from a store verifies every blob's digest; a store that does not match is reported
//! as corrupt, never returned.
//!
//! [OCI image layout]: https://github.com/opencontainers/image-spec/blob/main/image-layout.md

use super::{Bundle, BundleError, ErrorKind, Parts, MANIFEST_FILE, MAX_BUNDLE_BYTES, MAX_FILE_BYTES, MAX_FILES, MAX_MANIFEST_BYTES};
use oci_client::manifest::{OciDescriptor, OciImageManifest, OCI_IMAGE_MEDIA_TYPE};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The artifact config's media type (CNCF wasm).
pub const CONFIG_MEDIA_TYPE: &str = "application/vnd.wasm.config.v0+json";
/// A plugin layer's media type.
pub const WASM_MEDIA_TYPE: &str = "application/wasm";
/// The bundle manifest layer's media type.
pub const MANIFEST_MEDIA_TYPE: &str = "application/vnd.hookhost.bundle.manifest.v1+json";
/// A signature layer's media type.
pub const SIGNATURE_MEDIA_TYPE: &str = "application/vnd.hookhost.bundle.signature.v1+minisign";
const TITLE: &str = "org.opencontainers.image.title";
const REF_NAME: &str = "org.opencontainers.image.ref.name";
/// Largest OCI manifest accepted.
pub const MAX_OCI_MANIFEST_BYTES: usize = 1 << 20;
/// Largest signature blob.
const MAX_SIGNATURE_BYTES: u64 = 16 << 10;
const MAX_SIGNATURES: usize = 16;

/// A bundle as an OCI artifact: the image manifest (bytes as pushed) and every blob it names.
#[derive(Debug, Clone)]
pub struct Artifact {
    /// The OCI image manifest's bytes.
    pub manifest: Vec<u8>,
    /// Digest (`sha256:…`) → bytes, config included.
    pub blobs: BTreeMap<String, Vec<u8>>,
}

pub(crate) fn digest_of(bytes: &[u8]) -> String {
    hookhost_types::Digest::of(bytes).to_string()
}

pub(crate) fn descriptor(media_type: &str, bytes: &[u8], title: Option<&str>) -> OciDescriptor {
    OciDescriptor {
        media_type: media_type.to_string(),
        digest: digest_of(bytes),
        size: bytes.len() as i64,
        urls: None,
        annotations: title.map(|t| [(TITLE.to_string(), t.to_string())].into()),
        artifact_type: None,
    }
}

impl Artifact {
    /// The artifact of a bundle and its signatures. Same inputs, same bytes, same digest.
    pub fn of(bundle: &Bundle, signatures: &[String]) -> Artifact {
        let mut blobs = BTreeMap::new();
        let mut layers = vec![descriptor(MANIFEST_MEDIA_TYPE, &bundle.parts.manifest, Some(MANIFEST_FILE))];
        blobs.insert(digest_of(&bundle.parts.manifest), bundle.parts.manifest.clone());
        for (path, bytes) in &bundle.parts.files {
            layers.push(descriptor(WASM_MEDIA_TYPE, bytes, Some(path)));
            blobs.insert(digest_of(bytes), bytes.clone());
        }
        let wasm_digests: Vec<&str> = layers[1..].iter().map(|l| l.digest.as_str()).collect();
        let config = serde_json::to_vec(&json!({
            "architecture": "wasm",
            "os": "wasip2",
            "layerDigests": wasm_digests,
            "hookhost": { "bundle": bundle.manifest.name, "version": bundle.manifest.version, "manifest": bundle.manifest_digest },
        }))
        .expect("json");
        for sig in signatures {
            layers.push(descriptor(SIGNATURE_MEDIA_TYPE, sig.as_bytes(), None));
            blobs.insert(digest_of(sig.as_bytes()), sig.as_bytes().to_vec());
        }
        let config_desc = descriptor(CONFIG_MEDIA_TYPE, &config, None);
        blobs.insert(config_desc.digest.clone(), config);
        let manifest = OciImageManifest {
            schema_version: 2,
            media_type: Some(OCI_IMAGE_MEDIA_TYPE.to_string()),
            config: config_desc,
            layers,
            subject: None,
            artifact_type: None,
            annotations: Some(
                [
                    ("org.opencontainers.image.title".to_string(), bundle.manifest.name.clone()),
                    ("org.opencontainers.image.version".to_string(), bundle.manifest.version.clone()),
                ]
                .into(),
            ),
        };
        Artifact { manifest: serde_json::to_vec(&manifest).expect("json"), blobs }
    }

    /// `sha256:…` of the image manifest: the artifact's identity.
    pub fn digest(&self) -> String {
        digest_of(&self.manifest)
    }
}

/// What an OCI image manifest says a bundle artifact holds, checked: media types, titles,
/// sizes under the caps. `from` names the source in messages.
pub struct Layout {
    /// The image manifest, checked.
    pub image: OciImageManifest,
}

/// The config media type of a revocation list artifact.
pub const REVOCATIONS_CONFIG_MEDIA_TYPE: &str = "application/vnd.hookhost.revocations.config.v1+json";
/// The media type of its one layer: the list.
pub const REVOCATIONS_LIST_MEDIA_TYPE: &str = "application/vnd.hookhost.revocations.v1+json";
/// The largest list accepted.
const MAX_REVOCATIONS_BYTES: i64 = 1 << 20;

/// Check the OCI manifest of a revocation list artifact: one list layer under its cap.
fn check_revocations_layout(image: OciImageManifest, from: &str) -> Result<Layout, BundleError> {
    let fail = |m: String| Err(BundleError::new(ErrorKind::Registry, format!("{from}: {m}")));
    if image.layers.len() != 1 || image.layers[0].media_type != REVOCATIONS_LIST_MEDIA_TYPE {
        return fail(format!("a revocation list artifact has exactly one {REVOCATIONS_LIST_MEDIA_TYPE} layer"));
    }
    let layer = &image.layers[0];
    if layer.size < 0 || layer.size > MAX_REVOCATIONS_BYTES {
        return fail(format!("the revocation list declares {} bytes, over the cap of {MAX_REVOCATIONS_BYTES}", layer.size));
    }
    if !layer.digest.starts_with("sha256:") || image.config.size < 0 || image.config.size > 64 << 10 {
        return fail("the revocation list artifact's descriptors are malformed".into());
    }
    Ok(Layout { image })
}

impl Layout {
    /// Read and check an OCI image manifest.
    pub fn parse(bytes: &[u8], from: &str) -> Result<Layout, BundleError> {
        let fail = |m: String| Err(BundleError::new(ErrorKind::Registry, format!("{from}: {m}")));
        if bytes.len() > MAX_OCI_MANIFEST_BYTES {
            return fail(format!("the OCI manifest is {} bytes, over the cap of {MAX_OCI_MANIFEST_BYTES}", bytes.len()));
        }
        let image: OciImageManifest = match serde_json::from_slice(bytes) {
            Ok(m) => m,
            Err(e) => return fail(format!("not an OCI image manifest ({e})")),
        };
        if image.config.media_type == REVOCATIONS_CONFIG_MEDIA_TYPE {
            return check_revocations_layout(image, from);
        }
        if image.config.media_type != CONFIG_MEDIA_TYPE {
            return fail(format!("wrong media type: the artifact's config is {:?}, a hookhost bundle's is {CONFIG_MEDIA_TYPE:?}; this is not a hookhost bundle artifact", image.config.media_type));
        }
        let mut manifests = 0;
        let mut total: u64 = 0;
        if image.layers.len() > MAX_FILES + MAX_SIGNATURES + 1 {
            return fail(format!("{} layers, more than a bundle can hold", image.layers.len()));
        }
        for layer in &image.layers {
            let title = layer.annotations.as_ref().and_then(|a| a.get(TITLE));
            let cap = match layer.media_type.as_str() {
                MANIFEST_MEDIA_TYPE => {
                    manifests += 1;
                    MAX_MANIFEST_BYTES
                }
                WASM_MEDIA_TYPE => {
                    let Some(title) = title else { return fail(format!("layer {} has no {TITLE} annotation naming its file", layer.digest)) };
                    if let Err(why) = super::check_entry_path(title) {
                        return fail(format!("layer {} is titled {title:?}, which {why}", layer.digest));
                    }
                    MAX_FILE_BYTES
                }
                SIGNATURE_MEDIA_TYPE => MAX_SIGNATURE_BYTES,
                other => return fail(format!("wrong media type: layer {} is {other:?}; a hookhost bundle has {MANIFEST_MEDIA_TYPE}, {WASM_MEDIA_TYPE} and {SIGNATURE_MEDIA_TYPE} layers only", layer.digest)),
            };
            if layer.size < 0 || layer.size as u64 > cap {
                return fail(format!("layer {} declares {} bytes, over the cap of {cap}", layer.digest, layer.size));
            }
            total += layer.size as u64;
            if !layer.digest.starts_with("sha256:") {
                return fail(format!("layer digest {:?} is not sha256", layer.digest));
            }
        }
        if total > MAX_BUNDLE_BYTES {
            return fail(format!("the layers declare {total} bytes in all, over the {MAX_BUNDLE_BYTES}-byte cap per bundle"));
        }
        if manifests != 1 {
            return fail(format!("has {manifests} bundle-manifest layers ({MANIFEST_MEDIA_TYPE}); a bundle has exactly one"));
        }
        if image.config.size < 0 || image.config.size > 64 << 10 {
            return fail(format!("the config declares {} bytes, over the cap of 64 KiB", image.config.size));
        }
        Ok(Layout { image })
    }

    /// Every blob to fetch (config first), with its declared size.
    pub fn blobs(&self) -> impl Iterator<Item = &OciDescriptor> {
        std::iter::once(&self.image.config).chain(self.image.layers.iter())
    }

    /// Assemble the bundle's parts and signatures from fetched blobs (each already checked
    /// against its digest).
    pub fn assemble(&self, blobs: &BTreeMap<String, Vec<u8>>, from: &str) -> Result<(Parts, Vec<String>), BundleError> {
        let get = |d: &OciDescriptor| blobs.get(&d.digest).ok_or_else(|| BundleError::new(ErrorKind::Registry, format!("{from}: blob {} is missing", d.digest)));
        let mut manifest = Vec::new();
        let mut files = BTreeMap::new();
        let mut signatures = Vec::new();
        for layer in &self.image.layers {
            let bytes = get(layer)?;
            match layer.media_type.as_str() {
                MANIFEST_MEDIA_TYPE => manifest = bytes.clone(),
                WASM_MEDIA_TYPE => {
                    let title = layer.annotations.as_ref().and_then(|a| a.get(TITLE)).expect("checked in parse");
                    if files.insert(title.clone(), bytes.clone()).is_some() {
                        return Err(BundleError::new(ErrorKind::Registry, format!("{from}: two layers are titled {title:?}; a bundle holds each file once")));
                    }
                }
                _ => signatures.push(String::from_utf8(bytes.clone()).map_err(|_| BundleError::new(ErrorKind::Registry, format!("{from}: signature layer {} is not text", layer.digest)))?),
            }
        }
        Ok((Parts { manifest, files }, signatures))
    }
}

/// A content-addressed store: an OCI image layout directory.
#[derive(Debug, Clone)]
pub struct Store {
    /// The layout directory.
    pub root: PathBuf,
}

fn missing(message: String) -> BundleError {
    BundleError::new(ErrorKind::NotFound, message)
}

fn corrupt(message: String) -> BundleError {
    BundleError::new(ErrorKind::Integrity, message)
}

impl Store {
    /// The store in `root` (created on the first write).
    pub fn new(root: impl Into<PathBuf>) -> Store {
        Store { root: root.into() }
    }

    /// Whether the store has the manifest blob of `digest` (without reading or checking it).
    pub fn holds(&self, digest: &str) -> bool {
        self.blob_path(digest).is_some_and(|p| p.is_file())
    }

    fn blob_path(&self, digest: &str) -> Option<PathBuf> {
        let digest: hookhost_types::Digest = digest.parse().ok()?;
        Some(self.root.join("blobs/sha256").join(digest.hex()))
    }

    fn io(&self, e: impl std::fmt::Display) -> BundleError {
        BundleError::new(ErrorKind::Io, format!("{}: {e}", self.root.display()))
    }

    /// Write a blob under its digest (atomically; an existing good copy is kept).
    fn put_blob(&self, bytes: &[u8]) -> Result<String, BundleError> {
        let digest = digest_of(bytes);
        let path = self.blob_path(&digest).expect("our digests are well formed");
        if std::fs::read(&path).is_ok_and(|b| digest_of(&b) == digest) {
            return Ok(digest);
        }
        let dir = path.parent().expect("has a parent");
        std::fs::create_dir_all(dir).map_err(|e| self.io(e))?;
        let tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| self.io(e))?;
        std::fs::write(tmp.path(), bytes).map_err(|e| self.io(e))?;
        readable(tmp.path()).map_err(|e| self.io(e))?;
        tmp.persist(&path).map_err(|e| self.io(e.error))?;
        Ok(digest)
    }

    fn read_blob(&self, digest: &str, cap: u64) -> Result<Vec<u8>, BundleError> {
        let path = self.blob_path(digest).ok_or_else(|| corrupt(format!("{}: {digest:?} is not a sha256 digest", self.root.display())))?;
        let len = match std::fs::metadata(&path) {
            Ok(m) => m.len(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(missing(format!("{}: blob {digest} is not in the store", self.root.display()))),
            Err(e) => return Err(self.io(e)),
        };
        if len > cap {
            return Err(corrupt(format!("{}: blob {digest} is {len} bytes, over the cap of {cap}", path.display())));
        }
        let bytes = std::fs::read(&path).map_err(|e| self.io(e))?;
        if digest_of(&bytes) != digest {
            return Err(corrupt(format!("{}: blob {digest} does not match its digest (the file was altered or damaged)", path.display())));
        }
        Ok(bytes)
    }

    /// Store an artifact, tagged `name:tag` when given. Returns its digest.
    pub fn put(&self, artifact: &Artifact, reference: Option<&str>) -> Result<String, BundleError> {
        for bytes in artifact.blobs.values() {
            self.put_blob(bytes)?;
        }
        let digest = self.put_blob(&artifact.manifest)?;
        std::fs::write(self.root.join("oci-layout"), b"{\"imageLayoutVersion\":\"1.0.0\"}").map_err(|e| self.io(e))?;
        let mut index = self.index()?;
        let entry = json!({
            "mediaType": OCI_IMAGE_MEDIA_TYPE,
            "digest": digest,
            "size": artifact.manifest.len(),
            "annotations": reference.map(|r| json!({ REF_NAME: r })).unwrap_or_else(|| json!({})),
        });
        let manifests = index["manifests"].as_array_mut().expect("index checked");
        // One entry per tag (a re-push moves it); untagged entries (the cache) once per digest.
        manifests.retain(|m| match reference {
            Some(r) => m["annotations"][REF_NAME] != r,
            None => !(m["digest"] == digest.as_str() && m["annotations"][REF_NAME].is_null()),
        });
        manifests.push(entry);
        let tmp = tempfile::NamedTempFile::new_in(&self.root).map_err(|e| self.io(e))?;
        std::fs::write(tmp.path(), serde_json::to_vec_pretty(&index).expect("json")).map_err(|e| self.io(e))?;
        readable(tmp.path()).map_err(|e| self.io(e))?;
        tmp.persist(self.root.join("index.json")).map_err(|e| self.io(e.error))?;
        Ok(digest)
    }

    fn index(&self) -> Result<serde_json::Value, BundleError> {
        match std::fs::read(self.root.join("index.json")) {
            Ok(bytes) => {
                let v: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| corrupt(format!("{}/index.json: not an OCI index ({e})", self.root.display())))?;
                if !v["manifests"].is_array() {
                    return Err(corrupt(format!("{}/index.json: no manifests array", self.root.display())));
                }
                Ok(v)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(json!({ "schemaVersion": 2, "manifests": [] })),
            Err(e) => Err(self.io(e)),
        }
    }

    /// Every tagged reference (`acme/secret-guard:1.4.0`) and its digest.
    pub fn list(&self) -> Result<Vec<(String, String)>, BundleError> {
        let index = self.index()?;
        let mut out: Vec<(String, String)> = index["manifests"]
            .as_array()
            .expect("checked")
            .iter()
            .filter_map(|m| Some((m["annotations"][REF_NAME].as_str()?.to_string(), m["digest"].as_str()?.to_string())))
            .collect();
        out.sort();
        Ok(out)
    }

    /// The digest tagged `name:tag`.
    pub fn resolve(&self, reference: &str) -> Result<Option<String>, BundleError> {
        Ok(self.list()?.into_iter().find(|(r, _)| r == reference).map(|(_, d)| d))
    }

    /// Read an artifact by digest, verifying every blob.
    pub fn get(&self, digest: &str) -> Result<Artifact, BundleError> {
        let manifest = self.read_blob(digest, MAX_OCI_MANIFEST_BYTES as u64)?;
        let layout = Layout::parse(&manifest, &format!("{} {digest}", self.root.display())).map_err(|e| corrupt(e.message().to_string()))?;
        let mut blobs = BTreeMap::new();
        for d in layout.blobs() {
            let bytes = self.read_blob(&d.digest, d.size as u64).map_err(|e| match e.kind() {
                ErrorKind::NotFound => corrupt(e.message().to_string()),
                _ => e,
            })?;
            blobs.insert(d.digest.clone(), bytes);
        }
        Ok(Artifact { manifest, blobs })
    }

    /// Forget an artifact (a corrupt cache entry): its manifest blob goes, so the next load
    /// fetches it again.
    pub fn evict(&self, digest: &str) {
        if let Some(path) = self.blob_path(digest) {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Store files are world-readable like any shared registry's (temp files start owner-only);
/// content is public, integrity comes from the digests.
fn readable(path: &std::path::Path) -> std::io::Result<()> {
    hookhost_types::owner::make_readable_by_all(path)
}

/// Split an artifact into a checked bundle and its signatures.
pub fn open_artifact(artifact: &Artifact, from: &str) -> Result<(Bundle, Vec<String>), BundleError> {
    let layout = Layout::parse(&artifact.manifest, from)?;
    if layout.image.config.media_type != CONFIG_MEDIA_TYPE {
        return Err(BundleError::new(ErrorKind::Registry, format!("{from}: wrong media type: this is a revocation list, not a bundle")));
    }
    let (parts, signatures) = layout.assemble(&artifact.blobs, from)?;
    Ok((Bundle::from_parts(parts, from)?, signatures))
}
