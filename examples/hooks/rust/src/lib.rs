//! The example guard hook in Rust: blocks destructive shell commands, turns `git push --force`
//! into `--force-with-lease`, and adds context to every prompt. The same policy is written in
//! Python, JavaScript and C next to this project; `scenarios.toml` says what it must do.

use serde_json::Value;

// Lean build only (wasm32-unknown-unknown): an allocator that uses the heap reserved in the
// initial memory (`--initial-heap` in .cargo/config.toml) before growing memory. std's
// allocator there grows memory on its first allocation, in every fresh instance.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
#[global_allocator]
static HEAP: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

wit_bindgen::generate!({ path: "wit", world: "hook" });

use exports::hookhost::hooks::handler::Guest;
use hookhost::hooks::state;
use hookhost::hooks::types::{BlockInfo, Context, Decision, Effect, Event, Verdict};

/// Tool names that run shell commands, as the agent runtimes name them.
const SHELL_TOOLS: &[&str] = &["bash", "Bash", "shell", "run_shell_command", "exec_command"];

const USER_MESSAGE: &str = "The guard hook blocked this command: it would destroy data.";
const PROMPT_CONTEXT: &str =
    "Guard hook: destructive shell commands are blocked; git push --force becomes --force-with-lease.";

struct Guard;

impl Guest for Guard {
    fn validate_settings(settings: String) -> Result<(), String> {
        if settings.trim().is_empty() {
            return Ok(());
        }
        match serde_json::from_str::<Value>(&settings) {
            Ok(Value::Object(_)) => Ok(()),
            _ => Err("settings must be a JSON object".into()),
        }
    }

    fn handle(event: Event, _ctx: Context) -> Result<Decision, String> {
        let call = match event {
            Event::PreToolUse(call) | Event::PermissionRequest(call) => call,
            Event::UserPromptSubmit(_) => return Ok(pass(vec![Effect::AddContext(PROMPT_CONTEXT.into())])),
            _ => return Ok(pass(vec![])),
        };
        if !SHELL_TOOLS.contains(&call.name.as_str()) {
            return Ok(pass(vec![]));
        }
        let Ok(Value::Object(mut args)) = serde_json::from_str::<Value>(&call.arguments) else {
            return Ok(pass(vec![]));
        };
        let Some(command) = shell_command(&args) else { return Ok(pass(vec![])) };
        let words = words(&command);
        if let Some(reason) = destructive(&words) {
            // Count this session's blocks in the hook's state (contract 0.3.0). A store the host
            // cannot reach leaves the count out: it never lets the command through.
            let reason = match state::incr("blocks", 1, None) {
                Ok(n) => format!("{reason} (block {n} in this session)"),
                Err(_) => reason.to_string(),
            };
            let info = BlockInfo { reason: Some(reason), user_message: Some(USER_MESSAGE.into()) };
            return Ok(Decision { verdict: Verdict::Block(info), effects: vec![] });
        }
        // The rewrite applies to a `command` string, the common shape.
        if args.get("command").is_some_and(Value::is_string) {
            if let Some(safer) = lease_instead_of_force(&words) {
                args.insert("command".into(), Value::String(safer));
                return Ok(pass(vec![Effect::RewriteInput(Value::Object(args).to_string())]));
            }
        }
        Ok(pass(vec![]))
    }
}

fn pass(effects: Vec<Effect>) -> Decision {
    Decision { verdict: Verdict::Pass, effects }
}

/// The command line: `command` (or `cmd`) as a string, or a list of strings joined by spaces.
fn shell_command(args: &serde_json::Map<String, Value>) -> Option<String> {
    match args.get("command").or_else(|| args.get("cmd"))? {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => Some(items.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" ")),
        _ => None,
    }
}

/// Words split on spaces, tabs and line breaks.
fn words(command: &str) -> Vec<&str> {
    command.split([' ', '\t', '\n', '\r']).filter(|w| !w.is_empty()).collect()
}

fn destructive(words: &[&str]) -> Option<&'static str> {
    if words.iter().any(|w| w.starts_with("mkfs")) {
        return Some("destructive command: formats a filesystem");
    }
    let recursive = words
        .iter()
        .any(|w| *w == "--recursive" || (w.starts_with('-') && !w.starts_with("--") && w.contains(['r', 'R'])));
    let root_or_home = words.iter().any(|w| matches!(*w, "/" | "/*" | "~" | "~/" | "$HOME"));
    if words.contains(&"rm") && recursive && root_or_home {
        return Some("destructive command: recursive delete of a root or home directory");
    }
    None
}

/// `git push --force` (or `-f`) with `--force-with-lease` instead, words joined by spaces.
fn lease_instead_of_force(words: &[&str]) -> Option<String> {
    if words.len() < 2 || words[0] != "git" || words[1] != "push" || !words.iter().any(|w| matches!(*w, "--force" | "-f")) {
        return None;
    }
    let safer: Vec<&str> = words.iter().map(|w| if matches!(*w, "--force" | "-f") { "--force-with-lease" } else { w }).collect();
    Some(safer.join(" "))
}

export!(Guard);
