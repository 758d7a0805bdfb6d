//! Shared by the binary's integration tests.

/// Whether this is a CI run: `CI` set to anything but empty, `false` or `0` (CI services set
/// `true`, `1` or their own name). There, a missing tool fails a test instead of skipping it.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "false" | "0"))
}
