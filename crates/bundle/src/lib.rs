//! Hook bundles: a manifest (name, version, the hooks it contributes, each plugin file with its
//! sha256 and requested capabilities) plus the plugin files, packed into one archive whose bytes
//! depend only on its contents.
//!
//! Everything here works on bytes in memory and checks before it trusts: entry paths, entry
//! kinds, sizes (declared and actual), duplicates, and that the manifest and the files agree
//! exactly. Signatures and the trust policy are in [`trust`]; where bundles are stored in
//! [`store`] (local directory registry, cache) and [`oci`] (OCI registries); how a config's
//! `bundles` become hooks in [`resolve()`].

#![deny(missing_docs)]

use hookhost_config::RawHook;
use hookhost_types::ids::sha256_hex;
use hookhost_types::{BundleName, Capability, Problem};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::Path;

mod error;
pub mod oci;
pub mod resolve;
pub mod revoke;
pub mod store;
pub mod trust;
pub mod wit;

pub use error::{BundleError, ErrorKind};
pub use resolve::{resolve, resolve_layers, LockMode, Progress, Resolver};

/// The manifest's name inside an archive.
pub const MANIFEST_FILE: &str = "manifest.json";
/// What an author writes in a bundle source directory.
pub const SOURCE_FILE: &str = "bundle.toml";
/// The manifest schema this hookhost writes and reads.
pub const SCHEMA: u32 = 1;
/// Largest single file (plugin) a bundle may hold.
pub const MAX_FILE_BYTES: u64 = 64 << 20;
/// Largest bundle: all files and the manifest together.
pub const MAX_BUNDLE_BYTES: u64 = 128 << 20;
/// Largest manifest.
pub const MAX_MANIFEST_BYTES: u64 = 1 << 20;
/// Most files in one bundle.
pub const MAX_FILES: usize = 64;

/// One plugin file of a bundle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginEntry {
    /// Path inside the bundle (`guard.wasm`, `plugins/guard.wasm`).
    pub file: String,
    /// Hex sha256 of the file.
    pub sha256: String,
    /// Its size in bytes.
    pub size: u64,
    /// Capabilities the plugin asks for (`process:exec`); it gets those the host also grants.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
}

/// `manifest.json`: what a bundle is and what it contributes. Signatures cover these bytes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The manifest schema ([`SCHEMA`]).
    pub schema: u32,
    /// `namespace/name`.
    pub name: String,
    /// Semantic version.
    pub version: String,
    /// What it is for.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The oldest hookhost that can run it.
    pub min_hookhost: String,
    /// The hook contract its plugins were built against (`hookhost:hooks@0.1.0`).
    pub wit: String,
    /// Its plugin files.
    pub plugins: Vec<PluginEntry>,
    /// Hook specs in the user-hook schema; `executor.plugin` names a file of the bundle or a
    /// `builtin:` plugin.
    pub hooks: Vec<RawHook>,
}

/// The author's source file (`bundle.toml`): the manifest without digests.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Source {
    name: String,
    version: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    min_hookhost: Option<String>,
    #[serde(default)]
    plugins: Vec<SourcePlugin>,
    #[serde(default)]
    hooks: Vec<RawHook>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SourcePlugin {
    file: String,
    #[serde(default)]
    capabilities: Vec<String>,
}

/// A bundle's bytes: the manifest as signed, and every file it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parts {
    /// The manifest's bytes (what signatures cover).
    pub manifest: Vec<u8>,
    /// Each file by its path in the bundle.
    pub files: BTreeMap<String, Vec<u8>>,
}

/// A bundle whose manifest parsed and whose files match it exactly (not yet trusted: see
/// [`trust::Policy::check`]).
#[derive(Debug, Clone)]
pub struct Bundle {
    /// The parsed manifest.
    pub manifest: Manifest,
    /// The bytes.
    pub parts: Parts,
    /// `sha256:<hex>` of the manifest bytes.
    pub manifest_digest: String,
}

fn err<T>(msg: impl Into<String>) -> Result<T, BundleError> {
    Err(error::invalid(msg))
}

/// Check a path inside a bundle: relative, `/`-separated, no `.`/`..`/empty components, no
/// backslashes or NULs. Returns why not.
pub fn check_entry_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("is empty".into());
    }
    if path.starts_with('/') {
        return Err("is absolute; bundle paths are relative to the bundle".into());
    }
    if path.contains('\\') || path.contains('\0') {
        return Err("contains a backslash or NUL; use '/'-separated relative paths".into());
    }
    if path.len() > 200 {
        return Err("is longer than 200 bytes".into());
    }
    for component in path.split('/') {
        match component {
            "" => return Err("has an empty component ('//' or a trailing '/')".into()),
            "." => return Err("has a '.' component".into()),
            ".." => return Err("points outside the bundle ('..')".into()),
            _ => {}
        }
    }
    Ok(())
}

