//! Tests of `lib.rs`.

use super::*;
use std::time::Duration;

fn parse(text: &str) -> Result<ConfigFile, ConfigError> {
    ConfigFile::parse(text, Path::new("hooks.toml"), Path::new("/cfg"))
}

#[test]
fn embedded_default_is_valid() {
    let c = ConfigFile::embedded_default();
    assert!(c.hooks.len() >= 2);
}

#[test]
fn minimal_hook_gets_the_seed_defaults() {
    let c = parse("[[hooks]]\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"g.wasm\" }\n").unwrap();
    let h = &c.hooks[0];
    assert_eq!(h.id, "user:pre_tool_use_0");
    assert_eq!(h.limits.timeout, Duration::from_millis(5000));
    assert_eq!(h.on_error, OnError::Warn);
    assert_eq!(h.plugin, PluginRef::Path(PathBuf::from("/cfg/g.wasm")));
    assert_eq!(h.limits.memory_bytes, 64 << 20);
}

#[test]
fn every_problem_is_reported_with_its_field() {
    let err = parse(
        r#"
[[hooks]]
id = "a"
event = "pre_tool"
executor = { plugin = "builtin:nope" }
timeout_ms = 50

[[hooks]]
id = "a"
event = "session_start"
matcher = { tool_name = "bash" }
executor = { plugin = "x.wasm", memory_mib = 0 }
"#,
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("hooks.toml: 6 problems:"), "{text}");
    for want in [
        "hooks[0].event: unknown event \"pre_tool\"; use one of session_start,",
        "hooks[0].timeout_ms: 50 is out of range; use 100..=30000 milliseconds (default 5000)",
        "hooks[0].executor.plugin: unknown built-in plugin \"nope\"; built-ins are builtin:guard-destructive, builtin:redact-secrets",
        "hooks[1].id: duplicate hook id \"user:a\" (also hooks[0])",
        "hooks[1].matcher: tool matchers apply to tool events only",
        "hooks[1].executor.memory_mib: 0 is out of range; use 1..=1024 (default 64)",
    ] {
        assert!(text.contains(want), "missing {want:?} in:\n{text}");
    }
    // Each problem carries its field apart from the message: a caller reads it, not the text.
    let fields: Vec<&str> = err.problems.iter().map(|p| p.field.as_str()).collect();
    assert_eq!(fields, ["hooks[0].event", "hooks[0].timeout_ms", "hooks[0].executor.plugin", "hooks[1].id", "hooks[1].matcher", "hooks[1].executor.memory_mib"]);
    assert!(err.problems[3].message.starts_with("duplicate hook id \"user:a\""), "{:?}", err.problems[3]);
}

#[test]
fn unknown_fields_and_bad_enums_name_the_field() {
    let err = parse("[[hooks]]\nevent = \"stop\"\nexecutor = { plugin = \"x.wasm\" }\ntimeout = 5\n").unwrap_err();
    assert!(err.to_string().contains("unknown field `timeout`"), "{err}");
    let err = parse("[[hooks]]\nevent = \"stop\"\nexecutor = { plugin = \"x.wasm\" }\non_error = \"deny\"\n").unwrap_err();
    assert!(err.to_string().contains("unknown variant `deny`, expected one of `block`, `allow`, `warn`"), "{err}");
}

