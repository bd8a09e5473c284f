#!/usr/bin/env node
/**
 * Benchmark harness (`npm run bench`, which builds first).
 *
 * For each database (SQLite; PostgreSQL too when BENCH_PG is set): make a fresh database, let
 * every route entry seed what it needs through the built services, start the built server
 * (dist/main.js) as a separate process, and load each route with autocannon in each mode:
 *
 * - quiet:  nothing else happens (rendered answers may be reused: the best case);
 * - writer: a writer sends BENCH_WRITE_RATE (200) writes per second into other conversations
 *           (pings, renames, chat messages; bench/lib/writer.mjs), as real traffic does;
 * - cookie: the caller sends a session cookie (a browser or a guest), as real clients do.
 *
 * Every figure is a ratio against the entry's baseline route (`vs`, default hello) measured in
 * the same round of the same mode on the same database, so results compare across machines and
 * across a noisy machine's load changes. Each route is measured once per round (BENCH_ROUNDS,
 * baseline first); the median over the rounds is printed. The last lines are
 *   bench <route> <db> <mode> <requests-per-second> ratio=<x> vs=<baseline> of-quiet=<y>
 * (`of-quiet`: this mode's ratio over the quiet mode's ratio) and a table of the ratios.
 *
 * Routes are entries in bench/routes/*.mjs (see bench/routes/README.md).
 *
 * Options (environment): BENCH_DB=sqlite,postgres (default sqlite, plus postgres when BENCH_PG is
 * set), BENCH_PG=postgres://postgres@127.0.0.1:5432/test (a schema is created there and dropped),
 * BENCH_MODES=quiet,writer,cookie (default all three), BENCH_ONLY=name,name (a subset; baselines
 * come along), BENCH_DURATION seconds per route and round (default 2), BENCH_ROUNDS (default 3),
 * BENCH_WARMUP seconds per route and mode (default 1), BENCH_CONNECTIONS (default 10),
 * BENCH_WRITE_RATE writes per second of the writer mode (default 200), BENCH_KEEP=1 keeps the data
 * directory, BENCH_PROF=dir writes a CPU profile of each server process into dir.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { chosenDatabases, freshDatabase, median, root, startServer } from './lib/server.mjs';
import { prepareWriter } from './lib/writer.mjs';
import { inMode, prepareRoutes, seedRoutes } from './lib/routes.mjs';

const BASELINE = 'hello';
const MODES = ['quiet', 'writer', 'cookie'];

const duration = Number(process.env.BENCH_DURATION ?? 2);
const roundCount = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const warmup = Number(process.env.BENCH_WARMUP ?? 1);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
const writeRate = Number(process.env.BENCH_WRITE_RATE ?? 200);
/** Per database: the writes per second the writer mode achieved. */
const writerRates = new Map();
const list = (v) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const only = list(process.env.BENCH_ONLY);
const modes = list(process.env.BENCH_MODES).length > 0 ? list(process.env.BENCH_MODES) : MODES;
for (const m of modes) if (!MODES.includes(m)) throw new Error(`BENCH_MODES: unknown mode "${m}" (${MODES.join(', ')})`);

