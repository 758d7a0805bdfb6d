//! Signatures (Ed25519, minisign format, over the manifest bytes) and the trust policy that
//! decides whether a bundle may run: which keys are trusted, for which bundle names, how many
//! distinct signers are needed.
//!
//! A signature's trusted comment is `hookhost-bundle {name}@{version} sha256:{manifest digest}`,
//! so a valid signature cannot be moved onto another bundle, another version, or another
//! manifest of the same version. Files made by the `minisign` tool with that trusted comment
//! verify here, and ours verify with `minisign -V`.

use super::{Bundle, BundleError, ErrorKind};
use hookhost_config::{SigningRules, TrustConfig, TrustKey};
use hookhost_types::{BundleName, Problem};
use std::io::Cursor;

/// The prefix of every bundle signature's trusted comment.
pub const COMMENT_PREFIX: &str = "hookhost-bundle";

/// The trusted comment a signature over this bundle must carry.
pub fn trusted_comment(bundle: &Bundle) -> String {
    format!("{COMMENT_PREFIX} {} {}", bundle.manifest.id(), bundle.manifest_digest)
}

/// A minisign key id as the `minisign` tool prints it (16 uppercase hex digits).
pub(crate) fn key_id(keynum: &[u8]) -> String {
    let mut le = [0u8; 8];
    le.copy_from_slice(&keynum[..8]);
    format!("{:016X}", u64::from_le_bytes(le))
}

/// A trusted key: as configured, and parsed.
#[derive(Debug, Clone)]
pub struct TrustedKey {
    /// The key id (16 hex digits, as `minisign` prints it).
    pub id: String,
    /// As configured (where, label, allowed names).
    pub configured: TrustKey,
    key: minisign::PublicKey,
}

impl TrustedKey {
    /// Its label, or its id when it has none.
    pub fn label(&self) -> &str {
        self.configured.name.as_deref().unwrap_or(&self.id)
    }

    /// Whether `signature` verifies over `bytes` with this key.
    pub(crate) fn verifies(&self, signature: &minisign::SignatureBox, bytes: &[u8]) -> bool {
        minisign::verify(&self.key, signature, Cursor::new(bytes), true, false, false).is_ok()
    }

    /// Whether it may sign bundle `name`.
    pub(crate) fn allows(&self, name: &str) -> bool {
        self.configured.allow.iter().any(|p| pattern_matches(p, name))
    }
}

/// The trust policy: checked before anything of a bundle is compiled or cached.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// The trusted keys.
    pub keys: Vec<TrustedKey>,
    /// How many signatures by them a bundle needs.
    pub rules: SigningRules,
    /// A trusted key may revoke another (else only itself).
    pub revoke_other_keys: bool,
}

/// Parse a public key: a whole minisign `.pub` file or just its base64 line.
pub fn parse_public_key(text: &str) -> Result<minisign::PublicKey, String> {
    let line = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with("untrusted comment:")).last().unwrap_or("");
    minisign::PublicKey::from_base64(line).map_err(|e| format!("not a minisign public key ({e})"))
}

/// Whether `pattern` (`*`, `acme/*`, `acme/secret-guard`) matches a bundle name.
pub fn pattern_matches(pattern: &str, name: &str) -> bool {
    name.parse::<BundleName>().is_ok_and(|n| n.matches(pattern))
}

impl Policy {
    /// The policy of a config's `[trust]`: every key parsed. Problems name their field
    /// (`trust.keys[0].public_key: not a minisign public key (...)`).
    pub fn from_config(config: &TrustConfig) -> Result<Policy, Vec<Problem>> {
        let mut problems = Vec::new();
        let mut keys = Vec::new();
        for k in &config.keys {
            match parse_public_key(&k.text) {
                Ok(key) => {
                    let id = key_id(key.keynum());
                    keys.push(TrustedKey { id, configured: k.clone(), key });
                }
                Err(e) => problems.push(Problem::at(format!("{}.public_key", k.at), e.to_string())),
            }
        }
        if problems.is_empty() {
            Ok(Policy { keys, rules: config.rules, revoke_other_keys: config.revoke_other_keys })
        } else {
            Err(problems)
        }
    }
}

