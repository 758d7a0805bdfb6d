//! The native configuration (TOML, or the same schema as JSON): hooks mapping 1:1 onto the
//! seed's `UserHookSpec`, an executor naming a wasm plugin and its settings, and host limits.
//!
//! Parsing is strict (unknown fields are errors) and validation collects every problem before
//! failing, so a config is either loaded whole or not at all.

use crate::event::EventName;
use crate::matcher::{Matcher, MatcherSpec};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Bounds of `timeout_ms` (seed 001).
pub const TIMEOUT_RANGE_MS: std::ops::RangeInclusive<u64> = 100..=30_000;
pub const DEFAULT_TIMEOUT_MS: u64 = 5_000;
/// Default fuel budget per invocation: enough for any reasonable hook, small enough that a
/// runaway loop ends in well under a second.
pub const DEFAULT_FUEL: u64 = 100_000_000;
pub const DEFAULT_MEMORY_MIB: u64 = 64;
/// The largest per-hook memory limit the engine's instance pool is sized for.
pub const MAX_MEMORY_MIB: u64 = 1024;

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
    pub fn as_str(&self) -> &'static str {
        match self {
            OnError::Block => "block",
            OnError::Allow => "allow",
            OnError::Warn => "warn",
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

/// The config file as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    /// Append one JSON line per hook invocation to this file (relative to the config file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_log: Option<PathBuf>,
    /// What a dispatch does when its audit record cannot be written: `block` (the default: the
    /// decision of an event that can block becomes a block naming the failure) or `warn`
    /// (log the failure and keep the hooks' decision).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_failure: Option<AuditFailure>,
    /// Where compiled plugins are cached (default: `$HOOKHOST_CACHE_DIR`, else the user cache dir).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_dir: Option<PathBuf>,
    /// Default limits for every hook.
    #[serde(default)]
    pub limits: RawLimits,
    /// The user's own hooks (HookIds `user:{id}`), after every capability's hooks.
    #[serde(default)]
    pub hooks: Vec<RawHook>,
    /// Groups of contributed hooks (HookIds `{capability}:{id}`), in chain order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<RawCapability>,
    /// Contributed HookIds to mute, e.g. `"rust_pack:fmt_after_edit"`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled_contributions: Vec<String>,
    /// Consecutive `stop` blocks allowed in one session before hookhost lets the agent stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_loop_cap: Option<u32>,
    /// Where the user's hooks sit among the capabilities (Everruns files declare them in
    /// order); `None` = after every capability.
    #[serde(skip)]
    pub user_position: Option<usize>,
    /// Where the user's hooks sit in a peer file, for messages.
    #[serde(skip)]
    pub user_path: Option<String>,
    /// Capabilities granted to plugins: `"builtin:bash-adapter" = ["process:exec"]`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub grants: std::collections::BTreeMap<String, Vec<String>>,
    /// Signed bundles whose hooks join the chain (before the user's hooks), in this order:
    /// `registry/namespace/name@version` or `registry/namespace/name@sha256:<digest>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bundles: Vec<String>,
    /// Where bundles come from, by name (`local` is the local directory registry by default).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub registries: std::collections::BTreeMap<String, crate::bundle::resolve::RawRegistry>,
    /// Which keys are trusted to sign which bundles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<crate::bundle::trust::RawTrust>,
}

/// A named group of contributed hooks (an Everruns capability, a bundle).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCapability {
    pub id: String,
    #[serde(default)]
    pub hooks: Vec<RawHook>,
    /// Where this group sits in a peer file, for messages (`capabilities[1].config.hooks`).
    #[serde(skip)]
    pub path: Option<String>,
}

/// Default of `stop_loop_cap`.
pub const DEFAULT_STOP_LOOP_CAP: u32 = 3;

/// The capabilities a host can grant.
pub const CAPABILITIES: &[&str] = &["process:exec"];

/// Which plugins may use which capabilities.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Grants {
    all: std::collections::BTreeSet<String>,
    pub(crate) per_plugin: HashMap<PluginRef, std::collections::BTreeSet<String>>,
}

impl Grants {
    /// Grant a capability to every plugin of this config (the CLI's `--grant CAP`).
    pub fn grant_all(&mut self, capability: &str) -> Result<(), String> {
        check_capability(capability)?;
        self.all.insert(capability.to_string());
        Ok(())
    }

