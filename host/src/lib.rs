//! # hookhost
//!
//! Runs agent lifecycle hooks as sandboxed WebAssembly components and returns typed decisions.
//! An agent runtime builds a [`Host`] once from a config file (native, or one of the peer
//! formats) and calls [`Host::dispatch`] at each lifecycle point.
//!
//! ```
//! use hookhost::{ConfigFile, Host, HookEvent};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let host = Host::builder().config(ConfigFile::embedded_default()).build().await?;
//! let event = HookEvent::pre_tool_use("bash", serde_json::json!({"command": "rm -rf /"}));
//! let outcome = host.dispatch(&event).await;
//! assert!(outcome.is_block());
//! println!("{}", serde_json::to_string(&outcome)?);
//! # Ok(()) }
//! ```
//!
//! The layers, each its own crate: [`hookhost_types`] (events, decisions, hook specs),
//! [`hookhost_config`] (config formats → [`ConfigFile`] → [`Plan`]), `hookhost-bundle` (signed
//! bundles and registries, the `bundles` feature), and this crate (engine, plugins, the chain,
//! audit). docs/ARCHITECTURE.md draws the graph.

#![deny(missing_docs)]

mod accepted;
mod audit;
mod builtin;
mod compile_settings;
mod dispatch;
mod engine;
mod error;
mod host;
pub mod kv;
mod net;
mod plugin;
mod process;
pub mod protocol;
mod redact;
mod stoploop;
mod wit;

#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod fuzz;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod perf;

pub use audit::{verify as verify_audit_log, verify_expecting as verify_audit_log_expecting, AuditLog, AuditOpenError, AuditRecord, ChainBroken, Recovery, Verified};
pub use dispatch::{HookTrace, Outcome};
pub use engine::{CodeSource, Engine};
pub use error::{GrantFix, HookError, LoadError};
pub use host::{Host, HookProfile, HookReport, HostBuilder, HostLimits, Runs, FUEL_PER_PAYLOAD_BYTE, MAX_EVENT_BYTES, MAX_RECHECK_ROUNDS};
pub use hookhost_config::{peer, ConfigError, ConfigFile, Plan};
pub use hookhost_types::text::printable;
pub use hookhost_types::{AuditFailure, Capability, NetHost, Decision, Effect, EventError, EventName, HookEvent, HookSpec, Limits, OnError, PluginRef, Runtime, Verdict, VerdictKind};

/// The vocabulary crate (events, decisions, matchers, hook specs, names), re-exported.
pub use hookhost_types as types;
/// The config crate (formats, validation, plans), re-exported.
pub use hookhost_config as config;

/// The bundle layer (signed bundles, registries, lock files), re-exported.
#[cfg(feature = "bundles")]
pub use hookhost_bundle as bundle;

/// The component bytes of a built-in plugin (to ship it in a bundle, or inspect it).
pub fn builtin_plugin(name: &str) -> Option<&'static [u8]> {
    builtin::get(name).map(|(bytes, _)| bytes)
}

/// The names of the built-in plugins (`builtin:<name>`).
pub fn builtin_plugins() -> impl Iterator<Item = &'static str> {
    builtin::names()
}

/// Whether this build carries every built-in plugin's native code, compiled when it was built
/// (a release build with `precompiled-builtins`), rather than compiling each on first use.
pub fn builtins_precompiled() -> bool {
    builtin::names().all(|n| builtin::get(n).is_some_and(|(_, digest)| builtin::precompiled(digest).is_some()))
}
