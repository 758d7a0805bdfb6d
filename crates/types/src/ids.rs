//! Validated names and digests: checked once where they enter, trusted everywhere after.

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use std::fmt;
use std::str::FromStr;

/// Hex sha256 of `bytes` (64 lowercase hex digits).
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn is_lower_hex64(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The conversions every validated string newtype has: parsed from a `String` (serde reads it
/// that way), back into one, shown as itself, borrowed as `&str`.
macro_rules! string_newtype {
    ($name:ident, $error:ident) => {
        impl TryFrom<String> for $name {
            type Error = $error;
            fn try_from(s: String) -> Result<Self, Self::Error> {
                s.parse()
            }
        }

        impl From<$name> for String {
            fn from(v: $name) -> String {
                v.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
    };
}

string_newtype!(Digest, BadDigest);
string_newtype!(BundleName, BadBundleName);

/// A content digest, `sha256:<64 lowercase hex digits>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Digest(String);

/// Text that is not a `sha256:` digest.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a sha256 digest (sha256: and 64 lowercase hex digits)")]
pub struct BadDigest(pub String);

impl Digest {
    /// The digest of `bytes`.
    pub fn of(bytes: &[u8]) -> Digest {
        Digest(format!("sha256:{}", sha256_hex(bytes)))
    }

    /// A digest from its 64 hex digits.
    pub fn from_hex(hex: &str) -> Result<Digest, BadDigest> {
        if is_lower_hex64(hex) {
            Ok(Digest(format!("sha256:{hex}")))
        } else {
            Err(BadDigest(hex.to_string()))
        }
    }

    /// The 64 hex digits.
    pub fn hex(&self) -> &str {
        &self.0["sha256:".len()..]
    }

    /// `sha256:<hex>`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl FromStr for Digest {
    type Err = BadDigest;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.strip_prefix("sha256:") {
            Some(hex) if is_lower_hex64(hex) => Ok(Digest(s.to_string())),
            _ => Err(BadDigest(s.to_string())),
        }
    }
}


/// A bundle's name, `namespace/name`: each part 1–64 of lowercase letters, digits, `-`, `_`,
/// `.`, not starting with `.`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct BundleName(String);

/// Text that is not a bundle name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a bundle name (namespace/name, each of lowercase letters, digits, '-', '_', '.')")]
pub struct BadBundleName(pub String);

/// Whether `part` is one half of a bundle name.
pub(crate) fn bundle_name_part(part: &str) -> bool {
    !part.is_empty() && part.len() <= 64 && !part.starts_with('.') && part.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.'))
}

impl BundleName {
    /// `namespace`.
    pub fn namespace(&self) -> &str {
        self.0.split_once('/').map_or("", |(ns, _)| ns)
    }

    /// `namespace/name`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether a trust pattern (`ns/name`, `ns/*` or `*`) covers this name.
    pub fn matches(&self, pattern: &str) -> bool {
        match pattern.strip_suffix("/*") {
            _ if pattern == "*" => true,
            Some(ns) => self.namespace() == ns,
            None => self.0 == pattern,
        }
    }

    /// Whether `pattern` is a valid trust pattern (`ns/name`, `ns/*` or `*`).
    pub fn valid_pattern(pattern: &str) -> bool {
        pattern == "*" || pattern.parse::<BundleName>().is_ok() || pattern.strip_suffix("/*").is_some_and(bundle_name_part)
    }
}

impl FromStr for BundleName {
    type Err = BadBundleName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.split_once('/') {
            Some((ns, n)) if bundle_name_part(ns) && bundle_name_part(n) => Ok(BundleName(s.to_string())),
            _ => Err(BadBundleName(s.to_string())),
        }
    }
}


impl std::ops::Deref for BundleName {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for BundleName {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

/// A hook's id in the chain: `{owner}:{name}` — `user:{name}` for the user's own hooks
/// ([`HookId::USER`]), `{capability}:{name}` for a peer file's, `{namespace}/{bundle}:{name}` for
/// a bundle's. A hook's own name has no `:` (the config's validation says so), so the owner is
/// what comes before the last one.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct HookId(String);

/// Shown as its text is (messages quote ids with `{:?}`).
impl fmt::Debug for HookId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl HookId {
    /// The owner of the user's own hooks.
    pub const USER: &'static str = "user";

    /// `{owner}:{name}`.
    pub fn new(owner: &str, name: &str) -> HookId {
        HookId(format!("{owner}:{name}"))
    }

    /// One of the user's own hooks: `user:{name}`.
    pub fn user(name: &str) -> HookId {
        HookId::new(HookId::USER, name)
    }

    /// Who contributed it: `user`, a capability, `namespace/bundle`.
    pub fn owner(&self) -> &str {
        self.0.rsplit_once(':').map_or("", |(owner, _)| owner)
    }

    /// Its own name, as its file names it.
    pub fn name(&self) -> &str {
        self.0.rsplit_once(':').map_or(&self.0, |(_, name)| name)
    }

    /// Whether it is one of the user's own hooks.
    pub fn is_users(&self) -> bool {
        self.owner() == HookId::USER
    }

    /// Whether a bundle contributed it (its owner is `namespace/bundle`).
    pub fn is_bundles(&self) -> bool {
        self.owner().contains('/')
    }

    /// As messages show it: the name alone for the user's own hooks, else the whole id.
    pub fn short(&self) -> &str {
        if self.is_users() {
            self.name()
        } else {
            &self.0
        }
    }

    /// The same hook under another owner.
    pub fn with_owner(&self, owner: &str) -> HookId {
        HookId::new(owner, self.name())
    }

    /// `{owner}:{name}`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for HookId {
    fn from(s: &str) -> HookId {
        HookId(s.to_string())
    }
}

impl From<String> for HookId {
    fn from(s: String) -> HookId {
        HookId(s)
    }
}

impl From<HookId> for String {
    fn from(id: HookId) -> String {
        id.0
    }
}

impl fmt::Display for HookId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::ops::Deref for HookId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for HookId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for HookId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for HookId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for HookId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for HookId {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

/// A bundle reference: `registry/namespace/name@version` or
/// `registry/namespace/name@sha256:<hex>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleRef {
    /// A registry name from the config (`local`, `org`), or a location on the command line.
    pub registry: String,
    /// `namespace/name`.
    pub name: BundleName,
    /// The semantic version asked for, or a range of them (`^1.2`, `~1.4.0`, `>=1.0, <2`).
    pub version: Option<String>,
    /// The digest asked for.
    pub digest: Option<Digest>,
}

impl BundleRef {
    /// Whether it asks for a range of versions (resolved to the newest matching tag).
    pub fn is_range(&self) -> bool {
        self.version.as_deref().is_some_and(|v| semver::Version::parse(v).is_err())
    }

    /// Whether a bundle of `version` is what this reference asks for (any version for a
    /// reference by digest).
    pub fn admits(&self, version: &str) -> bool {
        match self.version.as_deref() {
            None => true,
            Some(v) if !self.is_range() => v == version,
            Some(range) => match (semver::VersionReq::parse(range), semver::Version::parse(version)) {
                (Ok(req), Ok(v)) => req.matches(&v),
                _ => false,
            },
        }
    }
}

impl fmt::Display for BundleRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = self.digest.as_ref().map(Digest::as_str).or(self.version.as_deref()).unwrap_or("");
        write!(f, "{}/{}@{at}", self.registry, self.name)
    }
}

impl FromStr for BundleRef {
    type Err = String;
    fn from_str(text: &str) -> Result<BundleRef, String> {
        let usage = "write registry/namespace/name@version (like local/acme/secret-guard@1.4.0) or registry/namespace/name@sha256:<digest>";
        let (path, at) = text.rsplit_once('@').ok_or_else(|| format!("{text:?} has no @version; {usage}"))?;
        let mut parts: Vec<&str> = path.rsplitn(3, '/').collect();
        if parts.len() != 3 || parts[2].is_empty() {
            return Err(format!("{text:?} does not name a registry and a namespace/name; {usage}"));
        }
        parts.reverse();
        let name = format!("{}/{}", parts[1], parts[2]);
        let Ok(name) = name.parse::<BundleName>() else {
            return Err(format!("{name:?} in {text:?} is not a bundle name (lowercase letters, digits, '-', '_', '.'); {usage}"));
        };
        let (version, digest) = match at.strip_prefix("sha256:") {
            Some(_) => match at.parse::<Digest>() {
                Ok(d) => (None, Some(d)),
                Err(_) => return Err(format!("{at:?} in {text:?} is not a sha256 digest (64 lowercase hex digits)")),
            },
            None if semver::Version::parse(at).is_ok() || semver::VersionReq::parse(at).is_ok() => (Some(at.to_string()), None),
            None => return Err(format!("{at:?} in {text:?} is not a semantic version or range (1.4.0, ^1.2, ~1.4, >=1.0, <2); {usage}")),
        };
        Ok(BundleRef { registry: parts[0].to_string(), name, version, digest })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hook_ids_say_whose_they_are() {
        let own = HookId::user("guard");
        assert_eq!((own.as_str(), own.owner(), own.name(), own.is_users(), own.is_bundles(), own.short()), ("user:guard", "user", "guard", true, false, "guard"));
        let bundled = HookId::from("acme/policy:no-force-push");
        assert_eq!((bundled.owner(), bundled.name(), bundled.is_users(), bundled.is_bundles(), bundled.short()), ("acme/policy", "no-force-push", false, true, "acme/policy:no-force-push"));
        assert_eq!(own.with_owner("managed").as_str(), "managed:guard");
        assert_eq!(serde_json::to_string(&own).unwrap(), "\"user:guard\"", "written as the text it is");
        assert_eq!(format!("{own:?}"), "\"user:guard\"", "quoted in messages as the text it is");
    }

    #[test]
    fn digests_are_checked_once() {
        let d = Digest::of(b"abc");
        assert_eq!(d.as_str(), "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(d.hex().len(), 64);
        assert_eq!(d.as_str().parse::<Digest>().unwrap(), d);
        for bad in ["sha256:ABC", "ba7816bf", "sha256:", &format!("sha256:{}", "A".repeat(64)), &format!("md5:{}", "a".repeat(64))] {
            assert_eq!(bad.parse::<Digest>(), Err(BadDigest(bad.to_string())), "{bad}");
        }
    }

    #[test]
    fn bundle_names_and_patterns() {
        let n: BundleName = "acme/secret-guard".parse().unwrap();
        assert_eq!(n.namespace(), "acme");
        assert!(n.matches("acme/*") && n.matches("*") && n.matches("acme/secret-guard"));
        assert!(!n.matches("acme/other") && !n.matches("other/*"));
        for bad in ["acme", "Acme/x", "acme/.x", "/x", "acme/", "a/b/c", "acme/x y"] {
            assert!(bad.parse::<BundleName>().is_err(), "{bad}");
        }
        assert!(BundleName::valid_pattern("acme/*") && BundleName::valid_pattern("*") && !BundleName::valid_pattern("ac me/*"));
    }

    #[test]
    fn bundle_references_parse() {
        let r = "org/acme/secret-guard@1.4.0".parse::<BundleRef>().unwrap();
        assert_eq!((r.registry.as_str(), r.name.as_str(), r.version.as_deref(), r.digest.is_none()), ("org", "acme/secret-guard", Some("1.4.0"), true));
        let d = format!("sha256:{}", "a".repeat(64));
        let r = "org/acme/secret-guard@^1.2".parse::<BundleRef>().unwrap();
        assert!(r.is_range() && r.admits("1.2.0") && r.admits("1.9.3") && !r.admits("2.0.0") && !r.admits("1.1.9") && !r.admits("1.3.0-rc.1"));
        let r = "org/acme/secret-guard@>=1.0, <1.5".parse::<BundleRef>().unwrap();
        assert!(r.admits("1.4.9") && !r.admits("1.5.0"));
        let r = "org/acme/secret-guard@1.2.0".parse::<BundleRef>().unwrap();
        assert!(!r.is_range() && r.admits("1.2.0") && !r.admits("1.2.1"));
        let r = format!("local/acme/x@{d}").parse::<BundleRef>().unwrap();
        assert_eq!(r.digest.as_ref().map(Digest::as_str), Some(d.as_str()));
        for (bad, want) in [
            ("acme/x@1.0.0", "does not name a registry and a namespace/name"),
            ("org/acme/x", "has no @version"),
            ("org/acme/x@latest", "is not a semantic version or range"),
            ("org/acme/x@sha256:abc", "is not a sha256 digest"),
            ("org/Acme/x@1.0.0", "is not a bundle name"),
        ] {
            let e = bad.parse::<BundleRef>().unwrap_err();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }
}
