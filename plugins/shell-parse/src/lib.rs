//! The commands a shell line would run, read with a real shell parser (bashkit's, the same one
//! the bash adapter runs scripts with): every simple command of lists, pipelines, subshells,
//! brace groups, loops, conditionals, function bodies, command and process substitutions, with
//! redirections and `VAR=value` prefixes set apart and unquoted braces expanded.
//!
//! Used by `guard-destructive` (what would run), the bash adapter (what the sandbox lacks) and
//! the host (Claude Code `if` rules such as `Bash(rm *)`, matched against every subcommand).

#![deny(missing_docs)]

use bashkit::parser::{AssignmentValue, Command, CompoundCommand, Parser, Redirect, RedirectKind, Word, WordPart};

pub mod wrappers;
pub use wrappers::{every_command, program, runs, Runs};

/// Parse budget: AST depth and parser operations. A line beyond them is unparseable, which the
/// guard and the host's `if` rules treat conservatively. The depth is what bounds the parser's
/// recursion, so it is also what must fit the guard's 60 KiB wasm stack (about 2 KiB a level
/// there): 24 levels of `$(…)`, subshells, groups, loops and functions is far beyond what an
/// agent's command nests, and leaves room for [`reread`]'s parses on top.
const MAX_DEPTH: usize = 24;
/// The depth budget of each text [`reread`] parses (`$(( $(cmd) ))` is two levels).
const REREAD_DEPTH: usize = 8;
const MAX_PARSER_OPS: usize = 200_000;
/// Most words one brace expansion may produce.
const MAX_BRACE_WORDS: usize = 256;
/// Most `{` one word may hold for brace expansion: [`braces`] recurses once a group.
const MAX_BRACE_GROUPS: usize = 64;

/// The words of each simple command `script` would run, or why it cannot be parsed.
pub fn commands(script: &str) -> Result<Vec<Vec<String>>, String> {
    parse(script).map(|s| s.commands)
}

/// What a script runs and defines.
#[derive(Debug, Default, PartialEq)]
pub struct Script {
    /// The words of each simple command, in source order (substitutions before the command
    /// that holds them).
    pub commands: Vec<Vec<String>>,
    /// Names of the functions it defines.
    pub functions: Vec<String>,
    /// The files its redirections write (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`), as the guard
    /// reads words.
    pub writes: Vec<String>,
    /// What a command reads from a here-document or here-string (`python3 <<'EOF' … EOF`,
    /// `bash <<< "…"`), by its index in `commands`.
    pub inputs: Vec<(usize, String)>,
    /// The files a simple command's own redirections write (`cat > x.sh <<EOF`), by its index
    /// in `commands` (`writes` has them too, with those of compound commands).
    pub outputs: Vec<(usize, String)>,
    /// The variables the line sets, as `NAME=value` (the value read as words are: `$NAME`
    /// kept, anything computed as `$(…)`): prefixes (`CODEX_HOME=/tmp codex`) and assignments
    /// standing alone (`PID=$(pgrep x)`).
    pub assignments: Vec<String>,
    /// Why a text the shell expands could not be read (see [`reread`]): `parse` returns it as
    /// the error, so a command hidden there is never taken for none.
    unreadable: Option<String>,
    /// How many re-read texts the walk is inside.
    rereads: usize,
}

/// Parse a script, or say why it cannot be parsed.
pub fn parse(script: &str) -> Result<Script, String> {
    if let Some(words) = plain(script) {
        return Ok(Script { commands: vec![words], ..Script::default() });
    }
    let ast = Parser::with_limits(script, MAX_DEPTH, MAX_PARSER_OPS).parse().map_err(|e| e.to_string())?;
    let mut out = Script::default();
    for c in &ast.commands {
        walk(c, &mut out);
        collect_functions(c, &mut out.functions);
    }
    match out.unreadable.take() {
        Some(why) => Err(why),
        None => Ok(out),
    }
}

/// The words of a line the shell would split on blanks and nothing else — `git status --short`,
/// `rm -rf target/debug`, `dd if=/dev/zero of=/dev/sda` — read without the parser (most of the
/// guard's cost on such lines). Plain means: only letters, digits, blanks and `_ . / : = , + @ %
/// ^ -` (no quoting, expansion, glob, tilde, comment, redirection or operator character), a
/// first word that is neither an assignment nor a reserved word. Anything else is `None`.
fn plain(script: &str) -> Option<Vec<String>> {
    let ok = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b' ' | b'\t' | b'_' | b'.' | b'/' | b':' | b'=' | b',' | b'+' | b'@' | b'%' | b'^' | b'-');
    if !script.bytes().all(ok) {
        return None;
    }
    let words: Vec<String> = script.split_ascii_whitespace().map(str::to_string).collect();
    let first = words.first()?;
    const RESERVED: &[&str] = &["case", "coproc", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if", "in", "select", "then", "time", "until", "while"];
    if first.contains('=') || RESERVED.contains(&first.as_str()) {
        return None;
    }
    Some(words)
}

