//! Plugins compiled into the binary, referenced as `builtin:<name>` (built from `plugins/` by
//! the build script).

use hookhost_types::adapter::{AdapterMode, AdapterSettings};

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

/// The component bytes of a built-in plugin and their hex sha256 (computed at build time).
pub fn get(name: &str) -> Option<(&'static [u8], &'static str)> {
    BUILTINS.iter().find(|(n, ..)| *n == name).map(|(_, bytes, digest, _)| (*bytes, *digest))
}

/// The zstd-packed code, compiled when hookhost was built, of the built-in whose component has
/// this digest (`None` in a debug build, or without the `precompiled-builtins` feature).
/// Whether it suits this machine is for wasmtime to say at load.
pub fn precompiled(digest: &str) -> Option<&'static [u8]> {
    let embedded = BUILTINS.iter().find(|(_, _, d, packed)| *d == digest && !packed.is_empty()).map(|(.., packed)| *packed);
    #[cfg(any(test, feature = "testing"))]
    let embedded = embedded.or_else(|| EMBEDDED_BY_TEST.lock().unwrap().iter().find(|(d, _)| d == digest).map(|(_, packed)| *packed));
    embedded
}

/// Code a test embedded as if the build had (debug and test builds embed none: only release
/// builds compile the built-ins ahead of time). See [`embed_for_test`].
#[cfg(any(test, feature = "testing"))]
static EMBEDDED_BY_TEST: std::sync::Mutex<Vec<(String, &'static [u8])>> = std::sync::Mutex::new(Vec::new());

/// Make `packed` (zstd-packed output of `hookhost-precompile compile`) the embedded code of the
/// built-in whose component has `digest`, for this process: how the precompile tool's output is
/// tested without a release build.
#[cfg(any(test, feature = "testing"))]
pub fn embed_for_test(digest: &str, packed: Vec<u8>) {
    EMBEDDED_BY_TEST.lock().unwrap().push((digest.to_string(), Vec::leak(packed)));
}

/// The names of every built-in plugin.
pub fn names() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().map(|(n, ..)| *n)
}

/// Why a bash-adapter hook needs `process:exec`, if it does: the adapter imports `process`,
/// but only hooks whose settings ask for host mode run a real process.
pub fn process_need(settings: &AdapterSettings) -> Option<String> {
    (settings.runs() == Some(AdapterMode::Host)).then(|| "its settings ask for mode = \"host\", which runs a real process".to_string())
}

/// Variables of hookhost's own environment a converted peer hook in host mode is given, as its
/// runtime would give it its own environment: enough to find programs and the user's files
/// (`node` under `~/.nvm`, `uv` in `~/.local/bin`, git's config), nothing else.
pub const PEER_HOST_ENV: &[&str] = &["PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR"];

/// A bash-adapter hook's settings as loaded, given whether the hook holds `process:exec`: a
/// new value, the hook's own left as written. `mode = "auto"` (converted peer hooks) becomes
/// `host` where it does — with [`PEER_HOST_ENV`] from hookhost's environment under the hook's
/// own `env` — and `sandbox` where it does not.
///
/// A `url` hook's `headers` get `$VAR` / `${VAR}` filled for the names its `allowed_env_vars`
/// lists — from its own `env`, else hookhost's environment — and the empty string for any
/// other name, as Claude Code does. Only for the config's `own` hooks: a bundle's settings come
/// from a third party and must not choose which of this machine's variables leave it.
pub fn resolve_adapter(settings: &AdapterSettings, process_granted: bool, own: bool) -> AdapterSettings {
    let mut out = settings.clone();
    if !out.headers.is_empty() {
        let allowed: &[String] = if own { &settings.allowed_env_vars } else { &[] };
        let value_of = |name: &str| -> String {
            if !allowed.iter().any(|a| a == name) {
                return String::new();
            }
            settings.env.get(name).cloned().or_else(|| std::env::var(name).ok()).unwrap_or_default()
        };
        for value in out.headers.values_mut() {
            *value = expand_vars(value, &value_of);
        }
    }
    if out.mode == Some(AdapterMode::Auto) && out.url.is_none() {
        out.mode = Some(if process_granted { AdapterMode::Host } else { AdapterMode::Sandbox });
        if process_granted {
            for var in PEER_HOST_ENV {
                if let (false, Ok(value)) = (out.env.contains_key(*var), std::env::var(var)) {
                    out.env.insert((*var).to_string(), value);
                }
            }
        }
    }
    out
}

