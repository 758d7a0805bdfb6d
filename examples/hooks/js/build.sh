#!/usr/bin/env bash
# Builds hook.wasm, the component hookhost loads, with componentize-js (pinned in package.json
# and package-lock.json; installed with npm when missing). Needs Node.js 20 or newer.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d node_modules/@bytecodealliance/componentize-js ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
node build.mjs
