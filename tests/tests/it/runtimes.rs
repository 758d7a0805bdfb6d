//! The runtime checklist: every part a runtime must have, per runtime, checked by what it does
//! (docs/ARCHITECTURE.md, "A new runtime", lists the same parts in the same order). A runtime
//! added to `Runtime::ALL` without one of them fails here, naming the part and where it goes.
//!
//! - its **profile** (`crates/types/src/runtime/<runtime>.rs`): a public reference, events;
//! - its **event reader**: what its hooks are sent reads back as the same event
//!   (`HookEvent::read`, by the profile's `payload`);
//! - its **answer writer** where its profile has an `answer` (`host/src/protocol/<runtime>.rs`):
//!   a block before a tool is written in its own block form, never hookhost's JSON;
//! - its **config reader** where its profile names its own config syntax
//!   (`crates/config/src/peer/<runtime>.rs`) and a sample under `tests/config/peers/`;
//! - its **protected paths**: held by the guard's own test over every profile
//!   (`plugins/guard-destructive/src/protect/tests.rs`,
//!   `every_runtimes_hook_files_and_program_are_covered`);
//! - its **shell dialect** (the bash adapter delivers to and reads its hooks: below, through
//!   `bash_adapter::dialect::deliver` and `verdict::interpret`);
//! - its **docs section** in docs/INTEGRATIONS.md;
//! - its **answer schema** under `tests/protocols/` where the runtime publishes its output's
//!   shape;
//! - its **install wiring** where its profile has `install`: each wired event is one of its
//!   events, its project file one of the files it reads hooks from.
//!   Its install steps (trust, switches, doctor's probe: `cli/src/install/steps/<runtime>.rs`)
//!   are the CLI's: its exhaustive `steps::of` and `every_installable_runtime_has_its_steps`
//!   hold every installable runtime to them.

use hookhost::protocol::{render, Protocol};
use hookhost::{EventName, HookEvent, Outcome, Runtime};
use hookhost_types::runtime::Payload;
use serde_json::json;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The runtimes whose output's shape has no schema of its own, and why.
const NO_SCHEMA: &[(Runtime, &str)] = &[
    (Runtime::Codex, "Codex publishes no schema of its hook output: its checks (codex-rs output_parser.rs) are mirrored by protocol/codex.rs and proven with the real Codex in tests/clients"),
    (Runtime::QwenCode, "Qwen Code publishes no schema of its hook output: its answers are Claude Code's shape less two fields, and cli/tests/it/output_protocols.rs validates them against tests/protocols/claude-code.schema.json"),
    (Runtime::OpenCode, "OpenCode has no hook output: its reader is hookhost's own plugin (cli/src/install/opencode_plugin.js), proven with the real OpenCode in tests/clients"),
];

