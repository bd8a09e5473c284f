/**
 * `npm start` builds only when dist/ is missing or older than its sources, and `parley` notices a
 * stale build (bin/build-state.js), over a real directory with real modification times.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// @ts-expect-error: a plain ES module of the bin/ folder, without type declarations
import { buildState } from '../bin/build-state.js';

describe('build state (npm start skips an up-to-date build)', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-build-'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const touch = (file: string, secondsAgo: number) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    if (!fs.existsSync(path.join(root, file))) fs.writeFileSync(path.join(root, file), '');
    const t = new Date(Date.now() - secondsAgo * 1000);
    fs.utimesSync(path.join(root, file), t, t);
  };

  it('missing without dist/main.js, fresh after a build, stale when a source or build input changes', () => {
    touch('src/main.ts', 100);
    touch('src/http/server.ts', 100);
    touch('tsconfig.json', 100);
    assert.equal(buildState(root), 'missing');
    touch('dist/main.js', 50);
    assert.equal(buildState(root), 'fresh');
    touch('src/http/server.ts', 10);
    assert.equal(buildState(root), 'stale');
    touch('dist/main.js', 5);
    assert.equal(buildState(root), 'fresh');
    touch('tsconfig.json', 1);
    assert.equal(buildState(root), 'stale');
  });

  it('an installed package without src/ runs its build', () => {
    fs.rmSync(path.join(root, 'src'), { recursive: true });
    assert.equal(buildState(root), 'no-sources');
  });
});
