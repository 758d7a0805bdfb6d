//! The parts of a config that name bundles: `bundles`, `[registries]` and `[trust]`, as written
//! and as validated. Fetching and verifying is the `hookhost-bundle` crate's work; this module
//! only checks what can be checked without the network.

use hookhost_types::Problem;
use crate::RawBundleRef;
use hookhost_types::ids::BundleRef;
use hookhost_types::spec::Mode;
use hookhost_types::paths;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
    /// A local directory registry (an OCI image layout).
    Dir(PathBuf),
    /// An OCI registry.
    Oci(OciLocation),
}

/// Where an OCI registry is, checked: `oci://host[:port][/prefix]` (or `https://`, or
/// `http://` for loopback only unless plain HTTP is allowed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciLocation {
    /// `host[:port]`.
    pub registry: String,
    /// The repository prefix (may be empty).
    pub prefix: String,
    /// Speak plain HTTP (loopback, or off loopback when `insecure_http` allowed it).
    pub plain_http: bool,
}

/// Whether `registry` (`host[:port]`) is on this machine.
pub fn is_loopback(registry: &str) -> bool {
    let host = match registry.rsplit_once(':') {
        Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
        _ => registry,
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host == "localhost" || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

impl OciLocation {
    /// Check a location. Plain HTTP to a registry off this machine is refused unless
    /// `insecure_http`.
    pub fn parse(location: &str, insecure_http: bool) -> Result<OciLocation, String> {
        let (scheme, rest) = ["oci://", "https://", "http://"].iter().find_map(|s| location.strip_prefix(s).map(|r| (*s, r))).unwrap_or(("", location));
        let rest = rest.trim_end_matches('/');
        let (registry, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if registry.is_empty() || registry.contains(char::is_whitespace) {
            return Err(format!("{location:?} is not an OCI registry location; write host[:port][/prefix], like 127.0.0.1:5000/hooks"));
        }
        if scheme == "http://" && !is_loopback(registry) && !insecure_http {
            return Err(format!(
                "{location:?}: plain HTTP to {registry}, which is not on this machine, is refused (anyone on the path could swap what it serves); use https://, or name it in [registries] with insecure_http = true if you accept that"
            ));
        }
        let plain_http = scheme == "http://" || (scheme != "https://" && (is_loopback(registry) || insecure_http));
        Ok(OciLocation { registry: registry.to_string(), prefix: prefix.to_string(), plain_http })
    }
}

impl Registry {
    /// A registry named by location (a command line): `oci://host[:port][/prefix]` (also
    /// `https://` and `http://`, the latter for loopback only) or a directory.
    pub fn from_location(location: &str) -> Result<Registry, String> {
        if ["oci://", "https://", "http://"].iter().any(|s| location.starts_with(s)) {
            OciLocation::parse(location, false).map(Registry::Oci)
        } else {
            Ok(Registry::Dir(PathBuf::from(location)))
        }
    }

}

/// Validate `[registries]`; `local` exists even when not written.
pub(crate) fn registries(raw: &BTreeMap<String, RawRegistry>, base: &Path, problems: &mut Vec<Problem>) -> BTreeMap<String, Registry> {
    let mut out = BTreeMap::new();
    out.insert("local".to_string(), Registry::Dir(paths::local_registry()));
    for (name, r) in raw {
        let at = format!("registries.{name}");
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_')) {
            problems.push(Problem::at(at.to_string(), "registry names use lowercase letters, digits, '-' and '_'"));
            continue;
        }
        match (&r.path, &r.oci) {
            (Some(p), None) => {
                out.insert(name.clone(), Registry::Dir(base.join(p)));
            }
            (None, Some(loc)) => match OciLocation::parse(loc, r.insecure_http) {
                Ok(l) => {
                    out.insert(name.clone(), Registry::Oci(l));
                }
                Err(e) => problems.push(Problem::at(format!("{at}.oci"), e.to_string())),
            },
            _ => problems.push(Problem::at(at.to_string(), "give exactly one of path (a local directory registry) or oci (host[:port][/prefix])")),
        }
    }
    out
}

/// `[trust]` as written in the host config.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawTrust {
    /// Refuse bundles without enough trusted signatures (default: true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub require_signed: Option<bool>,
    /// Distinct trusted signers a bundle needs (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_signers: Option<u32>,
    /// The trusted public keys.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<RawKey>,
}

/// One trusted public key.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawKey {
    /// A label for messages (`"acme security team"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The public key: the base64 line of a minisign `.pub` file (`RWQ…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_key: Option<String>,
    /// Or a minisign `.pub` file (relative to the config file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub public_key_file: Option<PathBuf>,
    /// Bundle-name patterns this key may sign: `acme/*`, `acme/secret-guard`, `*`.
    pub allow: Vec<String>,
}

/// A trusted key as configured (its text is parsed as a minisign key when bundles resolve).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustKey {
    /// Where it is configured, for messages (`trust.keys[0]`).
    pub at: String,
    /// Its label, if given.
    pub name: Option<String>,
    /// The public key text (a `.pub` file's content or its base64 line).
    pub text: String,
    /// Bundle-name patterns it may sign (each valid).
    pub allow: Vec<String>,
}