impl Policy {
    /// Check a bundle's signatures against this policy. Returns the trusted signers' key ids.
    ///
    /// A signature that does not verify, or verifies for another bundle, always fails the
    /// bundle (it was tampered with or replayed), whether or not signatures are required.
    pub fn check(&self, bundle: &Bundle, signatures: &[String], from: &str) -> Result<Vec<String>, BundleError> {
        self.check_revoked(bundle, signatures, from, &Default::default())
    }

    /// [`Policy::check`], where signatures by `revoked` keys do not count: key id → how it was
    /// revoked, for the message (`revoke::Notice::describe`).
    pub fn check_revoked(&self, bundle: &Bundle, signatures: &[String], from: &str, revoked: &std::collections::BTreeMap<String, String>) -> Result<Vec<String>, BundleError> {
        let name = &bundle.manifest.name;
        let mut revoked_signers: Vec<String> = Vec::new();
        let want = trusted_comment(bundle);
        let fail = |msg: String| Err(BundleError::new(ErrorKind::Untrusted, format!("{from} ({}): {msg}", bundle.manifest.id())));
        let mut signers: Vec<String> = Vec::new();
        let mut untrusted: Vec<String> = Vec::new();
        for (i, text) in signatures.iter().enumerate() {
            let sig = match minisign::SignatureBox::from_string(text) {
                Ok(s) => s,
                Err(e) => return fail(format!("signature {} is not a minisign signature ({e}); re-sign the bundle", i + 1)),
            };
            let id = key_id(sig.keynum());
            if let Some(notice) = revoked.get(&id) {
                revoked_signers.push(format!("key {id}, {notice}"));
                continue;
            }
            // A key id is 8 bytes anyone can choose: several trusted keys may share one, so
            // every key with this id is tried.
            let candidates: Vec<&TrustedKey> = self.keys.iter().filter(|k| k.id == id).collect();
            if candidates.is_empty() {
                untrusted.push(id);
                continue;
            }
            let labels = candidates.iter().map(|k| k.label()).collect::<Vec<_>>().join(", ");
            // The comment first: a signature made for another bundle would also fail the
            // cryptographic check below, and this says why.
            let comment = sig.trusted_comment().unwrap_or_default();
            if comment != want {
                let signed_for = comment.strip_prefix(COMMENT_PREFIX).map(str::trim).unwrap_or(&comment);
                if let Some(signed_digest) = signed_for.strip_prefix(&format!("{} ", bundle.manifest.id())) {
                    return fail(format!("the manifest is not the one key {id} ({labels}) signed (it signed {signed_digest}, this manifest is {}): the manifest was altered after signing, or this is another build of the same version; nothing was loaded", bundle.manifest_digest));
                }
                return fail(format!("the signature by key {id} ({labels}) was made for {signed_for:?}, not for this bundle ({} {}): a signature cannot be reused for another bundle, version or manifest (replayed); ask the publisher to sign this release", bundle.manifest.id(), bundle.manifest_digest));
            }
            let verified: Vec<&&TrustedKey> = candidates.iter().filter(|k| minisign::verify(&k.key, &sig, Cursor::new(&bundle.parts.manifest), true, false, false).is_ok()).collect();
            let Some(key) = verified.iter().find(|k| k.allows(name)).or(verified.first()) else {
                if candidates.len() == 1 {
                    return fail(format!("the signature by key {id} ({labels}) does not verify against the manifest: the manifest or the signature was altered; nothing was loaded"));
                }
                return fail(format!("the signature by key {id} ({labels}) does not verify against the manifest with any of the {} trusted keys that carry this id: it was made by another key with the same id, or the manifest or the signature was altered; nothing was loaded", candidates.len()));
            };
            if !key.allows(name) {
                return fail(format!("key {id} ({}) is trusted only for [{}] ({}.allow), not for {name}; use a key trusted for this namespace", key.label(), key.configured.allow.join(", "), key.configured.at));
            }
            if !signers.contains(&id) {
                signers.push(id);
            }
        }
        let SigningRules { require_signed, min_signers } = self.rules;
        if require_signed && signers.len() < min_signers && !revoked_signers.is_empty() {
            let msg = format!("{from} ({}): its signature is by a revoked key ({}); it is refused even when a lock file pins it: ask its publisher for a release signed by a current key", bundle.manifest.id(), revoked_signers.join("; "));
            return Err(BundleError::new(ErrorKind::Revoked, msg));
        }
        if require_signed && signers.len() < min_signers {
            let untrusted_note = if untrusted.is_empty() {
                String::new()
            } else {
                format!("; it is also signed by {}, which trust.keys does not list (add a key there only if you trust it)", untrusted.join(", "))
            };
            return match (signatures.len(), signers.len()) {
                (0, _) => fail("is not signed, and trust.require_signed is on; sign it with a key listed in trust.keys, or set require_signed = false for unsigned development bundles".into()).map_err(|e: BundleError| BundleError::new(ErrorKind::Unsigned, e.message())),
                (_, 0) if !untrusted.is_empty() => fail(format!("is signed only by key {}, which trust.keys does not list; add its public key to [[trust.keys]] if you trust it", untrusted.join(", "))),
                (_, n) => fail(format!("has {n} trusted signer(s) ({}), but trust.min_signers requires {}{untrusted_note}", signers.join(", "), min_signers)),
            };
        }
        Ok(signers)
    }
}

