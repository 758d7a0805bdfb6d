//! Errors callers act on: why a host could not load, and why a hook invocation failed.

use crate::config::ConfigError;
use std::path::PathBuf;
use std::time::Duration;

/// Why [`Host::load`](crate::Host::load) failed. Nothing is half-loaded: on error, no host exists.
/// Every message names the hook and the plugin, and says what would fix it.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Config(#[from] ConfigError),

    #[error("{hook}: plugin file {} does not exist; check executor.plugin (relative paths are resolved from the config file's directory)", path.display())]
    PluginMissing { hook: String, path: PathBuf },

    #[error("{hook}: cannot read plugin {}: {reason}", path.display())]
    PluginUnreadable { hook: String, path: PathBuf, reason: String },

    #[error("{hook}: plugin {plugin} is not a WebAssembly component: {reason}; {fix}")]
    NotAComponent { hook: String, plugin: String, reason: String, fix: &'static str },

    #[error("{hook}: plugin {plugin} does not export {expected}; it exports [{found}]. Build it against the `hook` world of wit/hooks.wit (in Rust: hookhost-sdk's export_hook!)")]
    WrongWorld { hook: String, plugin: String, expected: &'static str, found: String },

    #[error("{hook}: plugin {plugin} was built for {found}, a version of the hook contract this hookhost does not speak (it speaks {expected}); rebuild the plugin against this hookhost's wit/hooks.wit, or run a hookhost that supports {found}")]
    WitVersion { hook: String, plugin: String, expected: &'static str, found: String },

    #[error("{hook}: plugin {plugin} imports {import}, which hookhost does not provide; plugins may import WASI 0.2 and hookhost:hooks/log@0.1.0 only")]
    UnsupportedImport { hook: String, plugin: String, import: String },

    #[error("{hook}: plugin {plugin} needs the capability {capability} ({why}), which is not granted; {fix}")]
    CapabilityNotGranted { hook: String, plugin: String, capability: &'static str, why: String, fix: String },

    #[error("{hook}: plugin {plugin} rejected its settings: {message}; fix executor.settings")]
    SettingsRejected { hook: String, plugin: String, message: String },

    #[error("{hook}: plugin {plugin} failed while checking its settings: {error}")]
    SettingsCheckFailed { hook: String, plugin: String, error: HookError },

    #[error("cannot open the audit log {}: {reason}; check audit_log in the config", path.display())]
    AuditLog { path: PathBuf, reason: String },

    /// A bundle could not be fetched, failed its checks, or was refused by the trust policy.
    /// Nothing of it was compiled or cached.
    #[error(transparent)]
    Bundle(#[from] crate::bundle::BundleError),

    /// Several hooks were refused (each settings rejection is reported, not just the first).
    #[error("{} hooks were refused:{}", .0.len(), .0.iter().map(|e| format!("\n  - {e}")).collect::<String>())]
    Several(Vec<LoadError>),

    /// The cache directory is not private to this user (or cannot be created).
    #[error("{0}")]
    Cache(String),

    #[error("{0}")]
    Engine(String),
}

/// Why one hook invocation failed. Never a block by itself: the hook's `on_error` decides.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HookError {
    #[error("timed out after {} ms", .0.as_millis())]
    Timeout(Duration),
    #[error("ran out of fuel (budget {0})")]
    OutOfFuel(u64),
    #[error("exceeded the memory limit of {} MiB", .0 >> 20)]
    MemoryLimit(usize),
    #[error("trapped: {0}")]
    Trap(String),
    #[error("could not be instantiated: {0}")]
    Instantiate(String),
    #[error("returned an error: {0}")]
    Guest(String),
    #[error("returned an invalid decision: {0}")]
    InvalidDecision(String),
    #[error("was not run: the event payload is {size} bytes, over the {limit}-byte limit")]
    EventTooLarge { size: usize, limit: usize },
}
