//! What a host does besides running hooks ([`HostSettings`]), and the settings a layer writes
//! and layers merge by ([`Setting`]).

use crate::DEFAULT_RESOLVE_TTL;
use hookhost_types::spec::{AuditFailure, Grants, DEFAULT_STOP_LOOP_CAP};
use std::path::PathBuf;

/// Default of `state_ttl`: a hook's state value lives a day after its last write.
pub const DEFAULT_STATE_TTL: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);
/// Default of `state_max_kib`: state one plugin may keep in one session.
pub const DEFAULT_STATE_MAX_KIB: u32 = 1024;
/// The most `state_max_kib` may be (the store is for decisions' memory, not for data).
pub const MAX_STATE_MAX_KIB: u32 = 64 * 1024;

/// What a host does besides running hooks, as a config sets it.
#[derive(Debug, Clone)]
pub struct HostSettings {
    /// Where audit records go.
    pub audit_log: Option<PathBuf>,
    /// What a dispatch does when its audit record cannot be written.
    pub audit_failure: AuditFailure,
    /// Whether audit records keep the event they were about (the first record of a dispatch).
    pub audit_events: bool,
    /// The configured cache directory (see [`HostSettings::effective_cache_dir`]).
    pub cache_dir: Option<PathBuf>,
    /// Capabilities granted to plugins by name.
    pub grants: Grants,
    /// Consecutive stop blocks allowed per session (0 = no cap).
    pub stop_loop_cap: u32,
    /// Without a lock file, how long a tag's resolution stands in for an unreachable registry.
    pub resolve_ttl: std::time::Duration,
    /// How long a hook's state value lives after its last write (and the longest TTL a hook
    /// may ask for).
    pub state_ttl: std::time::Duration,
    /// KiB of state one plugin may keep in one session.
    pub state_max_kib: u32,
    /// The settings the file wrote, as opposed to defaults: what layers merge and conflict on.
    pub written: Vec<Setting>,
}

/// A host setting a layer may write ([`HostSettings`]' fields but `grants`, which merge by
/// layer reach, not by value).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Setting {
    /// `audit_log`.
    AuditLog,
    /// `audit_failure`.
    AuditFailure,
    /// `audit_events`.
    AuditEvents,
    /// `cache_dir`.
    CacheDir,
    /// `stop_loop_cap`.
    StopLoopCap,
    /// `resolve_ttl`.
    ResolveTtl,
    /// `state_ttl`.
    StateTtl,
    /// `state_max_kib`.
    StateMaxKib,
}

impl Setting {
    /// Every setting, in the order the config reference lists them.
    pub const ALL: [Setting; 8] = [Setting::AuditLog, Setting::AuditFailure, Setting::AuditEvents, Setting::CacheDir, Setting::StopLoopCap, Setting::ResolveTtl, Setting::StateTtl, Setting::StateMaxKib];

    /// Its name in a config file.
    pub fn name(self) -> &'static str {
        match self {
            Setting::AuditLog => "audit_log",
            Setting::AuditFailure => "audit_failure",
            Setting::AuditEvents => "audit_events",
            Setting::CacheDir => "cache_dir",
            Setting::StopLoopCap => "stop_loop_cap",
            Setting::ResolveTtl => "resolve_ttl",
            Setting::StateTtl => "state_ttl",
            Setting::StateMaxKib => "state_max_kib",
        }
    }

    /// Its value in `settings`, as text (for comparing layers and for `config show --layers`).
    pub fn value(self, settings: &HostSettings) -> String {
        match self {
            Setting::AuditLog => settings.audit_log.as_ref().map_or(String::new(), |p| p.display().to_string()),
            Setting::AuditFailure => format!("{:?}", settings.audit_failure).to_lowercase(),
            Setting::AuditEvents => settings.audit_events.to_string(),
            Setting::CacheDir => settings.cache_dir.as_ref().map_or(String::new(), |p| p.display().to_string()),
            Setting::StopLoopCap => settings.stop_loop_cap.to_string(),
            Setting::ResolveTtl => format!("{}s", settings.resolve_ttl.as_secs()),
            Setting::StateTtl => format!("{}s", settings.state_ttl.as_secs()),
            Setting::StateMaxKib => settings.state_max_kib.to_string(),
        }
    }

    /// Take its value from `from` into `to`.
    pub fn copy(self, from: &HostSettings, to: &mut HostSettings) {
        match self {
            Setting::AuditLog => to.audit_log = from.audit_log.clone(),
            Setting::AuditFailure => to.audit_failure = from.audit_failure,
            Setting::AuditEvents => to.audit_events = from.audit_events,
            Setting::CacheDir => to.cache_dir = from.cache_dir.clone(),
            Setting::StopLoopCap => to.stop_loop_cap = from.stop_loop_cap,
            Setting::ResolveTtl => to.resolve_ttl = from.resolve_ttl,
            Setting::StateTtl => to.state_ttl = from.state_ttl,
            Setting::StateMaxKib => to.state_max_kib = from.state_max_kib,
        }
    }
}

impl std::fmt::Display for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Default for HostSettings {
    fn default() -> HostSettings {
        HostSettings {
            audit_log: None,
            audit_failure: AuditFailure::default(),
            audit_events: false,
            cache_dir: None,
            grants: Grants::default(),
            stop_loop_cap: DEFAULT_STOP_LOOP_CAP,
            resolve_ttl: DEFAULT_RESOLVE_TTL,
            state_ttl: DEFAULT_STATE_TTL,
            state_max_kib: DEFAULT_STATE_MAX_KIB,
            written: Vec::new(),
        }
    }
}

impl HostSettings {
    /// The cache directory in use: `$HOOKHOST_CACHE_DIR`, else `cache_dir`, else the user's
    /// cache directory.
    pub fn effective_cache_dir(&self) -> Option<PathBuf> {
        hookhost_types::paths::cache_dir(self.cache_dir.as_deref())
    }
}

