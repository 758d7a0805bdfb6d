//! Self-protection: the agent may read the hooks that govern it, never change or stop them.
//!
//! A tool call is refused when it would change, move or remove hook configuration — Claude
//! Code's, Codex's, Gemini CLI's and GitHub Copilot CLI's settings and hook files, their managed
//! locations, hookhost's own config layers, trust store, lock and state directories — or stop,
//! remove or replace hookhost, or start an agent with its hooks off.
//!
//! Through an edit tool (any tool whose name says it writes, edits, creates, replaces, patches,
//! moves, renames or deletes, by the path arguments it names; `apply_patch` by its file
//! headers) and through the shell, read as the shell reads it (quotes and backslashes removed,
//! braces expanded, globs matched, case folded as macOS and Windows fold it, `\` read as a
//! separator, the working directory followed through `cd`, `pushd`, `env -C`, `git -C`,
//! `make -C`, `tar -C`):
//! - **a protected path handed to any program that is not a known reader is a change**: the
//!   readers are listed ([`READERS`]; `sed`, `awk`, `perl`, `sort`, `uniq`, `yq`, `tar`, `unzip`,
//!   `zip`, `cp`-like copies, `git` and `hookhost` by their options and subcommands); a
//!   redirection onto one, a copy, move, link or extraction into a hook directory, a code
//!   string that names one (`python -c "open('.claude/settings.json', 'w')"`) are changes too;
//! - **stopping hookhost**: `kill` / `pkill` / `killall` / `fuser -k` / `taskkill` of it, by
//!   name, by any pattern that matches its name (`pkill -f hook.*serve`), or by a PID the line
//!   finds from it (`pgrep hookhost | xargs kill`, `PID=$(pgrep …); kill $PID`), `kill -1`,
//!   `systemctl` / `launchctl` stopping it; removing, replacing or uninstalling the binary
//!   (`cargo uninstall`, `npm uninstall -g`, `rm "$(which hookhost)"`, a file named `hookhost`
//!   written into a `bin` directory);
//! - **an agent started with its hooks off or configured elsewhere**: an agent CLI given an
//!   option about hooks (`claude --settings '{"disableAllHooks":true}'`, `--setting-sources`),
//!   `HOOKHOST_*` / `CLAUDE_CONFIG_DIR` / `CODEX_HOME` / `COPILOT_HOME` / `GEMINI_CLI_HOME` /
//!   `DOCKER_AGENT_CONFIG_DIR` set on the line, `XDG_*_HOME` / `HOME` set for an agent or
//!   exported;
//! - a line the shell parser refuses that names, once unquoted, a protected path or hookhost is
//!   asked about.
//!
//! Out of reach by design (SECURITY.md): paths and names assembled at run time
//! (`$DIR/settings.json`), what a script file does, a link made in an earlier call. The
//! boundary that closes them is hook configuration owned by root (the runtimes' managed
//! settings, `/etc/hookhost/managed.toml`).

use hookhost_sdk::prelude::*;
use hookhost_sdk::serde_json;
use hookhost_shell_parse as shell;

use crate::paths::{components, wildcard};
use crate::Finding;

mod agents;
mod paths;
mod readers;
#[cfg(test)]
mod tests;

use agents::*;
pub use paths::{protected, Access};
pub(crate) use paths::HOLDS;
use paths::*;
pub use readers::READERS;
use readers::*;

rules! {
    CHANGE = "hooks.change", Block,
        "a change, move or removal of hook configuration: a hook file handed to a program that is not a known reader, redirected onto, or copied, moved, linked or extracted into",
        "read it freely, but change hooks yourself, outside the agent";
    STOP = "hooks.stop", Block,
        "stopping, removing or replacing hookhost",
        "leave hookhost running; stop it yourself, outside the agent";
    NESTED_AGENT = "hooks.nested-agent", Block,
        "an agent started with its hooks off or its configuration moved",
        "start the agent with its normal configuration";
    UNREADABLE = "hooks.unreadable", Ask,
        "a line the shell parser refuses that names hook configuration or hookhost",
        "fix the quoting";
}

