//! `guard-destructive`: blocks shell commands that destroy data or systems irreversibly.
//!
//! Checks every command of a shell line (split on `;`, `&&`, `||`, `|`, `&` and newlines, and
//! inside `bash -c '...'`): recursive forced `rm` of `/`, `~`, `$HOME`, `*` or a top-level system
//! directory (`--no-preserve-root` always), `mkfs*`, `dd of=/dev/...`, fork bombs, recursive
//! world-writable `chmod` or `chown` of a system root, and `git reset --hard` onto a remote branch.
//!
//! Settings (all optional): `strict_rm` (bool, block every `rm -rf`, as seed 000's guard_rm does)
//! and `user_message` (string, what the human is told).
//!
//! No regex: the scan is a small hand-written lexer, so a fresh instance costs nothing to start.

use hookhost_sdk::prelude::*;

mod shell;

/// Why a command is destructive, or `None`.
pub fn check(command: &str, strict_rm: bool) -> Option<String> {
    if shell::has_fork_bomb(command) {
        return Some("fork bomb".into());
    }
    for words in shell::commands(command) {
        if let Some(why) = check_words(&words, strict_rm) {
            return Some(why);
        }
    }
    None
}

const SYSTEM_DIRS: &[&str] = &[
    "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/opt", "/proc", "/root", "/sbin", "/srv", "/sys", "/usr", "/var",
];

fn is_root_like(target: &str) -> bool {
    let t = target.trim_end_matches('/');
    let t = t.strip_suffix("/*").unwrap_or(t);
    matches!(t, "" | "/" | "~" | "$HOME" | "${HOME}" | "*" | "/*" | "." | "..") || SYSTEM_DIRS.contains(&t)
}

fn check_words(words: &[String], strict_rm: bool) -> Option<String> {
    // Skip wrappers that run the rest of the line as a command.
    let mut i = 0;
    while i < words.len() && matches!(words[i].as_str(), "{" | "sudo" | "doas" | "env" | "nohup" | "time" | "command" | "exec" | "nice") {
        i += 1;
    }
    let words = &words[i..];
    let (prog, args) = words.split_first()?;
    let prog = prog.rsplit('/').next().unwrap_or(prog);
    match prog {
        "bash" | "sh" | "zsh" | "dash" => {
            let pos = args.iter().position(|a| a == "-c")?;
            check(args.get(pos + 1)?, strict_rm)
        }
        "rm" => {
            let (mut recursive, mut force) = (false, false);
            let mut targets = Vec::new();
            for a in args {
                match a.as_str() {
                    "--recursive" => recursive = true,
                    "--force" => force = true,
                    "--no-preserve-root" => return Some("rm --no-preserve-root".into()),
                    flag if flag.starts_with('-') && !flag.starts_with("--") => {
                        recursive |= flag.contains('r') || flag.contains('R');
                        force |= flag.contains('f');
                    }
                    target => targets.push(target),
                }
            }
            if !recursive {
                return None;
            }
            if let Some(t) = targets.iter().find(|t| is_root_like(t)) {
                return Some(format!("recursive delete of {t}"));
            }
            (strict_rm && force).then(|| "rm -rf is not allowed".into())
        }
        p if p == "mkfs" || p.starts_with("mkfs.") => Some(format!("{p} formats a filesystem")),
        "dd" => args
            .iter()
            .find_map(|a| a.strip_prefix("of=").filter(|dev| dev.starts_with("/dev/") && !matches!(*dev, "/dev/null" | "/dev/zero" | "/dev/stdout" | "/dev/stderr")))
            .map(|dev| format!("dd writes to the device {dev}")),
        "chmod" | "chown" => {
            let recursive = args.iter().any(|a| a == "-R" || a == "--recursive" || (a.starts_with('-') && !a.starts_with("--") && a.contains('R')));
            let wide_open = prog == "chown" || args.iter().any(|a| a == "777" || a == "a+rwx" || a == "ugo+rwx" || a == "0777");
            let target = args.iter().filter(|a| !a.starts_with('-')).skip(1).find(|t| is_root_like(t));
            match (recursive && wide_open, target) {
                (true, Some(t)) => Some(format!("recursive {prog} of {t}")),
                _ => None,
            }
        }
        "git" => {
            let pos = args.iter().position(|a| a == "reset")?;
            let rest = &args[pos + 1..];
            let hard = rest.iter().any(|a| a == "--hard");
            let onto_remote = rest.iter().any(|a| a.starts_with("origin/") || a.starts_with("upstream/") || a.contains("@{u") || a.contains("@{upstream"));
            (hard && onto_remote).then(|| "git reset --hard onto a remote branch discards local work".into())
        }
        _ => None,
    }
}

