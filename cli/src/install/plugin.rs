//! A runtime wired by a plugin module of hookhost's own (OpenCode: `Layout::Plugin`): install
//! writes the whole file from the template beside this module, with the command it runs (this
//! `hookhost run --output opencode`, or `hookhost-send --output opencode`, with `--fail-open` /
//! `--fail-closed`) and its policy for a command that gives no answer stamped in; uninstall
//! removes it; doctor reads the command back and probes it.

use super::runtimes::{Target, Wiring};

/// The template (`opencode_plugin.js`): hookhost's envelope out, OpenCode's answer in.
const TEMPLATE: &str = include_str!("opencode_plugin.js");

/// How a plugin of hookhost's begins: what tells it from a file someone else put there.
const MARK: &str = "// hookhost plugin for OpenCode";

/// Whether a file's text is hookhost's plugin.
pub(crate) fn is_ours(text: &str) -> bool {
    text.starts_with(MARK)
}

/// The command the plugin runs per event, as `target` wires it.
fn command(target: &Target) -> Vec<String> {
    match target.wiring {
        Wiring::Send => vec![target.send.display().to_string(), "--output".into(), "opencode".into()],
        _ => vec![target.hookhost.display().to_string(), "run".into(), "--output".into(), "opencode".into()],
    }
    .into_iter()
    .chain(target.failure_flag.map(String::from))
    .collect()
}

/// What the plugin does when hookhost itself fails: `closed` (block tool calls and messages),
/// `always` (and withhold a tool's output), `open` (block nothing).
fn failure(target: &Target) -> &'static str {
    match target.failure_flag {
        Some("--fail-open") => "open",
        Some(_) => "always",
        None => "closed",
    }
}

/// The plugin's text for `target`.
pub(crate) fn text(target: &Target) -> String {
    let command = serde_json::to_string(&command(target)).unwrap_or_default();
    let failure = serde_json::to_string(failure(target)).unwrap_or_default();
    TEMPLATE.replacen(r#"/*COMMAND*/["hookhost", "run", "--output", "opencode"]"#, &format!("/*COMMAND*/{command}"), 1).replacen(r#"/*FAIL*/"closed""#, &format!("/*FAIL*/{failure}"), 1)
}

/// The command a plugin of hookhost's runs (doctor's probe runs it).
pub(crate) fn stamped_command(text: &str) -> Option<Vec<String>> {
    let at = text.find("/*COMMAND*/")? + "/*COMMAND*/".len();
    let line = text[at..].lines().next()?.trim_end().trim_end_matches(';');
    serde_json::from_str(line).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn the_plugin_carries_the_wired_command_and_policy() {
        let target = |wiring, failure_flag| Target { hookhost: PathBuf::from("/opt/hh/hookhost"), send: PathBuf::from("/opt/hh/hookhost-send"), wiring, failure_flag, server: String::new() };
        let text = text(&target(Wiring::Command, None));
        assert!(is_ours(&text));
        assert_eq!(stamped_command(&text).unwrap(), ["/opt/hh/hookhost", "run", "--output", "opencode"]);
        assert!(text.contains(r#"const FAIL = /*FAIL*/"closed";"#));
        let sent = super::text(&target(Wiring::Send, Some("--fail-open")));
        assert_eq!(stamped_command(&sent).unwrap(), ["/opt/hh/hookhost-send", "--output", "opencode", "--fail-open"]);
        assert!(sent.contains(r#"const FAIL = /*FAIL*/"open";"#));
        assert!(super::text(&target(Wiring::Command, Some("--fail-closed"))).contains(r#"/*FAIL*/"always""#));
        assert!(!is_ours("export const Mine = async () => ({})\n"));
    }
}
