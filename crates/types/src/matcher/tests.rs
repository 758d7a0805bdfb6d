//! Tests of `matcher.rs`.

use super::*;
use serde_json::json;

fn spec(v: Value) -> MatcherSpec {
    serde_json::from_value(v).unwrap()
}

#[test]
fn seed_guard_rm_matcher_fires_on_rm_rf_only() {
    let m = spec(json!({"tool_name": "bash", "args_jsonpath": "$.commands", "deny_regex": "(?:^|;|&&|\\|)\\s*rm\\s+-rf\\b"}))
        .compile()
        .unwrap();
    let fires = |tool: &str, cmd: &str| m.matches(Some(tool), Some(&json!({"commands": cmd})));
    assert!(fires("bash", "rm -rf /tmp/x"));
    assert!(fires("bash", "cd / && rm -rf target"));
    assert!(!fires("bash", "ls -la"));
    assert!(!fires("bash", "echo rm -rf"));
    assert!(!fires("python", "rm -rf /"));
    assert!(!m.matches(Some("bash"), Some(&json!({"command": "rm -rf /"}))), "missing path does not fire");
}

#[test]
fn glob_table() {
    let m = spec(json!({"tool_name_glob": "edit_file|write_*"})).compile().unwrap();
    for (tool, want) in [("edit_file", true), ("write_file", true), ("write_", true), ("edit", false), ("read_file", false)] {
        assert_eq!(m.matches(Some(tool), None), want, "{tool}");
    }
    let all = spec(json!({"tool_name_glob": "*"})).compile().unwrap();
    assert!(all.matches(Some("anything"), None));
}

#[test]
fn paths_with_indices_and_non_string_values() {
    let m = spec(json!({"args_jsonpath": "$.files[1].path", "match_regex": "\\.rs$"})).compile().unwrap();
    assert!(m.matches(Some("x"), Some(&json!({"files": [{"path": "a.md"}, {"path": "b.rs"}]}))));
    assert!(!m.matches(Some("x"), Some(&json!({"files": [{"path": "b.rs"}]}))));
    let n = spec(json!({"args_jsonpath": "$.n", "match_regex": "^4[0-9]$"})).compile().unwrap();
    assert!(n.matches(None, Some(&json!({"n": 42}))));
}

#[test]
fn bad_matchers_report_every_problem() {
    let errs = spec(json!({"args_jsonpath": "command", "match_regex": "(", "deny_regex": "x"})).compile().unwrap_err();
    let fields: Vec<_> = errs.iter().map(|e| e.0).collect();
    assert_eq!(fields, ["match_regex", "match_regex", "args_jsonpath"], "{errs:?}");
    assert!(errs[0].1.contains("mutually exclusive"));
    assert!(errs[1].1.starts_with("invalid regex \"(\""), "{}", errs[1].1);
    let lone = spec(json!({"match_regex": "x"})).compile().unwrap_err();
    assert_eq!(lone[0].1, "match_regex needs args_jsonpath to say which argument to test (e.g. \"$.command\")");
    let glob = spec(json!({"tool_name_glob": "a*b"})).compile().unwrap_err();
    assert_eq!(glob[0].0, "tool_name_glob");
}

#[test]
fn claude_matcher_table() {
    let tools = ["Bash", "Edit", "Write", "MultiEdit", "mcp__github__create_issue", "mcp__fs__read", "Read"];
    let table: &[(&str, &[bool])] = &[
        ("*", &[true, true, true, true, true, true, true]),
        ("", &[true, true, true, true, true, true, true]),
        ("Bash", &[true, false, false, false, false, false, false]),
        ("Edit|Write", &[false, true, true, false, false, false, false]),
        ("Edit, Write", &[false, true, true, false, false, false, false]),
        ("Edit.*", &[false, true, false, true, false, false, false]),
        ("^Edit$", &[false, true, false, false, false, false, false]),
        ("mcp__.*", &[false, false, false, false, true, true, false]),
        ("mcp__github__.*", &[false, false, false, false, true, false, false]),
        ("Write|Edit|MultiEdit", &[false, true, true, true, false, false, false]),
        ("read", &[false, false, false, false, false, false, false]),
        ("ead", &[false, false, false, false, false, false, false]),
        ("e.d", &[false, false, false, false, false, true, true]),
    ];
    for (pattern, want) in table {
        let m = spec(json!({ "tool_pattern": pattern })).compile().unwrap();
        for (tool, want) in tools.iter().zip(want.iter()) {
            assert_eq!(m.matches(Some(tool), None), *want, "pattern {pattern:?} on {tool}");
        }
    }
}

