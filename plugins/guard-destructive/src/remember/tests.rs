use super::*;
use crate::Guard;
use hookhost_sdk::prelude::*;

fn call(tool: &str, args: Value, remember: bool) -> Option<String> {
    let ctx = Context { settings: json!({ "remember": remember }), cwd: Some("/home/ada/p".into()), ..Context::default() };
    match Guard::handle(Event::pre_tool_use(tool, args), ctx).unwrap().verdict {
        hookhost_sdk::Verdict::Block { reason, .. } => reason,
        hookhost_sdk::Verdict::Ask(reason) => reason,
        _ => None,
    }
}

#[test]
fn remember_false_neither_records_nor_reads() {
    state::clear();
    assert_eq!(call("Write", json!({"file_path": "x.sh", "content": "rm -rf ~"}), false), None);
    assert!(state::keys("").unwrap().is_empty(), "nothing recorded");
    assert_eq!(call("Bash", json!({"command": "bash x.sh"}), false), None);
    // On: recorded, and the run is judged by it, its reason naming the script.
    assert_eq!(call("Write", json!({"file_path": "x.sh", "content": "rm -rf ~"}), true), None);
    assert_eq!(state::keys("").unwrap(), ["w:/home/ada/p/x.sh"]);
    let reason = call("Bash", json!({"command": "bash x.sh"}), true).unwrap();
    assert!(reason.starts_with("destructive command blocked: x.sh, as written earlier in this session, runs: recursive delete of ~"), "{reason}");
    assert_eq!(call("Bash", json!({"command": "bash x.sh"}), false), None, "off: not read either");
}

#[test]
fn a_file_is_cut_to_what_the_store_keeps_and_links_are_bounded() {
    state::clear();
    let policy = Policy { cwd: Some("/p".into()), ..Policy::default() };
    let big = format!("{}rm -rf ~", "#\n".repeat(40_000));
    record(Writes { files: vec![Write::File("big.sh".into(), Some(big))], links: Vec::new() }, &policy);
    assert_eq!(written("/p/big.sh", &policy).unwrap().len(), MAX_FILE);
    for i in 0..40 {
        record(Writes { files: Vec::new(), links: vec![(format!("/tmp/l{i}"), "~".into())] }, &policy);
    }
    let kept = links();
    assert_eq!(kept.len(), MAX_LINKS);
    assert_eq!(kept.last().unwrap(), &("/tmp/l39".to_string(), "~".to_string()), "the newest kept");
}

#[test]
fn makefile_recipes_and_shebangs_are_read() {
    let r = recipes("VAR := x\nall: build\n\n.PHONY: all\nbuild test: dep\n\t@cargo build \\\n\t  --release\n\t-rm -rf out\nx: ; echo inline\n");
    assert_eq!(r, vec![
        ("all".to_string(), vec![]),
        (".PHONY".to_string(), vec![]),
        ("build".to_string(), vec!["cargo build   --release".to_string(), "rm -rf out".to_string()]),
        ("test".to_string(), vec!["cargo build   --release".to_string(), "rm -rf out".to_string()]),
        ("x".to_string(), vec!["echo inline".to_string()]),
    ]);
    assert_eq!(shebang("#!/usr/bin/env -S python3 -u\nx"), Some(Lang::Python));
    assert_eq!(shebang("#!/bin/bash\n"), Some(Lang::Shell));
    assert_eq!(shebang("echo hi"), None);
    assert_eq!(key("a/../b.sh", Some("/w")), Some("w:/w/b.sh".into()));
    assert_eq!(key("~/x", None), Some("w:~/x".into()));
    assert_eq!(key("x", None), None, "a relative path without a cwd cannot be told");
}

