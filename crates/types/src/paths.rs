//! Where hookhost keeps things on disk when the caller does not say: the user's cache and data
//! directories, by the XDG base-directory rules.

use std::path::{Path, PathBuf};

/// `$XDG_<var>` if it is usable, else `$HOME/<fallback>`. Usable, as the XDG base-directory
/// specification asks: an absolute path (a relative one is ignored) — and, as hookhost keeps its
/// approvals and the user's own config there, one that does not exist yet or is owned by this
/// user or root: a variable pointing at another user's directory (a repository's `.envrc`, a
/// runtime's `env` setting) is ignored, with a warning.
fn xdg(var: &str, fallback: &str) -> Option<PathBuf> {
    std::env::var_os(var).map(PathBuf::from).filter(|dir| usable_base(var, dir)).or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(fallback)))
}

/// Whether `$var = dir` may be used as a base directory ([`xdg`]).
fn usable_base(var: &str, dir: &Path) -> bool {
    if !dir.is_absolute() {
        if !dir.as_os_str().is_empty() {
            warn_once(var, &format!("{var}={} is not an absolute path, so it is ignored (the XDG base-directory rules)", dir.display()));
        }
        return false;
    }
    match owner_is_foreign(dir) {
        Some(owner) => {
            warn_once(var, &format!("{var}={} belongs to uid {owner}, not to you, so it is ignored", dir.display()));
            false
        }
        None => true,
    }
}

/// The owner of `dir` when it exists and is neither this user nor root.
#[cfg(unix)]
fn owner_is_foreign(dir: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt as _;
    let owner = std::fs::metadata(dir).ok()?.uid();
    // SAFETY: geteuid cannot fail.
    let me = unsafe { libc::geteuid() };
    (owner != me && owner != 0).then_some(owner)
}

/// On Windows a user's profile directories are their own (ACLs): nothing to compare.
#[cfg(not(unix))]
fn owner_is_foreign(_dir: &Path) -> Option<u32> {
    None
}

/// Warn about `var` once per process (the directories are looked up several times per command).
fn warn_once(var: &str, line: &str) {
    static WARNED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut warned = WARNED.lock().unwrap_or_else(|p| p.into_inner());
    if !warned.iter().any(|v| v == var) {
        warned.push(var.to_string());
        tracing::warn!("{line}");
    }
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

/// The managed (organisation) config, and how it was found. An installed
/// [`SYSTEM_MANAGED_CONFIG`] always wins: `$HOOKHOST_MANAGED_CONFIG` set in a hook's
/// environment (a repository's runtime settings, direnv, CI) cannot replace an organisation's
/// policy. Only where none is installed does the variable (set and not empty) name one (then it
/// must exist).
pub fn managed_config() -> (PathBuf, ManagedSource) {
    choose_managed(Path::new(SYSTEM_MANAGED_CONFIG), std::env::var_os("HOOKHOST_MANAGED_CONFIG"))
}

/// How the managed config was found ([`managed_config`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ManagedSource {
    /// The installed system file (whether or not it exists).
    System,
    /// The installed system file, with `$HOOKHOST_MANAGED_CONFIG` naming another, ignored.
    SystemOverEnv(PathBuf),
    /// `$HOOKHOST_MANAGED_CONFIG` (no system file is installed).
    Env,
}

impl ManagedSource {
    /// Whether the environment named the file (then it must exist).
    pub fn named_by_env(&self) -> bool {
        *self == ManagedSource::Env
    }
}

/// [`managed_config`] with the system path and the variable given.
pub fn choose_managed(system: &Path, env: Option<std::ffi::OsString>) -> (PathBuf, ManagedSource) {
    let named = env.filter(|p| !p.is_empty()).map(PathBuf::from);
    match named {
        Some(named) if system.exists() && named != system => (system.to_path_buf(), ManagedSource::SystemOverEnv(named)),
        Some(named) if !system.exists() => (named, ManagedSource::Env),
        _ => (system.to_path_buf(), ManagedSource::System),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_installed_managed_file_wins_over_the_environment() {
        let dir = std::env::temp_dir().join(format!("hookhost-paths-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let system = dir.join("managed.toml");
        let other = dir.join("mine.toml");
        // Not installed: the variable names it (an empty one names nothing).
        assert_eq!(choose_managed(&system, Some(other.clone().into())), (other.clone(), ManagedSource::Env));
        assert_eq!(choose_managed(&system, Some("".into())), (system.clone(), ManagedSource::System));
        assert_eq!(choose_managed(&system, None), (system.clone(), ManagedSource::System));
        // Installed: it wins, and the variable is reported as ignored.
        std::fs::write(&system, "").unwrap();
        assert_eq!(choose_managed(&system, Some(other.clone().into())), (system.clone(), ManagedSource::SystemOverEnv(other)));
        assert_eq!(choose_managed(&system, Some(system.clone().into())), (system.clone(), ManagedSource::System));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn relative_base_directories_are_ignored() {
        assert!(!usable_base("XDG_STATE_HOME", Path::new("state")));
        assert!(!usable_base("XDG_STATE_HOME", Path::new("")));
        assert!(usable_base("XDG_STATE_HOME", Path::new("/nonexistent/hookhost-state")), "one that does not exist yet is fine");
        assert!(usable_base("XDG_STATE_HOME", &std::env::temp_dir()), "root's /tmp");
    }

    #[cfg(unix)]
    #[test]
    fn another_users_base_directory_is_ignored() {
        // Only root can make a directory another user's.
        if unsafe { libc::geteuid() } != 0 {
            return;
        }
        let dir = std::env::temp_dir().join(format!("hookhost-foreign-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::os::unix::fs::chown(&dir, Some(65534), None).unwrap();
        // Root's own check: a directory of uid 65534 is foreign to root.
        assert_eq!(owner_is_foreign(&dir), Some(65534));
        assert!(!usable_base("XDG_CONFIG_HOME", &dir));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