impl Manifest {
    /// `name@version`.
    pub fn id(&self) -> String {
        format!("{}@{}", self.name, self.version)
    }

    /// Parse and check a manifest on its own (not yet against files).
    pub fn parse(bytes: &[u8], from: &str) -> Result<Manifest, BundleError> {
        if bytes.len() as u64 > MAX_MANIFEST_BYTES {
            return err(format!("{from}: the manifest is {} bytes, over the {MAX_MANIFEST_BYTES}-byte cap", bytes.len()));
        }
        let m: Manifest = serde_json::from_slice(bytes).map_err(|e| error::invalid(format!("{from}: invalid bundle manifest: {e}")))?;
        let mut problems = Vec::new();
        if m.schema != SCHEMA {
            problems.push(Problem::at("schema", format!("{} is not supported; this hookhost reads bundle schema {SCHEMA}", m.schema)));
        }
        if m.name.parse::<BundleName>().is_err() {
            problems.push(Problem::at("name", format!("{:?} is not namespace/name (lowercase letters, digits, '-', '_', '.')", m.name)));
        }
        if semver::Version::parse(&m.version).is_err() {
            problems.push(Problem::at("version", format!("{:?} is not a semantic version (like 1.4.0)", m.version)));
        }
        match semver::Version::parse(&m.min_hookhost) {
            Ok(min) => {
                let ours = semver::Version::parse(env!("CARGO_PKG_VERSION")).expect("our version is semver");
                if min > ours {
                    problems.push(Problem::at("min_hookhost", format!("the bundle needs hookhost {min} or newer; this is {ours}; upgrade hookhost")));
                }
            }
            Err(_) => problems.push(Problem::at("min_hookhost", format!("{:?} is not a semantic version", m.min_hookhost))),
        }
        if let Some(why) = wit::unserved(&m.wit) {
            problems.push(Problem::at("wit", why.to_string()));
        }
        if m.plugins.len() > MAX_FILES {
            problems.push(Problem::at("plugins", format!("{} files, over the cap of {MAX_FILES}", m.plugins.len())));
        }
        let mut seen = BTreeSet::new();
        for (i, p) in m.plugins.iter().enumerate() {
            if let Err(why) = check_entry_path(&p.file) {
                problems.push(Problem::at(format!("plugins[{i}].file"), format!("{:?} {why}", p.file)));
            }
            if p.file == MANIFEST_FILE {
                problems.push(Problem::at(format!("plugins[{i}].file"), format!("{MANIFEST_FILE} is reserved for the manifest")));
            }
            if !seen.insert(p.file.as_str()) {
                problems.push(Problem::at(format!("plugins[{i}].file"), format!("{:?} is listed twice; list each file once", p.file)));
            }
            if hookhost_types::Digest::from_hex(&p.sha256).is_err() {
                problems.push(Problem::at(format!("plugins[{i}].sha256"), "not a lowercase hex sha256"));
            }
            if p.size > MAX_FILE_BYTES {
                problems.push(Problem::at(format!("plugins[{i}].size"), format!("declares {} bytes, over the {MAX_FILE_BYTES}-byte cap per file", p.size)));
            }
            for cap in &p.capabilities {
                if let Err(e) = cap.parse::<Capability>() {
                    problems.push(Problem::at(format!("plugins[{i}].capabilities"), e.to_string()));
                }
            }
        }
        let declared: u64 = m.plugins.iter().map(|p| p.size).sum();
        if declared > MAX_BUNDLE_BYTES {
            problems.push(Problem::at("plugins", format!("declare {declared} bytes in all, over the {MAX_BUNDLE_BYTES}-byte cap per bundle")));
        }
        for (i, h) in m.hooks.iter().enumerate() {
            let plugin = &h.executor.plugin;
            let builtin = matches!(hookhost_types::PluginName::parse(plugin, false), hookhost_types::PluginName::Builtin(_));
            if !builtin && !seen.contains(plugin.as_str()) {
                problems.push(Problem::at(format!("hooks[{i}].executor.plugin"), format!("{plugin:?} is neither a file listed in plugins nor builtin:<name>")));
            }
        }
        match problems.as_slice() {
            [] => Ok(m),
            [one] => err(format!("{from}: manifest {one}")),
            many => err(format!("{from}: manifest has {} problems:{}", many.len(), hookhost_types::problem::bulleted(many))),
        }
    }
}

