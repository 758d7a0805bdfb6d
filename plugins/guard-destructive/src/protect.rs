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
//!   `HOOKHOST_*` / `CLAUDE_CONFIG_DIR` / `CODEX_HOME` / `COPILOT_HOME` / `GEMINI_CLI_HOME` set
//!   on the line, `XDG_*_HOME` / `HOME` set for an agent or exported;
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

/// Hook configuration a project or a user keeps, as trailing path components (any directory),
/// lower case.
const FILES: &[&str] = &[
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    ".gemini/trustedfolders.json",
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
    // hookhost's directories on macOS and Windows (hookhost_types::paths).
    "library/application support/hookhost",
    "library/caches/hookhost",
    "appdata/roaming/hookhost",
    "appdata/local/hookhost",
];

/// Directories that hold hook configuration among other things: nothing may be copied, moved,
/// linked or extracted into them (what lands there is not known by name).
const CONFIG_DIRS: &[&str] = &[".claude", ".codex", ".gemini", ".copilot", ".github/copilot"];

/// What a deletion may remove although nothing may write it: hookhost's cache of compiled
/// components, made again on the next run.
const REBUILDABLE: &[&str] = &[".cache", ".cache/hookhost", "library/caches", "library/caches/hookhost", "appdata/local/hookhost/cache"];

/// Managed locations, from the root (a drive letter reads as the root): Linux's, macOS's
/// (`/Library/Application Support/…`), Windows' (`C:\ProgramData\…`, Claude Code's `C:\Program
/// Files\ClaudeCode`).
const ROOTED: &[&str] = &[
    "/etc/hookhost",
    "/etc/claude-code",
    "/etc/codex",
    "/etc/gemini-cli",
    "/etc/github-copilot",
    "/var/lib/hookhost",
    "/var/log/hookhost",
    "/library/application support/hookhost",
    "/library/application support/claudecode",
    "/library/application support/geminicli",
    "/programdata/hookhost",
    "/programdata/claudecode",
    "/programdata/gemini-cli",
    "/program files/claudecode",
];

/// File names the guard's [`FILES`] and hookhost's layers use, for `find -name` filters.
const NAMES: &[&str] = &["settings.json", "settings.local.json", "hooks.json", "config.toml", "trustedfolders.json", "config.json", "hooks.lock", "hooks.toml", "managed.toml", "hooks", ".hookhost", "hookhost", ".claude", ".codex", ".gemini", ".copilot"];

/// Programs that only read the files they are given (`sed`, `sort`, `tar`, `git` and the others
/// whose options decide are judged by those options).
pub const READERS: &[&str] = &[
    "cat", "tac", "less", "more", "most", "head", "tail", "grep", "egrep", "fgrep", "rg", "ag", "ack", "diff", "diff3", "sdiff", "colordiff", "delta", "difft", "cmp", "comm", "wc", "stat",
    "file", "ls", "dir", "tree", "exa", "eza", "du", "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "bat", "batcat", "realpath",
    "readlink", "basename", "dirname", "test", "[", "[[", "echo", "printf", "pwd", "type", "which", "whereis", "nl", "od", "xxd", "hexdump", "strings", "column", "cut", "tr", "fold",
    "fmt", "paste", "join", "base64", "jq", "gron", "jless", "fx", "json_pp", "jsonlint", "true", "false", ":", "printenv", "id", "whoami", "date", "sleep", "cd", "pushd",
    "popd", "git-blame", "view", "glow", "open", "xdg-open", "code-insiders-read",
];

/// Agent CLIs: started with hooks off or configured elsewhere, they run without the guard.
const AGENTS: &[&str] = &[
    "claude", "claude-code", "codex", "gemini", "gemini-cli", "copilot", "opencode", "opencode-ai", "cursor-agent", "qwen", "aider", "goose", "amp", "crush", "droid", "hookhost", "hookhost-send",
];

