//! `guard-destructive`: stops shell commands that destroy a user's work or machine — blocked
//! where the loss cannot be undone, asked about where it is smaller — with a reason that names
//! the rule and the safer command.
//!
//! The command is read with a real shell parser (bashkit's): every simple command of the line
//! is checked — in lists, pipelines, subshells, loops, conditionals, function bodies and
//! command substitutions, after `VAR=value` prefixes and redirections are set apart and
//! unquoted braces expanded. Wrappers that run another command are unwrapped (the table in
//! `hookhost-shell-parse`: `sudo`, `env`, `timeout`, `watch`, `flock`, `xargs`, `parallel`, ...),
//! and `sh -c` strings, `su -c`, `ssh host CMD` and `eval` arguments are parsed in turn.
//!
//! The `core` pack: [`fs`] (recursive deletion judged by where its targets resolve — the
//! project, outside it, a root, a `.git` directory, a temporary directory or a build output —
//! `find` deleting, `shred`, `mkfs`, `dd` onto a device, recursive `chmod`/`chown` of a root,
//! fork bombs) and [`git`] (work a reset, clean, checkout, restore, force push, branch or stash
//! deletion, reflog expiry or filter-branch would throw away) and [`interp`] (the same through
//! code handed to an interpreter). The opt-in [`packs`]: databases, containers, Kubernetes,
//! cloud CLIs, infrastructure state, remote storage, backups, forges, secrets. A line the parser
//! refuses is blocked when it names one of these programs. The cases each rule is held to are
//! in `corpus/` ([`corpus`]). The opt-in [`taint`] pack asks before a call sends data out or
//! edits CI after a tool output of the session carried a secret or content from the network.
//!
//! Write-then-run (`remember.rs`, setting `remember`): a script, Makefile or `package.json` the
//! agent wrote earlier in the session is judged by what it wrote when a later call runs it.
//!
//! Not caught (by design, see docs/CONFIG.md): commands assembled at run time (`$cmd`,
//! `$(echo rm) -rf /`), scripts it never saw written, aliases and functions defined elsewhere,
//! and code that reaches a command other than through the calls [`interp`] reads.
//!
//! Self-protection ([`protect`], on unless `protect_hooks = false`): a tool call that would
//! change, move or remove hook configuration (Claude Code's, Codex's, Gemini CLI's, Copilot
//! CLI's, hookhost's own layers and state) or stop hookhost is blocked; reading it is not.
//!
//! Settings (all optional): `packs` (list, default `["core"]`; `"all"` is every pack),
//! `allow` (list of commands the user accepts: a simple command whose words, joined by single
//! spaces, match one — `*` matches any run of characters — is not checked), `strict_rm` (bool,
//! block every `rm -rf`, as Everruns' guard_rm example does), `protect_hooks` (bool, default true) and
//! `user_message` (string, what the human is told).

#![deny(missing_docs)]

use hookhost_sdk::prelude::*;
use hookhost_sdk::serde_json;

use hookhost_shell_parse as shell;

/// Declares rules (`ID = "area.name", Block|Ask, "what it stops", "what to do instead";`) and
/// `RULES`, the list of them, in the module that invokes it.
macro_rules! rules {
    ($($id:ident = $name:literal, $verdict:ident, $what:literal, $instead:literal;)*) => {
        $(pub(crate) const $id: crate::Rule = crate::Rule { name: $name, verdict: crate::Verdict::$verdict, what: $what, instead: $instead };)*
        /// Every rule this module declares.
        pub const RULES: &[crate::Rule] = &[$($id),*];
    };
}

pub mod corpus;
mod finding;
pub mod fs;
pub mod git;
pub mod interp;
pub mod packs;
mod paths;
pub mod protect;
mod remember;
pub mod taint;

pub use finding::{Finding, Verdict};

/// One rule, for the docs and its reasons: its name, what it stops, the safer alternative.
pub struct Rule {
    /// `<area>.<name>` (`git.reset-hard`), as reasons name it.
    pub name: &'static str,
    /// Block or ask.
    pub verdict: Verdict,
    /// What the rule stops and why.
    pub what: &'static str,
    /// What to do instead.
    pub instead: &'static str,
}

impl Rule {
    /// The finding, with the rule's own description.
    fn finding(&self) -> Finding {
        self.finding_for(self.what.to_string())
    }

