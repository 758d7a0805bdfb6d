#!/usr/bin/env bash
# Builds hook.wasm, the component hookhost loads, from hook.c. The toolchain, pinned:
#   clang 19 + wasi-libc   from apt: clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32
#   wit-bindgen-cli 0.51.0 writes the C bindings (gen/) from wit/hooks.wit    } cargo install,
#   wasm-tools 1.244.0     wraps the WASI 0.1 module into a WASI 0.2 component } done here
#   the reactor adapter    from the crates.io crate wasi-preview1-component-adapter-provider
#                          48.0.8 (checked against its SHA-256), done here
# Tools this script installs go under $HOOKHOST_C_TOOLS (default ~/.cache/hookhost/c-tools), or
# are taken from PATH when the pinned version is there already.
#   ./build.sh                  build hook.wasm
#   ./build.sh --install-tools  only install the pinned tools
set -euo pipefail
cd "$(dirname "$0")"

WIT_BINDGEN=0.51.0
WASM_TOOLS=1.244.0
ADAPTER=48.0.8
ADAPTER_SHA256=d3a1674fffec103c1d4367d4417a3bd5423cde3cfd56ff3b326b5fc72c0a8ebd
tools="${HOOKHOST_C_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/hookhost/c-tools}"
export PATH="$tools/bin:$PATH"

# Installs crate $1 at version $2 (binary $3, features $4) unless `$3 --version` shows it.
cargo_tool() {
  if [ "$("$3" --version 2>/dev/null | awk '{print $2}')" != "$2" ]; then
    echo "installing $1 $2 into $tools (once)" >&2
    # One build directory for both: they share most of their dependencies (wit-parser,
    # wit-component, wasmparser, clap), which then compile once. Unoptimised: they run a few
    # times on one small WIT file, and optimising them cost ~3x the CPU time (527 s against
    # 166 s here); the hook.wasm they make is byte for byte the same.
    CARGO_PROFILE_RELEASE_OPT_LEVEL=0 CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
      cargo install --quiet --locked --root "$tools" --target-dir "$tools/build" "$1@$2" --no-default-features --features "$4"
  fi
}

install_tools() {
  cargo_tool wit-bindgen-cli "$WIT_BINDGEN" wit-bindgen c
  cargo_tool wasm-tools "$WASM_TOOLS" wasm-tools component
  # Their build directory is only needed while both install (~0.5 GB).
  rm -rf "$tools/build"
  adapter="$tools/wasi_snapshot_preview1.reactor-$ADAPTER.wasm"
  if [ ! -f "$adapter" ]; then
    mkdir -p "$tools"
    crate="$tools/adapter-$ADAPTER.crate"
    curl -sSfL -o "$crate" "https://static.crates.io/crates/wasi-preview1-component-adapter-provider/wasi-preview1-component-adapter-provider-$ADAPTER.crate"
    echo "$ADAPTER_SHA256  $crate" | sha256sum -c --quiet
    tar -xzOf "$crate" "wasi-preview1-component-adapter-provider-$ADAPTER/artefacts/wasi_snapshot_preview1.reactor.wasm" > "$adapter.part"
    mv "$adapter.part" "$adapter"
    rm "$crate"
  fi
}

if ! command -v clang-19 >/dev/null || [ ! -d /usr/include/wasm32-wasi ]; then
  echo "build.sh: needs clang 19 and wasi-libc: apt-get install clang-19 lld-19 wasi-libc libclang-rt-19-dev-wasm32" >&2
  exit 1
fi
install_tools
[ "${1:-}" = "--install-tools" ] && exit 0

rm -rf gen
wit-bindgen c wit --world hook --out-dir gen >/dev/null
# A reactor: a library the host calls into, not a program with a main.
clang-19 --target=wasm32-wasi -mexec-model=reactor -Os -Wall -Wextra -Werror -Igen \
  hook.c gen/hook.c gen/hook_component_type.o -o hook.core.wasm
wasm-tools component new hook.core.wasm --adapt "wasi_snapshot_preview1=$adapter" -o hook.wasm
rm hook.core.wasm
echo "built hook.wasm ($(wc -c < hook.wasm) bytes)"
