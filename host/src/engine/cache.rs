//! The on-disk cache of precompiled components: entries keyed by content digest and engine
//! fingerprint, sealed with a per-user key (a MAC over the code and its stamp), loaded by mmap;
//! the built-ins' embedded code; and the notice a long compile gives.

use super::{engine_fingerprint, WasmEngine};
use crate::error::LoadError;
use sha2::Sha256;
use std::path::{Path, PathBuf};
use wasmtime::component::Component;

/// Why a cache directory cannot be trusted, if it cannot: it must be owned by the current
/// user and writable by nobody else, because what it holds is native code that runs in this
/// process. With `create`, a missing one is created (mode 0700); without, a missing one is
/// fine (nothing is in it).
pub fn check_cache_dir(dir: &Path, create: bool) -> Result<(), LoadError> {
    check_cache_dir_text(dir, create).map_err(|message| LoadError::Cache { dir: dir.to_path_buf(), message })
}

fn check_cache_dir_text(dir: &Path, create: bool) -> Result<(), String> {
    if !dir.exists() {
        if !create {
            return Ok(());
        }
        hookhost_types::owner::create_private_dir(dir)
            .map_err(|e| format!("cannot create the cache directory {}: {e}; set cache_dir or $HOOKHOST_CACHE_DIR to a directory you can write", dir.display()))?;
    }
    check_private(dir).map_err(|problem| {
        format!(
            "the cache directory {} {problem}; its precompiled code runs inside hookhost, so it must be yours and writable only by you: `chmod go-w {}` (and chown it to yourself), or set cache_dir / $HOOKHOST_CACHE_DIR to such a directory",
            dir.display(),
            dir.display()
        )
    })
}

use hookhost_types::owner::check_private;

/// The per-user key that authenticates cache entries (created 0600 beside them).
const KEY_FILE: &str = ".hookhost-cache-key";

type Mac = hmac::Hmac<Sha256>;

/// The cache directory's key, created on first use. It is written whole to a temporary file and
/// then linked into place, so a process racing to create it reads a complete key or none.
fn cache_key(dir: &Path) -> std::io::Result<[u8; 32]> {
    use std::io::{Read, Write};
    let path = dir.join(KEY_FILE);
    if !path.exists() {
        let mut key = [0u8; 32];
        getrandom::getrandom(&mut key).map_err(|e| std::io::Error::other(e.to_string()))?;
        // tempfile creates it 0600; on Windows it is given the user-only access list before the
        // key is written (not left to what the directory passes on).
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        hookhost_types::owner::make_private(tmp.path())?;
        tmp.write_all(&key)?;
        tmp.as_file().sync_all()?;
        match std::fs::hard_link(tmp.path(), &path) {
            Ok(()) => return Ok(key),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    let meta = std::fs::symlink_metadata(&path)?;
    let refused = if !meta.is_file() {
        Some("is not a regular file".to_string())
    } else if let Err(problem) = check_private(&path) {
        Some(problem)
    } else {
        (!hookhost_types::owner::owner_only(&path, &meta)).then(|| "is readable by others".to_string())
    };
    if let Some(why) = refused {
        return Err(std::io::Error::other(format!("the cache key {} {why}: it must be a file only you can read and write (mode 600; on Windows an access list of you alone); remove it and hookhost makes a new one", path.display())));
    }
    let mut key = [0u8; 32];
    std::fs::File::open(&path)?.read_exact(&mut key)?;
    Ok(key)
}

fn mac(key: &[u8; 32], parts: &[&[u8]]) -> Mac {
    use hmac::Mac as _;
    let mut mac = Mac::new_from_slice(key).expect("HMAC takes any key length");
    for part in parts {
        mac.update(&(part.len() as u64).to_le_bytes());
        mac.update(part);
    }
    mac
}

/// What a seal pins of an entry file: any change to the file (a write, a copy or rename over
/// it, restored times) changes its inode change time, which no user can set.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl Stamp {
    #[cfg(unix)]
    fn of(path: &Path) -> std::io::Result<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::symlink_metadata(path)?;
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Ok(Stamp { dev: m.dev(), ino: m.ino(), size: m.size(), mtime_ns: ns(m.mtime(), m.mtime_nsec()), ctime_ns: ns(m.ctime(), m.ctime_nsec()) })
    }

    /// Elsewhere no time a user cannot set is at hand: no stamp, so every load reads the code
    /// and checks its HMAC.
    #[cfg(not(unix))]
    fn of(_path: &Path) -> std::io::Result<Stamp> {
        Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "no file stamp on this platform"))
    }

    fn text(&self) -> String {
        format!("{} {} {} {} {}", self.dev, self.ino, self.size, self.mtime_ns, self.ctime_ns)
    }
}

