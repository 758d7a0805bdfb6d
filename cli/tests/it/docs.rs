//! The configs shown in the documentation parse: a README that contradicts the build fails here.

use hookhost::ConfigFile;
use std::path::Path;

fn toml_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start()) {
            (None, l) if l.starts_with("```toml") => current = Some(String::new()),
            (Some(block), l) if l.starts_with("```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            _ => {}
        }
    }
    blocks
}

#[test]
fn every_toml_config_in_the_docs_is_valid() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut checked = 0;
    for doc in ["README.md", "docs/CONFIG.md", "docs/AUTHOR_GUIDE.md", "docs/BUNDLES.md", "docs/ORG.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for block in toml_blocks(&text) {
            if block.contains("[package]") {
                continue; // a Cargo.toml, not a hookhost config
            }
            if block.contains("[target.") {
                // A .cargo/config.toml: at least valid TOML.
                toml::from_str::<toml::Value>(&block).unwrap_or_else(|e| panic!("{doc}: a cargo config block does not parse: {e}\n{block}"));
                continue;
            }
            if block.contains("[[scenario]]") {
                // A `hookhost test` scenario file: every event must be one hookhost reads.
                let file: toml::Value = toml::from_str(&block).unwrap_or_else(|e| panic!("{doc}: a scenario block does not parse: {e}\n{block}"));
                for scenario in file["scenario"].as_array().unwrap() {
                    let event = serde_json::to_value(&scenario["event"]).unwrap();
                    hookhost::HookEvent::from_value(event).unwrap_or_else(|e| panic!("{doc}: a scenario's event is not one hookhost reads: {e}\n{block}"));
                    assert!(scenario["expect"].is_table(), "{doc}: a scenario without expect\n{block}");
                }
                continue;
            }
            if let Err(e) = ConfigFile::parse(&block, Path::new(doc), root) {
                panic!("{doc}: a config block does not parse: {e}\n{block}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 2, "found only {checked} config blocks");
}

#[test]
fn the_checked_in_json_schema_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/config.schema.json");
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in.trim() == hookhost_config::schema().trim(),
        "docs/config.schema.json is stale; regenerate it with `cargo run -q -p hookhost-cli -- config schema > docs/config.schema.json`"
    );
}

/// INTEGRATIONS.md's GitHub Copilot CLI snippet is a `.github/hooks` file Copilot (and hookhost)
/// reads: version 1, each event wired to `hookhost run --output copilot` naming that event.
#[test]
fn the_copilot_snippet_is_a_hook_file_naming_each_event() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let text = std::fs::read_to_string(root.join("docs/INTEGRATIONS.md")).unwrap();
    let section = &text[text.find("## GitHub Copilot CLI").expect("a Copilot section")..];
    let start = section.find("```json\n").unwrap() + "```json\n".len();
    let snippet = &section[start..start + section[start..].find("```").unwrap()];
    let config = ConfigFile::parse(snippet, Path::new("hookhost.json"), root).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.hooks.len(), 5);
    for hook in &config.hooks {
        let command = hook.settings["command"].as_str().unwrap();
        let native = hookhost::Runtime::Copilot.event_name(&hook.event);
        assert_eq!(command, format!("hookhost run --output copilot --event-name {native}"), "{}", hook.id);
        assert_eq!(hook.settings["dialect"], "copilot");
    }
}

