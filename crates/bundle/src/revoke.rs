//! Revocations (docs/ORG.md, "Revoking"): signed records that withdraw a bundle version, or a
//! signing key, published in the registry next to the bundle — an artifact tagged
//! [`TAG`] in the bundle's repository, in a directory registry and an OCI registry alike.
//!
//! Each record is JSON, signed like a bundle manifest (minisign, Ed25519) with the trusted
//! comment `hookhost-revocation sha256:<digest of the record>`. A host honours a record only
//! when a key its trust policy lists for the bundle's name signed it; a key revocation also
//! needs the revoked key itself to sign it, unless the managed policy lets keys revoke each
//! other (`policy.revoke_other_keys`). Anything else is ignored, and said so.

use super::store::{descriptor, digest_of, Artifact, Layout};
// The artifact's layout rules are the store's, beside a bundle's: the store reads both kinds.
pub use super::store::{REVOCATIONS_CONFIG_MEDIA_TYPE as CONFIG_MEDIA_TYPE, REVOCATIONS_LIST_MEDIA_TYPE as LIST_MEDIA_TYPE};
use super::trust::{key_id, Policy};
use super::{BundleError, ErrorKind};
use hookhost_types::BundleName;
use oci_client::manifest::{OciImageManifest, OCI_IMAGE_MEDIA_TYPE};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The tag a bundle's revocation list has in its repository.
pub const TAG: &str = "revocations";
/// The prefix of a revocation signature's trusted comment.
pub const COMMENT_PREFIX: &str = "hookhost-revocation";
/// The most records one list may hold.
const MAX_RECORDS: usize = 1000;

/// One revocation as signed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Always `hookhost-revocation`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The bundle (`namespace/name`) it is about.
    pub bundle: String,
    /// The version withdrawn (exactly one of `version` and `key`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The signing key withdrawn, by id (16 hex digits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Why, for the people whose hooks stop loading.
    pub reason: String,
    /// When, in seconds since the Unix epoch.
    pub issued: u64,
}

/// A record and its signature, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The record's exact JSON text (what the signature covers).
    pub record: String,
    /// The minisign signature over it.
    pub signature: String,
}

/// A bundle's revocation list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct List {
    /// Every record published, oldest first.
    pub revocations: Vec<Entry>,
}

impl List {
    /// The artifact that publishes this list for bundle `name`.
    pub fn artifact(&self, name: &BundleName) -> Artifact {
        let body = serde_json::to_vec_pretty(self).expect("json");
        let config = serde_json::to_vec(&serde_json::json!({ "hookhost": { "revocations": name.as_str() } })).expect("json");
        let config_desc = descriptor(CONFIG_MEDIA_TYPE, &config, None);
        let layer = descriptor(LIST_MEDIA_TYPE, &body, None);
        let mut blobs = BTreeMap::new();
        blobs.insert(config_desc.digest.clone(), config);
        blobs.insert(layer.digest.clone(), body);
        let manifest = OciImageManifest {
            schema_version: 2,
            media_type: Some(OCI_IMAGE_MEDIA_TYPE.to_string()),
            config: config_desc,
            layers: vec![layer],
            subject: None,
            artifact_type: None,
            annotations: Some([("org.opencontainers.image.title".to_string(), format!("{name} revocations"))].into()),
        };
        Artifact { manifest: serde_json::to_vec(&manifest).expect("json"), blobs }
    }

    /// The list an artifact holds.
    pub fn from_artifact(artifact: &Artifact, from: &str) -> Result<List, BundleError> {
        let layout = Layout::parse(&artifact.manifest, from)?;
        if layout.image.config.media_type != CONFIG_MEDIA_TYPE {
            return Err(BundleError::new(ErrorKind::Registry, format!("{from}: the {TAG} tag names a bundle, not a revocation list")));
        }
        let body = artifact.blobs.get(&layout.image.layers[0].digest).ok_or_else(|| BundleError::new(ErrorKind::Registry, format!("{from}: the revocation list blob is missing")))?;
        List::parse(body, from)
    }

    /// Parse a list's JSON.
    pub fn parse(bytes: &[u8], from: &str) -> Result<List, BundleError> {
        let list: List = serde_json::from_slice(bytes).map_err(|e| BundleError::new(ErrorKind::Registry, format!("{from}: not a hookhost revocation list ({e})")))?;
        if list.revocations.len() > MAX_RECORDS {
            return Err(BundleError::new(ErrorKind::Registry, format!("{from}: {} revocations, over the {MAX_RECORDS} a list may hold", list.revocations.len())));
        }
        Ok(list)
    }
}

/// The trusted comment a revocation's signature carries.
fn comment(record: &str) -> String {
    format!("{COMMENT_PREFIX} {}", digest_of(record.as_bytes()))
}

/// Sign a record with a secret key (minisign format; an encrypted key opens with `password`).
/// Returns the entry to publish and the signing key's id.
pub fn sign(record: &Record, secret_key: &str, password: Option<String>) -> Result<(Entry, String), String> {
    let text = serde_json::to_string(record).expect("json");
    let key = super::trust::open_secret_key(secret_key, password)?;
    let sig = minisign::sign(None, &key, std::io::Cursor::new(text.as_bytes()), Some(&comment(&text)), Some("hookhost revocation"))
        .map_err(|e| format!("cannot sign: {e}"))?;
    let id = key_id(sig.keynum());
    Ok((Entry { record: text, signature: sig.into_string() }, id))
}

/// A revocation a host honours: who signed it, why, when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// The signing key's id.
    pub signer: String,
    /// Its label in the trust policy (or its id).
    pub label: String,
    /// The record's reason.
    pub reason: String,
    /// When it was issued (seconds since the epoch).
    pub issued: u64,
}

