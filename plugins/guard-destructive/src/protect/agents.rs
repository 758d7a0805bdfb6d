//! Stopping hookhost and starting an agent with its hooks off: `kill` / `pkill` patterns, service
//! managers and package managers, agent CLIs given options or variables that move their hooks.

use super::*;

/// Agent CLIs: started with hooks off or configured elsewhere, they run without the guard.
pub(super) static AGENTS: &[&str] = &[
    "claude", "claude-code", "codex", "gemini", "gemini-cli", "copilot", "opencode", "opencode-ai", "cursor-agent", "docker-agent", "cagent", "agy", "starchild", "qwen", "aider", "goose", "amp", "crush", "droid", "hookhost", "hookhost-send",
];

/// Variables that move or switch off an agent's or hookhost's configuration wherever they are
/// set; [`AGENT_VARS`] only when an agent starts with them.
pub(super) fn always_protected_var(name: &str) -> bool {
    (name.starts_with("HOOKHOST_") && !matches!(name, "HOOKHOST_LOG" | "HOOKHOST_REGISTRY")) || matches!(name, "CLAUDE_CONFIG_DIR" | "CODEX_HOME" | "COPILOT_HOME" | "GEMINI_CLI_HOME" | "GEMINI_CLI_SYSTEM_SETTINGS_PATH" | "CLAUDE_CODE_MANAGED_SETTINGS_PATH" | "OPENCODE_CONFIG" | "OPENCODE_CONFIG_DIR" | "QWEN_CODE_SYSTEM_SETTINGS_PATH" | "QWEN_CODE_TRUSTED_FOLDERS_PATH" | "DOCKER_AGENT_CONFIG_DIR" | "CAGENT_CONFIG_DIR")
}

pub(super) static AGENT_VARS: &[&str] = &["XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "HOME", "USERPROFILE", "APPDATA"];

/// `NAME=value` set on the line: a variable that moves or switches off hook configuration.
/// `exported`: by `export` / `declare -x` / `env`, for every later command.
pub(super) fn assignment(a: &str, line: &Line, exported: bool) -> Option<Finding> {
    let (name, _) = a.split_once('=')?;
    let name = name.trim_start_matches("export ").trim();
    let moves = always_protected_var(name) || (AGENT_VARS.contains(&name) && (line.agent_starts || exported));
    moves.then(|| NESTED_AGENT.finding_for(format!("{name} set on the line moves hook configuration away from the agent's own")))
}

/// An agent CLI started with an option about hooks, or hooks' locations moved for it.
pub(super) fn nested_agent(prog: &str, args: &[String], line: &Line) -> Option<Finding> {
    if matches!(prog, "export" | "declare" | "typeset" | "setenv" | "set" | "env" | "launchctl") {
        let exported = prog != "env";
        return args.iter().filter(|a| a.contains('=')).find_map(|a| assignment(a, line, exported));
    }
    if !AGENTS.contains(&prog) || prog.starts_with("hookhost") {
        return None;
    }
    let hooks = |a: &str| a.to_ascii_lowercase().contains("hook");
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        if !a.starts_with('-') {
            continue;
        }
        let (name, inline) = a.split_once('=').map_or((a.as_str(), None), |(n, v)| (n, Some(v)));
        let value = inline.or_else(|| it.peek().map(|v| v.as_str())).unwrap_or("");
        let about_hooks = hooks(name) || matches!(name, "--setting-sources" | "--bare") || (matches!(name, "--settings" | "-c" | "--config" | "--profile" | "--mcp-config") && hooks(value));
        if about_hooks {
            return Some(NESTED_AGENT.finding_for(format!("{prog} {a} starts an agent with its hooks changed")));
        }
    }
    None
}

/// Whether a command (not a kill) finds hookhost's process or file: `pgrep hookhost`,
/// `pidof hookh`, `which hookhost`, `ps aux | grep hook.*serve`.
pub(super) fn finds_hookhost(words: &[String]) -> bool {
    let Some((prog, args)) = words.split_first() else { return false };
    let prog = program(prog);
    matches!(prog.as_str(), "pgrep" | "pidof" | "ps" | "grep" | "egrep" | "rg" | "lsof" | "fuser" | "which" | "whereis" | "type" | "command" | "readlink" | "realpath" | "awk" | "get-process" | "tasklist" | "pstree" | "systemctl" | "launchctl" | "find" | "locate")
        && args.iter().any(|a| !a.starts_with('-') && matches_hookhost(a))
}