fn collect_functions(cmd: &Command, out: &mut Vec<String>) {
    match cmd {
        Command::Function(f) => {
            out.push(f.name.clone());
            collect_functions(&f.body, out);
        }
        Command::List(l) => {
            collect_functions(&l.first, out);
            l.rest.iter().for_each(|(_, c)| collect_functions(c, out));
        }
        Command::Pipeline(p) => p.commands.iter().for_each(|c| collect_functions(c, out)),
        Command::Compound(CompoundCommand::BraceGroup(cmds) | CompoundCommand::Subshell(cmds), _) => cmds.iter().for_each(|c| collect_functions(c, out)),
        _ => {}
    }
}

fn walk_all(cmds: &[Command], out: &mut Script) {
    for c in cmds {
        walk(c, out);
    }
}

fn walk(cmd: &Command, out: &mut Script) {
    match cmd {
        Command::Simple(s) => {
            for w in std::iter::once(&s.name).chain(&s.args) {
                substitutions(w, out);
            }
            redirects(&s.redirects, out);
            for a in &s.assignments {
                if let Some(index) = &a.index {
                    reread(index, out);
                }
                match &a.value {
                    AssignmentValue::Scalar(w) => {
                        substitutions(w, out);
                        out.assignments.push(format!("{}={}", a.name, text(w)));
                    }
                    AssignmentValue::Array(ws) => {
                        ws.iter().for_each(|w| substitutions(w, out));
                        out.assignments.push(format!("{}=({})", a.name, ws.iter().map(text).collect::<Vec<_>>().join(" ")));
                    }
                }
            }
            let mut words = Vec::new();
            for w in std::iter::once(&s.name).chain(&s.args) {
                match expand(w) {
                    Ok(expanded) => words.extend(expanded.into_iter().filter(|w| !w.is_empty())),
                    Err(why) => {
                        out.unreadable.get_or_insert(why);
                    }
                }
            }
            if !words.is_empty() {
                let at = out.commands.len();
                out.commands.push(words);
                for r in s.redirects.iter().filter(|r| matches!(r.kind, RedirectKind::HereDoc | RedirectKind::HereDocStrip | RedirectKind::HereString)) {
                    out.inputs.push((at, text(&r.target)));
                }
                for r in s.redirects.iter().filter(|r| matches!(r.kind, RedirectKind::Output | RedirectKind::Clobber | RedirectKind::Append | RedirectKind::OutputBoth)) {
                    if let Ok(files) = expand(&r.target) {
                        out.outputs.extend(files.into_iter().map(|f| (at, f)));
                    }
                }
            }
        }
        Command::Pipeline(p) => walk_all(&p.commands, out),
        Command::List(l) => {
            walk(&l.first, out);
            for (_, c) in &l.rest {
                walk(c, out);
            }
        }
        Command::Compound(c, rs) => {
            redirects(rs, out);
            match c {
                CompoundCommand::If(i) => {
                    walk_all(&i.condition, out);
                    walk_all(&i.then_branch, out);
                    for (cond, body) in &i.elif_branches {
                        walk_all(cond, out);
                        walk_all(body, out);
                    }
                    if let Some(e) = &i.else_branch {
                        walk_all(e, out);
                    }
                }
                CompoundCommand::For(f) => {
                    f.words.iter().flatten().for_each(|w| substitutions(w, out));
                    walk_all(&f.body, out);
                }
                CompoundCommand::ArithmeticFor(f) => {
                    [&f.init, &f.condition, &f.step].into_iter().for_each(|t| reread(t, out));
                    walk_all(&f.body, out);
                }
                CompoundCommand::While(w) => {
                    walk_all(&w.condition, out);
                    walk_all(&w.body, out);
                }
                CompoundCommand::Until(u) => {
                    walk_all(&u.condition, out);
                    walk_all(&u.body, out);
                }
                CompoundCommand::Case(c) => {
                    substitutions(&c.word, out);
                    for item in &c.cases {
                        item.patterns.iter().for_each(|w| substitutions(w, out));
                        walk_all(&item.commands, out);
                    }
                }
                CompoundCommand::Select(s) => {
                    s.words.iter().for_each(|w| substitutions(w, out));
                    walk_all(&s.body, out);
                }
                CompoundCommand::Subshell(cmds) | CompoundCommand::BraceGroup(cmds) => walk_all(cmds, out),
                CompoundCommand::Arithmetic(expr) => reread(expr, out),
                CompoundCommand::Time(t) => {
                    if let Some(c) = &t.command {
                        walk(c, out);
                    }
                }
                CompoundCommand::Conditional(words) => words.iter().for_each(|w| substitutions(w, out)),
                CompoundCommand::Coproc(c) => walk(&c.body, out),
            }
        }
        // A function body runs when the function is called: check it as if it were.
        Command::Function(f) => walk(&f.body, out),
    }
}