/// Words a command line must hold (once quotes and backslashes are removed, in any case) for
/// self-protection to read it at all: most lines hold none and skip the parse.
static NEEDLES: &[&str] = &[
    "hookh", "claude", "codex", "gemini", ".github", "copilot", "opencode", ".config", ".cache", ".local", "/etc", "/var", "settings", "hooks", "config.", "trustedfolders", "*** ", "kill",
    "xdg_", "home=", "fuser", "stop-process", "systemctl", "launchctl", "cursor-agent", "qwen", "library", "appdata", "programdata",
    // docker-agent (its program, `~/.config/cagent`, `DOCKER_AGENT_CONFIG_DIR`), Antigravity
    // CLI's `.agents/` and Starchild's `config/agent.yaml` ("hooks" covers its
    // `shell_hooks.yaml`); `agy`, Antigravity CLI's program.
    "agent", "agy ",
];

/// Why this tool call would change or stop the hooks, or `None`.
pub fn check_call(tool: &str, arguments: &Value, cwd: Option<&str>) -> Option<Finding> {
    if let Value::String(text) = arguments {
        return match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Object(_)) => check_call(tool, &v, cwd),
            _ if writes_files(tool) => check_patch(text, cwd),
            _ => check_script(text, &Cwd::at(cwd), 0),
        };
    }
    if writes_files(tool) {
        for key in ["file_path", "path", "filePath", "notebook_path", "target_file", "destination", "new_path", "old_path", "target", "source", "old_file", "new_file", "dir", "directory"] {
            if let Some(what) = arguments.get(key).and_then(Value::as_str).and_then(|p| protected(p, cwd, Access::Change)) {
                return Some(CHANGE.finding_for(format!("{tool} would change {what}")));
            }
        }
        // Codex's apply_patch names its files inside the patch text (`input`, or `command`).
        for key in ["input", "patch", "command"] {
            if let Some(found) = arguments.get(key).and_then(Value::as_str).filter(|t| key != "command" || is_patch(t)).and_then(|t| check_patch(t, cwd)) {
                return Some(found);
            }
        }
        if tool.eq_ignore_ascii_case("apply_patch") {
            return None;
        }
    }
    // What it asks the shell to run: the destructive checks' reading of the arguments.
    Finding::first_block_else_ask(crate::shell_of(arguments).into_iter().map(|s| match s {
        crate::Shell::Script(text) => check_script(text, &Cwd::at(cwd), 0),
        crate::Shell::Argv(argv) => check_words(&argv, &Line::default(), &Cwd::at(cwd), None, 0),
    }))
}

/// Code the agent wrote earlier in the session that a call runs now (a script, a Makefile
/// recipe, a package script: `remember.rs`), read as that call runs it — a shell script as a
/// line, other code as a program handed that code.
pub(crate) fn check_code(lang: crate::interp::Lang, code: &str, cwd: Option<&str>) -> Option<Finding> {
    let at = Cwd::at(cwd);
    match lang {
        crate::interp::Lang::Shell => check_script(code, &at, 1),
        other => check_words(&[other.name().to_string(), "-c".into(), code.to_string()], &Line::default(), &at, None, 1),
    }
}

/// Whether a text is a patch in Codex's `apply_patch` format.
pub(crate) fn is_patch(text: &str) -> bool {
    text.trim_start().starts_with("*** Begin Patch")
}

/// Whether a tool's name says it writes files (`Write`, `MultiEdit`, `apply_patch`,
/// `write_file`, `replace`, Copilot's `create` / `edit`).
fn writes_files(tool: &str) -> bool {
    const WORDS: &[&str] = &["write", "edit", "create", "replace", "patch", "move", "rename", "delete", "remove", "copy", "mkdir", "upload", "save"];
    // One pass over the lower-cased name (a two-way searcher per word cost more than the rest
    // of a harmless call).
    let mut buf = [0u8; 64];
    let name = tool.as_bytes();
    if name.len() <= buf.len() {
        for (b, c) in buf.iter_mut().zip(name) {
            *b = c.to_ascii_lowercase();
        }
        return crate::mentions_any(&buf[..name.len()], WORDS);
    }
    crate::mentions_any(tool.to_ascii_lowercase().as_bytes(), WORDS)
}