    /// The finding for one command: `what` says what it does (`recursive delete of /etc`).
    fn finding_for(&self, what: String) -> Finding {
        Finding { verdict: self.verdict, reason: format!("{what} (rule {}); instead: {}", self.name, self.instead) }
    }
}

/// The guard's own rules: what it does with a line it cannot read.
pub mod guard {
    rules! {
        UNPARSEABLE = "guard.unparseable", Block,
            "a line the shell parser refuses that names a program the guard blocks (rm, mkfs, dd, find, chmod, chown, shred, xargs, git)",
            "fix the quoting";
        UNREADABLE = "guard.unreadable", Ask,
            "a line the shell parser refuses (or whose expansions hide commands it cannot read) that mentions another program the guard acts on — an interpreter, a shell, a pack's tool: what would run is unknown",
            "fix the quoting, or run the inner command on a line of its own";
        TOO_DEEP = "guard.too-deep", Block,
            "commands nested deeper than the guard follows (`sh -c`, `eval`, wrappers)",
            "run the inner command directly";
        LOOP = "guard.loop", Ask,
            "the same shell command failed `loop_after` times in a row in this session (opt-in; the guard must also run on post_tool_use to see results)",
            "read the error and change the approach instead of retrying";
    }
}

/// The rule packs there are: `core`, the opt-in ones ([`packs::OPT_IN`]; `"all"` in `packs`
/// means `core` and every one of them), and [`taint`], which is named on its own (it needs the
/// guard on `post_tool_use` too, and reads its state on every call).
pub const PACKS: &[&str] = &["core", "database", "containers", "kubernetes", "cloud", "infrastructure", "storage", "backup", "platform", "secrets", "taint"];

/// What the guard checks, from its settings.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Block every forced recursive `rm`.
    pub strict_rm: bool,
    /// The `core` pack (filesystem, git, interpreters).
    pub core: bool,
    /// The opt-in packs on: a bit per entry of [`packs::OPT_IN`].
    pub opt_in: u16,
    /// Commands the user accepts (`*` matches any run of characters).
    pub allow: Vec<String>,
    /// The working directory the command runs in (the event's `cwd`): the project.
    pub cwd: Option<String>,
    /// Write-then-run: judge a script by what the agent wrote into it this session, and follow
    /// the links and moves it made (session state; `remember.rs`).
    pub remember: bool,
    /// Ask when the same shell command failed this many times in a row (0: off).
    pub loop_after: u32,
    /// Self-protection (`protect_hooks`): hook configuration is not changed, by a tool call or
    /// by a script the agent wrote earlier that a call runs.
    pub protect: bool,
    /// The `taint` pack is on ([`taint`]).
    pub taint_pack: bool,
    /// Why the session is tainted, when the pack is on and it is: sending data out and CI
    /// edits are asked about.
    pub taint: Option<String>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy { strict_rm: false, core: true, opt_in: 0, allow: Vec::new(), cwd: None, remember: true, loop_after: 0, protect: true, taint_pack: false, taint: None }
    }
}

impl Policy {
    /// The policy a guard hook's settings ask for, or what is wrong with them (what
    /// `validate-settings` answers).
    pub fn from_settings(settings: &Value) -> Result<Policy, String> {
        self::settings(settings).map(|s| s.policy)
    }

    /// The packs on, as [`PACKS`] names them.
    pub fn packs(&self) -> Vec<&'static str> {
        let core = self.core.then_some("core");
        let taint = self.taint_pack.then_some("taint");
        core.into_iter().chain(packs::OPT_IN.iter().enumerate().filter(|(i, _)| self.opt_in & (1 << i) != 0).map(|(_, p)| *p)).chain(taint).collect()
    }

    /// Every rule in force, in the order `hookhost check -v` lists them: the `core` pack's when
    /// it is on (`fs.strict-rm` only with `strict_rm`), then each opt-in pack's (named after it).
    pub fn rules(&self) -> Vec<&'static Rule> {
        let core = fs::RULES.iter().chain(git::RULES).chain(interp::RULES).chain(guard::RULES).filter(|r| self.core && (self.strict_rm || r.name != fs::STRICT_RM.name) && (self.loop_after > 0 || r.name != guard::LOOP.name));
        let on = self.packs();
        core.chain(packs::RULES.iter().chain(taint::RULES).filter(|r| r.name.split('.').next().is_some_and(|pack| on.contains(&pack)))).collect()
    }

    fn allows(&self, words: &[String]) -> bool {
        !self.allow.is_empty() && {
            let line = words.join(" ");
            self.allow.iter().any(|p| paths::wildcard(p, &line))
        }
    }
}

