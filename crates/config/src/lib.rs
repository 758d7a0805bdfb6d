//! The native configuration (TOML, or the same schema as JSON): hooks mapping 1:1 onto
//! Everruns' `UserHookSpec`, an executor naming a wasm plugin and its settings, and host limits.
//!
//! Parsing is strict (unknown fields are errors) and validation collects every problem before
//! failing, so a config is either loaded whole or not at all.

#![deny(missing_docs)]

use hookhost_types::matcher::MatcherSpec;
use hookhost_types::spec::DEFAULT_STOP_LOOP_CAP;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};

pub use peer::Options as PeerOptions;
pub use bundles::{is_loopback, BundleDecl, OciLocation, RawKey, RawRegistry, RawTrust, Registry, SigningRules, TrustConfig, TrustKey};
pub use hookhost_types::spec::{AuditFailure, Capability, Grants, HookSpec, Limits, Mode, OnError, PluginRef, DEFAULT_FUEL, DEFAULT_MEMORY_MIB, DEFAULT_TIMEOUT_MS, MAX_MEMORY_MIB, TIMEOUT_RANGE_MS};
pub use plan::{BundlePlugin, Plan};
pub use policy::{CapabilityPattern, MaxLimits, Policy, RawMaxLimits, RawPolicy};
pub use layers::{Layer, LayerKind, LayerOptions, Layers, ProjectFallback};

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
    /// Keep each event, as received, in the audit log (in the first record of its dispatch), so
    /// `hookhost diff` can replay the log. Off by default: events carry prompts and tool output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_events: Option<bool>,
    /// Where compiled plugins are cached (default: `$HOOKHOST_CACHE_DIR`, else the user cache dir).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_dir: Option<PathBuf>,
    /// Default limits for every hook.
    #[serde(default)]
    pub limits: RawLimits,
    /// The user's own hooks (HookIds `user:{id}`), after every capability's hooks.
    #[serde(default)]
    pub hooks: Vec<RawHook>,
    /// Whether a user config that defines no hooks of its own (nor bundles) keeps the embedded
    /// default's — the built-in guard and redactors (default `true`). `false` says it means to
    /// run none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtin_hooks: Option<bool>,
    /// Groups of contributed hooks (HookIds `{capability}:{id}`), in chain order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<RawCapability>,
    /// Contributed HookIds to mute, e.g. `"rust_pack:fmt_after_edit"`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled_contributions: Vec<String>,
    /// Consecutive `stop` blocks allowed in one session before hookhost lets the agent stop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_loop_cap: Option<u32>,
    /// Without a lock file, how long a bundle tag's resolution may stand in for an unreachable
    /// registry: seconds, or `"30m"`, `"12h"`, `"7d"` (default 24h; 0 turns it off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolve_ttl: Option<RawDuration>,
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
    /// Every hook of this file (its own, its bundles', its peers') in `enforce` or `observe`
    /// mode, unless the hook or the bundle reference says otherwise (default `enforce`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// Signed bundles whose hooks join the chain (before the user's hooks), in this order:
    /// `registry/namespace/name@version` or `registry/namespace/name@sha256:<digest>`, or a
    /// table `{ ref = "...", mode = "observe" }`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bundles: Vec<RawBundleRef>,
    /// Where bundles come from, by name (`local` is the local directory registry by default).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub registries: std::collections::BTreeMap<String, RawRegistry>,
    /// Which keys are trusted to sign which bundles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<RawTrust>,
    /// Peer runtimes' hook files whose hooks join the chain (after capabilities, before the
    /// user's own hooks), each converted as if loaded on its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub peers: Vec<RawPeer>,
    /// What a converted peer hook that could not start (a missing program or script) becomes
    /// on an event that can block: `block` (the default: a block naming the hook and the fix)
    /// or `warn` (an executor error, which the hook's `on_error` decides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer_start_failure: Option<StartFailure>,
    /// What the failure of a converted peer hook (an exit code its runtime does not give a
    /// meaning, a timeout, a crash) decides, for every hook of the peer files this config
    /// includes. Unset: as its runtime documents (a Claude Code hook's failure does not block
    /// unless the hook sets `onFailure: "block"`); `block` fails closed, `warn` and `allow` do not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peer_on_failure: Option<OnError>,
    /// Hooks of a peer file that hookhost loads but does not run (`http`, `prompt`, `agent`).
    #[serde(skip)]
    pub not_run: Vec<NotRun>,
    /// Things in a peer file hookhost ignored, one line each.
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// What this layer lets the layers below it do (managed and user configs; docs/ORG.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<RawPolicy>,
}