#[test]
fn durations_and_policies_are_checked() {
    let secs = |t: &str| RawDuration::Text(t.into()).parse().map(|d| d.as_secs());
    assert_eq!((secs("90"), secs("90s"), secs("30m"), secs("12h"), secs("7d")), (Ok(90), Ok(90), Ok(1800), Ok(43200), Ok(604800)));
    assert_eq!(RawDuration::Seconds(5).parse().unwrap().as_secs(), 5);
    assert!(secs("12 hours").unwrap_err().contains("is not a duration; write seconds, or a number with s, m, h or d"));
    let err = parse("resolve_ttl = \"soon\"\n[policy]\nproject_grants = [\"net:ftp:x\"]\nproject_peers = [\"vscode\"]\nmax_limits = { memory_mib = 0, timeout_ms = 10 }\n").unwrap_err().to_string();
    for want in [
        "resolve_ttl: \"soon\" is not a duration",
        "policy.project_grants: unknown capability \"net:ftp:x\"",
        "policy.project_peers: hookhost knows no project hook file of \"vscode\"; use claude-code",
        "policy.max_limits.memory_mib: 0 is out of range",
        "policy.max_limits.timeout_ms: 10 is out of range",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    // Hooks' state: a TTL under a second and a quota out of range are named with the fix.
    let err = parse("state_ttl = 0\nstate_max_kib = 0\n").unwrap_err().to_string();
    assert!(err.contains("state_ttl: must be at least 1 second"), "{err}");
    assert!(err.contains("state_max_kib: 0 is out of range; give 1..=65536"), "{err}");
    let c = parse("state_ttl = \"2h\"\nstate_max_kib = 64\n").unwrap();
    assert_eq!((c.settings.state_ttl.as_secs(), c.settings.state_max_kib), (7200, 64));
    assert_eq!(c.settings.written, [crate::Setting::StateTtl, crate::Setting::StateMaxKib]);
    let c = parse("[policy]\nuser_grants = [\"net:http:*\", \"process:exec\"]\n").unwrap();
    let grants = c.policy.user_grants.unwrap();
    assert!(grants[0].allows(&"net:http:example.com:8080".parse().unwrap()) && grants[1].allows(&Capability::ProcessExec));
    assert_eq!(c.policy.written, ["user_grants"]);
}

#[test]
fn json_configs_use_the_same_schema() {
    let c = ConfigFile::parse(r#"{"hooks":[{"event":"stop","executor":{"plugin":"builtin:guard-destructive"}}]}"#, Path::new("h.json"), Path::new(".")).unwrap();
    assert_eq!(c.hooks[0].plugin, PluginRef::Builtin("guard-destructive".into()));
}

#[test]
fn a_peer_files_project_is_the_directory_holding_its_runtimes_config_directory() {
    use crate::peer::Options;
    use std::path::{Path, PathBuf};
    let project = |file: &str| Options::for_file(Path::new(file)).project_dir;
    assert_eq!(project("/repo/.claude/settings.json"), Some(PathBuf::from("/repo")));
    assert_eq!(project("/repo/.github/hooks/policy.json"), Some(PathBuf::from("/repo")), "Copilot's hooks run in the repository");
    assert_eq!(project("/repo/.github/hooks/hooks.json"), Some(PathBuf::from("/repo")), "a Copilot hook file named hooks.json is not a Claude Code plugin");
    assert_eq!(Options::for_file(Path::new("/repo/.github/hooks/hooks.json")).plugin_root, None);
    assert_eq!(Options::for_file(Path::new("/plugins/fmt/hooks/hooks.json")).plugin_root, Some(PathBuf::from("/plugins/fmt")));
    assert_eq!(project("/repo/tools/agent.yaml"), Some(PathBuf::from("/repo/tools")));
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        for user_file in [".claude/settings.json", ".copilot/hooks/mine.json"] {
            assert_eq!(project(&home.join(user_file).display().to_string()), None, "{user_file}: the user's own hooks run in the event's cwd");
        }
    }
}

/// A bundle's hook is observed when its consumer's reference or its own manifest says so: a
/// manifest's `mode = "enforce"` cannot override a reference in observe.
#[test]
fn a_bundle_hook_is_observed_when_either_side_says_so() {
    let config = parse("# none\n").unwrap();
    let raw = |mode: Option<Mode>| RawHook { mode, ..toml::from_str::<RawHook>("event = \"pre_tool_use\"\nexecutor = { plugin = \"g.wasm\" }\n").unwrap() };
    let mode_of = |raw: RawHook, reference: Mode| config.validate_bundle_hook(raw, "acme", 0, "hooks[0]", reference, &mut Vec::new()).unwrap().mode;
    assert_eq!(mode_of(raw(Some(Mode::Enforce)), Mode::Observe), Mode::Observe);
    assert_eq!(mode_of(raw(None), Mode::Observe), Mode::Observe);
    assert_eq!(mode_of(raw(Some(Mode::Observe)), Mode::Enforce), Mode::Observe);
    assert_eq!(mode_of(raw(None), Mode::Enforce), Mode::Enforce);
}
