//! Bad plugins fail the whole load with one message naming the hook, the plugin and the fix.

use hookhost::LoadError;
use hookhost_tests::{fixtures, try_host};

fn with_plugin(path: &str) -> String {
    format!("[[hooks]]\nid = \"h\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = {path:?} }}\n")
}

async fn load_error(path: &str) -> String {
    match try_host(&with_plugin(path)).await {
        Ok(_) => panic!("{path} loaded"),
        Err(e) => e.to_string(),
    }
}

#[tokio::test]
async fn a_component_of_the_wrong_world_names_what_it_exports() {
    let err = try_host(&with_plugin(fixtures::WRONG_WORLD)).await.err().unwrap();
    assert!(matches!(err, LoadError::WrongWorld { .. }));
    let text = err.to_string();
    assert!(text.starts_with(&format!("user:h: plugin {} does not export hookhost:hooks/handler@0.1.0, @0.2.0 or @0.3.0; it exports [wasi:cli/run@0.2.", fixtures::WRONG_WORLD)), "{text}");
    assert!(text.ends_with("Build it against the `hook` world of the hook contract (`hookhost wit` writes it; in Rust: hookhost-sdk's export_hook!)"), "{text}");
}

#[tokio::test]
async fn a_missing_plugin_file_is_named() {
    let text = load_error("/nonexistent/guard.wasm").await;
    assert_eq!(text, "user:h: plugin file /nonexistent/guard.wasm does not exist; check executor.plugin (relative paths are resolved from the config file's directory)");
}

#[tokio::test]
async fn garbage_and_core_modules_are_not_components() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.wasm");
    std::fs::write(&garbage, b"#!/bin/sh\necho not wasm\n").unwrap();
    let text = load_error(garbage.to_str().unwrap()).await;
    assert_eq!(text, format!("user:h: plugin {} is not a WebAssembly component: the file does not start with the wasm magic bytes; point executor.plugin at a .wasm component built for wasm32-wasip2", garbage.display()));

    let core = dir.path().join("core.wasm");
    std::fs::write(&core, b"\0asm\x01\0\0\0").unwrap();
    let text = load_error(core.to_str().unwrap()).await;
    assert!(text.contains("is not a WebAssembly component: it is a core wasm module; build for wasm32-wasip2"), "{text}");

    let truncated = dir.path().join("truncated.wasm");
    let bytes = std::fs::read(fixtures::SCRIPTED).unwrap();
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    let text = load_error(truncated.to_str().unwrap()).await;
    assert!(text.contains("is not a WebAssembly component: it does not validate ("), "{text}");
    assert!(text.ends_with("rebuild the plugin; the file may be truncated or corrupted"), "{text}");
}

#[tokio::test]
async fn settings_are_validated_by_the_plugin_at_load() {
    let config = format!("[[hooks]]\nid = \"s\"\nevent = \"stop\"\nexecutor = {{ plugin = {:?}, settings = {{ verdict = \"maybe\" }} }}\n", fixtures::SCRIPTED);
    let text = try_host(&config).await.err().unwrap().to_string();
    assert_eq!(text, format!("user:s: plugin {} rejected its settings: settings.verdict \"maybe\" is not one of pass, allow, ask, block, halt; fix executor.settings", fixtures::SCRIPTED));

    let builtin = "[[hooks]]\nid = \"g\"\nevent = \"pre_tool_use\"\nexecutor = { plugin = \"builtin:guard-destructive\", settings = { strict = true } }\n";
    let text = try_host(builtin).await.err().unwrap().to_string();
    assert_eq!(text, "user:g: plugin builtin:guard-destructive rejected its settings: unknown setting \"strict\"; known settings are packs, allow, strict_rm, protect_hooks, remember, loop_after, user_message; fix executor.settings");
}

#[tokio::test]
async fn a_plugin_importing_process_needs_the_grant() {
    let hook = format!("[[hooks]]\nid = \"p\"\nevent = \"session_start\"\nexecutor = {{ plugin = {:?} }}\n", fixtures::PROCESS_USER);
    let text = try_host(&hook).await.err().unwrap().to_string();
    assert_eq!(
        text,
        format!(
            "user:p: plugin {0} needs the capability process:exec (it imports hookhost:hooks/process@0.3.0), which is not granted; if you trust it, add `[grants]` \"{0}\" = [\"process:exec\"]` to the config",
            fixtures::PROCESS_USER
        )
    );
    let granted = format!("[grants]\n{:?} = [\"process:exec\"]\n{hook}", fixtures::PROCESS_USER);
    let out = try_host(&granted).await.unwrap().dispatch(&hookhost_tests::event(serde_json::json!({"event": "session_start"}))).await;
    assert_eq!(out.hooks[0].error, None);
    assert_eq!(serde_json::to_value(&out.effects).unwrap(), serde_json::json!([{"type": "add_context", "text": "from the host"}]));
}