#[test]
fn every_runtime_has_every_part() {
    let integrations = std::fs::read_to_string(root().join("docs/INTEGRATIONS.md")).unwrap();
    let mut missing = Vec::new();
    for r in Runtime::ALL {
        let profile = r.profile();
        let mut lack = |part: &str, fix: String| missing.push(format!("{r}: {part}: {fix}"));

        // Profile.
        if !profile.reference.starts_with("https://") {
            lack("profile", format!("`reference` must be the public hooks reference it was written from, not {:?}", profile.reference));
        }

        // Event reader: a tool call sent the way this runtime's hooks are sent reads back as one.
        let call = hookhost_sdk::Event::pre_tool_use("Bash", json!({"command": "ls"}));
        let ctx = hookhost_sdk::Context { session_id: "s1".into(), cwd: Some("/p".into()), ..Default::default() };
        let delivery = bash_adapter::dialect::deliver(r.dialect(), &call, &ctx, "/p");
        let name = r.event_name(&EventName::PreToolUse);
        let named = matches!(profile.payload, Payload::Camel(_)).then_some(name.as_str());
        match HookEvent::read(delivery.json.as_bytes(), Some(r), named) {
            Ok(e) if e.name == EventName::PreToolUse && e.tool_name() == Some("Bash") && e.arguments() == Some(&json!({"command": "ls"})) && e.runtime == Some(r) => {}
            other => lack("event reader", format!("its own payload {} reads as {other:?} (crates/types/src/envelope.rs, by the profile's `payload`)", delivery.json)),
        }

        // Answer writer.
        let protocol = Protocol::parse(r.name());
        match (&profile.answer, protocol) {
            (Some(_), Some(p)) => {
                let event = HookEvent { runtime: Some(r), ..HookEvent::pre_tool_use("Bash", json!({"command": "rm -rf /"})) };
                let reply = render(p, &event, &Outcome::block("no".into()));
                let ours = serde_json::to_string(&Outcome::block("no".into())).unwrap();
                if reply.stdout.is_empty() || reply.stdout == ours || !reply.stdout.contains("no") {
                    lack("answer writer", format!("a block is written as {:?}: add host/src/protocol/{}.rs and name it in protocol.rs: writer", reply.stdout, r.name().replace('-', "_")));
                }
            }
            (None, None) => {}
            (answer, protocol) => lack("answer writer", format!("profile answer {answer:?} but protocol {protocol:?}")),
        }

        // Config reader.
        if profile.config_syntax == Some(r) {
            if hookhost::peer::Format::parse(r.name()).is_none() {
                lack("config reader", "crates/config/src/peer/<runtime>.rs and its arm in peer.rs".into());
            }
            let samples = std::fs::read_dir(root().join("tests/config/peers")).unwrap();
            let stem = r.name().split('-').next().unwrap().to_string();
            if !samples.filter_map(Result::ok).any(|f| f.file_name().to_string_lossy().starts_with(&stem)) {
                lack("config reader", format!("a sample config under tests/config/peers/ named {stem}…"));
            }
        }

        // Shell dialect: the adapter reads its hooks' block.
        let blocked = bash_adapter::verdict::interpret(r.dialect(), &call, &bash_adapter::dialect::Run::new(2, "", "no"));
        if !matches!(&blocked, Ok(d) if matches!(d.verdict, hookhost_sdk::Verdict::Block { .. })) {
            lack("shell dialect", format!("exit 2 before a tool reads as {blocked:?} (plugins/bash-adapter/src/verdict.rs: reader)"));
        }

        // Docs section.
        if !integrations.lines().any(|l| l.starts_with(&format!("## {}", profile.title))) {
            lack("docs section", format!("docs/INTEGRATIONS.md needs a `## {}` section", profile.title));
        }

        // Schema.
        if profile.answer.is_some() && !root().join(format!("tests/protocols/{}.schema.json", r.name())).is_file() && !NO_SCHEMA.iter().any(|(n, _)| *n == r) {
            lack("schema", format!("tests/protocols/{}.schema.json (or its reason in NO_SCHEMA)", r.name()));
        }

        // Install wiring.
        if let Some(install) = &profile.install {
            for (event, _) in install.events {
                if r.event(event).is_none() {
                    lack("install", format!("it wires {event}, which is not among its profile's events"));
                }
            }
            if let Ok(project_file) = install.project_file {
                if !profile.config_files.contains(&project_file) && !profile.config_files.iter().any(|f| f.ends_with("*.json") && project_file.starts_with(f.trim_end_matches("*.json"))) {
                    lack("install", format!("its project file {project_file} is not among the files it reads hooks from"));
                }
            }
        }
        if let Some(hooks) = &profile.project_hooks {
            if !profile.config_files.contains(&hooks.file) {
                lack("project hooks", format!("{} is not among the files it reads hooks from", hooks.file));
            }
        }
    }
    assert!(missing.is_empty(), "runtimes missing parts:\n{}", missing.join("\n"));
}

/// The checklist fails when a part is missing: a payload read as another runtime's loses its
/// event, and a runtime with no answer has no protocol.
#[test]
fn the_checklist_sees_a_missing_part() {
    let call = hookhost_sdk::Event::pre_tool_use("Bash", json!({"command": "ls"}));
    let copilot = bash_adapter::dialect::deliver(Runtime::Copilot, &call, &hookhost_sdk::Context::default(), "/p");
    assert!(HookEvent::read(copilot.json.as_bytes(), Some(Runtime::ClaudeCode), None).is_err(), "Copilot's payload names no event: read as Claude Code's it is unreadable");
    assert_eq!(Protocol::parse(Runtime::Everruns.name()), None, "no answer in its profile, no protocol");
    assert!(!root().join("tests/protocols/codex.schema.json").exists(), "NO_SCHEMA's entry is still needed");
}
