//! The real-world corpus (tests/config/real-world, each file's source in SOURCES): hook configs
//! taken unchanged from public repositories. Every one loads (but the two the runtime itself
//! rejects), and a dozen run in host mode — through the real binary, as a runtime would spawn
//! it — against reproductions of their scripts, deciding what each hook's author meant.
//!
//! The scripts are reproductions written for these tests from each original's documented
//! contract (its header comment or README), not copies: the settings files are the real ones.

use crate::common;

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/config/real-world")
}

/// Every file SOURCES names, with its source URL.
fn sources() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(corpus().join("SOURCES")).unwrap();
    text.lines().filter(|l| !l.trim().is_empty()).map(|l| {
        let (file, url) = l.split_once('\t').unwrap_or_else(|| panic!("SOURCES line without a tab: {l}"));
        assert!(url.starts_with("https://github.com/") && url.contains("/blob/"), "{url}");
        (file.to_string(), url.to_string())
    }).collect()
}

/// The files the runtime itself refuses, and why hookhost does too.
const REFUSED: &[(&str, &str)] = &[
    // Claude Code requires `hooks` to map events to matcher groups; this plugin ships a list.
    ("claude-code/jeremylongshore__claude-code-plugins-plus__plugins_devops_sugar_hooks_hooks.json", "hooks: must be an object keyed by event name (\"PreToolUse\": [...]), not an array"),
    // An old draft format: commands as bare strings where matcher groups belong.
    ("claude-code/swm-sink__claude-code-modular-prompts__claude_settings.json", "2 problems:\n  - hooks.preCommit[0]: must be a matcher group {\"matcher\": ..., \"hooks\": [...]}, not a string\n  - hooks.preCommit[1]: must be a matcher group {\"matcher\": ..., \"hooks\": [...]}, not a string"),
];

#[tokio::test]
async fn the_real_world_corpus_loads() {
    let listed = sources();
    let mut on_disk: Vec<String> = Vec::new();
    for dir in ["claude-code", "docker-agent"] {
        for e in std::fs::read_dir(corpus().join(dir)).unwrap() {
            on_disk.push(format!("{dir}/{}", e.unwrap().file_name().to_str().unwrap()));
        }
    }
    on_disk.sort();
    let mut names: Vec<String> = listed.iter().map(|(f, _)| f.clone()).collect();
    names.sort();
    assert_eq!(names, on_disk, "SOURCES names every corpus file, and only those");
    assert!(listed.len() >= 40, "{} files", listed.len());
    let (mut loaded, mut refused) = (0, Vec::new());
    for (file, url) in &listed {
        let path = corpus().join(file);
        let format = if file.starts_with("claude-code/") { "claude-code" } else { "docker-agent" };
        let config = match hookhost::ConfigFile::load_as(&path, hookhost::peer::Format::parse(format)) {
            Ok(c) => c,
            Err(e) => {
                refused.push((file.clone(), e.to_string().replace(&format!("{}: ", path.display()), "")));
                continue;
            }
        };
        // Loaded whole: every hook is checked by its plugin, as a runtime's host would.
        let host = hookhost::Host::from_config(config).await.unwrap_or_else(|e| panic!("{file} ({url}): {e}"));
        assert!(host.hook_ids().count() + host.not_run().len() > 0, "{file}: no hooks");
        loaded += 1;
    }
    let want: Vec<(String, String)> = REFUSED.iter().map(|(f, e)| (f.to_string(), e.to_string())).collect();
    assert_eq!(refused, want);
    let share = loaded as f64 / listed.len() as f64;
    println!("real-world corpus: {loaded} of {} files load ({:.1}%)", listed.len(), share * 100.0);
    assert!(share >= 0.95, "{loaded} of {} load", listed.len());
}

/// A project on disk: the corpus file at its place, the reproduced scripts, a home directory.
struct Project {
    root: tempfile::TempDir,
    home: tempfile::TempDir,
    config: PathBuf,
}

