//! Property tests of issue #48's promise, over the built binary: for arbitrary bytes on stdin
//! (deterministic mutations of each runtime's pre-tool event), under every config, audit and
//! environment state, `run --output RUNTIME` and `hookhost-send` (its daemon gone, so it runs the
//! event in-process) answer in the runtime's protocol — an exit code
//! the runtime reads (0, 1, 2), at most one JSON value on stdout, never a crash or a hang — and
//! where hookhost's own chain cannot run, a pre-tool event is never let through unless
//! `--fail-open` says so.

use crate::common::hookhost_with;
use hookhost_tests::mutate::{mutate, Rng};
use std::path::Path;
use std::process::Output;

/// Each runtime's pre-tool event, as it sends it, and the flags `run` needs for it.
const RUNTIMES: &[(&str, &[&str], &str)] = &[
    ("claude-code", &[], r#"{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/tmp","tool_name":"Bash","tool_input":{"command":"ls -la"}}"#),
    ("codex", &[], r#"{"hook_event_name":"PreToolUse","session_id":"s","turn_id":"t","cwd":"/tmp","model":"m","tool_name":"exec_command","tool_input":{"cmd":"ls"}}"#),
    ("gemini-cli", &[], r#"{"hook_event_name":"BeforeTool","session_id":"s","cwd":"/tmp","tool_name":"run_shell_command","tool_input":{"command":"ls"}}"#),
    ("copilot", &["--event-name", "preToolUse"], r#"{"sessionId":"s","timestamp":1767225600000,"cwd":"/tmp","toolName":"bash","toolArgs":"{\"command\":\"ls\"}"}"#),
    ("docker-agent", &[], r#"{"hook_event_name":"pre_tool_use","session_id":"s","tool_name":"shell","tool_input":{"cmd":"ls"}}"#),
    ("starchild", &[], r#"{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"bash","tool_input":{"command":"ls"}}"#),
    ("everruns", &[], r#"{"event":"pre_tool_use","data":{"tool_name":"bash","tool_call_id":"c","arguments":{"command":"ls"}}}"#),
];

/// The states hookhost may find itself in: whether its chain can run at all.
#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    /// Everything in order.
    Sound,
    /// The managed config does not load.
    BrokenManaged,
    /// The audit log cannot be opened (it is a directory).
    AuditUnopenable,
    /// The user's config does not load (left out: the built-in guard decides).
    BrokenUser,
    /// The XDG locations are relative (ignored, with a warning).
    RelativeXdg,
}

/// `hookhost run`, or (`send`) `hookhost-send` with no daemon to reach, in `state`.
fn run(state: State, dir: &Path, runtime: &str, flags: &[&str], stdin: &[u8], send: bool) -> Output {
    let (managed, home) = (dir.join("managed.toml"), dir.join("home"));
    let gone = format!("unix:{}", dir.join("no-daemon.sock").display());
    let mut args = if send { vec!["--server", gone.as_str(), "--output", runtime] } else { vec!["run", "--output", runtime] };
    args.extend_from_slice(flags);
    if send {
        args.push("--");
    }
    args.push("--no-project");
    let audit_dir = dir.join("audit-dir");
    let audit = audit_dir.display().to_string();
    if state == State::AuditUnopenable {
        args.extend_from_slice(&["--audit", &audit]);
    }
    hookhost_with(
        |c| {
            if send {
                *c = crate::common::bin(env!("CARGO_BIN_EXE_hookhost-send"));
                c.env_remove("HOOKHOST_SERVER").env_remove("HOOKHOST_TOKEN");
            }
            c.args(&args).env("HOME", &home).env("XDG_CONFIG_HOME", home.join(".config")).env("XDG_STATE_HOME", home.join(".local/state")).env_remove("HOOKHOST_MANAGED_CONFIG");
            match state {
                State::BrokenManaged => {
                    c.env("HOOKHOST_MANAGED_CONFIG", &managed);
                }
                State::RelativeXdg => {
                    c.env("XDG_CONFIG_HOME", "rel/config").env("XDG_STATE_HOME", "rel/state");
                }
                _ => {}
            }
        },
        stdin,
    )
}

/// Whether the input is still a pre-tool event a runtime would send (so its answer gates a
/// tool): read back as JSON (bytes that are not UTF-8 read as U+FFFD, as hookhost reads them),
/// with a pre-tool name (or, for Copilot, named by the flag). `None`: not JSON at all.
fn still_pre_tool(runtime: &str, stdin: &[u8]) -> Option<bool> {
    let v: serde_json::Value = serde_json::from_str(&String::from_utf8_lossy(stdin)).ok()?;
    let obj = v.as_object()?;
    if runtime == "copilot" {
        return Some(true);
    }
    let name = obj.get("hook_event_name").or_else(|| obj.get("event")).and_then(|n| n.as_str())?;
    Some(matches!(name, "PreToolUse" | "BeforeTool" | "pre_tool_use" | "preToolUse"))
}

#[test]
fn any_stdin_in_any_state_is_answered_in_the_runtimes_protocol_and_a_failed_chain_never_lets_a_tool_through() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("managed.toml"), "[[hooks]\nnot toml\n").unwrap();
    std::fs::create_dir_all(dir.path().join("audit-dir")).unwrap();
    std::fs::create_dir_all(dir.path().join("home/.config/hookhost")).unwrap();
    let mut rng = Rng(0x48_48_48_48_1234_5678);
    let (mut runs, mut gated) = (0, 0);
    for state in [State::Sound, State::BrokenManaged, State::AuditUnopenable, State::BrokenUser, State::RelativeXdg] {
        let user = dir.path().join("home/.config/hookhost/hooks.toml");
        match state {
            State::BrokenUser => std::fs::write(&user, "[[hooks]\n").unwrap(),
            _ => {
                let _ = std::fs::remove_file(&user);
            }
        }
        for (runtime, flags, seed) in RUNTIMES {
            let mut inputs = vec![seed.as_bytes().to_vec()];
            inputs.extend((0..11).map(|_| mutate(seed.as_bytes(), &mut rng)));
            for (i, stdin) in inputs.iter().enumerate() {
                // Every input through `run`; every third through hookhost-send as well.
                for send in [false, true].into_iter().filter(|s| !s || i % 3 == 0) {
                    let started = std::time::Instant::now();
                    let out = run(state, dir.path(), runtime, flags, stdin, send);
                    runs += 1;
                    let via = if send { "hookhost-send" } else { "run" };
                    let shown = || format!("{via} {state:?} {runtime} {:?}: exit {:?}\nstdout {}\nstderr {}", String::from_utf8_lossy(stdin), out.status.code(), String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
                    assert!(matches!(out.status.code(), Some(0..=2)), "{}", shown());
                    assert!(started.elapsed() < std::time::Duration::from_secs(20), "{}", shown());
                    if !out.stdout.is_empty() {
                        assert!(serde_json::from_slice::<serde_json::Value>(&out.stdout).is_ok(), "stdout is one JSON value: {}", shown());
                    }
                    // A chain that cannot run: a pre-tool event (or one that cannot be read at all)
                    // is blocked in the runtime's form — exit 2, or a deny on exit 0 naming the
                    // failure.
                    if matches!(state, State::BrokenManaged | State::AuditUnopenable) {
                        match still_pre_tool(runtime, stdin) {
                            Some(false) => {}
                            _ => {
                                gated += 1;
                                let text = String::from_utf8_lossy(&out.stdout);
                                let blocked = out.status.code() == Some(2) || (out.status.code() == Some(0) && (text.contains("deny") || text.contains("block")) && text.contains("hookhost could not decide"));
                                assert!(blocked, "a failed chain let a tool through: {}", shown());
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(runs >= 550 && gated >= 150, "{runs} runs, {gated} gated");
}

/// The same inputs over HTTP: `serve` answers every body on every runtime's route with one JSON
/// value and a status a client reads (never a 5xx, never a hang).
#[test]
fn any_body_on_any_runtime_route_of_serve_is_answered() {
    let d = crate::common::Daemon::start(&["--listen", "127.0.0.1:0", "--no-project"]);
    let mut rng = Rng(0x48_5e_4e_00_dead_beef);
    let mut answered = 0;
    for (runtime, flags, seed) in RUNTIMES {
        // Copilot's payload names no event: the path does, as `--event-name` does for `run`.
        let path = match flags {
            [_, event] => format!("/v1/hooks/{runtime}/{event}"),
            _ => format!("/v1/hooks/{runtime}"),
        };
        for _ in 0..12 {
            let body = String::from_utf8_lossy(&mutate(seed.as_bytes(), &mut rng)).into_owned();
            let started = std::time::Instant::now();
            let (status, text) = d.request("POST", &path, &[], &body);
            assert!((200..500).contains(&status), "{path} {body:?}: {status} {text}");
            assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok(), "{path} {body:?}: {status} {text}");
            assert!(started.elapsed() < std::time::Duration::from_secs(20));
            answered += 1;
        }
    }
    assert_eq!(answered, RUNTIMES.len() * 12);
}