/// Whether a process pattern (pkill's and pgrep's extended regular expression, unanchored) or a
/// name would match hookhost's processes (`hookhost serve`, `hookhost-send`, a path to them).
pub(super) fn matches_hookhost(pattern: &str) -> bool {
    let p = pattern.to_ascii_lowercase();
    if p.contains("hookhost") {
        return true;
    }
    ["hookhost serve", "hookhost-send", "/usr/local/bin/hookhost run", "hookhost.exe"].iter().any(|target| regex_lite::search(&p, target))
}

/// Why this command would stop hookhost, or `None`.
pub(super) fn stops_hookhost(prog: &str, args: &[String], line: &Line) -> Option<Finding> {
    let stop = |how: String| Some(STOP.finding_for(how));
    let operands: Vec<&str> = args.iter().map(String::as_str).filter(|a| !a.starts_with('-')).collect();
    match prog {
        "pkill" | "killall" | "skill" | "stop-process" | "taskkill" | "slay" => {
            // pkill(1)'s pattern is an unanchored regular expression; with no pattern (`-u me`)
            // every process of the user matches.
            let values = ["-u", "-U", "-g", "-G", "-P", "-s", "-t", "--signal", "-F", "-n", "-o"];
            let mut patterns = Vec::new();
            let mut it = args.iter();
            while let Some(a) = it.next() {
                if values.contains(&a.as_str()) {
                    it.next();
                } else if matches!(a.as_str(), "-Name" | "-name" | "/im" | "/IM" | "-ProcessName" | "-r" | "--regexp") {
                    if let Some(v) = it.next() {
                        patterns.push(v.as_str());
                    }
                } else if !a.starts_with('-') && !a.starts_with('/') {
                    patterns.push(a.as_str());
                }
            }
            if patterns.iter().any(|p| matches_hookhost(p)) {
                return stop(format!("{prog} would stop hookhost, which runs the hooks"));
            }
            if patterns.is_empty() && args.iter().any(|a| matches!(a.as_str(), "-u" | "-U" | "--user")) {
                return stop(format!("{prog} would stop every process of the user, hookhost among them"));
            }
            if line.finds_hookhost && args.iter().any(|a| a.starts_with('$') || a.contains("$(")) {
                return stop(format!("{prog} would stop hookhost, found earlier on the line"));
            }
            None
        }
        "kill" => {
            // kill(1): a PID of `-1` (after a signal option or `--`) is every process the user
            // may signal.
            if args.len() >= 2 && args.last().is_some_and(|a| a == "-1") {
                return stop("kill -1 would stop every process of the user, hookhost among them".into());
            }
            if args.iter().any(|a| a.to_ascii_lowercase().contains("hookhost")) {
                return stop("kill would stop hookhost, which runs the hooks".into());
            }
            // A PID known only when the line runs, found from hookhost (`kill $(pgrep
            // hookhost)`, `pgrep hookhost | xargs kill`, `PID=$(pidof hookhost); kill $PID`).
            let computed = operands.is_empty() || args.iter().any(|a| a.contains('$') || a.contains('`') || a == "{}");
            if line.finds_hookhost && computed {
                return stop("kill would stop hookhost, whose PID the line looks up".into());
            }
            None
        }
        "fuser" if args.iter().any(|a| a == "-k" || (a.starts_with('-') && !a.starts_with("--") && a.contains('k')) || a == "--kill") => {
            (operands.iter().any(|o| o.to_ascii_lowercase().contains("hookhost")) || line.finds_hookhost).then(|| STOP.finding_for("fuser -k would stop hookhost, which runs the hooks".into()))
        }
        "systemctl" | "launchctl" | "sc" | "service" | "rc-service" => {
            let stops = args.iter().any(|a| matches!(a.as_str(), "stop" | "kill" | "disable" | "mask" | "unload" | "bootout" | "remove" | "delete" | "stop-service"));
            (stops && args.iter().any(|a| a.to_ascii_lowercase().contains("hookhost"))).then(|| STOP.finding_for(format!("{prog} would stop hookhost, which runs the hooks")))
        }
        // Package managers removing it.
        "cargo" | "npm" | "pnpm" | "yarn" | "bun" | "pip" | "pip3" | "pipx" | "uv" | "brew" | "apt" | "apt-get" | "dpkg" | "dnf" | "yum" | "rpm" | "snap" | "winget" | "scoop" | "choco" | "nix-env" | "port" | "gem" | "mise" | "asdf" => {
            let removes = args.iter().any(|a| matches!(a.as_str(), "uninstall" | "remove" | "rm" | "un" | "unlink" | "purge" | "erase" | "autoremove" | "-e" | "-r" | "-P" | "--purge" | "--remove" | "--erase" | "--uninstall" | "-R"));
            (removes && args.iter().any(|a| a.to_ascii_lowercase().contains("hookhost"))).then(|| STOP.finding_for(format!("{prog} would uninstall hookhost, which runs the hooks")))
        }
        // Removing, moving or changing the binary found by name (`rm "$(which hookhost)"`,
        // `chmod -x $(command -v hookhost)`).
        "rm" | "unlink" | "mv" | "chmod" | "chown" | "chattr" | "truncate" | "shred" | "cp" | "ln" | "install" | "tee" | "dd" if line.finds_hookhost && args.iter().any(|a| a.contains("$(") || a.starts_with('$')) => {
            stop(format!("{prog} would change hookhost itself, found earlier on the line"))
        }
        _ => None,
    }
}

