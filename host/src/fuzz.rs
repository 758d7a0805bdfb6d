//! The bodies of the fuzz targets (`fuzz/`), here so the test suite can run them over the
//! corpora too (`tests/tests/fuzz_smoke.rs`). Not a stable API. Each must never panic, whatever
//! the bytes.

use crate::config::peer::Format;
use crate::{Config, HookEvent};
use std::path::Path;

/// Config text in every format: native TOML and JSON, each peer format forced, and detection.
pub fn config(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let base = Path::new("/nonexistent/fuzz");
    let _ = Config::parse(text, Path::new("hooks.toml"), base);
    let _ = Config::parse(text, Path::new("hooks.json"), base);
    for (format, file) in [
        (Format::Native, "hooks.toml"),
        (Format::Everruns, "hooks.json"),
        (Format::DockerAgent, "agent.yaml"),
        (Format::ClaudeCode, "settings.json"),
        (Format::Starchild, "hooks.yaml"),
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
    let _ = crate::wit::to_wit(&event, "user:fuzz", "{}", 0);
}
