#!/usr/bin/env node
/**
 * GET /room as the database grows (`npm run bench:room-scale`): the bench user of room-list
 * (bench/routes/10-conversations.mjs: in 200 of 10,000 conversations, one message of theirs in
 * each) is measured over databases holding BENCH_SCALE_ROOMS conversations in all (default
 * 10000,1000000); the extra conversations come from seedFillerRooms (bench/lib/seed.mjs), each
 * with two attendees and a message. One server per size runs at the same time and the sizes are
 * loaded in turn, each round, so every ratio "largest / smallest" is taken within one round.
 *
 * The request sends the session cookie of the user's joined conversation (the cookie mode of
 * run.mjs) and a modifiedSince of its own (1, 2, ...: the same list), as a client's poll does;
 * such an answer is never kept whole (the change feed would reuse one: nothing is written), so
 * every request reads the database. Printed per
 * size: requests per second, p99, and the CPU time per request (utime + stime from /proc of the
 * server process and, on PostgreSQL, of the database backends serving its connections), then
 * `scale <db> <rooms> ... cost=<x>` where cost is the CPU per request over the smallest size's,
 * per round, median over rounds (the noisier wall-clock ratio is printed too as `wall`).
 *
 * Options: BENCH_DB / BENCH_PG as run.mjs, BENCH_SCALE_ROOMS=10000,1000000, BENCH_DURATION
 * (default 3), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 4), BENCH_NO_ANALYZE=1 skips
 * the ANALYZE run after seeding on PostgreSQL (autovacuum's analyze would run it eventually).
 * The data lives in temporary directories / schemas that are removed at the end.
 */
import autocannon from 'autocannon';
import { sql } from 'kysely';
import {
  ADMIN,
  basic,
  chosenDatabases,
  closeSeedServices,
  dist,
  freshDatabase,
  joinCookie,
  median,
  ocs,
  openSeedServices,
  startServer,
} from './lib/server.mjs';
import { seedFillerRooms } from './lib/seed.mjs';
import { backendsCpu, backendsCpuDelta, cpuSeconds } from './lib/process-cpu.mjs';
import roomRoutes from './routes/10-conversations.mjs';

const BASE = 10_000;
const sizes = (process.env.BENCH_SCALE_ROOMS ?? `${BASE},1000000`)
  .split(',')
  .map((s) => Number(s.trim()))
  .sort((a, b) => a - b);
for (const s of sizes) if (!Number.isInteger(s) || s < BASE) throw new Error(`BENCH_SCALE_ROOMS: sizes are whole numbers of at least ${BASE}`);
const duration = Number(process.env.BENCH_DURATION ?? 3);
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const connections = Number(process.env.BENCH_CONNECTIONS ?? 4);
const roomList = roomRoutes.find((e) => e.name === 'room-list');

