//! Which hook contract a plugin file was built against: the version of the
//! `hookhost:hooks/handler` interface its component exports, read from the outer component's
//! export section without compiling it.

use hookhost_types::{CONTRACTS, WIT_PACKAGE};

/// The package (`hookhost:hooks@0.1.0`) whose `handler` a component exports; `None` for bytes
/// that are not a component exporting one.
pub fn handler_package(bytes: &[u8]) -> Option<String> {
    use wasmparser::{Chunk, Parser, Payload};
    let mut parser = Parser::new(0);
    let mut data = bytes;
    loop {
        let (consumed, skip) = match parser.parse(data, true).ok()? {
            Chunk::Parsed { consumed, payload } => match payload {
                Payload::ComponentExportSection(reader) => {
                    for export in reader {
                        let name = export.ok()?.name.name;
                        if let Some(version) = name.strip_prefix("hookhost:hooks/handler@") {
                            return Some(format!("hookhost:hooks@{version}"));
                        }
                    }
                    (consumed, 0)
                }
                // Nested modules and components are stepped over whole.
                Payload::ModuleSection { unchecked_range, .. } | Payload::ComponentSection { unchecked_range, .. } => (consumed, usize::try_from(unchecked_range.end - unchecked_range.start).ok()?),
                Payload::End(_) => return None,
                _ => (consumed, 0),
            },
            Chunk::NeedMoreData(_) => return None,
        };
        data = data.get(consumed + skip..)?;
    }
}

/// The contract a bundle of these plugin files needs: the newest any of them was built
/// against (the newest served when none says).
pub fn needed<'a>(plugins: impl IntoIterator<Item = &'a [u8]>) -> String {
    let version = |package: &str| package.rsplit('@').next().and_then(|v| semver::Version::parse(v).ok());
    plugins.into_iter().filter_map(handler_package).max_by_key(|p| version(p)).unwrap_or_else(|| WIT_PACKAGE.to_string())
}

/// Why this hookhost cannot run a bundle built for `wit`, if it cannot.
pub fn unserved(wit: &str) -> Option<String> {
    let packages = CONTRACTS.map(|c| c.package);
    (!packages.contains(&wit)).then(|| {
        let (last, rest) = packages.split_last().expect("at least one version is served");
        format!("the bundle was built for {wit}; this hookhost serves {} and {last}; upgrade hookhost, or rebuild its plugins against one of those (`hookhost wit`)", rest.join(", "))
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn unserved_names_what_is_served() {
        assert_eq!(super::unserved("hookhost:hooks@0.1.0"), None);
        assert_eq!(super::unserved("hookhost:hooks@0.2.0"), None);
        assert_eq!(super::unserved("hookhost:hooks@0.9.0").unwrap(), "the bundle was built for hookhost:hooks@0.9.0; this hookhost serves hookhost:hooks@0.1.0, hookhost:hooks@0.2.0 and hookhost:hooks@0.3.0; upgrade hookhost, or rebuild its plugins against one of those (`hookhost wit`)");
        assert_eq!(super::handler_package(b"not wasm"), None);
        assert_eq!(super::needed([&b"x"[..]]), hookhost_types::WIT_PACKAGE, "nothing says: the newest");
    }
}