/// How deep `sh -c`, `eval` and wrappers may nest before the guard gives up and blocks.
const MAX_NESTING: usize = 8;

/// Programs whose mere mention in a line the parser refuses is enough to block it.
const DANGEROUS: &[&str] = &["rm", "mkfs", "dd", "find", "chmod", "chown", "shred", "xargs", "git"];

/// Why a command line is destructive, or `None`, under the default policy (`strict_rm` aside):
/// the reason of the first rule that blocks (or, when none blocks, asks).
pub fn check(command: &str, strict_rm: bool) -> Option<String> {
    check_line(command, &Policy { strict_rm, ..Policy::default() }).map(|f| f.reason)
}

/// What the rules of `policy` find in a command line: the first block, else the first ask.
pub fn check_line(command: &str, policy: &Policy) -> Option<Finding> {
    check_script(command, policy, 0)
}

/// Every program name the guard acts on, wrappers that run a string, and fork bombs' `(`.
const NEEDLES: &[&str] = &[
    "rm", "mkfs", "dd", "find", "chmod", "chown", "shred", "xargs", "git", "eval", "sh", "env", "exec", "python", "pypy", "node", "bun", "deno", "perl", "ruby", "php",
];

/// A line that cannot run anything the guard blocks, decided without parsing (the parse is most
/// of the guard's cost): none of the program names it acts on appears, and nothing that could
/// assemble one at parse time does — quotes, escapes, expansions, braces, parentheses.
fn obviously_harmless(script: &str, policy: &Policy) -> bool {
    !script.contains(['\'', '"', '\\', '$', '`', '{', '}', '(', ')'])
        && !mentions_any(script.as_bytes(), NEEDLES)
        && (policy.opt_in == 0 || !mentions_any(script.as_bytes(), packs::PROGRAMS))
        && (policy.taint.is_none() || !taint::mentioned(script))
        && (!policy.remember || !runs_what_was_written(script))
}

/// Programs that delete or change a tree, whose paths a link or move made earlier in the session
/// may redirect (the moves `remember.rs` keeps).
const TREE_CHANGERS: &[&str] = &["rm", "find", "shred", "chmod", "chown", "unlink", "trunc", "dd"];

/// Programs and paths that run what the agent may have written earlier in the session
/// ([`remember`]): `./x.sh`, `/path/x.sh` as a command, `make`, package scripts (`bun` and the
/// shells are [`NEEDLES`] already).
const RUNS_WRITTEN: &[&str] = &["./", "make", "npm", "yarn", "pnpm", "; /", "& /", "| /"];

fn runs_what_was_written(script: &str) -> bool {
    script.trim_start().starts_with('/') || mentions_any(script.as_bytes(), RUNS_WRITTEN)
}

/// Whether any of `needles` occurs in `script`, in one pass: `str::contains` per needle set up
/// a two-way searcher for each of them on every call, ~5% of a fresh instance's decision. Only
/// the positions holding a needle's first byte are compared.
pub(crate) fn mentions_any(script: &[u8], needles: &[&str]) -> bool {
    let mut first = [false; 256];
    for n in needles {
        if let Some(&b) = n.as_bytes().first() {
            first[b as usize] = true;
        }
    }
    // At a candidate position, a needle's first byte is compared before the needle is: a
    // common letter costs one byte compare per needle, not a slice compare each.
    (0..script.len()).any(|i| first[script[i] as usize] && needles.iter().any(|n| n.as_bytes().first() == Some(&script[i]) && script[i..].starts_with(n.as_bytes())))
}