impl Bundle {
    /// Check parts: the manifest parses, and the files are exactly the ones it lists, each with
    /// its digest and size. `from` names the source in messages.
    pub fn from_parts(parts: Parts, from: &str) -> Result<Bundle, BundleError> {
        let manifest = Manifest::parse(&parts.manifest, from)?;
        let from = format!("{from} ({})", manifest.id());
        let listed: BTreeMap<&str, &PluginEntry> = manifest.plugins.iter().map(|p| (p.file.as_str(), p)).collect();
        for name in parts.files.keys() {
            if !listed.contains_key(name.as_str()) {
                return err(format!("{from}: holds {name:?}, which the manifest does not list; every file must be listed with its sha256"));
            }
        }
        for (name, entry) in &listed {
            let Some(bytes) = parts.files.get(*name) else {
                return err(format!("{from}: the manifest lists {name:?}, which the bundle does not hold"));
            };
            if bytes.len() as u64 != entry.size {
                return err(format!("{from}: {name:?} is {} bytes, the manifest says {}; the file was altered", bytes.len(), entry.size));
            }
            let actual = sha256_hex(bytes);
            if actual != entry.sha256 {
                return Err(BundleError::new(ErrorKind::Integrity, format!("{from}: {name:?} has sha256 {actual}, the manifest says {}; the file was altered", entry.sha256)));
            }
        }
        let manifest_digest = hookhost_types::Digest::of(&parts.manifest).to_string();
        Ok(Bundle { manifest, parts, manifest_digest })
    }

    /// The archive's bytes: a ustar archive with the manifest first, then the files in path
    /// order, every header normalised (mode 0644, owner 0, mtime 0), so equal contents give
    /// equal bytes.
    pub fn archive(&self) -> Vec<u8> {
        let mut out = tar::Builder::new(Vec::new());
        let mut add = |path: &str, bytes: &[u8]| {
            let mut header = tar::Header::new_ustar();
            header.set_entry_type(tar::EntryType::Regular);
            header.set_mode(0o644);
            header.set_uid(0);
            header.set_gid(0);
            header.set_mtime(0);
            header.set_size(bytes.len() as u64);
            out.append_data(&mut header, path, bytes).expect("writing to memory");
        };
        add(MANIFEST_FILE, &self.parts.manifest);
        for (path, bytes) in &self.parts.files {
            add(path, bytes);
        }
        out.into_inner().expect("writing to memory")
    }
}

/// Read an archive's entries into memory, refusing anything but regular files at clean
/// relative paths, duplicates, and sizes over the caps (declared in a header, or actual).
pub fn read_archive(bytes: &[u8], from: &str) -> Result<Parts, BundleError> {
    if bytes.len() as u64 > MAX_BUNDLE_BYTES + (1 << 20) {
        return err(format!("{from}: the archive is {} bytes, over the {MAX_BUNDLE_BYTES}-byte cap; bundles are for hooks, not data", bytes.len()));
    }
    let mut archive = tar::Archive::new(bytes);
    let mut manifest = None;
    let mut files = BTreeMap::new();
    let mut total: u64 = 0;
    let entries = archive.entries().map_err(|e| error::invalid(format!("{from}: not a bundle archive: {e}")))?;
    for (i, entry) in entries.enumerate() {
        let mut entry = entry.map_err(|e| error::invalid(format!("{from}: not a bundle archive (entry {i}): {e}")))?;
        let path = String::from_utf8(entry.path_bytes().into_owned()).map_err(|_| error::invalid(format!("{from}: entry {i} has a path that is not UTF-8")))?;
        let kind = entry.header().entry_type();
        if !kind.is_file() {
            let what = match kind {
                tar::EntryType::Symlink => "a symlink",
                tar::EntryType::Link => "a hard link",
                tar::EntryType::Directory => "a directory",
                _ => "not a regular file",
            };
            return err(format!("{from}: entry {path:?} is {what}; a bundle holds regular files only"));
        }
        check_entry_path(&path).map_err(|why| error::invalid(format!("{from}: entry {path:?} {why}")))?;
        if files.len() >= MAX_FILES {
            return err(format!("{from}: more than {MAX_FILES} files"));
        }
        let declared = entry.header().size().map_err(|e| error::invalid(format!("{from}: entry {path:?}: bad size: {e}")))?;
        let cap = if path == MANIFEST_FILE { MAX_MANIFEST_BYTES } else { MAX_FILE_BYTES };
        if declared > cap {
            return err(format!("{from}: entry {path:?} declares {declared} bytes, over the {cap}-byte cap"));
        }
        total += declared;
        if total > MAX_BUNDLE_BYTES {
            return err(format!("{from}: entries declare more than {MAX_BUNDLE_BYTES} bytes in all, over the cap per bundle"));
        }
        let mut data = Vec::with_capacity(declared as usize);
        (&mut entry).take(cap + 1).read_to_end(&mut data).map_err(|e| error::invalid(format!("{from}: entry {path:?}: {e}")))?;
        if data.len() as u64 != declared {
            return err(format!("{from}: entry {path:?} holds {} bytes but declares {declared}; the archive is truncated or corrupt", data.len()));
        }
        let duplicate = if path == MANIFEST_FILE { manifest.replace(data).is_some() } else { files.insert(path.clone(), data).is_some() };
        if duplicate {
            return err(format!("{from}: entry {path:?} appears twice; an archive holds each file once"));
        }
    }
    let manifest = manifest.ok_or_else(|| error::invalid(format!("{from}: no {MANIFEST_FILE}; is this a packed hookhost bundle?")))?;
    Ok(Parts { manifest, files })
}

