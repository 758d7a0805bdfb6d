//! The bodies of the fuzz targets (`fuzz/`), here so the test suite can run them over the
//! corpora too (`tests/tests/it/fuzz_smoke.rs`). Not a stable API. Each must never panic, whatever
//! the bytes.

use crate::peer::Format;
use crate::{ConfigFile as Config, HookEvent};
use std::path::Path;

/// Config text in every format: native TOML and JSON, each peer format forced, and detection.
pub fn config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let base = Path::new("/nonexistent/fuzz");
    let _ = Config::parse(text, Path::new("hooks.toml"), base);
    let _ = Config::parse(text, Path::new("hooks.json"), base);
    for (format, file) in [
        (Format::Native, "hooks.toml"),
        (Format::Peer(hookhost_types::Runtime::Everruns), "hooks.json"),
        (Format::Peer(hookhost_types::Runtime::DockerAgent), "agent.yaml"),
        (Format::Peer(hookhost_types::Runtime::ClaudeCode), "settings.json"),
        (Format::Peer(hookhost_types::Runtime::Starchild), "hooks.yaml"),
    ] {
        let _ = Config::parse_as(text, Path::new(file), base, Some(format));
    }
    for file in ["settings.json", "agent.yaml", "hooks.yml"] {
        let _ = Config::parse_as(text, Path::new(file), base, None);
    }
}

/// Event JSON: parsing never panics, and normalisation is idempotent (an event's canonical
/// form parses back to the same canonical form).
pub fn event(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(event) = HookEvent::from_json(text) else { return };
    let canonical = event.to_value();
    let again = HookEvent::from_value(canonical.clone()).unwrap_or_else(|e| panic!("canonical form {canonical} does not parse: {e}"));
    assert_eq!(again.to_value(), canonical, "normalisation is not idempotent");
    // What a hook would be handed.
    let _ = crate::wit::Call::new(&event, "user:fuzz", "{}", 0);
}

/// Bundle bytes as an archive, a manifest, an OCI manifest and a signature: never a panic, and
/// an archive that is accepted round-trips (re-packing gives the same parts, and so does the
/// OCI artifact made from it).
pub fn bundle(data: &[u8]) {
    use hookhost_bundle::{read_archive, store, trust, Bundle, Manifest};
    if let Ok(parts) = read_archive(data, "fuzz.hhb") {
        if let Ok(b) = Bundle::from_parts(parts, "fuzz.hhb") {
            let again = read_archive(&b.archive(), "repacked").unwrap_or_else(|e| panic!("a re-packed bundle does not read back: {e}"));
            assert_eq!(again, b.parts, "re-packing changed the bundle");
            let artifact = store::Artifact::of(&b, &[]);
            let (from_oci, sigs) = store::open_artifact(&artifact, "artifact").unwrap_or_else(|e| panic!("a bundle's own artifact does not open: {e}"));
            assert_eq!(from_oci.parts, b.parts, "the OCI artifact changed the bundle");
            assert!(sigs.is_empty());
            let _ = trust::Policy::default().check(&b, &[String::from_utf8_lossy(data).into_owned()], "fuzz");
        }
    }
    let _ = Manifest::parse(data, "fuzz manifest");
    if let Ok(layout) = store::Layout::parse(data, "fuzz oci manifest") {
        let _ = layout.assemble(&Default::default(), "fuzz");
    }
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = trust::signature_key_id(text);
        let _ = trust::parse_public_key(text);
        let _ = text.parse::<hookhost_types::BundleRef>();
    }
}
