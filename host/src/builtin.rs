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

#[cfg(test)]
mod tests {
    #[test]
    fn the_configs_list_of_builtins_is_this_binarys() {
        let built: Vec<&str> = super::names().collect();
        assert_eq!(built, hookhost_types::spec::BUILTIN_PLUGINS, "crates/types lists the built-ins configs may name");
    }
}
