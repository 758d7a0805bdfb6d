//! The bash adapter's contract with the host, typed: its [settings](AdapterSettings) — what a
//! config writes under `executor.settings` for `builtin:bash-adapter`, what the peer-config
//! reader produces for every converted hook, and what the adapter reads — and its
//! [refusals](AdapterRefusal), which travel as the `err` of `validate-settings` and which the
//! host matches on rather than reading their wording.

use crate::runtime::Runtime;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The longest `timeout_ms`: a peer runtime's own default (Claude Code's 600 s).
pub const MAX_TIMEOUT_MS: u64 = 600_000;

/// Shells `shell` may name, and the flags that hand each the script.
pub const SHELLS: &[(&str, &[&str])] = &[("bash", &["-c"]), ("sh", &["-c"]), ("zsh", &["-c"]), ("dash", &["-c"]), ("powershell", &["-NoProfile", "-Command"]), ("pwsh", &["-NoProfile", "-Command"])];

/// Where a hook's command runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AdapterMode {
    /// In the adapter's in-wasm bash, with the project (if any) mounted read-only.
    Sandbox,
    /// As a real process on the host (needs `process:exec`).
    Host,
    /// The host picks at load: `host` where the hook holds `process:exec`, else `sandbox`
    /// (converted peer hooks). Left unresolved, it is the sandbox.
    Auto,
}

/// What a hook that could not start becomes (`peer_start_failure` for converted hooks).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StartFailure {
    /// A block whose reason names the hook, what is missing and the fix.
    #[default]
    Block,
    /// An executor error: the hook's `on_error` decides.
    Warn,
}

impl StartFailure {
    /// The name as written (`block`, `warn`).
    pub fn as_str(self) -> &'static str {
        match self {
            StartFailure::Block => "block",
            StartFailure::Warn => "warn",
        }
    }
}

/// The bash adapter's settings. Exactly one of `command`, `argv` and `url` is set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterSettings {
    /// A bash script (run by `shell` in host mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// A program and its arguments, run without a shell (host mode; quoted for the sandbox).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argv: Option<Vec<String>>,
    /// A peer's HTTP hook: the event is POSTed here through `wasi:http`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Request headers of a `url` hook (`$VAR` filled by the host for `allowed_env_vars`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Variables the host may fill into `headers` (the config's own hooks only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_env_vars: Vec<String>,
    /// The environment the command gets (besides what its dialect sets).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// The working directory (relative: to `project_dir`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub working_dir: Option<String>,
    /// The wire format the hook speaks (default `everruns`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<Runtime>,
    /// Where it runs (default `sandbox`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<AdapterMode>,
    /// The process's own deadline in host mode, 100..=600000 (default 30000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The runtime's project directory (absolute): working directory, `$CLAUDE_PROJECT_DIR`,
    /// and in the sandbox a read-only mount at the same path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_dir: Option<String>,
    /// The shell that runs `command` in host mode (one of [`SHELLS`]; default `bash`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shell: Option<String>,
    /// What a hook that could not start becomes; set for converted peer hooks, which then load
    /// even when they cannot run in the sandbox. Without it such a sandbox script is refused at
    /// load.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_failure: Option<StartFailure>,
}

/// The settings' keys, for messages.
pub const KNOWN_SETTINGS: &str = "command, argv, url, headers, allowed_env_vars, env, working_dir, dialect, mode, timeout_ms, project_dir, shell, start_failure";

impl AdapterSettings {
    /// A shell hook converted from a peer file: `command` in `dialect`, run where the host
    /// decides (`auto`).
    pub fn shell(dialect: Runtime, command: String) -> AdapterSettings {
        AdapterSettings { command: Some(command), dialect: Some(dialect), mode: Some(AdapterMode::Auto), ..Default::default() }
    }

