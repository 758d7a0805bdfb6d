#!/usr/bin/env bash
# Builds hook.wasm, the component hookhost loads, from hook.js. Needs Node.js 20 or newer; the
# toolchains are pinned in package.json and package-lock.json and installed with npm when missing.
# (`npm install` honours the lock file; `npm ci` refuses it wherever the registry lacks other
# platforms' optional binaries.)
#
# JS_ENGINE picks the JavaScript engine built into the component:
#   quickjs (default)  componentize-qjs 0.4.5: QuickJS, a ~1.6 MB component, ~0.13 ms a call
#   spidermonkey       componentize-js 0.23.0 (build.mjs): SpiderMonkey, ~12 MB, ~0.3 ms a call
set -euo pipefail
cd "$(dirname "$0")"
engine="${JS_ENGINE:-quickjs}"
case "$engine" in
  quickjs) needs=node_modules/componentize-qjs ;;
  spidermonkey) needs=node_modules/@bytecodealliance/componentize-js ;;
  *) echo "build.sh: JS_ENGINE=$engine: give quickjs (the default) or spidermonkey" >&2; exit 2 ;;
esac
if [ ! -d "$needs" ]; then
  npm install --no-audit --no-fund --loglevel=error
fi
if [ "$engine" = spidermonkey ]; then
  node build.mjs
else
  # --sync: the synchronous component ABI (hookhost calls hooks synchronously); --module-root:
  # where `import ... from './hookhost.js'` is resolved while the engine is snapshotted.
  node_modules/.bin/componentize-qjs --wit wit --world hook --js hook.js --module-root . --sync -o hook.wasm >/dev/null
  echo "built hook.wasm ($(wc -c < hook.wasm) bytes, QuickJS)"
fi