impl Notice {
    /// `revoked by key ID (label) on 2026-11-24: reason`.
    pub fn describe(&self) -> String {
        let who = if self.label == self.signer { format!("key {}", self.signer) } else { format!("key {} ({})", self.signer, self.label) };
        format!("revoked by {who} on {}: {}", date(self.issued), self.reason)
    }
}

/// What a list says about one bundle, as far as the trust policy lets it.
#[derive(Debug, Clone, Default)]
pub struct Revoked {
    /// Withdrawn versions.
    pub versions: BTreeMap<String, Notice>,
    /// Withdrawn keys, by id.
    pub keys: BTreeMap<String, Notice>,
    /// Records not honoured, and why (one line each).
    pub ignored: Vec<String>,
}

impl Revoked {
    /// Nothing revoked, nothing ignored.
    pub fn is_empty(&self) -> bool {
        self.versions.is_empty() && self.keys.is_empty() && self.ignored.is_empty()
    }
}

/// Check every record of `list` for bundle `name` against `policy`.
pub fn verify(list: &List, name: &BundleName, policy: &Policy) -> Revoked {
    let mut out = Revoked::default();
    for (i, entry) in list.revocations.iter().enumerate() {
        let at = format!("revocation {} of {name}", i + 1);
        let record: Record = match serde_json::from_str::<Record>(&entry.record) {
            Ok(r) if r.kind == COMMENT_PREFIX => r,
            _ => {
                out.ignored.push(format!("{at}: not a hookhost revocation record; ignored"));
                continue;
            }
        };
        if record.bundle != name.as_str() {
            out.ignored.push(format!("{at}: it is about {}, not {name}; ignored", record.bundle));
            continue;
        }
        let sig = match minisign::SignatureBox::from_string(&entry.signature) {
            Ok(s) => s,
            Err(e) => {
                out.ignored.push(format!("{at}: its signature is not a minisign signature ({e}); ignored"));
                continue;
            }
        };
        let id = key_id(sig.keynum());
        let candidates: Vec<_> = policy.keys.iter().filter(|k| k.id == id).collect();
        if candidates.is_empty() {
            out.ignored.push(format!("{at}: signed by key {id}, which the trust policy does not list; ignored"));
            continue;
        }
        if sig.trusted_comment().unwrap_or_default() != comment(&entry.record) {
            out.ignored.push(format!("{at}: the signature by key {id} fails verification (it was made for other content); ignored"));
            continue;
        }
        let Some(key) = candidates.iter().find(|k| k.verifies(&sig, entry.record.as_bytes())) else {
            out.ignored.push(format!("{at}: the signature by key {id} fails verification (the record or the signature was altered); ignored"));
            continue;
        };
        if !key.allows(name.as_str()) {
            out.ignored.push(format!("{at}: key {id} ({}) is not trusted for {name}; ignored", key.label()));
            continue;
        }
        let notice = Notice { signer: id.clone(), label: key.label().to_string(), reason: record.reason.clone(), issued: record.issued };
        match (&record.version, &record.key) {
            (Some(v), None) => {
                out.versions.entry(v.clone()).or_insert(notice);
            }
            (None, Some(k)) if *k == id || policy.revoke_other_keys => {
                out.keys.entry(k.to_ascii_uppercase()).or_insert(notice);
            }
            (None, Some(k)) => out.ignored.push(format!("{at}: key {id} revokes another key ({k}), which the managed policy does not allow (policy.revoke_other_keys); ignored")),
            _ => out.ignored.push(format!("{at}: names neither exactly one version nor one key; ignored")),
        }
    }
    out
}

/// `YYYY-MM-DD` of a Unix time (UTC).
fn date(secs: u64) -> String {
    hookhost_types::time::rfc3339(std::time::Duration::from_secs(secs))[..10].to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn dates() {
        assert_eq!(super::date(0), "1970-01-01");
        assert_eq!(super::date(1_795_526_271), "2026-11-24");
        assert_eq!(super::date(951_782_400), "2000-02-29");
    }
}

/// Add a signed record to the revocation list of `name` in `registry` (a directory registry or
/// an OCI one): the list is read, the entry appended (once), and the list published again under
/// [`TAG`]. Returns how many records the list now holds.
pub async fn publish(registry: &hookhost_config::Registry, name: &BundleName, entry: Entry) -> Result<usize, BundleError> {
    use hookhost_config::Registry;
    match registry {
        Registry::Dir(dir) => {
            let store = super::store::Store::new(dir);
            let reference = format!("{name}:{TAG}");
            let mut list = match store.resolve(&reference)? {
                Some(digest) => List::from_artifact(&store.get(&digest)?, &format!("{} {reference}", dir.display()))?,
                None => List::default(),
            };
            if !list.revocations.contains(&entry) {
                list.revocations.push(entry);
            }
            store.put(&list.artifact(name), Some(&reference))?;
            Ok(list.revocations.len())
        }
        Registry::Oci(location) => {
            let remote = super::oci::Remote::new(location)?;
            let mut list = match remote.resolve(name, TAG).await {
                Ok(digest) => List::from_artifact(&remote.fetch(name, &digest).await?, &format!("{}/{}:{TAG}", remote.registry, remote.repository(name)))?,
                Err(e) if e.kind() == ErrorKind::NotFound => List::default(),
                Err(e) => return Err(e),
            };
            if !list.revocations.contains(&entry) {
                list.revocations.push(entry);
            }
            remote.push(name, TAG, &list.artifact(name)).await?;
            Ok(list.revocations.len())
        }
    }
}
