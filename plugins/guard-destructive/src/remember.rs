//! Write-then-run (setting `remember`, on by default): what the agent writes this session is kept
//! in the guard's session state (`hookhost:hooks/state`, contract 0.3.0), and a later call that
//! runs it is judged by what was written, with the same rules as a command line:
//! `bash x.sh` / `sh x.sh` / `source x.sh` / `./x.sh` (by its `#!` line), `python x.py`,
//! `node x.js` and the other interpreters, `make TARGET` (the recorded Makefile's recipe), and
//! `npm run X` / `npm test` / `yarn X` / `pnpm X` (the recorded `package.json`'s script).
//!
//! What is recorded, from tool calls the guard lets through: a file tool's whole content (Claude
//! Code's `Write`, Gemini CLI's `write_file`, `create_file`, the editor's `create`), an edit's new
//! text applied to the recorded content (or kept as a fragment when the file was never seen
//! whole), Codex `apply_patch`'s added lines, and a shell line's here-documents and `echo` /
//! `printf` redirected into a file (`cat > x.sh <<'EOF'`, `tee x.sh <<EOF`, `echo … > x.sh`). A
//! file written in a way the guard cannot read (`curl -o`, `cp`, a redirect of any other command)
//! is forgotten, so an old recording never vouches for new content. Links and moves it saw (`ln
//! -s ~ /tmp/h`, `mv ~/work /tmp/w`) make later paths resolve where they point.
//!
//! A script the guard never saw written is judged as before: it is not read (the guard has no
//! filesystem). State that cannot be reached (no store, a quota) is the same as nothing recorded.

use crate::interp::{self, Lang};
use crate::paths::{self, components};
use crate::{Finding, Policy};
use hookhost_sdk::serde_json::{self, Value};
use hookhost_sdk::state;

/// Key prefix of a recorded file: `w:` and its path resolved (`w:/repo/x.sh`, `w:~/x.sh`).
pub(crate) const FILE: &str = "w:";
/// The key of the links and moves seen: a line `WHERE\tPOINTS TO` each.
const LINKS: &str = "links";
/// Most bytes of one file kept (the host's bound on a value is 64 KiB).
const MAX_FILE: usize = 60 * 1024;
/// Most links and moves kept (the newest win).
const MAX_LINKS: usize = 32;

/// The state key of `path` as the event's `cwd` resolves it; `None` when it cannot be told
/// (a relative path and no `cwd`).
fn key(path: &str, cwd: Option<&str>) -> Option<String> {
    let parts = components(path, cwd);
    let rest = |from: usize| parts[from..].join("/");
    match parts.first().map(String::as_str) {
        Some("/") => Some(format!("{FILE}/{}", rest(1))),
        Some("~") => Some(format!("{FILE}~/{}", rest(1))),
        _ => None,
    }
}

/// What the agent wrote into `path` this session, if the guard saw it.
pub(crate) fn written(path: &str, policy: &Policy) -> Option<String> {
    if !policy.remember {
        return None;
    }
    state::get(&key(path, policy.cwd.as_deref())?).ok().flatten()
}

/// The links and moves seen this session, as moves: where a tree is now, where it came from.
pub(crate) fn moves(policy: &Policy) -> Vec<paths::Move> {
    if !policy.remember {
        return Vec::new();
    }
    links().into_iter().map(|(at, points_to)| paths::Move::new(components(&at, None), points_to)).collect()
}