/// An entry's seal (`<entry>.seal`): the HMAC of its code under its name, and the file stamp it
/// had when sealed, both under a second HMAC. A load whose file still has that stamp maps the
/// code without reading it; any other load reads the code and checks its HMAC first.
struct Seal {
    stamp: String,
    code_tag: Vec<u8>,
}

impl Seal {
    fn seal_tag(key: &[u8; 32], name: &str, stamp: &str, code_tag: &[u8]) -> Mac {
        mac(key, &[b"hookhost-cache-seal-v1", name.as_bytes(), stamp.as_bytes(), code_tag])
    }

    fn write(key: &[u8; 32], dir: &Path, name: &str, entry: &Path, code_tag: &[u8]) -> std::io::Result<()> {
        use hmac::Mac as _;
        // No stamp where the platform has none: such a seal never lets a load skip the code's
        // HMAC check (`Stamp::of` fails there too).
        let stamp = match Stamp::of(entry) {
            Ok(s) => s.text(),
            Err(e) if e.kind() == std::io::ErrorKind::Unsupported => "-".to_string(),
            Err(e) => return Err(e),
        };
        let tag = Self::seal_tag(key, name, &stamp, code_tag).finalize().into_bytes();
        let tmp = tempfile::NamedTempFile::new_in(dir)?;
        std::fs::write(tmp.path(), format!("v1\n{stamp}\n{}\n{}\n", hex::encode(code_tag), hex::encode(tag)))?;
        tmp.persist(seal_path(entry)).map_err(|e| e.error)?;
        Ok(())
    }

    /// The seal of `entry`, if it is there and its own tag checks out.
    fn read(key: &[u8; 32], name: &str, entry: &Path) -> Option<Seal> {
        use hmac::Mac as _;
        let text = std::fs::read_to_string(seal_path(entry)).ok()?;
        let mut lines = text.lines();
        if lines.next()? != "v1" {
            return None;
        }
        let (stamp, code_tag, tag) = (lines.next()?.to_string(), hex::decode(lines.next()?).ok()?, hex::decode(lines.next()?).ok()?);
        Self::seal_tag(key, name, &stamp, &code_tag).verify_slice(&tag).ok()?;
        Some(Seal { stamp, code_tag })
    }
}

fn seal_path(entry: &Path) -> PathBuf {
    let mut p = entry.as_os_str().to_owned();
    p.push(".seal");
    PathBuf::from(p)
}

/// How a cache entry may be used.
enum Entry {
    /// Unchanged since it was sealed: map it.
    Sealed,
    /// Changed on disk (copied, restored) but its code checks out: use these bytes.
    Verified(Vec<u8>),
    /// Missing, foreign, swapped or damaged: compile again.
    Unusable,
}

fn check_entry(path: &Path, key: &[u8; 32], name: &str) -> Entry {
    use hmac::Mac as _;
    if !path.exists() {
        return Entry::Unusable;
    }
    if let Err(problem) = check_private(path) {
        tracing::warn!(path = %path.display(), "ignoring a precompile cache entry that {problem}; recompiling");
        return Entry::Unusable;
    }
    if !seal_path(path).exists() {
        tracing::debug!(path = %path.display(), "a precompile cache entry has no seal (an older hookhost wrote it); recompiling");
        return Entry::Unusable;
    }
    let Some(seal) = Seal::read(key, name, path) else {
        tracing::warn!(path = %path.display(), "a precompile cache entry's seal does not check out (written with another key, or tampered with); recompiling");
        return Entry::Unusable;
    };
    if Stamp::of(path).is_ok_and(|s| s.text() == seal.stamp) {
        return Entry::Sealed;
    }
    match std::fs::read(path) {
        Ok(code) if mac(key, &[name.as_bytes(), &code]).verify_slice(&seal.code_tag).is_ok() => Entry::Verified(code),
        Ok(_) => {
            tracing::warn!(path = %path.display(), "a precompile cache entry failed its authentication check (replaced, or written with another key); recompiling");
            Entry::Unusable
        }
        Err(e) => {
            tracing::warn!(path = %path.display(), "cannot read a precompile cache entry ({e}); recompiling");
            Entry::Unusable
        }
    }
}

/// A compile still running after this long says so (target `hookhost::compile`, level info),
/// then every [`COMPILE_PROGRESS_EVERY`]: a language runtime inside a component (Python,
/// JavaScript, the bash adapter) takes seconds, which should not look like a hang.
const COMPILE_NOTICE_AFTER: std::time::Duration = std::time::Duration::from_secs(1);
const COMPILE_PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_secs(5);
/// Smaller components never say so (they compile in well under a second; on a loaded machine
/// a note about them would be noise).
const COMPILE_NOTICE_BYTES: usize = 1 << 20;

