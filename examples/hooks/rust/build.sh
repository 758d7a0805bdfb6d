#!/usr/bin/env bash
# Builds hook.wasm, the component hookhost loads. Toolchain: rust-toolchain.toml (pinned);
# crates: Cargo.lock (pinned).
set -euo pipefail
cd "$(dirname "$0")"
# rustup does not always add a toolchain's targets by itself.
rustup target add wasm32-unknown-unknown >/dev/null
# The lean build (.cargo/config.toml): one core module, no WASI imports.
cargo build --release --locked --target wasm32-unknown-unknown
cp "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/hook.wasm" hook.wasm
echo "built hook.wasm ($(wc -c < hook.wasm) bytes)"
