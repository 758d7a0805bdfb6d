//! `guard-destructive`: blocks shell commands that destroy data or systems irreversibly.
//!
//! The command is read with a real shell parser (bashkit's): every simple command of the line
//! is checked — in lists, pipelines, subshells, loops, conditionals, function bodies and
//! command substitutions, after `VAR=value` prefixes and redirections are set apart and
//! unquoted braces expanded. Wrappers that run another command are unwrapped (`sudo`, `doas`,
//! `env`, `timeout`, `nice`, `nohup`, `time`, `command`, `exec`, `stdbuf`, `ionice`, `setsid`,
//! `busybox`, `xargs`), and `sh -c` / `bash -c` strings and `eval` arguments are parsed in turn.
//!
//! Blocked: recursive `rm` of `/`, `~`, `$HOME`, `*`, `.`, `..` or a top-level system directory
//! (`--no-preserve-root` always); recursive `rm` whose targets come from input (`xargs rm -rf`);
//! `find` deleting (`-delete`, `-exec rm`) from such a root with no filter; `mkfs*`; `dd` onto
//! a device; fork bombs; recursive world-writable `chmod` or `chown` of a system root;
//! `git reset --hard` onto a remote branch. A line the parser refuses is blocked when it names
//! one of these programs.
//!
//! Not caught (by design, see docs/CONFIG.md): commands assembled at run time (`$cmd`,
//! `$(echo rm) -rf /`), scripts the command runs (`./cleanup.sh`), aliases and functions
//! defined elsewhere, and other interpreters (`python -c "shutil.rmtree(...)"`).
//!
//! Self-protection ([`protect`], on unless `protect_hooks = false`): a tool call that would
//! change, move or remove hook configuration (Claude Code's, Codex's, Gemini CLI's, Copilot
//! CLI's, hookhost's own layers and state) or stop hookhost is blocked; reading it is not.
//!
//! Settings (all optional): `strict_rm` (bool, block every `rm -rf`, as seed 000's guard_rm does),
//! `protect_hooks` (bool, default true) and `user_message` (string, what the human is told).

#![deny(missing_docs)]

use hookhost_sdk::prelude::*;
use hookhost_sdk::serde_json;

use hookhost_shell_parse as shell;

pub mod protect;

/// How deep `sh -c`, `eval` and wrappers may nest before the guard gives up and blocks.
const MAX_NESTING: usize = 8;

/// Programs whose mere mention in a line the parser refuses is enough to block it.
const DANGEROUS: &[&str] = &["rm", "mkfs", "dd", "find", "chmod", "chown", "shred", "xargs"];

/// Why a command line is destructive, or `None`.
pub fn check(command: &str, strict_rm: bool) -> Option<String> {
    check_script(command, strict_rm, 0)
}

/// Every program name the guard acts on, wrappers that run a string, and fork bombs' `(`.
const NEEDLES: &[&str] = &["rm", "mkfs", "dd", "find", "chmod", "chown", "shred", "xargs", "git", "eval", "sh", "env", "exec"];

/// A line that cannot run anything the guard blocks, decided without parsing (the parse is most
/// of the guard's cost): none of the program names it acts on appears, and nothing that could
/// assemble one at parse time does — quotes, escapes, expansions, braces, parentheses.
fn obviously_harmless(script: &str) -> bool {
    !script.contains(['\'', '"', '\\', '$', '`', '{', '}', '(', ')']) && !mentions_any(script.as_bytes(), NEEDLES)
}

/// Whether any of `needles` occurs in `script`, in one pass: `str::contains` per needle set up
/// a two-way searcher for each of them on every call, ~5% of a fresh instance's decision.
fn mentions_any(script: &[u8], needles: &[&str]) -> bool {
    (0..script.len()).any(|i| needles.iter().any(|n| script[i..].starts_with(n.as_bytes())))
}

fn check_script(script: &str, strict_rm: bool, depth: usize) -> Option<String> {
    if depth > MAX_NESTING {
        return Some("commands nested too deep to check".into());
    }
    if obviously_harmless(script) {
        return None;
    }
    if shell::has_fork_bomb(script) {
        return Some("fork bomb".into());
    }
    match shell::commands(script) {
        Ok(commands) => commands.iter().find_map(|words| check_words(words, strict_rm, depth)),
        Err(_) => unparseable(script),
    }
}

