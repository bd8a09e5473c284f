#!/usr/bin/env node
/**
 * The floor of a chat send on SQLite: how much of its cost is the statements alone.
 *
 * 1. The built server (its own process), loaded by autocannon with 10 connections as
 *    bench/run.mjs does: server CPU (user + system, /proc) per `GET /hello` and per
 *    `POST /chat/{token}` (the chat-send route of bench/routes/30-chat.mjs).
 * 2. The statements a send runs, through better-sqlite3 alone on a copy of the same database
 *    (its triggers included), with nothing of HTTP, authentication, Kysely or the presenter.
 *    They are the server's own: the built services, in this process, answer one send (Fastify's
 *    inject, after two of warm-up) while every statement better-sqlite3 runs is recorded with
 *    its arguments (test/chat-send-cost.test.ts counts the same statements). They are replayed
 *    with the new message's id in place of the recorded one, and the change-feed reading from
 *    the last row read. Once with a transaction per send, once with 4 sends per transaction:
 *    what db/commit-group.ts forms on average under 10 connections.
 *
 * Prints
 *
 *   chat-send-floor hello=<ms> send=<ms> ratio=<hello/send> statements=<ms, 1 send per transaction>
 *     grouped=<ms, 4 per transaction> transaction=<ms, its writes alone, 4 per transaction>
 *     best-ratio=<hello/grouped> bound=<hello/(hello + transaction)>
 *
 * best-ratio is what a send would reach against hello if everything but its statements cost
 * nothing; bound, if a send cost only what hello costs (an HTTP exchange) and its writes. Options: FLOOR_SECONDS (5) per server measurement, FLOOR_SENDS (20000) per
 * statements measurement. Run `npm run build` first.
 */
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import { closeSeedServices, dist, freshDatabase, openSeedServices } from './lib/server.mjs';
import { cpuSeconds } from './lib/process-cpu.mjs';
import { withChatSendServer } from './lib/chat-send.mjs';

const seconds = Number(process.env.FLOOR_SECONDS ?? 5);
const sends = Number(process.env.FLOOR_SENDS ?? 20_000);

/** Server CPU ms per request of `req` over `seconds`, after a second of warm-up. */
async function serverCpu(server, req) {
  const load = (s) =>
    autocannon({ url: server.url + req.path, method: req.method ?? 'GET', headers: req.headers ?? {}, body: req.body, connections: 10, duration: s });
  await load(1);
  const before = cpuSeconds(server.pid);
  const res = await load(seconds);
  const failed = res.non2xx + res.errors + res.timeouts;
  if (failed > 0) throw new Error(`${req.path}: ${failed} requests failed`);
  return ((cpuSeconds(server.pid) - before) * 1000) / res.requests.total;
}

/** better-sqlite3's statement methods, recorded while `recording` holds a list. */
const statementProto = (() => {
  const probe = new SQLite(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  return proto;
})();
let recording;
for (const method of ['run', 'get', 'all']) {
  const original = statementProto[method];
  statementProto[method] = function (...args) {
    const result = original.apply(this, args);
    recording?.push({ source: this.source, method, args, reader: this.reader });
    return result;
  };
}

/**
 * The statements one send runs on the built services (in this process, over the server's data
 * directory once its server has stopped), in order, with their arguments, and the id of the
 * message it stored.
 */
async function recordSend(env, req) {
  const services = await openSeedServices(env);
  try {
    const { buildServer } = await dist('http/server.js');
    const app = await buildServer(services);
    const send = async () => {
      const res = await app.inject({ method: req.method, url: req.path, headers: req.headers, payload: req.body });
      if (res.statusCode !== 201) throw new Error(`the recorded send answered ${res.statusCode}`);
      return res.json().ocs.data.id;
    };
    await send();
    await send();
    recording = [];
    const id = await send();
    const statements = recording;
    recording = undefined;
    await app.close();
    return { statements, id };
  } finally {
    recording = undefined;
    await closeSeedServices(services);
  }
}

/**
 * CPU ms per send of the recorded statements alone, `group` sends per transaction; without
 * `reads`, only the transaction (what no send can do without).
 */
function statementsCpu(file, recorded, group, reads) {
  const copy = `${file}.floor`;
  for (const suffix of ['', '-wal']) if (fs.existsSync(file + suffix)) fs.copyFileSync(file + suffix, copy + suffix);
  const db = new SQLite(copy);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const steps = recorded.statements.map((r) => {
      const stmt = db.prepare(r.source);
      if (r.reader) stmt.raw(true);
      return { ...r, stmt };
    });
    const begin = steps.findIndex((x) => /^begin/i.test(x.source));
    const commit = steps.findIndex((x) => /^commit/i.test(x.source));
    if (begin < 0 || commit < begin) throw new Error('the recorded send has no transaction');
    const insert = steps.findIndex((x) => /^insert into "chat_messages"/i.test(x.source));
    const before = steps.slice(0, begin);
    const inside = steps.slice(begin + 1, commit);
    const after = steps.slice(commit + 1);
    let lastSeq = db.prepare('select max(seq) from change_feed').pluck().get() ?? 0;
    let id = recorded.id;
    /** Runs one step as the server did, with the current message id and feed position. */
    const run = (x) => {
      // Kysely passes its parameters as one array, the feed reading them one by one.
      const fresh = (a) => (Array.isArray(a) ? a.map(fresh) : a === recorded.id ? id : a);
      const args = x.source === readFrom ? [lastSeq, ...x.args.slice(1)] : x.args.map(fresh);
      const result = x.stmt[x.method](...args);
      if (x.source === readFrom) lastSeq = result.at(-1)?.[0] ?? lastSeq;
      return result;
    };
    const started = process.cpuUsage();
    for (let done = 0; done < sends; done += group) {
      for (let i = 0; reads && i < group; i++) before.forEach(run);
      steps[begin].stmt.run();
      for (let i = 0; i < group; i++) {
        for (const x of inside) {
          const result = run(x);
          if (x === steps[insert]) id = result[0][x.stmt.columns().findIndex((c) => c.name === 'id')];
        }
      }
      steps[commit].stmt.run();
      for (let i = 0; reads && i < group; i++) after.forEach(run);
    }
    const used = process.cpuUsage(started);
    return (used.user + used.system) / 1000 / sends;
  } finally {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(copy + suffix, { force: true });
  }
}

const { env, dataDir, drop } = await freshDatabase('sqlite');
const { READ_FROM: readFrom } = await dist('cache/change-feed.js');
try {
  const { hello, send, sendRequest } = await withChatSendServer(env, dataDir, async (s) => ({
    hello: await serverCpu(s.server, s.hello),
    send: await serverCpu(s.server, s.send),
    sendRequest: s.send,
  }));
  const recorded = await recordSend(env, sendRequest);
  const file = path.join(dataDir, 'parley.sqlite');
  const alone = statementsCpu(file, recorded, 1, true);
  const grouped = statementsCpu(file, recorded, 4, true);
  const transaction = statementsCpu(file, recorded, 4, false);
  const f = (x) => x.toFixed(3);
  console.log(
    `chat-send-floor hello=${f(hello)} send=${f(send)} ratio=${f(hello / send)} statements=${f(alone)} grouped=${f(grouped)} transaction=${f(transaction)} ` +
      `best-ratio=${f(hello / grouped)} bound=${f(hello / (hello + transaction))}`,
  );
} finally {
  await drop();
}
