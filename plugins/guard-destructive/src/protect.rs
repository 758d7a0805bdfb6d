//! Self-protection: the agent may read the hooks that govern it, never change or stop them.
//!
//! A tool call is refused when it would modify, move or remove hook configuration — Claude
//! Code's, Codex's, Gemini CLI's and GitHub Copilot CLI's settings and hook files, their managed
//! locations, hookhost's own config layers, trust store, lock, cache and state directories — or
//! stop hookhost. Through the edit tools (`Write`, `Edit`, `MultiEdit`, `NotebookEdit`,
//! `apply_patch`, `write_file`, `replace`, `create`, `edit`, ...: any tool whose name says it
//! writes, edits, creates, replaces, patches, moves, renames or deletes, by the path arguments
//! it names) and through the shell: output redirections, `tee`, `sed -i` / `perl -i`, `cp` /
//! `install` / `ln` / `rsync` onto them, `mv` / `rm` / `unlink` / `shred` / `truncate` /
//! `chmod` / `chown` of them or a directory holding them, `dd of=`, `git checkout` / `restore` /
//! `rm` / `mv` of them, `kill` / `pkill` / `killall` of hookhost, `systemctl stop` of it.
//! Reading them stays allowed.
//!
//! Out of reach by design (docs/CONFIG.md): paths assembled at run time (`$DIR/settings.json`),
//! scripts and interpreters that write them (`python -c`), an audit log kept outside a hookhost
//! directory.

use hookhost_sdk::prelude::*;
use hookhost_sdk::serde_json;
use hookhost_shell_parse as shell;

use crate::paths::{components, wildcard};

/// Hook configuration a project or a user keeps, as trailing path components (any directory).
const FILES: &[&str] = &[
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".gemini/trustedFolders.json",
    ".github/copilot/settings.json",
    ".github/copilot/settings.local.json",
    ".copilot/settings.json",
    ".copilot/config.json",
    "hooks.lock",
];

/// Directories whose whole content is hook configuration or hookhost's state.
const DIRS: &[&str] = &[
    ".hookhost",
    ".github/hooks",
    ".copilot/hooks",
    ".claude/hooks",
    ".config/hookhost",
    ".local/state/hookhost",
    ".local/share/hookhost",
    ".cache/hookhost",
];

/// Managed locations, from the root.
const ROOTED: &[&str] = &[
    "/etc/hookhost",
    "/etc/claude-code",
    "/etc/codex",
    "/etc/gemini-cli",
    "/etc/github-copilot",
    "/var/lib/hookhost",
    "/var/log/hookhost",
];

/// Words a command line must hold for self-protection to read it at all (the fast path:
/// most lines hold none, and skip the parse).
const NEEDLES: &[&str] = &[
    "hookhost", ".claude", ".codex", ".gemini", ".github", ".copilot", ".config", ".cache", ".local", "/etc", "/var", "settings", "hooks", "config.",
    "trustedFolders", "*** ",
];

/// Why this tool call would change or stop the hooks, or `None`.
pub fn check_call(tool: &str, arguments: &Value, cwd: Option<&str>) -> Option<String> {
    if let Value::String(text) = arguments {
        return match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Object(_)) => check_call(tool, &v, cwd),
            _ if writes_files(tool) => check_patch(text, cwd),
            _ => check_script(text, cwd, 0),
        };
    }
    if writes_files(tool) {
        for key in ["file_path", "path", "filePath", "notebook_path", "target_file", "destination", "new_path", "old_path", "target"] {
            if let Some(what) = arguments.get(key).and_then(Value::as_str).and_then(|p| protected(p, cwd, true)) {
                return Some(format!("{tool} would change {what}"));
            }
        }
        // Codex's apply_patch names its files inside the patch text.
        for key in ["input", "patch"] {
            if let Some(why) = arguments.get(key).and_then(Value::as_str).and_then(|t| check_patch(t, cwd)) {
                return Some(why);
            }
        }
    }
    // What it asks the shell to run: the destructive checks' reading of the arguments.
    super::shell_of(arguments).into_iter().find_map(|s| match s {
        super::Shell::Script(text) => check_script(text, cwd, 0),
        super::Shell::Argv(argv) => check_command(&argv, cwd, 0, false),
    })
}

/// Whether a tool's name says it writes files (`Write`, `MultiEdit`, `apply_patch`,
/// `write_file`, `replace`, Copilot's `create` / `edit`).
fn writes_files(tool: &str) -> bool {
    let t = tool.to_ascii_lowercase();
    ["write", "edit", "create", "replace", "patch", "move", "rename", "delete", "remove"].iter().any(|w| t.contains(w))
}

/// A patch in Codex's `apply_patch` format: the files its headers name.
fn check_patch(text: &str, cwd: Option<&str>) -> Option<String> {
    text.lines().find_map(|line| {
        let line = line.trim();
        let path = ["*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "].iter().find_map(|h| line.strip_prefix(h))?;
        protected(path.trim(), cwd, true).map(|what| format!("the patch would change {what}"))
    })
}

