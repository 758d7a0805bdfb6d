#!/usr/bin/env bash
# The tools `cargo xtask dist --target all` builds and smoke-tests with, pinned: zig and
# cargo-zigbuild (both from PyPI) for macOS, musl and Linux arm64 (and glibc 2.28 for every gnu build);
# mingw-w64 for Windows; wine64 and qemu-user to run the Windows and arm64 builds here; the Rust
# targets. Debian/Ubuntu (apt-get); run once per machine. The smoke test makes its own Wine
# prefix (target/smoke/wine-prefix).
set -euo pipefail
cd "$(dirname "$0")/.."
toolchain="$(sed -n 's/^channel = "\(.*\)"/\1/p' rust-toolchain.toml)"
rustup target add --toolchain "$toolchain" \
  x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-unknown-linux-musl aarch64-unknown-linux-musl \
  x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-gnu
# cargo-zigbuild's own wheel carries its prebuilt binary (no cargo install: minutes of CPU).
python3 -m pip install -q "ziglang==0.13.0" "cargo-zigbuild==0.20.1"
if command -v pyenv >/dev/null; then pyenv rehash; fi
missing=()
command -v x86_64-w64-mingw32-gcc >/dev/null || missing+=(gcc-mingw-w64-x86-64)
command -v wine >/dev/null || missing+=(wine wine64)
command -v qemu-aarch64 >/dev/null || missing+=(qemu-user)
# The arm64 glibc the gnu build loads under qemu-user (qemu-aarch64 -L /usr/aarch64-linux-gnu).
[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || missing+=(libc6-arm64-cross)
command -v npm >/dev/null || missing+=(npm)
command -v minisign >/dev/null || missing+=(minisign)
if ((${#missing[@]})); then
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
echo "release tools ready: zig $(python3 -m ziglang version), $(cargo-zigbuild --version)"
