//! The native configuration (TOML, or the same schema as JSON): hooks mapping 1:1 onto
//! Everruns' `UserHookSpec`, an executor naming a wasm plugin and its settings, and host limits.
//!
//! Parsing is strict (unknown fields are errors) and validation collects every problem before
//! failing, so a config is either loaded whole or not at all.

#![deny(missing_docs)]

pub use hookhost_types::Problem;
use hookhost_types::spec::DEFAULT_STOP_LOOP_CAP;
use serde_json::Value;
use std::path::{Path, PathBuf};

pub use peer::Options as PeerOptions;
pub use bundles::{is_loopback, BundleDecl, OciLocation, RawKey, RawRegistry, RawTrust, Registry, SigningRules, TrustConfig, TrustKey};
pub use hookhost_types::spec::{AuditFailure, Capability, Grants, HookSpec, Limits, Mode, OnError, PluginRef, DEFAULT_FUEL, DEFAULT_MEMORY_MIB, DEFAULT_TIMEOUT_MS, MAX_MEMORY_MIB, TIMEOUT_RANGE_MS};
pub use plan::{BundlePlugin, Plan};
pub use policy::{CapabilityPattern, MaxLimits, Policy, RawMaxLimits, RawPolicy};
pub use layers::{Layer, LayerKind, LayerOptions, Layers, ProjectFallback};
pub use raw::*;
pub use settings::{HostSettings, Setting};

/// A validated configuration file: what it asks for, never changed after validation.
/// Bundles are named here; [`Plan`] is what a host loads once they are resolved.
#[derive(Debug, Clone, Default)]
pub struct ConfigFile {
    /// The file it came from, for messages (`<embedded default config>` for the default).
    pub source: PathBuf,
    /// Its hooks in chain order (bundles' hooks join when they resolve).
    pub hooks: Vec<HookSpec>,
    /// Audit log, cache, grants, stop-loop cap.
    pub settings: HostSettings,
    /// HookIds that were muted by `disabled_contributions`.
    pub muted: Vec<String>,
    /// `disabled_contributions` as written (bundle hooks are muted when bundles resolve).
    pub disabled_contributions: Vec<String>,
    /// Bundles to resolve, in order.
    pub bundles: Vec<BundleDecl>,
    /// Where bundles come from, by name (`local` always exists).
    pub registries: std::collections::BTreeMap<String, Registry>,
    /// Which keys are trusted to sign which bundles.
    pub trust: TrustConfig,
    /// Default limits of hooks (bundle hooks are validated with them).
    pub defaults: Limits,
    /// Peer hooks loaded but not run (`http`, `prompt`, `agent`), with why.
    pub not_run: Vec<NotRun>,
    /// What was ignored in peer files, one line each.
    pub warnings: Vec<String>,
    /// `[policy]`: what this file lets lower layers do.
    pub policy: Policy,
    /// Whether it wrote `[trust]` (a managed `[trust]` is a floor for lower layers).
    pub trust_written: bool,
    /// `builtin_hooks` as written.
    pub builtin_hooks: Option<bool>,
}

impl ConfigFile {
    /// The cache directory a host of this config uses: `$HOOKHOST_CACHE_DIR`, else
    /// `cache_dir`, else the user's cache directory.
    pub fn effective_cache_dir(&self) -> Option<PathBuf> {
        self.settings.effective_cache_dir()
    }

    /// Validate one hook spec contributed by a bundle (HookId `{prefix}:{name}`, plugins as
    /// the bundle names them); `None` with its problems pushed.
    /// `mode`: the bundle reference's. A hook is observed when the reference or the bundle's
    /// own manifest says so: a bundle cannot enforce what its consumer observes.
    pub fn validate_bundle_hook(&self, mut raw: RawHook, prefix: &str, index: usize, at: &str, mode: Mode, problems: &mut Vec<Problem>) -> Option<HookSpec> {
        let observed = mode == Mode::Observe || raw.mode == Some(Mode::Observe);
        raw.mode = Some(if observed { Mode::Observe } else { Mode::Enforce });
        validate::hook(raw, prefix, index, at, Path::new(""), self.defaults, mode, problems)
    }
}

/// The JSON Schema of the native config format (what `hookhost config schema` prints and
/// `docs/config.schema.json` holds).
pub fn schema() -> String {
    serde_json::to_string_pretty(&schemars::schema_for!(RawConfig)).expect("schemas serialise")
}

/// A config that failed to load: the file and every problem found, each naming its field.
#[derive(Debug, thiserror::Error)]
#[error("{}", render(file, problems))]
pub struct ConfigError {
    /// The config file.
    pub file: PathBuf,
    /// Every problem, each naming the field it is about.
    pub problems: Vec<Problem>,
    /// The file could not be read at all (missing, unreadable, not UTF-8 text): nothing of its
    /// contents was judged.
    pub unreadable: bool,
}

impl ConfigError {
    /// A file whose contents have these problems.
    pub fn new(file: PathBuf, problems: Vec<Problem>) -> ConfigError {
        ConfigError { file, problems, unreadable: false }
    }
}

fn render(file: &Path, problems: &[Problem]) -> String {
    match problems {
        [one] => format!("{}: {one}", file.display()),
        many => {
            format!("{}: {} problems:{}", file.display(), many.len(), hookhost_types::problem::bulleted(many))
        }
    }
}

/// The configuration used when none is given: both built-in plugins on their natural events.
pub const EMBEDDED_DEFAULT: &str = include_str!("default.toml");

