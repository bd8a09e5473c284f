/**
 * Conversation bench routes: GET /room for a user in 200 conversations out of 10,000, the same
 * body sent pre-rendered (GET /room's baseline: ratio = room-list / room-list-prerendered), and
 * GET /room/{token} (compared with hello). In the cookie mode the user sends the session cookie
 * of having joined the conversation of room-get, as a browser showing it does.
 */
import fs from 'node:fs';
import path from 'node:path';
import { userAttendeeRow } from '../lib/seed.mjs';

const USER = { user: 'bench-rooms', password: 'bench-rooms-password-1' };
const TOTAL = 10_000;
const MINE = 200;

/** 10,000 rooms, the bench user in 200 of them (the three entries share it; run.mjs runs it once). */
async function seed({ services, dist }) {
  const { ROOM_DEFAULTS } = await dist('db/repositories/rooms.js');
  const userRow = await userAttendeeRow(dist);
  await services.directory.createUser({ id: USER.user, password: USER.password, displayName: 'Bench Rooms' });
  const others = [];
  // One one-to-one per pair (a unique index holds it): 40 partners for the 40 one-to-ones.
  for (let i = 0; i < 40; i++) {
    const id = `bench-other-${i}`;
    await services.directory.createUser({ id, password: `${id}-password-1`, displayName: `Other ${i}` });
    others.push(id);
  }
  const cfg = await services.appConfig.snapshot();
  const now = Math.floor(Date.now() / 1000);
  let myToken;
  await services.rooms.transaction(async (repos) => {
    for (let i = 0; i < TOTAL; i++) {
      const mine = i % (TOTAL / MINE) === 0;
      const oneToOne = mine && (i / (TOTAL / MINE)) % 5 === 0;
      const other = oneToOne ? others[i / (TOTAL / MINE) / 5] : others[i % others.length];
      const token = await services.rooms.newToken(cfg, repos);
      const id = await repos.rooms.insert({
        ...ROOM_DEFAULTS,
        token,
        type: oneToOne ? 1 : 2 + (i % 2),
        name: oneToOne ? JSON.stringify([USER.user, other].sort()) : `Conversation ${i}`,
        description: 'A conversation used by the benchmark',
        last_activity: now - i,
        created_at: now - i,
      });
      const row = (actorId, type) => userRow(id, actorId, type, now);
      const rows = [row(other, 1), row(others[(i + 1) % others.length], 3)];
      if (mine) rows.push(row(USER.user, oneToOne ? 1 : 3));
      await repos.attendees.insertIgnoringDuplicates(rows);
      if (mine && !oneToOne) myToken ??= token;
    }
  });

  // The exact GET /room body, rendered in-process, for the pre-rendered baseline route.
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
  const dir = path.join(services.settings.dataDir, PRERENDERED_DIR);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'room-list.json'), renderOcs(2, 'json', 200, list).body);
  return { ...USER, token: myToken };
}

/** The cookie of the bench user's session in the conversation of room-get. */
const joinedCookie = ({ basic, state, joinCookie }) => joinCookie(basic(state.user, state.password), state.token);

export default [
  {
    name: 'room-list-prerendered',
    seed,
    request: () => ({ path: '/bench/prerendered/room-list' }),
  },
  {
    name: 'room-list',
    vs: 'room-list-prerendered',
    seed,
    cookie: joinedCookie,
    request: ({ basic, ocs, state }) => ({
      path: '/ocs/v2.php/apps/spreed/api/v4/room?format=json',
      headers: { ...ocs, Authorization: basic(state.user, state.password) },
    }),
  },
  {
    name: 'room-get',
    seed,
    cookie: joinedCookie,
    request: ({ basic, ocs, state }) => ({
      path: `/ocs/v2.php/apps/spreed/api/v4/room/${state.token}?format=json`,
      headers: { ...ocs, Authorization: basic(state.user, state.password) },
    }),
  },
];