/// A plugin that cannot even be instantiated is refused at load (its `validate-settings` call is
/// the first instantiation), within its limits, and no host exists afterwards.
async fn refused_in_bounded_time(path: &str) -> LoadError {
    let started = std::time::Instant::now();
    let toml = format!("[[hooks]]\nid = \"h\"\nevent = \"pre_tool_use\"\ntimeout_ms = 500\nexecutor = {{ plugin = {path:?}, memory_mib = 64 }}\n");
    let err = try_host(&toml).await.err().unwrap_or_else(|| panic!("{path} loaded"));
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "took {:?}", started.elapsed());
    err
}

#[tokio::test]
async fn a_plugin_that_loops_while_instantiating_is_refused_at_load() {
    let err = refused_in_bounded_time(fixtures::START_LOOP).await;
    let text = err.to_string();
    let prefix = format!("user:h: plugin {} failed while checking its settings: ", fixtures::START_LOOP);
    assert!(text.starts_with(&prefix), "{text}");
    let cause = &text[prefix.len()..];
    assert!(
        cause == hookhost::HookError::OutOfFuel(100_000_000).to_string() || cause == hookhost::HookError::Timeout(std::time::Duration::from_millis(500)).to_string(),
        "{cause}"
    );
}

#[tokio::test]
async fn a_plugin_declaring_a_huge_initial_memory_is_refused_at_load() {
    let err = refused_in_bounded_time(fixtures::BIG_MEMORY).await;
    assert_eq!(err.to_string(), format!("user:h: plugin {} failed while checking its settings: {}", fixtures::BIG_MEMORY, hookhost::HookError::MemoryLimit { limit: 64 << 20, wanted: 1 << 30 }));
    assert!(err.to_string().contains("it asked for 1024 MiB; if the hook needs that, raise its `memory_mib` to at least 1024"), "{err}");
}

#[tokio::test]
async fn a_plugin_for_an_unknown_wit_version_says_which_versions() {
    let err = try_host(&with_plugin(fixtures::FUTURE_WIT)).await.err().unwrap();
    assert!(matches!(err, LoadError::WitVersion { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("user:h: plugin {} was built for hookhost:hooks@0.9.0, a version of the hook contract this hookhost does not serve (it serves hookhost:hooks@0.1.0, hookhost:hooks@0.2.0 and hookhost:hooks@0.3.0); run a hookhost that serves hookhost:hooks@0.9.0, or rebuild the plugin against one it serves (`hookhost wit`)", fixtures::FUTURE_WIT)
    );
}

/// Closed imports: a well-formed hook that also imports an interface hookhost does not provide
/// is refused at load, naming the import.
#[tokio::test]
async fn an_import_hookhost_does_not_provide_is_refused() {
    // Its own cache: a refused plugin must never have been compiled into it.
    let cache = tempfile::tempdir().unwrap();
    let toml = format!("[[hooks]]\nid = \"h\"\nevent = \"pre_tool_use\"\nexecutor = {{ plugin = \"{}\" }}\n", fixtures::FOREIGN_IMPORT);
    let config = hookhost_tests::config(&toml, std::path::Path::new("."));
    let err = hookhost::Host::builder().config(config).cache_dir(Some(cache.path().to_path_buf())).build().await.err().expect("refused");
    assert_eq!(
        err.to_string(),
        format!(
            "user:h: plugin {} imports acme:probe/telemetry, which hookhost cannot link (hookhost does not provide it); hookhost provides WASI 0.2 (wasi:cli, wasi:clocks, wasi:filesystem, wasi:io, wasi:random, wasi:sockets and wasi:http, each deny-by-default) and hookhost:hooks/log, types and process at 0.1.0, 0.2.0 and 0.3.0, and state at 0.3.0; build the hook against the `hook` world of hookhost's WIT (`hookhost wit DIR` writes it): Rust, drop the binding or crate that pulls the import in; componentize-py, pass `-w hook`; componentize-qjs or componentize-js, give `hook` as the world; C, generate with `wit-bindgen c` for the `hook` world",
            fixtures::FOREIGN_IMPORT
        )
    );
    // Read from its import section before compiling: nothing was compiled or cached.
    let compiled: Vec<_> = std::fs::read_dir(cache.path()).map(|d| d.flatten().map(|e| e.file_name()).filter(|n| n.to_string_lossy().ends_with(".cwasm")).collect()).unwrap_or_default();
    assert!(compiled.is_empty(), "a refused plugin was compiled: {compiled:?}");
}
