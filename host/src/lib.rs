//! # hookhost
//!
//! Runs agent lifecycle hooks as sandboxed WebAssembly components and returns typed decisions.
//!
//! ```
//! use hookhost::{Config, Host, HookEvent};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let host = Host::load(Config::embedded_default()).await?;
//! let event = HookEvent::pre_tool_use("bash", serde_json::json!({"command": "rm -rf /"}));
//! let outcome = host.dispatch(&event).await;
//! assert!(outcome.is_block());
//! println!("{}", serde_json::to_string(&outcome)?);
//! # Ok(()) }
//! ```

mod audit;
mod builtin;
pub mod bundle;
pub mod config;
mod decision;
mod dispatch;
mod engine;
mod error;
mod event;
pub mod matcher;
#[doc(hidden)]
pub mod fuzz;
#[doc(hidden)]
pub mod perf;
mod plugin;
mod process;
mod stoploop;
mod text;
mod wit;

pub use audit::{verify as verify_audit_log, verify_expecting as verify_audit_log_expecting, AuditLog, AuditOpenError, AuditRecord, ChainBroken, Recovery, Verified};
pub use config::{AuditFailure, Config, ConfigError, HookSpec, OnError, PluginRef};
pub use decision::{Decision, Effect, Verdict, VerdictKind};
pub use dispatch::{HookTrace, Host, Outcome, FUEL_PER_PAYLOAD_BYTE, MAX_EVENT_BYTES, MAX_RECHECK_ROUNDS};
pub use error::{HookError, LoadError};
pub use event::{EventError, EventName, HookEvent};
pub use text::printable;

/// The component bytes of a built-in plugin (to ship it in a bundle, or inspect it).
pub fn builtin_plugin(name: &str) -> Option<&'static [u8]> {
    builtin::get(name).map(|(bytes, _)| bytes)
}

/// The names of the built-in plugins (`builtin:<name>`).
pub fn builtin_plugins() -> impl Iterator<Item = &'static str> {
    builtin::names()
}