    /// Whether `plugin` holds `capability`. A bundle's plugin needs a grant by its own name:
    /// `--grant` (every plugin of the config) does not reach bundles.
    pub fn allows(&self, plugin: &PluginRef, capability: &str) -> bool {
        let named = self.per_plugin.get(plugin).is_some_and(|caps| caps.contains(capability));
        match plugin {
            PluginRef::Bundle { .. } => named,
            _ => named || self.all.contains(capability),
        }
    }
}

pub(crate) fn check_capability(capability: &str) -> Result<(), String> {
    if CAPABILITIES.contains(&capability) {
        Ok(())
    } else {
        Err(format!("unknown capability {capability:?}; known capabilities are {}", CAPABILITIES.join(", ")))
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawLimits {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuel: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<u64>,
}

/// One hook as written: the seed's `UserHookSpec`.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawHook {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub event: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<MatcherSpec>,
    pub executor: RawExecutor,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    #[serde(default)]
    pub on_error: OnError,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Which plugin runs the hook, with what settings and limits.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawExecutor {
    /// `builtin:<name>` or a path to a `.wasm` component (relative to the config file).
    pub plugin: String,
    /// Passed to the plugin as JSON (`validate-settings` at load, `context.settings` per call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuel: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<u64>,
}

/// Where a plugin comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PluginRef {
    Builtin(String),
    Path(PathBuf),
    /// A file of a bundle (or `builtin:<name>` used by a bundle's hook), kept apart from the
    /// same plugin used elsewhere so grants never leak between them.
    Bundle { bundle: String, file: String },
}

impl PluginRef {
    /// The built-in plugin this names, if any (also when used by a bundle).
    pub fn builtin_name(&self) -> Option<&str> {
        match self {
            PluginRef::Builtin(name) => Some(name),
            PluginRef::Bundle { file, .. } => file.strip_prefix("builtin:"),
            PluginRef::Path(_) => None,
        }
    }
}

impl fmt::Display for PluginRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PluginRef::Builtin(name) => write!(f, "builtin:{name}"),
            PluginRef::Path(p) => write!(f, "{}", p.display()),
            PluginRef::Bundle { bundle, file } => write!(f, "{bundle}:{file}"),
        }
    }
}

/// Per-invocation limits of one hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub timeout: Duration,
    pub fuel: u64,
    pub memory_bytes: usize,
}

/// A validated hook.
#[derive(Debug, Clone)]
pub struct HookSpec {
    /// `user:{name}`.
    pub id: String,
    pub event: EventName,
    pub matcher: Option<Matcher>,
    pub matcher_spec: Option<MatcherSpec>,
    pub plugin: PluginRef,
    pub settings: Value,
    pub limits: Limits,
    pub on_error: OnError,
    pub description: Option<String>,
}

/// A validated configuration.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The file it came from, for messages (`<embedded>` for the built-in default).
    pub source: PathBuf,
    pub hooks: Vec<HookSpec>,
    pub audit_log: Option<PathBuf>,
    pub audit_failure: AuditFailure,
    pub cache_dir: Option<PathBuf>,
    pub grants: Grants,
    /// Consecutive stop blocks allowed per session (0 = no cap).
    pub stop_loop_cap: u32,
    /// HookIds that were muted by `disabled_contributions`.
    pub muted: Vec<String>,
    /// `disabled_contributions` as written (bundle hooks are muted when bundles resolve).
    pub disabled_contributions: Vec<String>,
    /// Bundles to resolve when the host loads, in order.
    pub bundles: Vec<BundleDecl>,
    pub registries: std::collections::BTreeMap<String, crate::bundle::resolve::Registry>,
    pub trust: crate::bundle::trust::Policy,
    /// How the lock file next to the config is used (`--locked`).
    pub lock_mode: crate::bundle::resolve::LockMode,
    /// Default (fuel, memory MiB) of hooks, for bundle hooks validated later.
    pub(crate) defaults: (u64, u64),
    /// Capabilities each bundle plugin's manifest declares.
    pub(crate) bundle_caps: HashMap<PluginRef, std::collections::BTreeSet<String>>,
    /// Verified plugin bytes of resolved bundles, and their sha256.
    pub(crate) bundle_plugins: HashMap<PluginRef, (std::sync::Arc<[u8]>, String)>,
}