#[test]
fn braces_javascript_reads_as_literals_compile() {
    assert_eq!(js_literal_braces(":(){ :|:& };:"), r":()\{ :|:& \};:");
    assert_eq!(js_literal_braces("a{2}b{1,}c{1,3}"), "a{2}b{1,}c{1,3}");
    assert_eq!(js_literal_braces(r"\{x\}"), r"\{x\}");
    let m = spec(json!({ "tool_pattern": "tool == \"Bash\" && rm|:(){ :|:& };:" })).compile().unwrap();
    assert!(!m.matches(Some("Bash"), None), "Claude Code tests it against the tool name, which it never matches");
    assert!(m.matches(Some(":(){ :|:& };:"), None));
}

#[test]
fn claude_if_rule_table() {
    let cases: &[(&str, &str, Value, bool)] = &[
        ("Bash(rm *)", "Bash", json!({"command": "rm -rf build"}), true),
        // Every subcommand is checked, as Claude Code does.
        ("Bash(rm *)", "Bash", json!({"command": "ls; rm -rf build"}), true),
        ("Bash(rm *)", "Bash", json!({"command": "  rm -rf build"}), true),
        ("Bash(rm *)", "Bash", json!({"command": "FOO=1 rm -rf build"}), true),
        ("Bash(rm *)", "Bash", json!({"command": "cd /tmp && rm -rf build"}), true),
        ("Bash(rm *)", "Bash", json!({"command": "true || rm -rf b"}), true),
        ("Bash(rm *)", "Bash", json!({"command": "$(rm -rf b)"}), true),
        ("Bash(rm *)", "Bash", json!({"command": "(( $(rm -rf b) ))"}), true),
        ("Bash(rm *)", "Bash", json!({"command": "echo ${X:-$(rm -rf b)}"}), true),
        ("Bash(rm *)", "Bash", json!({"command": "echo $(( `rm -rf b` + 1 ))"}), true),
        ("Bash(rm *)", "Bash", json!({"command": "echo 'rm -rf b'"}), false),
        ("Bash(rm *)", "Bash", json!({"command": "ls; grep rm x"}), false),
        ("Bash(npm run test:*)", "Bash", json!({"command": "cd web && npm run test -- --watch"}), true),
        ("Bash(npm run test:*)", "Bash", json!({"command": "npm run testing"}), false),
        ("Bash(rm *)", "Bash", json!({"command": "rmdir x"}), false),
        ("Bash(git push*)", "Bash", json!({"command": "git push --force"}), true),
        // Wrappers and strings, unwrapped as the guard unwraps them.
        ("Bash(rm:*)", "Bash", json!({"command": "sudo rm -rf build"}), true),
        ("Bash(rm:*)", "Bash", json!({"command": "env A=1 rm -rf build"}), true),
        ("Bash(rm:*)", "Bash", json!({"command": "command rm -rf build"}), true),
        ("Bash(rm:*)", "Bash", json!({"command": "nice -n 5 rm -rf build"}), true),
        ("Bash(rm:*)", "Bash", json!({"command": "timeout 5 rm -rf build"}), true),
        ("Bash(rm:*)", "Bash", json!({"command": "bash -c 'rm -rf build'"}), true),
        ("Bash(rm:*)", "Bash", json!({"command": "/bin/rm -rf build"}), true),
        ("Bash(rm:*)", "Bash", json!({"command": "find . -name x | xargs rm -rf"}), true),
        ("Bash(rm:*)", "Bash", json!({"command": "sudo ls /root"}), false),
        ("Bash(rm:*)", "Bash", json!({"command": "command -v rm"}), false),
        ("Bash", "Bash", json!({"command": "anything"}), true),
        ("Bash(rm *)", "Edit", json!({"file_path": "rm x"}), false),
        ("Edit(*.ts)", "Edit", json!({"file_path": "/repo/src/app.ts"}), true),
        ("Edit(*.ts)", "Edit", json!({"file_path": "/repo/src/app.tsx"}), false),
        ("Edit(src/*)", "Edit", json!({"file_path": "src/main.rs"}), true),
        ("Write(*.env)", "Write", json!({"file_path": "/x/.env"}), true),
        ("Read(*.pem)", "Read", json!({}), false),
    ];
    for (rule, tool, args, want) in cases {
        let m = spec(json!({ "if": rule })).compile().unwrap();
        assert_eq!(m.matches(Some(tool), Some(args)), *want, "{rule} on {tool} {args}");
    }
    let bad = spec(json!({ "if": "Bash(rm *" })).compile().unwrap_err();
    assert_eq!(bad[0], ("if", "\"Bash(rm *\" is not a permission rule; use Tool or Tool(pattern), e.g. \"Bash(rm *)\"".to_string()));
}