    /// Read and check settings (every rule of the adapter's but the URL's syntax, which the
    /// adapter checks itself). The error is one line naming the setting.
    pub fn from_json(value: &serde_json::Value) -> Result<AdapterSettings, String> {
        if !value.is_object() {
            return Err("settings must be an object".into());
        }
        // Read in place (`&Value` deserialises): the adapter does this on every call.
        let settings = AdapterSettings::deserialize(value).map_err(|e| {
            let e = e.to_string();
            if let Some(rest) = e.strip_prefix("unknown field `") {
                return format!("unknown setting {:?}; known settings are {KNOWN_SETTINGS}", rest.split('`').next().unwrap_or(rest));
            }
            // Name the setting: the first key that does not read on its own is the one.
            let bad = value.as_object().into_iter().flatten().find_map(|(key, v)| {
                let one = serde_json::Value::Object([(key.clone(), v.clone())].into_iter().collect());
                AdapterSettings::deserialize(&one).err().map(|e| format!("settings.{key}: {e}"))
            });
            bad.unwrap_or(format!("settings: {e}"))
        })?;
        settings.check()?;
        Ok(settings)
    }

    fn check(&self) -> Result<(), String> {
        if self.argv.as_ref().is_some_and(Vec::is_empty) {
            return Err("settings.argv must be a non-empty list of strings".into());
        }
        if let Some(t) = self.timeout_ms.filter(|t| !(100..=MAX_TIMEOUT_MS).contains(t)) {
            return Err(format!("settings.timeout_ms {t} must be an integer in 100..={MAX_TIMEOUT_MS}"));
        }
        if let Some(dir) = self.project_dir.as_ref().filter(|d| !d.starts_with('/')) {
            return Err(format!("settings.project_dir {dir:?} must be an absolute path"));
        }
        if let Some(shell) = self.shell.as_ref().filter(|s| !SHELLS.iter().any(|(name, _)| name == s)) {
            return Err(format!("settings.shell {shell:?} is not one of {}", SHELLS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")));
        }
        if self.url.is_some() {
            if self.command.is_some() || self.argv.is_some() {
                return Err("set one of settings.command, settings.argv or settings.url".into());
            }
            if self.mode.is_some_and(|m| m != AdapterMode::Auto) {
                return Err("settings.mode does not apply to a url hook (it runs in no shell)".into());
            }
            return Ok(());
        }
        if !self.headers.is_empty() {
            return Err("settings.headers applies to url hooks only".into());
        }
        match (&self.command, &self.argv) {
            (Some(_), Some(_)) => Err("set either settings.command or settings.argv, not both".into()),
            (None, None) => Err("settings.command (a bash script), settings.argv or settings.url is required".into()),
            _ => Ok(()),
        }
    }

    /// Where it runs: `url` hooks post over `wasi:http` (`None`); else its mode, `sandbox` when
    /// unset.
    pub fn runs(&self) -> Option<AdapterMode> {
        match self.url {
            Some(_) => None,
            None => Some(self.mode.unwrap_or(AdapterMode::Sandbox)),
        }
    }

    /// Its dialect (`everruns` when unset).
    pub fn dialect(&self) -> Runtime {
        self.dialect.unwrap_or(Runtime::Everruns)
    }

    /// As JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("adapter settings serialise")
    }
}

/// Why the adapter refuses a hook's settings at load. It crosses the component boundary as
/// JSON in `validate-settings`' `err` ([`AdapterRefusal::encode`]); the host decodes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "refusal", rename_all = "snake_case")]
pub enum AdapterRefusal {
    /// The settings are malformed.
    Settings {
        /// What is wrong, naming the setting.
        message: String,
    },
    /// The command cannot run in the sandbox, and the hook has no `start_failure` policy.
    Sandbox {
        /// What it needs that the sandbox lacks (a program, a file, a shell).
        gap: String,
    },
}

impl AdapterRefusal {
    /// The wire form (`validate-settings`' `err`).
    pub fn encode(&self) -> String {
        serde_json::to_string(self).expect("refusals serialise")
    }

