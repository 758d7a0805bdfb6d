//! The cross-crate integration tests, one binary (each test binary links wasmtime: one link
//! instead of fifteen). `soak` stays a binary of its own: it counts the process's descriptors and
//! children, which other tests running beside it would change. `cargo test -p hookhost-tests
//! --test it chain::` runs one module.

mod bundle_plugins;
mod chain;
mod config_files;
mod containment;
mod contract;
mod contract_versions;
mod fail_closed;
mod fuzz_smoke;
mod guest_sdks;
mod hostile_shell;
mod http_hooks;
mod lean_guests;
mod load_errors;
mod observability;
mod peer_configs;
mod runtimes;
mod shell_hooks;
