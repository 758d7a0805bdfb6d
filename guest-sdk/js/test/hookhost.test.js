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

// The host's `state` interface, natively: a Map, and the error shapes the toolchains throw.
function fakeState(throwAs, bigint = false) {
  const values = new Map();
  return {
    get: (k) => values.get(k),
    set: (k, v) => {
      if (v.length > 10) throw throwAs({ tag: 'quota', val: `the value for state key "${k}" is ${v.length} bytes; the limit is 10` });
      values.set(k, v);
    },
    delete: (k) => values.delete(k),
    incr: (k, d) => {
      // componentize-js takes an s64 as a BigInt only; componentize-qjs as a number only.
      if (typeof d !== (bigint ? 'bigint' : 'number')) throw new TypeError(`expected ${bigint ? 'a BigInt' : 'a number'}`);
      const n = BigInt(values.get(k) ?? '0') + BigInt(d);
      values.set(k, String(n));
      return bigint ? n : Number(n);
    },
    keys: (p) => [...values.keys()].filter((k) => k.startsWith(p)).sort(),
  };
}

test('state calls reach the interface', () => {
  assert.equal(h.stateOf(fakeState((e) => e, true)).incr('n', 2), 2, 'as componentize-js takes an s64');
  const state = h.stateOf(fakeState((e) => e));
  assert.equal(state.incr('n'), 1);
  assert.equal(state.incr('n', 4), 5);
  state.setJson('j', [1]);
  assert.deepEqual(state.getJson('j'), [1]);
  assert.deepEqual(state.keys(), ['j', 'n']);
  state.delete('n');
  assert.equal(state.get('n'), undefined);
  assert.equal(state.getJson('n'), undefined);
});

test("a host's state error is a StateError of its kind, as either toolchain throws it", () => {
  for (const throwAs of [(e) => e, (e) => Object.assign(new Error('ComponentError'), { payload: e })]) {
    const state = h.stateOf(fakeState(throwAs));
    assert.throws(() => state.set('k', 'x'.repeat(11)), (e) => e instanceof h.StateError && e.kind === 'quota' && e.message === 'the value for state key "k" is 11 bytes; the limit is 10');
  }
});
