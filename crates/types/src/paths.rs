//! Where hookhost keeps things on disk when the caller does not say, where each OS expects them:
//!
//! | | Linux and other unix | macOS | Windows |
//! |---|---|---|---|
//! | user config | `~/.config/hookhost/` | `~/Library/Application Support/hookhost/` | `%APPDATA%\hookhost\` |
//! | cache | `~/.cache/hookhost/` | `~/Library/Caches/hookhost/` | `%LOCALAPPDATA%\hookhost\cache\` |
//! | data (local registry) | `~/.local/share/hookhost/` | `~/Library/Application Support/hookhost/` | `%LOCALAPPDATA%\hookhost\` |
//! | state (approvals, serve token) | `~/.local/state/hookhost/` | `~/Library/Application Support/hookhost/` | `%LOCALAPPDATA%\hookhost\` |
//! | managed config | `/etc/hookhost/managed.toml` | `/Library/Application Support/hookhost/managed.toml` | `C:\ProgramData\hookhost\managed.toml` |
//!
//! The XDG variables (`XDG_CONFIG_HOME`, `XDG_CACHE_HOME`, `XDG_DATA_HOME`, `XDG_STATE_HOME`)
//! win on every OS when set (people who set them on a Mac mean it). The managed path is fixed:
//! an environment variable (`%ProgramData%`) set by a repository or a runtime must not move an
//! organisation's policy.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The operating systems whose conventions differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Os {
    /// Linux and every other unix but macOS: the XDG base directories.
    Unix,
    /// macOS: `~/Library/…`, `/Library/Application Support/…`.
    MacOs,
    /// Windows: `%APPDATA%`, `%LOCALAPPDATA%`, `C:\\ProgramData`.
    Windows,
}

impl Os {
    /// The one this was built for.
    pub const CURRENT: Os = if cfg!(windows) {
        Os::Windows
    } else if cfg!(target_os = "macos") {
        Os::MacOs
    } else {
        Os::Unix
    };

    /// Whether names on the OS's usual file system compare without regard to case: macOS's
    /// APFS (by default) and Windows' NTFS do, so `.Claude/Settings.json` there is the
    /// `.claude/settings.json` a rule names.
    pub const fn folds_case(self) -> bool {
        !matches!(self, Os::Unix)
    }
}

/// The kinds of per-user directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Config,
    Cache,
    Data,
    State,
}

/// hookhost's own directory of `kind` for `os`, from the environment `env`: `$XDG_<KIND>_HOME`
/// if it is usable ([`usable_base`]), else the OS's convention.
fn hookhost_dir(os: Os, kind: Kind, env: &dyn Fn(&str) -> Option<OsString>, usable: &dyn Fn(&str, &Path) -> bool) -> Option<PathBuf> {
    let (var, unix) = match kind {
        Kind::Config => ("XDG_CONFIG_HOME", ".config"),
        Kind::Cache => ("XDG_CACHE_HOME", ".cache"),
        Kind::Data => ("XDG_DATA_HOME", ".local/share"),
        Kind::State => ("XDG_STATE_HOME", ".local/state"),
    };
    if let Some(dir) = env(var).filter(|d| !d.is_empty()).map(PathBuf::from).filter(|d| usable(var, d)) {
        return Some(dir.join("hookhost"));
    }
    let set = |v: &str| env(v).filter(|d| !d.is_empty()).map(PathBuf::from);
    match os {
        Os::Unix => Some(set("HOME")?.join(unix).join("hookhost")),
        Os::MacOs => Some(set("HOME")?.join(if kind == Kind::Cache { "Library/Caches" } else { "Library/Application Support" }).join("hookhost")),
        Os::Windows => match kind {
            Kind::Config => Some(set("APPDATA")?.join("hookhost")),
            Kind::Cache => Some(set("LOCALAPPDATA")?.join("hookhost").join("cache")),
            Kind::Data | Kind::State => Some(set("LOCALAPPDATA")?.join("hookhost")),
        },
    }
}

