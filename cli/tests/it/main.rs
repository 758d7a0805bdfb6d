//! The command line's integration tests, one binary (each test binary links wasmtime: one
//! link instead of eleven). Each module is one area; `cargo test -p hookhost-cli --test it
//! serve::` runs one of them.

mod common;

mod bundles;
mod cli;
mod docs;
mod frozen;
mod hardening;
mod hook_examples;
mod coverage;
mod install;
mod layering;
mod mcp;
mod org;
mod output_protocols;
mod properties;
mod real_world;
mod rollout;
mod send;
mod serve;
mod unreadable;
