#!/usr/bin/env node
/**
 * Push fan-out (docs/benchmarks.md "Push to a large conversation"; after `npm run build`):
 *
 * BENCH_MEMBERS (default 1,000) members of one group conversation, each with a phone registered
 * for the push proxy, which is a small HTTP server in this process counting what it is handed.
 * Elsewhere, two users chat in a conversation of their own on BENCH_CONNECTIONS (10)
 * connections, closed loop, for BENCH_SECONDS (5): their send rate alone. Then the same again,
 * with one message posted to the large conversation at its start: every member is owed a push
 * (group conversations notify of every message by default, `default_group_notification` 1).
 * Prints how long it took until the proxy had been handed all of them (target: within 2 s) and
 * the small conversation's send rate meanwhile against its rate alone (target: down less than
 * 10%), and the statements (GET /metrics parley_db_queries) of a second such message posted with
 * nothing else running, until all its pushes were handed over.
 *
 * The server is the build (dist/main.js serve) in its own process, on a fresh SQLite data
 * directory, or on PostgreSQL with BENCH_DATABASE_URL (a fresh schema, dropped afterwards).
 * Members' key pairs are one pair shared by all (generating 1,000 RSA keys would take minutes and
 * measures nothing of the fan-out); every push is still encrypted and signed on its own.
 */
import http from 'node:http';
import os from 'node:os';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { basic, closeSeedServices, dist, freshDatabase, ocs, openSeedServices, startServer } from './lib/server.mjs';

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 1000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const V1 = '/ocs/v2.php/apps/spreed/api/v1';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The push proxy: counts the notifications it is handed and when the last one came. */
async function startProxy() {
  let received = 0;
  let lastAt = 0;
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      received += [...new URLSearchParams(raw).keys()].filter((k) => k.startsWith('notifications[')).length;
      lastAt = performance.now();
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ unknown: [], failed: 0 }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    received: () => received,
    lastAt: () => lastAt,
    close: () => new Promise((r) => server.close(r)),
  };
}

async function seed(services, proxyUrl) {
  const { ROOM_DEFAULTS } = await dist('db/repositories/rooms.js');
  const owner = await services.directory.createUser({ id: 'bench-owner', password: 'bench-owner-password-1', displayName: 'Bench Owner' });
  const pair = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const phone = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const now = Math.floor(Date.now() / 1000);
  const members = [];
  for (let i = 0; i < MEMBERS; i++) {
    const id = `bench-m${i}`;
    await services.directory.users.insertWithGroups({ ...owner, id, display_name: `Member ${i}` }, []);
    await services.auth.createAppPassword(id, 'phone');
    const { id: appPasswordId } = await services.db.kysely.selectFrom('app_passwords').select('id').where('user_id', '=', id).executeTakeFirstOrThrow();
    await services.repos.pushDevices.keepKey({ user_id: id, public_key: pair.publicKey, private_key: pair.privateKey, created_at: now });
    const token = createHash('sha256').update(id).digest('hex');
    await services.repos.pushDevices.register({
      user_id: id,
      app_password_id: Number(appPasswordId),
      device_identifier: createHash('sha512').update(`device ${id}`).digest('base64'),
      device_public_key: phone.publicKey,
      device_public_key_hash: createHash('sha512').update(phone.publicKey).digest('hex'),
      push_token_hash: createHash('sha512').update(token).digest('hex'),
      proxy_server: `${proxyUrl}/`,
      app_type: 'talk',
      created_at: now,
    });
    members.push(id);
  }
  const cfg = await services.appConfig.snapshot();
  const token = await services.rooms.newToken(cfg);
  const roomId = await services.repos.rooms.insert({ ...ROOM_DEFAULTS, token, type: 2, name: 'Bench push', last_activity: now });
  await services.rooms.addAttendees(roomId, [
    { actorType: 'users', actorId: owner.id, displayName: 'Bench Owner', participantType: 1 },
    ...members.map((m) => ({ actorType: 'users', actorId: m, displayName: m, participantType: 3 })),
  ]);
  const small = await services.rooms.newToken(cfg);
  const smallId = await services.repos.rooms.insert({ ...ROOM_DEFAULTS, token: small, type: 2, name: 'Bench pair', last_activity: now });
  await services.rooms.addAttendees(smallId, [
    { actorType: 'users', actorId: owner.id, displayName: 'Bench Owner', participantType: 1 },
    // Never notified: the pair's messages cost no pushes of their own.
    { actorType: 'users', actorId: members[0], displayName: members[0], participantType: 3, notificationLevel: 3 },
  ]);
  return { token, small, auth: basic(owner.id, 'bench-owner-password-1') };
}

