/**
 * A bare server for bench/chat-send-ceiling.mjs: Fastify and better-sqlite3 as Parley uses them
 * (WAL, synchronous=NORMAL), over a Parley database, with nothing else. `GET /hello` answers as
 * Parley's does; `POST /send` stores a chat message in the conversation BARE_ROOM_ID as the
 * smallest honest send would: one row into `chat_messages` (its indexes and triggers included)
 * and the room pointed at it, then answers 201 with the id. No authentication, no access check,
 * no read marker, notification, change-feed reading, presenter or OCS envelope.
 *
 * BARE_MODE=transaction: one transaction per send. BARE_MODE=grouped: the sends that arrive in one
 * turn of the event loop share one transaction (what db/commit-group.ts does). Prints "listening"
 * once it listens on BARE_PORT.
 */
import Fastify from 'fastify';
import SQLite from 'better-sqlite3';

const db = new SQLite(process.env.BARE_DB);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
const roomId = Number(process.env.BARE_ROOM_ID);
// BARE_TRIGGERS=off: without Parley's triggers (the revisions of 0711, the change feed of 0712),
// to tell their share. They are dropped for good: the last mode run over the file.
if (process.env.BARE_TRIGGERS === 'off')
  for (const name of db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").pluck().all()) db.exec(`DROP TRIGGER "${name}"`);
const insert = db.prepare(
  `INSERT INTO chat_messages (room_id, actor_type, actor_id, actor_display_name, message, message_type, system_message, message_parameters,
     reference_id, parent_id, created_at, expires_at, silent, can_mention_all, last_edit_actor_type, last_edit_actor_id,
     last_edit_actor_display_name, last_edit_at, deleted_by_type, deleted_by_id, deleted_at, reactions)
   VALUES (?, 'users', 'bench-bare', 'Bench Bare', ?, 'comment', '', '[]', '', NULL, ?, 0, 0, 0, '', '', '', 0, '', '', 0, '{}') RETURNING id`,
);
const point = db.prepare('UPDATE rooms SET last_message = ?, last_activity = ?, chat_count = chat_count + 1 WHERE id = ?');
const full = process.env.BARE_MODE === 'full';
// The statements are prepared after the triggers are gone (a prepared statement keeps its program).
const member = db.prepare(
  `SELECT r.id AS room_id, r.read_only, r.lobby_state, a.id AS attendee_id, a.permissions FROM rooms r
   JOIN attendees a ON a.room_id = r.id AND a.actor_type = 'users' AND a.actor_id = ? WHERE r.token = ?`,
);
const read = db.prepare('UPDATE attendees SET last_read_message = ?, last_attendee_activity = ? WHERE id = ? AND last_read_message < ?');
const notify = db.prepare(
  `INSERT INTO notifications (user_id, app, subject, object_type, object_id, room_id, message_id, subject_params, message, message_params, missed, created_at)
   VALUES (?, 'spreed', 'chat', 'chat', ?, ?, ?, '{}', '', '', 0, ?)`,
);
const store = (message, now, attendeeId) => {
  const { id } = insert.get(roomId, message, now);
  point.run(id, now, roomId);
  if (attendeeId !== undefined) {
    read.run(id, now, attendeeId, id);
    notify.run(process.env.BARE_NOTIFY, process.env.BARE_TOKEN, roomId, id, now);
  }
  return id;
};
const storeOne = db.transaction(store);
const storeMany = db.transaction((items) => items.map((x) => store(x.message, x.now, x.attendeeId)));

let waiting = [];
const grouped = (message, now, attendeeId) =>
  new Promise((resolve, reject) => {
    waiting.push({ message, now, attendeeId, resolve, reject });
    if (waiting.length === 1)
      setImmediate(() => {
        const items = waiting;
        waiting = [];
        try {
          storeMany(items).forEach((id, i) => items[i].resolve(id));
        } catch (e) {
          for (const x of items) x.reject(e);
        }
      });
  });

const app = Fastify();
app.get('/hello', async () => ({ hello: 'world' }));
app.post('/send', async (req, reply) => {
  const now = Math.floor(Date.now() / 1000);
  const message = String(req.body?.message ?? '');
  let id;
  if (full) {
    const m = member.get(process.env.BARE_USER, process.env.BARE_TOKEN);
    if (!m) return reply.code(404).send({ error: 'room' });
    id = await grouped(message, now, m.attendee_id);
  } else id = process.env.BARE_MODE === 'grouped' ? await grouped(message, now) : storeOne(message, now);
  reply.code(201);
  return { id, message };
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.BARE_PORT) });
console.log('listening');
