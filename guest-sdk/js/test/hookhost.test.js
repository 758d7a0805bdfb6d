// Native tests of hookhost.js (node's test runner): the shapes componentize-js maps the WIT to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as h from '../hookhost.js';

const call = (name, args) => ({ name, callId: 'c1', arguments: JSON.stringify(args) });

test('verdicts', () => {
  assert.deepEqual(h.passes(), { verdict: { tag: 'pass' }, effects: [] });
  assert.deepEqual(h.allow('fine'), { verdict: { tag: 'allow', val: 'fine' }, effects: [] });
  assert.deepEqual(h.ask('sure?'), { verdict: { tag: 'ask', val: 'sure?' }, effects: [] });
  assert.deepEqual(h.block('no', { userMessage: 'Blocked.' }), { verdict: { tag: 'block', val: { reason: 'no', userMessage: 'Blocked.' } }, effects: [] });
  assert.deepEqual(h.halt('enough'), { verdict: { tag: 'halt', val: 'enough' }, effects: [] });
});

test('effects', () => {
  const d = h.passes(h.rewriteInput({ command: 'deploy --dry-run' }), h.addContext('ctx'), h.notifyUser('hi'));
  assert.deepEqual(d.effects, [
    { tag: 'rewrite-input', val: '{"command":"deploy --dry-run"}' },
    { tag: 'add-context', val: 'ctx' },
    { tag: 'notify-user', val: 'hi' },
  ]);
  assert.deepEqual(h.rewriteOutput({ rows: 1 }), { tag: 'rewrite-output', val: '{"rows":1}' });
  assert.throws(() => h.rewriteInput('x'), TypeError);
});

test('events', () => {
  assert.equal(h.shellCommand({ tag: 'pre-tool-use', val: call('Bash', { command: 'rm -rf /' }) }), 'rm -rf /');
  assert.equal(h.shellCommand({ tag: 'pre-tool-use', val: call('shell', { cmd: ['ls', '-la'] }) }), 'ls -la');
  assert.equal(h.shellCommand({ tag: 'pre-tool-use', val: call('Write', { command: 'x' }) }), undefined);
  assert.equal(h.prompt({ tag: 'user-prompt-submit', val: { message: 'hi' } }), 'hi');
  assert.deepEqual(h.settingsOf('{"strict":true}'), { strict: true });
  assert.deepEqual(h.settingsOf({ settings: '' }), {});
  assert.throws(() => h.settingsOf('[1]'));
});

test('an exception becomes the hook error with its text', () => {
  const handler = h.hook({ handle() { throw new Error('boom'); } });
  assert.throws(() => handler.handle({ tag: 'turn-start' }, {}), (e) => typeof e === 'string' && e.startsWith('Error: boom'));
  assert.throws(() => handler.validateSettings('[]'), (e) => e === 'Error: settings must be a JSON object' || e.startsWith('Error: settings must be a JSON object'));
  assert.deepEqual(h.hook({ handle: () => h.passes() }).handle({ tag: 'turn-start' }, {}), h.passes());
});
