//! Plugins compiled into the binary, referenced as `builtin:<name>` (built from `plugins/` by
//! the build script).

include!(concat!(env!("OUT_DIR"), "/builtins.rs"));

/// The component bytes of a built-in plugin and their hex sha256 (computed at build time).
pub fn get(name: &str) -> Option<(&'static [u8], &'static str)> {
    BUILTINS.iter().find(|(n, ..)| *n == name).map(|(_, bytes, digest)| (*bytes, *digest))
}

/// The names of every built-in plugin.
pub fn names() -> impl Iterator<Item = &'static str> {
    BUILTINS.iter().map(|(n, ..)| *n)
}