/// A duration as written: seconds, or a number with `s`, `m`, `h` or `d`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum RawDuration {
    /// Seconds.
    Seconds(u64),
    /// `90s`, `30m`, `12h`, `7d`.
    Text(String),
}

impl RawDuration {
    /// The duration, or what is wrong with it.
    pub fn parse(&self) -> Result<std::time::Duration, String> {
        match self {
            RawDuration::Seconds(s) => Ok(std::time::Duration::from_secs(*s)),
            RawDuration::Text(t) => {
                let t = t.trim();
                let (n, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
                let n: u64 = n.parse().map_err(|_| format!("{t:?} is not a duration; write seconds, or a number with s, m, h or d (\"12h\")"))?;
                let scale = match unit {
                    "" | "s" => 1,
                    "m" => 60,
                    "h" => 3600,
                    "d" => 86_400,
                    _ => return Err(format!("{t:?} is not a duration; write seconds, or a number with s, m, h or d (\"12h\")")),
                };
                Ok(std::time::Duration::from_secs(n.saturating_mul(scale)))
            }
        }
    }
}

/// How long a bundle tag's resolution stands in for an unreachable registry by default.
pub const DEFAULT_RESOLVE_TTL: std::time::Duration = std::time::Duration::from_secs(24 * 3600);

/// A bundle reference as written: the reference, or a table with its mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum RawBundleRef {
    /// `registry/namespace/name@version`.
    Ref(String),
    /// `{ ref = "registry/namespace/name@version", mode = "observe" }`.
    Table {
        /// The reference.
        #[serde(rename = "ref")]
        reference: String,
        /// Its hooks' mode (default: the file's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<Mode>,
    },
}

impl RawBundleRef {
    /// The reference text.
    pub fn reference(&self) -> &str {
        match self {
            RawBundleRef::Ref(r) | RawBundleRef::Table { reference: r, .. } => r,
        }
    }

    /// The mode it sets, if any.
    pub fn mode(&self) -> Option<Mode> {
        match self {
            RawBundleRef::Ref(_) => None,
            RawBundleRef::Table { mode, .. } => *mode,
        }
    }
}

/// A peer runtime's hook file included by a native config (`[[peers]]`).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawPeer {
    /// The file (relative to this config): `.claude/settings.json`, `agent.yaml`, ...
    pub path: PathBuf,
    /// Its format, when detection should not decide: everruns, docker-agent, claude-code,
    /// starchild.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Capabilities its converted hooks hold: `["process:exec"]` runs them as real processes,
    /// as their runtime would (else they run in the sandbox).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grants: Vec<String>,
    /// The project directory its hooks run in (relative to this config). Default: the
    /// directory holding the file's `.claude/` (or similar) directory, else the file's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_dir: Option<PathBuf>,
}

/// What a converted peer hook that could not start becomes (`peer_start_failure`).
pub use hookhost_types::adapter::StartFailure;

/// A hook of a peer file that hookhost loads but does not run, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotRun {
    /// Where it is in its file (`hooks.PreToolUse[0].hooks[1]`).
    pub at: String,
    /// Its event as the file names it.
    pub event: String,
    /// Its type (`http`, `prompt`, `agent`, ...).
    pub kind: String,
    /// Why it does not run, and what would run it.
    pub why: String,
}

/// A named group of contributed hooks (an Everruns capability, a bundle).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCapability {
    /// The group's id: its hooks' HookIds are `{id}:{hook id}`.
    pub id: String,
    /// Its hooks, in chain order.
    #[serde(default)]
    pub hooks: Vec<RawHook>,
    /// Where this group sits in a peer file, for messages (`capabilities[1].config.hooks`).
    #[serde(skip)]
    pub path: Option<String>,
}

/// Default limits of every hook (`[limits]`).
#[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawLimits {
    /// Fuel per invocation (default 100,000,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuel: Option<u64>,
    /// Memory limit per invocation in MiB, 1..=1024 (default 64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<u64>,
}

