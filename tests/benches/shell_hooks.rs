//! Everruns', docker-agent's and Starchild's documented shell hooks through the bash adapter, in
//! both modes, against spawning the same script with plain `bash` the way Claude Code and
//! docker-agent run hooks.
//!
//! Run: `cargo bench -p hookhost --bench shell_hooks`

use criterion::{criterion_group, criterion_main, Criterion};
use hookhost::{ConfigFile, HookEvent, Host};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Everruns' guard_rm example executor.
const GUARD_RM: &str = r#"echo '{"decision":"block","reason":"rm -rf is not allowed","user_message":"That command is blocked by policy."}'"#;
/// Everruns' private-key prompt guard example (bash + jq + grep).
const SECRET_GUARD: &str = r#"msg=$(echo "$EVERRUNS_HOOK_PAYLOAD_JSON" | jq -r '.data.message'); if printf '%s' "$msg" | grep -qiE 'BEGIN (RSA|OPENSSH|EC|DSA) PRIVATE KEY'; then echo '{"decision":"block","reason":"prompt contains a private key"}'; else echo '{}'; fi"#;

fn host(rt: &tokio::runtime::Runtime, event: &str, script: &str, mode: &str) -> Host {
    host_of(rt, "builtin:bash-adapter", event, script, mode)
}

fn host_of(rt: &tokio::runtime::Runtime, plugin: &str, event: &str, script: &str, mode: &str) -> Host {
    let toml = format!(
        "[grants]\n{plugin:?} = [\"process:exec\"]\n[[hooks]]\nevent = \"{event}\"\nexecutor = {{ plugin = {plugin:?}, settings = {{ mode = \"{mode}\", command = {script:?} }} }}\n"
    );
    let config = ConfigFile::parse(&toml, Path::new("bench.toml"), Path::new(".")).expect("bench config");
    rt.block_on(Host::from_config(config)).expect("bench host loads")
}

/// What Claude Code / docker-agent do per hook: spawn bash with the payload on stdin.
fn spawn_bash(script: &str, payload: &str, env: &[(&str, &str)]) -> String {
    let mut child = Command::new("bash").arg("-c").arg(script).envs(env.iter().copied()).stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(payload.as_bytes());
    String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
}

/// The bash adapter as its guest build left it, before hookhost's build pre-initialised it:
/// the same code, whose every call builds its interpreter. Benched beside the built-in
/// (`sandbox_built_per_call`) when the workspace's guest build is at hand.
fn adapter_built_per_call() -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent()?;
    let target = hookhost_guest_build::workspace_target_dir(root);
    // Where the host's build script has the guest build put it (host/build.rs).
    let file = target.join("guests").join(hookhost_guest_build::Target::Wasi.triple()).join("release/bash_adapter.wasm");
    file.exists().then(|| file.display().to_string())
}

fn bench(c: &mut Criterion) {
    let per_call = adapter_built_per_call();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let rm = HookEvent::pre_tool_use("bash", serde_json::json!({"commands": "rm -rf /tmp/x"}));
    let prompt = HookEvent::from_value(serde_json::json!({"event": "user_prompt_submit", "data": {"message": "hello there"}})).unwrap();
    let payload = prompt.to_value().to_string();

    let mut g = c.benchmark_group("guard_rm");
    g.sample_size(30);
    for mode in ["sandbox", "host"] {
        let h = host(&rt, "pre_tool_use", GUARD_RM, mode);
        assert!(rt.block_on(h.dispatch(&rm)).is_block(), "{mode}");
        g.bench_function(mode, |b| b.iter(|| rt.block_on(h.dispatch(&rm))));
    }
    if let Some(plugin) = &per_call {
        let h = host_of(&rt, plugin, "pre_tool_use", GUARD_RM, "sandbox");
        assert!(rt.block_on(h.dispatch(&rm)).is_block());
        g.bench_function("sandbox_built_per_call", |b| b.iter(|| rt.block_on(h.dispatch(&rm))));
    }
    assert!(spawn_bash(GUARD_RM, "{}", &[]).contains("block"));
    g.bench_function("plain_bash_spawn", |b| b.iter(|| spawn_bash(GUARD_RM, "{}", &[])));
    g.finish();

    let mut g = c.benchmark_group("secret_guard_jq");
    g.sample_size(20);
    for mode in ["sandbox", "host"] {
        let h = host(&rt, "user_prompt_submit", SECRET_GUARD, mode);
        let out = rt.block_on(h.dispatch(&prompt));
        assert!(out.hooks[0].error.is_none(), "{mode}: {out:?}");
        g.bench_function(mode, |b| b.iter(|| rt.block_on(h.dispatch(&prompt))));
    }
    if let Some(plugin) = &per_call {
        let h = host_of(&rt, plugin, "user_prompt_submit", SECRET_GUARD, "sandbox");
        assert!(rt.block_on(h.dispatch(&prompt)).hooks[0].error.is_none());
        g.bench_function("sandbox_built_per_call", |b| b.iter(|| rt.block_on(h.dispatch(&prompt))));
    }
    let env = [("EVERRUNS_HOOK_PAYLOAD_JSON", payload.as_str())];
    assert_eq!(spawn_bash(SECRET_GUARD, "", &env).trim(), "{}");
    g.bench_function("plain_bash_spawn", |b| b.iter(|| spawn_bash(SECRET_GUARD, "", &env)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
