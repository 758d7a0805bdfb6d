#!/bin/sh
# Install hookhost from its signed release: detect the platform, fetch the archive, check
# SHA256SUMS against the release key this script carries (and, for the release it was published
# with, against the digest it carries), check the archive against SHA256SUMS, check that the
# binary runs here — and only then put hookhost and hookhost-send in place. Any mismatch stops
# it with one message, and nothing is installed.
#
#   curl -fsSL https://github.com/hookhost/hookhost/releases/latest/download/install.sh | sh
#   sh install.sh [--version V] [--from URL|DIR] [--bin-dir DIR | --prefix DIR] [--target TRIPLE]
#
# POSIX sh. Needs curl or wget (not for --from DIR), tar, and a signature verifier: minisign, or
# OpenSSL 1.1.1+ (Ed25519 and BLAKE2b).
set -eu

# Stamped by `cargo xtask dist` (packaging/install.sh in the repository carries the release key).
RELEASE_VERSION='0.1.0'
RELEASE_BASE_URL='https://github.com/hookhost/hookhost/releases/download/v0.1.0'
RELEASE_KEY='RWQ5tnL+ayY0dFTlXLB7SLA2FGP79eS7av2Qi4mKvJ0aEvpeGCbaMJ57'
RELEASE_SUMS_SHA256=''

DOWNLOADS='https://github.com/hookhost/hookhost/releases/download'

say() { printf 'hookhost-install: %s\n' "$*" >&2; }
fail() {
  say "error: $*"
  say "nothing was installed"
  exit 1
}

usage() {
  cat <<EOF
Install hookhost and hookhost-send from a signed release.

usage: install.sh [options]
  --version V      the release to install (default: $RELEASE_VERSION)
  --from URL|DIR   where the release's files are: a URL or a local directory
                   (default: $RELEASE_BASE_URL)
  --bin-dir DIR    install the binaries into DIR (default: \$HOME/.local/bin)
  --prefix DIR     install the binaries into DIR/bin
  --target TRIPLE  install this build instead of the one this machine needs
  -h, --help       this text

Environment: HOOKHOST_VERSION, HOOKHOST_INSTALL_FROM, HOOKHOST_BIN_DIR (as the options);
HOOKHOST_INSTALL_VERIFIER=minisign|openssl to choose the signature verifier.
EOF
}

version="${HOOKHOST_VERSION:-$RELEASE_VERSION}"
from="${HOOKHOST_INSTALL_FROM:-}"
bin_dir="${HOOKHOST_BIN_DIR:-}"
target=""
while [ $# -gt 0 ]; do
  case "$1" in
    --version) [ $# -ge 2 ] || fail "--version needs a value"; version="${2#v}"; shift 2 ;;
    --from) [ $# -ge 2 ] || fail "--from needs a value"; from="$2"; shift 2 ;;
    --bin-dir) [ $# -ge 2 ] || fail "--bin-dir needs a value"; bin_dir="$2"; shift 2 ;;
    --prefix) [ $# -ge 2 ] || fail "--prefix needs a value"; bin_dir="$2/bin"; shift 2 ;;
    --target) [ $# -ge 2 ] || fail "--target needs a value"; target="$2"; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) fail "unknown option $1 (see --help)" ;;
  esac
done
case "$version" in
  '' | *[!0-9A-Za-z.+-]*) fail "--version $version is not a version (e.g. $RELEASE_VERSION)" ;;
esac
if [ -z "$bin_dir" ]; then
  [ -n "${HOME:-}" ] || fail "HOME is not set: give --bin-dir DIR"
  bin_dir="$HOME/.local/bin"
fi
if [ -z "$from" ]; then
  if [ "$version" = "$RELEASE_VERSION" ]; then from="$RELEASE_BASE_URL"; else from="$DOWNLOADS/v$version"; fi
fi

# The build this machine runs.
glibc_at_least() { # major minor
  v="$(getconf GNU_LIBC_VERSION 2>/dev/null | sed -n 's/^glibc \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')"
  [ -n "$v" ] || return 1
  set -- "$1" "$2" $v
  [ "$3" -gt "$1" ] || { [ "$3" -eq "$1" ] && [ "$4" -ge "$2" ]; }
}
detect_target() {
  case "$(uname -m)" in
    x86_64 | amd64) cpu=x86_64 ;;
    aarch64 | arm64) cpu=aarch64 ;;
    *) fail "there is no hookhost release for this CPU ($(uname -m)); build it from source: cargo install --locked --git https://github.com/hookhost/hookhost hookhost-cli" ;;
  esac
  case "$(uname -s)" in
    Linux)
      # The gnu builds need glibc 2.28 or newer; the static musl builds run on any Linux.
      if glibc_at_least 2 28; then echo "$cpu-unknown-linux-gnu"; else echo "$cpu-unknown-linux-musl"; fi ;;
    Darwin)
      # A shell under Rosetta reports x86_64 on Apple silicon: install the native build.
      if [ "$cpu" = x86_64 ] && [ "$(sysctl -n hw.optional.arm64 2>/dev/null || true)" = 1 ]; then cpu=aarch64; fi
      echo "$cpu-apple-darwin" ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT)
      fail "on Windows, use install.ps1 (PowerShell): irm $DOWNLOADS/v$version/install.ps1 | iex" ;;
    *) fail "there is no hookhost release for $(uname -s)" ;;
  esac
}
[ -n "$target" ] || target="$(detect_target)"
case "$target" in
  *windows*) archive="hookhost-$version-$target.zip" ;;
  *) archive="hookhost-$version-$target.tar.gz" ;;