fn links() -> Vec<(String, String)> {
    let text = state::get(LINKS).ok().flatten().unwrap_or_default();
    text.lines().filter_map(|l| l.split_once('\t')).map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

/// A script file run by `lang` (`None`: by its `#!` line, else the shell), judged by what the
/// agent wrote into it this session; `None` when it was not seen written, or runs nothing the
/// rules stop.
pub(crate) fn run_file(file: &str, lang: Option<Lang>, policy: &Policy, depth: usize) -> Option<Finding> {
    let text = written(file, policy)?;
    let lang = lang.or_else(|| shebang(&text)).unwrap_or(Lang::Shell);
    Some(as_written(file, judge(lang, &text, policy, depth)?))
}

/// What recorded code finds when a call runs it: the rules of a command line, and
/// self-protection's (a script that edits hook configuration is that edit).
fn judge(lang: Lang, code: &str, policy: &Policy, depth: usize) -> Option<Finding> {
    let protected = policy.protect.then(|| crate::protect::check_code(lang, code, policy.cwd.as_deref())).flatten();
    Finding::first_block_else_ask([protected, interp::check_code(lang, code, policy, depth, &crate::ShellRules)].into_iter())
}

fn as_written(what: &str, f: Finding) -> Finding {
    Finding { verdict: f.verdict, reason: format!("{what}, as written earlier in this session, runs: {}", f.reason) }
}

/// The interpreter a `#!` line names (`#!/usr/bin/env python3`, `#!/bin/bash`).
fn shebang(text: &str) -> Option<Lang> {
    let line = text.strip_prefix("#!")?.lines().next()?;
    let mut words = line.split_whitespace();
    let first = words.next()?;
    let prog = match first.rsplit('/').next()? {
        "env" => words.find(|w| !w.starts_with('-'))?,
        p => p,
    };
    interp::lang_of(prog)
}

/// `make [-f FILE] [-C DIR] [TARGET...]`: each target's recipe in the Makefile the agent wrote,
/// judged as shell lines (the first rule's when no target is named).
pub(crate) fn make(args: &[String], policy: &Policy, depth: usize) -> Option<Finding> {
    let mut dir = String::new();
    let mut file = None;
    let mut targets = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-C" | "--directory" => dir = it.next().map(|d| format!("{}/", d.trim_end_matches('/'))).unwrap_or_default(),
            "-f" | "--file" | "--makefile" => file = it.next().cloned(),
            "-I" | "-o" | "-W" | "-j" | "-l" => {
                it.next();
            }
            o if o.starts_with('-') || o.contains('=') => {}
            target => targets.push(target.to_string()),
        }
    }
    let names = match &file {
        Some(f) => vec![format!("{dir}{f}")],
        None => ["GNUmakefile", "makefile", "Makefile"].iter().map(|n| format!("{dir}{n}")).collect(),
    };
    let (name, text) = names.iter().find_map(|n| written(n, policy).map(|t| (n.clone(), t)))?;
    let recipes = recipes(&text);
    let chosen: Vec<&(String, Vec<String>)> = if targets.is_empty() {
        recipes.iter().find(|(t, _)| !t.starts_with('.')).into_iter().collect()
    } else {
        recipes.iter().filter(|(t, _)| targets.contains(t)).collect()
    };
    let name = &name;
    Finding::first_block_else_ask(chosen.into_iter().flat_map(|(target, lines)| {
        lines.iter().map(move |line| judge(Lang::Shell, line, policy, depth).map(|f| as_written(&format!("{name} (target {target})"), f)))
    }))
}

/// A Makefile's rules: each target and its recipe lines (tab-indented; `@`, `-`, `+` removed;
/// continued lines joined).
fn recipes(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    let mut pending = String::new();
    for line in text.lines() {
        if let Some(recipe) = line.strip_prefix('\t') {
            pending.push_str(recipe.trim_end_matches('\\'));
            if recipe.ends_with('\\') {
                continue;
            }
            let cmd = std::mem::take(&mut pending).trim_start_matches(['@', '-', '+', ' ']).to_string();
            for &i in &current {
                out[i].1.push(cmd.clone());
            }
            continue;
        }
        pending.clear();
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        // `a b: deps` (not `x := y`, `x = y`).
        match line.split_once(':') {
            Some((targets, rest)) if !rest.starts_with('=') && !targets.contains('=') => {
                current = targets
                    .split_whitespace()
                    .map(|t| {
                        out.push((t.to_string(), Vec::new()));
                        out.len() - 1
                    })
                    .collect();
                // `target: ; recipe`.
                if let Some((_, inline)) = rest.split_once(';') {
                    for &i in &current {
                        out[i].1.push(inline.trim().to_string());
                    }
                }
            }
            _ => current.clear(),
        }
    }
    out
}

