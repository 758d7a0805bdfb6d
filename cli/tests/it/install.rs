//! `hookhost install`, `uninstall` and `doctor` on a home and a project of their own: what they
//! write into each runtime's settings, that a second install changes nothing, that uninstall
//! gives back the bytes, and that doctor fails — naming the fix — when the wiring is removed, a
//! Codex trust hash goes stale, or a project switches hooks off. (The real clients running
//! hookhost wired this way: tests/clients.)

use std::path::{Path, PathBuf};
use std::process::Output;

struct Desk {
    _dir: tempfile::TempDir,
    home: PathBuf,
    proj: PathBuf,
    state: PathBuf,
}

impl Desk {
    fn new() -> Desk {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (home, proj, state) = (root.join("home"), root.join("proj"), root.join("state"));
        for d in [&home, &proj] {
            std::fs::create_dir_all(d).unwrap();
        }
        Desk { _dir: dir, home, proj, state }
    }

    fn hookhost(&self, args: &[&str]) -> Output {
        self.hookhost_with(args, &[])
    }

    /// `hookhost args` with `env` set too (what the user's shell exports).
    fn hookhost_with(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let out = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"))
            .args(args)
            .current_dir(&self.proj)
            .env_clear()
            .envs(env.iter().copied())
            // No runtime program on PATH: detection sees only the desk's home.
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("XDG_STATE_HOME", &self.state)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            // One compile cache for every desk: the built-ins are compiled once.
            .env("HOOKHOST_CACHE_DIR", std::env::temp_dir().join("hookhost-install-tests-cache"))
            .output()
            .unwrap();
        out
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.hookhost(args);
        assert!(out.status.success(), "hookhost {args:?}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn write(&self, path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn json(&self, path: &Path) -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }
}

fn hookhost_bin() -> String {
    Path::new(env!("CARGO_BIN_EXE_hookhost")).canonicalize().unwrap().display().to_string()
}

/// The commands under each event of a Claude Code-shaped hooks object.
fn commands(hooks: &serde_json::Value, event: &str) -> Vec<String> {
    hooks[event].as_array().into_iter().flatten().flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default()).filter_map(|h| h["command"].as_str().map(String::from)).collect()
}

const CLAUDE_SETTINGS: &str = "{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"PreToolUse\": [\n            {\n                \"matcher\": \"Bash\",\n                \"hooks\": [\n                    {\n                        \"type\": \"command\",\n                        \"command\": \"./mine.sh\"\n                    }\n                ]\n            }\n        ]\n    },\n    \"env\": {\"A\": \"1\"}\n}\n";

#[test]
fn install_merges_once_and_uninstall_gives_the_bytes_back() {
    let desk = Desk::new();
    let settings = desk.home.join(".claude/settings.json");
    desk.write(&settings, CLAUDE_SETTINGS);

    // A dry run shows the diff and writes nothing.
    let dry = desk.ok(&["install", "--runtime", "claude-code", "--dry-run"]);
    assert!(dry.contains(&format!("+++ {}", settings.display())) && dry.contains(&format!("+                        \"command\": \"{} run --output claude-code\"", hookhost_bin())), "{dry}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), CLAUDE_SETTINGS);
    assert!(!desk.state.exists(), "a dry run recorded something");

    let out = desk.ok(&["install", "--runtime", "claude-code"]);
    assert!(out.contains("claude-code: wired 5 events in"), "{out}");
    let v = desk.json(&settings);
    // The user's hook and keys stay, in their order; hookhost's entry is the absolute path of
    // this binary on every event.
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(text.find("\"model\"").unwrap() < text.find("\"hooks\"").unwrap() && text.find("\"hooks\"").unwrap() < text.find("\"env\"").unwrap(), "{text}");
    assert_eq!(commands(&v["hooks"], "PreToolUse"), ["./mine.sh".to_string(), format!("{} run --output claude-code", hookhost_bin())]);
    for event in ["PermissionRequest", "UserPromptSubmit", "PostToolUse", "Stop"] {
        assert_eq!(commands(&v["hooks"], event), [format!("{} run --output claude-code", hookhost_bin())], "{event}");
    }
    // The earlier bytes are kept.
    let backups: Vec<_> = walk(&desk.state.join("hookhost/backups"));
    assert_eq!(backups.len(), 1);
    assert_eq!(std::fs::read_to_string(&backups[0]).unwrap(), CLAUDE_SETTINGS);

    // A second install changes nothing.
    let wired = std::fs::read(&settings).unwrap();
    let again = desk.ok(&["install", "--runtime", "claude-code"]);
    assert!(again.contains("already wired") && again.contains("nothing changed"), "{again}");
    assert_eq!(std::fs::read(&settings).unwrap(), wired);

    let out = desk.ok(&["uninstall"]);
    assert!(out.contains("restored as it was before install"), "{out}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), CLAUDE_SETTINGS);
    let ledger: serde_json::Value = desk.json(&desk.state.join("hookhost/installs.json"));
    assert_eq!(ledger["files"], serde_json::json!([]));
    assert!(desk.ok(&["uninstall"]).contains("nothing to uninstall"));
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

#[test]
fn uninstall_after_an_edit_removes_only_what_install_added() {
    let desk = Desk::new();
    let settings = desk.proj.join(".gemini/settings.json");
    desk.ok(&["install", "--runtime", "gemini-cli", "--scope", "project"]);
    let trusted = desk.home.join(".gemini/trustedFolders.json");
    assert_eq!(desk.json(&trusted), serde_json::json!({ desk.proj.display().to_string(): "TRUST_FOLDER" }));
    let mut v = desk.json(&settings);
    assert_eq!(v["hooks"]["BeforeTool"][0]["matcher"], ".*");
    // The user adds a setting and a hook of their own after install.
    v["general"] = serde_json::json!({"vimMode": true});
    v["hooks"]["BeforeTool"].as_array_mut().unwrap().push(serde_json::json!({"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]}));
    std::fs::write(&settings, serde_json::to_string_pretty(&v).unwrap()).unwrap();

    let out = desk.ok(&["uninstall", "--runtime", "gemini-cli"]);
    assert!(out.contains("removed hookhost's entries"), "{out}");
    assert_eq!(desk.json(&settings), serde_json::json!({"hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]}]}, "general": {"vimMode": true}}));
    // The folder trust install added is gone with the file it made; the directories install made are gone.
    assert!(!trusted.exists() && !desk.home.join(".gemini").exists());
}

/// Qwen Code (written from its documentation): install writes Claude Code's shape into
/// `.qwen/settings.json` and trusts the folder in `~/.qwen/trustedFolders.json`; doctor's live
/// probe is Qwen Code's own payload (`run_shell_command`), and it sees `disableAllHooks`;
/// uninstall takes both back.
#[test]
fn qwen_code_is_wired_trusted_probed_and_taken_back() {
    let desk = Desk::new();
    desk.ok(&["install", "--runtime", "qwen-code", "--scope", "project"]);
    let settings = desk.proj.join(".qwen/settings.json");
    let v = desk.json(&settings);
    for event in ["PreToolUse", "PermissionRequest", "UserPromptSubmit", "PostToolUse", "Stop"] {
        assert_eq!(commands(&v["hooks"], event), [format!("{} run --output qwen-code", hookhost_bin())], "{event}");
    }
    assert_eq!(v["hooks"]["PreToolUse"][0]["matcher"], "*");
    let trusted = desk.home.join(".qwen/trustedFolders.json");
    assert_eq!(desk.json(&trusted), serde_json::json!({ desk.proj.display().to_string(): "TRUST_FOLDER" }));
    let out = desk.ok(&["doctor", "--runtime", "qwen-code"]);
    assert!(out.contains("ok   qwen-code (project) wired: 5 events"), "{out}");
    assert!(out.contains("folder trusted"), "{out}");
    assert!(out.contains(&format!("ok   qwen-code (project) live probe: `{} run --output qwen-code` denies `rm -rf /`", hookhost_bin())), "{out}");

    desk.write(&desk.home.join(".qwen/settings.json"), "{\"disableAllHooks\": true}\n");
    let out = desk.hookhost(&["doctor", "--runtime", "qwen-code"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("says \"disableAllHooks\": true"), "{stdout}");
    std::fs::remove_file(desk.home.join(".qwen/settings.json")).unwrap();

    desk.ok(&["uninstall", "--runtime", "qwen-code"]);
    assert!(!settings.exists() && !trusted.exists(), "install's files are gone");
}

#[test]
fn codex_is_trusted_as_codex_records_it_and_its_config_keeps_its_comments() {
    let desk = Desk::new();
    let config = desk.home.join(".codex/config.toml");
    let before = "# my settings\nmodel = \"o3\"  # the model\n\n[projects.\"/elsewhere\"]\ntrust_level = \"trusted\"\n";
    desk.write(&config, before);
    desk.ok(&["install", "--runtime", "codex", "--scope", "project", "--fail-open"]);
    let hooks_file = desk.proj.join(".codex/hooks.json");
    let v = desk.json(&hooks_file);
    assert_eq!(commands(&v["hooks"], "PreToolUse"), [format!("{} run --output codex --fail-open", hookhost_bin())]);
    assert!(v["hooks"]["PreToolUse"][0].get("matcher").is_none(), "every tool, apply_patch included");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.starts_with(before), "{text}");
    let key = format!("[hooks.state.\"{}:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:", hooks_file.display());
    assert!(text.contains(&key), "{text}");
    assert!(text.contains(&format!("[projects.\"{}\"]\ntrust_level = \"trusted\"", desk.proj.display())), "{text}");
    assert_eq!(text.matches("trusted_hash").count(), 5);
    assert!(desk.ok(&["doctor", "--runtime", "codex", "--no-probe"]).contains("ok   codex (project) trusted: 5 hooks trusted"));

    // The hook changed by hand: Codex would skip it (its hash is stale), and doctor says so.
    let changed = std::fs::read_to_string(&hooks_file).unwrap().replacen("--fail-open", "--fail-closed", 1);
    std::fs::write(&hooks_file, changed).unwrap();
    let out = desk.hookhost(&["doctor", "--runtime", "codex", "--no-probe"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL codex (project) trusted: Codex skips these hookhost hooks without a word") && stdout.contains(":pre_tool_use:0:0") && stdout.contains("fix: hookhost install --runtime codex --scope project"), "{stdout}");
    // Installing again brings the trust up to date, and uninstall leaves config.toml as it was.
    desk.ok(&["install", "--runtime", "codex", "--scope", "project", "--fail-open"]);
    assert!(desk.ok(&["doctor", "--runtime", "codex", "--no-probe"]).contains("everything checked holds"));
    desk.ok(&["uninstall"]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);
    assert!(!hooks_file.exists());
}

#[test]
fn copilot_entries_name_their_event_and_the_folder_is_trusted() {
    let desk = Desk::new();
    let config = desk.home.join(".copilot/config.json");
    desk.write(&config, "{\n  \"trusted_folders\": [\"/elsewhere\"],\n  \"model\": \"x\"\n}\n");
    desk.ok(&["install", "--runtime", "copilot", "--scope", "project", "--wiring", "send"]);
    let v = desk.json(&desk.proj.join(".github/hooks/hookhost.json"));
    assert_eq!(v["version"], 1);
    let send = Path::new(&hookhost_bin()).with_file_name("hookhost-send").display().to_string();
    assert_eq!(v["hooks"]["preToolUse"], serde_json::json!([{"type": "command", "bash": format!("{send} --output copilot --event-name preToolUse")}]));
    assert_eq!(v["hooks"]["userPromptTransformed"][0]["bash"], format!("{send} --output copilot --event-name userPromptTransformed"));
    assert_eq!(desk.json(&config)["trusted_folders"], serde_json::json!(["/elsewhere", desk.proj.display().to_string()]));
    desk.ok(&["uninstall"]);
    assert_eq!(std::fs::read_to_string(&config).unwrap(), "{\n  \"trusted_folders\": [\"/elsewhere\"],\n  \"model\": \"x\"\n}\n");
}

#[test]
fn a_file_install_cannot_edit_stops_it_before_anything_is_written() {
    let desk = Desk::new();
    // Comments are not JSON: Claude Code would not read this file either.
    let settings = desk.home.join(".claude/settings.json");
    desk.write(&settings, "{\n  // mine\n  \"model\": \"opus\"\n}\n");
    let out = desk.hookhost(&["install", "--runtime", "codex", "--runtime", "claude-code"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&format!("claude-code: {}: not JSON", settings.display())) && stderr.contains("comments and trailing commas are not JSON"), "{stderr}");
    // Codex, planned before Claude Code failed, was not written either.
    assert!(!desk.home.join(".codex").exists() && !desk.state.exists());

    let out = desk.hookhost(&["install", "--runtime", "codex", "--wiring", "http"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--wiring http: Codex has no http hooks: use --wiring send"), "{}", String::from_utf8_lossy(&out.stderr));
    // Nothing found and nothing named.
    std::fs::remove_dir_all(desk.home.join(".claude")).unwrap();
    let out = desk.hookhost(&["install"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no agent runtime found on this machine"));
}

#[test]
fn doctor_proves_the_wiring_and_names_the_fix_when_it_breaks() {
    let desk = Desk::new();
    desk.ok(&["install", "--runtime", "claude-code", "--scope", "project"]);
    let out = desk.ok(&["doctor", "--runtime", "claude-code"]);
    assert!(out.contains("ok   claude-code (project) wired: 5 events"), "{out}");
    assert!(out.contains(&format!("ok   claude-code (project) live probe: `{} run --output claude-code` denies `rm -rf /`", hookhost_bin())), "{out}");
    assert!(out.contains("ok   hookhost layers load"), "{out}");

    // The project switches every hook off.
    desk.write(&desk.proj.join(".claude/settings.local.json"), "{\"disableAllHooks\": true}\n");
    let out = desk.hookhost(&["doctor", "--runtime", "claude-code", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["ok"], false);
    let failed: Vec<&serde_json::Value> = report["checks"].as_array().unwrap().iter().filter(|c| c["ok"] == false).collect();
    assert_eq!(failed.len(), 1, "{report:#}");
    assert_eq!(failed[0]["check"], "hooks not switched off");
    assert!(failed[0]["detail"].as_str().unwrap().contains("settings.local.json says \"disableAllHooks\": true"));
    assert!(failed[0]["fix"].as_str().unwrap().contains("sudo hookhost install --runtime claude-code --scope managed"), "{report:#}");
    std::fs::remove_file(desk.proj.join(".claude/settings.local.json")).unwrap();

    // A wiring removed by hand.
    let settings = desk.proj.join(".claude/settings.json");
    let mut v = desk.json(&settings);
    v["hooks"].as_object_mut().unwrap().remove("PostToolUse");
    std::fs::write(&settings, v.to_string()).unwrap();
    let out = desk.hookhost(&["doctor", "--runtime", "claude-code"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("has no hookhost entry for PostToolUse") && stdout.contains("fix: hookhost install --runtime claude-code --scope project"), "{stdout}");

    // A chain that lets the destructive call through fails the probe.
    desk.ok(&["install", "--runtime", "claude-code", "--scope", "project"]);
    desk.write(&desk.home.join(".config/hookhost/hooks.toml"), "[[hooks]]\nid = \"only_at_stop\"\nevent = \"stop\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n");
    let out = desk.hookhost(&["doctor", "--runtime", "claude-code"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL claude-code (project) live probe:") && stdout.contains("did not deny `rm -rf /`"), "{stdout}");

    // A runtime on the machine with no wiring at all.
    desk.ok(&["uninstall"]);
    std::fs::create_dir_all(desk.home.join(".codex")).unwrap();
    let out = desk.hookhost(&["doctor"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("FAIL codex wired: Codex is on this machine but hookhost is wired at no scope") && stdout.contains("fix: hookhost install --runtime codex"), "{stdout}");
}

// File modes are unix's.
#[cfg(unix)]
#[test]
fn a_managed_install_is_the_administrators_and_outranks_the_project() {
    let desk = Desk::new();
    let root = desk.home.parent().unwrap().join("image");
    let root_arg = root.display().to_string();
    // Copilot has no managed settings file: said, nothing written.
    let out = desk.hookhost(&["install", "--runtime", "copilot", "--scope", "managed", "--root", &root_arg]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("GitHub Copilot CLI has no managed hook settings in a file"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = desk.hookhost(&["install", "--runtime", "codex", "--allow-managed-hooks-only"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!root.exists());

    let out = desk.ok(&["install", "--runtime", "claude-code", "--scope", "managed", "--allow-managed-hooks-only", "--root", &root_arg]);
    assert!(out.contains("runs only managed hooks from now on"), "{out}");
    let managed = root.join("etc/claude-code/managed-settings.json");
    let v = desk.json(&managed);
    assert_eq!(v["allowManagedHooksOnly"], true);
    assert_eq!(commands(&v["hooks"], "PreToolUse"), [format!("{} run --output claude-code", hookhost_bin())]);
    use std::os::unix::fs::PermissionsExt as _;
    // Every user's runtime reads it.
    assert_eq!(std::fs::metadata(&managed).unwrap().permissions().mode() & 0o777, 0o644);
    // The record is beside hookhost's managed config, not in a user's state directory.
    assert!(root.join("etc/hookhost/install/installs.json").is_file() && !desk.state.exists());
    // hookhost's own managed layer comes with it, once it parses.
    let bad = desk.proj.join("org-bad.toml");
    desk.write(&bad, "[[hooks]\n");
    let out = desk.hookhost(&["install", "--runtime", "codex", "--scope", "managed", "--root", &root_arg, "--managed-config", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("org-bad.toml") && String::from_utf8_lossy(&out.stderr).contains("nothing was installed"), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!root.join("etc/codex").exists());
    let org = desk.proj.join("org.toml");
    let org_text = "[[hooks]]\nid = \"guard\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\" }\n";
    desk.write(&org, org_text);
    let out = desk.hookhost(&["install", "--runtime", "gemini-cli", "--scope", "managed", "--root", &root_arg, "--allow-managed-hooks-only"]);
    assert_eq!(out.status.code(), Some(2), "Gemini CLI has no such switch");
    let out = desk.ok(&["install", "--runtime", "codex", "--scope", "managed", "--root", &root_arg, "--allow-managed-hooks-only", "--managed-config", org.to_str().unwrap()]);
    assert!(out.contains("hookhost: installed the managed config") && out.contains("codex: set allow_managed_hooks_only in"), "{out}");
    assert_eq!(std::fs::read_to_string(root.join("etc/codex/requirements.toml")).unwrap(), "allow_managed_hooks_only = true\n");
    desk.ok(&["install", "--runtime", "gemini-cli", "--scope", "managed", "--root", &root_arg]);
    let managed_toml = root.join("etc/hookhost/managed.toml");
    assert_eq!(std::fs::read_to_string(&managed_toml).unwrap(), org_text);
    assert_eq!(std::fs::metadata(&managed_toml).unwrap().permissions().mode() & 0o777, 0o644);
    // Codex's system hooks.json needs no trust step: no config.toml is written.
    assert!(root.join("etc/codex/hooks.json").is_file() && root.join("etc/gemini-cli/settings.json").is_file() && !desk.home.join(".codex").exists());

    // A project that switches hooks off does not reach hooks in the managed settings.
    desk.write(&desk.proj.join(".claude/settings.local.json"), "{\"disableAllHooks\": true}\n");
    let out = desk.ok(&["doctor", "--runtime", "claude-code", "--root", &root_arg]);
    assert!(out.contains("ok   claude-code (managed) wired: 5 events") && out.contains("ok   claude-code (managed) live probe") && out.contains("ok   claude-code hooks not switched off"), "{out}");

    let out = desk.ok(&["uninstall", "--scope", "managed", "--root", &root_arg]);
    assert_eq!(out.matches("(install made it)").count(), 5, "{out}");
    assert!(!managed_toml.exists());
    assert!(!managed.exists() && !root.join("etc/claude-code").exists() && !root.join("etc/codex").exists());
}

#[test]
fn install_finishes_its_work_when_its_reader_goes_away() {
    let desk = Desk::new();
    let mut cmd = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"));
    cmd.args(["install", "--runtime", "claude-code", "--runtime", "codex"]).current_dir(&desk.proj).env("HOME", &desk.home).env("XDG_STATE_HOME", &desk.state).env_remove("CODEX_HOME");
    // `hookhost install | head -0`: the reader is gone before the first line.
    let out = crate::common::with_reader_gone(cmd);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let ledger = desk.json(&desk.state.join("hookhost/installs.json"));
    assert_eq!(ledger["files"].as_array().unwrap().len(), 3, "{ledger:#}");
    assert!(desk.ok(&["doctor", "--runtime", "claude-code", "--runtime", "codex", "--no-probe"]).contains("everything checked holds"));
}

// Made with unix's symlink call.
#[cfg(unix)]
#[test]
fn a_linked_settings_file_stays_a_link() {
    let desk = Desk::new();
    // A dotfiles repository's settings, linked into the home.
    let dotfiles = desk.home.parent().unwrap().join("dotfiles/claude-settings.json");
    desk.write(&dotfiles, "{\"model\": \"opus\"}\n");
    std::fs::create_dir_all(desk.home.join(".claude")).unwrap();
    let link = desk.home.join(".claude/settings.json");
    std::os::unix::fs::symlink(&dotfiles, &link).unwrap();
    desk.ok(&["install", "--runtime", "claude-code"]);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "install replaced the link with a file");
    assert_eq!(commands(&desk.json(&dotfiles)["hooks"], "Stop"), [format!("{} run --output claude-code", hookhost_bin())]);
    desk.ok(&["uninstall"]);
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read_to_string(&dotfiles).unwrap(), "{\"model\": \"opus\"}\n");
}

#[test]
fn doctor_sees_a_codex_requirement_that_leaves_user_hooks_out() {
    let desk = Desk::new();
    let root = desk.home.parent().unwrap().join("image");
    desk.ok(&["install", "--runtime", "codex"]);
    // The organisation allows managed hooks only, and hookhost is not one of them.
    desk.write(&root.join("etc/codex/requirements.toml"), "allow_managed_hooks_only = true\n");
    let out = desk.hookhost(&["doctor", "--runtime", "codex", "--no-probe", "--root", root.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL codex hooks not switched off") && stdout.contains("allow_managed_hooks_only = true (only managed hooks run, and hookhost is not one)") && stdout.contains("fix: remove that setting; against a repository that switches hooks off: sudo hookhost install --runtime codex --scope managed"), "{stdout}");
    // Wired in the managed settings as well: nothing left out.
    desk.ok(&["install", "--runtime", "codex", "--scope", "managed", "--root", root.to_str().unwrap()]);
    assert!(desk.ok(&["doctor", "--runtime", "codex", "--no-probe", "--root", root.to_str().unwrap()]).contains("everything checked holds"));
}

/// The MCP tool hooks of Claude Code's settings: (event, onFailure) of each of hookhost's.
fn mcp_hooks(settings: &serde_json::Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (event, groups) in settings["hooks"].as_object().into_iter().flatten() {
        for h in groups.as_array().into_iter().flatten().flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default()) {
            if h["type"] == "mcp_tool" && h["server"] == "hookhost" && h["tool"] == "hook" {
                out.push((event.clone(), h["onFailure"].as_str().unwrap_or_default().to_string()));
            }
        }
    }
    out
}

#[test]
fn the_mcp_wiring_lists_the_server_and_each_hook_calls_it_failing_closed() {
    let desk = Desk::new();
    let state = desk.home.join(".claude.json");
    let before = "{\n  \"numStartups\": 4,\n  \"mcpServers\": {\n    \"mine\": {\"type\": \"stdio\", \"command\": \"mine-server\"}\n  },\n  \"projects\": {}\n}\n";
    desk.write(&state, before);

    let out = desk.ok(&["install", "--runtime", "claude-code", "--wiring", "mcp"]);
    assert!(out.contains("wired 5 events") && out.contains("listed the MCP server `hookhost`"), "{out}");
    let v = desk.json(&state);
    assert_eq!(v["numStartups"], 4);
    assert_eq!(v["mcpServers"]["mine"]["command"], "mine-server", "the user's own server stays");
    assert_eq!(v["mcpServers"]["hookhost"], serde_json::json!({"type": "stdio", "command": hookhost_bin(), "args": ["mcp", "--runtime", "claude-code"]}));
    let settings = desk.json(&desk.home.join(".claude/settings.json"));
    // Not answering blocks where `hookhost run` would block: the events that gate an action.
    let mut hooks = mcp_hooks(&settings);
    hooks.sort();
    let want = [("PermissionRequest", "block"), ("PostToolUse", "continue"), ("PreToolUse", "block"), ("Stop", "continue"), ("UserPromptSubmit", "block")];
    assert_eq!(hooks, want.map(|(e, f)| (e.to_string(), f.to_string())));
    // The template names the event's own input fields, each as Claude Code's ${field}.
    let input = &settings["hooks"]["PostToolUse"][0]["hooks"][0]["input"];
    assert_eq!(input["tool_response"], "${tool_response}");
    assert_eq!(input["hook_event_name"], "${hook_event_name}");
    assert!(input.get("prompt").is_none(), "{input}");
    // Twice: nothing changes.
    let wired = std::fs::read(&state).unwrap();
    assert!(desk.ok(&["install", "--runtime", "claude-code", "--wiring", "mcp"]).contains("nothing changed"));
    assert_eq!(std::fs::read(&state).unwrap(), wired);

    // doctor starts the listed server as Claude Code would and calls it with the hook's own template.
    let out = desk.ok(&["doctor", "--runtime", "claude-code"]);
    assert!(out.contains("ok   claude-code (user) MCP server listed: `hookhost` (hookhost mcp)"), "{out}");
    assert!(out.contains(&format!("ok   claude-code (user) live probe: `{} mcp --runtime claude-code` denies `rm -rf /` through the hook's MCP tool call", hookhost_bin())), "{out}");
    // The server's entry gone: doctor fails, naming the fix.
    let mut edited = desk.json(&state);
    edited["mcpServers"].as_object_mut().unwrap().remove("hookhost");
    std::fs::write(&state, edited.to_string()).unwrap();
    let out = desk.hookhost(&["doctor", "--runtime", "claude-code"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("lists no MCP server `hookhost`") && stdout.contains("fix: hookhost install --runtime claude-code --wiring mcp"), "{stdout}");
    desk.ok(&["install", "--runtime", "claude-code", "--wiring", "mcp"]);

    // Back to command hooks: the server is taken out too (nothing would call it).
    let out = desk.ok(&["install", "--runtime", "claude-code"]);
    assert!(out.contains("took the MCP server `hookhost` out of"), "{out}");
    assert!(desk.json(&state)["mcpServers"].get("hookhost").is_none());
    assert!(mcp_hooks(&desk.json(&desk.home.join(".claude/settings.json"))).is_empty());

    // A project: the server in that project's own list (Claude Code's local scope).
    desk.ok(&["install", "--runtime", "claude-code", "--wiring", "mcp", "--scope", "project", "--fail-closed"]);
    let v = desk.json(&state);
    let key = desk.proj.display().to_string();
    assert_eq!(v["projects"][&key]["mcpServers"]["hookhost"]["args"], serde_json::json!(["mcp", "--runtime", "claude-code", "--fail-closed"]));
    assert!(mcp_hooks(&desk.json(&desk.proj.join(".claude/settings.json"))).iter().all(|(_, f)| f == "block"), "--fail-closed blocks on every event");

    // Uninstall: hookhost's entries go, what Claude Code and the user keep there stays.
    let mut touched = desk.json(&state);
    touched["numStartups"] = 5.into();
    std::fs::write(&state, serde_json::to_string_pretty(&touched).unwrap()).unwrap();
    desk.ok(&["uninstall"]);
    let v = desk.json(&state);
    assert_eq!(v["numStartups"], 5);
    assert_eq!(v["mcpServers"]["mine"]["command"], "mine-server");
    assert!(v["mcpServers"].get("hookhost").is_none() && v["projects"][&key]["mcpServers"].get("hookhost").is_none(), "{v:#}");
}

/// `--wiring mcp-http`: the same hooks, the server entry `hookhost serve`'s endpoint by URL with
/// the token from the environment; doctor reaches the daemon as Claude Code would, and fails
/// when it is not running (every tool call would be blocked).
#[test]
fn the_mcp_http_wiring_points_the_hooks_at_the_daemon_which_doctor_reaches() {
    let desk = Desk::new();
    // The daemon's token where `hookhost serve` keeps its own (doctor's fix names that file).
    let token = desk.state.join("hookhost/serve.token");
    desk.write(&token, "t0ken\n");
    let daemon = crate::common::Daemon::start(&["--listen", "127.0.0.1:0", "--token-file", token.to_str().unwrap()]);
    let server = format!("http://{}", daemon.addr);
    let url = format!("{server}/mcp/claude-code");
    let state = desk.home.join(".claude.json");
    desk.write(&state, "{\"numStartups\": 1}\n");
    let out = desk.ok(&["install", "--runtime", "claude-code", "--wiring", "mcp-http", "--server", &server]);
    assert!(out.contains(&format!("listed the MCP server `hookhost` (hookhost serve's MCP endpoint at {server})")), "{out}");
    assert_eq!(desk.json(&state)["mcpServers"]["hookhost"], serde_json::json!({"type": "http", "url": url, "headers": {"Authorization": "Bearer ${HOOKHOST_TOKEN}"}}));
    let mut hooks = mcp_hooks(&desk.json(&desk.home.join(".claude/settings.json")));
    hooks.sort();
    assert_eq!(hooks.len(), 5);
    assert!(hooks.iter().all(|(e, f)| (f == "block") == matches!(e.as_str(), "PreToolUse" | "PermissionRequest" | "UserPromptSubmit")), "{hooks:?}");

    // doctor sends what Claude Code would: the token from this environment's $HOOKHOST_TOKEN.
    let doctor = |env: &[(&str, &str)]| {
        let out = desk.hookhost_with(&["doctor", "--runtime", "claude-code"], env);
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (code, out) = doctor(&[("HOOKHOST_TOKEN", "t0ken")]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains(&format!("ok   claude-code (user) MCP server listed: `hookhost` (hookhost serve at {url})")), "{out}");
    assert!(out.contains(&format!("ok   claude-code (user) live probe: hookhost serve at {url} denies `rm -rf /` through the hook's MCP tool call")), "{out}");
    // Not exported here: Claude Code started from here could not send it. A wrong one: refused.
    let (code, out) = doctor(&[]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("sends ${HOOKHOST_TOKEN} in its Authorization header, which is not set in this environment") && out.contains(&format!("export HOOKHOST_TOKEN=\"$(cat {})\"", token.display())), "{out}");
    let (code, out) = doctor(&[("HOOKHOST_TOKEN", "wrong")]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("answered HTTP 401"), "{out}");
    // The stdio wiring takes the entry over (it is hookhost's), and back.
    desk.ok(&["install", "--runtime", "claude-code", "--wiring", "mcp"]);
    assert_eq!(desk.json(&state)["mcpServers"]["hookhost"]["type"], "stdio");
    desk.ok(&["install", "--runtime", "claude-code", "--wiring", "mcp-http", "--server", &server]);
    assert_eq!(desk.json(&state)["mcpServers"]["hookhost"]["url"], url.as_str());

    // The daemon gone: doctor fails, saying what that does to Claude Code, and the fix.
    drop(daemon);
    let out = desk.hookhost_with(&["doctor", "--runtime", "claude-code"], &[("HOOKHOST_TOKEN", "t0ken")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(&format!("hookhost serve at {url} cannot be reached")) && stdout.contains("blocks every tool call") && stdout.contains("fix: start `hookhost serve`"), "{stdout}");
    desk.ok(&["uninstall"]);
    assert_eq!(std::fs::read_to_string(&state).unwrap(), "{\"numStartups\": 1}\n", "uninstall gives the file back");
}

#[test]
fn the_mcp_wiring_is_refused_where_it_cannot_work() {
    let desk = Desk::new();
    let out = desk.hookhost(&["install", "--runtime", "codex", "--wiring", "mcp"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--wiring mcp: Codex hooks are commands only"), "{}", String::from_utf8_lossy(&out.stderr));
    let out = desk.hookhost(&["install", "--runtime", "claude-code", "--wiring", "mcp", "--scope", "managed", "--root", desk.home.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--wiring mcp --scope managed: Claude Code's managed MCP file (managed-mcp.json) takes exclusive control"), "{}", String::from_utf8_lossy(&out.stderr));
    // Someone else's server named hookhost is not overwritten.
    let state = desk.home.join(".claude.json");
    desk.write(&state, "{\"mcpServers\": {\"hookhost\": {\"command\": \"/opt/other/server\"}}}\n");
    let out = desk.hookhost(&["install", "--runtime", "claude-code", "--wiring", "mcp"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already lists an MCP server named \"hookhost\" that is not `hookhost mcp`"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&state).unwrap(), "{\"mcpServers\": {\"hookhost\": {\"command\": \"/opt/other/server\"}}}\n", "nothing was written");
    assert!(!desk.home.join(".claude/settings.json").exists(), "nothing was written");
}

#[test]
fn opencode_gets_hookhosts_plugin_which_doctor_probes_and_uninstall_removes() {
    let desk = Desk::new();
    let plugin = desk.proj.join(".opencode/plugin/hookhost.js");
    let out = desk.ok(&["install", "--runtime", "opencode", "--scope", "project", "--fail-closed"]);
    assert!(out.contains("opencode: wired 3 events in") && out.contains(".opencode/plugin/hookhost.js"), "{out}");
    let text = std::fs::read_to_string(&plugin).unwrap();
    assert!(text.starts_with("// hookhost plugin for OpenCode"), "{text}");
    assert!(text.contains(&format!("const COMMAND = /*COMMAND*/[\"{}\",\"run\",\"--output\",\"opencode\",\"--fail-closed\"];", hookhost_bin())), "{text}");
    assert!(text.contains("const FAIL = /*FAIL*/\"always\";"), "{text}");
    assert!(text.contains("\"tool.execute.before\"") && text.contains("\"tool.execute.after\"") && text.contains("\"chat.message\""));
    assert!(desk.ok(&["install", "--runtime", "opencode", "--scope", "project", "--fail-closed"]).contains("nothing changed"));

    let out = desk.ok(&["doctor", "--runtime", "opencode"]);
    assert!(out.contains("ok   opencode (project) wired: hookhost's plugin in"), "{out}");
    assert!(out.contains(&format!("ok   opencode (project) live probe: `{} run --output opencode --fail-closed` denies `rm -rf /`", hookhost_bin())), "{out}");

    // The plugin gone: doctor says OpenCode runs without hookhost.
    std::fs::remove_file(&plugin).unwrap();
    std::fs::create_dir_all(desk.home.join(".config/opencode")).unwrap();
    let out = desk.hookhost(&["doctor", "--runtime", "opencode"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL opencode wired: OpenCode is on this machine but hookhost is wired at no scope") && stdout.contains("fix: hookhost install --runtime opencode"), "{stdout}");

    // A plugin of someone else's at that path is never overwritten.
    desk.write(&plugin, "export const Mine = async () => ({})\n");
    let out = desk.hookhost(&["install", "--runtime", "opencode", "--scope", "project"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exists and is not hookhost's plugin"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&plugin).unwrap(), "export const Mine = async () => ({})\n");
    std::fs::remove_file(&plugin).unwrap();

    // Installed, then uninstalled: the file and the directories install made are gone.
    desk.ok(&["install", "--runtime", "opencode", "--scope", "project"]);
    assert!(desk.ok(&["uninstall"]).contains("removed"));
    assert!(!plugin.exists() && !desk.proj.join(".opencode").exists());

    for (args, said) in [
        (&["install", "--runtime", "opencode", "--wiring", "http"][..], "--wiring http: OpenCode has no http hooks"),
        (&["install", "--runtime", "opencode", "--wiring", "mcp"][..], "--wiring mcp: OpenCode's plugin hooks call no MCP tools"),
        (&["install", "--runtime", "opencode", "--scope", "managed", "--root", "/nonexistent-root"][..], "OpenCode has no managed settings"),
    ] {
        let out = desk.hookhost(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(said), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn an_unreadable_claude_json_stops_only_the_mcp_wiring() {
    let desk = Desk::new();
    let state = desk.home.join(".claude.json");
    desk.write(&state, "{ not json\n");
    // Command hooks need nothing of it: the install goes on and leaves it as it is.
    assert!(desk.ok(&["install", "--runtime", "claude-code"]).contains("wired 5 events"));
    assert_eq!(std::fs::read_to_string(&state).unwrap(), "{ not json\n");
    // The mcp wiring must list its server there: refused, naming the file.
    let out = desk.hookhost(&["install", "--runtime", "claude-code", "--wiring", "mcp"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(".claude.json"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&state).unwrap(), "{ not json\n");
}

/// docker-agent: hookhost's own drop-in in `hooks.d/` of its config directory (moved by
/// `DOCKER_AGENT_CONFIG_DIR`), in its YAML hooks shape; doctor probes it and fails when
/// docker-agent would skip it; no project scope; uninstall removes it.
#[test]
fn docker_agent_gets_a_drop_in_which_doctor_probes_and_uninstall_removes() {
    let desk = Desk::new();
    let drop_in = desk.home.join(".config/cagent/hooks.d/hookhost.yaml");
    let out = desk.ok(&["install", "--runtime", "docker-agent"]);
    assert!(out.contains("docker-agent: wired 4 events in") && out.contains(".config/cagent/hooks.d/hookhost.yaml"), "{out}");
    let text = std::fs::read_to_string(&drop_in).unwrap();
    assert!(text.starts_with("# hookhost's hooks for docker-agent"), "{text}");
    let hooks: serde_json::Value = serde_norway::from_str(&text).unwrap();
    let command = format!("{} run --output docker-agent", hookhost_bin());
    assert_eq!(hooks["pre_tool_use"], serde_json::json!([{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]), "{text}");
    assert_eq!(hooks["user_prompt_submit"], serde_json::json!([{"type": "command", "command": command}]), "{text}");
    assert!(desk.ok(&["install", "--runtime", "docker-agent"]).contains("nothing changed"));

    let out = desk.ok(&["doctor", "--runtime", "docker-agent"]);
    assert!(out.contains("ok   docker-agent (user) wired: 4 events in"), "{out}");
    assert!(out.contains(&format!("ok   docker-agent (user) live probe: `{command}` denies `rm -rf /`")), "{out}");

    // A drop-in docker-agent cannot parse is skipped whole (a warning in its log): doctor fails.
    let good = text.clone();
    desk.write(&drop_in, &format!("{good}  - broken: [\n"));
    let out = desk.hookhost(&["doctor", "--runtime", "docker-agent", "--no-probe"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL docker-agent (user) hooks file readable:") && stdout.contains("it is not valid YAML") && stdout.contains("so docker-agent skips it and runs no hook of hookhost's"), "{stdout}");
    assert!(stdout.contains("fix: hookhost install --runtime docker-agent"), "{stdout}");
    // Install writes it whole again: it is hookhost's.
    desk.ok(&["install", "--runtime", "docker-agent"]);
    assert_eq!(std::fs::read_to_string(&drop_in).unwrap(), good);

    // Someone else's file at that path is never overwritten.
    desk.write(&drop_in, "pre_tool_use: []\n");
    let out = desk.hookhost(&["install", "--runtime", "docker-agent"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exists and is not hookhost's hooks drop-in"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&drop_in).unwrap(), "pre_tool_use: []\n");
    std::fs::remove_file(&drop_in).unwrap();

    // Installed, then uninstalled: the file and the directory install made are gone.
    desk.ok(&["install", "--runtime", "docker-agent", "--wiring", "send"]);
    assert!(std::fs::read_to_string(&drop_in).unwrap().contains("hookhost-send --output docker-agent"));
    assert!(desk.ok(&["uninstall"]).contains("removed"));
    assert!(!drop_in.exists() && !desk.home.join(".config/cagent/hooks.d").exists());

    // Its config directory moved: the drop-in goes where docker-agent reads it.
    let moved = desk.home.join("elsewhere");
    std::fs::create_dir_all(&moved).unwrap();
    let moved_env = [("DOCKER_AGENT_CONFIG_DIR", moved.to_str().unwrap())];
    let out = desk.hookhost_with(&["install", "--runtime", "docker-agent"], &moved_env);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(moved.join("hooks.d/hookhost.yaml").is_file());

    for (args, said) in [
        (&["install", "--runtime", "docker-agent", "--scope", "project"][..], "docker-agent has no project hooks file"),
        (&["install", "--runtime", "docker-agent", "--wiring", "http"][..], "--wiring http: docker-agent's hooks are commands"),
        (&["install", "--runtime", "docker-agent", "--scope", "managed", "--root", "/nonexistent-root"][..], "docker-agent has no managed settings"),
    ] {
        let out = desk.hookhost(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(said), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// Antigravity CLI: hookhost's entry under the `hooks` key of `hooks.json` (agy 1.0's wrapper,
/// agy 1.1's hook named `hooks`), beside the user's own named hooks; doctor probes it with agy's
/// payload and fails when that named hook says `enabled: false`; uninstall gives the bytes back.
#[test]
fn antigravity_is_wired_beside_other_named_hooks_probed_and_taken_back() {
    let desk = Desk::new();
    let file = desk.proj.join(".agents/hooks.json");
    let mine = "{\n  \"lint\": {\n    \"Stop\": [{ \"command\": \"make lint\" }]\n  }\n}\n";
    desk.write(&file, mine);
    let out = desk.ok(&["install", "--runtime", "antigravity", "--scope", "project"]);
    assert!(out.contains("antigravity: wired 1 events in") && out.contains(".agents/hooks.json"), "{out}");
    let doc = desk.json(&file);
    assert_eq!(doc["lint"], serde_json::json!({"Stop": [{"command": "make lint"}]}), "the user's named hook stays");
    let command = format!("{} run --output antigravity --event-name PreToolUse", hookhost_bin());
    assert_eq!(doc["hooks"], serde_json::json!({"PreToolUse": [{"matcher": "", "hooks": [{"type": "command", "command": command}]}]}));
    assert!(desk.ok(&["install", "--runtime", "antigravity", "--scope", "project"]).contains("nothing changed"));

    let out = desk.ok(&["doctor", "--runtime", "antigravity"]);
    assert!(out.contains("ok   antigravity (project) wired: 1 events in"), "{out}");
    assert!(out.contains(&format!("ok   antigravity (project) live probe: `{command}` denies `rm -rf /`")), "{out}");

    // The named hook holding hookhost's entry switched off: doctor fails, naming it.
    let mut off = desk.json(&file);
    off["hooks"]["enabled"] = serde_json::json!(false);
    desk.write(&file, &serde_json::to_string_pretty(&off).unwrap());
    let out = desk.hookhost(&["doctor", "--runtime", "antigravity", "--no-probe"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("says \"hooks\": {\"enabled\": false}"), "{stdout}");
    // A file agy cannot load (it drops it whole): doctor says so.
    desk.write(&file, "{\"hooks\": {},}\n");
    let out = desk.hookhost(&["doctor", "--runtime", "antigravity", "--no-probe"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("is not readable JSON, so Antigravity CLI reads no hooks from it"), "{}", String::from_utf8_lossy(&out.stdout));

    // Back to what install wrote, then uninstall: the user's file as it was, byte for byte.
    desk.write(&file, mine);
    desk.ok(&["install", "--runtime", "antigravity", "--scope", "project"]);
    desk.ok(&["uninstall", "--runtime", "antigravity"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), mine);

    for (args, said) in [
        (&["install", "--runtime", "antigravity", "--wiring", "http"][..], "--wiring http: Antigravity CLI hooks are commands"),
        (&["install", "--runtime", "antigravity", "--scope", "managed", "--root", "/nonexistent-root"][..], "Antigravity CLI has no managed hooks file known"),
    ] {
        let out = desk.hookhost(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains(said), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

/// Starchild: hookhost's entries appended to the `hooks:` list of a workspace's
/// `config/shell_hooks.yaml`, the user's entries and comments kept; install names the approval
/// Starchild needs; doctor probes the entry and fails while the master switch is off; uninstall
/// gives the bytes back. (Its own workspace, `/data/workspace`, is never wired unless named.)
#[test]
fn starchild_entries_join_the_workspaces_list_and_doctor_reads_its_switch() {
    let desk = Desk::new();
    let ws = desk.proj.clone();
    let file = ws.join("config/shell_hooks.yaml");
    let mine = "# guards\nhooks:\n  - event: pre_tool_call\n    matcher: \"rm -rf|mkfs\"   # perf gate\n    command: /data/workspace/hooks/guard.py\n    timeout: 10\n";
    desk.write(&file, mine);
    let out = desk.ok(&["install", "--runtime", "starchild", "--scope", "project"]);
    assert!(out.contains("starchild: wired 2 events in") && out.contains("config/shell_hooks.yaml"), "{out}");
    let command = format!("{} run --output starchild", hookhost_bin());
    assert!(out.contains("trust: Starchild runs these entries") && out.contains(&format!("hooks/approve -H 'Content-Type: application/json' -d '{{\"command\":\"{command}\"}}'")), "{out}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with(mine), "the user's part is kept as it was:\n{text}");
    let read: serde_json::Value = serde_norway::from_str(&text).unwrap();
    assert_eq!(read["hooks"][1], serde_json::json!({"event": "pre_tool_call", "command": command}));
    assert_eq!(read["hooks"][2], serde_json::json!({"event": "on_user_message", "command": command}));
    assert!(desk.ok(&["install", "--runtime", "starchild", "--scope", "project"]).contains("nothing changed"));

    // The master switch off (no config/agent.yaml saying so): doctor fails, naming the fix.
    let out = desk.hookhost(&["doctor", "--runtime", "starchild"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("ok   starchild (project) wired: 2 events in"), "{stdout}");
    assert!(stdout.contains(&format!("ok   starchild (project) live probe: `{command}` denies `rm -rf /`")), "{stdout}");
    assert!(stdout.contains("FAIL starchild (project) switched on: Starchild's master switch is off"), "{stdout}");
    desk.write(&ws.join("config/agent.yaml"), "model: x\nshell_hooks:\n  enabled: true\n");
    let out = desk.ok(&["doctor", "--runtime", "starchild"]);
    assert!(out.contains("ok   starchild (project) switched on: shell_hooks.enabled is true"), "{out}");

    // Uninstall: the file as it was, byte for byte; after an edit of the user's, only
    // hookhost's entries go.
    desk.ok(&["uninstall", "--runtime", "starchild"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), mine);
    desk.ok(&["install", "--runtime", "starchild", "--scope", "project"]);
    let edited = std::fs::read_to_string(&file).unwrap().replace("timeout: 10", "timeout: 20");
    desk.write(&file, &edited);
    desk.ok(&["uninstall", "--runtime", "starchild"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), mine.replace("timeout: 10", "timeout: 20"));

    // A file it cannot edit stops the install before anything is written.
    desk.write(&file, "hooks: {not: a list}\n");
    let out = desk.hookhost(&["install", "--runtime", "starchild", "--scope", "project"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("config/shell_hooks.yaml: its `hooks` is not a list"), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hooks: {not: a list}\n");
}
