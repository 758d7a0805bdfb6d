//! Loading and running plugins: imports, linkers, shared code, grants.

use super::*;
use hookhost_types::HookEvent;

/// Read from the outer component's import section, nested modules stepped over.
#[test]
fn imports_process_reads_the_outer_imports_only() {
    assert_eq!(process_import(crate::builtin::get("bash-adapter").unwrap().0).as_deref(), Some("hookhost:hooks/process@0.3.0"));
    assert_eq!(process_import(crate::builtin::get("guard-destructive").unwrap().0), None);
    assert_eq!(process_import(b"\0asm\x0d\0\x01\0garbage"), None, "bytes that do not parse say no");
}

#[test]
fn what_hookhost_links_and_what_it_refuses() {
    for ok in ["wasi:cli/environment@0.2.6", "wasi:http/outgoing-handler@0.2.0", "wasi:io/streams@0.2.3"].into_iter().chain(wit::Version::ALL.into_iter().flat_map(wit::Version::imports).copied()) {
        assert_eq!(unsupported(ok), None, "{ok}");
    }
    assert_eq!(unsupported("hookhost:hooks/log@0.9.0"), Some("it is not an interface of a hook contract this hookhost serves"));
    assert_eq!(unsupported("hookhost:hooks/state@0.2.0"), Some("it is not an interface of a hook contract this hookhost serves"), "state came with 0.3.0");
    assert_eq!(unsupported("wasi:cli/environment@0.3.0"), Some("it is not WASI 0.2, the version hookhost links"));
    assert_eq!(unsupported("hookhost:hooks/secrets@0.1.0"), Some("it is not an interface of a hook contract this hookhost serves"));
    assert_eq!(unsupported("acme:probe/telemetry"), Some("hookhost does not provide it"));
    let adapter = outer_imports(crate::builtin::get("bash-adapter").unwrap().0).unwrap();
    assert!(adapter.iter().any(|i| i == wit::v0_3::PROCESS_IMPORT) && adapter.iter().all(|i| unsupported(i).is_none()), "{adapter:?}");
}

/// A loader links WASI only once a plugin imports it: the lean built-ins load (and run)
/// without it; the bash adapter (wasm32-wasip2) brings it in.
#[tokio::test]
async fn wasi_is_linked_only_for_the_plugins_that_import_it() {
    let loader = Loader::new(&Engine::shared().unwrap(), hookhost_types::paths::cache_dir(None)).unwrap();
    let load = |name: &str| {
        let (bytes, digest) = crate::builtin::get(name).unwrap();
        loader.load("user:h", PluginSource { name: format!("builtin:{name}"), bytes: bytes.into(), digest: Some(digest.into()) }).unwrap()
    };
    let guard = load("guard-destructive");
    let redactor = load("redact-secrets");
    assert!(loader.wasi_linker.get().is_none(), "lean plugins import no WASI: {:?} {:?}", guard.imports, redactor.imports);
    let limits = Limits { timeout: std::time::Duration::from_secs(5), fuel: 100_000_000, memory_bytes: 64 << 20 };
    let call = wit::Call::new(&HookEvent::pre_tool_use("bash", serde_json::json!({"command": "rm -rf /"})), "user:h", "{}", 0);
    let decision = guard.handle("user:h", call, &limits, &Access::default(), None).await.0.unwrap();
    assert_eq!(decision.verdict.kind, hookhost_types::VerdictKind::Block, "{decision:?}");
    let adapter = load("bash-adapter");
    assert!(adapter.imports.iter().any(|i| i.starts_with("wasi:cli/")));
    assert!(loader.wasi_linker.get().is_some_and(Result::is_ok));
    let http = adapter.imports.iter().any(|i| i.starts_with("wasi:http/"));
    assert_eq!(loader.http_linker.get().is_some(), http, "wasi:http is linked only for a plugin that imports it");
}

/// Compiled code is kept per engine: two engines with different settings load the same bytes
/// and each runs them (code compiled for one engine is never handed to the other), and the
/// code goes when the last plugin holding it does.
#[tokio::test]
async fn code_is_shared_per_engine_and_freed_with_its_last_plugin() {
    let (bytes, digest) = crate::builtin::get("guard-destructive").unwrap();
    let limits = Limits { timeout: std::time::Duration::from_secs(5), fuel: 100_000_000, memory_bytes: 64 << 20 };
    let rm = || wit::Call::new(&HookEvent::pre_tool_use("bash", serde_json::json!({"command": "rm -rf /"})), "user:h", "{}", 0);
    let pooled = Engine::new().unwrap();
    let on_demand = Engine::one_shot().unwrap();
    let mut plugins = Vec::new();
    for engine in [&pooled, &on_demand, &pooled] {
        let loader = Loader::new(engine, None).unwrap();
        let plugin = loader.load("user:h", PluginSource { name: "builtin:guard-destructive".into(), bytes: bytes.into(), digest: Some(digest.into()) }).unwrap();
        let decision = plugin.handle("user:h", rm(), &limits, &Access::default(), None).await.0.unwrap();
        assert_eq!(decision.verdict.kind, hookhost_types::VerdictKind::Block, "{decision:?}");
        plugins.push(plugin);
    }
    assert_eq!((engine::loaded_on(pooled.wasmtime()), engine::loaded_on(on_demand.wasmtime())), (1, 1), "one copy per engine, shared by its plugins");
    plugins.pop();
    plugins.remove(0);
    assert_eq!(engine::loaded_on(pooled.wasmtime()), 0, "no plugin of the pooled engine holds the code: it is freed");
    assert_eq!(engine::loaded_on(on_demand.wasmtime()), 1);
    drop(plugins);
    assert_eq!(engine::loaded_on(on_demand.wasmtime()), 0);
}

/// The grant is checked again when the guest calls `process.run`: the bash adapter asked to
/// run a host process by a hook that was not granted `process:exec` gets a refusal, and no
/// process starts.
#[tokio::test]
async fn process_run_rechecks_the_grant() {
    let (bytes, digest) = crate::builtin::get("bash-adapter").unwrap();
    // The user's cache, shared with the other tests that load the adapter (a compile is slow).
    let loader = Loader::new(&Engine::shared().unwrap(), hookhost_types::paths::cache_dir(None)).unwrap();
    let source = PluginSource { name: "builtin:bash-adapter".into(), bytes: bytes.into(), digest: Some(digest.into()) };
    let plugin = loader.load("user:h", source).unwrap();
    assert!(plugin.process_import().is_some());
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let settings = serde_json::json!({"mode": "host", "dialect": "claude-code", "argv": ["touch", marker.display().to_string()]}).to_string();
    let limits = Limits { timeout: std::time::Duration::from_secs(5), fuel: 1_000_000_000, memory_bytes: 128 << 20 };
    let run = |granted: bool| {
        let call = wit::Call::new(&HookEvent::pre_tool_use("bash", serde_json::json!({"command": "ls"})), "user:h", &settings, 0);
        let plugin = &plugin;
        async move { plugin.handle("user:h", call, &limits, &Access { process: granted, read_dir: None, net: Default::default() }, None).await.0 }
    };
    let refused = match run(false).await {
        Err(HookError::Guest(message)) => message,
        other => panic!("the adapter reports the refusal as its error, got {other:?}"),
    };
    assert!(refused.contains("user:h: the process:exec capability is not granted to this hook"), "{refused}");
    assert!(!marker.exists(), "no process ran");
    // The same call with the grant runs the process.
    run(true).await.unwrap();
    assert!(marker.exists());
}