/// A command's redirections: the commands inside their targets, and the files output goes to.
fn redirects(rs: &[Redirect], out: &mut Script) {
    for r in rs {
        substitutions(&r.target, out);
        if matches!(r.kind, RedirectKind::Output | RedirectKind::Clobber | RedirectKind::Append | RedirectKind::OutputBoth | RedirectKind::ReadWrite) {
            match expand(&r.target) {
                Ok(files) => out.writes.extend(files),
                Err(why) => {
                    out.unreadable.get_or_insert(why);
                }
            }
        }
    }
}

/// Commands inside a word: `$(...)`, backquotes, `<(...)`, `>(...)`, and those inside the
/// parts the parser keeps as text but the shell expands (`$((…))`, `${x:-…}`, `${a[…]}`).
fn substitutions(word: &Word, out: &mut Script) {
    for part in &word.parts {
        match part {
            WordPart::CommandSubstitution(cmds) | WordPart::ProcessSubstitution { commands: cmds, .. } => walk_all(cmds, out),
            WordPart::CompoundAssignment { elements, .. } => elements.iter().for_each(|w| substitutions(w, out)),
            WordPart::ArithmeticExpansion(text)
            | WordPart::ParameterExpansion { operand: text, .. }
            | WordPart::IndirectExpansion { operand: text, .. }
            | WordPart::ArrayAccess { index: text, .. }
            | WordPart::IndirectSuffix { suffix: text, .. } => reread(text, out),
            WordPart::Substring { offset, length, .. } => {
                reread(offset, out);
                if let Some(length) = length {
                    reread(length, out);
                }
            }
            _ => {}
        }
    }
}

/// How many texts inside texts [`reread`] follows (`$(( $(( $(…) )) ))`) before it gives up.
const MAX_REREADS: usize = 4;

/// The commands inside a text the parser keeps as written but the shell expands before use —
/// arithmetic (`$((…))`, `$[…]`, `((…))`, `for ((…))`), parameter-expansion operands
/// (`${x:-…}`, `${x/…/…}`, `${x:…:…}`) and array subscripts — whose `$(…)` and backquotes bash
/// runs: `(( $(rm -rf ~) ))`, `echo ${x:-$(git reset --hard)}`. The text is read again as the
/// arguments of a `:` command. A text that does not parse, or nests too deep, makes the whole
/// script unreadable rather than taken to run nothing.
fn reread(text: &str, out: &mut Script) {
    if !text.contains("$(") && !text.contains('`') {
        return;
    }
    if out.rereads >= MAX_REREADS {
        out.unreadable.get_or_insert_with(|| "command substitutions nested too deep inside expansions".into());
        return;
    }
    match Parser::with_limits(&format!(": {text}"), REREAD_DEPTH, MAX_PARSER_OPS).parse() {
        Ok(ast) => {
            out.rereads += 1;
            for c in &ast.commands {
                match c {
                    // The `:` itself runs nothing: only what its words hold.
                    Command::Simple(s) => {
                        std::iter::once(&s.name).chain(&s.args).for_each(|w| substitutions(w, out));
                        redirects(&s.redirects, out);
                    }
                    other => walk(other, out),
                }
            }
            out.rereads -= 1;
        }
        Err(e) => {
            out.unreadable.get_or_insert_with(|| format!("a command substitution inside an expansion could not be read ({e})"));
        }
    }
}

/// A word's text as the guard reads it: literals as written, `$NAME` / `${NAME...}` as `$NAME`,
/// anything computed as `$(…)`.
fn text(word: &Word) -> String {
    let mut text = String::new();
    for part in &word.parts {
        match part {
            WordPart::Literal(s) => text.push_str(s),
            WordPart::Variable(name) | WordPart::ParameterExpansion { name, .. } | WordPart::IndirectExpansion { name, .. } => {
                text.push('$');
                text.push_str(name);
            }
            _ => text.push_str("$(…)"),
        }
    }
    text
}

