//! Errors callers act on: why a host could not load, and why a hook invocation failed.
//! Messages name the hook, the plugin and the config field to change; they never name a
//! command-line flag (the CLI adds those hints).

use hookhost_config::ConfigError;
use hookhost_types::{Capability, HookId, PluginRef};
use std::path::PathBuf;
use std::time::Duration;

/// Why a [`Host`](crate::Host) could not be built. Nothing is half-loaded: on error, no host
/// exists.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The config file is invalid (every problem is listed).
    #[error(transparent)]
    Config(#[from] ConfigError),

    /// A plugin file named by a hook does not exist.
    #[error("{hook}: plugin file {} does not exist; check executor.plugin (relative paths are resolved from the config file's directory)", path.display())]
    PluginMissing {
        /// The hook.
        hook: HookId,
        /// The file.
        path: PathBuf,
    },

    /// A plugin file could not be read.
    #[error("{hook}: cannot read plugin {}: {source}", path.display())]
    PluginUnreadable {
        /// The hook.
        hook: HookId,
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },

    /// The plugin is not a WebAssembly component (or does not validate).
    #[error("{hook}: plugin {plugin} is not a WebAssembly component: {reason}; {fix}")]
    NotAComponent {
        /// The hook.
        hook: HookId,
        /// The plugin.
        plugin: String,
        /// What is wrong.
        reason: String,
        /// What to do.
        fix: &'static str,
    },

    /// The component does not export the hook handler.
    #[error("{hook}: plugin {plugin} does not export {expected}; it exports [{found}]. Build it against the `hook` world of the hook contract (`hookhost wit` writes it; in Rust: hookhost-sdk's export_hook!)")]
    WrongWorld {
        /// The hook.
        hook: HookId,
        /// The plugin.
        plugin: String,
        /// The export hookhost calls.
        expected: &'static str,
        /// What it exports.
        found: String,
    },

    /// The component was built for another version of the hook contract.
    #[error("{hook}: plugin {plugin} was built for {found}, a version of the hook contract this hookhost does not serve (it serves {expected}); run a hookhost that serves {found}, or rebuild the plugin against one it serves (`hookhost wit`)")]
    WitVersion {
        /// The hook.
        hook: HookId,
        /// The plugin.
        plugin: String,
        /// The contracts this hookhost serves.
        expected: String,
        /// The contract the plugin was built for.
        found: String,
    },

    /// The component imports something hookhost does not provide.
    #[error("{hook}: plugin {plugin} imports {import}, which hookhost cannot link ({why}); {PROVIDED}; {UNSUPPORTED_IMPORT_FIX}")]
    UnsupportedImport {
        /// The hook.
        hook: HookId,
        /// The plugin.
        plugin: String,
        /// The import.
        import: String,
        /// Why it cannot be linked.
        why: &'static str,
    },

    /// The plugin needs a capability the config does not grant it.
    #[error("{hook}: plugin {plugin} needs the capability {capability} ({why}), which is not granted; {fix}")]
    CapabilityNotGranted {
        /// The hook.
        hook: HookId,
        /// The plugin.
        plugin: PluginRef,
        /// The capability.
        capability: Capability,
        /// Why it needs it.
        why: String,
        /// How to grant it in the config, or the policy that refused the grant.
        fix: GrantFix,
    },

    /// The plugin's `validate-settings` rejected the hook's settings.
    #[error("{hook}: plugin {plugin} rejected its settings: {message}; fix executor.settings")]
    SettingsRejected {
        /// The hook.
        hook: HookId,
        /// The plugin.
        plugin: String,
        /// The plugin's message.
        message: String,
    },

    /// The plugin failed while checking its settings.
    #[error("{hook}: plugin {plugin} failed while checking its settings: {error}")]
    SettingsCheckFailed {
        /// The hook.
        hook: HookId,
        /// The plugin.
        plugin: String,
        /// How it failed.
        error: HookError,
    },

    /// The audit log could not be opened.
    #[error("cannot open the audit log {}: {source}; check audit_log in the config", path.display())]
    AuditLog {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: crate::audit::AuditOpenError,
    },

    /// A bundle could not be fetched, failed its checks, or was refused by the trust policy.
    /// Nothing of it was compiled or cached.
    #[cfg(feature = "bundles")]
    #[error(transparent)]
    Bundle(#[from] hookhost_bundle::BundleError),

    /// Several hooks were refused (each settings rejection is reported, not just the first).
    #[error("{} hooks were refused:{}", .0.len(), .0.iter().map(|e| format!("\n  - {e}")).collect::<String>())]
    Several(Vec<LoadError>),

    /// The cache directory is not private to this user, or cannot be created.
    #[error("{message}")]
    Cache {
        /// The directory.
        dir: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },

    /// The wasm engine could not be set up.
    #[error("{what}: {source}")]
    Engine {
        /// What failed.
        what: &'static str,
        /// The engine's error.
        #[source]
        source: EngineFailure,
    },
}

/// What a plugin may import, for messages.
const PROVIDED: &str = "hookhost provides WASI 0.2 (wasi:cli, wasi:clocks, wasi:filesystem, wasi:io, wasi:random, wasi:sockets and wasi:http, each deny-by-default) and hookhost:hooks/log, types and process at 0.1.0, 0.2.0 and 0.3.0, and state at 0.3.0";

/// What to change, per toolchain, when a plugin imports what hookhost does not provide.
const UNSUPPORTED_IMPORT_FIX: &str = "build the hook against the `hook` world of hookhost's WIT (`hookhost wit DIR` writes it): Rust, drop the binding or crate that pulls the import in; componentize-py, pass `-w hook`; componentize-qjs or componentize-js, give `hook` as the world; C, generate with `wit-bindgen c` for the `hook` world";

/// What wasmtime said when the engine or the linker could not be set up (its full chain).
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct EngineFailure(String);

impl From<wasmtime::Error> for EngineFailure {
    fn from(e: wasmtime::Error) -> EngineFailure {
        EngineFailure(format!("{e:#}"))
    }
}

/// Why one hook invocation failed. Never a block by itself: the hook's `on_error` decides.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum HookError {
    /// It ran past its wall-clock limit.
    #[error("timed out after {} ms", .0.as_millis())]
    Timeout(Duration),
    /// It ran out of fuel.
    #[error("ran out of fuel (budget {0}); if the hook needs more, raise its `fuel` (`hookhost check -v` shows what a call burns)")]
    OutOfFuel(u64),
    /// It tried to grow its linear memory to `wanted` bytes, past its limit of `limit`.
    #[error("exceeded the memory limit of {} MiB: it asked for {} MiB; if the hook needs that, raise its `memory_mib` to at least {} (`hookhost check -v` shows an instance's memory)", .limit >> 20, wanted.div_ceil(1 << 20), wanted.div_ceil(1 << 20))]
    MemoryLimit {
        /// The hook's limit (`memory_mib`), in bytes.
        limit: usize,
        /// The size its memory tried to grow to, in bytes.
        wanted: usize,
    },
    /// It trapped.
    #[error("trapped: {0}")]
    Trap(String),
    /// It could not be instantiated.
    #[error("could not be instantiated: {0}")]
    Instantiate(String),
    /// It returned an error.
    #[error("returned an error: {0}")]
    Guest(String),
    /// Its decision broke the contract (an effect the event does not honour, oversize, bad JSON).
    #[error("returned an invalid decision: {0}")]
    InvalidDecision(String),
    /// The event was too large to run it on.
    #[error("was not run: the event payload is {size} bytes, over the {limit}-byte limit")]
    EventTooLarge {
        /// The payload's size.
        size: usize,
        /// The limit.
        limit: usize,
    },
}

/// What to do about a capability that is not granted ([`LoadError::CapabilityNotGranted`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrantFix {
    /// How to grant it (`add [grants] ... to the config`).
    Grant(String),
    /// A layer's policy refused the grant: which, and why. No flag of the user's changes that.
    RefusedByPolicy(String),
}

impl std::fmt::Display for GrantFix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GrantFix::Grant(how) => f.write_str(how),
            GrantFix::RefusedByPolicy(policy) => write!(f, "a layer's policy refused the grant: {policy}"),
        }
    }
}