/// A line the parser refuses: blocked when any word of it names a dangerous program.
fn unparseable(script: &str) -> Option<String> {
    let named = script
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '`' | '$' | '{' | '}' | '"' | '\''))
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .find(|w| DANGEROUS.contains(w) || w.starts_with("mkfs."))?;
    Some(format!("the command could not be parsed and runs {named}; blocked to be safe"))
}

/// Check an argv (a tool call's `command` given as a list).
pub fn check_argv(argv: &[String], strict_rm: bool) -> Option<String> {
    check_words(argv, strict_rm, 0)
}

const SYSTEM_DIRS: &[&str] = &[
    "/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib64", "/opt", "/proc", "/root", "/sbin", "/srv", "/sys", "/usr", "/var",
];

fn is_root_like(target: &str) -> bool {
    let t = target.trim_end_matches('/');
    let t = t.strip_suffix("/*").unwrap_or(t);
    matches!(t, "" | "/" | "~" | "$HOME" | "${HOME}" | "*" | "/*" | "." | "..") || SYSTEM_DIRS.contains(&t)
}

fn check_words(words: &[String], strict_rm: bool, depth: usize) -> Option<String> {
    check_command(words, strict_rm, depth, false)
}

/// `from_input`: the command's arguments are extended with words read from input (`xargs`).
fn check_command(words: &[String], strict_rm: bool, depth: usize, from_input: bool) -> Option<String> {
    if depth > MAX_NESTING {
        return Some("commands nested too deep to check".into());
    }
    let (prog, args) = words.split_first()?;
    let prog = shell::program(prog);
    // Wrappers and shells given a string: what they run is checked (the same table the host's
    // `if` rules unwrap with).
    match shell::runs(prog, args) {
        Some(shell::Runs::Argv(inner)) => return check_command(inner, strict_rm, depth + 1, from_input || prog == "xargs"),
        Some(shell::Runs::Script(text)) => return check_script(&text, strict_rm, depth + 1),
        None => {}
    }
    match prog {
        "rm" => {
            let (mut recursive, mut force, mut options_done) = (false, false, false);
            let mut targets = Vec::new();
            for a in args {
                match a.as_str() {
                    "--" if !options_done => options_done = true,
                    "--recursive" if !options_done => recursive = true,
                    "--force" if !options_done => force = true,
                    "--no-preserve-root" if !options_done => return Some("rm --no-preserve-root".into()),
                    flag if !options_done && flag.starts_with('-') && !flag.starts_with("--") && flag.len() > 1 => {
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
            if from_input {
                return Some("recursive delete of paths read from input (xargs rm -r)".into());
            }
            (strict_rm && force).then(|| "rm -rf is not allowed".into())
        }
        "find" => {
            let starts: Vec<&String> = args.iter().take_while(|a| !a.starts_with('-') && !matches!(a.as_str(), "(" | "!" | ",")).collect();
            let deletes = args.iter().any(|a| a == "-delete")
                || args.windows(2).any(|w| matches!(w[0].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") && w[1].rsplit('/').next() == Some("rm"));
            let filtered = args.iter().any(|a| {
                matches!(a.as_str(), "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename" | "-regex" | "-iregex" | "-newer" | "-mtime" | "-mmin" | "-atime" | "-amin" | "-ctime" | "-cmin" | "-size" | "-user" | "-group" | "-empty")
            });
            let root = starts.iter().find(|s| is_root_like(s) && !matches!(s.as_str(), "." | ".." | "./"));
            match (deletes && !filtered, root) {
                (true, Some(r)) => Some(format!("find deletes everything under {r}")),
                _ => None,
            }
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

/// What a tool call asks the shell to run: `command` / `cmd` / `commands` / `script` as a
/// string (a script) or a list of strings (an argv). Arguments that arrive as a JSON string
/// are decoded first.
enum Shell<'a> {
    Script(&'a str),
    Argv(Vec<String>),
}

fn shell_of(arguments: &Value) -> Vec<Shell<'_>> {
    let mut out = Vec::new();
    for key in ["command", "cmd", "commands", "script"] {
        match arguments.get(key) {
            Some(Value::String(s)) => out.push(Shell::Script(s)),
            Some(Value::Array(items)) if items.iter().all(Value::is_string) => out.push(Shell::Argv(items.iter().filter_map(Value::as_str).map(str::to_string).collect())),
            Some(Value::Array(items)) => out.extend(items.iter().filter_map(Value::as_str).map(Shell::Script)),
            _ => {}
        }
    }
    out
}

/// Why this tool call is destructive, or `None`.
fn check_call(arguments: &Value, strict_rm: bool) -> Option<String> {
    if let Value::String(text) = arguments {
        // Arguments sent as JSON text; anything else is the script itself.
        return match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Object(_)) => check_call(&v, strict_rm),
            _ => check(text, strict_rm),
        };
    }
    shell_of(arguments).into_iter().find_map(|s| match s {
        Shell::Script(text) => check(text, strict_rm),
        Shell::Argv(argv) => check_argv(&argv, strict_rm),
    })
}

struct Settings {
    strict_rm: bool,
    protect_hooks: bool,
    user_message: Option<String>,
}

fn settings(v: &Value) -> Result<Settings, String> {
    let obj = v.as_object().ok_or("settings must be an object")?;
    let mut s = Settings { strict_rm: false, protect_hooks: true, user_message: None };
    for (key, value) in obj {
        match key.as_str() {
            "strict_rm" => s.strict_rm = value.as_bool().ok_or("settings.strict_rm must be true or false")?,
            "protect_hooks" => s.protect_hooks = value.as_bool().ok_or("settings.protect_hooks must be true or false")?,
            "user_message" => s.user_message = Some(value.as_str().ok_or("settings.user_message must be a string")?.to_string()),
            other => return Err(format!("unknown setting {other:?}; known settings are strict_rm, protect_hooks, user_message")),
        }
    }
    Ok(s)
}

/// The guard hook: blocks destructive shell commands (see the module docs).
pub struct Guard;

impl Hook for Guard {
    fn validate_settings(v: &Value) -> Result<(), String> {
        settings(v).map(|_| ())
    }

    fn handle(event: Event, ctx: Context) -> HookResult {
        let s = settings(&ctx.settings)?;
        let call = match &event {
            Event::PreToolUse(call) | Event::PermissionRequest(call) => call,
            _ => return Ok(Decision::pass()),
        };
        if let Some(why) = Some(call).filter(|_| s.protect_hooks).and_then(|c| protect::check_call(&c.name, &c.arguments, ctx.cwd.as_deref())) {
            let message = s.user_message.unwrap_or_else(|| "The agent may not change or stop its own hooks; change them yourself if you mean to.".into());
            return Ok(Decision::block(format!("hook configuration is protected: {why}")).with_user_message(message));
        }
        let arguments = &call.arguments;
        let Some(why) = check_call(arguments, s.strict_rm) else {
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

    /// The guard's table: (command, the reason it is blocked, or None for a pass). Destructive
    /// commands, the evasions of issue #12, and harmless look-alikes.
    const TABLE: &[(&str, Option<&str>)] = &[
        // Plain destructive commands.
        ("rm -rf /", Some("recursive delete of /")),
        ("rm -rf / --no-preserve-root", Some("rm --no-preserve-root")),
        ("sudo rm -fr /*", Some("recursive delete of /*")),
        ("rm -r -f ~", Some("recursive delete of ~")),
        ("rm -Rf $HOME", Some("recursive delete of $HOME")),
        ("rm -rf \"$HOME\"", Some("recursive delete of $HOME")),
        ("rm -rf ${HOME}/", Some("recursive delete of $HOME/")),
        ("cd /tmp && rm -rf /etc", Some("recursive delete of /etc")),
        ("echo hi; rm --recursive --force /usr/", Some("recursive delete of /usr/")),
        ("rm -rf -- /", Some("recursive delete of /")),
        ("rm -rf .", Some("recursive delete of .")),
        ("rm -rf *", Some("recursive delete of *")),
        ("mkfs.ext4 /dev/sda1", Some("mkfs.ext4 formats a filesystem")),
        ("mkfs -t ext4 /dev/sdb", Some("mkfs formats a filesystem")),
        ("dd if=/dev/zero of=/dev/sda bs=1M", Some("dd writes to the device /dev/sda")),
        (":(){ :|:& };:", Some("fork bomb")),
        ("bomb(){ bomb|bomb& };bomb", Some("fork bomb")),
        ("chmod -R 777 /", Some("recursive chmod of /")),
        ("sudo chown -R nobody /", Some("recursive chown of /")),
        ("git reset --hard origin/main", Some("git reset --hard onto a remote branch discards local work")),
        ("git fetch && git reset --hard @{upstream}", Some("git reset --hard onto a remote branch discards local work")),
        // Evasions: redirections, wrappers, braces, find, xargs, nesting.
        ("rm -rf ~>/dev/null", Some("recursive delete of ~")),
        ("rm -rf ~ 2>&1 >/dev/null", Some("recursive delete of ~")),
        ("sudo -u root rm -rf /etc", Some("recursive delete of /etc")),
        ("sudo --user=root -E rm -rf /etc", Some("recursive delete of /etc")),
        ("doas -u root rm -rf /", Some("recursive delete of /")),
        ("timeout 9 rm -rf ~", Some("recursive delete of ~")),
        ("timeout -s KILL 9 rm -rf ~", Some("recursive delete of ~")),
        ("env -i rm -rf ~", Some("recursive delete of ~")),
        ("env FOO=1 BAR=2 rm -rf ~", Some("recursive delete of ~")),
        ("env -S 'rm -rf ~'", Some("recursive delete of ~")),
        ("FOO=1 rm -rf /", Some("recursive delete of /")),
        ("nice -n 10 rm -rf /", Some("recursive delete of /")),
        ("nohup rm -rf / &", Some("recursive delete of /")),
        ("time rm -rf ~", Some("recursive delete of ~")),
        ("command rm -rf ~", Some("recursive delete of ~")),
        ("exec rm -rf ~", Some("recursive delete of ~")),
        ("stdbuf -oL rm -rf ~", Some("recursive delete of ~")),
        ("ionice -c 3 rm -rf ~", Some("recursive delete of ~")),
        ("setsid rm -rf ~", Some("recursive delete of ~")),
        ("busybox rm -rf /", Some("recursive delete of /")),
        ("/bin/rm -rf /", Some("recursive delete of /")),
        ("sudo timeout 5 env -i nice rm -rf /", Some("recursive delete of /")),
        ("rm -rf {~,/tmp/x}", Some("recursive delete of ~")),
        ("rm -rf /tmp/{a,b} /{etc,x}", Some("recursive delete of /etc")),
        ("find ~ -delete", Some("find deletes everything under ~")),
        ("find / -exec rm -rf {} +", Some("find deletes everything under /")),
        ("xargs rm -rf < list", Some("recursive delete of paths read from input (xargs rm -r)")),
        ("cat list | xargs -0 -n 1 rm -rf", Some("recursive delete of paths read from input (xargs rm -r)")),
        ("bash -c 'rm -rf /'", Some("recursive delete of /")),
        ("sh -lc \"cd / && rm -rf ~\"", Some("recursive delete of ~")),
        ("bash -c \"bash -c 'rm -rf /'\"", Some("recursive delete of /")),
        ("eval rm -rf /", Some("recursive delete of /")),
        ("eval 'rm -rf ~'", Some("recursive delete of ~")),
        ("ls; rm -rf ~", Some("recursive delete of ~")),
        ("  rm -rf ~", Some("recursive delete of ~")),
        ("true || rm -rf ~", Some("recursive delete of ~")),
        ("echo $(rm -rf ~)", Some("recursive delete of ~")),
        ("echo `rm -rf ~`", Some("recursive delete of ~")),
        ("(rm -rf ~)", Some("recursive delete of ~")),
        ("{ rm -rf ~; }", Some("recursive delete of ~")),
        ("if true; then rm -rf ~; fi", Some("recursive delete of ~")),
        ("for d in a b; do rm -rf /; done", Some("recursive delete of /")),
        ("while true; do rm -rf ~; done", Some("recursive delete of ~")),
        ("cleanup() { rm -rf ~; }; cleanup", Some("recursive delete of ~")),
        ("diff <(rm -rf ~) x", Some("recursive delete of ~")),
        ("echo [REDACTED PRIVATE KEY]; rm -rf ~; #'", Some("recursive delete of ~")),
        ("rm -rf ~ 'unterminated", Some("the command could not be parsed and runs rm; blocked to be safe")),
        // Harmless look-alikes.
        ("ls -la", None),
        ("rm -rf target", None),
        ("rm -rf ./build", None),
        ("rm -rf ~/project/build", None),
        ("rm file.txt", None),
        ("rm -f /tmp/x.lock", None),
        ("rm -r ~/.cache/pip/{a,b}", None),
        ("echo 'rm -rf /'", None),
        ("echo \"rm -rf /\"", None),
        ("echo rm -rf /", None),
        ("grep -r 'rm -rf ~' .", None),
        ("git commit -m 'rm -rf / was a bad idea'", None),
        ("echo -----BEGIN PRIVATE KEY----- '-----END K-----; rm -rf ~; #'", None),
        ("echo [REDACTED PRIVATE KEY] '-----END K-----; rm -rf ~; #'", None),
        ("dd if=/dev/zero of=disk.img bs=1M count=1", None),
        ("dd if=x of=/dev/null", None),
        ("chmod 777 script.sh", None),
        ("chmod -R 755 ./dist", None),
        ("git reset --hard HEAD~1", None),
        ("git reset origin/main", None),
        ("grep mkfs notes.txt", None),
        ("find . -name '*.o' -delete", None),
        ("find ~ -name '*.pyc' -delete", None),
        ("find / -name core", None),
        ("find . -type f | xargs rm -f", None),
        ("xargs -n1 echo < list", None),
        ("command -v rm", None),
        ("sudo apt-get install -y jq", None),
        ("timeout 5 cargo test", None),
        ("env -i PATH=/usr/bin ls", None),
        ("bash -c 'echo hi'", None),
        ("sh script.sh", None),
        ("echo 'unterminated", None),
        // Names assembled from pieces are read as bash would read them.
        ("r''m -rf /", Some("recursive delete of /")),
        ("\\rm -rf /", Some("recursive delete of /")),
        ("r{m,} -rf ~", Some("recursive delete of ~")),
        ("cargo test --workspace", None),
        ("npm run build && ls dist", None),
    ];

    #[test]
    fn the_table() {
        assert!(TABLE.len() >= 60);
        let mut wrong = Vec::new();
        for (cmd, want) in TABLE {
            let got = check(cmd, false);
            if got.as_deref() != *want {
                wrong.push(format!("{cmd:?}: got {got:?}, want {want:?}"));
            }
        }
        assert!(wrong.is_empty(), "{} of {} wrong:\n{}", wrong.len(), TABLE.len(), wrong.join("\n"));
    }

    #[test]
    fn commands_as_argv_or_json_text_are_checked() {
        let block = |args: Value| Guard::handle(Event::pre_tool_use("bash", args), Context::default()).unwrap();
        assert_eq!(block(json!({"command": ["rm", "-rf", "/"]})).block_reason(), Some("destructive command blocked: recursive delete of /"));
        assert_eq!(block(json!({"command": ["bash", "-c", "rm -rf ~"]})).block_reason(), Some("destructive command blocked: recursive delete of ~"));
        assert_eq!(block(json!("{\"command\": \"rm -rf /\"}")).block_reason(), Some("destructive command blocked: recursive delete of /"));
        assert_eq!(block(json!({"script": "mkfs.ext4 /dev/sda"})).block_reason(), Some("destructive command blocked: mkfs.ext4 formats a filesystem"));
        assert_eq!(block(json!({"command": ["ls", "-la", "/"]})), Decision::pass());
        assert_eq!(block(json!("{\"command\": \"ls\"}")), Decision::pass());
    }

    #[test]
    fn the_one_pass_needle_scan_agrees_with_contains() {
        let samples = ["", "ls -la", "r", "rm", "xrmx", "formatted", "git status", "cat notes.txt", "mkdi", "e", "exe", "exec ls", "pwd; shre", "shred f"];
        for s in samples {
            assert_eq!(mentions_any(s.as_bytes(), NEEDLES), NEEDLES.iter().any(|n| s.contains(n)), "{s:?}");
        }
        for n in NEEDLES {
            assert!(mentions_any(format!("ls {n}").as_bytes(), NEEDLES) && mentions_any(n.as_bytes(), NEEDLES), "{n}");
            assert!(!mentions_any(&n.as_bytes()[..n.len() - 1], NEEDLES) || NEEDLES.iter().any(|m| n[..n.len() - 1].contains(m)), "{n}: a prefix is not a match");
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
        assert_eq!(Guard::validate_settings(&json!({"strict": true})).unwrap_err(), "unknown setting \"strict\"; known settings are strict_rm, protect_hooks, user_message");
        assert_eq!(Guard::validate_settings(&json!({"strict_rm": "yes"})).unwrap_err(), "settings.strict_rm must be true or false");
    }
}