/// Variables that move or switch off an agent's or hookhost's configuration wherever they are
/// set; [`AGENT_VARS`] only when an agent starts with them.
fn always_protected_var(name: &str) -> bool {
    (name.starts_with("HOOKHOST_") && !matches!(name, "HOOKHOST_LOG" | "HOOKHOST_REGISTRY")) || matches!(name, "CLAUDE_CONFIG_DIR" | "CODEX_HOME" | "COPILOT_HOME" | "GEMINI_CLI_HOME" | "GEMINI_CLI_SYSTEM_SETTINGS_PATH" | "CLAUDE_CODE_MANAGED_SETTINGS_PATH")
}

const AGENT_VARS: &[&str] = &["XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "HOME", "USERPROFILE", "APPDATA"];

/// Words a command line must hold (once quotes and backslashes are removed, in any case) for
/// self-protection to read it at all: most lines hold none and skip the parse.
const NEEDLES: &[&str] = &[
    "hookh", "claude", "codex", "gemini", ".github", "copilot", "opencode", ".config", ".cache", ".local", "/etc", "/var", "settings", "hooks", "config.", "trustedfolders", "*** ", "kill",
    "xdg_", "home=", "fuser", "stop-process", "systemctl", "launchctl", "cursor-agent", "qwen", "library", "appdata", "programdata",
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
    crate::first_block_else_ask(crate::shell_of(arguments).into_iter().map(|s| match s {
        crate::Shell::Script(text) => check_script(text, &Cwd::at(cwd), 0),
        crate::Shell::Argv(argv) => check_words(&argv, &Line::default(), &Cwd::at(cwd), None, 0),
    }))
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
    crate::first_block_else_ask([writes].into_iter().chain(found))
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

/// What a command does with the files it names.
enum Reading {
    /// Reads them all.
    Everything,
    /// Reads them, but writes these (`sort -o FILE`, `tar -cf FILE`).
    Except(Vec<String>),
    /// A copy, move or link: the sources are read (removed, for a move), the destination
    /// written.
    Copy { sources: Vec<String>, dest: String, moves: bool },
    /// Not a known reader: every path it is given may change (`Access::Remove` for programs
    /// that delete what they are given; deleting hookhost's cache is allowed).
    Nothing(Access),
    /// Changes hook configuration whatever it is given: what it changes.
    Always(String),
}

/// How `prog args` treats the files it names.
fn reads_only(prog: &str, args: &[String]) -> Reading {
    let opts = || args.iter().take_while(|a| *a != "--").filter(|a| a.starts_with('-') && a.len() > 1);
    // A short-option cluster holding `flag` before any letter that takes a value.
    let cluster_has = |flag: char, value_flags: &str| {
        opts().filter(|a| !a.starts_with("--")).any(|a| a[1..].chars().take_while(|c| !value_flags.contains(*c)).any(|c| c == flag) || a[1..].starts_with(flag))
    };
    let long_prefix = |name: &str| opts().any(|a| a.starts_with("--") && a.len() >= 5 && name.starts_with(a.split('=').next().unwrap_or(a)));
    match prog {
        p if READERS.contains(&p) => Reading::Everything,
        // sed(1) `-i[SUFFIX]` / `--in-place[=SUFFIX]` (or an unambiguous prefix of it) edits the
        // files; its `w FILE` command writes one (checked as code).
        "sed" | "gsed" => {
            if cluster_has('i', "efl") || long_prefix("--in-place") {
                return Reading::Nothing(Access::Change);
            }
            script_then_files(args)
        }
        // perl(1) `-i` (`-pi`, `-0pi`, `-i.bak`) edits in place.
        "perl" => {
            if cluster_has('i', "eEIMmlx") {
                return Reading::Nothing(Access::Change);
            }
            script_then_files(args)
        }
        // gawk `-i inplace` / `--include=inplace`.
        "awk" | "gawk" | "mawk" | "nawk" => {
            let inplace = args.windows(2).any(|w| (w[0] == "-i" || w[0] == "--include") && w[1].starts_with("inplace")) || args.iter().any(|a| a == "-iinplace" || a.starts_with("--include=inplace"));
            if inplace {
                return Reading::Nothing(Access::Change);
            }
            script_then_files(args)
        }
        "sort" | "iconv" => match option_value(args, &["-o", "--output"]) {
            Some(out) => Reading::Except(vec![out.to_string()]),
            None => Reading::Everything,
        },
        // uniq(1) `INPUT OUTPUT`.
        "uniq" => Reading::Except(args.iter().filter(|a| !a.starts_with('-')).skip(1).cloned().collect()),
        "yq" => {
            if cluster_has('i', "") || long_prefix("--inplace") {
                Reading::Nothing(Access::Change)
            } else {
                Reading::Everything
            }
        }
        "tar" | "bsdtar" | "gtar" => {
            let first = args.first().map_or("", String::as_str);
            let mode_letters = if first.starts_with('-') { "" } else { first };
            let mode = |c: char, long: &str| mode_letters.contains(c) || opts().any(|a| (!a.starts_with("--") && a[1..].contains(c)) || a == long);
            // The archive: `-f FILE`, `--file=FILE`, a cluster ending in `f` (`-cf FILE`), or the
            // old style's second word (`tar cf FILE`).
            let archive = option_value(args, &["--file"])
                .map(str::to_string)
                .or_else(|| args.windows(2).find(|w| w[0].starts_with('-') && !w[0].starts_with("--") && w[0].ends_with('f')).map(|w| w[1].clone()))
                .or_else(|| mode_letters.contains('f').then(|| args.get(1).cloned()).flatten());
            if mode('x', "--extract") || mode('x', "--get") {
                // Extracts into -C DIR (or the working directory): judged as a copy into it.
                let dest = option_value(args, &["-C", "--directory"]).unwrap_or(".").to_string();
                return Reading::Copy { sources: Vec::new(), dest, moves: false };
            }
            if mode('c', "--create") || mode('r', "--append") || mode('u', "--update") {
                return Reading::Except(archive.into_iter().collect());
            }
            Reading::Everything
        }
        "unzip" => Reading::Copy { sources: Vec::new(), dest: option_value(args, &["-d"]).unwrap_or(".").to_string(), moves: false },
        // zip(1) `-m` moves the files into the archive (deletes them).
        "zip" if args.iter().any(|a| a == "-m" || a == "--move" || (a.starts_with('-') && !a.starts_with("--") && a.contains('m'))) => Reading::Nothing(Access::Remove),
        "zip" => Reading::Except(args.iter().find(|a| !a.starts_with('-')).cloned().into_iter().collect()),
        "cp" | "install" | "ln" | "rsync" | "scp" | "mv" | "ditto" | "copy-item" | "move-item" => copy(prog, args),
        "git" => git(args),
        "hookhost" => {
            let sub = args.iter().find(|a| !a.starts_with('-')).map_or("", String::as_str);
            let reads = matches!(sub, "" | "run" | "replay" | "diff" | "check" | "test" | "wit" | "new" | "config" | "bundle" | "serve" | "load-test" | "bench" | "audit" | "help" | "registry" | "doctor" | "coverage" | "schema" | "version");
            if reads {
                Reading::Everything
            } else {
                // `hookhost trust`, `lock`, `update`, `key`, `install`: they change hooks.
                Reading::Always(format!("hook configuration (hookhost {sub})"))
            }
        }
        // Deleting, or changing the mode or owner of, a tree: what it holds goes with it.
        "rm" | "rmdir" | "unlink" | "shred" | "del" | "erase" | "rd" | "remove-item" | "trash" | "trash-put" | "gio" | "chmod" | "chown" | "chgrp" | "chattr" | "setfacl" => Reading::Nothing(Access::Remove),
        "find" => find(args),
        _ => Reading::Nothing(Access::Change),
    }
}

/// sed / awk / perl without in-place editing: the script (the first operand, or `-e` /
/// `-f`'s) is code whose named files it may write; the other operands are read.
fn script_then_files(args: &[String]) -> Reading {
    let given = args.iter().any(|a| matches!(a.as_str(), "-e" | "-f" | "-E" | "--expression" | "--file") || a.starts_with("--expression="));
    let code: Vec<String> = if given {
        args.windows(2).filter(|w| matches!(w[0].as_str(), "-e" | "-E" | "--expression")).map(|w| w[1].clone()).collect()
    } else {
        args.iter().find(|a| !a.starts_with('-')).cloned().into_iter().collect()
    };
    if code.is_empty() {
        Reading::Everything
    } else {
        // Any file the code names is as good as written (`w .claude/settings.json`).
        let named: Vec<String> = code
            .iter()
            .flat_map(|c| c.split(|ch: char| ch.is_whitespace() || matches!(ch, '\'' | '"' | '(' | ')' | ',' | ';' | '>' | '<' | '{' | '}')).map(str::to_string).collect::<Vec<_>>())
            .filter(|t| t.contains('/') || t.contains('.'))
            .collect();
        Reading::Except(named)
    }
}

/// `cp` / `install` / `ln` / `rsync` / `scp` / `mv`: the destination is `-t DIR` or the last
/// operand.
fn copy(prog: &str, args: &[String]) -> Reading {
    let value_options: &[&str] = match prog {
        "install" => &["-m", "-o", "-g", "-S", "--mode", "--owner", "--group", "--suffix"],
        "rsync" => &["-e", "--rsh", "--exclude", "--include", "--filter", "-f", "--files-from", "--exclude-from", "--include-from", "--chmod", "--backup-dir", "--suffix", "--log-file", "--temp-dir", "-T", "--compare-dest", "--copy-dest", "--link-dest", "--partial-dir", "--rsync-path", "--password-file"],
        "scp" => &["-i", "-P", "-o", "-F", "-c", "-l", "-S", "-J"],
        "cp" | "mv" | "ln" => &["-S", "--suffix"],
        _ => &[],
    };
    let mut operands = Vec::new();
    let mut target = None;
    let mut it = args.iter();
    let mut done = false;
    while let Some(a) = it.next() {
        match a.as_str() {
            "--" if !done => done = true,
            "-t" | "--target-directory" | "-Destination" if !done => target = it.next().cloned(),
            t if !done && t.starts_with("--target-directory=") => target = Some(t["--target-directory=".len()..].to_string()),
            o if !done && value_options.contains(&o) => {
                it.next();
            }
            o if !done && o.starts_with('-') && o.len() > 1 => {}
            operand => operands.push(operand.to_string()),
        }
    }
    let moves = matches!(prog, "mv" | "move-item") || (prog == "rsync" && args.iter().any(|a| a == "--remove-source-files"));
    let dest = match target {
        Some(t) => t,
        None => match operands.pop() {
            Some(d) if !operands.is_empty() => d,
            // `ln -s TARGET` makes a link in the working directory; one operand copies nothing.
            Some(d) if prog == "ln" => {
                let name = d.trim_end_matches('/').rsplit('/').next().unwrap_or(&d).to_string();
                return Reading::Copy { sources: Vec::new(), dest: name, moves: false };
            }
            _ => return Reading::Everything,
        },
    };
    // A link's target is read only through the link: `ln -s /dev/null .claude/settings.json`
    // is judged by where the link goes.
    Reading::Copy { sources: operands, dest, moves }
}

/// git(1): the subcommands that change the working tree by path. Everything else reads.
fn git(args: &[String]) -> Reading {
    let mut i = 0;
    while i < args.len() && args[i].starts_with('-') {
        i += if matches!(args[i].as_str(), "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env") { 2 } else { 1 };
    }
    let Some((sub, rest)) = args.get(i..).and_then(|a| a.split_first()) else { return Reading::Everything };
    let outputs = || option_value(rest, &["-o", "--output", "--output-directory"]).map(str::to_string).into_iter().collect::<Vec<_>>();
    match sub.as_str() {
        // `git rm --cached` keeps the file.
        "rm" if rest.iter().any(|a| a == "--cached") => Reading::Everything,
        "rm" | "clean" => Reading::Nothing(Access::Remove),
        "checkout" | "restore" | "mv" | "checkout-index" | "merge-file" | "apply" | "am" => Reading::Nothing(Access::Change),
        // `git stash push -- FILE` puts the file back as it was committed.
        "stash" => {
            let pathspec: Vec<String> = rest.iter().skip_while(|a| *a != "--").skip(1).cloned().collect();
            if pathspec.is_empty() {
                let paths = rest.iter().filter(|a| !a.starts_with('-')).skip(1).cloned();
                Reading::Except(if matches!(rest.first().map(String::as_str), Some("push" | "save")) { paths.collect() } else { Vec::new() })
            } else {
                Reading::Except(pathspec)
            }
        }
        "format-patch" | "archive" | "diff" | "log" | "show" | "bundle" => Reading::Except(outputs()),
        "config" => Reading::Except(option_value(rest, &["--file", "-f"]).map(str::to_string).into_iter().collect()),
        _ => Reading::Everything,
    }
}

/// find(1): a find that deletes or runs a program on what it finds changes what its name
/// filters can match (`find . -name settings.json -delete`). Reading finds (`-print`, `-ls`,
/// `-exec cat {} ;`) read.
fn find(args: &[String]) -> Reading {
    let writes = args.iter().any(|a| a == "-delete")
        || crate::fs::find_execs(args).any(|argv| argv.first().is_some_and(|p| !READERS.contains(&program(p).as_str())));
    let out: Vec<String> = args.windows(2).filter(|w| matches!(w[0].as_str(), "-fprint" | "-fprint0" | "-fprintf" | "-fls")).map(|w| w[1].clone()).collect();
    if writes {
        // `-name '*'` filters nothing (the destructive rules judge such a find).
        let filters: Vec<&str> = args.windows(2).filter(|w| matches!(w[0].as_str(), "-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename") && !pure_wildcard(&w[1])).map(|w| w[1].as_str()).collect();
        // A filter that can match a hook file's name, or none at all under a hook directory.
        let hits = filters.iter().find(|f| {
            let f = f.to_ascii_lowercase();
            NAMES.iter().any(|n| wildcard(&f, n)) || FILES.iter().chain(DIRS).any(|p| wildcard(&f, &format!("./{p}")) || wildcard(&f, p))
        });
        if let Some(f) = hits {
            return Reading::Always(format!("the files its filter {f} matches"));
        }
        if filters.is_empty() {
            // No filter: every file under the starting points (hook files among them, when
            // they are or hold a hook directory).
            return Reading::Nothing(Access::Remove);
        }
    }
    Reading::Except(out)
}

/// What a command may do to a path it is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Read only.
    Read,
    /// Write it: a hook file, anything inside a hook directory, a directory holding one.
    Change,
    /// Delete it or what it holds: as `Change`, but hookhost's compile cache may go.
    Remove,
    /// Put files into it (a copy, move, link or extraction): as `Change`, and a directory
    /// that holds hook configuration among other things (`.claude/`).
    Into,
}

/// What `path` is, when `access` to it would change hook configuration.
pub fn protected(path: &str, cwd: Option<&str>, access: Access) -> Option<String> {
    if access == Access::Read {
        return None;
    }
    let describe = || format!("{path} (hook configuration)");
    let parts = parts(path, cwd);
    if parts.is_empty() {
        return None;
    }
    if FILES.iter().any(|p| ends_with(&parts, p)) {
        return Some(describe());
    }
    // Where a directory's first component is (a cheap compare) before the whole pattern is.
    let inside_dir = |dirs: &[&str]| {
        dirs.iter().any(|p| {
            let first = p.split('/').next().unwrap_or_default();
            (0..parts.len()).any(|i| component(&parts[i], first) && starts_with(&parts[i..], p))
        })
    };
    let rooted = ROOTED.iter().any(|p| parts.first().map(String::as_str) == Some("/") && starts_with(&parts[1..], p));
    if rooted {
        return Some(describe());
    }
    let rebuildable = access == Access::Remove && REBUILDABLE.iter().any(|r| ends_with(&parts, r));
    if inside_dir(DIRS) && !rebuildable {
        return Some(describe());
    }
    // A directory that holds hook configuration (`.claude`, `.github`, `~/.config`, `/etc`):
    // removing, moving or changing the mode of it as a whole reaches what it holds.
    let last = parts.last()?.as_str();
    if access == Access::Remove && !pure_wildcard(last) && !rebuildable {
        let holds = FILES.iter().chain(DIRS).any(|p| p.contains('/') && component(last, p.split('/').next().unwrap_or("")))
            || DIRS.iter().any(|d| component(last, d))
            || (parts.len() == 2 && parts[0] == "/" && ROOTED.iter().any(|r| component(last, r.trim_start_matches('/').split('/').next().unwrap_or(""))));
        if holds {
            return Some(format!("{path}, which {HOLDS}"));
        }
    }
    // A hook directory itself, given to a program that may write into it.
    if !rebuildable && CONFIG_DIRS.iter().chain(DIRS).any(|d| ends_with(&parts, d)) {
        return Some(if path.contains(['*', '?', '[']) { format!("{path}, which {HOLDS}") } else { describe() });
    }
    None
}

/// How a reason says a path is protected because it holds hook configuration (`/etc`, `~`) or
/// is a glob that may name some (`.*`): where the destructive rules also stop the command,
/// theirs is the better reason.
pub(crate) const HOLDS: &str = "reaches hook configuration";

/// A path written, removed or linked over that is hookhost's own binary in a `bin` directory
/// (`~/.cargo/bin/hookhost`, `/usr/local/bin/hookhost-send`), or a name computed from finding it
/// (`rm "$(which hookhost)"`): hookhost removed or replaced.
fn replaces_binary(path: &str, cwd: Option<&str>) -> Option<Finding> {
    let parts = parts(path, cwd);
    let last = parts.last()?.as_str();
    let named = matches!(last, "hookhost" | "hookhost-send" | "hookhost.exe" | "hookhost-send.exe");
    let in_bin = parts.len() >= 2 && matches!(parts[parts.len() - 2].as_str(), "bin" | "sbin" | ".bin");
    (named && in_bin).then(|| STOP.finding_for(format!("{path} is hookhost itself")))
}

/// The path's components as self-protection compares them: `\` read as `/`, a drive letter as
/// the root, lower case (macOS and Windows fold case).
fn parts(path: &str, cwd: Option<&str>) -> Vec<String> {
    let fold = |p: &str| {
        let p = if p.contains('\\') { p.replace('\\', "/") } else { p.to_string() };
        let mut p = if is_windows_absolute(&p) { format!("/{}", &p[3..]) } else { p };
        p.make_ascii_lowercase();
        windows_variable(&p).unwrap_or(p)
    };
    let cwd = cwd.map(fold);
    let path = fold(path);
    // A relative working directory (after `cd dir` with none known) is joined as text.
    match cwd.as_deref() {
        Some(c) if !c.starts_with('/') && !path.starts_with('/') && !path.starts_with('~') && !path.starts_with('$') => components(&format!("{c}/{path}"), None),
        c => components(&path, c),
    }
}

/// A path that starts with a Windows directory variable (`%APPDATA%`, PowerShell's
/// `$env:APPDATA`; folded to lower case) read as where it points for the user: under `~`, or
/// from the root for `ProgramData`.
fn windows_variable(p: &str) -> Option<String> {
    let (name, rest) = match p.strip_prefix('%') {
        Some(r) => r.split_once('%')?,
        None => {
            let r = p.strip_prefix("$env:").or_else(|| p.strip_prefix("${env:"))?;
            let end = r.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(r.len());
            (&r[..end], r[end..].trim_start_matches('}'))
        }
    };
    let base = match name {
        "appdata" => "~/appdata/roaming",
        "localappdata" => "~/appdata/local",
        "userprofile" | "home" => "~",
        "programdata" | "allusersprofile" => "/programdata",
        "programfiles" => "/program files",
        _ => return None,
    };
    Some(format!("{base}{rest}"))
}

fn is_windows_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'/' || b[2] == b'\\')
}

