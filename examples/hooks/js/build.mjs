// Builds hook.wasm from hook.js with componentize-js — SpiderMonkey — against the WIT world
// `hook` in ./wit (pinned in package.json and package-lock.json). Run as `JS_ENGINE=spidermonkey
// ./build.sh`; the default build (QuickJS, componentize-qjs) does not use this file.
import { componentize } from '@bytecodealliance/componentize-js';
import { writeFile } from 'node:fs/promises';

const { component } = await componentize({
  sourcePath: 'hook.js',
  witPath: 'wit',
  worldName: 'hook',
  // A hook needs none of these; leaving them out makes the component smaller and quicker to
  // start. (hookhost links wasi:http deny-by-default either way.)
  disableFeatures: ['http', 'fetch-event'],
});
await writeFile('hook.wasm', component);
console.log(`built hook.wasm (${component.byteLength} bytes)`);
