#!/usr/bin/env node
/**
 * Benchmark harness (`npm run bench`, which builds first).
 *
 * One run: make a temporary DATA_DIR (SQLite), let every route entry seed what it needs through
 * the built services, start the built server (dist/main.js) as a separate process, load each
 * route with autocannon (programmatic API) and print requests per second. Every figure is also
 * given as a ratio against the hello-world route measured in the same run, so results compare
 * across machines; the last lines are exactly
 *   bench <route-name> <requests-per-second> ratio=<x> vs=<baseline-route>
 *
 * Routes are entries in bench/routes/*.mjs (see bench/routes/README.md): other areas add a file.
 * An entry's ratio is against `hello` unless it names another measured route in `vs`.
 *
 * Every route is measured once per round (BENCH_ROUNDS, default 5; baseline first in each round);
 * a ratio is taken within its round and the median over the rounds is printed.
 *
 * Options (environment): BENCH_DURATION seconds per route and round (default 2), BENCH_WARMUP seconds
 * (default 2), BENCH_CONNECTIONS (default 10), BENCH_ONLY=name,name to measure a subset
 * (the baseline is always measured), BENCH_KEEP=1 keeps the data directory, BENCH_PROF=dir
 * writes a CPU profile of the server process into dir.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import autocannon from 'autocannon';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const distDir = path.join(root, 'dist');
const BASELINE = 'hello';
const ADMIN = { user: 'admin', password: 'bench-admin-password-1' };

const duration = Number(process.env.BENCH_DURATION ?? 2);
const roundCount = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 5));
const warmup = Number(process.env.BENCH_WARMUP ?? 2);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const only = (process.env.BENCH_ONLY ?? '').split(',').map((s) => s.trim()).filter(Boolean);

const basic = (user, password) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
/** The headers of an OCS request answered in JSON (entries spread them into theirs). */
const ocs = Object.freeze({ 'OCS-APIRequest': 'true', Accept: 'application/json' });
/** Imports a module of the build, e.g. `await dist('db/repositories/rooms.js')`. */
const dist = (p) => import(pathToFileURL(path.join(distDir, p)).href);

/** Loads every route entry (default export: one entry or a list), baseline first. */
async function loadRoutes() {
  const dir = path.join(root, 'bench', 'routes');
  const entries = [];
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.mjs')).sort()) {
    const mod = await import(pathToFileURL(path.join(dir, file)).href);
    for (const e of [mod.default].flat()) {
      if (!e?.name || typeof e.request !== 'function') throw new Error(`bench/routes/${file}: an entry needs name and request()`);
      entries.push(e);
    }
  }
  const names = new Set();
  for (const e of entries) {
    if (names.has(e.name)) throw new Error(`bench route "${e.name}" is defined twice`);
    names.add(e.name);
  }
  if (!names.has(BASELINE)) throw new Error(`the baseline route "${BASELINE}" is missing`);
  for (const e of entries) {
    e.vs ??= BASELINE;
    if (!names.has(e.vs)) throw new Error(`bench route "${e.name}": its baseline "${e.vs}" is not defined`);
  }
  // A chosen route brings its baseline along, so every ratio comes from this run.
  // hello is always measured (start and end) so that the load drift correction has its figures.
  const wanted = new Set([BASELINE, ...entries.filter((e) => only.length === 0 || only.includes(e.name)).flatMap((e) => [e.name, e.vs])]);
  const chosen = entries.filter((e) => wanted.has(e.name));
  return [...chosen.filter((e) => e.name === BASELINE), ...chosen.filter((e) => e.name !== BASELINE)];
}

function freePort() {
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

function load(url, req, seconds) {
  return autocannon({
    url: url + req.path,
    method: req.method ?? 'GET',
    headers: req.headers ?? {},
    body: req.body,
    connections,
    duration: seconds,
  });
}

async function main() {
  if (!fs.existsSync(path.join(distDir, 'main.js'))) throw new Error('dist/main.js is missing: run `npm run bench` (it builds first)');
  const routes = await loadRoutes();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-bench-'));
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    ADMIN_USER: ADMIN.user,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'warn',
    JOBS: 'false',
    HOST: '127.0.0.1',
  };
  delete env.DATABASE_URL;
  delete env.DATABASE_SCHEMA;

  // Seed through the built services, in this process, before the server starts.
  const { openServices, ensureAdminAccount } = await dist('boot.js');
  const { loadSettings } = await dist('settings.js');
  const services = await openServices(loadSettings(env));
  await ensureAdminAccount(services, () => undefined);
  const tools = { services, admin: ADMIN, basic, ocs, dist };
  // Entries may share one seed function: it runs once and they all get its state.
  const seeded = new Map();
  for (const r of routes) if (r.seed && !seeded.has(r.seed)) seeded.set(r.seed, await r.seed(tools));
  await services.db.close();

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // BENCH_PROF=dir: the server writes a V8 CPU profile there as it exits (SIGTERM, end of run).
  const profile = process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_PROF)}`] : [];
  const child = spawn(process.execPath, [...profile, path.join(distDir, 'main.js'), 'serve'], {
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  /** Per route: the requests per second of each round. */
  const rounds = new Map();
  /** Probes a route once: a route that fails is a broken benchmark, not a slow one. */
  const probe = async (r, req) => {
    const res = await fetch(url + req.path, { method: req.method ?? 'GET', headers: req.headers, body: req.body });
    if (res.status !== (r.expectStatus ?? 200)) {
      throw new Error(`bench route "${r.name}": ${req.method ?? 'GET'} ${req.path} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
    }
  };
  let failed = 0;
  try {
    await waitUntilUp(url, child);
    const requests = new Map();
    for (const r of routes) {
      const ctx = { url, admin: ADMIN, basic, ocs, state: seeded.get(r.seed) };
      if (r.prepare) ctx.state = await r.prepare(ctx);
      const req = await r.request(ctx);
      await probe(r, req);
      if (warmup > 0) await load(url, req, warmup);
      requests.set(r.name, req);
      rounds.set(r.name, []);
    }
    // Rounds: every route (baseline first) is measured once per round, and each ratio is taken
    // within its round, so a change of the machine's load between rounds cannot skew it; the
    // reported figure is the median over the rounds.
    for (let round = 1; round <= roundCount; round++) {
      for (const r of routes) {
        const res = await load(url, requests.get(r.name), duration);
        const bad = res.non2xx + res.errors + res.timeouts;
        failed += bad;
        rounds.get(r.name).push(res.requests.average);
        console.log(`  round ${round}  ${r.name.padEnd(28)} ${res.requests.average.toFixed(0).padStart(8)} req/s   mean latency ${res.latency.average.toFixed(2)} ms` + (bad ? `   (${bad} failed)` : ''));
      }
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    if (!process.env.BENCH_KEEP) fs.rmSync(dataDir, { recursive: true, force: true });
  }

  const median = (xs) => {
    const v = [...xs].sort((a, b) => a - b);
    return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  };
  console.log('');
  for (const r of routes) {
    // An entry may name its own baseline (`vs`, e.g. the same body pre-rendered); default hello.
    const mine = rounds.get(r.name);
    const ref = rounds.get(r.vs ?? BASELINE);
    const ratio = median(mine.map((rps, i) => rps / ref[i]));
    console.log(`bench ${r.name} ${median(mine).toFixed(0)} ratio=${ratio.toFixed(2)} vs=${r.vs ?? BASELINE}`);
  }
  if (failed > 0) process.exitCode = 1;
}

main().catch((err) => {
  console.error(`bench: ${err?.message ?? err}`);
  process.exit(1);
});