/// A patch: the files its headers name — Codex's `apply_patch` format (`*** Update File:`) and
/// unified diffs (`--- a/…`, `+++ b/…`, `diff --git a/… b/…`, `rename to …`).
fn check_patch(text: &str, cwd: Option<&str>) -> Option<Finding> {
    text.lines().find_map(|line| {
        let line = line.trim_end();
        let paths: Vec<&str> = if let Some(p) = ["*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "].iter().find_map(|h| line.trim_start().strip_prefix(h)) {
            vec![p.trim()]
        } else if let Some(p) = ["--- ", "+++ ", "rename from ", "rename to ", "copy to ", "Index: "].iter().find_map(|h| line.strip_prefix(h)) {
            let p = p.split('\t').next().unwrap_or(p).trim();
            vec![p.strip_prefix("a/").or_else(|| p.strip_prefix("b/")).unwrap_or(p)]
        } else if let Some(rest) = line.strip_prefix("diff --git ") {
            rest.split_whitespace().map(|p| p.strip_prefix("a/").or_else(|| p.strip_prefix("b/")).unwrap_or(p)).collect()
        } else {
            Vec::new()
        };
        paths.into_iter().find_map(|p| protected(p, cwd, Access::Change)).map(|what| CHANGE.finding_for(format!("the patch would change {what}")))
    })
}

/// The working directories a line's commands run in: where it starts, then each `cd` /
/// `pushd` / `-C`. `None` when the event named none.
#[derive(Clone, Debug)]
struct Cwd(Option<String>);

impl Cwd {
    fn at(cwd: Option<&str>) -> Cwd {
        Cwd(cwd.map(str::to_string))
    }

    /// The directory after `cd dir`.
    fn join(&self, dir: &str) -> Cwd {
        let dir = dir.trim();
        if dir.is_empty() || dir == "~" || dir == "-" {
            return Cwd(Some("~".into()));
        }
        if dir.starts_with('/') || dir.starts_with('~') || dir.starts_with("$HOME") || is_windows_absolute(dir) {
            return Cwd(Some(dir.to_string()));
        }
        Cwd(Some(match &self.0 {
            Some(c) => format!("{}/{dir}", c.trim_end_matches('/')),
            None => dir.to_string(),
        }))
    }

    fn as_deref(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

/// What a line says about hookhost beyond one command: another command finds its PID or path
/// (`pgrep hookhost`, `which hookhost`), or names it.
#[derive(Default)]
struct Line {
    finds_hookhost: bool,
    agent_starts: bool,
}

fn check_script(script: &str, cwd: &Cwd, depth: usize) -> Option<Finding> {
    if depth > 8 {
        return Some(UNREADABLE.finding_for("commands nested too deep to read for hook configuration".into()));
    }
    if !may_touch(script) {
        return None;
    }
    // A patch fed to the shell (`apply_patch <<'EOF' ... EOF`, `git apply <<EOF`).
    if let Some(found) = Some(script).filter(|s| s.contains("*** ") || s.contains("+++ ") || s.contains("diff --git")).and_then(|s| check_patch(s, cwd.as_deref())) {
        return Some(found);
    }
    let parsed = match shell::parse(script) {
        Ok(parsed) => parsed,
        Err(why) => return unreadable(script, &why, cwd),
    };
    let line = Line {
        finds_hookhost: parsed.commands.iter().any(|w| finds_hookhost(w)),
        // An agent started by any command of the line, wrapped or not (`env X=1 claude`).
        agent_starts: parsed.commands.iter().flatten().any(|a| AGENTS.iter().any(|g| shell::program(a).eq_ignore_ascii_case(g))),
    };
    for a in &parsed.assignments {
        if let Some(found) = assignment(a, &line, false) {
            return Some(found);
        }
    }
    // Every directory the line moves into: redirections are judged against each.
    let mut dirs = vec![cwd.clone()];
    let mut here = cwd.clone();
    let mut found = Vec::new();
    for (i, words) in parsed.commands.iter().enumerate() {
        let stdin = parsed.inputs.iter().find(|(at, _)| *at == i).map(|(_, text)| text.as_str());
        if let Some((prog, args)) = words.split_first() {
            if matches!(program(prog).as_str(), "cd" | "pushd" | "chdir" | "set-location" | "sl") {
                let dir = args.iter().find(|a| !a.starts_with('-') || a.as_str() == "-").map_or("~", String::as_str);
                here = here.join(dir);
                dirs.push(here.clone());
                continue;
            }
        }
        found.push(check_words(words, &line, &here, stdin, depth));
    }
    let writes = parsed.writes.iter().find_map(|w| {
        dirs.iter().find_map(|d| protected(w, d.as_deref(), Access::Change).map(|what| CHANGE.finding_for(format!("a redirection would overwrite {what}"))).or_else(|| replaces_binary(w, d.as_deref())))
    });
    Finding::first_block_else_ask([writes].into_iter().chain(found))
}

/// Whether a line may touch hook configuration or hookhost at all, read as the shell would
/// join its words (`.cl''aude`, `.cla\ude` are `.claude`; any case). Globs, brace lists and
/// ANSI-C quoting can spell any name, so a line with them is read in full.
fn may_touch(script: &str) -> bool {
    let bytes = script.as_bytes();
    if bytes.iter().any(|b| matches!(b, b'*' | b'?' | b'[')) || bytes.windows(2).any(|w| w == b"$'") || (bytes.contains(&b'{') && bytes.contains(&b',')) {
        return true;
    }
    // Most lines hold no quote or backslash and are all lower case: read as they are.
    if !script.bytes().any(|b| matches!(b, b'\'' | b'"' | b'\\') || b.is_ascii_uppercase()) {
        return crate::mentions_any(script.as_bytes(), NEEDLES);
    }
    let folded: Vec<u8> = script.bytes().filter(|b| !matches!(b, b'\'' | b'"' | b'\\')).map(|b| b.to_ascii_lowercase()).collect();
    crate::mentions_any(&folded, NEEDLES)
}

/// A line the parser refuses: asked about when a word of it, unquoted, names a protected path
/// or hookhost.
fn unreadable(script: &str, why: &str, cwd: &Cwd) -> Option<Finding> {
    let unquoted = crate::unquote(script);
    let mut words = unquoted.split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '`' | '<' | '>' | '=' | '{' | '}' | ','));
    words.find_map(|w| {
        let named = protected(w, cwd.as_deref(), Access::Remove).or_else(|| w.to_ascii_lowercase().contains("hookhost").then(|| "hookhost".to_string()))?;
        Some(UNREADABLE.finding_for(format!("the command could not be parsed ({why}) and names {named}")))
    })
}