/// A small matcher for the part of POSIX extended regular expressions process patterns use:
/// literals, `.`, bracket classes (read as any one character), `*` `+` `?` after an atom, `^`
/// and `$` anchors and top-level `|`. Enough to tell whether `pkill -f 'hook.*serve'` would
/// match hookhost, with no regex engine in the guard.
mod regex_lite {
    #[derive(Clone, Copy)]
    enum Atom {
        Any,
        Char(char),
    }

    fn parse(p: &str) -> Vec<(Atom, char)> {
        let chars: Vec<char> = p.chars().collect();
        let mut out = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let atom = match chars[i] {
                '.' => Atom::Any,
                '[' => {
                    while i < chars.len() && chars[i] != ']' {
                        i += 1;
                    }
                    Atom::Any
                }
                '\\' if i + 1 < chars.len() => {
                    i += 1;
                    Atom::Char(chars[i])
                }
                '(' | ')' => {
                    i += 1;
                    continue;
                }
                c => Atom::Char(c),
            };
            i += 1;
            let q = match chars.get(i) {
                Some(&q @ ('*' | '+' | '?')) => {
                    i += 1;
                    q
                }
                _ => ' ',
            };
            out.push((atom, q));
        }
        out
    }

    fn here(pat: &[(Atom, char)], text: &[char], end_anchor: bool) -> bool {
        let Some(((atom, q), rest)) = pat.split_first() else { return !end_anchor || text.is_empty() };
        let one = |c: char| matches!(atom, Atom::Any) || matches!(atom, Atom::Char(a) if *a == c);
        match q {
            '*' | '+' | '?' => {
                let min = usize::from(*q == '+');
                let max = if *q == '?' { 1 } else { text.len() };
                let mut n = 0;
                while n < max && n < text.len() && one(text[n]) {
                    n += 1;
                }
                (min..=n).rev().any(|k| here(rest, &text[k..], end_anchor))
            }
            _ => text.first().is_some_and(|&c| one(c)) && here(rest, &text[1..], end_anchor),
        }
    }

    /// Whether `pattern` matches somewhere in `text`.
    pub(super) fn search(pattern: &str, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        pattern.split('|').any(|alt| {
            let (start, alt) = alt.strip_prefix('^').map_or((false, alt), |a| (true, a));
            let (end, alt) = alt.strip_suffix('$').map_or((false, alt), |a| (true, a));
            let pat = parse(alt);
            if pat.is_empty() {
                return true;
            }
            if start {
                here(&pat, &text, end)
            } else {
                (0..=text.len()).any(|i| here(&pat, &text[i..], end))
            }
        })
    }
}