esac

tmp="$(mktemp -d 2>/dev/null || mktemp -d -t hookhost-install)" || fail "cannot make a temporary directory"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

fetch() { # name
  if [ -d "$from" ]; then
    [ -f "$from/$1" ] || fail "$from/$1: no such file (is $from a hookhost $version release?)"
    cp "$from/$1" "$tmp/$1" || fail "cannot copy $from/$1"
  elif command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 -o "$tmp/$1" "$from/$1" || fail "cannot download $from/$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$tmp/$1" "$from/$1" || fail "cannot download $from/$1"
  else
    fail "neither curl nor wget is installed: install one, or download the release and use --from DIR"
  fi
}

sha256() { # file
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 -r "$1" | cut -d' ' -f1
  else fail "no SHA-256 tool (sha256sum, shasum or openssl) is installed"
  fi
}

# The bytes from..from+count of a file, as hex.
hex_of() { dd if="$1" bs=1 skip="$2" count="$3" 2>/dev/null | od -An -v -tx1 | tr -d ' \n'; }

# A minisign signature checked with OpenSSL (https://jedisct1.github.io/minisign/ "Signature
# format"): the key is "Ed" + key id (8) + Ed25519 key (32); the signature's second line is the
# algorithm ("ED": over the file's BLAKE2b-512; "Ed": over the file) + key id + signature (64);
# its fourth line signs that signature followed by the trusted comment.
openssl_usable() {
  command -v openssl >/dev/null 2>&1 &&
    openssl pkeyutl -help 2>&1 | grep -q rawin &&
    openssl dgst -blake2b512 -binary </dev/null >/dev/null 2>&1
}
verify_openssl() { # file sigfile
  d="$tmp/openssl"
  mkdir -p "$d"
  printf '%s' "$RELEASE_KEY" | openssl base64 -d -A >"$d/key" 2>/dev/null || fail "the release key this installer carries is not base64"
  [ "$(wc -c <"$d/key" | tr -d ' ')" = 42 ] || fail "the release key this installer carries is not a minisign key"
  sed -n 2p "$2" | tr -d '\r' | openssl base64 -d -A >"$d/sig" 2>/dev/null || return 1
  [ "$(wc -c <"$d/sig" | tr -d ' ')" = 74 ] || return 1
  [ "$(hex_of "$d/sig" 2 8)" = "$(hex_of "$d/key" 2 8)" ] || { say "SHA256SUMS.minisig is signed by another key (key id $(hex_of "$d/sig" 2 8))"; return 1; }
  # Ed25519 public key as DER: the SubjectPublicKeyInfo prefix 302a300506032b6570032100.
  { printf '\060\052\060\005\006\003\053\145\160\003\041\000'; dd if="$d/key" bs=1 skip=10 count=32 2>/dev/null; } >"$d/key.der"
  dd if="$d/sig" bs=1 skip=10 count=64 of="$d/sig.raw" 2>/dev/null
  case "$(hex_of "$d/sig" 0 2)" in
    4544) openssl dgst -blake2b512 -binary "$1" >"$d/signed" ;; # "ED"
    4564) cp "$1" "$d/signed" ;;                                 # "Ed"
    *) return 1 ;;
  esac
  openssl pkeyutl -verify -pubin -keyform DER -inkey "$d/key.der" -rawin -in "$d/signed" -sigfile "$d/sig.raw" >/dev/null 2>&1 || return 1
  comment="$(sed -n 3p "$2" | tr -d '\r')"
  case "$comment" in "trusted comment: "*) ;; *) return 1 ;; esac
  { cat "$d/sig.raw"; printf '%s' "${comment#trusted comment: }"; } >"$d/global"
  sed -n 4p "$2" | tr -d '\r' | openssl base64 -d -A >"$d/global.sig" 2>/dev/null || return 1
  openssl pkeyutl -verify -pubin -keyform DER -inkey "$d/key.der" -rawin -in "$d/global" -sigfile "$d/global.sig" >/dev/null 2>&1
}