/** Loads every route entry (default export: one entry or a list), baseline first. */
async function loadRoutes() {
  const dir = path.join(root, 'bench', 'routes');
  const entries = [];
  for (const file of fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.mjs'))
    .sort()) {
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
  const wanted = new Set([BASELINE, ...entries.filter((e) => only.length === 0 || only.includes(e.name)).flatMap((e) => [e.name, e.vs])]);
  const chosen = entries.filter((e) => wanted.has(e.name));
  return [...chosen.filter((e) => e.name === BASELINE), ...chosen.filter((e) => e.name !== BASELINE)];
}

function load(url, req, seconds) {
  return autocannon({ url: url + req.path, method: req.method ?? 'GET', headers: req.headers ?? {}, body: req.body, connections, duration: seconds });
}

/** Probes a route once: a route that fails is a broken benchmark, not a slow one. */
async function probe(url, r, req) {
  const res = await fetch(url + req.path, { method: req.method ?? 'GET', headers: req.headers, body: req.body });
  const text = await res.text();
  if (res.status !== (r.expectStatus ?? 200))
    throw new Error(`bench route "${r.name}": ${req.method ?? 'GET'} ${req.path} answered ${res.status}: ${text.slice(0, 200)}`);
}

/** Seeds, starts the server and measures every route in every mode on one database. */
async function runDatabase(db, routes, results) {
  const { env, dataDir, drop } = await freshDatabase(db);
  let failed = 0;
  try {
    // Seed through the built services, in this process, before the server starts.
    const seeded = await seedRoutes(env, routes, modes.includes('writer'));
    const server = await startServer(env);
    const { url } = server;
    try {
      const prepared = await prepareRoutes(url, dataDir, routes, seeded);
      const writer = modes.includes('writer') ? await prepareWriter(url) : undefined;
      for (const mode of modes) {
        const writing = mode === 'writer' ? writer.start(writeRate) : undefined;
        try {
          for (const p of prepared) {
            await probe(url, p.r, inMode(mode, p.req, p.cookie));
            if (warmup > 0) await load(url, inMode(mode, p.req, p.cookie), warmup);
            results.set(`${db}/${mode}/${p.r.name}`, []);
          }
          // Every route (baseline first) once per round; each ratio is taken within its round,
          // so a change of the machine's load between rounds cannot skew it.
          for (let round = 1; round <= roundCount; round++) {
            for (const p of prepared) {
              const res = await load(url, inMode(mode, p.req, p.cookie), duration);
              const bad = res.non2xx + res.errors + res.timeouts;
              failed += bad;
              results.get(`${db}/${mode}/${p.r.name}`).push(res.requests.average);
              console.log(
                `  ${db.padEnd(8)} ${mode.padEnd(6)} round ${round}  ${p.r.name.padEnd(28)} ${res.requests.average.toFixed(0).padStart(8)} req/s   mean ${res.latency.average.toFixed(2)} ms  p99 ${res.latency.p99} ms` +
                  (bad ? `   (${bad} failed)` : ''),
              );
            }
          }
        } finally {
          if (writing) {
            const w = await writing.stop();
            console.log(
              `  ${db.padEnd(8)} writer: ${w.sent} writes sent (${w.perSecond.toFixed(0)}/s of ${writeRate}/s due; ${w.skipped} skipped while 10 were unanswered), ${w.failed} failed`,
            );
            if (w.failed > 0) failed += w.failed;
            writerRates.set(db, w.perSecond);
          }
        }
      }
    } finally {
      await server.stop();
    }
  } finally {
    await drop();
  }
  return failed;
}

/** A ratio with two significant digits below 0.1 (0.004, not 0.00). */
const fmt = (x) => (x >= 0.1 || !Number.isFinite(x) ? x.toFixed(2) : x.toPrecision(2));

async function main() {
  const dbs = chosenDatabases();
  const routes = await loadRoutes();
  /** `${db}/${mode}/${route}` → requests per second of each round. */
  const results = new Map();
  let failed = 0;
  for (const db of dbs) failed += await runDatabase(db, routes, results);

  const ratio = (db, mode, r) => {
    const mine = results.get(`${db}/${mode}/${r.name}`);
    const ref = results.get(`${db}/${mode}/${r.vs}`);
    return median(mine.map((rps, i) => rps / ref[i]));
  };
  console.log('');
  for (const r of routes) {
    for (const db of dbs) {
      for (const mode of modes) {
        const rps = median(results.get(`${db}/${mode}/${r.name}`));
        const ofQuiet = modes.includes('quiet') ? ` of-quiet=${(ratio(db, mode, r) / ratio(db, 'quiet', r)).toFixed(2)}` : '';
        console.log(`bench ${r.name} ${db} ${mode} ${rps.toFixed(0)} ratio=${fmt(ratio(db, mode, r))} vs=${r.vs}${ofQuiet}`);
      }
    }
  }
  // The same ratios as a table: one row per route, one column per database and mode.
  const columns = dbs.flatMap((db) => modes.map((mode) => [db, mode]));
  const width = Math.max(...routes.map((r) => r.name.length)) + 2;
  console.log('');
  console.log('ratio'.padEnd(width) + columns.map(([db, mode]) => `${db === 'postgres' ? 'pg' : 'sqlite'} ${mode}`.padStart(14)).join('') + '   vs');
  for (const r of routes) {
    console.log(r.name.padEnd(width) + columns.map(([db, mode]) => fmt(ratio(db, mode, r)).padStart(14)).join('') + `   ${r.vs}`);
  }
  for (const [db, rate] of writerRates) console.log(`writer ${db}: ${rate.toFixed(0)} writes/s achieved of ${writeRate}/s offered`);
  if (failed > 0) {
    console.error(`bench: ${failed} requests failed`);
    process.exitCode = 1;
  }
}

main().catch((err) => {
  console.error(`bench: ${err?.message ?? err}`);
  process.exit(1);
});
