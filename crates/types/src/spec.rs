//! A validated hook: its event, matcher, plugin, settings, limits and failure policy; and what
//! a plugin may be granted.

use crate::event::EventName;
use crate::ids::{BundleName, HookId};
use crate::matcher::{Matcher, MatcherSpec};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// Bounds of `timeout_ms` (Everruns' user_hooks contract).
pub const TIMEOUT_RANGE_MS: std::ops::RangeInclusive<u64> = 100..=30_000;
/// Bounds of a converted peer hook's timeout: its runtime's own (Claude Code's default is
/// 600 s), up to hookhost's ceiling of 600 s.
pub const PEER_TIMEOUT_RANGE_MS: std::ops::RangeInclusive<u64> = 100..=600_000;
/// `timeout_ms` when a hook does not set one.
pub const DEFAULT_TIMEOUT_MS: u64 = 5_000;
/// Default fuel budget per invocation: enough for any reasonable hook, small enough that a
/// runaway loop ends in well under a second.
pub const DEFAULT_FUEL: u64 = 100_000_000;
/// Default per-invocation memory limit.
pub const DEFAULT_MEMORY_MIB: u64 = 64;
/// The largest per-hook memory limit the engine's instance pool is sized for.
pub const MAX_MEMORY_MIB: u64 = 1024;
/// Default of `stop_loop_cap`: consecutive `stop` blocks allowed in one session.
pub const DEFAULT_STOP_LOOP_CAP: u32 = 3;

/// The plugins compiled into hookhost (`builtin:<name>`).
pub const BUILTIN_PLUGINS: &[&str] = &["guard-destructive", "redact-secrets", "bash-adapter"];

/// What to do when the executor itself fails (trap, timeout, out of fuel or memory, guest error).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnError {
    /// Treat as a block with reason "hook failed: ...". For security-critical hooks.
    Block,
    /// Log and continue.
    Allow,
    /// Log, emit `hook.warning`, continue.
    #[default]
    Warn,
}

impl OnError {
    /// The name as written in a config.
    pub fn as_str(&self) -> &'static str {
        match self {
            OnError::Block => "block",
            OnError::Allow => "allow",
            OnError::Warn => "warn",
        }
    }
}

/// Whether a hook's decision counts (`mode`): a rollout runs a new policy in `observe` first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Its verdict and effects apply.
    #[default]
    Enforce,
    /// It runs as usual and what it decided is recorded (trace, audit, metrics), but nothing
    /// of it applies: the outcome is what it would be without the hook.
    Observe,
}

impl Mode {
    /// The name as written in a config.
    pub fn as_str(&self) -> &'static str {
        match self {
            Mode::Enforce => "enforce",
            Mode::Observe => "observe",
        }
    }
}

/// What happens when an audit record cannot be written (`audit_failure`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuditFailure {
    /// The event's decision becomes a block whose reason names the audit failure.
    #[default]
    Block,
    /// Log the failure and keep the decision.
    Warn,
}

/// A capability a host can grant a plugin.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Capability {
    /// Run host processes through `hookhost:hooks/process` (the bash adapter's host mode).
    ProcessExec,
    /// Send HTTP requests through `wasi:http/outgoing-handler` to one host (and port):
    /// `net:http:127.0.0.1:9000`, or `net:http:hooks.example.com` for its scheme's default port.
    NetHttp(NetHost),
}

/// The host (and port) a `net:http:` grant names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NetHost {
    /// A DNS name or an IP address (IPv6 without brackets), lower case.
    pub host: String,
    /// The port; `None` allows the URL scheme's default port only (80 for http, 443 for https).
    pub port: Option<u16>,
}

impl NetHost {
    /// Whether a request to `host:port` over `https` (or not) is what this grant names.
    pub fn allows(&self, host: &str, port: Option<u16>, https: bool) -> bool {
        let default = if https { 443 } else { 80 };
        let host = host.trim_start_matches('[').trim_end_matches(']');
        self.host.eq_ignore_ascii_case(host) && self.port.unwrap_or(default) == port.unwrap_or(default)
    }

    /// Parse `HOST`, `HOST:PORT`, `[V6]` or `[V6]:PORT`.
    fn parse(s: &str) -> Option<NetHost> {
        let (host, port) = match s.strip_prefix('[') {
            Some(rest) => {
                let (host, after) = rest.split_once(']')?;
                (host, after.strip_prefix(':'))
            }
            None => match s.rsplit_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (s, None),
            },
        };
        let port = match port {
            Some(p) => Some(p.parse::<u16>().ok().filter(|p| *p != 0)?),
            None => None,
        };
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':');
        (!host.is_empty() && host.chars().all(plain)).then(|| NetHost { host: host.to_ascii_lowercase(), port })
    }
}