/// The rules of `policy` for a shell line `depth` levels deep (in `sh -c`, `eval`, code).
pub(crate) fn check_script(script: &str, policy: &Policy, depth: usize) -> Option<Finding> {
    if depth > MAX_NESTING {
        return Some(guard::TOO_DEEP.finding_for("commands nested too deep to check".into()));
    }
    if (!policy.core && policy.opt_in == 0 && policy.taint.is_none()) || obviously_harmless(script, policy) {
        return None;
    }
    if shell::has_fork_bomb(script) {
        return Some(fs::FORK_BOMB.finding_for("fork bomb".into()));
    }
    match shell::parse(script) {
        Ok(parsed) => {
            // Trees moved earlier in the line — or linked or moved earlier in the session — are
            // judged where they came from when a later command deletes them (`mv ~/Documents
            // /tmp/t && rm -rf /tmp/t`).
            // (The session's links are read only for a line that may delete or change a tree:
            // each read of the state store costs a `hookhost run` its opening, ~0.4 ms.)
            let mut moved = if depth == 0 && mentions_any(script.as_bytes(), TREE_CHANGERS) { remember::moves(policy) } else { Vec::new() };
            Finding::first_block_else_ask(parsed.commands.iter().enumerate().map(|(i, words)| {
                let stdin = parsed.inputs.iter().find(|(at, _)| *at == i).map(|(_, text)| text.as_str());
                let words = paths::relocate(words, &moved);
                paths::record_move(&words, &mut moved);
                check_command(&words, policy, depth, false, stdin)
            }))
        }
        Err(why) => unparseable(script, &why, policy),
    }
}

/// A line the parser refuses (`why`): blocked when a word of it names a program the guard
/// blocks; else asked when a word names another program the rules act on (an interpreter, a
/// shell, `eval`, an enabled pack's tool), since what would run is unknown — bash runs the
/// lines before a syntax error, and the `$(…)` in arithmetic; else left alone: nothing in it
/// is anything the guard would stop.
fn unparseable(script: &str, why: &str, policy: &Policy) -> Option<Finding> {
    // Words as the shell would join them (`\rm`, `r""m`, `g\it` are rm and git): quotes and
    // backslashes removed first, then split where the shell would.
    let unquoted = unquote(script);
    let words = || {
        unquoted
            .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '`' | '$' | '{' | '}' | '[' | ']' | '<' | '>' | '=' | ','))
            .map(shell::program)
    };
    if let Some(named) = words().find(|w| DANGEROUS.contains(w) || w.starts_with("mkfs.")) {
        return Some(guard::UNPARSEABLE.finding_for(format!("the command could not be parsed ({why}) and runs {named}")));
    }
    let acts_on = |w: &str| {
        interp::lang_of(w).is_some() || matches!(w, "eval" | "exec" | "source") || (policy.opt_in != 0 && packs::PROGRAMS.contains(&w)) || (policy.taint.is_some() && taint::acts_on(w))
    };
    let named = words().find(|w| acts_on(w))?;
    Some(guard::UNREADABLE.finding_for(format!("the command could not be parsed ({why}) and runs {named}")))
}

/// `text` without the quotes and backslashes the shell would remove before it runs a word
/// (`r""m` is `rm`, `.cla\ude` is `.claude`): how the guards read a line the parser refuses.
pub(crate) fn unquote(text: &str) -> String {
    text.chars().filter(|c| !matches!(c, '\'' | '"' | '\\')).collect()
}

/// Check an argv (a tool call's `command` given as a list).
pub fn check_argv(argv: &[String], policy: &Policy) -> Option<Finding> {
    if !policy.core && policy.opt_in == 0 && policy.taint.is_none() {
        return None;
    }
    check_command(argv, policy, 0, false, None)
}

/// `from_input`: the command's arguments are extended with words read from input (`xargs`).
/// `stdin`: the here-document or here-string it reads, when the line gives it one.
pub(crate) fn check_command(words: &[String], policy: &Policy, depth: usize, from_input: bool, stdin: Option<&str>) -> Option<Finding> {
    if depth > MAX_NESTING {
        return Some(guard::TOO_DEEP.finding_for("commands nested too deep to check".into()));
    }
    if policy.allows(words) {
        return None;
    }
    let (prog, args) = words.split_first()?;
    let prog = shell::program(prog);
    // After a secret or fetched content (the `taint` pack): a command that sends data out —
    // `ssh` before what it runs there is unwrapped.
    let sends = policy.taint.as_deref().filter(|_| taint::sends(prog, args)).map(|why| taint::egress(words, why));
    // Wrappers and shells given a string: what they run is checked (the same table the host's
    // `if` rules unwrap with).
    match shell::runs(prog, args) {
        Some(shell::Runs::Argv(inner)) => {
            return Finding::first_block_else_ask([sends, check_command(inner, policy, depth + 1, from_input || matches!(prog, "xargs" | "parallel"), stdin)].into_iter());
        }
        Some(shell::Runs::Script(text)) => return Finding::first_block_else_ask([sends, check_script(&text, policy, depth + 1)].into_iter()),
        None => {}
    }
    let opt_in = (policy.opt_in != 0).then(|| packs::check(policy.opt_in, prog, args, stdin)).flatten();
    if !policy.core {
        return Finding::first_block_else_ask([opt_in, sends].into_iter());
    }
    // What the agent wrote earlier in the session and this command runs: a script by its path,
    // a Makefile's recipe, a package.json script.
    let written = match prog {
        _ if !policy.remember => None,
        "make" | "gmake" => remember::make(args, policy, depth),
        "npm" | "pnpm" | "yarn" | "bun" => remember::package_script(prog, args, policy, depth),
        _ if words[0].contains('/') && interp::lang_of(prog).is_none() => remember::run_file(&words[0], None, policy, depth),
        _ => None,
    };
    Finding::first_block_else_ask([written, core_rules(prog, args, policy, depth, from_input, stdin), opt_in, sends].into_iter())
}