/// `npm run X` / `npm test` / `npm start` / `yarn [run] X` / `pnpm [run] X` / `bun run X`: the
/// script (with its `pre` and `post` scripts) in the `package.json` the agent wrote, judged as
/// shell lines.
pub(crate) fn package_script(prog: &str, args: &[String], policy: &Policy, depth: usize) -> Option<Finding> {
    let words: Vec<&str> = args.iter().map(String::as_str).filter(|a| !a.starts_with('-')).collect();
    let script = match (prog, words.as_slice()) {
        ("npm" | "pnpm" | "yarn" | "bun", ["run" | "run-script", name, ..]) => *name,
        ("npm" | "pnpm" | "yarn", [name @ ("test" | "start" | "stop" | "restart"), ..]) => *name,
        ("npm", ["t" | "tst", ..]) => "test",
        // `yarn build`, `pnpm build`: a script by name (`yarn add` finds no script `add`).
        ("yarn" | "pnpm", [name, ..]) => *name,
        _ => return None,
    };
    let text = written("package.json", policy)?;
    let scripts = serde_json::from_str::<Value>(&text).ok()?.get("scripts")?.as_object()?.clone();
    Finding::first_block_else_ask([format!("pre{script}"), script.to_string(), format!("post{script}")].into_iter().map(|name| {
        let line = scripts.get(&name)?.as_str()?.to_string();
        judge(Lang::Shell, &line, policy, depth).map(|f| as_written(&format!("package.json (script {name:?})"), f))
    }))
}

/// One thing a tool call writes.
enum Write {
    /// A whole file; `None` when it is written in a way the guard cannot read (it is then
    /// forgotten).
    File(String, Option<String>),
    /// An edit: `(old, new)` replacements (an empty `old` appends).
    Edit(String, Vec<(String, String)>),
    /// A file moved: its recording goes with it.
    Move(String, String),
}

/// What one tool call writes, and the links and moves it makes (`(where, points to)`).
pub(crate) struct Writes {
    files: Vec<Write>,
    links: Vec<(String, String)>,
}

impl Writes {
    /// The paths written (a move's destination among them), as the call names them.
    pub(crate) fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.iter().map(|w| match w {
            Write::File(p, _) | Write::Edit(p, _) | Write::Move(_, p) => p.as_str(),
        })
    }
}