impl fmt::Display for NetHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.host.contains(':'), self.port) {
            (true, Some(port)) => write!(f, "[{}]:{port}", self.host),
            (true, None) => write!(f, "[{}]", self.host),
            (false, Some(port)) => write!(f, "{}:{port}", self.host),
            (false, None) => f.write_str(&self.host),
        }
    }
}

impl Capability {
    /// The forms a capability is written in, for messages.
    pub const FORMS: &'static [&'static str] = &["process:exec", "net:http:HOST[:PORT]"];

    /// The family name (`process:exec`, `net:http`).
    pub fn kind(&self) -> &'static str {
        match self {
            Capability::ProcessExec => "process:exec",
            Capability::NetHttp(_) => "net:http",
        }
    }

    /// The hosts of `net:http:` capabilities among `caps`.
    pub fn net_hosts<'a>(caps: impl IntoIterator<Item = &'a Capability>) -> Vec<NetHost> {
        caps.into_iter().filter_map(|c| match c {
            Capability::NetHttp(h) => Some(h.clone()),
            Capability::ProcessExec => None,
        }).collect()
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Capability::ProcessExec => f.write_str("process:exec"),
            Capability::NetHttp(host) => write!(f, "net:http:{host}"),
        }
    }
}

/// A capability name hookhost does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown capability {0:?}; known capabilities are {known}", known = Capability::FORMS.join(", "))]
pub struct UnknownCapability(pub String);

impl std::str::FromStr for Capability {
    type Err = UnknownCapability;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "process:exec" {
            return Ok(Capability::ProcessExec);
        }
        s.strip_prefix("net:http:").and_then(NetHost::parse).map(Capability::NetHttp).ok_or_else(|| UnknownCapability(s.to_string()))
    }
}

/// Where a plugin comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PluginRef {
    /// A plugin compiled into hookhost (`builtin:<name>`).
    Builtin(String),
    /// A component file.
    Path(PathBuf),
    /// A file of a bundle (or `builtin:<name>` used by a bundle's hook), kept apart from the
    /// same plugin used elsewhere so grants never leak between them.
    Bundle {
        /// The bundle's `namespace/name`.
        bundle: BundleName,
        /// The file inside the bundle, or `builtin:<name>`.
        file: String,
    },
}

/// The prefix that names a built-in plugin.
const BUILTIN_PREFIX: &str = "builtin:";

/// How a plugin reference was written, before it is resolved against a directory or a bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PluginName<'a> {
    /// `builtin:<name>` (the name is not checked against [`BUILTIN_PLUGINS`]).
    Builtin(&'a str),
    /// `namespace/name:file`: a file of a bundle (only in grants).
    BundleFile(BundleName, &'a str),
    /// Anything else: a path.
    Path(&'a str),
}

impl<'a> PluginName<'a> {
    /// Read a plugin reference as written in `executor.plugin`, a bundle manifest or a grant.
    /// `namespace/name:file` is recognised only when `bundle_files` is set (grants).
    pub fn parse(text: &'a str, bundle_files: bool) -> PluginName<'a> {
        if let Some(name) = text.strip_prefix(BUILTIN_PREFIX) {
            return PluginName::Builtin(name);
        }
        if bundle_files {
            if let Some((bundle, file)) = text.split_once(':') {
                if let Ok(bundle) = bundle.parse::<BundleName>() {
                    return PluginName::BundleFile(bundle, file);
                }
            }
        }
        PluginName::Path(text)
    }
}

impl PluginRef {
    /// The built-in plugin this names, if any (also when used by a bundle).
    pub fn builtin_name(&self) -> Option<&str> {
        match self {
            PluginRef::Builtin(name) => Some(name),
            PluginRef::Bundle { file, .. } => file.strip_prefix(BUILTIN_PREFIX),
            PluginRef::Path(_) => None,
        }
    }

    /// The same plugin as a bundle's hook names it: `file` is the bundle file, or
    /// `builtin:<name>`.
    pub fn in_bundle(&self, bundle: &BundleName) -> PluginRef {
        let file = match self {
            PluginRef::Builtin(name) => format!("{BUILTIN_PREFIX}{name}"),
            PluginRef::Path(p) => p.to_string_lossy().into_owned(),
            PluginRef::Bundle { file, .. } => file.clone(),
        };
        PluginRef::Bundle { bundle: bundle.clone(), file }
    }
}

impl fmt::Display for PluginRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PluginRef::Builtin(name) => write!(f, "{BUILTIN_PREFIX}{name}"),
            PluginRef::Path(p) => write!(f, "{}", p.display()),
            PluginRef::Bundle { bundle, file } => write!(f, "{bundle}:{file}"),
        }
    }
}

