#!/usr/bin/env node
/**
 * Mixed load (`npm run bench:mixed`, which builds first): what a team using Parley sends at once.
 * 200 users, each in 20 of 200 group conversations (20 members each), every user with a browser
 * session cookie, picking at random (weights in ACTIONS):
 *   - poll their list: GET /room?modifiedSince=<the X-Nextcloud-Talk-Modified-Before of their last poll>
 *   - read a participant list: GET /room/{token}/participants
 *   - join a conversation (POST /room/{token}/participants/active) and leave it (DELETE)
 *   - write: POST /chat/{token}
 *
 * The generator is open loop: requests are sent at the offered rate whether or not earlier ones
 * have answered, and a request's latency counts from when it was due, so a slow server cannot
 * slow the load down and hide its queue. For each database (as bench/run.mjs: SQLite, and
 * PostgreSQL with BENCH_PG) it searches the highest offered rate whose p99 stays under
 * MIXED_P99_MS (100) with no error, then offers twice that and prints what was served: answered
 * requests per second, how many were shed (503 + Retry-After, see docs/operators.md), the p99 of
 * the admitted (non-shed) requests, errors and timeouts; then the same 2x on a server that never
 * sheds, for comparison.
 *
 * Options (environment): BENCH_DB, BENCH_PG, BENCH_KEEP as bench/run.mjs; MIXED_DURATION seconds
 * per step (default 5), MIXED_START first rate tried (default 200; halved while it fails), MIXED_MAX highest rate tried
 * (default 8000), MIXED_STEPS refinement steps after the first failure (default 3), MIXED_P99_MS
 * (default 100), MIXED_TIMEOUT_MS a request's timeout, counted as an error (default 10000),
 * MIXED_RATE=n skips the search and offers n (then 2n), MIXED_NO_SHED_RUN=0 skips the 2x run on
 * a server that never sheds, MIXED_WEIGHTS=poll=1,write=1 replaces the weights of ACTIONS (one kind
 * alone gives that kind's cost). OVERLOAD_* set here reach the server (default: its own defaults).
 *
 * Each step also prints the server process's CPU time per request (user + system, /proc), on
 * PostgreSQL that of the database backends serving its connections (bench/lib/process-cpu.mjs),
 * and the statements it sent per request (its GET /metrics), so a step can be read as cost, not
 * only as latency on a shared machine.
 */
import http from 'node:http';
import argon2 from '@node-rs/argon2';
import { basic, chosenDatabases, closeSeedServices, dist, freshDatabase, ocs, openSeedServices, startServer, statementsSent } from './lib/server.mjs';
import { backendsCpu, backendsCpuDelta, cpuSeconds } from './lib/process-cpu.mjs';
import { userAttendeeRow } from './lib/seed.mjs';

const USERS = 200;
const ROOMS = 200;
const PER_USER = 20;
const ACTIONS = process.env.MIXED_WEIGHTS
  ? process.env.MIXED_WEIGHTS.split(',').map((kv) => {
      const [name, w] = kv.split('=');
      return [name.trim(), Number(w)];
    })
  : [
      ['poll', 50],
      ['participants', 15],
      ['join', 10],
      ['leave', 10],
      ['write', 15],
    ];
const EXPECT = { poll: 200, participants: 200, join: 200, leave: 200, write: 201 };
for (const [name, w] of ACTIONS) if (!(name in EXPECT) || !(w > 0)) throw new Error(`MIXED_WEIGHTS: "${name}=${w}" (kinds: ${Object.keys(EXPECT).join(', ')})`);

const stepSeconds = Number(process.env.MIXED_DURATION ?? 5);
const startRate = Number(process.env.MIXED_START ?? 200);
const maxRate = Number(process.env.MIXED_MAX ?? 8000);
const refineSteps = Number(process.env.MIXED_STEPS ?? 3);
const p99Limit = Number(process.env.MIXED_P99_MS ?? 100);
const timeoutMs = Number(process.env.MIXED_TIMEOUT_MS ?? 10_000);
const fixedRate = process.env.MIXED_RATE ? Number(process.env.MIXED_RATE) : undefined;

const V4 = '/ocs/v2.php/apps/spreed/api/v4';
const PASSWORD = 'bench-mixed-password-1';