impl Project {
    /// `place` is where the corpus file goes in the project (`.claude/settings.json`,
    /// `plugin/hooks/hooks.json`); paths of `scripts` starting with `~/` go to the home.
    fn new(file: &str, place: &str, scripts: &[(&str, &str)]) -> Project {
        let root = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let base = |p: &str| match p.strip_prefix("~/") {
            Some(rest) => home.path().join(rest),
            None => root.path().join(p),
        };
        let config = base(place);
        std::fs::create_dir_all(config.parent().unwrap()).unwrap();
        std::fs::copy(corpus().join(file), &config).unwrap();
        for (path, text) in scripts {
            let path = base(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Project { root, home, config }
    }

    fn path(&self, p: &str) -> PathBuf {
        self.root.path().join(p)
    }

    /// Run one event the way a runtime's command hook would: `hookhost run` in the project,
    /// with process:exec granted. The event gets the runtime's common fields.
    fn run(&self, mut event: Value) -> Value {
        let obj = event.as_object_mut().unwrap();
        obj.entry("session_id").or_insert_with(|| json!(hookhost_tests::fresh_session("real-world")));
        obj.entry("cwd").or_insert_with(|| json!(self.root.path().display().to_string()));
        let cache = hookhost::types::paths::cache_dir(None).expect("a cache directory");
        let out = common::hookhost_with(
            |c| {
                c.args(["run", "--grant", "process:exec", "--config"])
                    .arg(&self.config)
                    .current_dir(self.root.path())
                    .env("HOME", self.home.path())
                    // The compiled plugins of the user's cache: a new home must not mean a recompile.
                    .env("HOOKHOST_CACHE_DIR", cache);
            },
            event.to_string().as_bytes(),
        );
        common::json_of(&out)
    }
}

fn bash(command: &str) -> Value {
    json!({"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}})
}

fn context(outcome: &Value) -> Vec<String> {
    outcome["effects"].as_array().unwrap().iter().filter(|e| e["type"] == "add_context").map(|e| e["text"].as_str().unwrap().to_string()).collect()
}

fn decision(outcome: &Value) -> &str {
    outcome["decision"].as_str().unwrap()
}

/// The dozen: each case is one corpus file, the reproductions its hooks run, and the events
/// with the decisions their authors meant.
#[test]
fn a_dozen_real_world_projects_decide_what_their_authors_meant_in_host_mode() {
    for tool in ["jq", "python3", "node", "git"] {
        if !hookhost_tests::have(tool) {
            return;
        }
    }
    let mut ran = Vec::new();

    // 1. docker/docker-agent examples/hooks.yaml (inline scripts): deny destructive shell
    //    commands, add -h to a plain ls, let the rest through.
    let p = Project::new("docker-agent/docker__docker-agent__examples_hooks.yaml", "agent.yaml", &[]);
    let shell = |cmd: &str| json!({"hook_event_name": "pre_tool_use", "tool_name": "shell", "tool_input": {"cmd": cmd}});
    let out = p.run(shell("rm -rf /tmp/test"));
    assert_eq!(decision(&out), "block");
    assert!(out["reason"].as_str().unwrap().contains("HOOK BLOCKED: Dangerous command pattern detected"), "{out}");
    let out = p.run(shell("ls"));
    assert_eq!(out["patch"]["arguments"], json!({"cmd": "ls -h"}), "{out}");
    assert_eq!(decision(&p.run(shell("echo hello"))), "pass");
    ran.push("docker/docker-agent");

    // 2. PostHog/posthog: set up the dev environment on startup and resume (not on clear);
    //    format edited files after the fact, never blocking.
    let p = Project::new("claude-code/PostHog__posthog__claude_settings.json", ".claude/settings.json", &[(
        "bin/setup-claude",
        "#!/usr/bin/env bash\n# Reproduction: prepares the environment and reports it.\necho \"dev environment ready in $(basename \"$PWD\")\"\n",
    )]);
    let name = p.root.path().file_name().unwrap().to_str().unwrap().to_string();
    let out = p.run(json!({"hook_event_name": "SessionStart", "source": "startup"}));
    assert_eq!(context(&out), [format!("dev environment ready in {name}")]);
    assert!(p.run(json!({"hook_event_name": "SessionStart", "source": "clear"}))["hooks"].as_array().unwrap().is_empty());
    let out = p.run(json!({"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": {"file_path": "x.py"}, "tool_response": {}}));
    assert_eq!((decision(&out), out["hooks"].as_array().unwrap().len()), ("pass", 2), "{out}");
    ran.push("PostHog/posthog");

    // 3. calcom/cal.com: `git push` and `gh pr create` need a human's approval token in the
    //    active harness run.
    let p = Project::new("claude-code/calcom__cal.com__claude_settings.json", ".claude/settings.json", &[(
        ".claude/hooks/approval-gate.sh",
        r#"#!/usr/bin/env bash
# Reproduction: git push / gh pr create need .harness/runs/<latest>/approvals/pr.
cmd=$(jq -r '.tool_input.command // ""')
echo "$cmd" | grep -qE '(^|\s)(git push|gh pr create)(\s|$)' || exit 0
run=$(ls -1td .harness/runs/*/ 2>/dev/null | head -1)
[ -n "$run" ] || { echo "BLOCKED: no harness run; start one first" >&2; exit 2; }
[ -f "${run}approvals/pr" ] || { echo "BLOCKED: human approval required before: $cmd" >&2; exit 2; }
"#,
    )]);
    let out = p.run(bash("git push origin feature"));
    assert_eq!((decision(&out), out["reason"].as_str()), ("block", Some("BLOCKED: no harness run; start one first")));
    std::fs::create_dir_all(p.path(".harness/runs/4242/approvals")).unwrap();
    assert_eq!(p.run(bash("gh pr create --fill"))["reason"], "BLOCKED: human approval required before: gh pr create --fill");
    std::fs::write(p.path(".harness/runs/4242/approvals/pr"), "").unwrap();
    assert_eq!(decision(&p.run(bash("git push origin feature"))), "pass");
    assert_eq!(decision(&p.run(bash("ls"))), "pass");
    ran.push("calcom/cal.com");

    // 4. StanislavBG/claude-code-session-manager: PRDs under the scheduler directory are
    //    written through the scheduler API only; fix plans and other files are not guarded.
    let p = Project::new("claude-code/StanislavBG__claude-code-session-manager__claude_settings.json", ".claude/settings.json", &[(
        "scripts/hooks/guard-prd-writes.cjs",
        r#"#!/usr/bin/env node
// Reproduction: deny raw writes under session-manager-operations/scheduler/ (fix plans exempt).
const path = require('node:path');
let raw = '';
process.stdin.on('data', (c) => { raw += c; }).on('end', () => {
  const e = JSON.parse(raw);
  const file = (e.tool_input || {}).file_path || (e.tool_input || {}).notebook_path || '';
  const abs = path.resolve(e.cwd || process.cwd(), file);
  if (!['Write', 'Edit', 'NotebookEdit'].includes(e.tool_name) || !abs.includes('/session-manager-operations/scheduler/') || /^\d+-fix-.*\.md$/.test(path.basename(abs))) {
    process.stdout.write(JSON.stringify({ continue: true }));
    return;
  }
  const reason = `Direct ${e.tool_name} to a scheduler path is blocked; use the scheduler API.`;
  process.stdout.write(JSON.stringify({ continue: true, decision: 'block', reason, hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } }));
});
"#,
    )]);
    let write = |file: &str| json!({"hook_event_name": "PreToolUse", "tool_name": "Write", "tool_input": {"file_path": file, "content": "x"}});
    let out = p.run(write("session-manager-operations/scheduler/prds/07-new.md"));
    assert_eq!((decision(&out), out["reason"].as_str()), ("block", Some("Direct Write to a scheduler path is blocked; use the scheduler API.")));
    assert_eq!(decision(&p.run(write("session-manager-operations/scheduler/prds/08-fix-retry.md"))), "pass");
    assert_eq!(decision(&p.run(write("docs/notes.md"))), "pass");
    ran.push("StanislavBG/claude-code-session-manager");

    // 5. sungjunlee/claude-config (a plugin's hooks.json, $CLAUDE_PLUGIN_ROOT): every prompt
    //    gets the current UTC time; Bash calls are logged; permission requests notify.
    let p = Project::new("claude-code/sungjunlee__claude-config__hooks_hooks.json", "plugin/hooks/hooks.json", &[
        ("plugin/scripts/inject_datetime.sh", "#!/usr/bin/env bash\n# Reproduction: the current time, UTC, ISO 8601.\nTZ=UTC date +'%Y-%m-%dT%H:%M:%SZ'\n"),
        ("plugin/scripts/audit_logger.py", "#!/usr/bin/env python3\n# Reproduction: one JSON line per Bash call.\nimport json, os, sys\ne = json.load(sys.stdin)\nwith open(os.path.expanduser('~/.claude/audit.jsonl'), 'a') as f:\n    f.write(json.dumps({'tool': e['tool_name'], 'command': e['tool_input'].get('command')}) + '\\n')\n"),
        ("plugin/scripts/notify_permission.sh", "#!/usr/bin/env bash\n# Reproduction: a desktop notification where there is one; never blocks.\ncommand -v notify-send >/dev/null && notify-send 'Claude needs permission' || true\n"),
        ("~/.claude/.keep", ""),
    ]);
    let stamp = context(&p.run(json!({"hook_event_name": "UserPromptSubmit", "prompt": "what time is it"})));
    assert!(stamp.len() == 1 && stamp[0].len() == 20 && stamp[0].ends_with('Z') && stamp[0].as_bytes()[10] == b'T', "{stamp:?}");
    assert_eq!(decision(&p.run(bash("cargo test"))), "pass");
    assert_eq!(std::fs::read_to_string(p.home.path().join(".claude/audit.jsonl")).unwrap(), "{\"tool\": \"Bash\", \"command\": \"cargo test\"}\n");
    assert_eq!(decision(&p.run(json!({"hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": {"command": "rm x"}}))), "pass");
    ran.push("sungjunlee/claude-config");

    // 6. L3DigitalNet/Claude-Code-Plugins: the agent handoff note is loaded at session start
    //    (exec form: `args`, and ${CLAUDE_PROJECT_DIR} in the program path).
    let p = Project::new("claude-code/L3DigitalNet__Claude-Code-Plugins__claude_settings.json", ".claude/settings.json", &[
        (".agents/hooks/agent-handoff/session_start.py", "#!/usr/bin/env python3\n# Reproduction: print the handoff note, if any.\nimport os\np = os.path.join(os.environ['CLAUDE_PROJECT_DIR'], '.agents', 'HANDOFF.md')\nif os.path.exists(p):\n    print(open(p).read().strip())\n"),
        (".agents/HANDOFF.md", "Next: finish the MQTT discovery refactor.\n"),
    ]);
    assert_eq!(context(&p.run(json!({"hook_event_name": "SessionStart", "source": "compact"}))), ["Next: finish the MQTT discovery refactor."]);
    ran.push("L3DigitalNet/Claude-Code-Plugins");

    // 7. ocrosby/claude-config (a user's ~/.claude/settings.json): prompts carrying credentials
    //    are blocked; the stop hook marks the turn's end; the session start names the branch.
    let p = Project::new("claude-code/ocrosby__claude-config__settings.json", "~/.claude/settings.json", &[
        ("~/.claude/hooks/secret-scan.sh", "#!/usr/bin/env bash\n# Reproduction: block prompts that carry credentials.\nprompt=$(jq -r '.prompt // \"\"')\nif echo \"$prompt\" | grep -qE 'AKIA[A-Z0-9]{16}|gh[poas]_[A-Za-z0-9]{36,}|-----BEGIN'; then\n  echo '[hook: secret-scan] the prompt looks like it contains a credential; remove it' >&2\n  exit 2\nfi\n"),
        ("~/.claude/hooks/session-stop.sh", "#!/usr/bin/env bash\n# Reproduction: append a turn-end marker to the debug log (not on a stop-hook loop).\n[ \"$(jq -r '.stop_hook_active')\" = true ] && exit 0\necho turn-end >> ~/.claude/debug.log\n"),
    ]);
    let out = p.run(json!({"hook_event_name": "UserPromptSubmit", "prompt": "use AKIAABCDEFGHIJKLMNOP for s3"}));
    assert_eq!((decision(&out), out["reason"].as_str()), ("block", Some("[hook: secret-scan] the prompt looks like it contains a credential; remove it")));
    assert_eq!(decision(&p.run(json!({"hook_event_name": "UserPromptSubmit", "prompt": "hello"}))), "pass");
    assert_eq!(decision(&p.run(json!({"hook_event_name": "Stop", "stop_hook_active": false}))), "pass");
    assert_eq!(std::fs::read_to_string(p.home.path().join(".claude/debug.log")).unwrap(), "turn-end\n");
    Command::new("git").args(["init", "-q", "-b", "trunk"]).current_dir(p.root.path()).status().unwrap();
    let start = context(&p.run(json!({"hook_event_name": "SessionStart", "source": "startup"})));
    assert!(start.len() == 1 && start[0].contains("Branch: trunk."), "{start:?}");
    // Its commit guards use `Bash(git commit:*)` as a matcher, which Claude Code reads as a
    // regex on the tool name that never matches: they never run there, nor here.
    assert!(p.run(bash("git commit -m x"))["hooks"].as_array().unwrap().is_empty());
    ran.push("ocrosby/claude-config");

    // 8. chriscantu/claude-config (a plugin): its inline hooks act only inside a checkout of
    //    its harness; elsewhere every one stands aside.
    let p = Project::new("claude-code/chriscantu__claude-config__hooks_hooks.json", "plugin/hooks/hooks.json", &[]);
    for event in [json!({"hook_event_name": "UserPromptSubmit", "prompt": "hi"}), bash("ls"), json!({"hook_event_name": "Stop", "stop_hook_active": false})] {
        let out = p.run(event.clone());
        assert_eq!(decision(&out), "pass", "{event} → {out}");
        assert!(out["hooks"].as_array().unwrap().iter().all(|h| h["error"].is_null()), "{out}");
    }
    ran.push("chriscantu/claude-config");

    // 9. IronBraz/kyros: graph hints for search commands and a graph refresh at stop; on this
    //    machine its Windows interpreter path is absent, which its commands tolerate.
    let p = Project::new("claude-code/IronBraz__kyros__claude_settings.json", ".claude/settings.json", &[]);
    assert_eq!(decision(&p.run(bash("grep -r TODO ."))), "pass");
    let out = p.run(json!({"hook_event_name": "Stop", "stop_hook_active": false}));
    assert!(out["hooks"].as_array().unwrap().iter().all(|h| h["error"].is_null() && h["decision"] == "pass"), "{out}");
    ran.push("IronBraz/kyros");

    // 10. dex-it/claude-code-marketplace (discord notifier plugin): notifies when Claude stops,
    //     cancels pending notices when the user is active; never blocks.
    let p = Project::new("claude-code/dex-it__claude-code-marketplace__plugins_utilities_dex-discord-notifier_hooks_hooks.json", "plugin/hooks/hooks.json", &[
        ("plugin/hooks/scripts/discord-notify.sh", "#!/bin/bash\n# Reproduction: post to $DISCORD_WEBHOOK_URL when set; otherwise nothing. Never blocks.\ncat >/dev/null\n[ -n \"$DISCORD_WEBHOOK_URL\" ] && curl -s -m 5 -d '{\"content\":\"Claude stopped\"}' \"$DISCORD_WEBHOOK_URL\" >/dev/null\nexit 0\n"),
        ("plugin/hooks/scripts/discord-cancel.sh", "#!/bin/bash\n# Reproduction: drop a queued notice.\ncat >/dev/null\nrm -f \"${TMPDIR:-/tmp}/dex-discord-pending-$PPID\"\nexit 0\n"),
    ]);
    assert_eq!(decision(&p.run(json!({"hook_event_name": "Stop", "stop_hook_active": false}))), "pass");
    assert_eq!(decision(&p.run(json!({"hook_event_name": "UserPromptSubmit", "prompt": "back"}))), "pass");
    ran.push("dex-it/claude-code-marketplace");

    // 11. IronbellyOrg/IronClaude (a plugin): `./scripts/session-init.sh`, relative to the
    //     session's working directory, greets each session.
    let p = Project::new("claude-code/IronbellyOrg__IronClaude__src_superclaude_hooks_hooks.json", "plugin/hooks/hooks.json", &[(
        "scripts/session-init.sh",
        "#!/usr/bin/env bash\n# Reproduction: announce the framework at session start.\necho 'SuperClaude framework loaded'\n",
    )]);
    assert_eq!(context(&p.run(json!({"hook_event_name": "SessionStart", "source": "startup"}))), ["SuperClaude framework loaded"]);
    ran.push("IronbellyOrg/IronClaude");

    // 12. timo-jakob/timos-claude-code-plugins: after a successful `gh pr merge`, clean up.
    let p = Project::new("claude-code/timo-jakob__timos-claude-code-plugins__development_hooks_hooks.json", "plugin/hooks/hooks.json", &[
        ("plugin/skills/cleanup/scripts/cleanup-hook.sh", "#!/usr/bin/env bash\n# Reproduction: run cleanup.sh in the session's directory after a merged PR.\ninput=$(cat)\ncmd=$(echo \"$input\" | jq -r '.tool_input.command // \"\"')\ncode=$(echo \"$input\" | jq -r '.tool_response.exit_code // 1')\nif [[ \"$cmd\" =~ gh[[:space:]]+pr[[:space:]]+merge ]] && [[ \"$code\" == 0 ]]; then\n  cd \"$(echo \"$input\" | jq -r .cwd)\" && exec \"$(dirname \"$0\")/cleanup.sh\"\nfi\n"),
        ("plugin/skills/cleanup/scripts/cleanup.sh", "#!/usr/bin/env bash\n# Reproduction: leave a mark where it cleaned.\ntouch cleaned\n"),
    ]);
    let merged = |cmd: &str, code: i64| json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": cmd}, "tool_response": {"exit_code": code}});
    assert_eq!(decision(&p.run(merged("gh pr merge 12 --squash", 1))), "pass");
    assert!(!p.path("cleaned").exists(), "a failed merge cleans nothing");
    assert_eq!(decision(&p.run(merged("gh pr merge 12 --squash", 0))), "pass");
    assert!(p.path("cleaned").exists(), "a merged PR is cleaned up after");
    ran.push("timo-jakob/timos-claude-code-plugins");

    assert_eq!(ran.len(), 12);
    println!("real-world projects run in host mode: {}", ran.join(", "));
}
