#!/usr/bin/env node
// Runs every test file (test/**/*.test.ts) with node's test runner through tsx.
// Node 20 has no glob support for --test, so the files are listed here.
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const filter = process.argv.slice(2);
let files = readdirSync('test', { recursive: true })
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => path.join('test', name))
  .sort();
if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const args = ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`, ...files];
const r = spawnSync(process.execPath, args, { stdio: 'inherit', env: process.env });
process.exit(r.status ?? 1);
