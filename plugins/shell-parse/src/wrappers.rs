//! Commands that run another command: wrappers (`sudo rm …`, `env X=1 rm …`, `timeout 5 rm …`,
//! `xargs rm …`), shells given a string (`sh -c 'rm …'`, `eval …`, `env -S '…'`). The guard and
//! the host's Claude Code `if` rules unwrap them with this one table, so a rule and the guard
//! always see the same command.

/// Options of each wrapper that take a value (`-u root`), so the value is not read as the
/// command; `--opt=value` forms need no entry. `None`: not a wrapper.
fn value_options(prog: &str) -> Option<&'static [&'static str]> {
    Some(match prog {
        "sudo" => &["-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group", "--host", "--prompt", "--chdir", "--role", "--type", "--other-user", "--command-timeout"],
        "doas" => &["-u", "-C"],
        "env" => &["-u", "-C", "--unset", "--chdir"],
        "timeout" => &["-s", "-k", "--signal", "--kill-after"],
        "nice" => &["-n", "--adjustment"],
        "nohup" | "busybox" | "setsid" | "builtin" => &[],
        "time" => &["-f", "-o", "--format", "--output"],
        "command" => &[],
        "exec" => &["-a"],
        "stdbuf" => &["-i", "-o", "-e", "--input", "--output", "--error"],
        "ionice" => &["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"],
        "xargs" => &["-a", "-d", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "-P", "-s", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-lines", "--max-chars", "--replace"],
        "parallel" => &["-j", "-P", "--jobs", "-S", "--sshlogin", "-N", "-n", "--max-args", "-d", "--delimiter", "-I", "--colsep", "-a", "--arg-file", "--joblog", "--tmpdir", "--results"],
        "watch" => &["-n", "--interval", "-q", "--equexit"],
        "flock" => &["-w", "--timeout", "-E", "--conflict-exit-code"],
        "chroot" => &["--userspec", "--groups"],
        "ssh" => &["-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w"],
        "su" => &["-g", "-G", "-s", "-w", "--group", "--supp-group", "--shell", "--whitelist-environment"],
        "runuser" => &["-u", "-g", "-G", "-s", "-w", "--user", "--group", "--supp-group", "--shell", "--whitelist-environment"],
        // Package runners run a package's program: `npx rimraf ~` runs `rimraf ~`.
        "npx" | "bunx" | "pnpx" | "uvx" => &["-p", "--package", "--from", "--with", "--python"],
        "systemd-run" => &[
            "-u", "--unit", "-p", "--property", "--description", "--slice", "-E", "--setenv", "-M", "--machine", "--uid", "--gid", "-H", "--host", "--working-directory", "--nice",
            "--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--timer-property", "--path-property", "--socket-property", "--service-type",
            "--expand-environment", "-C", "--capsule",
        ],
        _ => return None,
    })
}

/// A program's name as the shell finds it: `/bin/rm` and `./rm` are `rm`; on Windows
/// `C:\Git\bin\git.exe` and `rm.EXE` are `git` and `rm`.
pub fn program(word: &str) -> &str {
    let base = word.rsplit(['/', '\\']).next().unwrap_or(word);
    match base.len().checked_sub(4) {
        Some(cut) if base.is_char_boundary(cut) && base[cut..].eq_ignore_ascii_case(".exe") && cut > 0 => &base[..cut],
        _ => base,
    }
}

/// What a command runs in turn, if it runs another one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runs<'a> {
    /// A wrapper's command (`sudo -u root rm -rf x` runs `rm -rf x`; `command -v rm` runs
    /// nothing, an empty argv).
    Argv(&'a [String]),
    /// A string run as a script: `sh -c STRING`, `bash -lc STRING`, `eval ARGS`, `env -S STRING`.
    Script(String),
}

/// What `prog args` runs in turn (`prog` as written or already reduced by [`program`]), or
/// `None` when it is not a wrapper or a shell given a string.
pub fn runs<'a>(prog: &str, args: &'a [String]) -> Option<Runs<'a>> {
    let prog = program(prog);
    match prog {
        // `env -S "rm -rf ~"` splits its string into the command.
        "env" if args.iter().any(|a| a == "-S" || a == "--split-string") => {
            let pos = args.iter().position(|a| a == "-S" || a == "--split-string")?;
            Some(Runs::Script(args.get(pos + 1)?.clone()))
        }
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "fish" => {
            // `-c STRING`, also as part of a flag cluster (`-lc`, `-ec`), and fish's
            // `--command`; a `--` between the flag and the string ends the options.
            let pos = args.iter().position(|a| (a.starts_with('-') && !a.starts_with("--") && a.contains('c')) || a == "--command")?;
            let at = if args.get(pos + 1).is_some_and(|a| a == "--") { pos + 2 } else { pos + 1 };
            Some(Runs::Script(args.get(at)?.clone()))
        }
        // PowerShell (`-c`, `-Command`, any unambiguous prefix of it) and cmd.exe (`/c`, `/k`):
        // the rest of the line is the command, read as a shell line would be.
        "pwsh" | "powershell" => {
            let is_command = |a: &str| {
                let a = a.to_ascii_lowercase();
                a == "/c" || (a.len() >= 2 && (a.starts_with('-') || a.starts_with('/')) && "command".starts_with(&a[1..]))
            };
            let pos = args.iter().position(|a| is_command(a))?;
            Some(Runs::Script(args[pos + 1..].join(" ")))
        }
        "cmd" => {
            let pos = args.iter().position(|a| a.eq_ignore_ascii_case("/c") || a.eq_ignore_ascii_case("/k"))?;
            Some(Runs::Script(args[pos + 1..].join(" ")))
        }
        // `trap 'CMD' EXIT`: the command runs when the signal comes (at the latest, on exit).
        "trap" => {
            let args = if args.first().is_some_and(|a| a == "--") { &args[1..] } else { args };
            match args {
                [action, _signal, ..] if !action.starts_with('-') => Some(Runs::Script(action.clone())),
                _ => None,
            }
        }
        // `script -qc CMD [file]`: util-linux script(1) runs CMD under a terminal.
        "script" => {
            let pos = args.iter().position(|a| a == "--command" || (a.starts_with('-') && !a.starts_with("--") && a.ends_with('c')));
            match pos {
                Some(pos) => Some(Runs::Script(args.get(pos + 1)?.clone())),
                None => args.iter().find_map(|a| a.strip_prefix("--command=")).map(|c| Runs::Script(c.to_string())),
            }
        }
        // `taskset [-c] MASK CMD...` (with `-p` it changes a running process).
        "taskset" => {
            let opts = args.iter().take_while(|a| a.starts_with('-')).count();
            if args[..opts].iter().any(|a| a == "--pid" || (!a.starts_with("--") && a.contains('p'))) {
                return Some(Runs::Argv(&[]));
            }
            Some(Runs::Argv(args.get(opts + 1..).unwrap_or(&[])))
        }
        // `runuser -u USER [--] CMD...` or `runuser [-l] USER -c STRING`, as su.
        "runuser" if args.iter().any(|a| a == "-c" || a == "--command") => {
            let pos = args.iter().position(|a| a == "-c" || a == "--command")?;
            Some(Runs::Script(args.get(pos + 1)?.clone()))
        }
        "runuser" if !args.iter().any(|a| a == "-u" || a == "--user" || a.starts_with("--user=")) => Some(Runs::Argv(&[])),
        // `tmux new-session 'CMD'`, `tmux send-keys 'CMD' Enter`: the command runs in the
        // session's shell.
        "tmux" => tmux(args).map(Runs::Script),
        // `screen -dmS name CMD...`; `screen -X stuff 'CMD\n'` types into a session.
        "screen" => {
            let mut i = 0;
            while i < args.len() && args[i].starts_with('-') {
                let a = args[i].as_str();
                if a == "-X" {
                    let typed = args.get(i + 1..).unwrap_or(&[]);
                    return (typed.first().is_some_and(|c| c == "stuff")).then(|| Runs::Script(typed[1..].join(" ").replace("\\n", "\n").replace("^M", "\n")));
                }
                let takes_value = !a.starts_with("--") && a.len() > 1 && a.ends_with(['S', 'c', 'e', 'h', 'p', 's', 'T', 't']);
                i += if takes_value { 2 } else { 1 };
            }
            Some(Runs::Argv(args.get(i..).unwrap_or(&[])))
        }
        "eval" => Some(Runs::Script(args.join(" "))),
        // `su [user] -c STRING`, `flock FILE -c STRING`.
        "su" | "flock" if args.iter().any(|a| a == "-c" || a == "--command") => {
            let pos = args.iter().position(|a| a == "-c" || a == "--command")?;
            Some(Runs::Script(args.get(pos + 1)?.clone()))
        }
        "su" => Some(Runs::Argv(&[])),
        // `npx -c 'CMD'` runs a shell command.
        "npx" if args.iter().any(|a| a == "-c" || a == "--call") => {
            let pos = args.iter().position(|a| a == "-c" || a == "--call")?;
            Some(Runs::Script(args.get(pos + 1)?.clone()))
        }
        // `docker exec [options] CONTAINER COMMAND...`: the command runs in the container.
        "docker" | "podman" | "nerdctl" if args.first().is_some_and(|a| a == "exec") => {
            let value_opts = ["-e", "--env", "-u", "--user", "-w", "--workdir", "--env-file", "--detach-keys"];
            let mut i = 1;
            while i < args.len() && args[i].starts_with('-') {
                i += if value_opts.contains(&args[i].as_str()) { 2 } else { 1 };
            }
            Some(Runs::Argv(args.get(i + 1..).unwrap_or(&[])))
        }
        // `kubectl exec POD -- COMMAND...`.
        "kubectl" | "oc" if args.iter().any(|a| a == "exec") => {
            let dashes = args.iter().position(|a| a == "--")?;
            Some(Runs::Argv(&args[dashes + 1..]))
        }
        // The remote command: the words after the host, which ssh joins for the remote shell.
        "ssh" => {
            let rest = unwrap(prog, args);
            Some(Runs::Script(rest.get(1..).unwrap_or(&[]).join(" ")))
        }
        // `watch` and `parallel` hand their command to a shell: one quoted word or several.
        "watch" if !args.iter().any(|a| a == "-x" || a == "--exec") => Some(Runs::Script(unwrap(prog, args).join(" "))),
        "parallel" => {
            let command = unwrap(prog, args);
            let command = &command[..command.iter().position(|a| a.starts_with(":::") || a.starts_with("::::")).unwrap_or(command.len())];
            match command {
                [one] if one.contains(char::is_whitespace) => Some(Runs::Script(one.clone())),
                _ => Some(Runs::Argv(command)),
            }
        }
        _ => value_options(prog).map(|_| Runs::Argv(unwrap(prog, args))),
    }
}