/// The `core` pack's rules for one (unwrapped) command.
fn core_rules(prog: &str, args: &[String], policy: &Policy, depth: usize, from_input: bool, stdin: Option<&str>) -> Option<Finding> {
    // at(1) and batch(1) run the shell commands they read (`at now <<< 'rm -rf ~'`) unless
    // given a file (`-f`); source and `.` run a file in this shell.
    let lang = match prog {
        "at" | "batch" if !args.iter().any(|a| a == "-f" || a == "-l" || a == "-d" || a == "-r" || a == "-c") => Some(interp::Lang::Shell),
        _ => interp::lang_of(prog),
    };
    let source = match (prog, lang) {
        ("at" | "batch", _) => Some(interp::Source::Stdin),
        ("source" | ".", _) => Some(interp::Source::File(args.first().map_or("", String::as_str))),
        (_, Some(lang)) => Some(interp::source(lang, args)),
        _ => None,
    };
    if let Some(source) = source {
        return match (source, stdin) {
            (interp::Source::Inline(code), _) | (interp::Source::Stdin, Some(code)) => interp::check_code(lang.unwrap_or(interp::Lang::Shell), code, policy, depth, &ShellRules),
            (interp::Source::Stdin, None) => Some(interp::STDIN_SCRIPT.finding_for(format!("{prog} runs a script from its input"))),
            // `bash /dev/stdin <<< …`: the file is its input.
            (interp::Source::File(f), Some(code)) if interp::is_stdin_file(f) => interp::check_code(lang.unwrap_or(interp::Lang::Shell), code, policy, depth, &ShellRules),
            (interp::Source::File(f), None) if interp::is_stdin_file(f) => Some(interp::STDIN_SCRIPT.finding_for(format!("{prog} runs a script from its input"))),
            // `bash <(curl …)`, `source <(…)`: a script made when the line runs, as `curl … | bash`.
            (interp::Source::File(f), _) if f.starts_with("$(") => Some(interp::STDIN_SCRIPT.finding_for(format!("{prog} runs a script another command writes as the line runs"))),
            // A script file: judged by what the agent wrote into it this session, if it did.
            (interp::Source::File(f), _) => remember::run_file(f, Some(lang.unwrap_or(interp::Lang::Shell)), policy, depth),
        };
    }
    if prog == "git" {
        let scripts = git::scripts(args);
        if !scripts.is_empty() {
            return Finding::first_block_else_ask(scripts.iter().map(|s| check_script(s, policy, depth + 1)).chain([git::check(args)]));
        }
        return git::check(args);
    }
    if prog == "find" {
        // What `-exec` / `-execdir` / `-ok` run for each file, beyond deleting (which
        // `fs.find-delete` judges with the starting points).
        let inner = fs::find_execs(args).filter(|argv| !argv.first().is_some_and(|p| fs::DELETERS.contains(&shell::program(p))));
        let execs = Finding::first_block_else_ask(inner.map(|argv| check_command(argv, policy, depth + 1, true, None)));
        return Finding::first_block_else_ask([execs, fs::check(prog, args, policy.strict_rm, from_input, policy.cwd.as_deref())].into_iter());
    }
    fs::check(prog, args, policy.strict_rm, from_input, policy.cwd.as_deref())
}