/// Per-invocation limits of one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock limit of one invocation.
    pub timeout: Duration,
    /// Fuel budget (before the per-payload-byte allowance the host adds).
    pub fuel: u64,
    /// Linear memory limit.
    pub memory_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { timeout: Duration::from_millis(DEFAULT_TIMEOUT_MS), fuel: DEFAULT_FUEL, memory_bytes: (DEFAULT_MEMORY_MIB as usize) << 20 }
    }
}

/// A validated hook.
#[derive(Debug, Clone)]
pub struct HookSpec {
    /// `user:{name}`, `{capability}:{name}`, `{namespace}/{bundle}:{name}`.
    pub id: HookId,
    /// The event it runs on.
    pub event: EventName,
    /// Which events of that kind it runs on (none: all).
    pub matcher: Option<Matcher>,
    /// The matcher as written.
    pub matcher_spec: Option<MatcherSpec>,
    /// The plugin that runs it.
    pub plugin: PluginRef,
    /// Settings passed to the plugin.
    pub settings: Value,
    /// Per-invocation limits.
    pub limits: Limits,
    /// What an executor failure becomes.
    pub on_error: OnError,
    /// What it is for.
    pub description: Option<String>,
    /// It runs in the background (a peer's `async: true`): after the chain has decided, its
    /// outcome logged and audited, never changing the decision.
    pub background: bool,
    /// It runs at most once per session (a peer's `once: true`).
    pub once: bool,
    /// Whether its decision counts, or is only recorded.
    pub mode: Mode,
    /// Capabilities granted to this hook alone (a `[[peers]]` include's `grants`), besides
    /// what its plugin is granted.
    pub grants: BTreeSet<Capability>,
}

/// Which plugins may use which capabilities.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Grants {
    all: BTreeSet<Capability>,
    per_plugin: HashMap<PluginRef, BTreeSet<Capability>>,
}

impl Grants {
    /// Grant a capability to every plugin of this config except bundles' (the CLI's `--grant`).
    pub fn grant_all(&mut self, capability: Capability) {
        self.all.insert(capability);
    }

    /// Grant a capability to one plugin (the config's `grants`).
    pub fn grant(&mut self, plugin: PluginRef, capability: Capability) {
        self.per_plugin.entry(plugin).or_default().insert(capability);
    }

    /// The capabilities granted to `plugin` by name.
    pub fn named(&self, plugin: &PluginRef) -> impl Iterator<Item = &Capability> + '_ {
        self.per_plugin.get(plugin).into_iter().flatten()
    }

    /// The `net:http:` hosts `plugin` may reach (a bundle's plugin: by its own grants only).
    pub fn net_hosts(&self, plugin: &PluginRef) -> Vec<NetHost> {
        let named = self.per_plugin.get(plugin).into_iter().flatten();
        match plugin {
            PluginRef::Bundle { .. } => Capability::net_hosts(named),
            _ => Capability::net_hosts(named.chain(&self.all)),
        }
    }

    /// Every capability granted to `plugin`: by its name, and (unless it is a bundle's) to every
    /// plugin.
    pub fn for_plugin(&self, plugin: &PluginRef) -> BTreeSet<Capability> {
        let mut caps: BTreeSet<Capability> = self.named(plugin).cloned().collect();
        if !matches!(plugin, PluginRef::Bundle { .. }) {
            caps.extend(self.all.iter().cloned());
        }
        caps
    }

    /// Whether nothing is granted.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty() && self.per_plugin.values().all(BTreeSet::is_empty)
    }

    /// Whether `plugin` holds `capability`. A bundle's plugin needs a grant by its own name:
    /// a grant to every plugin does not reach bundles.
    pub fn allows(&self, plugin: &PluginRef, capability: &Capability) -> bool {
        let named = self.per_plugin.get(plugin).is_some_and(|caps| caps.contains(capability));
        match plugin {
            PluginRef::Bundle { .. } => named,
            _ => named || self.all.contains(capability),
        }
    }
}
