#!/usr/bin/env node
/**
 * The floor of a chat send on SQLite: how much of its cost is the statements alone.
 *
 * 1. The built server (its own process), loaded by autocannon with 10 connections as
 *    bench/run.mjs does: server CPU (user + system, /proc) per `GET /hello` and per
 *    `POST /chat/{token}` (the chat-send route of bench/routes/30-chat.mjs).
 * 2. The statements a send runs, through better-sqlite3 alone on a copy of the same database
 *    (its triggers included), with nothing of HTTP, authentication, Kysely or the presenter: the
 *    change-feed reading a request makes after a commit, the room with the caller's attendee,
 *    then BEGIN IMMEDIATE, the insert, the room's last message and counter, the author's read
 *    marker and COMMIT, then the common read marker (test/chat-send-cost.test.ts counts the
 *    same statements; the texts are those of the repositories, written out here). Once with a
 *    transaction per send, once with 4 sends per transaction: what db/commit-group.ts forms on
 *    average under 10 connections.
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
import { dist, freshDatabase, startServer } from './lib/server.mjs';
import { cpuSeconds } from './lib/process-cpu.mjs';
import { prepareRoutes, seedRoutes } from './lib/routes.mjs';
import core from './routes/00-core.mjs';
import chat from './routes/30-chat.mjs';

const seconds = Number(process.env.FLOOR_SECONDS ?? 5);
const sends = Number(process.env.FLOOR_SENDS ?? 20_000);
const routes = [...core, ...chat].filter((r) => r.name === 'hello' || r.name === 'chat-send');

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

/**
 * CPU ms per send of the statements alone, `group` sends per transaction; without `reads`, only
 * the transaction (what no send can do without).
 */
function statementsCpu(file, token, userId, group, reads) {
  const copy = `${file}.floor`;
  for (const suffix of ['', '-wal']) if (fs.existsSync(file + suffix)) fs.copyFileSync(file + suffix, copy + suffix);
  const db = new SQLite(copy);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    const { roomId, attendeeId } = db
      .prepare(
        "select r.id as roomId, a.id as attendeeId from rooms r join attendees a on a.room_id = r.id and a.actor_type = 'users' and a.actor_id = ? where r.token = ?",
      )
      .get(userId, token);
    const attendeeColumns = db
      .prepare('select name from pragma_table_info(?)')
      .pluck()
      .all('attendees')
      .map((c) => `a.${c} as a_${c}`)
      .join(', ');
    // The server's own text (a reading starts at the last row read: that row comes back first).
    const feed = db.prepare(readFrom).raw(true);
    const lookup = db
      .prepare(
        `select r.*, ${attendeeColumns} from rooms r left join attendees a on a.room_id = r.id and a.actor_type = ? and a.actor_id = ? where r.token = ?`,
      )
      .raw(true);
    const begin = db.prepare('begin immediate');
    const commit = db.prepare('commit');
    const insert = db
      .prepare(
        `insert into chat_messages (actor_display_name, message, system_message, message_parameters, reference_id, parent_id, expires_at, silent, can_mention_all,
           last_edit_actor_type, last_edit_actor_id, last_edit_actor_display_name, last_edit_at, deleted_by_type, deleted_by_id, deleted_at, reactions,
           room_id, actor_type, actor_id, message_type, created_at)
         values (?, ?, '', '{}', '', NULL, 0, 0, 1, '', '', '', 0, '', '', 0, '{}', ?, 'users', ?, 'comment', ?) returning *`,
      )
      .raw(true);
    const room = db.prepare(
      'update rooms set last_message = case when last_message < ? then ? else last_message end, chat_count = chat_count + 1 where id = ?',
    );
    const readMarker = db.prepare(
      'update attendees set last_read_message = ?, last_attendee_activity = ?, read_count = (select r.chat_count from rooms r where r.id = attendees.room_id) where id = ? and last_read_message < ?',
    );
    const common = db
      .prepare("select min(last_read_message) as common from attendees where room_id = ? and actor_type = 'users' and read_privacy = 0")
      .raw(true);
    const idColumn = insert.columns().findIndex((c) => c.name === 'id');
    let lastSeq = db.prepare('select max(seq) from change_feed').pluck().get() ?? 0;
    const now = Math.floor(Date.now() / 1000);
    const started = process.cpuUsage();
    for (let done = 0; done < sends; done += group) {
      for (let i = 0; reads && i < group; i++) {
        const rows = feed.all(lastSeq, 10_001);
        lastSeq = rows[rows.length - 1]?.[0] ?? lastSeq;
        lookup.all('users', userId, token);
      }
      begin.run();
      for (let i = 0; i < group; i++) {
        const id = insert.all('Bench Chat', 'Hello from the benchmark', roomId, userId, now)[0][idColumn];
        room.run(id, id, roomId);
        readMarker.run(id, now, attendeeId, id);
      }
      commit.run();
      for (let i = 0; reads && i < group; i++) common.all(roomId);
    }
    const used = process.cpuUsage(started);
    return (used.user + used.system) / 1000 / sends;
  } finally {
    db.close();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(copy + suffix, { force: true });
  }
}

const { env, dataDir, drop } = await freshDatabase('sqlite');
const { READ_FROM: readFrom } = await dist('db/change-feed.js');
try {
  const seeded = await seedRoutes(env, routes, false);
  const server = await startServer(env);
  let hello;
  let send;
  let state;
  try {
    const prepared = await prepareRoutes(server.url, dataDir, routes, seeded);
    const byName = Object.fromEntries(prepared.map((p) => [p.r.name, p]));
    state = seeded.get(byName['chat-send'].r.seed);
    hello = await serverCpu(server, byName.hello.req);
    send = await serverCpu(server, byName['chat-send'].req);
  } finally {
    await server.stop();
  }
  const file = path.join(dataDir, 'parley.sqlite');
  const alone = statementsCpu(file, state.sendToken, state.user, 1, true);
  const grouped = statementsCpu(file, state.sendToken, state.user, 4, true);
  const transaction = statementsCpu(file, state.sendToken, state.user, 4, false);
  const f = (x) => x.toFixed(3);
  console.log(
    `chat-send-floor hello=${f(hello)} send=${f(send)} ratio=${f(hello / send)} statements=${f(alone)} grouped=${f(grouped)} transaction=${f(transaction)} ` +
      `best-ratio=${f(hello / grouped)} bound=${f(hello / (hello + transaction))}`,
  );
} finally {
  await drop();
}