/// One hook as written: Everruns' `UserHookSpec`.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawHook {
    /// The hook's id within its group (default `{event}_{index}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The canonical event name (`pre_tool_use`, ...).
    pub event: String,
    /// Which events of that kind it runs on (tool events; payload matchers on any event).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<MatcherSpec>,
    /// The plugin that runs it.
    pub executor: RawExecutor,
    /// Wall-clock limit, 100..=30000 ms (default 5000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// What an executor failure becomes (default `warn`).
    #[serde(default)]
    pub on_error: OnError,
    /// What it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Run in the background: after the chain has decided, without delaying the decision; its
    /// outcome is logged and audited and never changes the decision.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub background: bool,
    /// Run at most once per session.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub once: bool,
    /// `enforce` (its decision counts) or `observe` (it runs and its decision is recorded,
    /// never applied). Default: the file's `mode`, else `enforce`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// Converted from a peer file: its timeout may be its runtime's (up to 600 s).
    #[serde(skip)]
    pub peer: bool,
    /// Capabilities granted to this hook alone (a `[[peers]]` entry's `grants`).
    #[serde(skip)]
    pub grants: Vec<Capability>,
    /// Where it is written in a peer file (`hooks.PreToolUse[0].hooks[1]`), for messages.
    #[serde(skip)]
    pub at: Option<String>,
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
    /// Fuel per invocation (default: `limits.fuel`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuel: Option<u64>,
    /// Memory limit in MiB (default: `limits.memory_mib`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<u64>,
}

/// What a host does besides running hooks, as a config sets it.
#[derive(Debug, Clone)]
pub struct HostSettings {
    /// Where audit records go.
    pub audit_log: Option<PathBuf>,
    /// What a dispatch does when its audit record cannot be written.
    pub audit_failure: AuditFailure,
    /// Whether audit records keep the event they were about (the first record of a dispatch).
    pub audit_events: bool,
    /// The configured cache directory (see [`HostSettings::effective_cache_dir`]).
    pub cache_dir: Option<PathBuf>,
    /// Capabilities granted to plugins by name.
    pub grants: Grants,
    /// Consecutive stop blocks allowed per session (0 = no cap).
    pub stop_loop_cap: u32,
    /// Without a lock file, how long a tag's resolution stands in for an unreachable registry.
    pub resolve_ttl: std::time::Duration,
    /// The settings the file wrote, as opposed to defaults: what layers merge and conflict on.
    pub written: Vec<Setting>,
}

/// A host setting a layer may write ([`HostSettings`]' fields but `grants`, which merge by
/// layer reach, not by value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Setting {
    /// `audit_log`.
    AuditLog,
    /// `audit_failure`.
    AuditFailure,
    /// `audit_events`.
    AuditEvents,
    /// `cache_dir`.
    CacheDir,
    /// `stop_loop_cap`.
    StopLoopCap,
    /// `resolve_ttl`.
    ResolveTtl,
}

impl Setting {
    /// Every setting, in the order the config reference lists them.
    pub const ALL: [Setting; 6] = [Setting::AuditLog, Setting::AuditFailure, Setting::AuditEvents, Setting::CacheDir, Setting::StopLoopCap, Setting::ResolveTtl];

    /// Its name in a config file.
    pub fn name(self) -> &'static str {
        match self {
            Setting::AuditLog => "audit_log",
            Setting::AuditFailure => "audit_failure",
            Setting::AuditEvents => "audit_events",
            Setting::CacheDir => "cache_dir",
            Setting::StopLoopCap => "stop_loop_cap",
            Setting::ResolveTtl => "resolve_ttl",
        }
    }

    /// Its value in `settings`, as text (for comparing layers and for `config show --layers`).
    pub fn value(self, settings: &HostSettings) -> String {
        match self {
            Setting::AuditLog => settings.audit_log.as_ref().map_or(String::new(), |p| p.display().to_string()),
            Setting::AuditFailure => format!("{:?}", settings.audit_failure).to_lowercase(),
            Setting::AuditEvents => settings.audit_events.to_string(),
            Setting::CacheDir => settings.cache_dir.as_ref().map_or(String::new(), |p| p.display().to_string()),
            Setting::StopLoopCap => settings.stop_loop_cap.to_string(),
            Setting::ResolveTtl => format!("{}s", settings.resolve_ttl.as_secs()),
        }
    }

    /// Take its value from `from` into `to`.
    pub fn copy(self, from: &HostSettings, to: &mut HostSettings) {
        match self {
            Setting::AuditLog => to.audit_log = from.audit_log.clone(),
            Setting::AuditFailure => to.audit_failure = from.audit_failure,
            Setting::AuditEvents => to.audit_events = from.audit_events,
            Setting::CacheDir => to.cache_dir = from.cache_dir.clone(),
            Setting::StopLoopCap => to.stop_loop_cap = from.stop_loop_cap,
            Setting::ResolveTtl => to.resolve_ttl = from.resolve_ttl,
        }
    }
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Default for HostSettings {
    fn default() -> HostSettings {
        HostSettings {
            audit_log: None,
            audit_failure: AuditFailure::default(),
            audit_events: false,
            cache_dir: None,
            grants: Grants::default(),
            stop_loop_cap: DEFAULT_STOP_LOOP_CAP,
            resolve_ttl: DEFAULT_RESOLVE_TTL,
            written: Vec::new(),
        }
    }
}

