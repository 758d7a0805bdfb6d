//! Bundles through the library: a bundle's plugin gets a capability only when its manifest
//! declares it and the host grants it to that bundle's plugin; refused loads compile nothing.

use hookhost::bundle::store::{Artifact, Store};
use hookhost::bundle::{self, trust};
use hookhost::{ConfigFile, Host, LoadError};
use hookhost_tests::fixtures;
use std::path::Path;

/// A signed bundle `acme/echo@1.0.0` whose plugin imports `process` (declaring `process:exec`
/// when `declare`), pushed to a directory registry; returns the trust section for its key.
fn publish(dir: &Path, declare: bool) -> String {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::copy(fixtures::PROCESS_USER, src.join("echo.wasm")).unwrap();
    let caps = if declare { "capabilities = [\"process:exec\"]\n" } else { "" };
    std::fs::write(
        src.join("bundle.toml"),
        format!("name = \"acme/echo\"\nversion = \"1.0.0\"\n\n[[plugins]]\nfile = \"echo.wasm\"\n{caps}\n[[hooks]]\nid = \"echo\"\nevent = \"session_start\"\nexecutor = {{ plugin = \"echo.wasm\" }}\n"),
    )
    .unwrap();
    let b = bundle::pack(&src).unwrap();
    let (secret, public, _) = trust::generate_key("test").unwrap();
    let (sig, _) = trust::sign(&b, &secret, None).unwrap();
    Store::new(dir.join("reg")).put(&Artifact::of(&b, &[sig]), Some("acme/echo:1.0.0")).unwrap();
    format!("[[trust.keys]]\npublic_key = {:?}\nallow = [\"acme/*\"]\n", public.lines().nth(1).unwrap())
}

fn config(dir: &Path, trust: &str, grants: &str) -> ConfigFile {
    let cache = dir.join("cache");
    let text = format!("cache_dir = {:?}\nbundles = [\"local/acme/echo@1.0.0\"]\n[registries.local]\npath = \"reg\"\n{trust}{grants}", cache);
    ConfigFile::parse(&text, &dir.join("hooks.toml"), dir).unwrap()
}

async fn load(dir: &Path, trust: &str, grants: &str) -> Result<Host, LoadError> {
    Host::from_config(config(dir, trust, grants)).await
}

/// Whether the cache the host really uses (`$HOOKHOST_CACHE_DIR` wins over the config, so a
/// check of the config's directory alone could pass vacuously) holds compiled code of the
/// bundle's plugin.
fn compiled(config: &ConfigFile) -> bool {
    use sha2::Digest;
    let digest: String = sha2::Sha256::digest(std::fs::read(fixtures::PROCESS_USER).unwrap()).iter().map(|b| format!("{b:02x}")).collect();
    let cache = config.effective_cache_dir().expect("a cache directory");
    std::fs::read_dir(&cache).map(|d| d.flatten().any(|e| e.file_name().to_string_lossy().starts_with(&digest))).unwrap_or(false)
}

const GRANT: &str = "[grants]\n\"acme/echo:echo.wasm\" = [\"process:exec\"]\n";

#[tokio::test]
async fn declared_and_granted_runs_a_process() {
    let dir = tempfile::tempdir().unwrap();
    let trust = publish(dir.path(), true);
    let host = load(dir.path(), &trust, GRANT).await.unwrap_or_else(|e| panic!("{e}"));
    let ev = hookhost_tests::event(serde_json::json!({"event": "session_start", "session_id": "s"}));
    let out = host.dispatch(&ev).await;
    assert_eq!(out.hooks[0].id, "acme/echo:echo");
    assert_eq!(out.hooks[0].error, None, "{out:?}");
    assert!(serde_json::to_string(&out.effects).unwrap().contains("from the host"), "{out:?}");
}

#[tokio::test]
async fn declared_but_not_granted_is_refused_and_nothing_is_compiled() {
    let dir = tempfile::tempdir().unwrap();
    let trust = publish(dir.path(), true);
    // A grant for another plugin name does not count.
    let grants = "[grants]\n\"acme/other:echo.wasm\" = [\"process:exec\"]\n";
    let err = load(dir.path(), &trust, grants).await.err().expect("refused");
    assert!(matches!(err, LoadError::CapabilityNotGranted { .. }), "{err}");
    assert!(err.to_string().starts_with("acme/echo:echo: plugin acme/echo:echo.wasm needs the capability process:exec"), "{err}");
    assert!(!compiled(&config(dir.path(), &trust, grants)), "the refused plugin was compiled or cached");
}

#[tokio::test]
async fn a_grant_to_every_plugin_does_not_reach_a_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let trust = publish(dir.path(), true);
    let cache = dir.path().join("cache");
    let text = format!("cache_dir = {:?}\nbundles = [\"local/acme/echo@1.0.0\"]\n[registries.local]\npath = \"reg\"\n{trust}", cache);
    let config = ConfigFile::parse(&text, &dir.path().join("hooks.toml"), dir.path()).unwrap();
    let effective = config.clone();
    // What `--grant process:exec` does.
    let err = Host::builder().config(config).grant_all(hookhost::Capability::ProcessExec).build().await.err().expect("refused");
    assert!(matches!(err, LoadError::CapabilityNotGranted { .. }), "{err}");
    assert!(!err.to_string().contains("--grant"), "the message must not suggest what cannot work: {err}");
    assert!(!compiled(&effective), "the refused plugin was compiled or cached");
}

#[tokio::test]
async fn granted_but_not_declared_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let trust = publish(dir.path(), false);
    let err = load(dir.path(), &trust, GRANT).await.err().expect("refused");
    assert!(err.to_string().starts_with("acme/echo:echo: plugin acme/echo:echo.wasm needs the capability process:exec (it imports hookhost:hooks/process@0.3.0; a bundle's plugin holds it only when the bundle's manifest declares it (plugins[].capabilities) and the host grants it)"), "{err}");
    assert!(!compiled(&config(dir.path(), &trust, GRANT)), "an undeclared import is found before compiling");
}

#[tokio::test]
async fn an_untrusted_bundle_is_never_compiled() {
    let dir = tempfile::tempdir().unwrap();
    publish(dir.path(), true);
    let (_, other, _) = trust::generate_key("other").unwrap();
    let trust = format!("[[trust.keys]]\npublic_key = {:?}\nallow = [\"acme/*\"]\n", other.lines().nth(1).unwrap());
    let err = load(dir.path(), &trust, GRANT).await.err().expect("refused");
    assert!(matches!(err, LoadError::Bundle(_)), "{err}");
    assert!(err.to_string().contains("is signed only by key"), "{err}");
    assert!(!dir.path().join("cache").exists(), "nothing may be compiled or cached for a refused bundle");
    assert!(!compiled(&config(dir.path(), &trust, GRANT)), "nothing compiled in the cache the host really uses");
}