/// A word as [`text`] reads it, split where an unquoted `$IFS` / `${IFS}` stands (bash splits
/// the expansion into fields: `rm${IFS}-rf${IFS}/` is `rm -rf /`); unquoted words get brace
/// expansion. A brace expansion past [`MAX_BRACE_WORDS`] is an error: its words are not all
/// known, and a checker must not take the ones it read for all of them.
fn expand(word: &Word) -> Result<Vec<String>, String> {
    // bashkit marks the quoted parts of a mixed word (`a"$IFS"b`); a word quoted whole has
    // `quoted` and no part marked.
    let mixed = word.part_quoted.iter().any(|q| *q);
    let unquoted = |i: usize| if mixed { !word.part_quoted.get(i).copied().unwrap_or(false) } else { !word.quoted };
    let splits = word.parts.iter().enumerate().any(|(i, p)| unquoted(i) && is_ifs(p));
    let fields: Vec<String> = if splits {
        let mut fields = vec![String::new()];
        for (i, part) in word.parts.iter().enumerate() {
            if unquoted(i) && is_ifs(part) {
                fields.push(String::new());
            } else {
                let one = Word { parts: vec![part.clone()], ..word.clone() };
                fields.last_mut().expect("one field at least").push_str(&text(&one));
            }
        }
        fields.retain(|f| !f.is_empty());
        fields
    } else {
        vec![text(word)]
    };
    let mut words = Vec::new();
    for field in fields {
        if word.quoted || !field.contains('{') {
            words.push(field);
        } else if field.matches('{').count() > MAX_BRACE_GROUPS {
            // Expanding it would recurse once a group (and the guard's stack is small).
            return Err(format!("a word holds more than {MAX_BRACE_GROUPS} brace groups"));
        } else if !braces(&field, &mut words) {
            return Err(format!("a brace expansion makes more than {MAX_BRACE_WORDS} words"));
        }
    }
    Ok(words)
}

/// `$IFS` or `${IFS}`: what the shell splits words on.
fn is_ifs(part: &WordPart) -> bool {
    matches!(part, WordPart::Variable(name) | WordPart::ParameterExpansion { name, .. } if name == "IFS")
}

/// Bash brace expansion of `a{b,c}d` (nested, comma lists only; `{1..3}` and `{}` stay as they
/// are), capped at [`MAX_BRACE_WORDS`]: `false` when the cap cut it short.
fn braces(text: &str, out: &mut Vec<String>) -> bool {
    if out.len() >= MAX_BRACE_WORDS {
        return false;
    }
    let Some((open, close, alternatives)) = first_group(text) else {
        out.push(text.to_string());
        return true;
    };
    alternatives.into_iter().all(|alt| braces(&format!("{}{alt}{}", &text[..open], &text[close + 1..]), out))
}

/// The first `{...}` holding a top-level comma: its bounds and its alternatives.
fn first_group(text: &str) -> Option<(usize, usize, Vec<&str>)> {
    let bytes = text.as_bytes();
    let mut start = 0;
    while let Some(rel) = text[start..].find('{') {
        let open = start + rel;
        let (mut depth, mut commas) = (0usize, Vec::new());
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if commas.is_empty() {
                            break;
                        }
                        let mut alts = Vec::new();
                        let mut from = open + 1;
                        for c in &commas {
                            alts.push(&text[from..*c]);
                            from = c + 1;
                        }
                        alts.push(&text[from..i]);
                        return Some((open, i, alts));
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        start = open + 1;
    }
    None
}

/// `name(){ name|name& };name`, whatever the spacing.
pub fn has_fork_bomb(line: &str) -> bool {
    let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    let mut rest = squeezed.as_str();
    while let Some(pos) = rest.find("(){") {
        let name_start = rest[..pos].rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':')).map_or(0, |i| i + 1);
        let name = &rest[name_start..pos];
        let body = &rest[pos + 3..];
        if !name.is_empty() && body.starts_with(&format!("{name}|{name}&")) {
            return true;
        }
        rest = &rest[pos + 3..];
    }
    false
}

#[cfg(test)]
mod tests;

/// bashkit reads its clock through this symbol on `wasm32-unknown-unknown` (the lean guest
/// build, which has no WASI clock). The parser only uses it to measure itself; its budget here
/// is `MAX_PARSER_OPS`, so a clock that stands still is enough.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
#[unsafe(no_mangle)]
extern "Rust" fn __bashkit_host_now_micros() -> u64 {
    0
}
