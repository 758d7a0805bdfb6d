//! The `core` pack's interpreter rules: code handed to an interpreter on the command line or
//! in a here-document (`python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`, `python3 <<EOF`)
//! is read for what it would run or delete, and judged by the same rules as the shell.
//!
//! Read from each language's reference for the calls that run a command or delete a tree:
//! Python's `os.system`, `os.popen`, `subprocess.*` and `shutil.rmtree`; Node's
//! `child_process.exec*` / `spawn*` and `fs.rm*(…, {recursive})` / `rimraf`; Perl's `system`,
//! `exec`, backquotes, `qx` and `File::Path`'s `rmtree` / `remove_tree`; Ruby's `system`, `exec`,
//! `spawn`, backquotes, `%x` and `FileUtils.rm_rf` / `rm_r` / `remove_dir`; PHP's `system`,
//! `exec`, `shell_exec`, `passthru`, `popen`, `proc_open` and backquotes. A command or path the
//! code builds at run time cannot be read: the guard asks, and says so. An interpreter or shell
//! that runs a script from its input (`curl … | bash`) is asked about too.

use crate::fs::{place, rm_finding};
use crate::{Finding, Policy};

rules! {
    DYNAMIC = "interp.dynamic", Ask,
        "inline code runs a command, or deletes a directory tree, that it builds at run time",
        "write the command out in the shell, where the guard can read it";
    STDIN_SCRIPT = "interp.stdin-script", Ask,
        "a shell or interpreter runs a script from its input (`curl … | bash`, `… | python3`)",
        "download the script, read it, then run the file";
}

/// The languages read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lang {
    Python,
    Node,
    Perl,
    Ruby,
    Php,
    Shell,
}

impl Lang {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Lang::Python => "python",
            Lang::Node => "node",
            Lang::Perl => "perl",
            Lang::Ruby => "ruby",
            Lang::Php => "php",
            Lang::Shell => "shell",
        }
    }
}

/// The interpreter a program name is, if it is one.
pub(crate) fn lang_of(prog: &str) -> Option<Lang> {
    let base = prog.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    Some(match base {
        "python" | "pypy" => Lang::Python,
        "node" | "nodejs" | "bun" | "deno" => Lang::Node,
        "perl" => Lang::Perl,
        "ruby" => Lang::Ruby,
        "php" => Lang::Php,
        "sh" | "bash" | "zsh" | "dash" | "ksh" => Lang::Shell,
        _ => return None,
    })
}

/// What an interpreter command runs, as the guard can tell from its arguments.
pub(crate) enum Source<'a> {
    /// Code on the command line (`-c`, `-e`, `-r`, `deno eval`).
    Inline(&'a str),
    /// A script file (its name), or a module (`-m`, an empty name): not read.
    File(&'a str),
    /// Its input: a here-document when the line has one, else a pipe.
    Stdin,
}

/// A script file that is the interpreter's own input: `bash /dev/stdin <<< …`.
pub(crate) fn is_stdin_file(file: &str) -> bool {
    matches!(file, "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0")
}

/// Where `lang`'s interpreter, given `args`, takes its program from.
pub(crate) fn source(lang: Lang, args: &[String]) -> Source<'_> {
    // `--version`, `--help`: no program runs.
    let informational = |a: &str| match lang {
        Lang::Python => matches!(a, "-V" | "-VV" | "--version" | "-h" | "--help"),
        Lang::Shell => matches!(a, "--version" | "--help"),
        // `node --test` / `--run` run test files or a package script.
        Lang::Node => matches!(a, "-v" | "--version" | "-h" | "--help" | "--test" | "--run"),
        _ => matches!(a, "-v" | "-V" | "--version" | "-h" | "--help"),
    };
    if args.iter().any(|a| informational(a)) {
        return Source::File("");
    }
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        if a == "-" || a == "--" {
            return Source::Stdin;
        }
        if !a.starts_with('-') || a.len() == 1 {
            // `deno eval CODE`.
            if lang == Lang::Node && a == "eval" {
                return args.get(i + 1).map_or(Source::Stdin, |c| Source::Inline(c));
            }
            return Source::File(a);
        }
        let short = !a.starts_with("--");
        // A cluster of flag letters that ends with the code flag (`-Sc`, `-lne`), not an option
        // with its value joined on (`-MFile::Path=remove_tree`, `-rtime`).
        let cluster = |flags: &str, code: &[char]| short && a[1..].strip_suffix(code).is_some_and(|rest| rest.chars().all(|c| flags.contains(c)));
        let code_flag = match lang {
            Lang::Python => cluster("bBdEhiIOPqsSuvx", &['c']),
            Lang::Node => matches!(a, "-e" | "--eval" | "-p" | "--print"),
            Lang::Perl => cluster("aclnpstTuUwWX", &['e', 'E']),
            Lang::Ruby => cluster("acdlnpsvwy", &['e']),
            Lang::Php => a == "-r",
            // `sh -c` is unwrapped before it gets here; `-s` reads input.
            Lang::Shell => false,
        };
        if code_flag {
            return args.get(i + 1).map_or(Source::Stdin, |c| Source::Inline(c));
        }
        if lang == Lang::Python && cluster("bBdEhiIOPqsSuvx", &['m']) {
            return Source::File("");
        }
        // Options that take a value in the next word.
        let takes_value = match lang {
            Lang::Python => matches!(a, "-W" | "-X" | "--check-hash-based-pycs"),
            Lang::Node => matches!(a, "-r" | "--require" | "--import" | "--loader" | "--input-type" | "--env-file"),
            Lang::Perl => matches!(a, "-I" | "-M" | "-m"),
            Lang::Ruby => matches!(a, "-I" | "-r" | "-C"),
            Lang::Php => matches!(a, "-c" | "-d" | "-z"),
            Lang::Shell => matches!(a, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file"),
        };
        i += if takes_value { 2 } else { 1 };
    }
    Source::Stdin
}

