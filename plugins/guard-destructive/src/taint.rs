//! The opt-in `taint` pack (`packs = ["taint"]`; not part of `"all"`): once a tool's output in
//! this session carried a secret, or content fetched from the network, a call that sends data
//! out or edits a CI definition is asked about for the rest of the session. A prompt injection
//! read from a web page, or an agent holding a key it just read, is one call away from sending
//! it somewhere; CI definitions run with the repository's secrets.
//!
//! What taints the session (seen on `post_tool_use`: the guard must be wired to it as well):
//! - a secret in the tool's output, as the redactor's scanner finds one (`hookhost-secret-scan`:
//!   token prefixes, bearer tokens, private keys), or the mask a redactor earlier in the chain
//!   left (`[REDACTED…`);
//! - a read of a file that holds secrets by its name (`.env`, `~/.ssh/id_*`, `~/.aws/credentials`,
//!   `*.pem`, `.netrc`, …) by a file tool or a shell command;
//! - content fetched from the network: a web fetch, search or browser tool, or a shell command
//!   that fetches (`curl`, `wget`, `http`, `xh`, `lynx`, `w3m`, `aria2c`).
//!
//! What is then asked about (`pre_tool_use`): the programs that send by themselves (`curl`,
//! `wget`, `nc`, `socat`, `ssh`, `scp`, `sftp`, `ftp`, `telnet`, `dig`, …), `rsync` to a host,
//! `git push`, package publishing (`npm`/`yarn`/`pnpm`/`cargo publish`, `twine upload`, `gem
//! push`, `docker push`), `gh`/`glab` `api`, `gist` and issue/PR/release writes, a web tool —
//! anywhere in the line, through wrappers and `sh -c` — and a write of a CI definition by a file
//! tool, an edit, a patch or the shell (`.github/workflows/`, `.gitlab-ci.yml`, `.circleci/`,
//! `Jenkinsfile`, …). Out of reach: code that opens a socket itself (`python -c 'import
//! urllib…'`), which the pack does not read.

use crate::{Finding, Policy};
use hookhost_sdk::serde_json::Value;
use hookhost_sdk::state;
use hookhost_shell_parse as shell;

rules! {
    EGRESS = "taint.egress", Ask,
        "sending data out (curl, nc, ssh, scp, rsync to a host, git push, publishing, gh api, a web tool) after a tool output carried a secret or web content",
        "check what it sends, then run it yourself";
    CI_EDIT = "taint.ci-edit", Ask,
        "a change to a CI definition (.github/workflows, .gitlab-ci.yml, …) after a tool output carried a secret or web content",
        "review it yourself: CI runs with the repository's secrets";
}

/// The state key of why the session is tainted (the first reason is kept).
const KEY: &str = "taint";

/// Programs that send data to another host by themselves (`ssh` too: what it runs there is
/// checked as well). The first [`FETCHING`] also fetch: their output is content from the network.
const SENDERS: &[&str] = &["curl", "wget", "http", "https", "xh", "aria2c", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "sftp", "scp", "ssh", "dig", "nslookup"];
const FETCHING: usize = 6;

/// Programs that send data out with some subcommands (`git push`, `npm publish`).
const SUBCOMMANDS: &[&str] = &["rsync", "git", "npm", "yarn", "pnpm", "cargo", "twine", "gem", "poetry", "docker", "podman", "gh", "glab"];

/// Whether a line mentions a program the pack acts on (the guard's fast path, once the session
/// is tainted).
pub(crate) fn mentioned(script: &str) -> bool {
    crate::mentions_any(script.as_bytes(), SENDERS) || crate::mentions_any(script.as_bytes(), SUBCOMMANDS)
}

/// Whether `word` names a program the pack acts on.
pub(crate) fn acts_on(word: &str) -> bool {
    SENDERS.contains(&word) || SUBCOMMANDS.contains(&word)
}

/// Why this session is tainted, if it is (one read of the guard's state). A store that cannot
/// be read cannot say the session is clean: it is taken as tainted, and the reason says why.
pub(crate) fn why() -> Option<String> {
    match state::get(KEY) {
        Ok(reason) => reason,
        Err(e) => Some(format!("whether this session read a secret or web content cannot be told ({e})")),
    }
}