#[derive(Default)]
struct Settings {
    strict_rm: bool,
    user_message: Option<String>,
}

fn settings(v: &Value) -> Result<Settings, String> {
    let obj = v.as_object().ok_or("settings must be an object")?;
    let mut s = Settings::default();
    for (key, value) in obj {
        match key.as_str() {
            "strict_rm" => s.strict_rm = value.as_bool().ok_or("settings.strict_rm must be true or false")?,
            "user_message" => s.user_message = Some(value.as_str().ok_or("settings.user_message must be a string")?.to_string()),
            other => return Err(format!("unknown setting {other:?}; known settings are strict_rm, user_message")),
        }
    }
    Ok(s)
}

pub struct Guard;

impl Hook for Guard {
    fn validate_settings(v: &Value) -> Result<(), String> {
        settings(v).map(|_| ())
    }

    fn handle(event: Event, ctx: Context) -> HookResult {
        let s = settings(&ctx.settings)?;
        let Some(why) = event.shell_command().and_then(|cmd| check(cmd, s.strict_rm)) else {
            return Ok(Decision::pass());
        };
        let message = s.user_message.unwrap_or_else(|| "That command is blocked by policy.".into());
        Ok(Decision::block(format!("destructive command blocked: {why}")).with_user_message(message))
    }
}

export_hook!(Guard);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destructive_commands_are_blocked() {
        for cmd in [
            "rm -rf /",
            "rm -rf / --no-preserve-root",
            "sudo rm -fr /*",
            "rm -r -f ~",
            "rm -Rf $HOME",
            "cd /tmp && rm -rf /etc",
            "echo hi; rm --recursive --force /usr/",
            "bash -c 'rm -rf /'",
            "mkfs.ext4 /dev/sda1",
            "mkfs -t ext4 /dev/sdb",
            "dd if=/dev/zero of=/dev/sda bs=1M",
            ":(){ :|:& };:",
            "bomb(){ bomb|bomb& };bomb",
            "chmod -R 777 /",
            "sudo chown -R nobody /",
            "git reset --hard origin/main",
            "git fetch && git reset --hard @{upstream}",
        ] {
            assert!(check(cmd, false).is_some(), "should block: {cmd}");
        }
    }

    #[test]
    fn ordinary_commands_pass() {
        for cmd in [
            "ls -la",
            "rm -rf target",
            "rm -rf ./build",
            "rm file.txt",
            "echo 'rm -rf /'",
            "dd if=/dev/zero of=disk.img bs=1M count=1",
            "dd if=x of=/dev/null",
            "chmod 777 script.sh",
            "chmod -R 755 ./dist",
            "git reset --hard HEAD~1",
            "git reset origin/main",
            "grep mkfs notes.txt",
        ] {
            assert_eq!(check(cmd, false), None, "should pass: {cmd}");
        }
    }

    #[test]
    fn strict_rm_blocks_every_forced_recursive_rm() {
        assert_eq!(check("rm -rf target", true).as_deref(), Some("rm -rf is not allowed"));
        assert_eq!(check("rm -r target", true), None);
    }

    #[test]
    fn hook_blocks_with_reason_and_user_message() {
        let d = Guard::handle(Event::pre_tool_use("bash", json!({"command": "rm -rf /"})), Context::default()).unwrap();
        assert_eq!(d.block_reason(), Some("destructive command blocked: recursive delete of /"));
        assert_eq!(d, Decision::block("destructive command blocked: recursive delete of /").with_user_message("That command is blocked by policy."));
        let ok = Guard::handle(Event::pre_tool_use("bash", json!({"cmd": "ls -la"})), Context::default()).unwrap();
        assert_eq!(ok, Decision::pass());
    }

    #[test]
    fn settings_are_checked() {
        assert!(Guard::validate_settings(&json!({"strict_rm": true, "user_message": "no"})).is_ok());
        assert_eq!(Guard::validate_settings(&json!({"strict": true})).unwrap_err(), "unknown setting \"strict\"; known settings are strict_rm, user_message");
        assert_eq!(Guard::validate_settings(&json!({"strict_rm": "yes"})).unwrap_err(), "settings.strict_rm must be true or false");
    }
}