/// Build a bundle from a source directory holding `bundle.toml` and the plugin files it lists.
pub fn pack(dir: &Path) -> Result<Bundle, BundleError> {
    let source_path = dir.join(SOURCE_FILE);
    let shown = source_path.display().to_string();
    let text = std::fs::read_to_string(&source_path).map_err(|e| BundleError::new(ErrorKind::Io, format!("{shown}: cannot read ({e}); a bundle directory holds {SOURCE_FILE} and its plugin files")))?;
    let source: Source = toml::from_str(&text).map_err(|e| error::invalid(format!("{shown}: {}", e.message().trim())))?;
    let mut files = BTreeMap::new();
    let mut plugins = Vec::new();
    let root = cap_std::fs::Dir::open_ambient_dir(dir, cap_std::ambient_authority()).map_err(|e| BundleError::new(ErrorKind::Io, format!("{}: {e}", dir.display())))?;
    for (i, p) in source.plugins.iter().enumerate() {
        check_entry_path(&p.file).map_err(|why| error::invalid(format!("{shown}: plugins[{i}].file: {:?} {why}", p.file)))?;
        // Through cap-std: a symlink out of the directory cannot be followed.
        let bytes = root.read(&p.file).map_err(|e| BundleError::new(ErrorKind::Io, format!("{shown}: plugins[{i}].file: cannot read {:?} inside {} ({e})", p.file, dir.display())))?;
        plugins.push(PluginEntry { file: p.file.clone(), sha256: sha256_hex(&bytes), size: bytes.len() as u64, capabilities: p.capabilities.clone() });
        files.insert(p.file.clone(), bytes);
    }
    let manifest = Manifest {
        schema: SCHEMA,
        name: source.name,
        version: source.version,
        description: source.description,
        min_hookhost: source.min_hookhost.unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_string()),
        // What its plugins were built against (a bundle of 0.1.0 hooks says 0.1.0).
        wit: wit::needed(files.values().map(Vec::as_slice)),
        plugins,
        hooks: source.hooks,
    };
    let mut bytes = serde_json::to_vec_pretty(&manifest).expect("manifests serialise");
    bytes.push(b'\n');
    Bundle::from_parts(Parts { manifest: bytes, files }, &shown)
}

/// Write a bundle's files under `dir` through cap-std, so no entry can land outside it.
pub fn unpack(bundle: &Bundle, dir: &Path) -> Result<(), BundleError> {
    std::fs::create_dir_all(dir).map_err(|e| BundleError::new(ErrorKind::Io, format!("{}: {e}", dir.display())))?;
    let root = cap_std::fs::Dir::open_ambient_dir(dir, cap_std::ambient_authority()).map_err(|e| BundleError::new(ErrorKind::Io, format!("{}: {e}", dir.display())))?;
    let write = |path: &str, bytes: &[u8]| -> Result<(), BundleError> {
        if let Some((parent, _)) = path.rsplit_once('/') {
            root.create_dir_all(parent).map_err(|e| BundleError::new(ErrorKind::Io, format!("{}: cannot create {parent}: {e}", dir.display())))?;
        }
        root.write(path, bytes).map_err(|e| BundleError::new(ErrorKind::Io, format!("{}: cannot write {path}: {e}", dir.display())))
    };
    write(MANIFEST_FILE, &bundle.parts.manifest)?;
    for (path, bytes) in &bundle.parts.files {
        write(path, bytes)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
