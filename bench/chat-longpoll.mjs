#!/usr/bin/env node
/**
 * Chat long-poll scale (`npm run bench:chat-longpoll`, which builds first; see docs/benchmarks.md):
 *
 * 1. Idle: BENCH_IDLE (default 10,000) long-polls (`lookIntoFuture=1`, timeout 60 s) waiting at
 *    once on one server process; once all of them wait (GET /metrics) and the RSS has settled,
 *    prints the server's RSS growth (bar: ≤ 150 MB for 10,000).
 * 2. Delivery: BENCH_MEMBERS (default 1,000) members of one conversation long-poll it, one message
 *    is posted, and the time from the post to each member's answer is measured; prints p50, p99
 *    and max per round (BENCH_ROUNDS, default 3, after a warm-up round) and the median p99
 *    (bar: within 1 s).
 *
 * The server is the build (dist/main.js serve) in its own process, on a fresh SQLite data
 * directory, or on PostgreSQL with BENCH_DATABASE_URL (a fresh schema, dropped afterwards).
 * Members log in with app passwords (one sha256 lookup each, as Talk clients do after the login
 * flow), so seeding 1,000 accounts does not run argon2 1,000 times.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { basic, closeSeedServices, dist, freshDatabase, heapSnapshot, ocs, openSeedServices, startServer } from './lib/server.mjs';

const IDLE = Number(process.env.BENCH_IDLE ?? 10000);
const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 1000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
/** Seconds at most that the idle part waits for the server's RSS to settle. */
const SETTLE = Number(process.env.BENCH_SETTLE ?? 30);
/** How the members' polls of the delivery part are sent: `http` (node:http) or `fetch`. */
const CLIENT = process.env.BENCH_CLIENT ?? 'http';
if (CLIENT !== 'http' && CLIENT !== 'fetch') throw new Error(`BENCH_CLIENT: "${CLIENT}" (http, fetch)`);
const V1 = '/ocs/v2.php/apps/spreed/api/v1';

