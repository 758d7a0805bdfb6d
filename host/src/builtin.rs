//! Plugins compiled into the binary, referenced as `builtin:<name>` (built from `plugins/` by
//! the build script).

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

/// The component bytes of a built-in plugin and their hex sha256 (computed at build time).
pub fn get(name: &str) -> Option<(&'static [u8], &'static str)> {
    BUILTINS.iter().find(|(n, ..)| *n == name).map(|(_, bytes, digest)| (*bytes, *digest))
}

/// The names of every built-in plugin.
pub fn names() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().map(|(n, ..)| *n)
}

/// Whether a hook of a built-in plugin needs `process:exec`, when the built-in decides that by
/// its settings rather than by what it imports: `Some(Some(why))` if it does, `Some(None)` if
/// it does not, `None` when the plugin's imports decide. The bash adapter imports `process`
/// but needs it only for hooks whose settings ask for host mode.
pub fn process_need(name: &str, settings: &serde_json::Value) -> Option<Option<String>> {
    match name {
        "bash-adapter" => Some((settings.get("mode").and_then(serde_json::Value::as_str) == Some("host")).then(|| "its settings ask for mode = \"host\", which runs a real process".to_string())),
        _ => None,
    }
}

/// Variables of hookhost's own environment a converted peer hook in host mode is given, as its
/// runtime would give it its own environment: enough to find programs and the user's files
/// (`node` under `~/.nvm`, `uv` in `~/.local/bin`, git's config), nothing else.
pub const PEER_HOST_ENV: &[&str] = &["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR"];

/// A built-in hook's settings as loaded, given whether the hook holds `process:exec`: the
/// bash adapter's `mode = "auto"` (converted peer hooks) becomes `host` where it does — with
/// [`PEER_HOST_ENV`] from hookhost's environment under the hook's own `env` — and `sandbox`
/// where it does not.
pub fn resolve_settings(name: &str, settings: &serde_json::Value, process_granted: bool) -> serde_json::Value {
    use serde_json::Value;
    let mut settings = settings.clone();
    if name != "bash-adapter" || settings.get("mode").and_then(Value::as_str) != Some("auto") {
        return settings;
    }
    let Some(obj) = settings.as_object_mut() else { return settings };
    obj.insert("mode".into(), if process_granted { "host" } else { "sandbox" }.into());
    if process_granted {
        let env = obj.entry("env").or_insert_with(|| Value::Object(Default::default()));
        if let Some(env) = env.as_object_mut() {
            for var in PEER_HOST_ENV {
                if let (false, Ok(value)) = (env.contains_key(*var), std::env::var(var)) {
                    env.insert((*var).to_string(), value.into());
                }
            }
        }
    }
    settings
}

/// The directory a built-in hook's instance may read, read-only: the bash adapter's
/// `project_dir` in sandbox mode (a converted peer hook's project, mounted where its runtime
/// would have it). No other plugin is ever given a directory.
pub fn project_mount(name: &str, settings: &serde_json::Value) -> Option<std::path::PathBuf> {
    use serde_json::Value;
    if name != "bash-adapter" || settings.get("mode").and_then(Value::as_str).is_some_and(|m| m != "sandbox") {
        return None;
    }
    settings.get("project_dir").and_then(Value::as_str).map(std::path::PathBuf::from)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_configs_list_of_builtins_is_this_binarys() {
        let built: Vec<&str> = super::names().collect();
        assert_eq!(built, hookhost_types::spec::BUILTIN_PLUGINS, "crates/types lists the built-ins configs may name");
    }

    #[test]
    fn auto_mode_follows_the_grant() {
        let auto = serde_json::json!({"command": "node x.js", "mode": "auto", "env": {"PATH": "/opt/bin"}, "project_dir": "/repo"});
        let sandbox = super::resolve_settings("bash-adapter", &auto, false);
        assert_eq!(sandbox["mode"], "sandbox");
        assert_eq!(sandbox["env"], serde_json::json!({"PATH": "/opt/bin"}), "no host environment in the sandbox");
        assert_eq!(super::project_mount("bash-adapter", &sandbox), Some("/repo".into()));
        let host = super::resolve_settings("bash-adapter", &auto, true);
        assert_eq!(host["mode"], "host");
        assert_eq!(host["env"]["PATH"], "/opt/bin", "the hook's own env wins");
        if let Ok(home) = std::env::var("HOME") {
            assert_eq!(host["env"]["HOME"], home.as_str());
        }
        assert_eq!(super::project_mount("bash-adapter", &host), None, "a real process reads the project itself");
        // Only `auto` is resolved, and only for the bash adapter.
        let explicit = serde_json::json!({"command": "x", "mode": "sandbox"});
        assert_eq!(super::resolve_settings("bash-adapter", &explicit, true), explicit);
        assert_eq!(super::project_mount("guard-destructive", &serde_json::json!({"project_dir": "/"})), None);
    }
}
