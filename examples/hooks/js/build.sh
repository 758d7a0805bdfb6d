#!/usr/bin/env bash
# Builds hook.wasm, the component hookhost loads, with componentize-js (pinned in package.json
# and package-lock.json; installed with npm when missing). Needs Node.js 20 or newer.
# (`npm install` honours the lock file; `npm ci` refuses it wherever the registry lacks other
# platforms' optional binaries.)
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d node_modules/@bytecodealliance/componentize-js ]; then
  npm install --no-audit --no-fund --loglevel=error
fi
node build.mjs
