/**
 * Real `parley serve` processes for tests of several processes on one database, and a free
 * loopback port for servers whose port must be known before they start.
 */
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dropSchema } from '../../src/db/database.js';
import { admin, basic, freePort, freshEnv, type DialectName } from './parley.js';

export { freePort };

const MAIN = path.resolve('src/main.ts');

export interface Proc {
  url: string;
  child: ChildProcess;
  output: () => string;
}

/** Starts `parley serve` on a free port and waits until /status.php answers. */
export async function serve(env: Record<string, string>): Promise<Proc> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'serve'], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`parley serve exited (${child.exitCode}): ${out}`);
    try {
      if ((await fetch(url + '/status.php')).ok) return { url, child, output: () => out };
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`parley serve did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Stops a process started by `serve` (SIGTERM to its own pid) and waits for it to exit. */
export async function stop(p: Proc | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  await exited;
}

/** An OCS JSON request against one process. */
export async function ocs(p: Proc, method: string, apiPath: string, auth: string, form?: Record<string, string> | URLSearchParams) {
  const res = await fetch(`${p.url}/ocs/v2.php${apiPath}${apiPath.includes('?') ? '&' : '?'}format=json`, {
    method,
    headers: {
      'OCS-APIRequest': 'true',
      Authorization: auth,
      ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
    },
    body: form ? new URLSearchParams(form).toString() : undefined,
  });
  const text = await res.text();
  return { status: res.status, data: JSON.parse(text).ocs.data };
}

/** The password of the users `useTwoProcesses` creates. */
export const TWO_PROCESS_PASSWORD = 'a long enough password for the tests';

/**
 * Two `parley serve` processes on one fresh database of `dialect` for the suite (started before
 * its first test, stopped and the database dropped after its last), with `users` created
 * (password TWO_PROCESS_PASSWORD). The getters answer once the processes run.
 */
export function useTwoProcesses(
  dialect: DialectName,
  users: string[],
  /** Settings of the second process only (e.g. its own DATABASE_URL), given the suite's environment. */
  envOfB: (env: Record<string, string>) => Record<string, string> = () => ({}),
): { a: () => Proc; b: () => Proc } {
  let env: Record<string, string>;
  let a: Proc | undefined;
  let b: Proc | undefined;
  before(async () => {
    env = freshEnv(dialect, { BRUTE_FORCE_MAX_ATTEMPTS: '1000', BRUTE_FORCE_DELAY_MS: '0' });
    a = await serve(env);
    b = await serve({ ...env, ...envOfB(env) });
    const adminAuth = basic(admin.user!, admin.password!);
    for (const userid of users) assert.equal((await ocs(a, 'POST', '/cloud/users', adminAuth, { userid, password: TWO_PROCESS_PASSWORD })).status, 200);
  });
  after(async () => {
    await Promise.all([stop(a), stop(b)]);
    if (env.DATABASE_URL && env.DATABASE_SCHEMA) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
    fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
  });
  return { a: () => a!, b: () => b! };
}
