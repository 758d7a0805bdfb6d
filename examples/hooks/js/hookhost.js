// Helpers for hookhost hooks written in JavaScript (componentize-js, world `hook` of the WIT
// `hookhost wit` writes). Decisions and events are the plain objects componentize-js maps the
// WIT to: variants are `{ tag, val }`, records camelCase.
//
//   import { hook, block, passes, rewriteInput, shellCommand } from './hookhost.js';
//   export const handler = hook({
//     handle(event, ctx) {
//       if (shellCommand(event)?.includes('rm -rf')) return block('recursive delete', { userMessage: 'Blocked by policy.' });
//       return passes();
//     },
//   });

/** Tool names that run shell commands, as the runtimes name them. */
export const SHELL_TOOLS = ['bash', 'Bash', 'shell', 'run_shell_command', 'exec_command'];

const decision = (verdict, effects = []) => ({ verdict, effects });

/** No opinion (with any effects given). */
export const passes = (...effects) => decision({ tag: 'pass' }, effects);
/** Approve the action. */
export const allow = (reason, ...effects) => decision({ tag: 'allow', val: reason }, effects);
/** Ask the human first. */
export const ask = (reason) => decision({ tag: 'ask', val: reason });
/** Refuse the action: `reason` goes to the model, `userMessage` to the human. */
export const block = (reason, { userMessage } = {}) => decision({ tag: 'block', val: { reason, userMessage } });
/** Stop the agent. */
export const halt = (reason) => decision({ tag: 'halt', val: reason });

/** Replace the tool call's arguments (an object). */
export function rewriteInput(args) {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new TypeError('rewriteInput takes the tool arguments as an object');
  return { tag: 'rewrite-input', val: JSON.stringify(args) };
}
/** Replace the user's prompt. */
export const rewritePrompt = (message) => ({ tag: 'rewrite-prompt', val: message });
/** Replace the tool's output (any JSON value). */
export const rewriteOutput = (output) => ({ tag: 'rewrite-output', val: JSON.stringify(output) });
/** Add context for the model. */
export const addContext = (text) => ({ tag: 'add-context', val: text });
/** Show the human a message. */
export const notifyUser = (text) => ({ tag: 'notify-user', val: text });

/** The tool call of a pre-tool-use or permission-request event. */
export const toolCall = (event) => (event.tag === 'pre-tool-use' || event.tag === 'permission-request' ? event.val : undefined);

/** The arguments of the event's tool call (or result), parsed. */
export function toolArguments(event) {
  if (!['pre-tool-use', 'permission-request', 'post-tool-use', 'tool-result-transform'].includes(event.tag)) return undefined;
  const args = JSON.parse(event.val.arguments);
  return args !== null && typeof args === 'object' && !Array.isArray(args) ? args : undefined;
}

/** The command line of a shell tool call (`command`, or `cmd`), if the event is one. */
export function shellCommand(event) {
  const call = toolCall(event);
  if (!call || !SHELL_TOOLS.includes(call.name)) return undefined;
  const args = toolArguments(event) ?? {};
  const command = args.command ?? args.cmd;
  if (Array.isArray(command)) return command.join(' ');
  return typeof command === 'string' ? command : undefined;
}

/** The user's prompt of a user-prompt-submit event. */
export const prompt = (event) => (event.tag === 'user-prompt-submit' ? event.val.message : undefined);

/** The hook's settings as an object, from validateSettings' string or a context. */
export function settingsOf(settingsOrCtx) {
  const text = typeof settingsOrCtx === 'string' ? settingsOrCtx : settingsOrCtx.settings;
  const value = JSON.parse(text || '{}');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('settings must be a JSON object');
  return value;
}

/** A state call failed: `kind` is 'quota', 'invalid' or 'unavailable'. */
export class StateError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = 'StateError';
    this.kind = kind;
  }
}

/**
 * This hook's state in the current session (contract 0.3.0), over the interface the component
 * imports: `stateOf(await import(...))` or, in a hook file,
 *
 *   import * as witState from 'hookhost:hooks/state@0.3.0';
 *   const state = stateOf(witState);
 *   const n = state.incr('blocks');          // 1, 2, 3, ... in this session
 *
 * Keys and values are strings the host keeps across events and `hookhost run` processes until
 * the session ends or the value expires; only this plugin, in this session, sees them. A
 * failed call throws a `StateError` (the host's `quota`, `invalid` or `unavailable`).
 */
export function stateOf(wit) {
  const call = (name, ...args) => {
    try {
      return wit[name](...args);
    } catch (e) {
      // componentize-js throws a result's error as `{ payload }`; componentize-qjs as the value.
      const err = e?.payload ?? e;
      if (err !== null && typeof err === 'object' && typeof err.tag === 'string') throw new StateError(err.tag, String(err.val));
      throw e;
    }
  };
  const state = {
    get: (key) => call('get', key) ?? undefined,
    set: (key, value, ttlSeconds) => void call('set', key, value, ttlSeconds),
    delete: (key) => void call('delete', key),
    // An s64 is a number to componentize-qjs and a BigInt to componentize-js: the other one's
    // type is a TypeError before anything reaches the host, so the call is made again.
    incr: (key, delta = 1, ttlSeconds) => {
      try {
        return Number(call('incr', key, delta, ttlSeconds));
      } catch (e) {
        if (!(e instanceof TypeError)) throw e;
        return Number(call('incr', key, BigInt(delta), ttlSeconds));
      }
    },
    keys: (prefix = '') => call('keys', prefix),
    getJson: (key) => {
      const text = state.get(key);
      return text === undefined ? undefined : JSON.parse(text);
    },
    setJson: (key, value, ttlSeconds) => state.set(key, JSON.stringify(value), ttlSeconds),
  };
  return state;
}

const message = (e) => (e instanceof Error ? `${e.name}: ${e.message}${e.stack ? `\n${e.stack}` : ''}` : String(e));

/**
 * Wrap a handler so an exception becomes the hook's error with its text: componentize-js
 * accepts only strings as a `result`'s error, so a thrown `Error` would otherwise trap as
 * "expected a string". `validateSettings` defaults to accepting any JSON object.
 */
export function hook({ handle, validateSettings = settingsOf }) {
  return {
    validateSettings(settings) {
      try {
        validateSettings(settings);
      } catch (e) {
        throw message(e);
      }
    },
    handle(event, ctx) {
      try {
        return handle(event, ctx);
      } catch (e) {
        throw message(e);
      }
    },
  };
}
