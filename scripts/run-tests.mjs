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
// spec prints each test (a skipped one with its reason after `#`); skip-reporter.mjs ends the run
// with the number of skipped suites and tests and why each was skipped.
const reporters = [
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  '--test-reporter=./scripts/skip-reporter.mjs',
  '--test-reporter-destination=stdout',
];
const args = ['--import', 'tsx', '--test', ...reporters, `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 2}`, ...files];
const r = spawnSync(process.execPath, args, { stdio: 'inherit', env: process.env });
process.exit(r.status ?? 1);