/// A tool's result (`post_tool_use`): taint the session when it carried a secret or content
/// from the network. A session already tainted keeps its first reason.
pub(crate) fn record(tool: &str, arguments: &Value, output: &Value) {
    let Some(reason) = taints(tool, arguments, output) else { return };
    if why().is_none() {
        // Over the state's bound, recordings of written files make room (they are only a
        // better judgement of scripts; a lost taint would let a secret out unasked). A store
        // that cannot be written cannot be read either: `why` then asks anyway.
        let mut room = state::keys(crate::remember::FILE).unwrap_or_default().into_iter();
        while let Err(state::StateError::Quota(_)) = state::set(KEY, &reason) {
            let Some(file) = room.next() else { break };
            let _ = state::delete(&file);
        }
    }
}

/// Why this result taints the session, if it does.
pub(crate) fn taints(tool: &str, arguments: &Value, output: &Value) -> Option<String> {
    let what = describe(tool, arguments);
    if web_tool(tool) {
        return Some(format!("this session fetched content from the network ({what})"));
    }
    let shell = crate::shell_of(arguments);
    let commands: Vec<Vec<String>> = shell
        .iter()
        .flat_map(|s| match s {
            crate::Shell::Script(line) => shell::every_command(line).unwrap_or_default(),
            crate::Shell::Argv(argv) => vec![argv.clone()],
        })
        .collect();
    let fetches = |p: &str| SENDERS[..FETCHING].contains(&p) || matches!(p, "lynx" | "w3m");
    if commands.iter().any(|c| c.first().is_some_and(|p| fetches(shell::program(p)))) {
        return Some(format!("this session fetched content from the network ({what})"));
    }
    let read_secret_file = match path_of(arguments) {
        Some(path) if commands.is_empty() => secret_file(path),
        _ => commands.iter().any(|c| c.iter().skip(1).any(|w| secret_file(w))),
    };
    if read_secret_file || carries_secret(output) {
        return Some(format!("a tool output in this session carried a secret ({what})"));
    }
    None
}

/// `Tool arg`: the tool and what it was called on, cut short.
fn describe(tool: &str, arguments: &Value) -> String {
    let on = crate::shell_of(arguments)
        .into_iter()
        .find_map(|s| if let crate::Shell::Script(line) = s { Some(line.to_string()) } else { None })
        .or_else(|| path_of(arguments).map(str::to_string))
        .or_else(|| ["url", "query", "uri"].iter().find_map(|k| arguments.get(*k).and_then(Value::as_str)).map(str::to_string))
        .unwrap_or_default();
    // The reason is kept on disk and shown: never a secret in it (masked before it is cut).
    let on = hookhost_secret_scan::redact(&on).map_or(on, |(clean, _)| clean);
    let on = on.trim();
    let on = on.char_indices().nth(60).map_or(on, |(i, _)| &on[..i]);
    if on.is_empty() { tool.to_string() } else { format!("{tool} {on}") }
}

/// The file a file tool reads or writes.
fn path_of(arguments: &Value) -> Option<&str> {
    ["file_path", "path", "filePath", "absolute_path", "filename", "file"].iter().find_map(|k| arguments.get(*k).and_then(Value::as_str))
}

/// Whether any string in a tool's output holds a secret.
fn carries_secret(v: &Value) -> bool {
    match v {
        Value::String(s) => hookhost_secret_scan::contains_secret(s),
        Value::Array(items) => items.iter().any(carries_secret),
        Value::Object(map) => map.values().any(carries_secret),
        _ => false,
    }
}

/// A tool that fetches from the web or drives a browser (Claude Code's `WebFetch` and
/// `WebSearch`, Gemini CLI's `web_fetch` and `google_web_search`, Codex's `web_search`, MCP
/// `fetch` and browser servers), by its name.
pub(crate) fn web_tool(tool: &str) -> bool {
    let name: String = tool.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect();
    ["fetch", "websearch", "browser", "http", "navigate", "url", "scrape", "crawl"].iter().any(|n| name.contains(n))
}

/// A file that holds secrets by its name.
pub(crate) fn secret_file(path: &str) -> bool {
    let path = path.trim_matches(['"', '\'']);
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let env = name == ".env" || name.strip_prefix(".env.").is_some_and(|rest| !matches!(rest, "example" | "sample" | "template" | "dist" | "defaults"));
    let key_file = [".pem", ".key", ".p12", ".pfx", ".keystore", ".jks"].iter().any(|ext| name.ends_with(ext));
    let ssh_key = name.starts_with("id_") && !name.ends_with(".pub") && path.contains(".ssh");
    let named = matches!(name, ".netrc" | "_netrc" | ".npmrc" | ".pypirc" | ".pgpass" | ".git-credentials" | "credentials.json" | "secrets.json" | "secrets.yml" | "secrets.yaml");
    let in_dir = ["/.aws/credentials", "/.docker/config.json", "/.kube/config", "/.config/gh/hosts.yml"].iter().any(|p| path.ends_with(p) || path.ends_with(&p[1..]));
    env || key_file || ssh_key || named || in_dir
}