/** 200 users, 200 conversations; user u is in conversations (u + 10k) mod 200, k < 20. */
async function seed(services) {
  const { ROOM_DEFAULTS } = await dist('db/repositories/rooms.js');
  const userRow = await userAttendeeRow(dist);
  // One password for all, hashed once with cheap argon2id parameters (the real ones are slow on
  // purpose, and every user's first request verifies it once): the warm-up takes seconds, not minutes.
  const first = await services.directory.createUser({ id: 'mixed-0', password: PASSWORD, displayName: 'Mixed 0' });
  first.password_hash = await argon2.hash(PASSWORD, { algorithm: argon2.Algorithm.Argon2id, memoryCost: 1024, timeCost: 1 });
  const { UsersRepository } = await dist('db/repositories/users.js');
  const usersRepo = new UsersRepository(services.db.kysely);
  await usersRepo.update('mixed-0', { password_hash: first.password_hash });
  for (let u = 1; u < USERS; u++) await usersRepo.insertWithGroups({ ...first, id: `mixed-${u}`, display_name: `Mixed ${u}` }, []);
  const users = Array.from({ length: USERS }, (_, u) => ({ id: `mixed-${u}`, auth: basic(`mixed-${u}`, PASSWORD), rooms: [] }));
  const cfg = await services.appConfig.snapshot();
  const now = Math.floor(Date.now() / 1000);
  const tokens = [];
  await services.rooms.transaction(async (repos) => {
    for (let r = 0; r < ROOMS; r++) {
      const token = await services.rooms.newToken(cfg, repos);
      const id = await repos.rooms.insert({ ...ROOM_DEFAULTS, token, type: 2, name: `Team ${r}`, last_activity: now, created_at: now });
      const members = [];
      for (let u = 0; u < USERS; u++) {
        if (Array.from({ length: PER_USER }, (_, k) => (u + 10 * k) % ROOMS).includes(r)) members.push(u);
      }
      await repos.attendees.insertIgnoringDuplicates(members.map((u, n) => userRow(id, `mixed-${u}`, n === 0 ? 1 : 3, now, `Mixed ${u}`)));
      tokens.push(token);
    }
  });
  for (let u = 0; u < USERS; u++) for (let k = 0; k < PER_USER; k++) users[u].rooms.push(tokens[(u + 10 * k) % ROOMS]);
  return users;
}

/** One HTTP request over `agent`; resolves with the status and response headers (never rejects). */
function send(agent, url, method, path, headers, body) {
  return new Promise((resolve) => {
    const req = http.request(url + path, { method, headers, agent, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers }));
      res.on('error', () => resolve({ status: 0, headers: {} }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => resolve({ status: e.message === 'timeout' ? -1 : 0, headers: {} }));
    req.end(body);
  });
}

/** Picks an action by weight. */
function pickAction() {
  let x = Math.random() * ACTIONS.reduce((s, [, w]) => s + w, 0);
  for (const [name, w] of ACTIONS) if ((x -= w) < 0) return name;
  return ACTIONS[0][0];
}

