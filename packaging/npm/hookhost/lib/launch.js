'use strict';
// Run the native binary with this process's arguments, standard streams and exit status.
const { spawnSync } = require('child_process');
const { binaryPath } = require('./platform');

module.exports = function launch(name) {
  const found = binaryPath(name);
  if (typeof found !== 'string') {
    process.stderr.write(
      `${name}: no native ${name} for ${process.platform}-${process.arch} is installed ` +
        `(looked in ${found.missing.join(', ')}). npm installs it as an optional dependency: ` +
        `reinstall without --omit=optional / --no-optional, or install a release archive ` +
        `(https://github.com/hookhost/hookhost/releases).\n`,
    );
    process.exit(1);
  }
  const r = spawnSync(found, process.argv.slice(2), { stdio: 'inherit', windowsHide: true });
  if (r.error) {
    process.stderr.write(`${name}: cannot run ${found}: ${r.error.message}\n`);
    process.exit(1);
  }
  if (r.signal) {
    process.kill(process.pid, r.signal);
    return;
  }
  process.exit(r.status === null ? 1 : r.status);
};