/// Run `compile` (of a component of `len` bytes), saying so once it has taken a second, how
/// long it has been every few seconds after that, and how long it took (components of 1 MiB
/// or more).
fn announced<T>(name: &str, len: usize, cached: bool, compile: impl FnOnce() -> wasmtime::Result<T>) -> wasmtime::Result<T> {
    use std::sync::mpsc::RecvTimeoutError;
    if len < COMPILE_NOTICE_BYTES {
        return compile();
    }
    let started = std::time::Instant::now();
    let after = if cached { "once: later loads map it from the precompile cache" } else { "on every load: no precompile cache is in use" };
    let (done, finished) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|s| {
        let watcher = s.spawn(move || {
            let mut said = false;
            let mut wait = COMPILE_NOTICE_AFTER;
            loop {
                match finished.recv_timeout(wait) {
                    Err(RecvTimeoutError::Timeout) if !said => {
                        tracing::info!(target: "hookhost::compile", "compiling {name} ({:.1} MiB), {after} ...", len as f64 / (1 << 20) as f64);
                        said = true;
                        wait = COMPILE_PROGRESS_EVERY;
                    }
                    Err(RecvTimeoutError::Timeout) => tracing::info!(target: "hookhost::compile", "still compiling {name}: {:.0} s so far", started.elapsed().as_secs_f64()),
                    _ => return said,
                }
            }
        });
        let compiled = compile();
        drop(done);
        if watcher.join().unwrap_or(false) && compiled.is_ok() {
            tracing::info!(target: "hookhost::compile", "compiled {name} in {:.1} s", started.elapsed().as_secs_f64());
        }
        compiled
    })
}

/// Where a loaded plugin's native code came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeSource {
    /// Compiled now (and written to the precompile cache when there is one).
    Compiled,
    /// Mapped from the precompile cache.
    Cache,
    /// A built-in's code compiled when hookhost was built, unpacked (into the cache when there
    /// is one).
    Builtin,
}

impl CodeSource {
    /// How `hookhost check -v` says it.
    pub fn describe(self) -> &'static str {
        match self {
            CodeSource::Compiled => "compiled",
            CodeSource::Cache => "from the precompile cache",
            CodeSource::Builtin => "precompiled when hookhost was built",
        }
    }
}

/// Compiled in memory, not written to the cache.
fn in_memory(engine: &WasmEngine, name: &str, bytes: &[u8], digest: &str) -> wasmtime::Result<(Component, CodeSource)> {
    if let Some(component) = builtin_in_memory(engine, name, digest) {
        return Ok((component, CodeSource::Builtin));
    }
    announced(name, bytes.len(), false, || Component::new(engine, bytes)).map(|c| (c, CodeSource::Compiled))
}

/// Say that a built-in's embedded code was refused (another CPU, another build) and that it
/// will be compiled instead; the compile's own progress notes follow.
fn builtin_refused(name: &str, e: &wasmtime::Error) {
    tracing::info!(target: "hookhost::compile", "the code of {name} compiled when hookhost was built does not suit this machine ({e:#}); compiling it here");
}

/// A built-in's embedded code, unpacked in memory, if this engine accepts it (no cache).
fn builtin_in_memory(engine: &WasmEngine, name: &str, digest: &str) -> Option<Component> {
    let packed = crate::builtin::precompiled(digest)?;
    let code = match zstd::decode_all(packed) {
        Ok(code) => code,
        Err(e) => {
            builtin_refused(name, &wasmtime::Error::msg(format!("cannot unpack it: {e}")));
            return None;
        }
    };
    // SAFETY: the code is part of this binary, output of `precompile_component` with the same
    // compiler settings (`compile_settings.rs`); wasmtime checks its compatibility.
    match unsafe { Component::deserialize(engine, &code) } {
        Ok(c) => Some(c),
        Err(e) => {
            builtin_refused(name, &e);
            None
        }
    }
}

/// Writes through to a file while computing the cache seal's code tag (the HMAC of
/// [`mac`]'s layout: the entry name, then the code, each after its length).
struct SealingWriter {
    file: std::io::BufWriter<std::fs::File>,
    mac: Mac,
    written: u64,
}

impl std::io::Write for SealingWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        use hmac::Mac as _;
        let n = self.file.write(buf)?;
        self.mac.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// Unpack a built-in's embedded code straight into the cache entry `path` (streamed: the
