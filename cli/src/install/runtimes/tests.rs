use super::*;

const CLAUDE: Runtime = Runtime(hookhost::Runtime::ClaudeCode);
const COPILOT: Runtime = Runtime(hookhost::Runtime::Copilot);

fn target(wiring: Wiring) -> Target {
    Target { hookhost: "/opt/hook host/hookhost".into(), send: "/opt/hook host/hookhost-send".into(), wiring, failure_flag: None, server: "http://127.0.0.1:7807".into() }
}

#[test]
fn wiring_keeps_other_hooks_and_is_idempotent() {
    let text = r#"{"model": "x", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./mine.sh"}]}], "Stop": [{"hooks": [{"type": "command", "command": "/old/hookhost run --output claude-code"}]}]}}"#;
    let mut doc = Json::parse(text).unwrap();
    wire(CLAUDE, &mut doc, &target(Wiring::Command)).unwrap();
    let once = doc.render(None);
    let pre = doc.get("hooks").unwrap().get("PreToolUse").unwrap().as_array().unwrap();
    assert_eq!(pre.len(), 2);
    assert_eq!(pre[0].get("hooks").unwrap().as_array().unwrap()[0].get("command").unwrap().as_str(), Some("./mine.sh"));
    // The old entry under Stop was updated in place, not added to.
    let stop = doc.get("hooks").unwrap().get("Stop").unwrap().as_array().unwrap();
    assert_eq!(stop.len(), 1);
    assert_eq!(stop[0].get("hooks").unwrap().as_array().unwrap()[0].get("command").unwrap().as_str(), Some("'/opt/hook host/hookhost' run --output claude-code"));
    wire(CLAUDE, &mut doc, &target(Wiring::Command)).unwrap();
    assert_eq!(doc.render(None), once);
    unwire(CLAUDE, &mut doc);
    assert_eq!(doc, Json::parse(r#"{"model": "x", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./mine.sh"}]}]}}"#).unwrap());
}

#[test]
fn every_event_wired_is_one_the_runtime_has() {
    for r in Runtime::all().iter().copied() {
        for (event, _) in r.events() {
            assert!(r.shared().event(event).is_some(), "{} has no event {event} in its profile (crates/types/src/runtime/)", r.title());
        }
    }
}

#[test]
fn recognises_its_own_entries_only() {
    let cmd = |c: &str| Json::parse(&format!(r#"{{"type": "command", "command": {}}}"#, serde_json::to_string(c).unwrap())).unwrap();
    assert!(is_ours(&cmd("hookhost run --output codex")));
    assert!(is_ours(&cmd("'/a b/hookhost-send' --output codex")));
    assert!(is_ours(&cmd(r#""C:\hh\hookhost.exe" run --output codex"#)));
    assert!(!is_ours(&cmd("./hookhost-wrapper.sh --output x")));
    assert!(!is_ours(&cmd("hookhost check")));
    assert!(is_ours(&Json::parse(r#"{"type": "http", "url": "http://127.0.0.1:7807/v1/hooks/claude-code"}"#).unwrap()));
}

#[test]
fn copilot_entries_are_flat_and_name_their_event() {
    let mut doc = Json::obj();
    wire(COPILOT, &mut doc, &target(Wiring::Send)).unwrap();
    assert_eq!(doc.get("version"), Some(&Json::Number(1.into())));
    let pre = &doc.get("hooks").unwrap().get("preToolUse").unwrap().as_array().unwrap()[0];
    assert_eq!(pre.get("bash").unwrap().as_str(), Some("'/opt/hook host/hookhost-send' --output copilot --event-name preToolUse"));
    unwire(COPILOT, &mut doc);
    assert_eq!(doc, Json::obj());
}
