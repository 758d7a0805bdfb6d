//! The native config as written: what TOML (or JSON) deserialises into, strictly (unknown fields
//! are errors), before validation (`validate.rs`) makes a [`crate::ConfigFile`] of it. Its doc
//! comments are the config reference's JSON Schema (`hookhost config schema`).

use crate::bundles::{RawRegistry, RawTrust};
use crate::policy::RawPolicy;
use hookhost_types::matcher::MatcherSpec;
use hookhost_types::spec::{AuditFailure, Capability, Mode, OnError};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

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
    /// How long a hook's state value lives after its last write: seconds, or `"30m"`, `"12h"`,
    /// `"7d"` (default 24h).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_ttl: Option<RawDuration>,
    /// KiB of state one plugin may keep in one session (default 1024).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_max_kib: Option<u32>,
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

