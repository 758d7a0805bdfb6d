'use strict';
// Which of hookhost's per-platform packages (@hookhost/cli-<os>-<cpu>[-musl], installed by npm
// as an optional dependency where its `os`, `cpu` and `libc` match) carries this machine's
// binaries, and where they are.
const fs = require('fs');
const path = require('path');

function isMusl() {
  if (process.platform !== 'linux') return false;
  try {
    // Node reports the glibc it runs on; on musl there is none.
    return !process.report.getReport().header.glibcVersionRuntime;
  } catch (_) {
    return fs.existsSync('/etc/alpine-release');
  }
}

// The packages to look in, best first.
function candidates() {
  const base = `@hookhost/cli-${process.platform}-${process.arch}`;
  if (process.platform === 'linux') return isMusl() ? [`${base}-musl`] : [base, `${base}-musl`];
  // Windows on Arm runs the x64 build.
  if (process.platform === 'win32' && process.arch === 'arm64') return ['@hookhost/cli-win32-x64'];
  return [base];
}

// The path of the native `name` (hookhost, hookhost-send), or { missing: [packages looked in] }.
function binaryPath(name) {
  const exe = process.platform === 'win32' ? `${name}.exe` : name;
  const missing = [];
  for (const pkg of candidates()) {
    let dir;
    try {
      dir = path.dirname(require.resolve(`${pkg}/package.json`));
    } catch (_) {
      missing.push(pkg);
      continue;
    }
    const file = path.join(dir, 'bin', exe);
    if (fs.existsSync(file)) return file;
    missing.push(`${pkg} (installed, but without bin/${exe})`);
  }
  return { missing };
}

module.exports = { binaryPath, candidates };