fn check_script(script: &str, cwd: Option<&str>, depth: usize) -> Option<String> {
    if depth > 8 || !super::mentions_any(script.as_bytes(), NEEDLES) {
        return None;
    }
    // A patch fed to the shell (`apply_patch <<'EOF' ... EOF`).
    if let Some(why) = Some(script).filter(|s| s.contains("*** ")).and_then(|s| check_patch(s, cwd)) {
        return Some(why);
    }
    // A line the parser refuses is the destructive checks' business; here, nothing to read.
    let parsed = shell::parse(script).ok()?;
    if let Some(what) = parsed.writes.iter().find_map(|w| protected(w, cwd, false)) {
        return Some(format!("a redirection would overwrite {what}"));
    }
    let mentions_hookhost = parsed.commands.iter().any(|words| words.iter().any(|w| w.contains("hookhost")));
    parsed.commands.iter().find_map(|words| check_command(words, cwd, depth, mentions_hookhost))
}

/// One simple command. `line_names_hookhost`: another command of the line mentions hookhost
/// (`kill $(pgrep hookhost)`).
fn check_command(words: &[String], cwd: Option<&str>, depth: usize, line_names_hookhost: bool) -> Option<String> {
    let (prog, args) = words.split_first()?;
    let prog = shell::program(prog);
    match shell::runs(prog, args) {
        Some(shell::Runs::Argv(inner)) => return check_command(inner, cwd, depth + 1, line_names_hookhost),
        Some(shell::Runs::Script(text)) => return check_script(&text, cwd, depth + 1),
        None => {}
    }
    let operands: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let on = |paths: &[&String], tree: bool| paths.iter().find_map(|p| protected(p, cwd, tree));
    let hit = match prog {
        "rm" | "rmdir" | "unlink" | "shred" | "truncate" | "mv" | "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" => on(&operands, true),
        "cp" | "install" | "ln" | "rsync" | "scp" => operands.last().and_then(|dest| protected(dest, cwd, false)),
        "tee" => on(&operands, false),
        "sed" | "perl" if args.iter().any(|a| a.starts_with("-i") || a == "--in-place" || (prog == "perl" && a.starts_with("-p") && a.contains('i'))) => on(&operands, false),
        "dd" => args.iter().find_map(|a| a.strip_prefix("of=")).and_then(|p| protected(p, cwd, false)),
        "git" => {
            let sub = operands.first().map(|s| s.as_str());
            if matches!(sub, Some("checkout" | "restore" | "rm" | "mv")) { on(&operands[1..], true) } else { None }
        }
        "kill" | "pkill" | "killall" => {
            let named = args.iter().any(|a| a.contains("hookhost")) || (line_names_hookhost && args.iter().any(|a| a.contains("$(")));
            return named.then(|| format!("{prog} would stop hookhost, which runs the hooks"));
        }
        "systemctl" => {
            let stops = args.iter().any(|a| matches!(a.as_str(), "stop" | "kill" | "disable" | "mask"));
            return (stops && args.iter().any(|a| a.contains("hookhost"))).then(|| "systemctl would stop hookhost, which runs the hooks".into());
        }
        _ => None,
    };
    hit.map(|what| format!("{prog} would change {what}"))
}

/// What `path` is, when it is hook configuration (`tree`: also a directory that holds some).
pub fn protected(path: &str, cwd: Option<&str>, tree: bool) -> Option<String> {
    let parts = components(path, cwd);
    if parts.is_empty() {
        return None;
    }
    let describe = |p: &str| format!("{p} (hook configuration; read it freely, but change hooks yourself, outside the agent)");
    for pattern in FILES {
        let pat: Vec<&str> = pattern.split('/').collect();
        if ends_with(&parts, &pat) {
            return Some(describe(path));
        }
    }
    for pattern in DIRS {
        let pat: Vec<&str> = pattern.split('/').collect();
        if (0..parts.len()).any(|i| starts_with(&parts[i..], &pat)) {
            return Some(describe(path));
        }
    }
    for pattern in ROOTED {
        let pat: Vec<&str> = pattern.trim_start_matches('/').split('/').collect();
        if parts.first().map(String::as_str) == Some("/") && starts_with(&parts[1..], &pat) {
            return Some(describe(path));
        }
    }
    if tree {
        // A directory that holds hook configuration: `.claude`, `.github`, `~/.config`.
        let last = parts.last()?.as_str();
        let holds = FILES.iter().chain(DIRS).any(|p| p.split('/').next() == Some(last) && p.contains('/'))
            || DIRS.contains(&last)
            || (parts.len() == 2 && parts[0] == "/" && ROOTED.iter().any(|r| r.trim_start_matches('/') == last));
        if holds {
            return Some(describe(path));
        }
    }
    None
}

fn starts_with(parts: &[String], pattern: &[&str]) -> bool {
    parts.len() >= pattern.len() && parts.iter().zip(pattern).all(|(part, pat)| wildcard(part, pat))
}