impl Config {
    /// The cache directory this config's host uses: `$HOOKHOST_CACHE_DIR`, else `cache_dir`,
    /// else the user's cache directory.
    pub fn effective_cache_dir(&self) -> Option<PathBuf> {
        crate::engine::cache_dir(self.cache_dir.as_deref())
    }

    /// Whether a plugin holds `capability`: granted (a bundle's plugin by its own name only)
    /// and, for a bundle's plugin file, declared in its manifest. Anything else declares by
    /// importing the interface (checked at load).
    pub(crate) fn holds(&self, plugin: &PluginRef, capability: &str) -> bool {
        let declared = match plugin {
            PluginRef::Bundle { file, .. } if !file.starts_with("builtin:") => self.bundle_caps.get(plugin).is_some_and(|c| c.contains(capability)),
            _ => true,
        };
        declared && self.grants.allows(plugin, capability)
    }
}

/// One entry of `bundles`.
#[derive(Debug, Clone)]
pub struct BundleDecl {
    /// `bundles[0]`, for messages.
    pub at: String,
    pub reference: crate::bundle::resolve::BundleRef,
    /// Report pulls on stderr (the CLI on a terminal).
    pub progress: bool,
}

/// Validate one hook spec of a bundle (HookId `{prefix}:{name}`); `None` with problems pushed.
pub(crate) fn validate_hook(raw: RawHook, prefix: &str, index: usize, at: &str, defaults: (u64, u64), problems: &mut Vec<String>) -> Option<HookSpec> {
    validate::hook(raw, prefix, index, at, Path::new(""), defaults, problems)
}

/// The JSON Schema of the native config format (what `hookhost config schema` prints and
/// `docs/config.schema.json` holds).
pub fn schema() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(RawConfig)).expect("schemas serialise")
}

/// A config that failed to load: the file and every problem found, each naming its field.
#[derive(Debug, thiserror::Error)]
#[error("{}", render(file, problems))]
pub struct ConfigError {
    pub file: PathBuf,
    pub problems: Vec<String>,
}

fn render(file: &Path, problems: &[String]) -> String {
    match problems {
        [one] => format!("{}: {one}", file.display()),
        many => {
            let mut out = format!("{}: {} problems:", file.display(), many.len());
            for p in many {
                out.push_str("\n  - ");
                out.push_str(p);
            }
            out
        }
    }
}

/// The configuration used when none is given: both built-in plugins on their natural events.
pub const EMBEDDED_DEFAULT: &str = include_str!("default.toml");

impl Config {
    /// Read and validate a config file (`.json` is parsed as JSON, anything else as TOML).
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: path.to_path_buf(),
            problems: vec![format!("cannot read the config file ({e}); check the path given to --config")],
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Self::parse(&text, path, &base)
    }

    /// The embedded default configuration.
    pub fn embedded_default() -> Config {
        Self::parse(EMBEDDED_DEFAULT, Path::new("<embedded default config>"), Path::new("."))
            .expect("the embedded default config is valid (tested)")
    }

    /// Parse and validate config text, detecting its format from the extension and contents.
    /// `base` resolves relative plugin and audit paths.
    pub fn parse(text: &str, file: &Path, base: &Path) -> Result<Config, ConfigError> {
        Self::parse_as(text, file, base, None)
    }

    /// Like [`Config::parse`], with the format forced (`--dialect`).
    pub fn parse_as(text: &str, file: &Path, base: &Path, format: Option<peer::Format>) -> Result<Config, ConfigError> {
        Self::raw(text, file, format)?.validate(base).map(|mut c| {
            c.source = file.to_path_buf();
            c
        })
        .map_err(|problems| ConfigError { file: file.to_path_buf(), problems })
    }

    /// Read and validate a config file with its format forced.
    pub fn load_as(path: &Path, format: Option<peer::Format>) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            file: path.to_path_buf(),
            problems: vec![format!("cannot read the config file ({e}); check the path given to --config")],
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Self::parse_as(&text, path, &base, format)
    }

    /// Parse text into the native form, whatever its format.
    fn raw(text: &str, file: &Path, format: Option<peer::Format>) -> Result<RawConfig, ConfigError> {
        let fail = |problems| ConfigError { file: file.to_path_buf(), problems };
        let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
        let yaml = matches!(ext, "yaml" | "yml") || matches!(format, Some(peer::Format::DockerAgent | peer::Format::Starchild));
        if !yaml && (ext != "json" && format.is_none_or(|f| f == peer::Format::Native)) {
            return toml::from_str(text).map_err(|e| fail(vec![toml_problem(&e, text)]));
        }
        let doc: Value = if yaml {
            serde_norway::from_str(text).map_err(|e| fail(vec![format!("invalid YAML: {e}")]))?
        } else {
            json::parse_strict(text).map_err(|e| fail(vec![format!("invalid JSON: {e}")]))?
        };
        let format = match format {
            Some(f) => f,
            None => peer::detect(&doc, yaml).map_err(|e| fail(vec![e]))?,
        };
        match format {
            peer::Format::Native => serde_json::from_value(doc).map_err(|e| fail(vec![format!("invalid config: {e}")])),
            peer => peer::convert(peer, doc).map_err(fail),
        }
    }
}