/** The request of `action` by `user` (its cookie and last poll's stamp are on the user). */
function requestOf(action, user, n) {
  const token = user.rooms[n % user.rooms.length];
  const headers = { ...ocs, Authorization: user.auth, ...(user.cookie ? { Cookie: user.cookie } : {}) };
  switch (action) {
    case 'poll':
      return ['GET', `${V4}/room?format=json&modifiedSince=${user.since ?? 0}`, headers];
    case 'participants':
      return ['GET', `${V4}/room/${token}/participants?format=json`, headers];
    case 'join':
      return ['POST', `${V4}/room/${token}/participants/active?format=json`, headers];
    case 'leave':
      return ['DELETE', `${V4}/room/${user.joined ?? token}/participants/active?format=json`, headers];
    default:
      return [
        'POST',
        `/ocs/v2.php/apps/spreed/api/v1/chat/${token}?format=json`,
        { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
        `message=mixed+${n}`,
      ];
  }
}

/** The server process being loaded (its CPU time is read around each step). */
let serverPid;

/** The server's user + system CPU time in ms so far. */
const serverCpuMs = () => cpuSeconds(serverPid) * 1000;

/** The lowest rate offered so far. */
let lowestTried = Infinity;

/** Offers `rate` requests per second for `seconds`; returns the outcome. */
async function offer(db, url, users, rate, seconds) {
  lowestTried = Math.min(lowestTried, rate);
  // As many connections as 200 browsers may open: requests wait in the server, not in this client.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1200 });
  const latencies = [];
  const out = { rate, sent: 0, ok: 0, shed: 0, errors: 0, timeouts: 0, byStatus: {} };
  const inflight = new Set();
  const statementsBefore = await statementsSent(url);
  const cpuBefore = serverCpuMs();
  const backendsBefore = db === 'postgres' ? await backendsCpu(serverPid) : undefined;
  const clientCpuBefore = process.cpuUsage();
  const began = performance.now();
  let n = 0;
  await new Promise((done) => {
    const timer = setInterval(() => {
      const elapsed = performance.now() - began;
      const due = Math.floor((Math.min(elapsed, seconds * 1000) / 1000) * rate);
      while (n < due) {
        const dueAt = began + (n / rate) * 1000;
        const user = users[Math.floor(Math.random() * users.length)];
        const action = pickAction();
        const [method, path, headers, body] = requestOf(action, user, n);
        n++;
        out.sent++;
        const p = send(agent, url, method, path, headers, body).then(({ status, headers: h }) => {
          const ms = performance.now() - dueAt;
          out.byStatus[status] = (out.byStatus[status] ?? 0) + 1;
          if (status === 503) out.shed++;
          else if (status === -1) out.timeouts++;
          else if (status !== EXPECT[action]) out.errors++;
          else {
            out.ok++;
            latencies.push(ms);
            const c = /parley_session=[^;]+/.exec(String(h['set-cookie'] ?? ''))?.[0];
            if (c) user.cookie = c;
            if (action === 'poll' && h['x-nextcloud-talk-modified-before']) user.since = Number(h['x-nextcloud-talk-modified-before']);
            if (action === 'join') user.joined = path.split('/')[8];
          }
          inflight.delete(p);
        });
        inflight.add(p);
      }
      if (elapsed >= seconds * 1000) {
        clearInterval(timer);
        done();
      }
    }, 2);
  });
  const sentFor = (performance.now() - began) / 1000;
  await Promise.all(inflight);
  const answeredFor = (performance.now() - began) / 1000;
  const cpuMs = serverCpuMs() - cpuBefore;
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const backendsMs = backendsBefore && backendsCpuDelta(backendsBefore, await backendsCpu(serverPid)) * 1000;
  const statements = (await statementsSent(url)) - statementsBefore;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (q) => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] : NaN);
  return {
    ...out,
    offeredPerSecond: out.sent / sentFor,
    servedPerSecond: out.ok / answeredFor,
    cpuMsPerRequest: cpuMs / (out.ok + out.shed),
    backendsMsPerRequest: backendsMs === undefined ? undefined : backendsMs / (out.ok + out.shed),
    // This load generator's own CPU, as a share of one core over the step: near 100%, the
    // generator (not the server) sets the pace and the latencies.
    clientCorePercent: ((clientCpu.user + clientCpu.system) / 1000 / (answeredFor * 1000)) * 100,
    statementsPerRequest: statements / (out.ok + out.shed),
    p50: pct(0.5),
    p99: pct(0.99),
  };
}

const line = (db, label, r) =>
  `  ${db.padEnd(8)} ${label.padEnd(8)} offered ${r.offeredPerSecond.toFixed(0).padStart(5)}/s  served ${r.servedPerSecond.toFixed(0).padStart(5)}/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms` +
  `  shed ${r.shed}  errors ${r.errors}  timeouts ${r.timeouts}  server-cpu ${r.cpuMsPerRequest.toFixed(2)} ms/req` +
  (r.backendsMsPerRequest === undefined ? '' : `  backends-cpu ${r.backendsMsPerRequest.toFixed(2)} ms/req`) +
  `  statements ${r.statementsPerRequest.toFixed(1)}/req  client ${r.clientCorePercent.toFixed(0)}% of a core`;

const passes = (r) => r.p99 < p99Limit && r.errors === 0 && r.timeouts === 0 && r.shed === 0;

/** The highest rate that passes: doubling until a failure (or halving until a pass), then bisecting `refineSteps` times. */
async function search(db, url, users) {
  let good;
  let bad;
  /** One step at `rate`, printed and kept as the best pass or the latest failure; true if it passed. */
  const step = async (rate) => {
    const r = await measuredStep(db, url, users, rate);
    if (passes(r)) good = r;
    else bad = r;
    return passes(r);
  };
  for (let rate = startRate; rate <= maxRate; rate *= 2) if (!(await step(rate))) break;
  // Even the first rate failed: halve until one passes (down to a tenth of it).
  for (let rate = Math.round(startRate / 2); !good && rate >= startRate / 10; rate = Math.round(rate / 2)) await step(rate);
  for (let i = 0; i < refineSteps && good && bad; i++) await step(Math.round((good.rate + bad.rate) / 2));
  return good;
}

