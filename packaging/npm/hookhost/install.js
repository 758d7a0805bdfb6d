'use strict';
// postinstall: where npm links a package's binaries directly (not Windows, whose command shims
// run node), put the native binaries in the launchers' place, so a runtime that spawns hookhost
// for every hook does not start node first (tens of milliseconds a call). Whatever fails here
// leaves the launchers, which work: the install never fails because of this step.
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const { binaryPath } = require('./lib/platform');

if (process.platform !== 'win32') {
  for (const name of ['hookhost', 'hookhost-send']) {
    const native = binaryPath(name);
    if (typeof native !== 'string') continue;
    const dest = path.join(__dirname, 'bin', name);
    const tmp = `${dest}.native-${process.pid}`;
    try {
      // Only a binary that starts here replaces its launcher.
      if (name === 'hookhost') execFileSync(native, ['--version'], { stdio: 'ignore', timeout: 30000 });
      fs.copyFileSync(native, tmp);
      fs.chmodSync(tmp, 0o755);
      fs.renameSync(tmp, dest);
    } catch (_) {
      try {
        fs.unlinkSync(tmp);
      } catch (_) {}
    }
  }
}
