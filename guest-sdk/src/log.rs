//! Diagnostics sent to the host (bounded per call; the host drops what is over its cap).
//! Outside wasm (native unit tests) messages go to stderr.

#[cfg(target_arch = "wasm32")]
fn emit(level: crate::bindings::hookhost::hooks::log::Level, message: &str) {
    crate::bindings::hookhost::hooks::log::log(level, message);
}

#[cfg(not(target_arch = "wasm32"))]
fn emit(level: crate::bindings::hookhost::hooks::log::Level, message: &str) {
    eprintln!("[{level:?}] {message}");
}

use crate::bindings::hookhost::hooks::log::Level;

/// Log at debug level.
pub fn debug(message: &str) {
    emit(Level::Debug, message);
}

/// Log at info level.
pub fn info(message: &str) {
    emit(Level::Info, message);
}

/// Log a warning.
pub fn warn(message: &str) {
    emit(Level::Warn, message);
}

/// Log an error.
pub fn error(message: &str) {
    emit(Level::Error, message);
}