/// Each runtime's snippet in INTEGRATIONS.md is what `hookhost install --scope project` writes
/// into an empty project (the binary's absolute path read as `hookhost`): the reference and the
/// command cannot drift apart.
#[test]
fn each_snippet_is_what_install_writes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let text = std::fs::read_to_string(root.join("docs/INTEGRATIONS.md")).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_hookhost")).canonicalize().unwrap().display().to_string();
    for (section, runtime, file) in [
        ("## Claude Code", "claude-code", ".claude/settings.json"),
        ("## Codex", "codex", ".codex/hooks.json"),
        ("## Gemini CLI", "gemini-cli", ".gemini/settings.json"),
        ("## GitHub Copilot CLI", "copilot", ".github/hooks/hookhost.json"),
        ("## Qwen Code", "qwen-code", ".qwen/settings.json"),
        ("## Cursor", "cursor", ".cursor/hooks.json"),
        ("## Antigravity CLI", "antigravity", ".agents/hooks.json"),
    ] {
        let at = &text[text.find(&format!("{section}\n")).unwrap_or_else(|| panic!("no {section} section"))..];
        let start = at.find("```json\n").unwrap() + "```json\n".len();
        let snippet: serde_json::Value = serde_json::from_str(&at[start..start + at[start..].find("```").unwrap()]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (home, proj) = (dir.path().join("home"), dir.path().join("proj"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&proj).unwrap();
        let out = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"))
            .args(["install", "--runtime", runtime, "--scope", "project"])
            .current_dir(&proj)
            .env("HOME", &home)
            .env("XDG_STATE_HOME", dir.path().join("state"))
            .env_remove("CODEX_HOME")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let written = std::fs::read_to_string(proj.join(file)).unwrap().replace(&format!("{bin} "), "hookhost ");
        let written: serde_json::Value = serde_json::from_str(&written).unwrap();
        assert_eq!(snippet, written, "docs/INTEGRATIONS.md's {runtime} snippet is not what `hookhost install` writes");
    }
}

/// The YAML each runtime's section of INTEGRATIONS.md shows is, byte for byte, what `hookhost
/// install` writes there (the binary's absolute path read as `hookhost`): docker-agent's drop-in
/// in the home, Starchild's list in an empty workspace.
#[test]
fn the_yaml_snippets_are_what_install_writes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let text = std::fs::read_to_string(root.join("docs/INTEGRATIONS.md")).unwrap();
    let bin = Path::new(env!("CARGO_BIN_EXE_hookhost")).canonicalize().unwrap().display().to_string();
    for (section, args, file) in [
        ("## docker-agent", &["install", "--runtime", "docker-agent"][..], "home/.config/cagent/hooks.d/hookhost.yaml"),
        ("## Starchild", &["install", "--runtime", "starchild", "--scope", "project"][..], "workspace/config/shell_hooks.yaml"),
    ] {
        let at = &text[text.find(&format!("{section}\n")).unwrap_or_else(|| panic!("no {section} section"))..];
        let start = at.find("```yaml\n").unwrap() + "```yaml\n".len();
        let snippet = &at[start..start + at[start..].find("```").unwrap()];
        let dir = tempfile::tempdir().unwrap();
        let (home, workspace) = (dir.path().join("home"), dir.path().join("workspace"));
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&workspace).unwrap();
        let out = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"))
            .args(args)
            .current_dir(&workspace)
            .env("HOME", &home)
            .env("XDG_STATE_HOME", dir.path().join("state"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{section}: {}", String::from_utf8_lossy(&out.stderr));
        let written = std::fs::read_to_string(dir.path().join(file)).unwrap().replace(&format!("{bin} "), "hookhost ");
        assert_eq!(snippet, written, "docs/INTEGRATIONS.md's {section} YAML is not what `hookhost install` writes");
    }
}

/// The MCP wiring's two snippets in INTEGRATIONS.md are what `hookhost install --wiring mcp`
/// writes: the server in `~/.claude.json` (the binary read as `/usr/local/bin/hookhost`) and the
/// `PreToolUse` hook.
#[test]
fn the_mcp_snippets_are_what_install_writes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let text = std::fs::read_to_string(root.join("docs/INTEGRATIONS.md")).unwrap();
    let at = &text[text.find("## No process at all: Claude Code's MCP tool hooks").expect("the MCP section")..];
    let snippets: Vec<serde_json::Value> = at
        .split("```json\n")
        .skip(1)
        .take(2)
        .map(|s| serde_json::from_str(&s[..s.find("```").unwrap()]).unwrap_or_else(|e| panic!("{e}: {s}")))
        .collect();
    let bin = Path::new(env!("CARGO_BIN_EXE_hookhost")).canonicalize().unwrap().display().to_string();
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let out = crate::common::bin(env!("CARGO_BIN_EXE_hookhost"))
        .args(["install", "--runtime", "claude-code", "--wiring", "mcp"])
        .current_dir(dir.path())
        .env("HOME", &home)
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let servers: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(home.join(".claude.json")).unwrap().replace(&bin, "/usr/local/bin/hookhost")).unwrap();
    assert_eq!(snippets[0], servers, "docs/INTEGRATIONS.md's MCP server snippet is not what install writes");
    let settings: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(home.join(".claude/settings.json")).unwrap()).unwrap();
    assert_eq!(snippets[1]["hooks"]["PreToolUse"], settings["hooks"]["PreToolUse"], "docs/INTEGRATIONS.md's MCP hook snippet is not what install writes");
}

