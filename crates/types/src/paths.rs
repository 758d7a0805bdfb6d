//! Where hookhost keeps things on disk when the caller does not say: the user's cache and data
//! directories, by the XDG base-directory rules.

use std::path::{Path, PathBuf};

/// `$XDG_<var>` if set, else `$HOME/<fallback>`.
fn xdg(var: &str, fallback: &str) -> Option<PathBuf> {
    std::env::var_os(var).map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(fallback)))
}

/// The cache directory (compiled plugins, pulled bundles, stop-loop counters):
/// `$HOOKHOST_CACHE_DIR`, else `configured`, else `$XDG_CACHE_HOME/hookhost`, else
/// `~/.cache/hookhost`. `None` when none of these is known (no cache).
pub fn cache_dir(configured: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("HOOKHOST_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = configured {
        return Some(dir.to_path_buf());
    }
    Some(xdg("XDG_CACHE_HOME", ".cache")?.join("hookhost"))
}

/// The default local directory registry: `$HOOKHOST_REGISTRY`, else
/// `$XDG_DATA_HOME/hookhost/registry`, else `~/.local/share/hookhost/registry`.
pub fn local_registry() -> PathBuf {
    if let Some(dir) = std::env::var_os("HOOKHOST_REGISTRY") {
        return PathBuf::from(dir);
    }
    xdg("XDG_DATA_HOME", ".local/share").unwrap_or_else(|| PathBuf::from(".")).join("hookhost/registry")
}