/// The files (and links, moves) a tool call the guard lets through writes.
pub(crate) fn writes_of(tool: &str, arguments: &Value) -> Writes {
    let mut w = Writes { files: Vec::new(), links: Vec::new() };
    let text = |keys: &[&str]| keys.iter().find_map(|k| arguments.get(*k).and_then(Value::as_str)).map(str::to_string);
    let path = text(&["file_path", "path", "filePath", "absolute_path", "filename", "file"]);
    match tool {
        "Write" | "write_file" | "create_file" | "write" | "WriteFile" | "create" => {
            if let Some(path) = path {
                w.files.push(Write::File(path, text(&["content", "contents", "file_text", "text"])));
            }
        }
        "Edit" | "MultiEdit" | "edit" | "edit_file" | "replace" | "str_replace" | "str_replace_editor" | "str_replace_based_edit_tool" => {
            let Some(path) = path else { return w };
            if text(&["command"]).as_deref() == Some("create") {
                w.files.push(Write::File(path, text(&["file_text", "content"])));
                return w;
            }
            let mut edits: Vec<(String, String)> = Vec::new();
            let pair = |v: &Value| Some((v.get("old_string").or_else(|| v.get("old_str")).and_then(Value::as_str).unwrap_or("").to_string(), v.get("new_string").or_else(|| v.get("new_str")).and_then(Value::as_str)?.to_string()));
            match arguments.get("edits").and_then(Value::as_array) {
                Some(list) => edits.extend(list.iter().filter_map(pair)),
                None => edits.extend(pair(arguments)),
            }
            w.files.push(Write::Edit(path, edits));
        }
        "apply_patch" => {
            let patch = text(&["input", "patch"]).or_else(|| arguments.as_str().map(str::to_string)).unwrap_or_default();
            let mut current: Option<(String, String)> = None;
            for line in patch.lines() {
                let header = line.strip_prefix("*** Add File: ").or_else(|| line.strip_prefix("*** Update File: "));
                if let Some(p) = header {
                    w.files.extend(current.take().map(|(p, t)| Write::File(p, Some(t))));
                    current = Some((p.trim().to_string(), String::new()));
                } else if line.starts_with("*** ") {
                    w.files.extend(current.take().map(|(p, t)| Write::File(p, Some(t))));
                } else if let (Some((_, t)), Some(added)) = (current.as_mut(), line.strip_prefix('+')) {
                    t.push_str(added);
                    t.push('\n');
                }
            }
            w.files.extend(current.map(|(p, t)| Write::File(p, Some(t))));
        }
        _ => {
            for shell in crate::shell_of(arguments) {
                if let crate::Shell::Script(line) = shell {
                    shell_writes(line, &mut w);
                }
            }
        }
    }
    w
}

/// A shell line's writes: here-documents and `echo` / `printf` redirected into a file, `tee`;
/// `ln -s` and `mv`; any other command redirected into a file writes what cannot be read.
fn shell_writes(line: &str, w: &mut Writes) {
    // Parsed again only when the line can write a file or make a link (the check parsed it
    // once; most lines do neither).
    if !line.contains('>') && !crate::mentions_any(line.as_bytes(), &["tee", "ln", "mv", "cp", "install", "rsync"]) {
        return;
    }
    let Ok(parsed) = hookhost_shell_parse::parse(line) else { return };
    for (i, words) in parsed.commands.iter().enumerate() {
        let input = parsed.inputs.iter().find(|(at, _)| *at == i).map(|(_, t)| t.clone());
        let (prog, args) = match words.split_first() {
            Some((p, a)) => (hookhost_shell_parse::program(p), a),
            None => continue,
        };
        let content = match prog {
            "cat" if args.is_empty() => input.clone(),
            "echo" => Some(format!("{}\n", args.iter().filter(|a| !matches!(a.as_str(), "-e" | "-n" | "-E")).cloned().collect::<Vec<_>>().join(" ").replace("\\n", "\n"))),
            "printf" => args.first().map(|f| f.replace("\\n", "\n")),
            _ => None,
        };
        for (_, file) in parsed.outputs.iter().filter(|(at, _)| *at == i) {
            w.files.push(Write::File(file.clone(), content.clone()));
        }
        match prog {
            "tee" => {
                for file in args.iter().filter(|a| !a.starts_with('-')) {
                    w.files.push(Write::File(file.clone(), input.clone()));
                }
            }
            "ln" if args.iter().any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('s')) || args.iter().any(|a| a == "--symbolic") => {
                let operands: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
                if let [target, link] = operands.as_slice() {
                    w.links.push(((*link).clone(), (*target).clone()));
                }
            }
            "mv" => {
                let operands: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
                if let [from, to] = operands.as_slice() {
                    w.links.push(((*to).clone(), (*from).clone()));
                    w.files.push(Write::Move((*from).clone(), (*to).clone()));
                }
            }
            // Written some other way: `cp`, `curl -o`, `wget -O`, `install`.
            "cp" | "install" | "rsync" => {
                if let Some(dest) = args.iter().filter(|a| !a.starts_with('-')).last() {
                    w.files.push(Write::File(dest.clone(), None));
                }
            }
            _ => {}
        }
    }
}

