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

/// The user's config file: `$XDG_CONFIG_HOME/hookhost/hooks.toml`, else
/// `~/.config/hookhost/hooks.toml` (whether or not it exists).
pub fn user_config() -> Option<PathBuf> {
    Some(xdg("XDG_CONFIG_HOME", ".config")?.join("hookhost/hooks.toml"))
}

/// The managed (organisation) config: `$HOOKHOST_MANAGED_CONFIG` when set and not empty, else
/// [`SYSTEM_MANAGED_CONFIG`]. The flag says whether the environment named it (then it must
/// exist).
pub fn managed_config() -> (PathBuf, bool) {
    match std::env::var_os("HOOKHOST_MANAGED_CONFIG") {
        Some(p) if !p.is_empty() => (PathBuf::from(p), true),
        _ => (PathBuf::from(SYSTEM_MANAGED_CONFIG), false),
    }
}

/// Where an administrator installs the managed config.
pub const SYSTEM_MANAGED_CONFIG: &str = "/etc/hookhost/managed.toml";

/// hookhost's state directory (approved projects): `$XDG_STATE_HOME/hookhost`, else
/// `~/.local/state/hookhost`.
pub fn state_dir() -> Option<PathBuf> {
    Some(xdg("XDG_STATE_HOME", ".local/state")?.join("hookhost"))
}

/// Where `hookhost serve` keeps the bearer token TCP requests carry (made on first start), and
/// where `hookhost-send` finds it: `$XDG_STATE_HOME/hookhost/serve.token`.
pub fn serve_token_file() -> Option<PathBuf> {
    Some(state_dir()?.join("serve.token"))
}
