//! The hook contract (WIT), one module per version, each holding its private generated
//! bindings (Zed's one-module-per-WIT-version layout). [`v0_2`] converts between its types and
//! `hookhost-types`' values; the newest, [`v0_3`], only added an interface (`state`) and maps
//! the rest onto 0.2.0's bindings; the oldest reuses them where its shapes are the same and
//! converts where they differ ([`v0_1`]: the context). The loader picks
//! the module by the version of the `handler` export a component has ([`Version::of_export`]),
//! so a hook built against any version served here loads and decides as it did.

pub mod v0_1;
pub mod v0_2;
pub mod v0_3;

pub use v0_2::*;

/// `a == b` at compile time.
pub(crate) const fn konst_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// A contract version this host serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Version {
    /// `hookhost:hooks@0.1.0`.
    V0_1,
    /// `hookhost:hooks@0.2.0`.
    V0_2,
    /// `hookhost:hooks@0.3.0`.
    V0_3,
}

impl Version {
    /// Every version served, oldest first.
    pub const ALL: [Version; 3] = [Version::V0_1, Version::V0_2, Version::V0_3];

    /// Its WIT package name (`hookhost:hooks@0.3.0`).
    pub fn package(self) -> &'static str {
        match self {
            Version::V0_1 => v0_1::PACKAGE,
            Version::V0_2 => v0_2::PACKAGE,
            Version::V0_3 => v0_3::PACKAGE,
        }
    }

    /// The `handler` export of a component built against it.
    pub fn handler_export(self) -> &'static str {
        match self {
            Version::V0_1 => v0_1::HANDLER_EXPORT,
            Version::V0_2 => v0_2::HANDLER_EXPORT,
            Version::V0_3 => v0_3::HANDLER_EXPORT,
        }
    }

    /// The version whose `handler` a component exports under this name.
    pub fn of_export(name: &str) -> Option<Version> {
        Version::ALL.into_iter().find(|v| v.handler_export() == name)
    }

    /// The `hookhost:hooks` interfaces it provides to plugins.
    pub fn imports(self) -> &'static [&'static str] {
        match self {
            Version::V0_1 => &[v0_1::TYPES_IMPORT, v0_1::LOG_IMPORT, v0_1::PROCESS_IMPORT],
            Version::V0_2 => &[v0_2::TYPES_IMPORT, v0_2::LOG_IMPORT, v0_2::PROCESS_IMPORT],
            Version::V0_3 => &[v0_3::TYPES_IMPORT, v0_3::LOG_IMPORT, v0_3::PROCESS_IMPORT, v0_3::STATE_IMPORT],
        }
    }

    /// Its process interface (capability `process:exec`).
    pub fn process_import(self) -> &'static str {
        match self {
            Version::V0_1 => v0_1::PROCESS_IMPORT,
            Version::V0_2 => v0_2::PROCESS_IMPORT,
            Version::V0_3 => v0_3::PROCESS_IMPORT,
        }
    }

    /// Every package served, for messages (`hookhost:hooks@0.1.0, hookhost:hooks@0.2.0 and hookhost:hooks@0.3.0`).
    pub fn served() -> String {
        let names: Vec<&str> = Version::ALL.iter().map(|v| v.package()).collect();
        match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

/// The `handler` exports a hook plugin may have, for messages.
pub const HANDLER_EXPORTS: &str = "hookhost:hooks/handler@0.1.0, @0.2.0 or @0.3.0";

/// Whether an import names a process interface of any version served (capability
/// `process:exec`).
pub fn is_process_import(import: &str) -> bool {
    Version::ALL.iter().any(|v| v.process_import() == import)
}

/// Whether an import is a `hookhost:hooks` interface hookhost provides, at any version served.
pub fn is_provided_import(import: &str) -> bool {
    Version::ALL.iter().any(|v| v.imports().contains(&import))
}

#[cfg(test)]
mod tests {
    use super::Version;

    #[test]
    fn versions_are_named_once_and_found_by_their_export() {
        for v in Version::ALL {
            assert_eq!(Version::of_export(v.handler_export()), Some(v));
            assert!(v.handler_export().ends_with(&v.package()["hookhost:hooks".len()..]));
        }
        assert_eq!(Version::of_export("hookhost:hooks/handler@0.4.0"), None);
        assert_eq!(Version::served(), "hookhost:hooks@0.1.0, hookhost:hooks@0.2.0 and hookhost:hooks@0.3.0");
        assert_eq!(super::HANDLER_EXPORTS, format!("{}, @0.2.0 or @0.3.0", Version::V0_1.handler_export()));
        assert_eq!(hookhost_types::WIT_PACKAGE, Version::ALL[Version::ALL.len() - 1].package(), "hookhost-types names the newest");
        assert_eq!(hookhost_types::CONTRACTS.map(|c| c.package), Version::ALL.map(Version::package), "a module here for every contract hookhost-types lists");
    }
}
