/**
 * Chat bench routes: sending a message (vs hello), and GET /room for a user in 200 conversations
 * (out of 2,000) that all have messages, unread counts and mentions, measured against the same
 * body pre-rendered (the writer and cookie modes of run.mjs defeat the rendered answers).
 */
import fs from 'node:fs';
import path from 'node:path';
import { userAttendeeRow } from '../lib/seed.mjs';

const USER = { user: 'bench-chat', password: 'bench-chat-password-1' };
const WRITER = { user: 'bench-chat-writer', password: 'bench-chat-writer-password-1' };
const TOTAL = 2_000;
const MINE = 200;
const PER_ROOM = 5;

async function seed({ services, dist }) {
  const { ROOM_DEFAULTS } = await dist('db/repositories/rooms.js');
  const userRow = await userAttendeeRow(dist);
  await services.directory.createUser({ id: USER.user, password: USER.password, displayName: 'Bench Chat' });
  await services.directory.createUser({ id: WRITER.user, password: WRITER.password, displayName: 'Bench Writer' });
  const cfg = await services.appConfig.snapshot();
  const now = Math.floor(Date.now() / 1000);
  const mine = [];
  await services.rooms.transaction(async (repos) => {
    for (let i = 0; i < TOTAL; i++) {
      const isMine = i % (TOTAL / MINE) === 0;
      const token = await services.rooms.newToken(cfg, repos);
      const id = await repos.rooms.insert({ ...ROOM_DEFAULTS, token, type: 2, name: `Chat ${i}`, last_activity: now - i, created_at: now - i });
      const row = (actorId, type) => userRow(id, actorId, type, now);
      const rows = [row(WRITER.user, 1)];
      if (isMine) rows.push(row(USER.user, 3));
      await repos.attendees.insertIgnoringDuplicates(rows);
      if (isMine) mine.push({ id, token });
    }
  });
  // Messages by the writer (unread for the bench user), one mentioning them in each room.
  for (const r of mine) {
    const room = await services.repos.rooms.findById(r.id);
    const me = await services.repos.attendees.find(r.id, 'users', USER.user);
    for (let k = 0; k < PER_ROOM; k++) {
      await services.chat.postUserMessage(room, {
        actor: { type: 'users', id: WRITER.user, displayName: 'Bench Writer' },
        attendeeId: 0,
        message: k === 0 ? 'hello {mention-user1}' : `message ${k} in ${r.token}`,
        parameters: k === 0 ? { 'mention-user1': { type: 'user', id: USER.user, name: 'Bench Chat', 'mention-id': USER.user } } : {},
        parentId: null,
        referenceId: '',
        silent: false,
        canMentionAll: false,
        mentions: k === 0 ? { direct: [me.id], indirect: [], notices: [{ userId: USER.user, reason: 'direct' }] } : { direct: [], indirect: [], notices: [] },
      });
    }
  }

  // The exact GET /room body, rendered in-process, for the pre-rendered baseline.
  const { RequestContext } = await dist('services/request-context.js');
  const { renderOcs } = await dist('http/ocs/envelope.js');
  const { PRERENDERED_DIR } = await dist('http/routes/bench-prerendered.js');
  const user = await services.directory.getUser(USER.user);
  const ctx = new RequestContext(services.directory, services.appConfig, user, '127.0.0.1');
  const { JsonArrayOfParts } = await dist('http/ocs/json-bytes.js');
  const list = new JsonArrayOfParts(
    (await services.conversationList.renderJson(ctx, { modifiedSince: 0, includeStatus: false, includeLastMessage: true })).parts,
  );
  const data = list.records();
  if (data.length !== MINE) throw new Error(`bench seed: expected ${MINE} rooms, got ${data.length}`);
  if (!data.every((c) => c.unreadMessages === PER_ROOM && c.unreadMentionDirect === true)) throw new Error('bench seed: unread counts missing');
  const dir = path.join(services.settings.dataDir, PRERENDERED_DIR);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'chat-room-list.json'), renderOcs(2, 'json', 200, list).body);
  return { ...USER, sendToken: mine[0].token };
}

export default [
  {
    name: 'chat-room-list-prerendered',
    seed,
    request: () => ({ path: '/bench/prerendered/chat-room-list' }),
  },
  {
    name: 'chat-room-list',
    vs: 'chat-room-list-prerendered',
    seed,
    cookie: ({ basic, state, joinCookie }) => joinCookie(basic(state.user, state.password), state.sendToken),
    request: ({ basic, ocs, state }) => ({
      path: '/ocs/v2.php/apps/spreed/api/v4/room?format=json',
      headers: { ...ocs, Authorization: basic(state.user, state.password) },
    }),
  },
  {
    name: 'chat-send',
    seed,
    request: ({ basic, ocs, state }) => ({
      method: 'POST',
      path: `/ocs/v2.php/apps/spreed/api/v1/chat/${state.sendToken}?format=json`,
      headers: { ...ocs, Authorization: basic(state.user, state.password), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'message=Hello+from+the+benchmark',
    }),
    expectStatus: 201,
  },
];
