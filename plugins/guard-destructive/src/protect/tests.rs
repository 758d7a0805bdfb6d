//! Self-protection's unit tests.

use super::*;
use hookhost_sdk::serde_json::json;

fn shell(cmd: &str) -> Option<Finding> {
    check_call("Bash", &json!({"command": cmd}), Some("/home/u/project"))
}

#[test]
fn edits_of_hook_configuration_are_refused() {
    let cwd = Some("/home/u/project");
    for (tool, args) in [
        ("Edit", json!({"file_path": "/home/u/project/.claude/settings.json", "old_string": "a", "new_string": "b"})),
        ("Write", json!({"file_path": ".hookhost/hooks.toml", "content": ""})),
        ("MultiEdit", json!({"file_path": "../project/.codex/hooks.json", "edits": []})),
        ("write_file", json!({"file_path": ".gemini/settings.json", "content": "{}"})),
        ("replace", json!({"file_path": "/home/u/.gemini/settings.json", "old_string": "a", "new_string": "b"})),
        ("create", json!({"path": ".github/hooks/policy.json", "file_text": "{}"})),
        ("edit", json!({"path": "/home/u/.copilot/hooks/h.json"})),
        ("Write", json!({"file_path": "~/.config/hookhost/hooks.toml", "content": ""})),
        ("Write", json!({"file_path": "/etc/hookhost/managed.toml", "content": ""})),
        ("Write", json!({"file_path": "C:\\Users\\u\\project\\.Claude\\Settings.json", "content": ""})),
        ("apply_patch", json!({"input": "*** Begin Patch\n*** Update File: .claude/settings.local.json\n@@\n-a\n+b\n*** End Patch"})),
        ("apply_patch", json!({"command": "*** Begin Patch\n*** Update File: .claude/settings.local.json\n@@\n-a\n+b\n*** End Patch"})),
        ("apply_patch", json!("*** Begin Patch\n*** Delete File: hooks.lock\n*** End Patch")),
    ] {
        assert!(check_call(tool, &args, cwd).is_some(), "{tool} {args}");
    }
    // docker-agent's drop-in hooks (hookhost's among them) and its user config's hooks.
    for cmd in ["rm ~/.config/cagent/hooks.d/hookhost.yaml", "echo 'pre_tool_use: []' > ~/.config/cagent/hooks.d/hookhost.yaml", "mv ~/.config/cagent/hooks.d /tmp/off", "sed -i 's/hookhost/true/' ~/.config/cagent/config.yaml", "DOCKER_AGENT_CONFIG_DIR=/tmp/empty docker-agent run agent.yaml", "export CAGENT_CONFIG_DIR=/tmp/empty"] {
        assert!(shell(cmd).is_some(), "{cmd}");
    }
    assert_eq!(shell("cat ~/.config/cagent/hooks.d/hookhost.yaml"), None, "reading it is fine");
    // Antigravity CLI's hooks files.
    for cmd in ["echo '{}' > .agents/hooks.json", "rm ~/.gemini/config/hooks.json", "agy --hooks-off", "echo 'hooks: []' > /data/workspace/config/shell_hooks.yaml", "sed -i 's/enabled: true/enabled: false/' config/agent.yaml"] {
        assert!(shell(cmd).is_some(), "{cmd}");
    }
    // A patch's context lines are not actions.
    let patch = "*** Begin Patch\n*** Update File: scripts/clean.sh\n@@\n rm -rf ~/.claude\n-echo a\n+echo b\n*** End Patch";
    assert_eq!(check_call("apply_patch", &json!({"command": patch}), cwd), None);
}

#[test]
fn reasons_name_the_rule_and_what_to_do() {
    assert_eq!(
        shell("sed -i 's/deny/allow/' .hookhost/hooks.toml").unwrap().reason,
        "sed would change .hookhost/hooks.toml (hook configuration) (rule hooks.change); instead: read it freely, but change hooks yourself, outside the agent"
    );
    assert_eq!(shell("pkill -f 'hook.*serve'").unwrap().reason, "pkill would stop hookhost, which runs the hooks (rule hooks.stop); instead: leave hookhost running; stop it yourself, outside the agent");
}