/// What a tool call asks the shell to run: `command` / `cmd` / `commands` / `script` as a
/// string (a script) or a list of strings (an argv). Arguments that arrive as a JSON string
/// are decoded first.
pub(crate) enum Shell<'a> {
    Script(&'a str),
    Argv(Vec<String>),
}

pub(crate) fn shell_of(arguments: &Value) -> Vec<Shell<'_>> {
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
fn check_call(arguments: &Value, policy: &Policy) -> Option<Finding> {
    if let Value::String(text) = arguments {
        // Arguments sent as JSON text; anything else is the script itself.
        return match serde_json::from_str::<Value>(text) {
            Ok(v @ Value::Object(_)) => check_call(&v, policy),
            // JSON deeper than serde_json reads (128 levels) that a runtime with another
            // parser may still read and run: what it holds is unknown.
            Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
                Some(guard::UNREADABLE.finding_for(format!("the tool call's arguments nest deeper than the guard reads ({e})")))
            }
            _ => check_line(text, policy),
        };
    }
    Finding::first_block_else_ask(shell_of(arguments).into_iter().map(|s| match s {
        Shell::Script(text) => check_line(text, policy),
        Shell::Argv(argv) => check_argv(&argv, policy),
    }))
}

struct Settings {
    policy: Policy,
    user_message: Option<String>,
}

/// `settings.<key>` as a list of strings.
fn strings(key: &str, value: &Value) -> Result<Vec<String>, String> {
    let err = || format!("settings.{key} must be a list of strings");
    value.as_array().ok_or_else(err)?.iter().map(|v| v.as_str().map(str::to_string).ok_or_else(err)).collect()
}

