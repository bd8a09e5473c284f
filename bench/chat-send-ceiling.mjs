#!/usr/bin/env node
/**
 * The ceiling of a chat send on SQLite, as a throughput ratio to hello like the bar of
 * `npm run bench`: what the smallest honest send reaches on this machine, with nothing of
 * Parley's around it. Seeds the chat-send route's database (bench/routes/30-chat.mjs) through
 * the built services, then loads, with autocannon and 10 connections as bench/run.mjs does:
 *
 * - the built server: `GET /hello` and the chat-send route;
 * - a bare server over the same database file (bench/lib/bare-send-server.mjs: Fastify and
 *   better-sqlite3 alone): its `GET /hello`, and its `POST /send` (one chat_messages row and the
 *   room's pointer; no authentication, access check, read marker, notification or presenter),
 *   once with one transaction per send, once with the sends of one event-loop turn grouped, and
 *   once grouped with the rest of what a Talk send writes and reads (`full`: the room and the
 *   author's attendee by token, the author's read marker, the other member's notification);
 *   last, `full` again without Parley's triggers (the revisions of migration 0711 and the change
 *   feed of 0712), which it drops from the file.
 *
 * Each server's sends are taken against its own hello, measured just before, in each of
 * CEILING_ROUNDS (3) rounds of CEILING_SECONDS (3) seconds; the medians are printed, then each
 * variant's hello and send rates (medians):
 *
 *   chat-send-ceiling parley=<ratio> bare-transaction=<ratio> bare-grouped=<ratio> bare-full=<ratio> bare-full-untriggered=<ratio>
 *     parley hello=<req/s> send=<req/s>
 *     ...
 *
 * Run `npm run build` first.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { once } from 'node:events';
import autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import { freePort, freshDatabase, median, root } from './lib/server.mjs';
import { withChatSendServer } from './lib/chat-send.mjs';

const seconds = Number(process.env.CEILING_SECONDS ?? 3);
const rounds = Number(process.env.CEILING_ROUNDS ?? 3);

/** Requests per second of `req` at `url` (10 connections); any failure stops the bench. */
async function rate(url, req, s = seconds) {
  const res = await autocannon({ url: url + req.path, method: req.method ?? 'GET', headers: req.headers ?? {}, body: req.body, connections: 10, duration: s });
  const failed = res.non2xx + res.errors + res.timeouts;
  if (failed > 0) throw new Error(`${req.path}: ${failed} requests failed`);
  return res.requests.average;
}

/** Rates measured, printed after the ratios: `name hello=<req/s> send=<req/s>` (medians). */
const rates = [];

/** The median over the rounds of send/s over hello/s, each round's hello measured just before. */
async function ratio(name, url, hello, send) {
  await rate(url, hello, 1);
  await rate(url, send, 1);
  const ratios = [];
  const hellos = [];
  const sends = [];
  for (let i = 0; i < rounds; i++) {
    hellos.push(await rate(url, hello));
    sends.push(await rate(url, send));
    ratios.push(sends[i] / hellos[i]);
  }
  rates.push(`  ${name} hello=${median(hellos).toFixed(0)}/s send=${median(sends).toFixed(0)}/s`);
  return median(ratios);
}

/** Starts bench/lib/bare-send-server.mjs over `file` in `mode`; `stop()` ends it. */
async function startBare(file, roomId, mode, who, triggers = 'on') {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(root, 'bench', 'lib', 'bare-send-server.mjs')], {
    env: { ...process.env, BARE_DB: file, BARE_ROOM_ID: String(roomId), BARE_MODE: mode, BARE_PORT: String(port), BARE_TRIGGERS: triggers, ...who },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = await Promise.race([once(child.stdout, 'data'), once(child, 'exit').then(() => [Buffer.from('exited')])]);
  if (!String(line).includes('listening')) throw new Error(`the bare server did not start: ${line}`);
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

/** The bare server's send (the message of the chat-send route). */
const bareSend = {
  method: 'POST',
  path: '/send',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ message: 'Hello from the benchmark' }),
};

const { env, dataDir, drop } = await freshDatabase('sqlite');
try {
  const { parley, sendToken, user } = await withChatSendServer(env, dataDir, async (s) => ({
    parley: await ratio('parley', s.server.url, s.hello, s.send),
    sendToken: s.state.sendToken,
    user: s.state.user,
  }));
  const file = path.join(dataDir, 'parley.sqlite');
  const db = new SQLite(file, { readonly: true });
  const roomId = db.prepare('SELECT id FROM rooms WHERE token = ?').pluck().get(sendToken);
  // The other member of the send's conversation, notified of every message as in Parley.
  const other = db.prepare("SELECT actor_id FROM attendees WHERE room_id = ? AND actor_type = 'users' AND actor_id <> ?").pluck().get(roomId, user);
  db.close();
  const who = { BARE_TOKEN: sendToken, BARE_USER: user, BARE_NOTIFY: other };
  const bare = {};
  for (const mode of ['transaction', 'grouped', 'full']) {
    const b = await startBare(file, roomId, mode, who);
    try {
      bare[mode] = await ratio(`bare-${mode}`, b.url, { path: '/hello' }, bareSend);
    } finally {
      await b.stop();
    }
  }
  // Last: it drops the triggers of the file for good.
  const b = await startBare(file, roomId, 'full', who, 'off');
  try {
    bare.untriggered = await ratio('bare-full-untriggered', b.url, { path: '/hello' }, bareSend);
  } finally {
    await b.stop();
  }
  const f = (x) => x.toFixed(3);
  console.log(
    `chat-send-ceiling parley=${f(parley)} bare-transaction=${f(bare.transaction)} bare-grouped=${f(bare.grouped)} bare-full=${f(bare.full)} bare-full-untriggered=${f(bare.untriggered)}`,
  );
  console.log(rates.join('\n'));
} finally {
  await drop();
}