const headers = (auth) => ({ ...ocs, Authorization: auth });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Resident set size of a process in MB (Linux /proc). */
function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Runs `fn` over `items` with at most `width` at a time. */
async function eachLimited(items, width, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

/** One owner and MEMBERS members (app passwords) in one group conversation. */
async function seed(services) {
  const { ROOM_DEFAULTS } = await dist('db/repositories/rooms.js');
  const owner = await services.directory.createUser({ id: 'bench-owner', password: 'bench-owner-password-1', displayName: 'Bench Owner' });
  const members = [];
  for (let i = 0; i < MEMBERS; i++) {
    const id = `bench-m${i}`;
    // The owner's row with another id: no argon2 per account (they log in with app passwords).
    await services.directory.users.insertWithGroups({ ...owner, id, display_name: `Member ${i}` }, []);
    members.push({ id, auth: basic(id, await services.auth.createAppPassword(id, 'bench')) });
  }
  const cfg = await services.appConfig.snapshot();
  const token = await services.rooms.newToken(cfg);
  const roomId = await services.repos.rooms.insert({ ...ROOM_DEFAULTS, token, type: 2, name: 'Bench chat', last_activity: Math.floor(Date.now() / 1000) });
  await services.rooms.addAttendees(roomId, [
    { actorType: 'users', actorId: owner.id, displayName: 'Bench Owner', participantType: 1 },
    ...members.map((m) => ({ actorType: 'users', actorId: m.id, displayName: m.id, participantType: 3 })),
  ]);
  return { token, owner: { id: owner.id, auth: basic(owner.id, 'bench-owner-password-1') }, members };
}

async function main() {
  const pgUrl = process.env.BENCH_DATABASE_URL;
  const { env, drop } = await freshDatabase(pgUrl ? 'postgres' : 'sqlite', pgUrl);
  const services = await openSeedServices(env);
  const seeded = await seed(services);
  await closeSeedServices(services);

  // The idle part opens 5,000 polls in one burst: load shedding (docs/operators.md) would answer
  // part of the burst 503, and it is the held polls that are measured here.
  const server = await startServer(env, {
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    OVERLOAD_MAX_DB_WAITING: '0',
    OVERLOAD_MAX_DB_WAIT_MS: '0',
    OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT: '0',
  });
  const url = server.url;
  const chatUrl = `${url}${V1}/chat/${seeded.token}?format=json`;
  try {
    // Warm up: every member's credential is verified once and the history read.
    let last = 0;
    await eachLimited(seeded.members, 50, async (m) => {
      const r = await fetch(`${chatUrl}&lookIntoFuture=0&limit=1`, { headers: headers(m.auth) });
      // 304: nothing in the chat yet.
      if (r.status !== 200 && r.status !== 304) throw new Error(`history for ${m.id}: ${r.status}`);
      if (r.status === 200) last = Math.max(last, (await r.json()).ocs.data[0]?.id ?? 0);
    });
    const post = async (message) => {
      const r = await fetch(chatUrl, {
        method: 'POST',
        headers: { ...headers(seeded.owner.auth), 'Content-Type': 'application/json' },
        body: JSON.stringify({ message }),
      });
      if (r.status !== 201) throw new Error(`post: ${r.status}`);
      return (await r.json()).ocs.data.id;
    };
    last = await post('warm-up');
    console.log(
      `chat-longpoll loadavg=${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(',')} cpus=${os.cpus().length} db=${env.DATABASE_URL ? 'postgres' : 'sqlite'} client=${CLIENT}`,
    );

    // 1. Idle long-polls.
    await sleep(1000);
    const rssBefore = rssMb(server.pid);
    const metric = async (name) => Number(new RegExp(`^${name}(?:_total)? (\\d+)$`, 'm').exec(await (await fetch(`${url}/metrics`)).text())?.[1] ?? NaN);
    const heapBefore = (await metric('nodejs_heap_size_used_bytes')) / 1048576;
    const queriesBefore = await metric('parley_db_queries');
    const idleStarted = performance.now();
    const aborters = Array.from({ length: IDLE }, () => new AbortController());
    let answered = 0;
    const early = {};
    // The idle polls have connections of their own (node:http, no keep-alive), all closed when
    // the polls are aborted. With fetch, some of them stayed open as idle keep-alive connections
    // after the abort and timed out four seconds later, in the middle of the first delivery
    // round: the bench itself was then busy closing them (a third of its CPU in that round).
    const idleAgent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const idle = Array.from(
      { length: IDLE },
      (_, i) =>
        new Promise((resolve) => {
          const req = http.get(
            `${chatUrl}&lookIntoFuture=1&timeout=60&lastKnownMessageId=${last}`,
            { agent: idleAgent, headers: headers(seeded.members[i % MEMBERS].auth), signal: aborters[i].signal },
            (res) => {
              res.resume();
              answered++;
              early[res.statusCode] = (early[res.statusCode] ?? 0) + 1;
              resolve(res.statusCode);
            },
          );
          req.on('error', () => resolve('aborted'));
        }),
    );
    // Until every poll is waiting in the server (GET /metrics parley_waiting_long_polls): on a
    // loaded machine, PostgreSQL may still be working through the burst when the RSS has
    // stopped moving, and polls queued for a connection are not idle polls. Then until the
    // server's RSS stops growing.
    let waiting = 0;
    for (let i = 0; i < 240 && waiting < IDLE; i++) {
      await sleep(500);
      waiting = await metric('parley_waiting_long_polls');
    }
    // How long the burst took to reach the wait (to the 0.5 s of the check above), and the
    // statements it cost per poll (the scrapes' own statements included).
    const readySeconds = (performance.now() - idleStarted) / 1000;
    const statementsPerPoll = ((await metric('parley_db_queries')) - queriesBefore) / IDLE;
    let rssAfter = rssMb(server.pid);
    for (let i = 0; i < SETTLE; i++) {
      await sleep(1000);
      const now = rssMb(server.pid);
      if (process.env.BENCH_TRACE)
        console.log(`  t=${i + 1}s rss=${now.toFixed(0)}MB heap_used=${((await metric('nodejs_heap_size_used_bytes')) / 1048576).toFixed(0)}MB`);
      if (!process.env.BENCH_TRACE && i >= 4 && Math.abs(now - rssAfter) < 1) break;
      rssAfter = now;
    }
    rssAfter = rssMb(server.pid);
    // What the waiting polls keep alive, without the garbage the burst left behind for V8's next
    // major collection (which an idle process may not run for minutes): a full collection, then
    // the RSS and heap again.
    const heapSettled = (await metric('nodejs_heap_size_used_bytes')) / 1048576;
    const gcAnswer = await fetch(`${url}/bench/gc`, { method: 'POST' });
    if (gcAnswer.status !== 204) throw new Error(`POST /bench/gc: ${gcAnswer.status}`);
    await sleep(2000);
    const rssCollected = rssMb(server.pid);
    // The JavaScript heap's share of the growth (the rest: sockets, parsers and the heap's slack).
    const heapAfter = (await metric('nodejs_heap_size_used_bytes')) / 1048576;
    if (answered > 0) throw new Error(`${answered} idle long-polls answered early (by status: ${JSON.stringify(early)}; waiting=${waiting})`);
    const growth = rssAfter - rssBefore;
    console.log(
      `chat-longpoll idle=${IDLE} waiting=${waiting} rss_before=${rssBefore.toFixed(0)}MB rss_after=${rssAfter.toFixed(0)}MB growth=${growth.toFixed(0)}MB heap_used=${heapBefore.toFixed(0)}->${heapSettled.toFixed(0)}MB after_full_gc: rss_growth=${(rssCollected - rssBefore).toFixed(0)}MB heap_used=${heapAfter.toFixed(0)}MB all_waiting_after=${readySeconds.toFixed(1)}s statements_per_poll=${statementsPerPoll.toFixed(2)} per_poll=${((growth * 1024) / IDLE).toFixed(1)}KB bar=<=150MB ${growth <= 150 ? 'ok' : 'OVER'}`,
    );
    // BENCH_HEAP=dir: a heap snapshot of the server while every poll waits (what each one holds).
    const snapshot = await heapSnapshot(server.pid);
    if (snapshot) console.log(`chat-longpoll heap_snapshot=${snapshot}`);
    for (const a of aborters) a.abort();
    await Promise.all(idle);
    idleAgent.destroy();
    await sleep(2000);

    // 2. Delivery to MEMBERS waiting members.
    // A member's poll: its status, when its answer's head arrived, its body. By default through
    // node:http (keep-alive): the 1,000 members are one process here, whose own work per answer
    // delays the next answer's arrival time; fetch (BENCH_CLIENT=fetch) costs this process
    // two to three times more CPU per answer than node:http, which on a loaded 2-core machine
    // showed as most of the first round's p99 (docs/benchmarks.md).
    const memberAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    const memberPoll =
      CLIENT === 'fetch'
        ? async (target, auth) => {
            const r = await fetch(target, { headers: headers(auth) });
            const at = performance.now();
            return { status: r.status, at, body: await r.text() };
          }
        : (target, auth) =>
            new Promise((resolve, reject) => {
              const req = http.get(target, { agent: memberAgent, headers: headers(auth) }, (res) => {
                const at = performance.now();
                const chunks = [];
                res.on('data', (c) => chunks.push(c));
                res.on('end', () => resolve({ status: res.statusCode, at, body: Buffer.concat(chunks).toString('utf8') }));
                res.on('error', reject);
              });
              req.on('error', reject);
            });
    const p99s = [];
    // Round 0 warms up (each member's first long-poll moves its read marker: 1,000 writes that
    // may still be running when the message is posted); it is printed, not counted.
    for (let round = 0; round <= ROUNDS; round++) {
      let sentAt = 0;
      const waits = seeded.members.map(async (m) => {
        const r = await memberPoll(`${chatUrl}&lookIntoFuture=1&timeout=60&lastKnownMessageId=${last}`, m.auth);
        if (r.status !== 200) throw new Error(`member ${m.id}: ${r.status}`);
        const body = JSON.parse(r.body);
        if (body.ocs.data[0]?.message !== `round ${round}`) throw new Error(`member ${m.id} got ${JSON.stringify(body.ocs.data[0]?.message)}`);
        return r.at;
      });
      await sleep(3000); // every long-poll is waiting
      sentAt = performance.now();
      last = await post(`round ${round}`);
      const latencies = (await Promise.all(waits)).map((at) => at - sentAt).sort((a, b) => a - b);
      const p99 = percentile(latencies, 99);
      if (round > 0) p99s.push(p99);
      console.log(
        `chat-longpoll delivery round=${round}${round === 0 ? '(warm-up)' : ''} members=${MEMBERS} p50=${percentile(latencies, 50).toFixed(0)}ms p99=${p99.toFixed(0)}ms max=${latencies.at(-1).toFixed(0)}ms`,
      );
      await sleep(1000);
    }
    memberAgent.destroy();
    const median = [...p99s].sort((a, b) => a - b)[Math.floor(p99s.length / 2)];
    console.log(`chat-longpoll delivery members=${MEMBERS} p99_median=${median.toFixed(0)}ms bar=<1000ms ${median < 1000 ? 'ok' : 'OVER'}`);
  } finally {
    await server.stop();
    await drop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