/// The command a wrapper runs: its argv after the wrapper's own options (and, for `timeout`,
/// the duration; for `env`, the assignments).
fn unwrap<'a>(prog: &str, args: &'a [String]) -> &'a [String] {
    let value_opts = value_options(prog).unwrap_or(&[]);
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "--" {
            i += 1;
            break;
        }
        if prog == "env" && !a.starts_with('-') && a.contains('=') {
            i += 1;
            continue;
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        // `nice -10`: an adjustment, not an option with a value.
        i += if value_opts.contains(&a) { 2 } else { 1 };
    }
    let rest = &args[i.min(args.len())..];
    match prog {
        // The duration comes first.
        "timeout" => rest.get(1..).unwrap_or(&[]),
        // `command -v rm` only looks rm up.
        "command" if args.iter().take_while(|a| a.starts_with('-')).any(|a| a.contains('v') || a.contains('V')) => &[],
        // The lock file, the new root come first.
        "flock" | "chroot" => rest.get(1..).unwrap_or(&[]),
        _ => rest,
    }
}

/// The command a `tmux` invocation starts or types, if any: `new-session`, `new-window`,
/// `split-window`, `respawn-pane` / `-window`, `run-shell` and `display-popup` take a shell
/// command after their options; `send-keys` types its words (key names such as `Enter` aside).
fn tmux(args: &[String]) -> Option<String> {
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        i += if matches!(args[i].as_str(), "-L" | "-S" | "-f" | "-c" | "-T") { 2 } else { 1 };
    }
    let sub = args.get(i)?.as_str();
    let starts = matches!(sub, "new-session" | "new" | "new-window" | "neww" | "split-window" | "splitw" | "respawn-pane" | "respawnp" | "respawn-window" | "respawnw" | "run-shell" | "run" | "display-popup" | "popup");
    let types = matches!(sub, "send-keys" | "send");
    if !starts && !types {
        return None;
    }
    i += 1;
    // The option letters that take a value (`-t target`, `-c dir`, `-e VAR=x`, `-l size`), last
    // in a cluster (`-dt x`); send-keys' `-l` is a flag (literal keys).
    let value_letters: &[char] = if types { &['t', 'N'] } else { &['t', 's', 'n', 'c', 'x', 'y', 'F', 'e', 'l', 'p', 'f', 'w', 'T', 'S'] };
    while i < args.len() && args[i].starts_with('-') && args[i] != "--" {
        i += if args[i].len() > 1 && args[i].ends_with(value_letters) { 2 } else { 1 };
    }
    if args.get(i).is_some_and(|a| a == "--") {
        i += 1;
    }
    let mut words: Vec<&str> = args.get(i..).unwrap_or(&[]).iter().map(String::as_str).collect();
    if types {
        words.retain(|w| !matches!(*w, "Enter" | "C-m" | "KPEnter" | "C-j" | "\\;"));
    }
    (!words.is_empty()).then(|| words.join(if types { "" } else { " " }))
}

