//! The cases the guard's rules are held to (`corpus/*.txt`), one a line:
//! `block|ask|allow RULE COMMAND`, with `@cwd PATH` (or `@cwd -`) setting the working directory
//! of the cases after it, `@packs a,b` (or `@packs -`, the default `core`) the guard's `packs`
//! for them, `@tool NAME` (or `@tool -`, a `Bash` call) the tool called — for another tool the
//! COMMAND is its arguments as JSON, `@session NAME` (or `@session -`) puts the cases after it in
//! one session, whose state they share in order (each case is a session of its own otherwise:
//! write-then-run, `remember.txt`) — and `\n` in a command standing for a line break. Every
//! case is a tool call decided by the whole guard under its shipped settings (self-protection
//! on); a JSON COMMAND keeps its own `\n` escapes. `ran - COMMAND` is not a decision but the
//! call's result, a `post_tool_use` the guard sees (and passes), whose output is the text of the
//! last `@output TEXT` (`\n` a line break; `@output -`: empty) — how the `taint` pack's cases
//! (`taint.txt`) taint their session. `cargo test` checks every case natively; `hookhost bench guard` runs them through the
//! built guard component and prints the agreement per file.

use crate::Verdict;
use hookhost_sdk::serde_json;

/// The corpus files, by name: the `core` pack's areas, each opt-in pack alone, and which packs
/// are on.
pub const FILES: &[(&str, &str)] = &[
    ("core-fs.txt", include_str!("../corpus/core-fs.txt")),
    ("core-git.txt", include_str!("../corpus/core-git.txt")),
    ("core-interpreters.txt", include_str!("../corpus/core-interpreters.txt")),
    ("core-wrappers.txt", include_str!("../corpus/core-wrappers.txt")),
    ("pack-database.txt", include_str!("../corpus/pack-database.txt")),
    ("pack-containers.txt", include_str!("../corpus/pack-containers.txt")),
    ("pack-kubernetes.txt", include_str!("../corpus/pack-kubernetes.txt")),
    ("pack-cloud.txt", include_str!("../corpus/pack-cloud.txt")),
    ("pack-infrastructure.txt", include_str!("../corpus/pack-infrastructure.txt")),
    ("pack-storage.txt", include_str!("../corpus/pack-storage.txt")),
    ("pack-backup.txt", include_str!("../corpus/pack-backup.txt")),
    ("pack-platform.txt", include_str!("../corpus/pack-platform.txt")),
    ("pack-secrets.txt", include_str!("../corpus/pack-secrets.txt")),
    ("packs-selection.txt", include_str!("../corpus/packs-selection.txt")),
    ("evasions.txt", include_str!("../corpus/evasions.txt")),
    ("protect-files.txt", include_str!("../corpus/protect-files.txt")),
    ("protect-hookhost.txt", include_str!("../corpus/protect-hookhost.txt")),
    ("protect-agents.txt", include_str!("../corpus/protect-agents.txt")),
    ("everyday.txt", include_str!("../corpus/everyday.txt")),
    ("remember.txt", include_str!("../corpus/remember.txt")),
    ("taint.txt", include_str!("../corpus/taint.txt")),
];

/// One case.
#[derive(Clone, Debug)]
pub struct Case {
    /// The file it is in.
    pub file: &'static str,
    /// Its line there.
    pub line: usize,
    /// Block, ask, or `None`: allowed.
    pub expect: Option<Verdict>,
    /// The rule that decides (`-` when allowed).
    pub rule: &'static str,
    /// The command line.
    pub command: String,
    /// The working directory the event names, if any.
    pub cwd: Option<&'static str>,
    /// The guard's `packs` setting for it (`None`: the default, `core`).
    pub packs: Option<Vec<&'static str>>,
    /// The tool called (`None`: `Bash`, whose `command` is the case's command).
    pub tool: Option<&'static str>,
    /// The session it shares with the cases around it (`None`: one of its own).
    pub session: Option<&'static str>,
    /// A `ran` case: not a decision but the call's result (`post_tool_use`), with this output.
    pub result: Option<String>,
}

impl Case {
    /// Its session id: `corpus:FILE:NAME` for a named session, `corpus:FILE:LINE` otherwise.
    pub fn session_id(&self) -> String {
        match self.session {
            Some(name) => format!("corpus:{}:{name}", self.file),
            None => format!("corpus:{}:{}", self.file, self.line),
        }
    }
}

impl Case {
    /// The tool call: its name and arguments.
    pub fn call(&self) -> Result<(&'static str, serde_json::Value), String> {
        match self.tool {
            None => Ok(("Bash", serde_json::json!({ "command": self.command }))),
            Some(tool) => serde_json::from_str(&self.command).map(|args| (tool, args)).map_err(|e| format!("{}:{}: the arguments of {tool} are not JSON: {e}", self.file, self.line)),
        }
    }
}

/// Every case of every file, or what is wrong with a line.
pub fn cases() -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    for (file, text) in FILES {
        let mut cwd = None;
        let mut packs: Option<Vec<&'static str>> = None;
        let mut tool = None;
        let mut session = None;
        let mut output = String::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(dir) = line.strip_prefix("@cwd ") {
                cwd = (dir != "-").then_some(dir);
                continue;
            }
            if let Some(name) = line.strip_prefix("@session ") {
                session = (name != "-").then_some(name);
                continue;
            }
            if let Some(name) = line.strip_prefix("@tool ") {
                tool = (name != "-").then_some(name);
                continue;
            }
            if let Some(text) = line.strip_prefix("@output ") {
                output = if text == "-" { String::new() } else { text.replace("\\n", "\n") };
                continue;
            }
            if let Some(list) = line.strip_prefix("@packs ") {
                packs = (list != "-").then(|| list.split(',').map(str::trim).collect());
                continue;
            }
            let mut parts = line.splitn(3, ' ');
            let (expect, rule, command) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            let result = (expect == "ran").then(|| output.clone());
            let expect = match expect {
                "block" => Some(Verdict::Block),
                "ask" => Some(Verdict::Ask),
                "allow" | "ran" => None,
                other => return Err(format!("{file}:{}: {other:?} is not block, ask, allow or ran", n + 1)),
            };
            if command.is_empty() {
                return Err(format!("{file}:{}: no command", n + 1));
            }
            let case = Case { file, line: n + 1, expect, rule, command: if tool.is_some() { command.to_string() } else { command.replace("\\n", "\n") }, cwd, packs: packs.clone(), tool, session, result };
            case.call()?;
            cases.push(case);
        }
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    /// Every `corpus/*.txt` is in [`super::FILES`]: a new file is run, never silently left out.
    #[test]
    fn every_corpus_file_is_run() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| n.ends_with(".txt")).collect();
        on_disk.sort();
        let mut listed: Vec<String> = super::FILES.iter().map(|(n, _)| n.to_string()).collect();
        listed.sort();
        assert_eq!(on_disk, listed, "corpus/ and corpus.rs's FILES differ: add each file to FILES");
    }
}