/// A path component against a protected name: glob characters match as the shell matches
/// them (a `[…]` class as one character; a leading `.` only literally).
fn component(part: &str, name: &str) -> bool {
    if !part.contains(['*', '?', '[']) {
        return part == name;
    }
    if name.starts_with('.') && !part.starts_with('.') {
        return false;
    }
    wildcard(&classes_as_any(part), name)
}

/// `[…]` classes read as `?` (any one character): enough to know a glob may name a file.
fn classes_as_any(glob: &str) -> String {
    let mut out = String::with_capacity(glob.len());
    let mut in_class = false;
    for c in glob.chars() {
        match c {
            '[' if !in_class => {
                in_class = true;
                out.push('?');
            }
            ']' if in_class => in_class = false,
            _ if in_class => {}
            c => out.push(c),
        }
    }
    out
}

fn pure_wildcard(part: &str) -> bool {
    part.chars().all(|c| matches!(c, '*' | '?'))
}

/// Whether `parts` begins with `pattern`, and names it: a pattern met only by bare `*` words
/// (`build/*` against `hooks.lock`) is not named.
fn starts_with(parts: &[String], pattern: &str) -> bool {
    // A protected pattern's components (`/etc/hookhost` from the root), compared as they are
    // split: no list is built.
    let pattern = pattern.trim_start_matches('/');
    let len = pattern.split('/').count();
    parts.len() >= len && parts.iter().zip(pattern.split('/')).all(|(part, pat)| component(part, pat)) && parts[..len].iter().any(|part| !pure_wildcard(part))
}

