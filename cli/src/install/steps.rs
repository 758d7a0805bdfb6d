//! What `install`, `uninstall` and `doctor` do for one runtime beyond writing its hooks file
//! (which its profile describes: [`super::runtimes`]): its trust step, its "managed hooks only"
//! setting, the settings that switch its hooks off, and the tool call `doctor` probes it with.
//! One module per runtime; [`of`] is the one table from a runtime to its steps, and its match
//! does not compile without an arm for a new runtime.

mod antigravity;
mod claude_code;
mod codex;
mod copilot;
mod cursor;
mod docker_agent;
mod gemini_cli;
mod opencode;
mod qwen_code;
mod starchild;

use super::json::Json;
use super::runtimes::{Places, Runtime};
use super::{Edit, Role};
use hookhost::Runtime as R;
use std::path::Path;

/// One of `doctor`'s checks: its name, and what holds (`Ok`) or what fails and its fix.
pub(super) type Finding = (&'static str, Result<String, (String, String)>);

/// A runtime's own steps. The defaults are a runtime's that has none of them.
pub(super) trait Steps: Sync {
    /// The runtime's setting that runs managed hooks only (`--allow-managed-hooks-only`), if it
    /// has one.
    fn managed_only_setting(&self) -> Option<&'static str> {
        None
    }

    /// Turn that setting on, at the managed scope: in the hooks document itself (the key goes into
    /// `hooks_added`) or in a file beside `hooks_path` (returned).
    fn allow_managed_hooks_only(&self, _hooks_path: &Path, _doc: &mut Json, _hooks_added: &mut Vec<String>, _notes: &mut Vec<String>) -> Result<Option<Edit>, String> {
        Ok(None)
    }

    /// The trust step at the user scope, or the project scope (`project`), once the hooks
    /// document `doc` (to be written at `hooks_path`) is wired: the file to change, if any.
    /// Managed hooks need none in any runtime: that is what managed means.
    fn trust(&self, _hooks_path: &Path, _doc: &Json, _places: &Places, _project: Option<&Path>, _notes: &mut Vec<String>) -> Result<Option<Edit>, String> {
        Ok(None)
    }

    /// `uninstall`: the text of a trust or managed-only file (`role`) without what install
    /// `added` to it.
    fn undo(&self, role: Role, path: &Path, _current: &str, _added: &[String]) -> Result<String, String> {
        Err(format!("{}: install records no {role:?} file for this runtime; nothing was changed", path.display()))
    }

    /// `doctor`: the trust step for the hooks file `file` (holding `doc`) at the user or project
    /// scope is done and current; `fix` wires it again.
    fn check_trust(&self, _runtime: Runtime, _project: bool, _places: &Places, _file: &Path, _doc: &Json, _fix: &str) -> Vec<Finding> {
        Vec::new()
    }

    /// `doctor`: every setting that switches the runtime's hooks off, as it reads them (those in
    /// its managed settings too); `wired_managed`: hookhost is wired in the managed settings, out
    /// of reach of a user's or a repository's switch.
    fn switched_off(&self, runtime: Runtime, places: &Places, wired_managed: bool) -> Vec<String>;

    /// `doctor`'s probe: a destructive tool call (`rm -rf /`) as the runtime sends it, from `cwd`.
    fn probe(&self, cwd: &str) -> serde_json::Value;

    /// Whether `answer` (the wired command's stdout) is the runtime's deny.
    fn denies(&self, answer: &serde_json::Value) -> bool;
}

/// The steps of `runtime`. Every runtime `install` wires has them (a test holds
/// [`Runtime::all`] to it).
pub(super) fn of(runtime: Runtime) -> &'static dyn Steps {
    match runtime.shared() {
        R::ClaudeCode => &claude_code::ClaudeCode,
        R::Codex => &codex::Codex,
        R::GeminiCli => &gemini_cli::GeminiCli,
        R::Copilot => &copilot::Copilot,
        R::OpenCode => &opencode::OpenCode,
        R::QwenCode => &qwen_code::QwenCode,
        R::Cursor => &cursor::Cursor,
        R::DockerAgent => &docker_agent::DockerAgent,
        R::Antigravity => &antigravity::Antigravity,
        R::Starchild => &starchild::Starchild,
        R::Everruns => unreachable!("{runtime:?} has no `install` in its profile, so no install steps"),
    }
}

