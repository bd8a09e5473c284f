#!/usr/bin/env node
// `npm start`: builds only when dist/ is missing or older than its sources (a full tsc build
// takes from seconds to a minute on a small machine; a restart should not pay it again).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildState } from '../bin/build-state.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const state = buildState(root);
if (state === 'missing' || state === 'stale') {
  process.stderr.write(`parley: building (${state === 'missing' ? 'no build yet' : 'sources changed'})\n`);
  const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