#[test]
fn paths_resolve_before_they_are_compared() {
    let p = |path: &str, cwd: Option<&str>, access: Access| protected(path, cwd, access).is_some();
    assert!(p("/tmp/../home/u/.hookhost/hooks.toml", None, Access::Change));
    assert!(p("./.claude/./settings.json", Some("/p"), Access::Change));
    assert!(p(".claude/settings*", Some("/p"), Access::Change), "a glob that can name it");
    assert!(p(".cl*/s*s.json", Some("/p"), Access::Change));
    assert!(p(".claude/setting[s].json", Some("/p"), Access::Change));
    assert!(!p("*/settings.json", Some("/p"), Access::Change), "`*` does not match a leading dot");
    assert!(!p("build/*", Some("/p"), Access::Remove), "a bare `*` names nothing in particular");
    assert!(!p("/var/tmp/*", None, Access::Remove));
    assert!(p("$HOME/.config/hookhost", None, Access::Remove));
    assert!(!p("/etc", None, Access::Change) || p("/etc", None, Access::Remove), "holds /etc/hookhost");
    assert!(p("/etc/hookhost", None, Access::Remove));
    assert!(p(".github", Some("/p"), Access::Remove), "holds .github/hooks");
    assert!(p(".claude", Some("/p"), Access::Into));
    assert!(!p(".claude/commands/x.md", Some("/p"), Access::Change));
    assert!(!p(".cache", Some("/p"), Access::Remove), "hookhost's cache is made again");
    assert!(!p("~/.cache/hookhost", None, Access::Remove));
    assert!(p("~/.cache/hookhost/x", None, Access::Change), "but not written");
    assert!(p("C:\\Users\\u\\.claude\\settings.json", None, Access::Change));
    assert!(p(".Claude/SETTINGS.json", Some("/p"), Access::Change));
}

/// Every file a runtime's profile (`hookhost_types::runtime`) says holds its hooks — the files
/// it reads hooks from, the ones `hookhost install` writes per scope and OS, a project's peer
/// file and its scripts — is protected, and its program is an agent the guard knows: a new
/// runtime's profile fails here until the guard covers it.
#[test]
fn every_runtimes_hook_files_and_program_are_covered() {
    use hookhost_types::Runtime;
    let p = |path: &str| protected(path, Some("/p"), Access::Change).is_some();
    for r in Runtime::ALL {
        let profile = r.profile();
        for file in profile.config_files {
            let file = file.replace('*', "x");
            assert!(p(&file), "{r}: {file}");
        }
        if let Some(hooks) = &profile.project_hooks {
            assert!(p(hooks.file), "{r}: {}", hooks.file);
            if let Some(dir) = hooks.scripts {
                assert!(p(&format!("{dir}/x.sh")), "{r}: {dir}");
            }
        }
        if let Some(install) = &profile.install {
            assert!(AGENTS.contains(&install.program), "{r}: the agent {} is not in AGENTS", install.program);
            let user = format!("~/{}/{}", install.home, install.user_file);
            assert!(p(&user), "{r}: {user}");
            if let Ok(project_file) = install.project_file {
                assert!(p(project_file), "{r}: {project_file}");
            }
            for &var in install.home_vars {
                assert!(always_protected_var(var), "{r}: {var} moves its hooks and is not protected");
            }
            for managed in [install.managed.unix, install.managed.macos, install.managed.windows].into_iter().flatten() {
                assert!(p(managed), "{r}: {managed}");
            }
        }
    }
}

#[test]
fn process_patterns_are_matched_as_pkill_matches_them() {
    for (p, want) in [("hookh", true), ("hook.*serve", true), ("^hookhost", true), ("ook", true), ("serve", true), ("h[o]+khost", true), ("node", false), ("^serve", false), ("vite serve", false), ("server", false), ("hookhost$", true)] {
        assert_eq!(matches_hookhost(p), want, "{p}");
    }
}

#[test]
fn every_hook_directory_begins_where_the_cheap_test_looks() {
    for dir in DIRS {
        let parts: Vec<String> = dir.split('/').map(str::to_string).collect();
        assert!(may_be_inside(&parts), "{dir}: may_be_inside would skip it");
    }
    assert!(!may_be_inside(&["/".into(), "tmp".into(), "x".into()]));
    assert!(may_be_inside(&["/".into(), "*".into()]), "a wildcard may stand for a hook directory");
}
