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
pub mod problem;
pub mod runtime;
pub mod spec;
pub mod text;
pub mod time;

pub use decision::{Decision, Effect, Verdict, VerdictKind};
pub use envelope::{EventError, HookEvent, Unreadable};
pub use event::{EffectKind, EventName};
pub use ids::{BadBundleName, BadDigest, BundleName, BundleRef, Digest, HookId};
pub use matcher::{Matcher, MatcherSpec};
pub use problem::Problem;
pub use runtime::Runtime;
pub use spec::{AuditFailure, Capability, Grants, HookSpec, Limits, NetHost, OnError, PluginName, PluginRef, UnknownCapability};

/// A hook contract: one version of the WIT package, in `wit/<version>/hooks.wit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contract {
    /// `0.2.0`.
    pub version: &'static str,
    /// `hookhost:hooks@0.2.0`.
    pub package: &'static str,
    /// Its WIT, as published (`hookhost wit --version` writes it).
    pub wit: &'static str,
}

/// Every hook contract this hookhost serves, oldest first — the one list of them: a hook built
/// against any of them loads and decides as it did (docs/ARCHITECTURE.md, "A new WIT
/// version"). A test holds it to the `wit/` folders and to each file's `package` line.
pub const CONTRACTS: [Contract; 3] = [
    Contract { version: "0.1.0", package: "hookhost:hooks@0.1.0", wit: include_str!("../../../wit/0.1.0/hooks.wit") },
    Contract { version: "0.2.0", package: "hookhost:hooks@0.2.0", wit: include_str!("../../../wit/0.2.0/hooks.wit") },
    Contract { version: "0.3.0", package: "hookhost:hooks@0.3.0", wit: include_str!("../../../wit/0.3.0/hooks.wit") },
];

/// The newest hook contract this hookhost speaks: what the SDKs and `hookhost new` build
/// against, and what a bundle records when its plugins say nothing.
pub const NEWEST: Contract = CONTRACTS[CONTRACTS.len() - 1];

/// The newest contract's package (`hookhost:hooks@0.3.0`).
pub const WIT_PACKAGE: &str = NEWEST.package;

#[cfg(test)]
mod contract_tests {
    use super::CONTRACTS;

    #[test]
    fn each_contract_is_its_folder_and_says_its_package() {
        let wit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../wit");
        let mut folders: Vec<String> = std::fs::read_dir(&wit).unwrap().filter_map(Result::ok).filter(|e| e.path().is_dir()).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        folders.sort();
        assert_eq!(folders, CONTRACTS.map(|c| c.version.to_string()), "one folder per contract under wit/, each served");
        for c in CONTRACTS {
            assert_eq!(c.package, format!("hookhost:hooks@{}", c.version));
            assert!(c.wit.lines().any(|l| l.trim() == format!("package {};", c.package)), "wit/{}/hooks.wit declares {}", c.version, c.package);
        }
    }
}