/// How the shell's rules judge a command the code runs: the guard's own, handed in by its
/// caller, so that reading the languages here does not reach back for the rules that read the
/// shell.
pub(crate) trait Shell {
    /// A script, as the shell would run it.
    fn script(&self, script: &str, policy: &Policy, depth: usize) -> Option<Finding>;
    /// A program and its arguments, run without a shell.
    fn argv(&self, argv: &[String], policy: &Policy, depth: usize) -> Option<Finding>;
}

/// What `code` in `lang` would do that the guard stops: the commands it runs judged by
/// `shell`.
pub(crate) fn check_code(lang: Lang, code: &str, policy: &Policy, depth: usize, shell: &impl Shell) -> Option<Finding> {
    if lang == Lang::Shell {
        return shell.script(code, policy, depth + 1);
    }
    let cwd = policy.cwd.as_deref();
    let calls = scan(lang, code);
    let says_child_process = code.contains("child_process");
    Finding::first_block_else_ask(calls.into_iter().map(|call| {
        let name = call.name.as_str();
        let last = name.rsplit(['.', ':', '>']).next().unwrap_or(name);
        let prefix = |what: String| format!("{} code {what}", lang.name());
        match kind(lang, name, last, says_child_process, &call.args) {
            Kind::Runs => match command_of(&call.args) {
                Some(Command::Script(s)) => shell.script(&s, policy, depth + 1).map(|f| nested(f, &prefix(format!("runs `{}`", clip(&s))))),
                Some(Command::Argv(argv)) => shell.argv(&argv, policy, depth + 1).map(|f| nested(f, &prefix(format!("runs `{}`", clip(&argv.join(" ")))))),
                None => Some(DYNAMIC.finding_for(prefix(format!("calls {name} with a command built at run time")))),
            },
            Kind::DeletesTree => match call.args.first() {
                Some(Arg::Literal(path)) => rm_finding(path, place(path, cwd)).map(|f| nested(f, &prefix(format!("calls {name}")))),
                _ => Some(DYNAMIC.finding_for(prefix(format!("calls {name} on a path built at run time")))),
            },
            Kind::Other => None,
        }
    }))
}

/// A finding reached through code: its reason says so first.
fn nested(f: Finding, via: &str) -> Finding {
    Finding { verdict: f.verdict, reason: format!("{via}: {}", f.reason) }
}