#[test]
fn file_rules_read_the_path_from_the_sessions_directory() {
    // Claude Code sends absolute paths: `Edit(src/**)` is the project's src/, from `cwd`.
    let event = |tool: &str, path: &str| {
        crate::HookEvent::from_json(&json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/home/me/proj", "tool_name": tool, "tool_input": {"file_path": path}}).to_string()).unwrap()
    };
    let m = spec(json!({ "if": "Edit(src/**)" })).compile().unwrap();
    assert!(m.matches_event(&event("Edit", "/home/me/proj/src/lib.rs")));
    assert!(!m.matches_event(&event("Edit", "/home/me/proj/docs/a.md")));
    assert!(!m.matches_event(&event("Edit", "/elsewhere/src/lib.rs")));
    // An Edit rule covers every tool that edits files; a Read rule only reading.
    assert!(m.matches_event(&event("Write", "/home/me/proj/src/new.rs")));
    assert!(m.matches_event(&event("MultiEdit", "/home/me/proj/src/lib.rs")));
    assert!(!m.matches_event(&event("Read", "/home/me/proj/src/lib.rs")));
    let read = spec(json!({ "if": "Read(./.env)" })).compile().unwrap();
    assert!(read.matches_event(&event("Read", "/home/me/proj/.env")));
    assert!(!read.matches_event(&event("Write", "/home/me/proj/.env")));
}

#[test]
fn payload_regex_matches_the_event_text() {
    let m = spec(json!({ "payload_regex": "rm -rf|mkfs" })).compile().unwrap();
    let hit = crate::HookEvent::pre_tool_use("bash", json!({"command": "sudo mkfs /dev/sda"}));
    let miss = crate::HookEvent::pre_tool_use("bash", json!({"command": "ls"}));
    assert!(m.matches_event(&hit));
    assert!(!m.matches_event(&miss));
    assert!(spec(json!({ "payload_regex": "x" })).is_event_only());
}

#[test]
fn field_patterns_test_one_field_of_the_event() {
    let ev = |name: crate::EventName, field: &str, value: &str| {
        let mut data = serde_json::Map::new();
        data.insert(field.into(), value.into());
        crate::HookEvent::new(name, data)
    };
    let m = spec(json!({ "field": "source", "pattern": "startup|resume" })).compile().unwrap();
    assert!(m.matches_event(&ev(crate::EventName::SessionStart, "source", "resume")));
    assert!(m.matches_event(&ev(crate::EventName::SessionStart, "source", "startup")));
    // The whole payload is not searched: "resume" elsewhere does not fire it.
    assert!(!m.matches_event(&ev(crate::EventName::SessionStart, "source", "clear")));
    assert!(!m.matches_event(&ev(crate::EventName::SessionStart, "reason", "resume")));
    let re = spec(json!({ "field": "kind", "pattern": "^idle" })).compile().unwrap();
    assert!(re.matches_event(&ev(crate::EventName::Notification, "kind", "idle_prompt")));
    assert!(!re.matches_event(&ev(crate::EventName::Notification, "kind", "permission_prompt")));
    assert!(spec(json!({ "field": "trigger", "pattern": "auto" })).is_event_only());
    let errs = spec(json!({ "pattern": "x" })).compile().unwrap_err();
    assert_eq!(errs[0].0, "field");
    let errs = spec(json!({ "field": "source" })).compile().unwrap_err();
    assert_eq!(errs[0].0, "pattern");
    let errs = spec(json!({ "field": "source", "pattern": "(" })).compile().unwrap_err();
    assert_eq!(errs[0].0, "pattern");
}