fn settings(v: &Value) -> Result<Settings, String> {
    let obj = v.as_object().ok_or("settings must be an object")?;
    let mut s = Settings { policy: Policy::default(), user_message: None };
    for (key, value) in obj {
        match key.as_str() {
            "strict_rm" => s.policy.strict_rm = value.as_bool().ok_or("settings.strict_rm must be true or false")?,
            "protect_hooks" => s.policy.protect = value.as_bool().ok_or("settings.protect_hooks must be true or false")?,
            "remember" => s.policy.remember = value.as_bool().ok_or("settings.remember must be true or false")?,
            "loop_after" => s.policy.loop_after = value.as_u64().filter(|n| (2..=100).contains(n)).ok_or("settings.loop_after must be a number of failures from 2 to 100")? as u32,
            "user_message" => s.user_message = Some(value.as_str().ok_or("settings.user_message must be a string")?.to_string()),
            "packs" => {
                let packs = strings(key, value)?;
                s.policy.core = packs.iter().any(|p| p == "all" || p == "core");
                s.policy.taint_pack = packs.iter().any(|p| p == "taint");
                s.policy.opt_in = packs::enabled(&packs).map_err(|unknown| format!("unknown pack {unknown:?} in settings.packs; the packs are {} (or \"all\": every one but taint)", PACKS.join(", ")))?;
            }
            "allow" => {
                let allow = strings(key, value)?;
                if let Some(blank) = allow.iter().position(|p| p.trim().is_empty() || p.trim() == "*") {
                    return Err(format!("settings.allow[{blank}] would allow every command; name the commands to allow (e.g. \"git push --force origin my-branch\")"));
                }
                s.policy.allow = allow;
            }
            other => return Err(format!("unknown setting {other:?}; known settings are packs, allow, strict_rm, protect_hooks, remember, loop_after, user_message")),
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
        let mut s = settings(&ctx.settings)?;
        s.policy.cwd = ctx.cwd.clone();
        let call = match &event {
            Event::PreToolUse(call) | Event::PermissionRequest(call) => call,
            // A tool's result: a shell command's, for the loop rule; what it carried, for the
            // taint pack.
            Event::PostToolUse(result) if s.policy.loop_after > 0 || s.policy.taint_pack => {
                if s.policy.loop_after > 0 {
                    let failed = result.is_error || result.result.get("exit_code").or_else(|| result.result.get("exitCode")).and_then(Value::as_i64).is_some_and(|c| c != 0);
                    for shell in shell_of(&result.arguments) {
                        if let Shell::Script(line) = shell {
                            remember::record_result(line, failed);
                        }
                    }
                }
                if s.policy.taint_pack {
                    taint::record(&result.name, &result.arguments, &result.result);
                }
                return Ok(Decision::pass());
            }
            _ => return Ok(Decision::pass()),
        };
        if s.policy.taint_pack {
            s.policy.taint = taint::why();
        }
        // What the call writes, read once: remembered (write-then-run), and judged in a tainted
        // session (CI definitions).
        let writes = (s.policy.remember || s.policy.taint.is_some()).then(|| remember::writes_of(&call.name, &call.arguments));
        // Codex's apply_patch carries a patch, not a shell line: its context lines run nothing.
        let destructive = || {
            let line = if call.name.eq_ignore_ascii_case("apply_patch") { None } else { check_call(&call.arguments, &s.policy) };
            let tainted = s.policy.taint.as_deref().zip(writes.as_ref()).and_then(|(why, w)| taint::check_call(&call.name, &call.arguments, w, &s.policy, why));
            Finding::first_block_else_ask([line, tainted].into_iter())
        };
        let protected = Some(call).filter(|_| s.policy.protect).and_then(|c| protect::check_call(&c.name, &c.arguments, ctx.cwd.as_deref()));
        let found = match protected {
            // A tree that merely holds hook configuration (`rm -rf /etc`): the destructive rule,
            // when one blocks too, says more.
            Some(f) if f.reason.contains(protect::HOLDS) => match destructive() {
                Some(d) if d.verdict == Verdict::Block => Some(d),
                _ => return Ok(protection(f, s.user_message)),
            },
            Some(f) => return Ok(protection(f, s.user_message)),
            None => destructive(),
        };
        // The same command failing again and again (opt-in): asked about, unless a rule blocks.
        let found = match (s.policy.loop_after, &found) {
            (0, _) | (_, Some(Finding { verdict: Verdict::Block, .. })) => found,
            (after, _) => Finding::first_block_else_ask([found, shell_of(&call.arguments).into_iter().find_map(|sh| if let Shell::Script(line) = sh { remember::check_loop(line, after) } else { None })].into_iter()),
        };
        // What this call writes is remembered unless it is blocked (then it does not happen).
        if let Some(writes) = writes.filter(|_| s.policy.remember && !matches!(found, Some(Finding { verdict: Verdict::Block, .. }))) {
            remember::record(writes, &s.policy);
        }
        match found {
            None => Ok(Decision::pass()),
            // Hook configuration changed by a script the agent wrote earlier (`remember.rs`).
            Some(f) if f.reason.contains("(rule hooks.") => Ok(protection(f, s.user_message)),
            Some(Finding { verdict: Verdict::Block, reason }) => {
                let message = s.user_message.unwrap_or_else(|| "That command is blocked by policy.".into());
                Ok(Decision::block(format!("destructive command blocked: {reason}")).with_user_message(message))
            }
            Some(Finding { verdict: Verdict::Ask, reason }) if reason.contains("(rule taint.") => {
                let message = s.user_message.unwrap_or_else(|| "The agent read a secret or web content in this session: confirm this call.".into());
                Ok(Decision::ask(format!("tainted session: {reason}")).with_user_message(message))
            }
            Some(Finding { verdict: Verdict::Ask, reason }) => {
                let message = s.user_message.unwrap_or_else(|| "That command would discard work: run it only if you mean to.".into());
                Ok(Decision::ask(format!("destructive command needs confirmation: {reason}")).with_user_message(message))
            }
        }
    }
}

/// The decision for a change to hook configuration self-protection found.
fn protection(f: Finding, user_message: Option<String>) -> Decision {
    let message = user_message.unwrap_or_else(|| "The agent may not change or stop its own hooks; change them yourself if you mean to.".into());
    let reason = format!("hook configuration is protected: {}", f.reason);
    let decision = if f.verdict == Verdict::Block { Decision::block(reason) } else { Decision::ask(reason) };
    decision.with_user_message(message)
}

export_hook!(Guard);

/// The shell's rules, as interpreted code's commands are judged by them ([`interp::Shell`]).
pub(crate) struct ShellRules;

impl interp::Shell for ShellRules {
    fn script(&self, script: &str, policy: &Policy, depth: usize) -> Option<Finding> {
        check_script(script, policy, depth)
    }

    fn argv(&self, argv: &[String], policy: &Policy, depth: usize) -> Option<Finding> {
        check_command(argv, policy, depth, false, None)
    }
}

#[cfg(test)]
mod tests;
