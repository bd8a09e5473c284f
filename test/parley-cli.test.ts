/**
 * The bare `parley` binary: `--version`, an unknown command (an error naming it, exit 1), and no
 * command at all, which serves (as `parley serve`). On the very first start the generated admin
 * password goes to stderr, apart from the JSON log on stdout, so a log collector never stores it.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dropSchema } from '../src/db/database.js';
import { TALK_VERSION } from '../src/domain/version.js';
import { idleSummary } from '../src/jobs/runner.js';
import { runCli, spawnCli } from './helpers/cli.js';
import { basic, dialects, freshEnv } from './helpers/parley.js';

const PACKAGE_VERSION = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { version: string }).version;
const VERSION_LINE = `parley ${PACKAGE_VERSION} (Nextcloud Talk API ${TALK_VERSION})\n`;

describe('parley: version, help and unknown commands', () => {
  it('--version and -v print the package version and the Talk API version, exit 0', async () => {
    for (const flag of ['--version', '-v']) {
      const r = await runCli({}, [flag]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, VERSION_LINE);
    }
    const real = await spawnCli({}, ['--version']);
    assert.equal(real.code, 0, real.stderr);
    assert.equal(real.stdout, VERSION_LINE);
  });

  it('an unknown command is an error that names it (exit 1), not a server start', async () => {
    const r = await runCli({}, ['frobnicate']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: unknown command 'frobnicate'/);
    const real = await spawnCli({}, ['user:frobnicate', 'x']);
    assert.equal(real.code, 1, real.stdout);
    assert.match(real.stderr, /^error: unknown command 'user:frobnicate'/);
    assert.doesNotMatch(real.stdout, /listening/);
  });

  it('--help says what running without a command does', async () => {
    const r = await runCli({}, ['--help']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Without a command, parley starts the server/);
    assert.match(r.stdout, /serve\b/);
  });
});

/** `parley` with no arguments as a real process; resolves with its port once it listens. */
function startBare(env: Record<string, string>, logLevel = 'info'): Promise<{ child: ChildProcess; port: number; out: () => string; err: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('src/main.ts')], {
      env: { ...process.env, ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: logLevel },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => reject(new Error(`parley did not start: ${stdout}${stderr}`)), 60_000);
    child.stdout!.on('data', (c) => (stdout += c));
    // The line for a person is on stderr; stdout carries only the JSON log.
    child.stderr!.on('data', (c) => {
      stderr += c;
      const m = /Parley listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), out: () => stdout, err: () => stderr });
      }
    });
    child.on('exit', (code) => reject(new Error(`parley exited (${code}): ${stdout}${stderr}`)));
  });
}

/** Stops a started `parley` (SIGTERM) and waits for it to exit. */
async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

for (const dialect of dialects()) {
  describe(`parley without a command: first start [${dialect}]`, () => {
    const env = freshEnv(dialect);
    // No ADMIN_USER/ADMIN_PASSWORD: the first start generates the admin password.
    delete env.ADMIN_USER;
    delete env.ADMIN_PASSWORD;
    let child: ChildProcess | undefined;

    after(async () => {
      await stop(child);
      if (env.DATABASE_SCHEMA) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
      fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
    });

    it('serves; the generated admin password is on stderr only, it works, and stdout stays a JSON log', async () => {
      const p = await startBare(env);
      child = p.child;
      const m = /password: (\S+)/.exec(p.err());
      assert.ok(m, `stderr shows the generated password: ${p.err()}`);
      const password = m[1];
      assert.ok(password.length >= 16);
      const res = await fetch(`http://127.0.0.1:${p.port}/ocs/v2.php/cloud/user?format=json`, {
        headers: { 'OCS-APIRequest': 'true', Authorization: basic('admin', password) },
      });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as any).ocs.data.id, 'admin');
      // The request line is written after the response; give it a moment to arrive.
      for (let i = 0; i < 50 && !p.out().includes('"msg":"request"'); i++) await new Promise((r) => setTimeout(r, 20));
      assert.ok(!p.out().includes(password), 'the password is not on stdout');
      const json = p.out().trim().split('\n');
      for (const line of json) assert.doesNotThrow(() => JSON.parse(line), `not a JSON log line: ${line}`);
      // One listening record (Fastify's own would be one per interface address).
      const listening = json.map((l) => JSON.parse(l)).filter((l) => l.msg === 'listening' || /listening/i.test(l.msg));
      assert.equal(listening.length, 1, p.out());
      assert.equal(listening[0].url, `http://127.0.0.1:${p.port}`);
      const request = json.map((l) => JSON.parse(l)).find((l) => l.msg === 'request');
      assert.equal(request?.route, '/ocs/v2.php/cloud/user');
    });
  });
}

describe('parley serve: jobs that did nothing log at debug', () => {
  const env = freshEnv('sqlite');
  let child: ChildProcess | undefined;
  after(async () => {
    await stop(child);
    fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
  });

  it('idleSummary: a summary whose counts are all 0 is idle', () => {
    assert.equal(idleSummary('0 session(s), 0 cookie session(s)'), true);
    assert.equal(idleSummary('0 messages sent, 0 failed'), true);
    assert.equal(idleSummary('0 messages sent, 2 failed'), false);
    assert.equal(idleSummary('10 lobbies lifted'), false);
  });

  it('the first runs of every job on an empty database are debug lines, none at info', async () => {
    const p = await startBare({ ...env, JOBS: 'true' }, 'debug');
    child = p.child;
    // Complete lines only: the last chunk read may end inside a line.
    const ran = () =>
      p
        .out()
        .split('\n')
        .slice(0, -1)
        .map((l) => JSON.parse(l))
        .filter((l) => l.msg === 'job ran');
    // Every job is due at start: the scheduler's first tick (one second) runs them all.
    for (let i = 0; i < 100 && ran().length < 5; i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(ran().length >= 5, p.out());
    for (const line of ran()) assert.equal(line.level, 20, `an idle run at debug: ${JSON.stringify(line)}`);
  });
});

describe('parley serve: the listening socket (LISTEN_BACKLOG)', () => {
  const env = freshEnv('sqlite');
  let child: ChildProcess | undefined;
  after(async () => {
    await stop(child);
    fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
  });

  /** The listening socket's backlog as the kernel holds it (`ss` shows it as Send-Q of a LISTEN socket). */
  const backlogOf = (port: number): number => {
    const out = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' }).trim();
    const fields = out.split(/\s+/);
    assert.equal(fields[0], 'LISTEN', out);
    return Number(fields[2]);
  };

  it('listens with the configured backlog, 4096 by default (capped by net.core.somaxconn), and refuses a bad value', async () => {
    const somaxconn = Number(fs.readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    const p = await startBare({ ...env, LISTEN_BACKLOG: '77' });
    child = p.child;
    assert.equal(backlogOf(p.port), 77);
    await stop(child);
    const q = await startBare(env);
    child = q.child;
    // Node's own default is 511: a burst of new connections past it is dropped by the kernel.
    assert.equal(backlogOf(q.port), Math.min(4096, somaxconn));
    const bad = await spawnCli({ ...env, LISTEN_BACKLOG: '0' }, ['serve']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /LISTEN_BACKLOG must be between 1 and 65535, got 0/);
  });
});
