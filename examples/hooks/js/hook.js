// The example guard hook in JavaScript: blocks destructive shell commands, turns
// `git push --force` into `--force-with-lease`, and adds context to every prompt. The same policy
// is written in Rust, Python and C; scenarios.toml says what it must do.
//
// Build: ./build.sh (componentize-js, world `hook`). Test: hookhost test --plugin hook.wasm scenarios.toml

import * as witState from 'hookhost:hooks/state@0.3.0';
import { addContext, block, hook, passes, rewriteInput, shellCommand, stateOf, StateError, toolArguments } from './hookhost.js';

const state = stateOf(witState);

const USER_MESSAGE = 'The guard hook blocked this command: it would destroy data.';
const PROMPT_CONTEXT = 'Guard hook: destructive shell commands are blocked; git push --force becomes --force-with-lease.';
const ROOT_OR_HOME = ['/', '/*', '~', '~/', '$HOME'];
const FORCE = ['--force', '-f'];

/** Words split on spaces, tabs and line breaks. */
const words = (command) => command.split(/[ \t\n\r]+/).filter((w) => w !== '');

function destructive(ws) {
  if (ws.some((w) => w.startsWith('mkfs'))) return 'destructive command: formats a filesystem';
  const recursive = ws.some((w) => w === '--recursive' || (w.startsWith('-') && !w.startsWith('--') && /[rR]/.test(w)));
  if (ws.includes('rm') && recursive && ws.some((w) => ROOT_OR_HOME.includes(w))) {
    return 'destructive command: recursive delete of a root or home directory';
  }
  return undefined;
}

function leaseInsteadOfForce(ws) {
  if (ws.length < 2 || ws[0] !== 'git' || ws[1] !== 'push' || !ws.some((w) => FORCE.includes(w))) return undefined;
  return ws.map((w) => (FORCE.includes(w) ? '--force-with-lease' : w)).join(' ');
}

export const handler = hook({
  handle(event) {
    if (event.tag === 'user-prompt-submit') return passes(addContext(PROMPT_CONTEXT));
    const command = shellCommand(event);
    if (command === undefined) return passes();
    const ws = words(command);
    let reason = destructive(ws);
    if (reason) {
      // Count this session's blocks in the hook's state (contract 0.3.0). A store the host
      // cannot reach leaves the count out: it never lets the command through.
      try {
        reason = `${reason} (block ${state.incr('blocks')} in this session)`;
      } catch (e) {
        if (!(e instanceof StateError)) throw e;
      }
      return block(reason, { userMessage: USER_MESSAGE });
    }
    const args = toolArguments(event) ?? {};
    // The rewrite applies to a `command` string, the common shape.
    const safer = typeof args.command === 'string' ? leaseInsteadOfForce(ws) : undefined;
    if (safer) return passes(rewriteInput({ ...args, command: safer }));
    return passes();
  },
});
