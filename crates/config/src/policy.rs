//! `[policy]`: what a layer lets the layers below it do (docs/ORG.md). The managed layer may set
//! every field; the user layer only those about the project layer; a project layer none.

use hookhost_types::spec::{Capability, MAX_MEMORY_MIB, TIMEOUT_RANGE_MS};
use hookhost_types::{Problem, Runtime};
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// `[policy]` as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawPolicy {
    /// Load a project's hooks (`.hookhost/hooks.toml` found upward from the working directory)
    /// at all. Default true; `false` in the managed or the user layer turns them off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_project_hooks: Option<bool>,
    /// Peer runtimes whose project hook files join the project layer (and its approval):
    /// `claude-code` reads `.claude/settings.json`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub project_peers: Vec<String>,
    /// Capabilities a project's hooks may be granted by the project itself (`[grants]`,
    /// `[[peers]].grants`): `process:exec`, `net:http:HOST[:PORT]`, `net:http:*`. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_grants: Option<Vec<String>>,
    /// Managed layer only: capabilities the user layer (its `[grants]`, `--grant`) may grant.
    /// Default: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_grants: Option<Vec<String>>,
    /// Managed layer only: the registries lower layers' bundles may come from — names of the
    /// managed layer's `[registries]`, or locations (`oci://host/prefix`, a directory).
    /// Default: any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_registries: Option<Vec<String>>,
    /// Managed layer only: trust bundle-signing keys of the managed layer only (lower layers'
    /// `[trust].keys` are dropped).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub managed_keys_only: bool,
    /// Managed layer only: ceilings on lower layers' hooks' limits (a higher value is lowered
    /// to the ceiling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_limits: Option<RawMaxLimits>,
    /// Managed layer only: a trusted key may revoke another trusted key (a compromised key
    /// cannot be relied on to revoke itself). Default: a key revocation counts only when signed
    /// by the key it revokes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub revoke_other_keys: bool,
}

/// `[policy.max_limits]` as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawMaxLimits {
    /// Fuel per invocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuel: Option<u64>,
    /// Memory per invocation, MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<u64>,
    /// Wall-clock time per invocation, ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// A capability a policy lets a layer grant: one capability, or any `net:http:` host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CapabilityPattern {
    /// Exactly this capability.
    Exact(Capability),
    /// `net:http:*`: any host.
    AnyNetHttp,
}

impl CapabilityPattern {
    /// Whether `capability` is one this pattern allows.
    pub fn allows(&self, capability: &Capability) -> bool {
        match self {
            CapabilityPattern::Exact(c) => c == capability,
            CapabilityPattern::AnyNetHttp => matches!(capability, Capability::NetHttp(_)),
        }
    }
}

impl std::fmt::Display for CapabilityPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CapabilityPattern::Exact(c) => c.fmt(f),
            CapabilityPattern::AnyNetHttp => f.write_str("net:http:*"),
        }
    }
}

/// Ceilings on lower layers' limits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MaxLimits {
    /// Fuel per invocation.
    pub fuel: Option<u64>,
    /// Memory per invocation, bytes.
    pub memory_bytes: Option<usize>,
    /// Wall-clock time per invocation.
    pub timeout: Option<Duration>,
}

/// `[policy]`, validated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// `allow_project_hooks` as written.
    pub allow_project_hooks: Option<bool>,
    /// `project_peers`: the runtimes whose project hook files join the project layer (each
    /// one with [`ProjectHooks`](hookhost_types::runtime::ProjectHooks) in its profile).
    pub project_peers: Vec<Runtime>,
    /// `project_grants` (`None`: not written).
    pub project_grants: Option<Vec<CapabilityPattern>>,
    /// `user_grants` (`None`: not written).
    pub user_grants: Option<Vec<CapabilityPattern>>,
    /// `allowed_registries` as written.
    pub allowed_registries: Option<Vec<String>>,
    /// `managed_keys_only`.
    pub managed_keys_only: bool,
    /// `max_limits`.
    pub max_limits: MaxLimits,
    /// `revoke_other_keys`.
    pub revoke_other_keys: bool,
    /// The fields written, for the layer checks (`user_grants`, ...).
    pub written: Vec<&'static str>,
}