/// The proxy's two snippets in INTEGRATIONS.md (a client's JSON, Codex's TOML) are the same
/// command, and `hookhost mcp proxy` reads their arguments as a proxy in front of that server.
#[test]
fn the_mcp_proxy_snippets_agree_and_parse() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let text = std::fs::read_to_string(root.join("docs/INTEGRATIONS.md")).unwrap();
    let at = &text[text.find("## MCP tools in any client: `hookhost mcp proxy`").expect("the proxy section")..];
    let block = |fence: &str| {
        let start = at.find(fence).unwrap() + fence.len();
        at[start..start + at[start..].find("```").unwrap()].to_string()
    };
    let json: serde_json::Value = serde_json::from_str(&block("```json\n")).unwrap();
    let toml: toml::Table = toml::from_str(&block("```toml\n")).unwrap();
    let from_json: Vec<String> = json["mcpServers"]["fs"]["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
    let from_toml: Vec<String> = toml["mcp_servers"]["fs"]["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
    assert_eq!(from_json, from_toml);
    assert_eq!(&from_json[..4], ["mcp", "proxy", "--name", "fs"]);
    // The proxy starts what follows `--`: here a program that is not there, named in the error.
    let mut args = from_json.clone();
    let at = args.iter().position(|a| a == "--").unwrap();
    args[at + 1] = "/nonexistent/npx".into();
    let out = crate::common::bin(env!("CARGO_BIN_EXE_hookhost")).args(&args).stdin(std::process::Stdio::null()).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot start the MCP server `/nonexistent/npx -y @modelcontextprotocol/server-filesystem /home/me/work`"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The dev profile optimises everything but the workspace's own crates, which `Cargo.toml`
/// names one by one (a `package."*"` table would outrank `build-override`): a new member left
/// off that list would quietly compile at opt-level 3.
#[test]
fn every_workspace_member_builds_unoptimised_in_dev() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let manifest: toml::Value = toml::from_str(&std::fs::read_to_string(root.join("Cargo.toml")).unwrap()).unwrap();
    let dev = &manifest["profile"]["dev"];
    assert_eq!(dev["opt-level"].as_integer(), Some(3), "the dev profile's dependencies are optimised");
    assert_eq!(dev["build-override"]["opt-level"].as_integer(), Some(0), "proc macros and build scripts are not");
    let members = manifest["workspace"]["members"].as_array().unwrap();
    assert!(members.len() >= 10, "{members:?}");
    for member in members {
        let member = member.as_str().unwrap();
        let package: toml::Value = toml::from_str(&std::fs::read_to_string(root.join(member).join("Cargo.toml")).unwrap()).unwrap();
        let name = package["package"]["name"].as_str().unwrap();
        let level = dev.get("package").and_then(|p| p.get(name)).and_then(|p| p.get("opt-level")).and_then(|l| l.as_integer());
        assert_eq!(level, Some(0), "{member} ({name}) has no `{name} = {{ opt-level = 0 }}` under `[profile.dev.package]` in Cargo.toml: add one, as for the other members");
    }
}

/// `cargo test -p hookhost` reuses what `cargo test --workspace` built: every dependency of
/// the host alone has the features it has in the workspace (host/Cargo.toml names them), so a
/// contributor's first `-p hookhost` compiles the host, not a hundred dependencies again.
/// Compared with `cargo tree` (each dependency and its features, from Cargo.lock as it is).
#[test]
fn hookhost_alone_builds_with_the_workspaces_dependency_features() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let tree = |select: &[&str]| -> std::collections::BTreeSet<String> {
        let out = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["tree", "-q", "--locked", "-e", "normal,build,dev", "--prefix", "none", "-f", "{p} [{f}]"])
            .args(select)
            .current_dir(root)
            .output()
            .unwrap();
        assert!(out.status.success(), "cargo tree {select:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().lines().map(|l| l.trim_end_matches(" (*)").replace(" (proc-macro)", "")).collect()
    };
    let workspace = tree(&["--workspace"]);
    let alone = tree(&["-p", "hookhost"]);
    assert!(alone.len() > 100 && workspace.len() > alone.len(), "{} / {} lines", alone.len(), workspace.len());
    // The host itself differs (the workspace's tests turn its `testing` feature on); it is
    // rebuilt after a change anyway.
    let behind: Vec<&String> = alone.iter().filter(|l| !workspace.contains(*l) && !l.starts_with("hookhost v")).collect();
    assert!(
        behind.is_empty(),
        "`cargo test -p hookhost` would compile these with other features than the workspace build does: {behind:#?}\n\
         add each, with the features the workspace gives it (`cargo tree --workspace -f '{{p}} [{{f}}]'`), to host/Cargo.toml's feature-alignment list"
    );
}