/// A program's name as the guard compares it: the shell's name for it, in lower case (Windows
/// and macOS find `Git.exe` as `git`).
fn program(word: &str) -> String {
    shell::program(word).to_ascii_lowercase()
}

/// One simple command, run in `cwd`, reading `stdin` when the line gives it one.
fn check_words(words: &[String], line: &Line, cwd: &Cwd, stdin: Option<&str>, depth: usize) -> Option<Finding> {
    if depth > 8 {
        return Some(UNREADABLE.finding_for("commands nested too deep to read for hook configuration".into()));
    }
    let (prog0, args) = words.split_first()?;
    let prog = program(prog0);
    let prog = prog.as_str();
    if let Some(found) = nested_agent(prog, args, line) {
        return Some(found);
    }
    // Wrappers and shells given a string run another command: that one is checked (in the
    // directory `env -C DIR` / `sudo -D DIR` names).
    match shell::runs(prog, args) {
        Some(shell::Runs::Argv(inner)) => {
            let dir = option_value(args, &["-C", "--chdir", "-D"]).filter(|_| matches!(prog, "env" | "sudo"));
            let inner_cwd = dir.map_or_else(|| cwd.clone(), |d| cwd.join(d));
            return check_words(inner, line, &inner_cwd, stdin, depth + 1);
        }
        // cmd.exe and PowerShell separate paths with `\`, which a POSIX shell would remove.
        Some(shell::Runs::Script(text)) if matches!(prog, "cmd" | "pwsh" | "powershell") => return check_script(&text.replace('\\', "/"), cwd, depth + 1),
        Some(shell::Runs::Script(text)) => return check_script(&text, cwd, depth + 1),
        None => {}
    }
    // A shell reading its script from a here-document.
    if let (Some(code), true) = (stdin, matches!(prog, "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish" | "at" | "batch" | "source" | ".")) {
        if let Some(found) = check_script(code, cwd, depth + 1) {
            return Some(found);
        }
    }
    // A patch read from a here-document (`patch -p1 <<EOF`, `git apply <<EOF`).
    if let Some(found) = stdin.filter(|_| !READERS.contains(&prog)).and_then(|t| check_patch(t, cwd.as_deref())) {
        return Some(found);
    }
    if let Some(found) = stops_hookhost(prog, args, line) {
        return Some(found);
    }
    // `make -C DIR`, `git -C DIR`, `tar -C DIR`: paths are relative to DIR.
    let here = match prog {
        "make" | "git" | "tar" | "ninja" | "just" => option_value(args, &["-C", "--directory"]).map_or_else(|| cwd.clone(), |d| cwd.join(d)),
        _ => cwd.clone(),
    };
    let cwd = here.as_deref();
    let changes = |paths: &[&str], access: Access| {
        paths.iter().find_map(|p| {
            protected(p, cwd, access).map(|what| CHANGE.finding_for(format!("{prog} would change {what}"))).or_else(|| replaces_binary(p, cwd).filter(|_| access != Access::Read))
        })
    };
    match reads_only(prog, args) {
        Reading::Everything => None,
        Reading::Except(written) => changes(&written.iter().map(String::as_str).collect::<Vec<_>>(), Access::Change),
        Reading::Copy { sources, dest, moves } => {
            // The file each source becomes inside the destination, when that is a directory:
            // written with a `/`, given several sources, or one that holds hook configuration
            // (`cp -a /tmp/hooks .github`).
            let into_dir = dest.ends_with('/') || sources.len() > 1 || protected(&dest, cwd, Access::Remove).is_some();
            let dest_hit = changes(&[dest.as_str()], Access::Into).or_else(|| {
                sources.iter().filter(|_| into_dir).find_map(|s| {
                    let name = s.trim_end_matches('/').rsplit('/').next().unwrap_or(s);
                    changes(&[format!("{}/{name}", dest.trim_end_matches('/')).as_str()], Access::Change)
                })
            });
            dest_hit.or_else(|| if moves { changes(&sources.iter().map(String::as_str).collect::<Vec<_>>(), Access::Remove) } else { None })
        }
        Reading::Nothing(access) => changes(&candidates(args), access).or_else(|| names_in_code(prog, args, cwd)),
        Reading::Always(what) => Some(CHANGE.finding_for(format!("{prog} would change {what}"))),
    }
}

