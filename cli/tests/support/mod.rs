//! Shared by the binary's integration tests.

/// Whether this is a CI run: `CI` set to anything but empty, `false` or `0` (CI services set
/// `true`, `1` or their own name). There, a missing tool fails a test instead of skipping it.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "false" | "0"))
}

/// Whether a host tool is on PATH; in CI a missing tool fails the test instead of skipping it.
#[allow(dead_code)] // not every test binary that includes this module checks for tools
pub fn have(tool: &str) -> bool {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).any(|d| d.join(tool).is_file());
    if !found {
        assert!(!in_ci(), "{tool} is required in CI (.ci/run installs it)");
        eprintln!("SKIPPED: {tool} is not installed");
    }
    found
}