/// A new key pair: (secret key file text, public key file text, key id).
pub fn generate_key(label: &str) -> Result<(String, String, String), String> {
    let pair = minisign::KeyPair::generate_unencrypted_keypair().map_err(|e| format!("cannot generate a key: {e}"))?;
    let id = key_id(pair.pk.keynum());
    let public = pair.pk.to_box().map_err(|e| e.to_string())?.into_string();
    let public = public.replacen("minisign public key", &format!("hookhost {label} public key"), 1);
    let secret = pair.sk.to_box(Some(&format!("hookhost {label} secret key {id}"))).map_err(|e| e.to_string())?.into_string();
    Ok((secret, public, id))
}

/// A minisign secret key file's key, unencrypted or opened with `password`.
pub(crate) fn open_secret_key(secret_key: &str, password: Option<String>) -> Result<minisign::SecretKey, String> {
    let boxed = minisign::SecretKeyBox::from_string(secret_key).map_err(|_| "not a minisign secret key".to_string())?;
    match password {
        Some(pw) => boxed.into_secret_key(Some(pw)),
        None => boxed.into_unencrypted_secret_key(),
    }
    .map_err(|_| "cannot open the secret key: it is encrypted (set HOOKHOST_KEY_PASSWORD) or damaged".to_string())
}

/// Sign a bundle's manifest with a secret key (minisign format, unencrypted, or encrypted with
/// the password in `password`). Returns the signature file text and the key id.
pub fn sign(bundle: &Bundle, secret_key: &str, password: Option<String>) -> Result<(String, String), String> {
    let key = open_secret_key(secret_key, password)?;
    let sig = minisign::sign(None, &key, Cursor::new(&bundle.parts.manifest), Some(&trusted_comment(bundle)), Some(&format!("signature of hookhost bundle {}", bundle.manifest.id())))
        .map_err(|e| format!("cannot sign: {e}"))?;
    let id = key_id(sig.keynum());
    Ok((sig.into_string(), id))
}

impl Policy {
    /// A policy trusting these public keys for every bundle name (`bundle verify --key`).
    pub fn trusting(keys: &[(String, String)]) -> Result<Policy, String> {
        let mut out = Policy::default();
        for (i, (label, text)) in keys.iter().enumerate() {
            let key = parse_public_key(text).map_err(|e| format!("{label}: {e}"))?;
            let id = key_id(key.keynum());
            let configured = TrustKey { at: format!("--key #{}", i + 1), name: Some(label.clone()), text: text.clone(), allow: vec!["*".into()] };
            out.keys.push(TrustedKey { id, configured, key });
        }
        Ok(out)
    }
}

/// The key id a signature claims (unverified), or why it is not a signature.
pub fn signature_key_id(signature: &str) -> Result<String, String> {
    minisign::SignatureBox::from_string(signature).map(|s| key_id(s.keynum())).map_err(|e| format!("(not a minisign signature: {e})"))
}
