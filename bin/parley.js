#!/usr/bin/env node
// The `parley` command: runs the built server (npm run build), or the TypeScript sources
// through tsx when no build exists or src/ changed after the build (a checkout used for
// development), saying so on stderr so that nobody runs yesterday's code by surprise.
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { buildState } from './build-state.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const state = buildState(root);
if (state === 'fresh' || state === 'no-sources') {
  await import(pathToFileURL(path.join(root, 'dist', 'main.js')).href);
} else {
  if (state === 'stale') process.stderr.write('parley: src/ is newer than dist/ (run `npm run build`); running the sources through tsx\n');
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(path.join(root, 'src', 'main.ts')).href);
}