/// [`hookhost_dir`] for this OS and this process's environment.
fn dir(kind: Kind) -> Option<PathBuf> {
    hookhost_dir(Os::CURRENT, kind, &|v| std::env::var_os(v), &usable_base)
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
/// `$HOOKHOST_CACHE_DIR`, else `configured`, else `$XDG_CACHE_HOME/hookhost`, else the OS's
/// (`~/.cache/hookhost` on Linux). `None` when none of these is known (no cache).
pub fn cache_dir(configured: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("HOOKHOST_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = configured {
        return Some(dir.to_path_buf());
    }
    dir(Kind::Cache)
}

/// The default local directory registry: `$HOOKHOST_REGISTRY`, else
/// `$XDG_DATA_HOME/hookhost/registry`, else the OS's data directory's (Linux:
/// `~/.local/share/hookhost/registry`).
pub fn local_registry() -> PathBuf {
    if let Some(dir) = std::env::var_os("HOOKHOST_REGISTRY") {
        return PathBuf::from(dir);
    }
    dir(Kind::Data).unwrap_or_else(|| PathBuf::from("hookhost")).join("registry")
}

/// The user's config file: `$XDG_CONFIG_HOME/hookhost/hooks.toml`, else `hooks.toml` in the
/// OS's config directory (Linux: `~/.config/hookhost/hooks.toml`), whether or not it exists.
pub fn user_config() -> Option<PathBuf> {
    Some(dir(Kind::Config)?.join("hooks.toml"))
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

/// Where an administrator installs the managed config on `os`: beside the runtimes' own
/// managed settings (Claude Code's `/etc/claude-code/`, `/Library/Application Support/ClaudeCode/`,
/// `C:\ProgramData\ClaudeCode\`).
pub const fn system_managed_config(os: Os) -> &'static str {
    match os {
        Os::Unix => "/etc/hookhost/managed.toml",
        Os::MacOs => "/Library/Application Support/hookhost/managed.toml",
        Os::Windows => r"C:\ProgramData\hookhost\managed.toml",
    }
}

/// Where an administrator installs the managed config on this OS.
pub const SYSTEM_MANAGED_CONFIG: &str = system_managed_config(Os::CURRENT);

/// hookhost's state directory (approved projects, the daemon's token): `$XDG_STATE_HOME/hookhost`,
/// else the OS's (Linux: `~/.local/state/hookhost`).
pub fn state_dir() -> Option<PathBuf> {
    dir(Kind::State)
}

/// Where `hookhost serve` keeps the bearer token TCP requests carry (made on first start), and
/// where `hookhost-send` finds it: `$XDG_STATE_HOME/hookhost/serve.token`.
pub fn serve_token_file() -> Option<PathBuf> {
    Some(state_dir()?.join("serve.token"))
}

/// The loopback port `hookhost serve` listens on, and `hookhost-send` asks, where they meet over
/// TCP.
pub const DAEMON_PORT: u16 = 7807;

/// The unix socket `hookhost serve` listens on and `hookhost-send` asks by default on `os`, in
/// the state directory `state`, where they meet on one: macOS, where a unix socket's peer is told
/// by `getpeereid` and a loopback port's listener cannot be told at all — over TCP the thin client
/// could never trust the daemon and would decide every event in-process. `None`: loopback TCP on
/// [`DAEMON_PORT`] with the daemon's token (Linux, where the kernel's socket diagnostics name the
/// listener's owner; Windows, where the TCP table does).
pub fn default_daemon_socket(os: Os, state: Option<PathBuf>) -> Option<PathBuf> {
    (os == Os::MacOs).then(|| Some(state?.join("serve.sock"))).flatten()
}

/// [`default_daemon_socket`] for this OS and this user.
pub fn serve_socket_file() -> Option<PathBuf> {
    default_daemon_socket(Os::CURRENT, state_dir())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_daemon_meets_its_client_on_a_unix_socket_on_macos_only() {
        let state = || Some(PathBuf::from("/Users/ada/Library/Application Support/hookhost"));
        assert_eq!(default_daemon_socket(Os::MacOs, state()), Some(PathBuf::from("/Users/ada/Library/Application Support/hookhost/serve.sock")));
        // Within macOS's 104-byte socket path for an ordinary user name.
        assert!(default_daemon_socket(Os::MacOs, state()).unwrap().as_os_str().len() < 104);
        assert_eq!(default_daemon_socket(Os::MacOs, None), None, "no state directory: loopback TCP");
        assert_eq!(default_daemon_socket(Os::Unix, state()), None);
        assert_eq!(default_daemon_socket(Os::Windows, state()), None);
    }

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
    fn each_os_keeps_hookhost_where_it_expects() {
        let env = |pairs: &'static [(&'static str, &'static str)]| move |v: &str| pairs.iter().find(|(k, _)| *k == v).map(|(_, x)| OsString::from(x));
        let all = |_: &str, _: &Path| true;
        let unix = env(&[("HOME", "/home/ada")]);
        let d = |os, kind, e: &dyn Fn(&str) -> Option<OsString>| hookhost_dir(os, kind, e, &all).map(|p| p.display().to_string().replace('\\', "/"));
        assert_eq!(d(Os::Unix, Kind::Config, &unix).unwrap(), "/home/ada/.config/hookhost");
        assert_eq!(d(Os::Unix, Kind::Cache, &unix).unwrap(), "/home/ada/.cache/hookhost");
        assert_eq!(d(Os::Unix, Kind::Data, &unix).unwrap(), "/home/ada/.local/share/hookhost");
        assert_eq!(d(Os::Unix, Kind::State, &unix).unwrap(), "/home/ada/.local/state/hookhost");
        let mac = env(&[("HOME", "/Users/ada")]);
        assert_eq!(d(Os::MacOs, Kind::Config, &mac).unwrap(), "/Users/ada/Library/Application Support/hookhost");
        assert_eq!(d(Os::MacOs, Kind::Cache, &mac).unwrap(), "/Users/ada/Library/Caches/hookhost");
        assert_eq!(d(Os::MacOs, Kind::State, &mac).unwrap(), "/Users/ada/Library/Application Support/hookhost");
        let win = env(&[("APPDATA", r"C:\Users\ada\AppData\Roaming"), ("LOCALAPPDATA", r"C:\Users\ada\AppData\Local"), ("HOME", "/ignored")]);
        assert_eq!(d(Os::Windows, Kind::Config, &win).unwrap(), "C:/Users/ada/AppData/Roaming/hookhost");
        assert_eq!(d(Os::Windows, Kind::Cache, &win).unwrap(), "C:/Users/ada/AppData/Local/hookhost/cache");
        assert_eq!(d(Os::Windows, Kind::Data, &win).unwrap(), "C:/Users/ada/AppData/Local/hookhost");
        // The XDG variables win everywhere; an empty one is not set.
        let xdg = env(&[("HOME", "/Users/ada"), ("XDG_CONFIG_HOME", "/Users/ada/.config"), ("XDG_CACHE_HOME", "")]);
        assert_eq!(d(Os::MacOs, Kind::Config, &xdg).unwrap(), "/Users/ada/.config/hookhost");
        assert_eq!(d(Os::MacOs, Kind::Cache, &xdg).unwrap(), "/Users/ada/Library/Caches/hookhost");
        // Nothing known: no directory (no cache, and the commands that need one say so).
        assert_eq!(d(Os::Windows, Kind::Config, &env(&[("HOME", "/x")])), None);
        assert_eq!(d(Os::Unix, Kind::State, &env(&[])), None);
        // One the usability check refuses falls back to the convention.
        let refuse = |_: &str, _: &Path| false;
        assert_eq!(hookhost_dir(Os::Unix, Kind::Config, &xdg, &refuse).unwrap(), PathBuf::from("/Users/ada/.config/hookhost"), "HOME/.config");
        assert_eq!(system_managed_config(Os::MacOs), "/Library/Application Support/hookhost/managed.toml");
        assert_eq!(system_managed_config(Os::Windows), r"C:\ProgramData\hookhost\managed.toml");
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