fetch SHA256SUMS
fetch SHA256SUMS.minisig

pinned=no
if [ "$version" = "$RELEASE_VERSION" ] && [ -n "$RELEASE_SUMS_SHA256" ]; then
  [ "$(sha256 "$tmp/SHA256SUMS")" = "$RELEASE_SUMS_SHA256" ] || fail "SHA256SUMS from $from is not the one of hookhost $version this installer was published with (SHA-256 $RELEASE_SUMS_SHA256): a damaged or altered download"
  pinned=yes
fi

verifier="${HOOKHOST_INSTALL_VERIFIER:-}"
if [ -z "$verifier" ]; then
  if command -v minisign >/dev/null 2>&1; then verifier=minisign
  elif openssl_usable; then verifier=openssl
  else verifier=none
  fi
fi
case "$verifier" in
  minisign)
    command -v minisign >/dev/null 2>&1 || fail "HOOKHOST_INSTALL_VERIFIER=minisign, but minisign is not installed"
    minisign -V -q -P "$RELEASE_KEY" -m "$tmp/SHA256SUMS" -x "$tmp/SHA256SUMS.minisig" >/dev/null 2>&1 ||
      fail "SHA256SUMS from $from does not carry a valid signature of hookhost's release key $RELEASE_KEY: a damaged or altered download" ;;
  openssl)
    openssl_usable || fail "HOOKHOST_INSTALL_VERIFIER=openssl, but this openssl cannot check Ed25519 signatures (OpenSSL 1.1.1 or newer can)"
    verify_openssl "$tmp/SHA256SUMS" "$tmp/SHA256SUMS.minisig" ||
      fail "SHA256SUMS from $from does not carry a valid signature of hookhost's release key $RELEASE_KEY: a damaged or altered download" ;;
  none)
    [ "$pinned" = yes ] || fail "cannot check the release's signature: install minisign (brew install minisign, apt install minisign) or OpenSSL 1.1.1+, and run this again"
    say "no signature verifier (minisign, OpenSSL 1.1.1+) here: SHA256SUMS checked against the digest this installer carries" ;;
  *) fail "HOOKHOST_INSTALL_VERIFIER=$verifier: use minisign or openssl" ;;
esac

expected="$(awk -v f="$archive" '$2 == f { print $1 }' "$tmp/SHA256SUMS")"
[ -n "$expected" ] || fail "hookhost $version has no build for $target ($archive is not in SHA256SUMS)"
fetch "$archive"
[ "$(sha256 "$tmp/$archive")" = "$expected" ] || fail "$archive does not match SHA256SUMS: a damaged or altered download"

mkdir "$tmp/unpacked"
case "$archive" in
  *.zip) (cd "$tmp/unpacked" && unzip -q "../$archive") || fail "cannot unpack $archive (is unzip installed?)" ;;
  *) tar -xzf "$tmp/$archive" -C "$tmp/unpacked" || fail "cannot unpack $archive" ;;
esac
dir="$tmp/unpacked/hookhost-$version-$target"
case "$target" in *windows*) exe=.exe ;; *) exe= ;; esac
for b in hookhost hookhost-send; do
  [ -f "$dir/$b$exe" ] || fail "$archive has no $b$exe"
done
if [ -z "$exe" ]; then
  "$dir/hookhost" --version >/dev/null 2>&1 || fail "the $target build does not run on this machine ($(uname -sm)); pick another with --target"
fi

mkdir -p "$bin_dir" || fail "cannot create $bin_dir"
# Both binaries staged beside their places first, then each moved into place (a rename).
for b in hookhost hookhost-send; do
  cp "$dir/$b$exe" "$bin_dir/.$b$exe.new.$$" && chmod 755 "$bin_dir/.$b$exe.new.$$" || {
    rm -f "$bin_dir/.hookhost$exe.new.$$" "$bin_dir/.hookhost-send$exe.new.$$"
    fail "cannot write in $bin_dir"
  }
done
for b in hookhost hookhost-send; do
  mv -f "$bin_dir/.$b$exe.new.$$" "$bin_dir/$b$exe" || fail "cannot move $b$exe into $bin_dir"
done
say "installed hookhost $version ($target) in $bin_dir"
case ":${PATH:-}:" in
  *":$bin_dir:"*) ;;
  *) say "$bin_dir is not on your PATH: add it, e.g. echo 'export PATH=\"$bin_dir:\$PATH\"' >> ~/.profile" ;;
esac
say "shell completions are in the release archive (completions/); next: hookhost --help, and docs/INTEGRATIONS.md to wire your agent"