/// One line for a TOML error: the message with its line and column.
fn toml_problem(e: &toml::de::Error, text: &str) -> String {
    let msg = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("line {line}, column {col}: {msg}")
        }
        None => format!("invalid config: {msg}"),
    }
}

mod json;
mod validate;
pub mod peer;

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(text, Path::new("hooks.toml"), Path::new("/cfg"))
    }

    #[test]
    fn embedded_default_is_valid() {
        let c = Config::embedded_default();
        assert!(c.hooks.len() >= 2);
    }

    #[test]
    fn minimal_hook_gets_the_seed_defaults() {
        let c = parse("[[hooks]]\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"g.wasm\" }\n").unwrap();
        let h = &c.hooks[0];
        assert_eq!(h.id, "user:pre_tool_use_0");
        assert_eq!(h.limits.timeout, Duration::from_millis(5000));
        assert_eq!(h.on_error, OnError::Warn);
        assert_eq!(h.plugin, PluginRef::Path(PathBuf::from("/cfg/g.wasm")));
        assert_eq!(h.limits.memory_bytes, 64 << 20);
    }

    #[test]
    fn every_problem_is_reported_with_its_field() {
        let err = parse(
            r#"
[[hooks]]
id = "a"
event = "pre_tool"
executor = { plugin = "builtin:nope" }
timeout_ms = 50

[[hooks]]
id = "a"
event = "session_start"
matcher = { tool_name = "bash" }
executor = { plugin = "x.wasm", memory_mib = 0 }
"#,
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("hooks.toml: 6 problems:"), "{text}");
        for want in [
            "hooks[0].event: unknown event \"pre_tool\"; use one of session_start,",
            "hooks[0].timeout_ms: 50 is out of range; use 100..=30000 milliseconds (default 5000)",
            "hooks[0].executor.plugin: unknown built-in plugin \"nope\"; built-ins are builtin:guard-destructive, builtin:redact-secrets",
            "hooks[1].id: duplicate hook id \"user:a\" (also hooks[0])",
            "hooks[1].matcher: matchers apply to tool events only",
            "hooks[1].executor.memory_mib: 0 is out of range; use 1..=1024 (default 64)",
        ] {
            assert!(text.contains(want), "missing {want:?} in:\n{text}");
        }
    }

    #[test]
    fn unknown_fields_and_bad_enums_name_the_field() {
        let err = parse("[[hooks]]\nevent = \"stop\"\nexecutor = { plugin = \"x.wasm\" }\ntimeout = 5\n").unwrap_err();
        assert!(err.to_string().contains("unknown field `timeout`"), "{err}");
        let err = parse("[[hooks]]\nevent = \"stop\"\nexecutor = { plugin = \"x.wasm\" }\non_error = \"deny\"\n").unwrap_err();
        assert!(err.to_string().contains("unknown variant `deny`, expected one of `block`, `allow`, `warn`"), "{err}");
    }

    #[test]
    fn json_configs_use_the_same_schema() {
        let c = Config::parse(r#"{"hooks":[{"event":"stop","executor":{"plugin":"builtin:guard-destructive"}}]}"#, Path::new("h.json"), Path::new(".")).unwrap();
        assert_eq!(c.hooks[0].plugin, PluginRef::Builtin("guard-destructive".into()));
    }
}