impl ConfigFile {
    /// Read and validate a config file (`.json` is parsed as JSON, anything else as TOML).
    pub fn load(path: &Path) -> Result<ConfigFile, ConfigError> {
        Self::load_as(path, None)
    }

    /// The embedded default configuration.
    pub fn embedded_default() -> ConfigFile {
        Self::parse(EMBEDDED_DEFAULT, Path::new("<embedded default config>"), Path::new("."))
            .expect("the embedded default config is valid (tested)")
    }

    /// Parse and validate config text, detecting its format from the extension and contents.
    /// `base` resolves relative plugin and audit paths.
    pub fn parse(text: &str, file: &Path, base: &Path) -> Result<ConfigFile, ConfigError> {
        Self::parse_as(text, file, base, None)
    }

    /// Like [`ConfigFile::parse`], with the format forced instead of detected.
    pub fn parse_as(text: &str, file: &Path, base: &Path, format: Option<peer::Format>) -> Result<ConfigFile, ConfigError> {
        let mut raw = Self::raw(text, file, format)?;
        if !raw.peers.is_empty() {
            peer::include(&mut raw, base).map_err(|problems| ConfigError::new(file.to_path_buf(), problems))?;
        }
        raw.validate(base).map(|mut c| {
            c.source = file.to_path_buf();
            c
        })
        .map_err(|problems| ConfigError::new(file.to_path_buf(), problems))
    }

    /// Read and validate a config file with its format forced.
    pub fn load_as(path: &Path, format: Option<peer::Format>) -> Result<ConfigFile, ConfigError> {
        let text = read_text(path).map_err(|e| ConfigError { file: path.to_path_buf(), problems: vec![Problem::file(format!("cannot read the config file ({e}); check its path"))], unreadable: true })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Self::parse_as(&text, path, &base, format)
    }

    /// Parse text into the native form, whatever its format.
    fn raw(text: &str, file: &Path, format: Option<peer::Format>) -> Result<RawConfig, ConfigError> {
        Self::raw_with(text, file, format, &peer::Options::for_file(file)).map(|p| p.raw)
    }

    /// Parse text into the native form, converting a peer file with `opts`.
    pub(crate) fn raw_with(text: &str, file: &Path, format: Option<peer::Format>, opts: &peer::Options) -> Result<Parsed, ConfigError> {
        let fail = |problems| ConfigError::new(file.to_path_buf(), problems);
        let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
        let yaml = matches!(ext, "yaml" | "yml") || matches!(format, Some(peer::Format::Peer(hookhost_types::Runtime::DockerAgent | hookhost_types::Runtime::Starchild)));
        if !yaml && (ext != "json" && format.is_none_or(|f| f == peer::Format::Native)) {
            let raw = toml::from_str(text).map_err(|e| fail(vec![Problem::file(toml_problem(&e, text))]))?;
            return Ok(Parsed { format: peer::Format::Native, raw });
        }
        let doc: Value = if yaml {
            serde_norway::from_str(text).map_err(|e| fail(vec![Problem::file(format!("invalid YAML: {e}"))]))?
        } else {
            json::parse_strict(text).map_err(|e| fail(vec![Problem::file(format!("invalid JSON: {e}"))]))?
        };
        let format = match format.or_else(|| peer::format_of_path(file)) {
            Some(f) => f,
            None => peer::detect(&doc, yaml).map_err(|e| fail(vec![Problem::file(e)]))?,
        };
        let raw = match format {
            peer::Format::Native => serde_json::from_value(doc).map_err(|e| fail(vec![Problem::file(format!("invalid config: {e}"))]))?,
            peer => peer::convert(peer, doc, opts).map_err(fail)?,
        };
        Ok(Parsed { format, raw })
    }
}

/// A config file parsed into the native form, and the format it was written in.
pub(crate) struct Parsed {
    pub(crate) format: peer::Format,
    pub(crate) raw: RawConfig,
}

/// The largest config file hookhost reads (a peer's settings.json included).
pub const MAX_CONFIG_BYTES: u64 = 4 << 20;

/// A config file's text: a regular file of at most [`MAX_CONFIG_BYTES`] (a device or a pipe
/// named by mistake is refused rather than read forever).
pub(crate) fn read_text(path: &Path) -> std::io::Result<String> {
    use hookhost_types::owner::{read_regular, ReadError};
    use std::io::{Error, ErrorKind};
    let over = |n: String| Error::new(ErrorKind::InvalidData, format!("{n}, over the {} MiB a config may hold", MAX_CONFIG_BYTES >> 20));
    let bytes = read_regular(path, MAX_CONFIG_BYTES, true).map_err(|e| match e {
        ReadError::Io(e) => e,
        ReadError::NotRegular => Error::new(ErrorKind::InvalidInput, "not a regular file"),
        ReadError::TooLarge(Some(n)) => over(format!("{n} bytes")),
        ReadError::TooLarge(None) => over("more bytes".into()),
    })?;
    String::from_utf8(bytes).map_err(|e| Error::new(ErrorKind::InvalidData, e))
}

/// One line for a TOML error: the message with its line and column.
fn toml_problem(e: &toml::de::Error, text: &str) -> String {
    let msg = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let before = &text[..span.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("line {line}, column {col}: {msg}")
        }
        None => format!("invalid config: {msg}"),
    }
}

mod bundles;
mod json;
mod raw;
mod settings;
pub mod layers;
pub mod policy;
pub mod project;
pub mod peer;
pub mod plan;
mod validate;

#[cfg(test)]
mod tests;