/// Whether one command sends data out: what it is, for the reason.
pub(crate) fn sends(prog: &str, args: &[String]) -> bool {
    let operands = || args.iter().filter(|a| !a.starts_with('-'));
    let sub = operands().next().map(String::as_str);
    match prog {
        p if SENDERS.contains(&p) => true,
        "rsync" => operands().any(|a| a.starts_with("rsync://") || a.split('/').next().is_some_and(|host| host.contains(':'))),
        "git" => matches!(args.get(crate::git::subcommand(args).0).map(String::as_str), Some("push" | "send-email")),
        "npm" | "yarn" | "pnpm" | "cargo" | "poetry" | "gem" | "twine" | "docker" | "podman" => matches!(sub, Some("publish" | "push" | "upload")),
        "gh" | "glab" => match sub {
            Some("api" | "gist") => true,
            Some("issue" | "pr" | "mr" | "release") => operands().nth(1).is_some_and(|a| matches!(a.as_str(), "create" | "comment" | "edit" | "upload" | "note")),
            _ => false,
        },
        _ => false,
    }
}

/// The finding for a command that sends data out in a tainted session.
pub(crate) fn egress(words: &[String], why: &str) -> Finding {
    let line = words.join(" ");
    let line = line.char_indices().nth(80).map_or(line.as_str(), |(i, _)| &line[..i]);
    EGRESS.finding_for(format!("`{line}` sends data out, and {why}"))
}

/// A tool call in a tainted session: a web tool, or a write of a CI definition among `writes`
/// (what the call writes, [`crate::remember::writes_of`]) or by `sed -i` (shell lines'
/// commands are judged with the rest of the line's).
pub(crate) fn check_call(tool: &str, arguments: &Value, writes: &crate::remember::Writes, policy: &Policy, why: &str) -> Option<Finding> {
    if web_tool(tool) {
        return Some(EGRESS.finding_for(format!("{} sends a request out, and {why}", describe(tool, arguments))));
    }
    let cwd = policy.cwd.as_deref();
    let edited = writes.paths().find(|p| ci_definition(p, cwd)).map(str::to_string).or_else(|| {
        // `sed -i` / `perl -i` edit in place: their file operands.
        crate::shell_of(arguments).iter().find_map(|s| match s {
            crate::Shell::Script(line) => shell::every_command(line).unwrap_or_default().into_iter().find_map(|c| in_place(&c).filter(|p| ci_definition(p, cwd))),
            crate::Shell::Argv(argv) => in_place(argv).filter(|p| ci_definition(p, cwd)),
        })
    })?;
    Some(CI_EDIT.finding_for(format!("{tool} changes the CI definition {edited}, and {why}")))
}

/// The file a `sed -i` or `perl -i` edits in place (its last operand).
fn in_place(words: &[String]) -> Option<String> {
    let (prog, args) = words.split_first()?;
    let in_place = matches!(shell::program(prog), "sed" | "perl" | "gsed") && args.iter().any(|a| a.starts_with("-i") || a == "--in-place" || (a.starts_with('-') && !a.starts_with("--") && a.contains('i')));
    in_place.then(|| args.iter().rfind(|a| !a.starts_with('-')).cloned()).flatten()
}

/// Whether `path` (relative to `cwd`) is a CI definition.
pub(crate) fn ci_definition(path: &str, cwd: Option<&str>) -> bool {
    let parts = crate::paths::components(path, cwd);
    let dirs = |a: &str, b: &str| parts.windows(2).any(|w| w[0] == a && w[1] == b);
    let name = parts.last().map_or("", String::as_str);
    dirs(".github", "workflows")
        || dirs(".github", "actions")
        || dirs(".gitlab", "ci")
        || parts.iter().any(|p| matches!(p.as_str(), ".circleci" | ".buildkite" | ".woodpecker" | ".tekton" | ".azure-pipelines"))
        || matches!(
            name,
            ".gitlab-ci.yml" | ".travis.yml" | "Jenkinsfile" | "azure-pipelines.yml" | "bitbucket-pipelines.yml" | ".drone.yml" | ".woodpecker.yml" | "cloudbuild.yaml" | "cloudbuild.yml" | "buildspec.yml" | "appveyor.yml" | ".appveyor.yml" | ".cirrus.yml" | "codefresh.yml"
        )
}

#[cfg(test)]
mod tests;