fn clip(s: &str) -> String {
    let s = s.trim();
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

enum Kind {
    Runs,
    DeletesTree,
    Other,
}

/// What a call does, by its name in `lang`.
fn kind(lang: Lang, name: &str, last: &str, says_child_process: bool, args: &[Arg]) -> Kind {
    let qualified = |q: &str| name.starts_with(q);
    match lang {
        Lang::Python => match last {
            "system" | "popen" if qualified("os.") || name == last => Kind::Runs,
            "check_call" | "check_output" | "Popen" | "getoutput" | "getstatusoutput" => Kind::Runs,
            // Names too common to read unqualified (`subprocess as sp` is the usual alias).
            "run" | "call" if qualified("subprocess.") || qualified("sp.") => Kind::Runs,
            "rmtree" => Kind::DeletesTree,
            _ => Kind::Other,
        },
        Lang::Node => match last {
            "exec" | "execSync" | "execFile" | "execFileSync" | "spawn" | "spawnSync" if says_child_process => Kind::Runs,
            "rmSync" | "rm" | "rmdirSync" | "rmdir" if args.iter().any(|a| matches!(a, Arg::Other(t) if t.contains("recursive"))) => Kind::DeletesTree,
            "rimraf" | "sync" if name.contains("rimraf") => Kind::DeletesTree,
            _ => Kind::Other,
        },
        Lang::Perl => match last {
            "system" | "exec" | "`" => Kind::Runs,
            "rmtree" | "remove_tree" => Kind::DeletesTree,
            _ => Kind::Other,
        },
        Lang::Ruby => match last {
            "system" | "exec" | "spawn" | "`" | "popen" | "capture2" | "capture2e" | "capture3" | "popen3" => Kind::Runs,
            "rm_rf" | "rm_r" | "remove_dir" | "remove_entry" | "remove_entry_secure" | "rmtree" => Kind::DeletesTree,
            _ => Kind::Other,
        },
        Lang::Php => match last {
            "system" | "exec" | "shell_exec" | "passthru" | "popen" | "proc_open" | "`" => Kind::Runs,
            _ => Kind::Other,
        },
        Lang::Shell => Kind::Other,
    }
}

/// One argument of a call, as far as the scanner reads it.
#[derive(Debug, PartialEq)]
enum Arg {
    /// A string written out (no interpolation).
    Literal(String),
    /// A list of strings written out (`["rm", "-rf", "x"]`).
    List(Vec<String>),
    /// A string with interpolation, a name, an expression: known only when it runs.
    Dynamic,
    /// Anything else (`shell=True`, `{recursive: true}`), as written.
    Other(String),
}

enum Command {
    Script(String),
    Argv(Vec<String>),
}

/// The command a runner call runs: one string is a shell line; a list, or several strings
/// (`system("rm", "-rf", "x")`, `spawn("rm", ["-rf", "x"])`), an argv.
fn command_of(args: &[Arg]) -> Option<Command> {
    let mut argv = Vec::new();
    for (i, a) in args.iter().enumerate() {
        match a {
            Arg::Literal(s) if i == 0 && !matches!(args.get(1), Some(Arg::Literal(_) | Arg::List(_))) => return Some(Command::Script(s.clone())),
            Arg::Literal(s) => argv.push(s.clone()),
            Arg::List(items) => argv.extend(items.iter().cloned()),
            Arg::Dynamic if argv.is_empty() || i < 2 => return None,
            _ => break,
        }
    }
    (!argv.is_empty()).then_some(Command::Argv(argv))
}

/// One call found in code: its (dotted) name and arguments.
#[derive(Debug)]
struct Call {
    name: String,
    args: Vec<Arg>,
}

/// The calls of `code`, with backquote and `qx` / `%x` commands as calls named "`".
fn scan(lang: Lang, code: &str) -> Vec<Call> {
    let b = code.as_bytes();
    let mut calls = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        // Strings are skipped whole (what they say is not code), except where a backquote or
        // `qx{}` / `%x()` runs a command.
        if let Some((_, end)) = string_at(lang, code, i) {
            if c == b'`' && lang != Lang::Node {
                let (text, _) = string_at(lang, code, i).unwrap();
                calls.push(Call { name: "`".into(), args: vec![text] });
            } else if matches!(lang, Lang::Perl | Lang::Ruby) && (code[i..].starts_with("qx") || code[i..].starts_with("%x")) {
                let (text, _) = string_at(lang, code, i).unwrap();
                calls.push(Call { name: "`".into(), args: vec![text] });
            }
            i = end;
            continue;
        }
        if c == b'#' && matches!(lang, Lang::Python | Lang::Ruby | Lang::Perl) {
            i = code[i..].find('\n').map_or(b.len(), |n| i + n);
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.' || b[i] == b'$' || (b[i] == b':' && b.get(i + 1) == Some(&b':')) || (b[i] == b':' && i > start && b[i - 1] == b':') || (b[i] == b'-' && b.get(i + 1) == Some(&b'>')) || (b[i] == b'>' && i > start && b[i - 1] == b'-')) {
                i += 1;
            }
            let name = &code[start..i];
            let mut j = i;
            while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
                j += 1;
            }
            // The scan goes on inside the arguments: calls and commands nested in them count.
            if b.get(j) == Some(&b'(') {
                let (args, _) = arguments(lang, code, j + 1, b')');
                calls.push(Call { name: name.to_string(), args });
                i = j + 1;
            } else if matches!(lang, Lang::Perl | Lang::Ruby) && j > i && string_at(lang, code, j).is_some() {
                // `system "rm -rf x"`: a call without parentheses, to the end of the statement.
                let (args, _) = arguments(lang, code, j, b';');
                calls.push(Call { name: name.to_string(), args });
                i = j;
            }
            continue;
        }
        i += 1;
    }
    calls
}