/// The runtimes whose project hook files a project layer may join.
pub fn project_peer_runtimes() -> impl Iterator<Item = Runtime> {
    Runtime::ALL.into_iter().filter(|r| r.profile().project_hooks.is_some())
}

fn patterns(field: &str, raw: &Option<Vec<String>>, problems: &mut Vec<Problem>) -> Option<Vec<CapabilityPattern>> {
    let raw = raw.as_ref()?;
    let mut out = Vec::new();
    for text in raw {
        if text == "net:http:*" {
            out.push(CapabilityPattern::AnyNetHttp);
            continue;
        }
        match text.parse::<Capability>() {
            Ok(c) => out.push(CapabilityPattern::Exact(c)),
            Err(e) => problems.push(Problem::at(format!("policy.{field}"), format!("{e}, or net:http:* for any host"))),
        }
    }
    Some(out)
}

impl RawPolicy {
    /// Validate, pushing each problem with its field.
    pub(crate) fn validate(&self, problems: &mut Vec<Problem>) -> Policy {
        let mut written = Vec::new();
        let mut note = |set: bool, name: &'static str| {
            if set {
                written.push(name);
            }
        };
        note(self.allow_project_hooks.is_some(), "allow_project_hooks");
        note(!self.project_peers.is_empty(), "project_peers");
        note(self.project_grants.is_some(), "project_grants");
        note(self.user_grants.is_some(), "user_grants");
        note(self.allowed_registries.is_some(), "allowed_registries");
        note(self.managed_keys_only, "managed_keys_only");
        note(self.max_limits.is_some(), "max_limits");
        note(self.revoke_other_keys, "revoke_other_keys");
        let mut project_peers = Vec::new();
        for p in &self.project_peers {
            match project_peer_runtimes().find(|r| r.name() == p) {
                Some(runtime) => project_peers.push(runtime),
                None => {
                    let known: Vec<&str> = project_peer_runtimes().map(Runtime::name).collect();
                    problems.push(Problem::at("policy.project_peers", format!("hookhost knows no project hook file of {p:?}; use {}", known.join(", "))));
                }
            }
        }
        let mut max = MaxLimits::default();
        if let Some(m) = &self.max_limits {
            if m.fuel == Some(0) {
                problems.push(Problem::at("policy.max_limits.fuel", "must be greater than 0"));
            }
            if let Some(mib) = m.memory_mib {
                if mib == 0 || mib > MAX_MEMORY_MIB {
                    problems.push(Problem::at("policy.max_limits.memory_mib", format!("{mib} is out of range; use 1..={MAX_MEMORY_MIB}")));
                }
            }
            if let Some(ms) = m.timeout_ms {
                if !TIMEOUT_RANGE_MS.contains(&ms) {
                    problems.push(Problem::at("policy.max_limits.timeout_ms", format!("{ms} is out of range; use {}..={} milliseconds", TIMEOUT_RANGE_MS.start(), TIMEOUT_RANGE_MS.end())));
                }
            }
            max = MaxLimits { fuel: m.fuel, memory_bytes: m.memory_mib.map(|m| (m as usize) << 20), timeout: m.timeout_ms.map(Duration::from_millis) };
        }
        if let Some(list) = &self.allowed_registries {
            if list.iter().any(|r| r.trim().is_empty()) {
                problems.push(Problem::at("policy.allowed_registries", "an entry is empty; name a registry of this file or a location"));
            }
        }
        Policy {
            allow_project_hooks: self.allow_project_hooks,
            project_peers,
            project_grants: patterns("project_grants", &self.project_grants, problems),
            user_grants: patterns("user_grants", &self.user_grants, problems),
            allowed_registries: self.allowed_registries.clone(),
            managed_keys_only: self.managed_keys_only,
            max_limits: max,
            revoke_other_keys: self.revoke_other_keys,
            written,
        }
    }
}

/// The fields only the managed layer may set.
pub(crate) const MANAGED_ONLY: &[&str] = &["user_grants", "allowed_registries", "managed_keys_only", "max_limits", "revoke_other_keys"];

/// Render a list of patterns for messages (`none` when empty).
pub(crate) fn list(patterns: &[CapabilityPattern]) -> String {
    if patterns.is_empty() {
        return "none".into();
    }
    patterns.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
}