/** Offers `rate` for a step and prints it as a pass or a failure. */
async function measuredStep(db, url, users, rate) {
  const r = await offer(db, url, users, rate, stepSeconds);
  console.log(line(db, passes(r) ? 'pass' : 'fail', r));
  return r;
}

/**
 * Every user's credential is verified once (argon2) and joins its first conversation (its session
 * cookie), then a short run at a low rate and a step at the first rate of the search, not counted:
 * a cold server (code not yet optimized, PostgreSQL's statements not yet prepared on every pool
 * connection) failed that first step at 200/s with a p99 of 190 ms and then passed 376/s, so
 * without it the search stopped below what the process can serve.
 */
async function warmUp(db, url, users) {
  for (const u of users) {
    const res = await fetch(`${url}${V4}/room/${u.rooms[0]}/participants/active?format=json`, { method: 'POST', headers: { ...ocs, Authorization: u.auth } });
    await res.arrayBuffer();
    u.cookie = /parley_session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0];
    if (res.status !== 200 || !u.cookie) throw new Error(`mixed: joining answered ${res.status}`);
  }
  await offer(db, url, users, Math.min(startRate, 100), 2);
  await offer(db, url, users, startRate, stepSeconds);
}

/** Twice the highest passing rate (when none passed: twice the lowest rate tried). */
const twice = (best) => 2 * (best?.rate ?? lowestTried);

async function runDatabase(db) {
  const { env, drop } = await freshDatabase(db);
  try {
    const services = await openSeedServices(env);
    let users;
    try {
      users = await seed(services);
    } finally {
      await closeSeedServices(services);
    }
    // Shedding as configured (the server's defaults unless OVERLOAD_* is set), for the search and
    // the 2x run; then the 2x run again on a server that never sheds, to show what it prevents.
    const shedding = { ...env };
    for (const name of [
      'OVERLOAD_MAX_EVENT_LOOP_DELAY_MS',
      'OVERLOAD_MAX_DB_WAITING',
      'OVERLOAD_MAX_DB_WAIT_MS',
      'OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT',
    ])
      if (process.env[name] === undefined) delete shedding[name];
    let best;
    let over;
    let server = await startServer(shedding);
    serverPid = server.pid;
    try {
      await warmUp(db, server.url, users);
      best = fixedRate ? await measuredStep(db, server.url, users, fixedRate) : await search(db, server.url, users);
      over = await offer(db, server.url, users, twice(best), stepSeconds);
      console.log(line(db, '2x', over));
    } finally {
      await server.stop();
    }
    let unshed;
    if (process.env.MIXED_NO_SHED_RUN !== '0') {
      server = await startServer(env, {
        OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
        OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT: '0',
        OVERLOAD_MAX_HEAP_PERCENT: '0',
        OVERLOAD_MAX_DB_WAITING: '0',
        OVERLOAD_MAX_DB_WAIT_MS: '0',
      });
      serverPid = server.pid;
      try {
        await offer(db, server.url, users, Math.min(startRate, 100), 2);
        unshed = await offer(db, server.url, users, twice(best), stepSeconds);
        console.log(line(db, '2x-noshed', unshed));
      } finally {
        await server.stop();
      }
    }
    return { db, best, over, unshed };
  } finally {
    await drop();
  }
}

async function main() {
  const results = [];
  for (const db of chosenDatabases()) results.push(await runDatabase(db));
  console.log('');
  for (const { db, best, over, unshed } of results) {
    console.log(
      best
        ? `mixed ${db} rate=${best.rate} p99=${best.p99.toFixed(1)}ms served=${best.servedPerSecond.toFixed(0)}/s`
        : `mixed ${db} rate=none (even ${startRate}/s missed p99 < ${p99Limit} ms or had errors)`,
    );
    console.log(
      `mixed ${db} 2x offered=${over.offeredPerSecond.toFixed(0)}/s served=${over.servedPerSecond.toFixed(0)}/s shed=${over.shed} admitted-p99=${over.p99.toFixed(1)}ms errors=${over.errors} timeouts=${over.timeouts}`,
    );
    if (unshed) {
      console.log(
        `mixed ${db} 2x-noshed offered=${unshed.offeredPerSecond.toFixed(0)}/s served=${unshed.servedPerSecond.toFixed(0)}/s p99=${unshed.p99.toFixed(1)}ms errors=${unshed.errors} timeouts=${unshed.timeouts}`,
      );
    }
  }
}

main().catch((err) => {
  console.error(`bench:mixed: ${err?.stack ?? err}`);
  process.exit(1);
});