/// The value of the first of `options` among `args` (`-C dir`, `-Cdir`, `--directory=dir`).
fn option_value<'a>(args: &'a [String], options: &[&str]) -> Option<&'a str> {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--" {
            return None;
        }
        for o in options {
            if a == o {
                return it.next().map(String::as_str);
            }
            if let Some(v) = a.strip_prefix(o).and_then(|v| if o.starts_with("--") { v.strip_prefix('=') } else { Some(v) }).filter(|v| !v.is_empty()) {
                return Some(v);
            }
        }
    }
    None
}

/// The words of a command that may name a file: each argument, the value of a `--opt=value` /
/// `key=value` (`of=`, `--output=`), the value glued to a short option (`-o.claude/x`). URLs are
/// not files.
fn candidates(args: &[String]) -> Vec<&str> {
    let mut out = Vec::with_capacity(args.len());
    for a in args.iter().map(String::as_str).filter(|a| !a.contains("://")) {
        out.push(a);
        if let Some((_, v)) = a.split_once('=') {
            out.push(v);
        }
        if a.len() > 2 && a.starts_with('-') && !a.starts_with("--") {
            out.extend(a.get(2..));
        }
    }
    out
}

/// Code handed to a program that is not a reader (`python -c "open('.claude/settings.json',
/// 'w')"`, an awk program, a JSON settings string): a protected path inside it is a change.
fn names_in_code(prog: &str, args: &[String], cwd: Option<&str>) -> Option<Finding> {
    let code_like = |a: &str| a.contains(['/', '.']) && a.contains(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '(' | ')' | ',' | ';' | '{' | '}' | '<' | '>' | '+'));
    args.iter().filter(|a| code_like(a)).find_map(|a| {
        a.split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '(' | ')' | ',' | ';' | '=' | '[' | ']' | '{' | '}' | '<' | '>' | '`' | '|' | '&' | '+'))
            .filter(|token| !token.contains("://"))
            .find_map(|token| protected(token, cwd, Access::Change))
            .map(|what| CHANGE.finding_for(format!("{prog} is given code that names {what}")))
    })
}