    /// A refusal from its wire form; `None` for any other text.
    pub fn decode(text: &str) -> Option<AdapterRefusal> {
        text.starts_with("{\"refusal\"").then(|| serde_json::from_str(text).ok()).flatten()
    }
}

impl fmt::Display for AdapterRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdapterRefusal::Settings { message } => f.write_str(message),
            AdapterRefusal::Sandbox { gap } => write!(f, "the command cannot run in the sandbox: {gap}; run it as a real process with settings.mode = \"host\" and grant process:exec to builtin:bash-adapter"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(v: serde_json::Value) -> String {
        AdapterSettings::from_json(&v).unwrap_err()
    }

    #[test]
    fn every_bad_setting_is_named() {
        assert_eq!(err(json!([])), "settings must be an object");
        assert_eq!(err(json!({"command": "x", "colour": 1})), "unknown setting \"colour\"; known settings are command, argv, url, headers, allowed_env_vars, env, working_dir, dialect, mode, timeout_ms, project_dir, shell, start_failure");
        assert_eq!(err(json!({"command": "x", "dialect": "fish"})), "settings.dialect: \"fish\" is not one of everruns, claude-code, codex, gemini-cli, docker-agent, starchild, copilot, opencode, qwen-code, cursor, antigravity");
        assert_eq!(err(json!({"command": "x", "mode": "cloud"})), "settings.mode: unknown variant `cloud`, expected one of `sandbox`, `host`, `auto`");
        assert_eq!(err(json!({"command": "x", "start_failure": "ignore"})), "settings.start_failure: unknown variant `ignore`, expected `block` or `warn`");
        assert_eq!(err(json!({"command": 7})), "settings.command: invalid type: integer `7`, expected a string");
        assert_eq!(err(json!({"command": "x", "timeout_ms": 5})), "settings.timeout_ms 5 must be an integer in 100..=600000");
        assert_eq!(err(json!({"command": "x", "project_dir": "rel"})), "settings.project_dir \"rel\" must be an absolute path");
        assert_eq!(err(json!({"command": "x", "shell": "fish"})), "settings.shell \"fish\" is not one of bash, sh, zsh, dash, powershell, pwsh");
        assert_eq!(err(json!({"argv": []})), "settings.argv must be a non-empty list of strings");
        assert_eq!(err(json!({"command": "x", "argv": ["y"]})), "set either settings.command or settings.argv, not both");
        assert_eq!(err(json!({})), "settings.command (a bash script), settings.argv or settings.url is required");
        assert_eq!(err(json!({"url": "http://h", "command": "x"})), "set one of settings.command, settings.argv or settings.url");
        assert_eq!(err(json!({"url": "http://h", "mode": "host"})), "settings.mode does not apply to a url hook (it runs in no shell)");
        assert_eq!(err(json!({"command": "x", "headers": {"a": "b"}})), "settings.headers applies to url hooks only");
        assert_eq!(err(json!({"command": "x", "env": {"A": 1}})), "settings.env: invalid type: integer `1`, expected a string");
    }

    #[test]
    fn settings_round_trip_and_default() {
        let s = AdapterSettings::shell(Runtime::ClaudeCode, "echo hi".into());
        assert_eq!(s.to_json(), json!({"command": "echo hi", "dialect": "claude-code", "mode": "auto"}));
        assert_eq!(AdapterSettings::from_json(&s.to_json()).unwrap(), s);
        let plain = AdapterSettings::from_json(&json!({"command": "true"})).unwrap();
        assert_eq!((plain.dialect(), plain.runs()), (Runtime::Everruns, Some(AdapterMode::Sandbox)));
        let url = AdapterSettings::from_json(&json!({"url": "https://h/x", "dialect": "codex"})).unwrap();
        assert_eq!((url.dialect(), url.runs()), (Runtime::Codex, None));
    }

    #[test]
    fn refusals_cross_as_json_and_read_back() {
        let r = AdapterRefusal::Sandbox { gap: "it runs `cargo`".into() };
        assert_eq!(AdapterRefusal::decode(&r.encode()), Some(r.clone()));
        assert_eq!(r.to_string(), "the command cannot run in the sandbox: it runs `cargo`; run it as a real process with settings.mode = \"host\" and grant process:exec to builtin:bash-adapter");
        assert_eq!(AdapterRefusal::decode("settings must be an object"), None);
        assert_eq!(AdapterRefusal::decode("{\"refusal\": 3"), None);
    }
}