/// `$NAME` and `${NAME}` (NAME: letters, digits, `_`, not starting with a digit) replaced by
/// `value_of(NAME)`; any other `$` stays.
fn expand_vars(text: &str, value_of: &dyn Fn(&str) -> String) -> String {
    let is_start = |c: char| c == '_' || c.is_ascii_alphabetic();
    let is_name = |c: char| c == '_' || c.is_ascii_alphanumeric();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let braced = after.strip_prefix('{').and_then(|b| b.find('}').map(|end| (&b[..end], &b[end + 1..])));
        match braced {
            Some((name, tail)) if name.starts_with(is_start) && name.chars().all(is_name) => {
                out.push_str(&value_of(name));
                rest = tail;
            }
            _ if after.starts_with(is_start) => {
                let end = after.find(|c: char| !is_name(c)).unwrap_or(after.len());
                out.push_str(&value_of(&after[..end]));
                rest = &after[end..];
            }
            _ => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The directory a bash-adapter hook's instance may read, read-only: its `project_dir` in
/// sandbox mode (a converted peer hook's project, mounted where its runtime would have it). No
/// other plugin is ever given a directory.
pub fn project_mount(settings: &AdapterSettings) -> Option<std::path::PathBuf> {
    (settings.runs() == Some(AdapterMode::Sandbox)).then(|| settings.project_dir.as_ref().map(std::path::PathBuf::from)).flatten()
}

#[cfg(test)]
mod tests {
    /// The guard's initial memory is three pages (60 KiB stack, its data, the SDK's 64 KiB
    /// arena): each page is reset before every call, and a fourth costs ~2 µs a decision
    /// (docs/PERFORMANCE.md). A table that pushes its data past ~64 KiB fails here.
    #[test]
    fn the_guard_starts_with_three_pages_of_memory() {
        let (bytes, _) = super::get("guard-destructive").expect("built in");
        let mut pages = Vec::new();
        for payload in wasmparser::Parser::new(0).parse_all(bytes) {
            if let Ok(wasmparser::Payload::MemorySection(memories)) = payload {
                pages.extend(memories.into_iter().flatten().map(|m| m.initial));
            }
        }
        assert_eq!(pages, [3], "the guard's memories, in 64 KiB pages");
    }

    #[test]
    fn the_configs_list_of_builtins_is_this_binarys() {
        let built: Vec<&str> = super::names().collect();
        assert_eq!(built, hookhost_types::spec::BUILTIN_PLUGINS, "crates/types lists the built-ins configs may name");
    }

    use hookhost_types::adapter::AdapterSettings;

    fn typed(v: serde_json::Value) -> AdapterSettings {
        AdapterSettings::from_json(&v).unwrap()
    }

    #[test]
    fn auto_mode_follows_the_grant() {
        let auto = typed(serde_json::json!({"command": "node x.js", "mode": "auto", "env": {"PATH": "/opt/bin"}, "project_dir": "/repo"}));
        let sandbox = super::resolve_adapter(&auto, false, true).to_json();
        assert_eq!(sandbox["mode"], "sandbox");
        assert_eq!(sandbox["env"], serde_json::json!({"PATH": "/opt/bin"}), "no host environment in the sandbox");
        assert_eq!(super::project_mount(&typed(sandbox)), Some("/repo".into()));
        let host = super::resolve_adapter(&auto, true, true).to_json();
        assert_eq!(host["mode"], "host");
        assert_eq!(host["env"]["PATH"], "/opt/bin", "the hook's own env wins");
        if let Ok(home) = std::env::var("HOME") {
            assert_eq!(host["env"]["HOME"], home.as_str());
        }
        assert_eq!(super::project_mount(&typed(host)), None, "a real process reads the project itself");
        // Only `auto` is resolved.
        let explicit = typed(serde_json::json!({"command": "x", "mode": "sandbox"}));
        assert_eq!(super::resolve_adapter(&explicit, true, true), explicit);
        // Only a hook that runs a real process needs process:exec.
        assert_eq!(super::process_need(&super::resolve_adapter(&auto, true, true)).as_deref(), Some("its settings ask for mode = \"host\", which runs a real process"));
        assert_eq!(super::process_need(&super::resolve_adapter(&auto, false, true)), None);
    }

    #[test]
    fn headers_get_only_the_variables_the_hook_lists() {
        std::env::set_var("HOOKHOST_TEST_TOKEN", "t0k");
        std::env::set_var("HOOKHOST_TEST_SECRET", "leak");
        let settings = typed(serde_json::json!({
            "url": "http://127.0.0.1:9/h",
            "headers": {"Authorization": "Bearer $HOOKHOST_TEST_TOKEN", "X-Team": "${TEAM}-x", "X-Other": "$HOOKHOST_TEST_SECRET", "X-Price": "5$ and $1"},
            "allowed_env_vars": ["HOOKHOST_TEST_TOKEN", "TEAM"],
            "env": {"TEAM": "core"},
        }));
        let own = super::resolve_adapter(&settings, false, true);
        assert_eq!(own.to_json()["headers"], serde_json::json!({"Authorization": "Bearer t0k", "X-Team": "core-x", "X-Other": "", "X-Price": "5$ and $1"}));
        let bundle = super::resolve_adapter(&settings, false, false).to_json();
        assert_eq!(bundle["headers"]["Authorization"], "Bearer ", "a bundle's hook reads no variable of this machine");
        assert_eq!(super::project_mount(&own), None, "a url hook gets no directory");
    }
}