impl HostSettings {
    /// The cache directory in use: `$HOOKHOST_CACHE_DIR`, else `cache_dir`, else the user's
    /// cache directory.
    pub fn effective_cache_dir(&self) -> Option<PathBuf> {
        hookhost_types::paths::cache_dir(self.cache_dir.as_deref())
    }
}

/// A validated configuration file: what it asks for, never changed after validation.
/// Bundles are named here; [`Plan`] is what a host loads once they are resolved.
#[derive(Debug, Clone, Default)]
pub struct ConfigFile {
    /// The file it came from, for messages (`<embedded default config>` for the default).
    pub source: PathBuf,
    /// Its hooks in chain order (bundles' hooks join when they resolve).
    pub hooks: Vec<HookSpec>,
    /// Audit log, cache, grants, stop-loop cap.
    pub settings: HostSettings,
    /// HookIds that were muted by `disabled_contributions`.
    pub muted: Vec<String>,
    /// `disabled_contributions` as written (bundle hooks are muted when bundles resolve).
    pub disabled_contributions: Vec<String>,
    /// Bundles to resolve, in order.
    pub bundles: Vec<BundleDecl>,
    /// Where bundles come from, by name (`local` always exists).
    pub registries: std::collections::BTreeMap<String, Registry>,
    /// Which keys are trusted to sign which bundles.
    pub trust: TrustConfig,
    /// Default limits of hooks (bundle hooks are validated with them).
    pub defaults: Limits,
    /// Peer hooks loaded but not run (`http`, `prompt`, `agent`), with why.
    pub not_run: Vec<NotRun>,
    /// What was ignored in peer files, one line each.
    pub warnings: Vec<String>,
    /// `[policy]`: what this file lets lower layers do.
    pub policy: Policy,
    /// Whether it wrote `[trust]` (a managed `[trust]` is a floor for lower layers).
    pub trust_written: bool,
    /// `builtin_hooks` as written.
    pub builtin_hooks: Option<bool>,
}

impl ConfigFile {
    /// The cache directory a host of this config uses: `$HOOKHOST_CACHE_DIR`, else
    /// `cache_dir`, else the user's cache directory.
    pub fn effective_cache_dir(&self) -> Option<PathBuf> {
        self.settings.effective_cache_dir()
    }

    /// Validate one hook spec contributed by a bundle (HookId `{prefix}:{name}`, plugins as
    /// the bundle names them); `None` with its problems pushed.
    /// `mode`: the bundle reference's. A hook is observed when the reference or the bundle's
    /// own manifest says so: a bundle cannot enforce what its consumer observes.
    pub fn validate_bundle_hook(&self, mut raw: RawHook, prefix: &str, index: usize, at: &str, mode: Mode, problems: &mut Vec<String>) -> Option<HookSpec> {
        let observed = mode == Mode::Observe || raw.mode == Some(Mode::Observe);
        raw.mode = Some(if observed { Mode::Observe } else { Mode::Enforce });
        validate::hook(raw, prefix, index, at, Path::new(""), self.defaults, mode, problems)
    }
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
    /// The config file.
    pub file: PathBuf,
    /// Every problem, each starting with the field it is about.
    pub problems: Vec<String>,
    /// The file could not be read at all (missing, unreadable, not UTF-8 text): nothing of its
    /// contents was judged.
    pub unreadable: bool,
}

impl ConfigError {
    /// A file whose contents have these problems.
    pub fn new(file: PathBuf, problems: Vec<String>) -> ConfigError {
        ConfigError { file, problems, unreadable: false }
    }
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

impl ConfigFile {
    /// Read and validate a config file (`.json` is parsed as JSON, anything else as TOML).
    pub fn load(path: &Path) -> Result<ConfigFile, ConfigError> {
        Self::load_as(path, None)
    }