/** CPU seconds so far of the server and, on PostgreSQL, of the backends it uses. */
async function cpuOf(p) {
  const server = cpuSeconds(p.server.pid);
  if (p.db !== 'postgres') return { server, backends: new Map() };
  return { server, backends: await backendsCpu(p.server.pid) };
}

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(0)} s`;

/** A database of `rooms` conversations with the room-list user's 200, and its server running. */
async function prepareSize(db, rooms) {
  const fresh = await freshDatabase(db);
  const services = await openSeedServices(fresh.env);
  let state;
  try {
    state = await roomList.seed({ services, admin: ADMIN, basic, ocs, dist });
    if (rooms > BASE) {
      await seedFillerRooms({ services, dist }, rooms - BASE, (done) => {
        if (done % 200_000 === 0 || done === rooms - BASE) console.log(`  ${db} ${rooms}: ${done} filler conversations (${elapsed()})`);
      });
    }
    if (db === 'postgres' && !process.env.BENCH_NO_ANALYZE) await sql`ANALYZE`.execute(services.db.kysely);
  } catch (e) {
    await closeSeedServices(services);
    await fresh.drop();
    throw e;
  }
  await closeSeedServices(services);
  const server = await startServer(fresh.env);
  try {
    return await readySize(db, rooms, fresh, server, state);
  } catch (e) {
    await server.stop();
    await fresh.drop();
    throw e;
  }
}

/** Posts the user's messages and checks GET /room answers; the size's measuring state. */
async function readySize(db, rooms, fresh, server, state) {
  const auth = basic(state.user, state.password);
  const cookie = await joinCookie(server.url, auth, state.token);
  // One message of theirs in each of their conversations: lastMessage is read for every room.
  const list = await (await fetch(`${server.url}/ocs/v2.php/apps/spreed/api/v4/room?format=json`, { headers: { ...ocs, Authorization: auth } })).json();
  const tokens = list.ocs.data.map((r) => r.token);
  if (tokens.length !== 200) throw new Error(`expected 200 conversations, got ${tokens.length}`);
  for (const token of tokens) {
    const r = await fetch(`${server.url}/ocs/v2.php/apps/spreed/api/v1/chat/${token}?format=json`, {
      method: 'POST',
      headers: { ...ocs, Authorization: auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: 'A message for the list' }),
    });
    await r.arrayBuffer();
    if (r.status !== 201) throw new Error(`posting into ${token} answered ${r.status}`);
  }
  const request = { path: '/ocs/v2.php/apps/spreed/api/v4/room?format=json', headers: { ...ocs, Authorization: auth, Cookie: cookie } };
  const probe = await fetch(server.url + request.path, { headers: request.headers });
  const body = await probe.arrayBuffer();
  if (probe.status !== 200) throw new Error(`GET /room answered ${probe.status}`);
  console.log(`  ${db} ${rooms}: ready, GET /room ${body.byteLength} bytes (${elapsed()})`);
  return { db, rooms, server, request, drop: fresh.drop, results: [] };
}

async function measure(p, seconds) {
  const before = await cpuOf(p);
  // Each request names a modifiedSince of its own (1, 2, ...: every conversation is newer, so the
  // body is the same list), as polls do: such answers are not kept whole, so the request reads
  // the database as a write into one of the caller's conversations would make it.
  let nth = 0;
  const res = await autocannon({
    url: p.server.url,
    headers: p.request.headers,
    connections,
    duration: seconds,
    requests: [{ setupRequest: (req) => ({ ...req, path: `${p.request.path}&modifiedSince=${++nth}` }) }],
  });
  const after = await cpuOf(p);
  const bad = res.non2xx + res.errors + res.timeouts;
  if (bad > 0) throw new Error(`${bad} requests failed`);
  const n = res.requests.total;
  const serverMs = ((after.server - before.server) * 1000) / n;
  const dbMs = (backendsCpuDelta(before.backends, after.backends) * 1000) / n;
  return { rps: res.requests.average, p99: res.latency.p99, serverMs, dbMs, cpuMs: serverMs + dbMs };
}

async function runDatabase(db) {
  const prepared = [];
  try {
    for (const rooms of sizes) prepared.push(await prepareSize(db, rooms));
    for (const p of prepared) await measure(p, 1); // warm-up
    for (let round = 1; round <= rounds; round++) {
      // Every other round the other way round, so whatever favours the first (or second) load
      // of a round (the collector's state, the machine's load) does not always favour one size.
      for (const p of round % 2 ? prepared : [...prepared].reverse()) {
        const m = await measure(p, duration);
        p.results.push(m);
        console.log(
          `  ${db.padEnd(8)} round ${round}  ${String(p.rooms).padStart(8)} rooms  ${m.rps.toFixed(0).padStart(6)} req/s  p99 ${m.p99} ms  cpu ${m.cpuMs.toFixed(2)} ms/request` +
            (db === 'postgres' ? ` (server ${m.serverMs.toFixed(2)} + database ${m.dbMs.toFixed(2)})` : ''),
        );
      }
    }
    const base = prepared[0];
    for (const p of prepared) {
      const cost = median(p.results.map((m, i) => m.cpuMs / base.results[i].cpuMs));
      const wall = median(p.results.map((m, i) => base.results[i].rps / m.rps));
      console.log(
        `scale ${db} ${p.rooms} rps=${median(p.results.map((m) => m.rps)).toFixed(0)} cpu-ms=${median(p.results.map((m) => m.cpuMs)).toFixed(2)} cost=${cost.toFixed(2)} wall=${wall.toFixed(2)} vs=${base.rooms}`,
      );
    }
  } finally {
    for (const p of prepared) {
      await p.server.stop();
      await p.drop();
    }
  }
}

for (const db of chosenDatabases()) await runDatabase(db);