/// Whether `folder` is `dir` or inside it.
fn within(folder: &Path, dir: &str) -> bool {
    folder.starts_with(Path::new(dir))
}

/// A JSON settings file, when it exists and parses (else the runtime sees none of it either).
pub(super) fn settings(path: &Path) -> Option<Json> {
    let text = super::read(path).ok()??;
    super::parse_json(path, Some(&text)).ok()
}

/// A TOML settings file as the runtime would read it: empty when it is missing or does not parse.
fn toml_file(path: &Path) -> toml_edit::DocumentMut {
    super::read(path).ok().flatten().unwrap_or_default().parse().unwrap_or_default()
}

/// The folder-trust step Gemini CLI and Copilot share: `project` added to a JSON file of trusted
/// folders at `path` by `add` (which returns what it added and warnings).
fn trust_folder(path: std::path::PathBuf, title: &str, project: &Path, notes: &mut Vec<String>, add: impl Fn(&mut Json, &Path) -> Result<(Vec<String>, Vec<String>), String>) -> Result<Option<Edit>, String> {
    let before = super::read(&path)?;
    let old = super::parse_json(&path, before.as_deref())?;
    let mut cfg = old.clone();
    let (added, warnings) = add(&mut cfg, project).map_err(|e| format!("{}: {e}", path.display()))?;
    notes.extend(warnings);
    for folder in &added {
        notes.push(format!("trust: {title} will treat {folder} as a trusted folder (its project settings and hooks are read; {})", path.display()));
    }
    Ok((!added.is_empty()).then(|| Edit { path, after: cfg.render(before.as_deref()), before, role: Role::Trust, added }))
}

/// Undo [`trust_folder`]: `remove` takes the `added` folders out of the file's document.
fn untrust_folder(title: &str, role: Role, path: &Path, current: &str, added: &[String], remove: impl Fn(&mut Json, &[String])) -> Result<String, String> {
    if role != Role::Trust {
        return Err(format!("{}: install records no {role:?} file for {title}; nothing was changed", path.display()));
    }
    let old = super::parse_json(path, Some(current))?;
    let mut doc = old.clone();
    remove(&mut doc, added);
    Ok(super::rendered(&doc, &old, Some(current)))
}

/// `doctor`'s folder-trust check (Gemini CLI, Copilot): whether `trusted` holds for the project
/// in the file at `path`.
fn check_folder(runtime: Runtime, places: &Places, path: &Path, trusted: bool, fix: &str) -> Vec<Finding> {
    vec![(
        "folder trusted",
        if trusted {
            Ok(format!("{} is trusted ({})", places.project.display(), path.display()))
        } else {
            Err((format!("{} reads no project hooks in {}: it is not a trusted folder in {}", runtime.title(), places.project.display(), path.display()), fix.to_string()))
        },
    )]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every runtime install wires has its steps, and each one's probe is a tool call its own
    /// event reader takes for the runtime's tool event.
    #[test]
    fn every_installable_runtime_has_its_steps() {
        for &r in Runtime::all() {
            let steps = of(r);
            let probe = steps.probe("/p").to_string();
            let event_name = matches!(r.shared().profile().payload, hookhost_types::runtime::Payload::Camel(_)).then(|| r.tool_event());
            let event = hookhost::HookEvent::read(probe.as_bytes(), Some(r.shared()), event_name).unwrap_or_else(|e| panic!("{r:?}: its probe {probe} does not read: {e}"));
            assert_eq!(event.name, hookhost::EventName::PreToolUse, "{r:?}");
            // Its shell tool's own argument (docker-agent's is `cmd`).
            let command = event.arguments().and_then(|a| a.get("command").or_else(|| a.get("cmd")));
            assert_eq!(command.and_then(|c| c.as_str()), Some("rm -rf /"), "{r:?}: {probe}");
            assert!(!steps.denies(&serde_json::json!({})), "{r:?}: an empty answer is no deny");
        }
    }

    /// An install recorded before the trust files were one role is still undone.
    #[test]
    fn ledgers_of_earlier_installs_still_read() {
        for (old, role) in [("codex-trust", Role::Trust), ("gemini-trust", Role::Trust), ("copilot-trust", Role::Trust), ("codex-requirements", Role::ManagedOnly), ("trust", Role::Trust), ("hooks", Role::Hooks)] {
            assert_eq!(serde_json::from_str::<Role>(&format!("\"{old}\"")).unwrap(), role, "{old}");
        }
    }
}