    /// The embedded default configuration.
    pub fn embedded_default() -> ConfigFile {
        Self::parse(EMBEDDED_DEFAULT, Path::new("<embedded default config>"), Path::new("."))
            .expect("the embedded default config is valid (tested)")
    }

    /// Parse and validate config text, detecting its format from the extension and contents.
    /// `base` resolves relative plugin and audit paths.
    pub fn parse(text: &str, file: &Path, base: &Path) -> Result<ConfigFile, ConfigError> {
        Self::parse_as(text, file, base, None)
    }

    /// Like [`ConfigFile::parse`], with the format forced instead of detected.
    pub fn parse_as(text: &str, file: &Path, base: &Path, format: Option<peer::Format>) -> Result<ConfigFile, ConfigError> {
        let mut raw = Self::raw(text, file, format)?;
        if !raw.peers.is_empty() {
            peer::include(&mut raw, base).map_err(|problems| ConfigError::new(file.to_path_buf(), problems))?;
        }
        raw.validate(base).map(|mut c| {
            c.source = file.to_path_buf();
            c
        })
        .map_err(|problems| ConfigError::new(file.to_path_buf(), problems))
    }

    /// Read and validate a config file with its format forced.
    pub fn load_as(path: &Path, format: Option<peer::Format>) -> Result<ConfigFile, ConfigError> {
        let text = read_text(path).map_err(|e| ConfigError { file: path.to_path_buf(), problems: vec![format!("cannot read the config file ({e}); check its path")], unreadable: true })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Self::parse_as(&text, path, &base, format)
    }

    /// Parse text into the native form, whatever its format.
    fn raw(text: &str, file: &Path, format: Option<peer::Format>) -> Result<RawConfig, ConfigError> {
        Self::raw_with(text, file, format, &peer::Options::for_file(file)).map(|p| p.raw)
    }

    /// Parse text into the native form, converting a peer file with `opts`.
    pub(crate) fn raw_with(text: &str, file: &Path, format: Option<peer::Format>, opts: &peer::Options) -> Result<Parsed, ConfigError> {
        let fail = |problems| ConfigError::new(file.to_path_buf(), problems);
        let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
        let yaml = matches!(ext, "yaml" | "yml") || matches!(format, Some(peer::Format::Peer(hookhost_types::Runtime::DockerAgent | hookhost_types::Runtime::Starchild)));
        if !yaml && (ext != "json" && format.is_none_or(|f| f == peer::Format::Native)) {
            let raw = toml::from_str(text).map_err(|e| fail(vec![toml_problem(&e, text)]))?;
            return Ok(Parsed { format: peer::Format::Native, raw });
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
        let raw = match format {
            peer::Format::Native => serde_json::from_value(doc).map_err(|e| fail(vec![format!("invalid config: {e}")]))?,
            peer => peer::convert(peer, doc, opts).map_err(fail)?,
        };
        Ok(Parsed { format, raw })
    }
}

/// A config file parsed into the native form, and the format it was written in.
pub(crate) struct Parsed {
    pub(crate) format: peer::Format,
    pub(crate) raw: RawConfig,
}

/// The largest config file hookhost reads (a peer's settings.json included).
pub const MAX_CONFIG_BYTES: u64 = 4 << 20;

/// A config file's text: a regular file of at most [`MAX_CONFIG_BYTES`] (a device or a pipe
/// named by mistake is refused rather than read forever).
pub(crate) fn read_text(path: &Path) -> std::io::Result<String> {
    use hookhost_types::owner::{read_regular, ReadError};
    use std::io::{Error, ErrorKind};
    let over = |n: String| Error::new(ErrorKind::InvalidData, format!("{n}, over the {} MiB a config may hold", MAX_CONFIG_BYTES >> 20));
    let bytes = read_regular(path, MAX_CONFIG_BYTES, true).map_err(|e| match e {
        ReadError::Io(e) => e,
        ReadError::NotRegular => Error::new(ErrorKind::InvalidInput, "not a regular file"),
        ReadError::TooLarge(Some(n)) => over(format!("{n} bytes")),
        ReadError::TooLarge(None) => over("more bytes".into()),
    })?;
    String::from_utf8(bytes).map_err(|e| Error::new(ErrorKind::InvalidData, e))
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

mod bundles;
mod json;
pub mod layers;
pub mod policy;
pub mod project;
pub mod peer;
pub mod plan;
mod validate;

#[cfg(test)]
mod tests;
