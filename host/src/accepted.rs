//! Settings a plugin has accepted before, remembered across processes.
//!
//! Every load asks each hook's plugin to `validate-settings` in a fresh instance. A daemon pays
//! that once; a command-hook runtime that starts `hookhost run` per event would pay it on every
//! event (about 0.2 ms a hook). The answer depends only on the plugin's code, the settings and
//! the limits it ran under — when the hook's sandbox sees nothing of the machine — so an
//! acceptance is recorded as an empty file `{cache}/settings-ok/{sha256(digest, settings,
//! limits)}` and a later load with the same three skips the call. A rejection is never
//! recorded: it is asked again, and reported, every time. Hooks whose sandbox mounts a
//! directory or may reach the network are always asked (what they check can change under
//! them). The cache directory is private to the user (checked before anything is read).

use crate::plugin::Access;
use hookhost_types::spec::Limits;
use std::path::{Path, PathBuf};

pub(crate) struct AcceptedSettings {
    dir: Option<PathBuf>,
}

impl AcceptedSettings {
    pub fn new(cache: Option<&Path>) -> Self {
        AcceptedSettings { dir: cache.map(|c| c.join("settings-ok")) }
    }

    /// The record's path, when this check may be remembered at all.
    fn record(&self, digest: &str, settings_json: &str, limits: &Limits, access: &Access) -> Option<PathBuf> {
        if access.read_dir.is_some() || !access.net.is_empty() {
            return None;
        }
        let key = format!("v1\0{digest}\0{settings_json}\0{}\0{}\0{}", limits.fuel, limits.memory_bytes, limits.timeout.as_micros());
        Some(self.dir.as_ref()?.join(hookhost_types::ids::sha256_hex(key.as_bytes())))
    }

    /// Whether the plugin accepted exactly these settings before.
    pub fn known(&self, digest: &str, settings_json: &str, limits: &Limits, access: &Access) -> bool {
        self.record(digest, settings_json, limits, access).is_some_and(|p| p.is_file())
    }

    /// Remember an acceptance (best effort: a failure only costs the next load a call).
    pub fn remember(&self, digest: &str, settings_json: &str, limits: &Limits, access: &Access) {
        let (Some(dir), Some(path)) = (&self.dir, self.record(digest, settings_json, limits, access)) else { return };
        let written = std::fs::create_dir_all(dir).and_then(|()| std::fs::write(&path, b""));
        if let Err(e) = written {
            tracing::debug!(path = %path.display(), "cannot record accepted settings: {e}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_code_settings_and_limits_are_known_and_never_with_a_mount_or_network() {
        let dir = tempfile::tempdir().unwrap();
        let accepted = AcceptedSettings::new(Some(dir.path()));
        let (limits, access) = (Limits::default(), Access::default());
        assert!(!accepted.known("d1", "{}", &limits, &access));
        accepted.remember("d1", "{}", &limits, &access);
        assert!(accepted.known("d1", "{}", &limits, &access));
        assert!(!accepted.known("d2", "{}", &limits, &access), "other code");
        assert!(!accepted.known("d1", "{\"a\":1}", &limits, &access), "other settings");
        assert!(!accepted.known("d1", "{}", &Limits { fuel: 1, ..limits }, &access), "other limits");
        let mounted = Access { read_dir: Some(dir.path().to_path_buf()), ..Access::default() };
        accepted.remember("d1", "{}", &limits, &mounted);
        assert!(!accepted.known("d1", "{}", &limits, &mounted), "a mounted directory can change under the check");
        assert!(!AcceptedSettings::new(None).known("d1", "{}", &limits, &access), "no cache, no memory");
    }
}
