//! # hookhost-types
//!
//! The vocabulary every hookhost crate shares: lifecycle [events](event), [decisions](decision),
//! [matchers](matcher), validated [hook specs](spec) with their limits and capabilities, and
//! validated [names and digests](ids), the [agent runtimes](runtime) hookhost speaks to, and the
//! [bash adapter's contract](adapter). Plain data and pure functions: no wasmtime, no network,
//! no files beyond [`paths`]' environment lookups.

#![deny(missing_docs)]

pub mod adapter;
pub mod decision;
pub mod envelope;
pub mod event;
pub mod ids;
pub mod json;
pub mod matcher;
pub mod owner;
pub mod paths;
pub mod runtime;
pub mod spec;
pub mod text;
pub mod time;

pub use decision::{Decision, Effect, Verdict, VerdictKind};
pub use envelope::{EventError, HookEvent, Unreadable};
pub use event::{EffectKind, EventName};
pub use ids::{BadBundleName, BadDigest, BundleName, BundleRef, Digest, HookId};
pub use matcher::{Matcher, MatcherSpec};
pub use runtime::Runtime;
pub use spec::{AuditFailure, Capability, Grants, HookSpec, Limits, NetHost, OnError, PluginName, PluginRef, UnknownCapability};

/// The newest hook contract (WIT package) this hookhost speaks; bundles record the one their
/// plugins were built against.
pub const WIT_PACKAGE: &str = "hookhost:hooks@0.2.0";

/// Every hook contract this hookhost serves, oldest first: a hook built against any of them
/// loads and decides as it did (docs/ARCHITECTURE.md, "A new WIT version").
pub const WIT_PACKAGES: [&str; 2] = ["hookhost:hooks@0.1.0", WIT_PACKAGE];
