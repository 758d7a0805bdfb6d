#!/usr/bin/env bash
# Builds hook.wasm, the component hookhost loads, with componentize-py (pinned; installed with
# pip when missing). `-w hook` names the world: componentize-py needs it.
set -euo pipefail
cd "$(dirname "$0")"
version=0.25.1
if [ "$(componentize-py --version 2>/dev/null)" != "componentize-py $version" ]; then
  python3 -m pip install -q "componentize-py==$version"
  if command -v pyenv >/dev/null; then pyenv rehash; fi
fi
componentize-py -d wit -w hook componentize app -o hook.wasm
echo "built hook.wasm ($(wc -c < hook.wasm) bytes)"
