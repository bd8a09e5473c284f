/**
 * What the bench scripts share: a throw-away database (SQLite in a temporary DATA_DIR, or a fresh
 * schema on the PostgreSQL server named by BENCH_PG, dropped at the end), seeding through the
 * built services, and the built server (dist/main.js serve) started as a separate process.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path, { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
export const distDir = path.join(root, 'dist');
export const ADMIN = { user: 'admin', password: 'bench-admin-password-1' };

export const basic = (user, password) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
/** The headers of an OCS request answered in JSON (entries spread them into theirs). */
export const ocs = Object.freeze({ 'OCS-APIRequest': 'true', Accept: 'application/json' });
/** Imports a module of the build, e.g. `await dist('db/repositories/rooms.js')`. */
export const dist = (p) => import(pathToFileURL(path.join(distDir, p)).href);

/**
 * The databases to run on: BENCH_DB=sqlite,postgres picks; by default SQLite, plus PostgreSQL
 * when BENCH_PG (a postgres:// URL of a server where a schema may be created) is set.
 */
export function chosenDatabases() {
  const asked = (process.env.BENCH_DB ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const dbs = asked.length > 0 ? asked : ['sqlite', ...(process.env.BENCH_PG ? ['postgres'] : [])];
  for (const d of dbs) {
    if (d !== 'sqlite' && d !== 'postgres') throw new Error(`BENCH_DB: unknown database "${d}" (sqlite, postgres)`);
    if (d === 'postgres' && !process.env.BENCH_PG) throw new Error('BENCH_DB names postgres: set BENCH_PG=postgres://user@host:port/db');
  }
  return dbs;
}

/**
 * A fresh database of `db`: its environment for the services and the server, and `drop()`. On
 * PostgreSQL a schema of its own on the server `pgUrl` names.
 */
export async function freshDatabase(db, pgUrl = process.env.BENCH_PG) {
  if (!fs.existsSync(path.join(distDir, 'main.js'))) throw new Error('dist/main.js is missing: run `npm run build` first (`npm run bench` builds)');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  // Pre-rendered baselines (GET /bench/prerendered/<name>, prerendered-route.mjs).
  fs.mkdirSync(path.join(dataDir, 'bench-prerendered'));
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    ADMIN_USER: ADMIN.user,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'warn',
    JOBS: 'false',
    HOST: '127.0.0.1',
    // The route bench measures capacity with a fixed number of connections (closed loop), which
    // is not overload: no shedding unless asked. bench/mixed.mjs turns it back on.
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: process.env.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS ?? '0',
    OVERLOAD_MAX_DB_WAITING: process.env.OVERLOAD_MAX_DB_WAITING ?? '0',
    OVERLOAD_MAX_DB_WAIT_MS: process.env.OVERLOAD_MAX_DB_WAIT_MS ?? '0',
    OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT: process.env.OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT ?? '0',
  };
  delete env.DATABASE_URL;
  delete env.DATABASE_SCHEMA;
  if (db === 'postgres') {
    env.DATABASE_URL = pgUrl;
    env.DATABASE_SCHEMA = `bench_${randomBytes(6).toString('hex')}`;
  }
  const drop = async () => {
    if (env.DATABASE_SCHEMA) {
      const { dropSchema } = await dist('db/database.js');
      await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
    }
    if (!process.env.BENCH_KEEP) fs.rmSync(dataDir, { recursive: true, force: true });
  };
  return { env, dataDir, drop };
}

/** Opens the built services over `env`'s database (migrated, admin account made) for seeding. */
export async function openSeedServices(env) {
  const { openServices, ensureAdminAccount } = await dist('boot.js');
  const { loadSettings } = await dist('settings.js');
  const services = await openServices(loadSettings(env));
  await ensureAdminAccount(services, () => undefined);
  return services;
}

/** Closes what `openSeedServices` opened, after the background work seeding queued (boot.ts closeServices). */
export async function closeSeedServices(services) {
  const { closeServices } = await dist('boot.js');
  await closeServices(services);
}

/** A free TCP port on loopback. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitUntilUp(url, child, ms = 30_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`server exited with code ${child.exitCode}`);
    try {
      const r = await fetch(url + '/status.php');
      if (r.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not start in time');
}

/**
 * Starts the built server on a free port over `env` and waits until it answers; `stop()` ends it
 * (SIGTERM: a CPU profile asked with BENCH_PROF=dir is written then).
 */
export async function startServer(env, extraEnv = {}) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const profile = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_PROF)}`] : [];
  // BENCH_HEAP=dir: the server writes a heap snapshot into `dir` on SIGUSR2 (heapSnapshot below).
  if (process.env.BENCH_HEAP) profile.push('--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${path.resolve(process.env.BENCH_HEAP)}`);
  // The real server plus the baseline route (serve-with-baseline.mjs), as `parley serve` runs it.
  const child = spawn(process.execPath, [...profile, path.join(root, 'bench', 'lib', 'serve-with-baseline.mjs')], {
    env: { ...env, ...extraEnv, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  };
  try {
    await waitUntilUp(url, child);
  } catch (e) {
    await stop();
    throw e;
  }
  return { url, pid: child.pid, stop };
}

/**
 * With BENCH_HEAP=dir (the server was started with --heapsnapshot-signal): asks server `pid` for
 * a heap snapshot and resolves with its path once written; undefined without BENCH_HEAP.
 */
export async function heapSnapshot(pid) {
  const dir = process.env.BENCH_HEAP && path.resolve(process.env.BENCH_HEAP);
  if (!dir) return undefined;
  const before = new Set(fs.existsSync(dir) ? fs.readdirSync(dir) : []);
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const made = fs.readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    // Written when its size stops changing.
    if (made) {
      const size = fs.statSync(path.join(dir, made)).size;
      await new Promise((r) => setTimeout(r, 1000));
      if (fs.statSync(path.join(dir, made)).size === size && size > 0) return path.join(dir, made);
    }
  }
  throw new Error('no heap snapshot written');
}

/** Joins conversation `token` as `auth` (an Authorization value) and returns the session cookie. */
export async function joinCookie(url, auth, token) {
  const res = await fetch(`${url}/ocs/v2.php/apps/spreed/api/v4/room/${token}/participants/active?format=json`, {
    method: 'POST',
    headers: { ...ocs, Authorization: auth },
  });
  await res.arrayBuffer();
  const cookie = /parley_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
  if (res.status !== 200 || !cookie) throw new Error(`joining ${token} answered ${res.status} without a session cookie`);
  return cookie;
}

/**
 * Stores `path`'s answer to `headers` (as the server sends it now) as the pre-rendered body `name`,
 * served as it is by GET /bench/prerendered/<name>: the baseline "replaying the same body".
 */
export async function storePrerendered(url, dataDir, name, path, headers) {
  const res = await fetch(url + path, { headers });
  if (res.status !== 200) throw new Error(`pre-rendering ${path} answered ${res.status}`);
  fs.writeFileSync(join(dataDir, 'bench-prerendered', `${name}.json`), Buffer.from(await res.arrayBuffer()));
}

export const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
};

/** Statements the server at `url` has sent so far (its GET /metrics, open to loopback). */
export async function statementsSent(url) {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^parley_db_query_duration_seconds_count (\S+)/m.exec(text)?.[1] ?? NaN);
}