/** Closed-loop plain sends for SECONDS on CONNECTIONS connections: messages per second. */
async function sendLoop(url, seeded, label) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const body = JSON.stringify({ message: `plain ${label}` });
  const target = new URL(`${url}${V1}/chat/${seeded.small}?format=json`);
  const post = () =>
    new Promise((resolve, reject) => {
      const req = http.request(
        target,
        { method: 'POST', agent, headers: { ...ocs, Authorization: seeded.auth, 'Content-Type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`send: ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  let sent = 0;
  const until = performance.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < until) {
        await post();
        sent++;
      }
    }),
  );
  agent.destroy();
  return sent / SECONDS;
}

async function main() {
  const pgUrl = process.env.BENCH_DATABASE_URL;
  const proxy = await startProxy();
  const { env, drop } = await freshDatabase(pgUrl ? 'postgres' : 'sqlite', pgUrl);
  const services = await openSeedServices(env);
  const seeded = await seed(services, proxy.url);
  await closeSeedServices(services);
  const server = await startServer(env, { PUSH_PROXIES: proxy.url, PUSH_ALLOW_INSECURE: 'true' });
  try {
    await sendLoop(server.url, seeded, 'warm-up');
    const load = os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(',');
    const alone = await sendLoop(server.url, seeded, 'alone');
    const before = proxy.received();
    const posted = performance.now();
    const mention = fetch(`${server.url}${V1}/chat/${seeded.token}?format=json`, {
      method: 'POST',
      headers: { ...ocs, Authorization: seeded.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: 'time for a push' }),
    });
    const during = await sendLoop(server.url, seeded, 'during');
    if ((await mention).status !== 201) throw new Error('the @all message was not posted');
    for (let i = 0; i < 600 && proxy.received() - before < MEMBERS; i++) await sleep(100);
    const handed = proxy.received() - before;
    const allIn = handed >= MEMBERS ? ((proxy.lastAt() - posted) / 1000).toFixed(2) : 'never';
    // Statements of a fan-out alone: another message to the large conversation with nothing else
    // running, counted from the server's parley_db_queries until every push was handed over.
    await sleep(500);
    const statements = async () => Number(/^parley_db_queries(?:_total)? (\d+)/m.exec(await (await fetch(`${server.url}/metrics`)).text())?.[1] ?? NaN);
    const quietBefore = proxy.received();
    const s0 = await statements();
    const quiet = await fetch(`${server.url}${V1}/chat/${seeded.token}?format=json`, {
      method: 'POST',
      headers: { ...ocs, Authorization: seeded.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ message: 'another push' }),
    });
    if (quiet.status !== 201) throw new Error('the second message was not posted');
    for (let i = 0; i < 600 && proxy.received() - quietBefore < MEMBERS; i++) await sleep(100);
    await sleep(500);
    const fanoutStatements = (await statements()) - s0;
    console.log(
      `push-fanout loadavg=${load} cpus=${os.cpus().length} db=${pgUrl ? 'postgres' : 'sqlite'} members=${MEMBERS} handed=${handed} all_handed_after=${allIn}s bar=<2s ${handed >= MEMBERS && Number(allIn) < 2 ? 'ok' : 'OVER'} send_alone=${alone.toFixed(0)}/s send_during=${during.toFixed(0)}/s ratio=${(during / alone).toFixed(2)} bar=>0.90 ${during / alone > 0.9 ? 'ok' : 'UNDER'} fanout_statements=${fanoutStatements}`,
    );
  } finally {
    await server.stop();
    await proxy.close();
    await drop();
  }
}

await main();
