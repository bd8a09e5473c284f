#!/usr/bin/env node
/**
 * Federation long-poll latency (docs/benchmarks.md, target: p50 < 50 ms on loopback): two built
 * servers, each on its own fresh database, federating as docs/federation.md describes. alice on
 * the host invites bob on the remote; bob accepts and long-polls the conversation kept on his
 * server (which forwards the poll to the host); alice posts on the host, and the time from the
 * post to bob's answer is measured. The same round with carol long-polling on the host itself is
 * the baseline of the same run (ratio: what the hop through the remote adds).
 *
 * BENCH_ROUNDS (default 40) rounds after five warm-up rounds. SQLite by default; BENCH_PG with
 * BENCH_DB=postgres runs both servers on PostgreSQL (each its own schema).
 *
 *   npm run build && node bench/federation-longpoll.mjs
 */
import os from 'node:os';
import { basic, chosenDatabases, closeSeedServices, freshDatabase, median, ocs, openSeedServices, startServer } from './lib/server.mjs';

const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 40));
const WARMUP = 5;
const V1 = '/ocs/v2.php/apps/spreed/api/v1';
const V4 = '/ocs/v2.php/apps/spreed/api/v4';
const PASSWORD = 'bench-user-password-1';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function api(url, user, method, path, body) {
  const res = await fetch(url + path, {
    method,
    headers: { ...ocs, Authorization: basic(user, PASSWORD), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, data: text ? JSON.parse(text).ocs?.data : undefined, headers: res.headers };
}

/** A server on a fresh database of `db` with federation on and `users` (password PASSWORD). */
async function federatingServer(db, users) {
  const fresh = await freshDatabase(db);
  const services = await openSeedServices(fresh.env);
  await services.appConfig.set('federation_enabled', 'yes');
  for (const id of users) await services.directory.createUser({ id, password: PASSWORD, displayName: id });
  await closeSeedServices(services);
  // Jobs on: the invitation is an outbox row, delivered by the outbox worker.
  const server = await startServer(fresh.env, { FEDERATION_ALLOW_INSECURE: 'true', JOBS: 'true', BRUTE_FORCE_DELAY_MS: '0' });
  return { ...server, drop: fresh.drop };
}

/** Waits until `fn` answers something truthy (at most 30 s). */
async function eventually(what, fn) {
  const until = Date.now() + 30_000;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** One round: `waiter` long-polls `token` on `url`, then alice posts on the host; ms from post to answer. */
async function round(host, hostToken, waiter, i) {
  const history = await api(waiter.url, waiter.user, 'GET', `${V1}/chat/${waiter.token}?lookIntoFuture=0&limit=1`);
  const last = history.data?.[0]?.id ?? 0;
  const poll = api(waiter.url, waiter.user, 'GET', `${V1}/chat/${waiter.token}?lookIntoFuture=1&lastKnownMessageId=${last}&timeout=30`);
  // Let the poll reach its wait (on the remote: forwarded and waiting on the host).
  await sleep(150);
  const t0 = performance.now();
  const sent = await api(host.url, 'alice', 'POST', `${V1}/chat/${hostToken}`, { message: `round ${i}` });
  if (sent.status !== 201) throw new Error(`post answered ${sent.status}`);
  const got = await poll;
  const ms = performance.now() - t0;
  if (got.status !== 200 || !Array.isArray(got.data) || !got.data.some((m) => m.message === `round ${i}`)) {
    throw new Error(`the long-poll answered ${got.status} without the message`);
  }
  return ms;
}

function summary(xs) {
  const v = [...xs].sort((a, b) => a - b);
  const p = (q) => v[Math.min(v.length - 1, Math.ceil(q * v.length) - 1)];
  return { p50: median(v), p90: p(0.9), max: v[v.length - 1] };
}

async function runOn(db) {
  const host = await federatingServer(db, ['alice', 'carol']);
  const remote = await federatingServer(db, ['bob']);
  try {
    const room = await api(host.url, 'alice', 'POST', `${V4}/room`, { roomType: 2, roomName: 'Federated bench' });
    const hostToken = room.data.token;
    await api(host.url, 'alice', 'POST', `${V4}/room/${hostToken}/participants`, { newParticipant: 'carol', source: 'users' });
    const invited = await api(host.url, 'alice', 'POST', `${V4}/room/${hostToken}/participants`, {
      newParticipant: `bob@${remote.url}`,
      source: 'federated_users',
    });
    if (invited.status !== 200) throw new Error(`inviting bob answered ${invited.status}`);
    const inv = await eventually('the invitation on the remote', async () => {
      const list = await api(remote.url, 'bob', 'GET', `${V1}/federation/invitation`);
      return (list.data ?? []).find((x) => x.remoteToken === hostToken);
    });
    const accepted = await api(remote.url, 'bob', 'POST', `${V1}/federation/invitation/${inv.id}`);
    if (accepted.status !== 200) throw new Error(`accepting answered ${accepted.status}`);
    const federated = { url: remote.url, user: 'bob', token: accepted.data.token };
    const local = { url: host.url, user: 'carol', token: hostToken };

    const times = { federated: [], local: [] };
    for (let i = 0; i < WARMUP + ROUNDS; i++) {
      // Alternate, so both see the same machine load.
      for (const kind of ['federated', 'local']) {
        const ms = await round(host, hostToken, kind === 'federated' ? federated : local, `${kind}-${i}`);
        if (i >= WARMUP) times[kind].push(ms);
      }
    }
    const f = summary(times.federated);
    const l = summary(times.local);
    const load = os.loadavg()[0].toFixed(1);
    console.log(
      `${db}: through the remote p50 ${f.p50.toFixed(1)} ms, p90 ${f.p90.toFixed(1)} ms, max ${f.max.toFixed(1)} ms (${ROUNDS} rounds, load ${load})`,
    );
    console.log(
      `${db}: on the host itself p50 ${l.p50.toFixed(1)} ms, p90 ${l.p90.toFixed(1)} ms, max ${l.max.toFixed(1)} ms; the hop adds ${(f.p50 - l.p50).toFixed(1)} ms at p50`,
    );
    console.log(`${db}: target p50 < 50 ms through the remote: ${f.p50 < 50 ? 'met' : 'NOT met'}`);
  } finally {
    await remote.stop();
    await host.stop();
    await remote.drop();
    await host.drop();
  }
}

for (const db of chosenDatabases()) await runOn(db);