/// 40 MiB of the bash adapter never sit in memory), seal it, and map it. An entry this engine
/// refuses is removed again.
fn builtin_into_cache(engine: &WasmEngine, packed: &[u8], key: &[u8; 32], dir: &Path, entry: &str, path: &Path) -> wasmtime::Result<Component> {
    use hmac::Mac as _;
    let len = match zstd::zstd_safe::get_frame_content_size(packed) {
        Ok(Some(len)) => len,
        _ => wasmtime::bail!("its packed code does not record its size"),
    };
    let tmp = tempfile::NamedTempFile::new_in(dir)?;
    // `mac(key, &[entry, code])`, with the code streamed in after its length.
    let mut mac = mac(key, &[entry.as_bytes()]);
    mac.update(&len.to_le_bytes());
    let mut writer = SealingWriter { file: std::io::BufWriter::with_capacity(1 << 20, tmp.reopen()?), mac, written: 0 };
    zstd::stream::copy_decode(packed, &mut writer)?;
    std::io::Write::flush(&mut writer)?;
    if writer.written != len {
        wasmtime::bail!("its packed code unpacked to {} bytes, not the {len} it records", writer.written);
    }
    let code_tag = writer.mac.finalize().into_bytes();
    tmp.persist(path).map_err(|e| e.error)?;
    Seal::write(key, dir, entry, path, &code_tag)?;
    // SAFETY: as in `builtin_in_memory`; the entry was just written by this process into this
    // user's private directory and sealed.
    unsafe { Component::deserialize_file(engine, path) }.inspect_err(|_| {
        let _ = std::fs::remove_file(path);
        let _ = std::fs::remove_file(seal_path(path));
    })
}

pub(crate) fn load_uncached(engine: &WasmEngine, name: &str, bytes: &[u8], digest: &str, cache: Option<&Path>) -> wasmtime::Result<(Component, CodeSource)> {
    use hmac::Mac as _;
    let Some(dir) = cache else { return in_memory(engine, name, bytes, digest) };
    let key = match check_cache_dir_text(dir, true).map_err(std::io::Error::other).and_then(|()| cache_key(dir)) {
        Ok(key) => key,
        Err(e) => {
            tracing::warn!(dir = %dir.display(), "not using the precompile cache: {e}");
            return in_memory(engine, name, bytes, digest);
        }
    };
    let entry = format!("{digest}-{}.cwasm", engine_fingerprint(engine));
    let path = dir.join(&entry);
    // SAFETY (both arms): the code was authenticated with this user's cache key under a name
    // that pins the source digest and this engine's configuration — it is output of
    // `precompile_component` below; wasmtime still checks its engine compatibility. The
    // directory and the entry are this user's and writable by no one else (checked above).
    let loaded = match check_entry(&path, &key, &entry) {
        Entry::Sealed => Some(unsafe { Component::deserialize_file(engine, &path) }),
        Entry::Verified(code) => {
            let code_tag = mac(&key, &[entry.as_bytes(), &code]).finalize().into_bytes();
            if let Err(e) = Seal::write(&key, dir, &entry, &path, &code_tag) {
                tracing::warn!(path = %path.display(), "cannot reseal a precompile cache entry: {e}");
            }
            Some(unsafe { Component::deserialize(engine, &code) })
        }
        Entry::Unusable => None,
    };
    match loaded {
        Some(Ok(c)) => return Ok((c, CodeSource::Cache)),
        Some(Err(e)) => tracing::warn!(path = %path.display(), "discarding unreadable cache entry: {e:#}"),
        None => {}
    }
    if let Some(packed) = crate::builtin::precompiled(digest) {
        match builtin_into_cache(engine, packed, &key, dir, &entry, &path) {
            Ok(c) => return Ok((c, CodeSource::Builtin)),
            Err(e) => builtin_refused(name, &e),
        }
    }
    let compiled = announced(name, bytes.len(), true, || engine.precompile_component(bytes))?;
    let code_tag = mac(&key, &[entry.as_bytes(), &compiled]).finalize().into_bytes();
    let written = (|| -> std::io::Result<()> {
        let tmp = tempfile::NamedTempFile::new_in(dir)?;
        std::fs::write(tmp.path(), &compiled)?;
        tmp.persist(&path).map_err(|e| e.error)?;
        Seal::write(&key, dir, &entry, &path, &code_tag)
    })();
    if let Err(e) = written {
        tracing::warn!(dir = %dir.display(), "cannot write the precompile cache ({e}); compiling in memory");
    }
    // SAFETY: bytes produced by `precompile_component` of this very engine.
    unsafe { Component::deserialize(engine, &compiled) }.map(|c| (c, CodeSource::Compiled))
}