fn ends_with(parts: &[String], pattern: &[&str]) -> bool {
    parts.len() >= pattern.len() && starts_with(&parts[parts.len() - pattern.len()..], pattern)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookhost_sdk::serde_json::json;

    fn shell(cmd: &str) -> Option<String> {
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
            ("apply_patch", json!({"input": "*** Begin Patch\n*** Update File: .claude/settings.local.json\n@@\n-a\n+b\n*** End Patch"})),
            ("apply_patch", json!("*** Begin Patch\n*** Delete File: hooks.lock\n*** End Patch")),
        ] {
            assert!(check_call(tool, &args, cwd).is_some(), "{tool} {args}");
        }
    }

    #[test]
    fn shell_writes_moves_and_deletes_are_refused() {
        for cmd in [
            "sed -i 's/deny/allow/' .hookhost/hooks.toml",
            "sed -i.bak -e 's/x/y/' ~/.claude/settings.json",
            "echo '{}' > .claude/settings.json",
            "cat x >> .codex/hooks.json",
            "printf '{}' | tee .gemini/settings.json",
            "jq '.hooks={}' a.json | sudo tee /etc/claude-code/managed-settings.json",
            "mv .github/hooks /tmp/off",
            "rm -rf .hookhost",
            "rm -f ~/.config/hookhost/hooks.toml",
            "rm -rf .claude",
            "cp /tmp/empty.json .claude/settings.json",
            "chmod 000 .hookhost/hooks.toml",
            "git checkout -- .claude/settings.json",
            "git restore .hookhost",
            "perl -pi -e 's/a/b/' .codex/config.toml",
            "cd /tmp && rm -rf ~/.cache/hookhost",
            "bash -c 'rm .hookhost/hooks.toml'",
            "truncate -s 0 /var/log/hookhost/audit.jsonl",
            "rm ~/.local/state/hookhost/serve.token",
            "pkill -f 'hookhost serve'",
            "killall hookhost",
            "kill $(pgrep -f hookhost)",
            "systemctl --user stop hookhost.service",
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: .github/hooks/off.json\n+{}\n*** End Patch\nEOF",
        ] {
            assert!(shell(cmd).is_some(), "{cmd}");
        }
        assert_eq!(
            shell("sed -i 's/deny/allow/' .hookhost/hooks.toml").unwrap(),
            "sed would change .hookhost/hooks.toml (hook configuration; read it freely, but change hooks yourself, outside the agent)"
        );
        assert!(check_call("Bash", &json!({"command": ["rm", "-rf", ".hookhost"]}), None).is_some(), "an argv");
        assert!(check_call("exec", &json!({"command": "rm settings.json"}), Some("/p/.claude")).is_some(), "relative to the cwd");
    }

    #[test]
    fn reading_and_unrelated_work_stay_allowed() {
        for cmd in [
            "cat .claude/settings.json",
            "jq . .hookhost/hooks.toml",
            "grep -r deny .github/hooks",
            "cp .claude/settings.json /tmp/backup.json",
            "git diff .codex/hooks.json",
            "git log -p .hookhost",
            "hookhost check --config .hookhost/hooks.toml",
            "ls ~/.config/hookhost",
            "echo settings > notes.txt",
            "rm -rf target",
            "sed -i 's/a/b/' src/settings.rs",
            "kill 1234",
            "pgrep hookhost",
            "systemctl status hookhost",
            "mkdir -p .github/workflows && echo x > .github/workflows/ci.yml",
            "echo x > ~/.config/other/app.toml",
        ] {
            assert_eq!(shell(cmd), None, "{cmd}");
        }
        for (tool, args) in [
            ("Read", json!({"file_path": ".claude/settings.json"})),
            ("view", json!({"path": ".github/hooks/policy.json"})),
            ("read_file", json!({"file_path": ".gemini/settings.json"})),
            ("Write", json!({"file_path": "src/main.rs", "content": ""})),
            ("Edit", json!({"file_path": "/home/u/project/.claude/commands/x.md"})),
        ] {
            assert_eq!(check_call(tool, &args, Some("/home/u/project")), None, "{tool} {args}");
        }
    }

    #[test]
    fn paths_resolve_before_they_are_compared() {
        assert!(protected("/tmp/../home/u/.hookhost/hooks.toml", None, false).is_some());
        assert!(protected("./.claude/./settings.json", Some("/p"), false).is_some());
        assert!(protected(".claude/settings*", Some("/p"), false).is_some(), "a glob that can name it");
        assert!(protected("$HOME/.config/hookhost", None, true).is_some());
        assert!(protected("/etc", None, true).is_none(), "the core guard's business, not a hook file");
        assert!(protected("/etc/hookhost", None, true).is_some());
        assert!(protected(".github", Some("/p"), true).is_some(), "holds .github/hooks");
        assert!(protected(".github", Some("/p"), false).is_none(), "written into, not over");
    }
}