#[test]
fn the_loop_rule_asks_after_the_same_command_failed_n_times_running() {
    state::clear();
    let settings = json!({ "loop_after": 3 });
    let result = |command: &str, failed: bool| {
        let ev = Event::PostToolUse(hookhost_sdk::ToolResult { name: "Bash".into(), call_id: "c".into(), arguments: json!({ "command": command }), result: json!({ "exit_code": if failed { 1 } else { 0 } }), is_error: false });
        Guard::handle(ev, Context { settings: settings.clone(), ..Context::default() }).unwrap()
    };
    let before = || Guard::handle(Event::pre_tool_use("Bash", json!({ "command": "cargo test" })), Context { settings: settings.clone(), ..Context::default() }).unwrap().verdict;
    for _ in 0..2 {
        assert!(matches!(result("cargo test", true).verdict, hookhost_sdk::Verdict::Pass));
    }
    assert!(matches!(before(), hookhost_sdk::Verdict::Pass), "two failures: not yet");
    result("cargo test", true);
    let hookhost_sdk::Verdict::Ask(Some(reason)) = before() else { panic!("three failures: asked") };
    assert!(reason.contains("`cargo test` failed 3 times in a row in this session (rule guard.loop)"), "{reason}");
    result("cargo test", false);
    assert!(matches!(before(), hookhost_sdk::Verdict::Pass), "a success ends the run");
    // Off by default; a count out of range is refused at load.
    assert!(Policy::from_settings(&json!({})).unwrap().loop_after == 0);
    assert_eq!(Policy::from_settings(&json!({ "loop_after": 1 })).unwrap_err(), "settings.loop_after must be a number of failures from 2 to 100");
}

#[test]
fn a_recorded_script_that_changes_hook_configuration_is_that_change() {
    state::clear();
    let call_with = |tool: &str, args: Value, settings: Value| {
        let ctx = Context { settings, cwd: Some("/home/ada/p".into()), ..Context::default() };
        match Guard::handle(Event::pre_tool_use(tool, args), ctx).unwrap().verdict {
            hookhost_sdk::Verdict::Block { reason, .. } => reason,
            hookhost_sdk::Verdict::Ask(reason) => reason,
            _ => None,
        }
    };
    // Writing the script is not the change: running it is.
    assert_eq!(call("Write", json!({"file_path": "fix.sh", "content": "#!/bin/sh\necho '{}' > ~/.claude/settings.json\n"}), true), None);
    let reason = call("Bash", json!({"command": "bash fix.sh"}), true).unwrap();
    assert_eq!(reason, "hook configuration is protected: fix.sh, as written earlier in this session, runs: a redirection would overwrite ~/.claude/settings.json (hook configuration) (rule hooks.change); instead: read it freely, but change hooks yourself, outside the agent");
    assert!(call("Bash", json!({"command": "chmod +x fix.sh && ./fix.sh"}), true).unwrap().contains("(rule hooks.change)"));
    // Other languages: the code names the file it opens.
    assert_eq!(call("Write", json!({"file_path": "fix.py", "content": "import json\nopen('.claude/settings.json', 'w').write('{}')\n"}), true), None);
    assert!(call("Bash", json!({"command": "python3 fix.py"}), true).unwrap().contains("(rule hooks.change)"));
    // A Makefile recipe and a package.json script.
    assert_eq!(call("Write", json!({"file_path": "Makefile", "content": "reset:\n\trm -f .claude/settings.local.json\n"}), true), None);
    assert!(call("Bash", json!({"command": "make reset"}), true).unwrap().contains("Makefile (target reset), as written earlier in this session, runs: "));
    assert_eq!(call("Write", json!({"file_path": "package.json", "content": "{\"scripts\": {\"unhook\": \"mv .codex/hooks.json /tmp/\"}}"}), true), None);
    assert!(call("Bash", json!({"command": "npm run unhook"}), true).unwrap().contains("(rule hooks.change)"));
    // protect_hooks = false: not read for it either (the destructive rules still are).
    assert_eq!(call_with("Bash", json!({"command": "bash fix.sh"}), json!({"protect_hooks": false})), None);
    // A script that only reads hook configuration runs.
    assert_eq!(call("Write", json!({"file_path": "show.sh", "content": "cat ~/.claude/settings.json\n"}), true), None);
    assert_eq!(call("Bash", json!({"command": "bash show.sh"}), true), None);
}
