//! The code a release build embeds for the built-ins — this tool's `compile` output — is code
//! hookhost's engine takes as it is: a first use with an empty cache maps it (no compile) and
//! seals it into the cache, the next use maps the cache's entry. Debug and test builds embed
//! no code (they skip the second, compile-only wasmtime build), so this test compiles the
//! built-ins with the tool as the release build does and embeds the result in this process.

use hookhost::CodeSource;
use std::process::Command;

#[test]
fn the_tools_code_for_every_builtin_loads_without_compiling() {
    let dir = tempfile::tempdir().unwrap();
    let mut tool = Command::new(env!("CARGO_BIN_EXE_hookhost-precompile"));
    tool.arg("compile").arg(dir.path());
    let names: Vec<&str> = hookhost::builtin_plugins().collect();
    for name in &names {
        let bytes = hookhost::builtin_plugin(name).unwrap();
        let file = dir.path().join(format!("{name}.wasm"));
        std::fs::write(&file, bytes).unwrap();
        tool.arg(format!("{name}={}", file.display()));
    }
    let out = tool.output().unwrap();
    assert!(out.status.success(), "hookhost-precompile compile: {}", String::from_utf8_lossy(&out.stderr));
    for name in &names {
        let digest = hookhost::types::ids::sha256_hex(hookhost::builtin_plugin(name).unwrap());
        hookhost::perf::embed_for_test(&digest, std::fs::read(dir.path().join(format!("{name}.cwasm.zst"))).unwrap());
    }
    let cache = dir.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    for name in &names {
        let (_, source) = hookhost::perf::load_builtin(name, Some(&cache)).unwrap();
        assert_eq!(source, CodeSource::Builtin, "{name}: the embedded code was not used");
        let (_, source) = hookhost::perf::load_builtin(name, Some(&cache)).unwrap();
        assert_eq!(source, CodeSource::Cache, "{name}: the second use maps the cache entry the first wrote");
    }
    // And without a cache, in memory.
    for name in &names {
        let (_, source) = hookhost::perf::load_builtin(name, None).unwrap();
        assert_eq!(source, CodeSource::Builtin, "{name}: in memory");
    }
}
