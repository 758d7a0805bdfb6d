//! What a component is, read before and after compiling it: the bytes (a component, not a core
//! module), its imports (read without compiling, so a plugin hookhost cannot link is refused in
//! microseconds), and its exports and imports against the contract versions served.

use crate::error::LoadError;
use crate::wit::{self, Version};
use wasmtime::component::Component;

/// What is wrong with bytes that should be a component, if anything.
pub(super) fn sniff(bytes: &[u8]) -> Result<(), (String, &'static str)> {
    if bytes.len() < 8 || &bytes[..4] != b"\0asm" {
        let reason = if bytes.is_empty() { "the file is empty".to_string() } else { "the file does not start with the wasm magic bytes".to_string() };
        return Err((reason, "point executor.plugin at a .wasm component built for wasm32-wasip2"));
    }
    match bytes[4..8] {
        [0x0d, 0x00, 0x01, 0x00] => Ok(()),
        [0x01, 0x00, 0x00, 0x00] => Err((
            "it is a core wasm module".into(),
            "build for wasm32-wasip2 (which emits components) or wrap it with `wasm-tools component new`",
        )),
        _ => Err(("unknown wasm binary version".into(), "rebuild it with a current toolchain for wasm32-wasip2")),
    }
}

/// The `hookhost:hooks/process` interface (of whichever version) a component imports, read from
/// its bytes without compiling it, so a missing capability is refused before anything is
/// compiled or cached. Bytes that do not parse say none (compiling them then fails with its own
/// message); the compiled component's imports are checked again at load.
pub(crate) fn process_import(bytes: &[u8]) -> Option<String> {
    outer_imports(bytes)?.into_iter().find(|i| wit::is_process_import(i))
}

/// The names a component imports, read from its own import sections without compiling it;
/// `None` when the bytes do not parse that far.
pub(crate) fn outer_imports(bytes: &[u8]) -> Option<Vec<String>> {
    use wasmparser::{Chunk, Parser, Payload};
    // Only the outer component's own imports matter: nested modules and components are linked
    // inside it, so they are stepped over whole rather than parsed (a 12 MB plugin is almost
    // all nested module code).
    let mut parser = Parser::new(0);
    let mut data = bytes;
    let mut imports = Vec::new();
    loop {
        let (consumed, skip) = match parser.parse(data, true).ok()? {
            Chunk::Parsed { consumed, payload } => match payload {
                Payload::ComponentImportSection(reader) => {
                    for import in reader {
                        imports.push(import.ok()?.name.name.to_string());
                    }
                    (consumed, 0)
                }
                Payload::ModuleSection { unchecked_range, .. } | Payload::ComponentSection { unchecked_range, .. } => (consumed, usize::try_from(unchecked_range.end - unchecked_range.start).ok()?),
                Payload::End(_) => return Some(imports),
                _ => (consumed, 0),
            },
            Chunk::NeedMoreData(_) => return None,
        };
        data = data.get(consumed + skip..)?;
    }
}

/// Why hookhost cannot link an import, if it cannot: it provides WASI 0.2 (every interface
/// `wasmtime-wasi` and `wasmtime-wasi-http` implement, deny-by-default) and its own
/// `hookhost:hooks` interfaces.
pub(super) fn unsupported(import: &str) -> Option<&'static str> {
    if wit::is_provided_import(import) {
        return None;
    }
    if let Some(rest) = import.strip_prefix("wasi:") {
        return match rest.split_once('@').map(|(_, version)| version) {
            Some(version) if !version.starts_with("0.2.") => Some("it is not WASI 0.2, the version hookhost links"),
            _ => None,
        };
    }
    if import.starts_with("hookhost:hooks/") {
        return Some("it is not an interface of a hook contract this hookhost serves");
    }
    Some("hookhost does not provide it")
}

/// Check the component's exports and imports before linking, so the error says exactly what is
/// wrong (Spin's `HandlerType::from_instance_pre` idea). Returns the contract version it was
/// built against and what it imports.
pub(super) fn check_shape(engine: &wasmtime::Engine, component: &Component, hook: &str, name: &str) -> Result<(Version, Vec<String>), LoadError> {
    let ty = component.component_type();
    let exports: Vec<String> = ty.exports(engine).map(|(n, _)| n.to_string()).collect();
    let Some(version) = exports.iter().find_map(|n| Version::of_export(n)) else {
        // The interface at a version not served here: say which, and which are.
        let unversioned = wit::HANDLER_EXPORT.split('@').next().unwrap_or_default();
        if let Some(other) = exports.iter().find(|n| n.split('@').next() == Some(unversioned)) {
            let package = |export: &str| export.replace("/handler", "");
            return Err(LoadError::WitVersion { hook: hook.into(), plugin: name.into(), expected: Version::served(), found: package(other) });
        }
        return Err(LoadError::WrongWorld {
            hook: hook.into(),
            plugin: name.into(),
            expected: wit::HANDLER_EXPORTS,
            found: exports.join(", "),
        });
    };
    let mut imports = Vec::new();
    for (import, _) in ty.imports(engine) {
        if let Some(why) = unsupported(import) {
            return Err(LoadError::UnsupportedImport { hook: hook.into(), plugin: name.into(), import: import.into(), why });
        }
        imports.push(import.to_string());
    }
    Ok((version, imports))
}
