/**
 * `parley serve --workers N`: N processes share one port over one database (SQLite or PostgreSQL),
 * the primary applies the admin rule once, replaces a worker that dies, stops all of them on
 * SIGTERM, and gives up when a worker cannot listen.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { dropSchema } from '../src/db/database.js';
import { admin, basic, dialects, freshEnv } from './helpers/parley.js';
import { freePort } from './helpers/processes.js';

const MAIN = path.resolve('src/main.ts');

/** The pids of `pid`'s child processes (Linux /proc). */
function childrenOf(pid: number): number[] {
  const text = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text ? text.split(/\s+/).map(Number) : [];
}

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch {
      // not yet
    }
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One request on a connection of its own, so the kernel may hand it to any worker. */
async function me(url: string): Promise<number> {
  const res = await fetch(`${url}/ocs/v2.php/cloud/user?format=json`, {
    headers: { 'OCS-APIRequest': 'true', Authorization: basic(admin.user!, admin.password!), Connection: 'close' },
  });
  await res.arrayBuffer();
  return res.status;
}

for (const dialect of dialects()) {
  describe(`parley serve --workers [${dialect}]`, () => {
    const env = freshEnv(dialect, { JOBS: 'false' });
    let primary: ChildProcess | undefined;
    let output = '';
    after(async () => {
      if (primary && primary.exitCode === null) {
        primary.kill('SIGKILL');
        for (const pid of childrenOf(primary.pid!)) process.kill(pid, 'SIGKILL');
      }
      if (env.DATABASE_SCHEMA) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
      fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
    });

    it('two workers serve one port, a killed worker is replaced, SIGTERM stops all', async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      primary = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve', '--workers', '2'], {
        env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      primary.stdout!.on('data', (c) => (output += c));
      primary.stderr!.on('data', (c) => (output += c));
      const pid = primary.pid!;
      await until('two workers listening', () => (output.match(/Parley listening on/g) ?? []).length === 2 || undefined);
      const workers = childrenOf(pid);
      assert.equal(workers.length, 2, output);
      const statuses = await Promise.all(Array.from({ length: 20 }, () => me(url)));
      assert.deepEqual(statuses, Array(20).fill(200));

      process.kill(workers[0], 'SIGKILL');
      await until('a new worker', () => {
        const now = childrenOf(pid);
        return now.length === 2 && !now.includes(workers[0]) ? now : undefined;
      });
      assert.match(output, /a worker stopped; starting another/);
      await until('the new worker listening', () => (output.match(/Parley listening on/g) ?? []).length === 3 || undefined);
      assert.equal(await me(url), 200);

      const exited = new Promise<number | null>((r) => primary!.once('exit', (code) => r(code)));
      const last = childrenOf(pid);
      primary.kill('SIGTERM');
      assert.equal(await exited, 0, output);
      for (const w of last) assert.throws(() => process.kill(w, 0), 'every worker stopped');
    });
  });
}

describe('parley serve --workers: a worker that cannot listen stops the supervisor', () => {
  const env = freshEnv('sqlite', { JOBS: 'false' });
  const taken = net.createServer();
  after(() => {
    taken.close();
    fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
  });

  it('exits 1 and says why when the port is taken; a bad --workers value is refused', async () => {
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', () => r()));
    const port = (taken.address() as net.AddressInfo).port;
    const run = (args: string[]) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve', ...args], {
          env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout!.on('data', (c) => (out += c));
        child.stderr!.on('data', (c) => (out += c));
        child.on('exit', (code) => resolve({ code, out }));
      });
    const r = await run(['--workers', '2']);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /a worker stopped before it listened/);
    const bad = await run(['--workers', '0']);
    assert.equal(bad.code, 1, bad.out);
    assert.match(bad.out, /WORKERS must be between 1 and 64, got 0/);
  });
});