/// The arguments from `start` to the `close` that ends them (or a line end, for `;`).
fn arguments(lang: Lang, code: &str, start: usize, close: u8) -> (Vec<Arg>, usize) {
    let b = code.as_bytes();
    let mut args = Vec::new();
    let mut i = start;
    let mut depth = 0usize;
    let mut current: Vec<Arg> = Vec::new();
    let mut text = String::new();
    let mut list: Option<Vec<String>> = None;
    let mut list_dynamic = false;
    let finish = |current: &mut Vec<Arg>, text: &mut String, args: &mut Vec<Arg>| {
        let trimmed = text.trim();
        let arg = match (current.len(), trimmed.is_empty()) {
            (0, true) => None,
            (1, true) => current.pop(),
            (0, false) => Some(if trimmed.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.' || c == '$') && !trimmed.contains('=') { Arg::Dynamic } else { Arg::Other(trimmed.to_string()) }),
            // A string and more (`"rm " + x`, `f"..."`): built at run time, unless it is a
            // keyword argument (`shell=True`).
            _ => Some(if trimmed.contains('=') && !trimmed.contains("==") && current.is_empty() { Arg::Other(trimmed.to_string()) } else { Arg::Dynamic }),
        };
        current.clear();
        text.clear();
        if let Some(a) = arg {
            args.push(a);
        }
    };
    while i < b.len() {
        let c = b[i];
        if let Some((s, end)) = string_at(lang, code, i) {
            match &mut list {
                Some(items) if depth == 1 => match s {
                    Arg::Literal(t) => items.push(t),
                    _ => list_dynamic = true,
                },
                _ if depth == 0 => current.push(s),
                _ => text.push_str(&code[i..end]),
            }
            i = end;
            continue;
        }
        match c {
            b'[' if depth == 0 && current.is_empty() && text.trim().is_empty() => {
                list = Some(Vec::new());
                depth += 1;
            }
            b']' if depth == 1 && list.is_some() => {
                depth -= 1;
                let items = list.take().unwrap_or_default();
                current.push(if list_dynamic { Arg::Dynamic } else { Arg::List(items) });
                list_dynamic = false;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                text.push(c as char);
            }
            b')' | b']' | b'}' if depth > 0 => {
                depth -= 1;
                text.push(c as char);
            }
            b',' if depth == 0 => finish(&mut current, &mut text, &mut args),
            _ if depth == 0 && (c == close || (close == b';' && c == b'\n')) => {
                finish(&mut current, &mut text, &mut args);
                return (args, i + 1);
            }
            b')' if depth == 0 => {
                finish(&mut current, &mut text, &mut args);
                return (args, i + 1);
            }
            _ if list.is_some() && depth == 1 => {
                if !(c.is_ascii_whitespace() || c == b',') {
                    list_dynamic = true;
                }
            }
            _ => text.push(c as char),
        }
        i += 1;
    }
    finish(&mut current, &mut text, &mut args);
    (args, b.len())
}

/// A string literal starting at `i`, read as `lang` reads it: the literal (or `Dynamic`, when it
/// interpolates) and where it ends.
fn string_at(lang: Lang, code: &str, i: usize) -> Option<(Arg, usize)> {
    if !code.is_char_boundary(i) {
        return None;
    }
    let b = code.as_bytes();
    let rest = &code[i..];
    // Python's prefixes (r, b, f, rb, fr, ...): an f-string with a field is built at run time.
    let (prefix_len, raw, formatted) = if lang == Lang::Python {
        let p: String = rest.chars().take_while(|c| matches!(c.to_ascii_lowercase(), 'r' | 'b' | 'f' | 'u')).take(2).collect();
        let next = rest.as_bytes().get(p.len()).copied();
        if !p.is_empty() && matches!(next, Some(b'\'' | b'"')) && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) {
            (p.len(), p.to_ascii_lowercase().contains('r'), p.to_ascii_lowercase().contains('f'))
        } else {
            (0, false, false)
        }
    } else {
        (0, false, false)
    };
    let q = *b.get(i + prefix_len)?;
    // Perl's qx / q / qq and Ruby's %x / %q / %Q with a bracket or any delimiter.
    if matches!(lang, Lang::Perl | Lang::Ruby) && prefix_len == 0 {
        let quote_op = if lang == Lang::Perl { ["qx", "qq", "q"].iter().find(|op| rest.starts_with(**op)) } else { ["%x", "%Q", "%q"].iter().find(|op| rest.starts_with(**op)) };
        if let Some(op) = quote_op {
            let after = i + op.len();
            let prev_ok = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
            if let Some(&open) = b.get(after).filter(|d| prev_ok && !d.is_ascii_alphanumeric() && !d.is_ascii_whitespace() && **d != b'_' && **d != b',' && **d != b';' && **d != b'=') {
                let close = match open {
                    b'(' => b')',
                    b'{' => b'}',
                    b'[' => b']',
                    b'<' => b'>',
                    d => d,
                };
                let body_start = after + 1;
                let end = code[body_start..].find(close as char).map(|n| body_start + n)?;
                let body = &code[body_start..end];
                let interpolates = *op != "q" && *op != "%q" && (body.contains('$') || body.contains('@') || body.contains("#{"));
                return Some((if interpolates { Arg::Dynamic } else { Arg::Literal(body.to_string()) }, end + 1));
            }
        }
    }
    if !matches!(q, b'\'' | b'"' | b'`') || (q == b'`' && lang == Lang::Python) {
        return None;
    }
    let start = i + prefix_len;
    // Python's triple quotes.
    let triple = lang == Lang::Python && code[start..].starts_with(&format!("{0}{0}{0}", q as char));
    let (open_len, closer): (usize, String) = if triple { (3, (q as char).to_string().repeat(3)) } else { (1, (q as char).to_string()) };
    let body_start = start + open_len;
    let mut j = body_start;
    let mut text = String::new();
    while j < b.len() {
        if code[j..].starts_with(&closer) {
            let interpolates = match (lang, q) {
                (Lang::Python, _) => formatted && text.contains('{'),
                (Lang::Node, b'`') => text.contains("${"),
                (Lang::Node, _) | (_, b'\'') => false,
                (Lang::Perl | Lang::Php, _) => text.contains('$') || text.contains('@'),
                (Lang::Ruby, _) => text.contains("#{"),
                (Lang::Shell, _) => text.contains('$'),
            };
            return Some((if interpolates { Arg::Dynamic } else { Arg::Literal(text) }, j + closer.len()));
        }
        let ch = code[j..].chars().next()?;
        if ch == '\\' && !raw && !(q == b'\'' && matches!(lang, Lang::Perl | Lang::Ruby | Lang::Php | Lang::Shell)) {
            let next = code[j + 1..].chars().next();
            match next {
                Some('n') => text.push('\n'),
                Some('t') => text.push('\t'),
                Some(other) => text.push(other),
                None => {}
            }
            j += 1 + next.map_or(0, char::len_utf8);
            continue;
        }
        text.push(ch);
        j += ch.len_utf8();
    }
    None
}

#[cfg(test)]
mod tests;