/// Record what a tool call the guard let through wrote.
pub(crate) fn record(w: Writes, policy: &Policy) {
    if !policy.remember || (w.files.is_empty() && w.links.is_empty()) {
        return;
    }
    let cwd = policy.cwd.as_deref();
    for write in w.files {
        match write {
            Write::Edit(path, edits) => {
                let Some(k) = key(&path, cwd) else { continue };
                let text = match state::get(&k).ok().flatten() {
                    Some(mut text) => {
                        for (old, new) in &edits {
                            text = if old.is_empty() { format!("{text}{new}") } else { text.replacen(old.as_str(), new, 1) };
                        }
                        text
                    }
                    // Never seen whole: what the agent wrote into it, which is what it can run.
                    None => edits.iter().map(|(_, new)| new.as_str()).collect::<Vec<_>>().join("\n"),
                };
                put(&k, &text);
            }
            Write::Move(from, to) => {
                let (Some(from_key), Some(to_key)) = (key(&from, cwd), key(&to, cwd)) else { continue };
                if let Some(text) = state::get(&from_key).ok().flatten() {
                    let _ = state::delete(&from_key);
                    put(&to_key, &text);
                }
            }
            Write::File(path, content) => {
                let Some(k) = key(&path, cwd) else { continue };
                match content {
                    Some(text) => put(&k, &text),
                    None => {
                        let _ = state::delete(&k);
                    }
                }
            }
        }
    }
    if !w.links.is_empty() {
        let mut all = links();
        for (at, points_to) in w.links {
            // Kept resolved, so a later `cwd` reads them the same.
            let resolve = |p: &str| {
                let parts = components(p, cwd);
                match parts.first().map(String::as_str) {
                    Some("/") => format!("/{}", parts[1..].join("/")),
                    Some("~") => format!("~/{}", parts[1..].join("/")).trim_end_matches('/').to_string(),
                    _ => p.to_string(),
                }
            };
            all.retain(|(a, _)| *a != resolve(&at));
            all.push((resolve(&at), resolve(&points_to)));
        }
        let start = all.len().saturating_sub(MAX_LINKS);
        let text: String = all[start..].iter().map(|(a, b)| format!("{a}\t{b}\n")).collect();
        let _ = state::set(LINKS, &text);
    }
}

/// The key of a command's run of failures: `f:` and the command line, cut to what a key holds.
fn failures_key(command: &str) -> String {
    let mut end = command.len().min(200);
    while !command.is_char_boundary(end) {
        end -= 1;
    }
    format!("f:{}", &command[..end])
}

/// A shell command's result (`post_tool_use`): a failure (the runtime says so, or an exit code
/// other than 0) adds one to the command's run of failures; a success ends it.
pub(crate) fn record_result(command: &str, failed: bool) {
    let key = failures_key(command.trim());
    let _ = if failed { state::incr(&key, 1).map(drop) } else { state::delete(&key) };
}

/// The `loop` rule (setting `loop_after`): the same command failed `after` times in a row in
/// this session.
pub(crate) fn check_loop(command: &str, after: u32) -> Option<Finding> {
    let failed = state::get(&failures_key(command.trim())).ok().flatten()?.parse::<u32>().ok()?;
    (failed >= after).then(|| crate::guard::LOOP.finding_for(format!("`{}` failed {failed} times in a row in this session", clip(command))))
}

fn clip(s: &str) -> &str {
    let s = s.trim();
    s.char_indices().nth(80).map_or(s, |(i, _)| &s[..i])
}

/// Keep a file's content, cut to what the store takes.
fn put(key: &str, text: &str) {
    let mut end = text.len().min(MAX_FILE);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let _ = state::set(key, &text[..end]);
}

#[cfg(test)]
mod tests;
