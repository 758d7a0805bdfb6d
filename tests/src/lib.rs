//! Helpers for the integration tests: fixture paths, config builders, events.

#![deny(missing_docs)]

use hookhost::{ConfigFile, Host, HookEvent, LoadError};
use serde_json::Value;
use std::path::Path;

pub mod soak;

/// Deterministic mutations of inputs (the fuzz targets' smoke runs, the CLI's property tests):
/// a failure reproduces.
pub mod mutate {
    /// xorshift64: deterministic, so a failure reproduces.
    pub struct Rng(pub u64);

    impl Rng {
        /// The next number.
        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        /// A number below `n` (0 when `n` is 0).
        pub fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    /// One mutation of `seed`: flip, insert or delete bytes, splice in a JSON/TOML token, or cut.
    pub fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
        const TOKENS: &[&[u8]] = &[b"{", b"}", b"[", b"]", b"\"", b"\\u0000", b"null", b"1e999", b"-0", b"=", b"\n[[hooks]]\n", b":", b",", b"\xff", b"\x00", b"'''"];
        let mut v = seed.to_vec();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(v.len() + 1);
            match rng.below(5) {
                0 if !v.is_empty() => {
                    let i = at.min(v.len() - 1);
                    v[i] ^= 1 << rng.below(8);
                }
                1 => v.insert(at, rng.next() as u8),
                2 if at < v.len() => {
                    let end = (at + 1 + rng.below(16)).min(v.len());
                    v.drain(at..end);
                }
                3 => {
                    let token = TOKENS[rng.below(TOKENS.len())];
                    v.splice(at..at, token.iter().copied());
                }
                _ => v.truncate(at),
            }
        }
        v
    }
}

/// Paths of the test guests, built from tests/guests by build.rs.
pub mod fixtures {
    include!(concat!(env!("OUT_DIR"), "/fixtures.rs"));
}

/// Parse a TOML config whose relative paths resolve against `base`, with the test cache.
pub fn config(toml: &str, base: &Path) -> ConfigFile {
    let text = format!("cache_dir = {:?}\n{toml}", fixtures::CACHE_DIR);
    ConfigFile::parse(&text, Path::new("test.toml"), base).unwrap_or_else(|e| panic!("test config invalid: {e}"))
}

/// Load a host from TOML.
pub async fn host(toml: &str) -> Host {
    try_host(toml).await.unwrap_or_else(|e| panic!("host failed to load: {e}"))
}

/// Load a host from TOML, returning the load error. Hooks' session state (the built-in
/// guard's, write-then-run) is kept in memory: a test never touches the user's store.
pub async fn try_host(toml: &str) -> Result<Host, LoadError> {
    Host::builder().config(config(toml, Path::new("."))).state_store(hookhost::kv::StateStore::in_memory(Default::default())).build().await
}

/// Fill `dir`, a test's own precompile cache, with the built-in plugins' compiled code: copies
/// of a cache compiled once (`target/test-guests/warm-cache`, shared by every test process). A
/// debug build embeds no precompiled code, so without this each test that gives hookhost a
/// fresh cache and runs the bash adapter compiles its 13 MB first (~15 s on 2 cores). The copies
/// are sealed under the template's key, which is copied with them.
/// Returns the names of the files it copied.
pub fn warm_cache(dir: &Path) -> Vec<std::ffi::OsString> {
    use std::os::unix::fs::DirBuilderExt;
    static TEMPLATE: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let template = TEMPLATE.get_or_init(|| {
        let template = Path::new(fixtures::CACHE_DIR).with_file_name("warm-cache");
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&template).unwrap();
        let engine = hookhost::Engine::shared().unwrap();
        for name in hookhost::builtin_plugins() {
            engine.precompile(name, hookhost::builtin_plugin(name).unwrap(), &template).unwrap_or_else(|e| panic!("warming the test cache with {name}: {e}"));
        }
        template
    });
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).unwrap();
    let mut copied = Vec::new();
    for entry in std::fs::read_dir(template).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
            copied.push(entry.file_name());
        }
    }
    copied
}

/// A session id no other test or earlier run shares: stop-loop counts persist in the cache
/// directory across processes, so fixed ids would carry counts from one run into the next.
pub fn fresh_session(tag: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    format!("{tag}-{}-{nanos}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed))
}

/// A `pre_tool_use` event for the `bash` tool with this command.
pub fn bash(command: &str) -> HookEvent {
    HookEvent::pre_tool_use("bash", serde_json::json!({ "command": command }))
}

/// An event from its canonical JSON.
pub fn event(v: Value) -> HookEvent {
    HookEvent::from_value(v).expect("valid test event")
}

/// Whether this is a CI run: `CI` set to anything but empty, `false` or `0` (CI services set
/// `true`, `1` or their own name). There, a missing tool fails a test instead of skipping it.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "false" | "0"))
}

/// Whether a host tool is on PATH. When it is missing the calling test returns early —
/// except under `CI=true`, where a missing tool fails the test instead of skipping it.
pub fn have(tool: &str) -> bool {
    let found = std::process::Command::new("sh").arg("-c").arg(format!("command -v {tool}")).output().map(|o| o.status.success()).unwrap_or(false);
    if !found {
        assert!(!in_ci(), "{tool} is required in CI (.ci/run installs it)");
        eprintln!("SKIPPED: {tool} is not installed");
    }
    found
}

/// A TOML hook running a shell script through the built-in bash adapter.
pub fn shell_hook(id: &str, event: &str, extra: &str, settings: &[(&str, &str)]) -> String {
    let settings: Vec<String> = settings.iter().map(|(k, v)| format!("{k} = {}", toml_string(v))).collect();
    format!(
        "[[hooks]]\nid = \"{id}\"\nevent = \"{event}\"\n{extra}\nexecutor = {{ plugin = \"builtin:bash-adapter\", settings = {{ {} }} }}\n",
        settings.join(", ")
    )
}

/// A TOML basic string (escapes quotes, backslashes and newlines).
pub fn toml_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n"))
}

/// The grant that lets the bash adapter run host processes.
pub const GRANT_PROCESS: &str = "[grants]\n\"builtin:bash-adapter\" = [\"process:exec\"]\n";

/// Log output captured from a plain `tracing` fmt layer (no colours), as a user would see it.
#[derive(Clone, Default)]
pub struct LogBuffer(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl LogBuffer {
    /// Everything logged so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

impl std::io::Write for LogBuffer {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Capture this thread's log output until the guard drops (use a current-thread runtime).
pub fn capture_logs() -> (LogBuffer, tracing::subscriber::DefaultGuard) {
    use tracing_subscriber::layer::SubscriberExt;
    let buffer = LogBuffer::default();
    let writer = buffer.clone();
    let layer = tracing_subscriber::fmt::layer().with_ansi(false).with_writer(move || writer.clone());
    (buffer, tracing::subscriber::set_default(tracing_subscriber::registry().with(layer)))
}