fn ends_with(parts: &[String], pattern: &str) -> bool {
    let len = pattern.trim_start_matches('/').split('/').count();
    parts.len() >= len && starts_with(&parts[parts.len() - len..], pattern)
}

/// `NAME=value` set on the line: a variable that moves or switches off hook configuration.
/// `exported`: by `export` / `declare -x` / `env`, for every later command.
fn assignment(a: &str, line: &Line, exported: bool) -> Option<Finding> {
    let (name, _) = a.split_once('=')?;
    let name = name.trim_start_matches("export ").trim();
    let moves = always_protected_var(name) || (AGENT_VARS.contains(&name) && (line.agent_starts || exported));
    moves.then(|| NESTED_AGENT.finding_for(format!("{name} set on the line moves hook configuration away from the agent's own")))
}

/// An agent CLI started with an option about hooks, or hooks' locations moved for it.
fn nested_agent(prog: &str, args: &[String], line: &Line) -> Option<Finding> {
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
fn finds_hookhost(words: &[String]) -> bool {
    let Some((prog, args)) = words.split_first() else { return false };
    let prog = program(prog);
    matches!(prog.as_str(), "pgrep" | "pidof" | "ps" | "grep" | "egrep" | "rg" | "lsof" | "fuser" | "which" | "whereis" | "type" | "command" | "readlink" | "realpath" | "awk" | "get-process" | "tasklist" | "pstree" | "systemctl" | "launchctl" | "find" | "locate")
        && args.iter().any(|a| !a.starts_with('-') && matches_hookhost(a))
}

/// Whether a process pattern (pkill's and pgrep's extended regular expression, unanchored) or a
/// name would match hookhost's processes (`hookhost serve`, `hookhost-send`, a path to them).
fn matches_hookhost(pattern: &str) -> bool {
    let p = pattern.to_ascii_lowercase();
    if p.contains("hookhost") {
        return true;
    }
    ["hookhost serve", "hookhost-send", "/usr/local/bin/hookhost run", "hookhost.exe"].iter().any(|target| regex_lite::search(&p, target))
}

/// Why this command would stop hookhost, or `None`.
fn stops_hookhost(prog: &str, args: &[String], line: &Line) -> Option<Finding> {
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

#[cfg(test)]
mod tests {
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
                assert!(p(install.project_file), "{r}: {}", install.project_file);
                if let Some(var) = install.home_var {
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
}