/// How many trusted signatures a bundle needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SigningRules {
    /// Refuse bundles without enough trusted signatures.
    pub require_signed: bool,
    /// Distinct trusted signers a bundle needs.
    pub min_signers: usize,
}

impl Default for SigningRules {
    fn default() -> SigningRules {
        SigningRules { require_signed: true, min_signers: 1 }
    }
}

/// `[trust]`, validated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustConfig {
    /// The trusted keys.
    pub keys: Vec<TrustKey>,
    /// How many signatures by them a bundle needs.
    pub rules: SigningRules,
    /// A trusted key may revoke another key (the managed layer's `policy.revoke_other_keys`);
    /// otherwise a key revocation counts only when signed by the key it revokes.
    pub revoke_other_keys: bool,
}

impl RawTrust {
    /// Validate, reading key files relative to `base`; problems are pushed with their field.
    pub(crate) fn validate(&self, base: &Path, problems: &mut Vec<Problem>) -> TrustConfig {
        let mut keys = Vec::new();
        for (i, raw) in self.keys.iter().enumerate() {
            let at = format!("trust.keys[{i}]");
            let text = match (&raw.public_key, &raw.public_key_file) {
                (Some(k), None) => k.clone(),
                (None, Some(file)) => match std::fs::read_to_string(base.join(file)) {
                    Ok(t) => t,
                    Err(e) => {
                        problems.push(Problem::at(format!("{at}.public_key_file"), format!("cannot read {} ({e})", base.join(file).display())));
                        continue;
                    }
                },
                _ => {
                    problems.push(Problem::at(at.to_string(), "give exactly one of public_key (the base64 line of a minisign .pub file) or public_key_file"));
                    continue;
                }
            };
            if raw.allow.is_empty() {
                problems.push(Problem::at(format!("{at}.allow"), "empty; list the bundle names this key may sign, like [\"acme/*\"]"));
            }
            for p in &raw.allow {
                if !hookhost_types::BundleName::valid_pattern(p) {
                    problems.push(Problem::at(format!("{at}.allow"), format!("{p:?} is not a bundle-name pattern; use \"namespace/name\", \"namespace/*\" or \"*\"")));
                }
            }
            keys.push(TrustKey { at, name: raw.name.clone(), text, allow: raw.allow.clone() });
        }
        if self.min_signers == Some(0) {
            problems.push(Problem::at("trust.min_signers", "must be at least 1 (turn signing off with require_signed = false)"));
        }
        TrustConfig { keys, rules: SigningRules { require_signed: self.require_signed.unwrap_or(true), min_signers: self.min_signers.unwrap_or(1) as usize }, revoke_other_keys: false }
    }
}

/// One entry of `bundles`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleDecl {
    /// `bundles[0]`, for messages.
    pub at: String,
    /// What it names.
    pub reference: BundleRef,
    /// Its hooks' mode.
    pub mode: Mode,
}

/// Validate `bundles` against the registries.
pub(crate) fn bundles(raw: &[RawBundleRef], layer_mode: Mode, registries: &BTreeMap<String, Registry>, problems: &mut Vec<Problem>) -> Vec<BundleDecl> {
    let mut out = Vec::new();
    for (i, entry) in raw.iter().enumerate() {
        let at = format!("bundles[{i}]");
        let mode = entry.mode().unwrap_or(layer_mode);
        match entry.reference().parse::<BundleRef>() {
            Ok(r) if !registries.contains_key(&r.registry) => {
                let known: Vec<&str> = registries.keys().map(String::as_str).collect();
                problems.push(Problem::at(at.to_string(), format!("no registry named {:?}; define [registries.{}] or use one of {}", r.registry, r.registry, known.join(", "))));
            }
            Ok(reference) => out.push(BundleDecl { at, reference, mode }),
            Err(e) => problems.push(Problem::at(at.to_string(), e.to_string())),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_only_for_loopback() {
        for yes in ["127.0.0.1:5000", "localhost:5000", "localhost", "[::1]:5000", "127.8.9.1"] {
            assert!(is_loopback(yes), "{yes}");
        }
        for no in ["registry.example.com", "10.0.0.1:5000", "ghcr.io", "localhost.evil.com:80", "127.0.0.1.nip.io"] {
            assert!(!is_loopback(no), "{no}");
        }
        assert!(OciLocation::parse("http://127.0.0.1:5000/hooks", false).unwrap().plain_http);
        let refused = OciLocation::parse("http://registry.example.com/hooks", false).unwrap_err();
        assert!(refused.contains("plain HTTP to registry.example.com, which is not on this machine, is refused"), "{refused}");
        let allowed = OciLocation::parse("registry.example.com/hooks", true).unwrap();
        assert!(allowed.plain_http && allowed.prefix == "hooks" && allowed.registry == "registry.example.com");
    }
}