/// How deep [`every_command`] follows wrappers and strings.
const MAX_NESTING: usize = 8;

/// Every command `script` would run, as a rule should see it: each simple command with its
/// program reduced to its name (`/bin/rm` → `rm`), and, for a wrapper or a shell given a
/// string, also the command it runs (`sudo rm -rf x` yields `sudo rm -rf x` and `rm -rf x`;
/// `bash -c 'rm -rf x'` yields both). `Err` when a line (or a string it runs) cannot be parsed,
/// or nests deeper than a checker follows.
pub fn every_command(script: &str) -> Result<Vec<Vec<String>>, String> {
    let mut out = Vec::new();
    script_commands(script, 0, &mut out)?;
    Ok(out)
}

fn script_commands(script: &str, depth: usize, out: &mut Vec<Vec<String>>) -> Result<(), String> {
    if depth > MAX_NESTING {
        return Err("commands nested too deep to read".into());
    }
    for words in crate::commands(script)? {
        argv_commands(&words, depth, out)?;
    }
    Ok(())
}

fn argv_commands(words: &[String], depth: usize, out: &mut Vec<Vec<String>>) -> Result<(), String> {
    if depth > MAX_NESTING {
        return Err("commands nested too deep to read".into());
    }
    let Some((prog, args)) = words.split_first() else { return Ok(()) };
    let mut named = vec![program(prog).to_string()];
    named.extend(args.iter().cloned());
    out.push(named);
    match runs(prog, args) {
        Some(Runs::Argv(inner)) => argv_commands(inner, depth + 1, out),
        Some(Runs::Script(text)) => script_commands(&text, depth + 1, out),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(script: &str) -> Vec<String> {
        every_command(script).unwrap().iter().map(|w| w.join(" ")).collect()
    }

    #[test]
    fn wrappers_and_strings_are_unwrapped() {
        assert_eq!(lines("sudo -u root rm -rf x"), ["sudo -u root rm -rf x", "rm -rf x"]);
        assert_eq!(lines("/bin/rm -rf x"), ["rm -rf x"]);
        assert_eq!(lines("env A=1 nice -n 5 timeout 3 rm -rf x"), ["env A=1 nice -n 5 timeout 3 rm -rf x", "nice -n 5 timeout 3 rm -rf x", "timeout 3 rm -rf x", "rm -rf x"]);
        assert_eq!(lines("bash -c 'cd /; rm -rf x'"), ["bash -c cd /; rm -rf x", "cd /", "rm -rf x"]);
        assert_eq!(lines("command rm -rf x"), ["command rm -rf x", "rm -rf x"]);
        assert_eq!(lines("command -v rm"), ["command -v rm"]);
        assert_eq!(lines("find . | xargs -n1 rm -rf"), ["find .", "xargs -n1 rm -rf", "rm -rf"]);
        assert_eq!(lines("env -S 'rm -rf x'"), ["env -S rm -rf x", "rm -rf x"]);
        assert!(every_command(&"sh -c \"".repeat(1)).is_err());
        assert_eq!(lines("watch -n 5 'rm -rf x'"), ["watch -n 5 rm -rf x", "rm -rf x"]);
        assert_eq!(lines("watch -x rm -rf x"), ["watch -x rm -rf x", "rm -rf x"]);
        assert_eq!(lines("parallel -j4 rm -rf ::: a b"), ["parallel -j4 rm -rf ::: a b", "rm -rf"]);
        assert_eq!(lines("parallel 'rm -rf {}' ::: a"), ["parallel rm -rf {} ::: a", "rm -rf {}"]);
        assert_eq!(lines("flock -w 5 /tmp/l rm -rf x"), ["flock -w 5 /tmp/l rm -rf x", "rm -rf x"]);
        assert_eq!(lines("flock /tmp/l -c 'rm -rf x'"), ["flock /tmp/l -c rm -rf x", "rm -rf x"]);
        assert_eq!(lines("chroot /srv/root rm -rf x"), ["chroot /srv/root rm -rf x", "rm -rf x"]);
        assert_eq!(lines("su - root -c 'rm -rf x'"), ["su - root -c rm -rf x", "rm -rf x"]);
        assert_eq!(lines("su root"), ["su root"]);
        assert_eq!(lines("ssh -i k.pem -p 22 me@host 'rm -rf x'"), ["ssh -i k.pem -p 22 me@host rm -rf x", "rm -rf x"]);
        assert_eq!(lines("ssh host rm -rf x"), ["ssh host rm -rf x", "rm -rf x"]);
        assert_eq!(lines("ssh host"), ["ssh host"]);
        assert_eq!(lines("docker exec -it -u root db rm -rf x"), ["docker exec -it -u root db rm -rf x", "rm -rf x"]);
        assert_eq!(lines("kubectl exec -n app web -- rm -rf x"), ["kubectl exec -n app web -- rm -rf x", "rm -rf x"]);
        assert_eq!(lines("docker ps"), ["docker ps"]);
    }

    /// The wrappers issue #48 found not unwrapped: each runs `rm -rf x`.
    #[test]
    fn more_wrappers_are_unwrapped() {
        for line in [
            "bash -c -- 'rm -rf x'",
            "fish -c 'rm -rf x'",
            "pwsh -c rm -rf x",
            "pwsh -Command 'rm -rf x'",
            "powershell.exe -com 'rm -rf x'",
            "cmd /c rm -rf x",
            "trap 'rm -rf x' EXIT",
            "trap -- 'rm -rf x' EXIT INT",
            "script -qc 'rm -rf x' /dev/null",
            "script --command 'rm -rf x'",
            "taskset 0x1 rm -rf x",
            "taskset -c 0,1 rm -rf x",
            "runuser -u bob -- rm -rf x",
            "runuser -l bob -c 'rm -rf x'",
            "systemd-run --user --unit t -p MemoryMax=1G rm -rf x",
            "tmux new-session -d -s t 'rm -rf x'",
            "tmux new -d rm -rf x",
            "tmux send-keys -t t 'rm -rf x' Enter",
            "screen -dmS t rm -rf x",
            "screen -S t -X stuff 'rm -rf x'",
            "/usr/bin/sudo.exe rm -rf x",
            "npx -c 'rm -rf x'",
            "npx -y rm -rf x",
        ] {
            assert!(lines(line).iter().any(|l| l == "rm -rf x"), "{line}: {:?}", lines(line));
        }
        for line in ["trap - EXIT", "trap -p", "taskset -p 0x1 1234", "tmux ls", "tmux attach -t x", "screen -ls", "runuser bob"] {
            assert_eq!(lines(line).len(), 1, "{line}: {:?}", lines(line));
        }
        assert_eq!(program("C:\\Git\\bin\\git.exe"), "git");
        assert_eq!(program("RM.EXE"), "RM");
        assert_eq!(program(".exe"), ".exe");
    }
}
