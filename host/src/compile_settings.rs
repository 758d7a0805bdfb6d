//! The compiler settings of every hookhost engine: what decides whether compiled code from one
//! engine loads into another (fuel and epoch instrumentation). Shared, by `#[path]`, with
//! `hookhost-precompile`, which compiles the built-in plugins when hookhost is built: the two
//! must never differ, or wasmtime's compatibility check refuses the embedded code at load (and
//! hookhost falls back to compiling). Runtime-only settings (allocation, stack bound) stay in
//! `engine.rs`.

/// Apply the compile-time settings to `cfg`.
pub fn compile_settings(cfg: &mut wasmtime::Config) -> &mut wasmtime::Config {
    cfg.consume_fuel(true).epoch_interruption(true)
}
