/**
 * Every conversation, participant, chat, reaction and poll endpoint with a token, called by each
 * kind of caller on a public conversation (the only kind where all of them exist): anonymous,
 * guest, logged-in non-participant, participant, moderator, owner and guest moderator. Each
 * answer is the contract's status for that caller ("Conversations", "Participants",
 * "Authentication", docs/reference/chat.md#common-rules): a
 * caller the conversation is not found for gets 404, a participant without the role 403, and 401
 * only where the contract lists it (guests on favorites and notification levels, not logged in
 * on breakout rooms). Requests carry input that fails after the role checks where that keeps the
 * conversation unchanged; endpoints whose success changes who is in it run on a fresh one.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects, type Caller } from './helpers/parley.js';
import { createRoom, joinGuest, NO_THROTTLE, seedUser, V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

const KINDS = ['anonymous', 'guest', 'stranger', 'participant', 'moderator', 'owner', 'guestModerator'] as const;
type Kind = (typeof KINDS)[number];
/** [status, data.error]. */
type Expect = [number, string?];
type Table = Record<Kind, Expect>;

const NF: Expect = [404, 'room'];
const MOD: Expect = [403, 'moderator'];

/** Moderator endpoints: outsiders 404, non-moderators 403; `gm` is what a guest moderator gets. */
function moderatorOnly(ok: Expect, gm: Expect = ok): Table {
  return { anonymous: NF, stranger: NF, guest: MOD, participant: MOD, moderator: ok, owner: ok, guestModerator: gm };
}
/** Logged-in moderators only (Talk's RequireLoggedInModeratorParticipant): guest moderators 403. */
const loggedInModerators = (ok: Expect) => moderatorOnly(ok, MOD);
/** Logged-in participants (favorites, notification levels): guests 401 `guest` (contract). */
function loggedInParticipants(ok: Expect): Table {
  return { anonymous: NF, stranger: NF, guest: [401, 'guest'], guestModerator: [401, 'guest'], participant: ok, moderator: ok, owner: ok };
}
/** Users (and authenticated guests), not plain cookie guests: those are not found (docs/reference/chat.md#common-rules). */
function authenticated(ok: Expect): Table {
  return { anonymous: NF, stranger: NF, guest: NF, guestModerator: NF, participant: ok, moderator: ok, owner: ok };
}
/** Any participant; outsiders 404. */
function participants(ok: Expect): Table {
  return { anonymous: NF, stranger: NF, guest: ok, guestModerator: ok, participant: ok, moderator: ok, owner: ok };
}

interface Endpoint {
  method: string;
  /** After /room/{token} (v4) unless it starts with `!`, then a full path with {token}. */
  path: string;
  body?: Record<string, unknown>;
  want: Table;
  /** A success changes the conversation's members or kind: every successful call gets a fresh one. */
  fresh?: boolean;
}

const ENDPOINTS: Endpoint[] = [
  { method: 'GET', path: '', want: { ...participants([200]), anonymous: [200], stranger: [200] } },
  { method: 'PUT', path: '', body: { roomName: '' }, want: moderatorOnly([400, 'value']) },
  { method: 'DELETE', path: '', want: moderatorOnly([200]), fresh: true },
  { method: 'PUT', path: '/description', body: { description: 'x'.repeat(2001) }, want: moderatorOnly([400, 'value']) },
  { method: 'POST', path: '/public', want: loggedInModerators([400, 'type']) },
  { method: 'DELETE', path: '/public', want: loggedInModerators([200]), fresh: true },
  { method: 'PUT', path: '/read-only', body: { state: 7 }, want: loggedInModerators([400, 'value']) },
  { method: 'PUT', path: '/password', body: { password: 'short' }, want: moderatorOnly([400, 'value']) },
  { method: 'PUT', path: '/permissions/default', body: { permissions: 4096 }, want: moderatorOnly([400, 'value']) },
  { method: 'POST', path: '/favorite', want: loggedInParticipants([200]) },
  { method: 'DELETE', path: '/favorite', want: loggedInParticipants([200]) },
  ...['/archive', '/important', '/sensitive'].flatMap((path) => [
    { method: 'POST', path, want: loggedInParticipants([200]) },
    { method: 'DELETE', path, want: loggedInParticipants([200]) },
  ]),
  { method: 'POST', path: '/notify', body: { level: 9 }, want: loggedInParticipants([400, 'level']) },
  { method: 'POST', path: '/notify-calls', body: { level: 9 }, want: loggedInParticipants([400, 'level']) },
  { method: 'POST', path: '/message-expiration', body: { seconds: -1 }, want: moderatorOnly([400, 'value']) },
  { method: 'PUT', path: '/listable', body: { scope: 9 }, want: loggedInModerators([400, 'value']) },
  // Not a contract endpoint, and Talk's is not a public page: no login is 401 (docs/reference/conversations.md#endpoint-rules).
  {
    method: 'PUT',
    path: '/webinar/lobby',
    body: { state: 9 },
    want: { ...loggedInModerators([400, 'value']), anonymous: [401], guest: [401], guestModerator: [401] },
  },
  { method: 'POST', path: '/avatar', want: moderatorOnly([400, 'file']) },
  { method: 'DELETE', path: '/avatar', want: moderatorOnly([200]) },
  // The image is for participants (and users it is listed for); no record, so no public view.
  { method: 'GET', path: '/avatar', want: participants([200]) },
  { method: 'GET', path: '/avatar/dark', want: participants([200]) },
  { method: 'GET', path: '/participants', want: { ...participants([200]), guest: [403, 'participant'] } },
  {
    method: 'POST',
    path: '/participants',
    body: { newParticipant: 'nobody' },
    want: { ...loggedInModerators([404, 'new-participant']) },
  },
  { method: 'DELETE', path: '/attendees', body: { attendeeId: 999999 }, want: moderatorOnly([404, 'participant']) },
  { method: 'DELETE', path: '/participants/self', want: participants([200]), fresh: true },
  { method: 'POST', path: '/participants/active', want: { ...participants([200]), anonymous: [200], stranger: [200] }, fresh: true },
  { method: 'DELETE', path: '/participants/active', want: { ...participants([200]), anonymous: [200], stranger: [200] } },
  // The state lives on a session: callers without one in this conversation (the users here never
  // joined) get 404 `participant`, as Talk; the guests joined and reach the value check.
  {
    method: 'PUT',
    path: '/participants/state',
    body: { state: 9 },
    want: {
      ...participants([404, 'participant']),
      anonymous: [404, 'participant'],
      stranger: [404, 'participant'],
      guest: [400, 'state'],
      guestModerator: [400, 'state'],
    },
  },
  { method: 'POST', path: '/moderators', body: { attendeeId: 999999 }, want: moderatorOnly([404, 'participant']) },
  { method: 'DELETE', path: '/moderators', body: { attendeeId: 999999 }, want: moderatorOnly([404, 'participant']) },
  { method: 'PUT', path: '/attendees/permissions', body: { attendeeId: 999999, method: 'set', permissions: 4 }, want: moderatorOnly([404, 'participant']) },
  { method: 'PUT', path: '/attendees/permissions/all', body: { method: 'set', permissions: 4 }, want: moderatorOnly([200]) },
  { method: 'POST', path: '/participants/resend-invitations', body: { attendeeId: 999999 }, want: loggedInModerators([404, 'participant']) },
  {
    method: 'POST',
    path: '!/apps/spreed/api/v1/guest/{token}/name',
    body: { displayName: 'N' },
    want: { ...participants([403, 'guest']), guest: [200], guestModerator: [200] },
  },
  // Chat, reactions and polls (docs/reference/chat.md#endpoints, docs/reference/chat.md#reactions-and-polls): "participant" endpoints take guests,
  // "authenticated" ones answer plain cookie guests 404, clearing the history is for logged-in
  // moderators. The message 999999 and poll 999999 do not exist; message 0 has no context (304).
  { method: 'GET', path: '!/apps/spreed/api/v1/chat/{token}?lookIntoFuture=0', want: participants([200]) },
  { method: 'POST', path: '!/apps/spreed/api/v1/chat/{token}', body: { message: ' ' }, want: participants([400, 'message']) },
  { method: 'GET', path: '!/apps/spreed/api/v1/chat/{token}/0/context', want: participants([304]) },
  { method: 'PUT', path: '!/apps/spreed/api/v1/chat/{token}/999999', body: { message: 'x' }, want: authenticated([404, 'message']) },
  { method: 'DELETE', path: '!/apps/spreed/api/v1/chat/{token}/999999', want: authenticated([404, 'message']) },
  { method: 'POST', path: '!/apps/spreed/api/v1/chat/{token}/read', body: { lastReadMessage: 0 }, want: authenticated([200]) },
  { method: 'DELETE', path: '!/apps/spreed/api/v1/chat/{token}/read', want: authenticated([200]) },
  { method: 'GET', path: '!/apps/spreed/api/v1/chat/{token}/mentions?search=zz', want: participants([200]) },
  // Not a public route: callers who are not logged in are stopped with 401 before the moderator check.
  {
    method: 'DELETE',
    path: '!/apps/spreed/api/v1/chat/{token}',
    want: { ...loggedInModerators([200]), anonymous: [401], guest: [401], guestModerator: [401] },
  },
  { method: 'POST', path: '!/apps/spreed/api/v1/reaction/{token}/999999', body: { reaction: '👍' }, want: participants([404, 'message']) },
  { method: 'GET', path: '!/apps/spreed/api/v1/reaction/{token}/999999', want: participants([404, 'message']) },
  { method: 'POST', path: '!/apps/spreed/api/v1/poll/{token}', body: { question: ' ', options: ['A', 'B'] }, want: participants([400, 'question']) },
  { method: 'GET', path: '!/apps/spreed/api/v1/poll/{token}/999999', want: participants([404, 'poll']) },
  { method: 'DELETE', path: '!/apps/spreed/api/v1/poll/{token}/999999', want: participants([404, 'poll']) },
];

for (const dialect of dialects()) {
  describe(`statuses by caller kind [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob', 'carol', 'erin'] });
    let n = 0;

    /** A public conversation: alice owner, bob moderator, carol participant, a guest and a guest moderator. */
    async function fixture(): Promise<{ token: string; callers: Record<Kind, Caller | undefined> }> {
      const r = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: `Public ${++n}` });
      await seedUser(t.p, r.token, 'bob', ParticipantType.MODERATOR);
      await seedUser(t.p, r.token, 'carol', ParticipantType.USER);
      const guest = (await joinGuest(t.p, r.token)).caller;
      const guestModerator = (await joinGuest(t.p, r.token, ParticipantType.GUEST_MODERATOR)).caller;
      return {
        token: r.token,
        callers: { anonymous: undefined, stranger: as('erin'), participant: as('carol'), moderator: as('bob'), owner: as('alice'), guest, guestModerator },
      };
    }

    const url = (e: Endpoint, token: string) => (e.path.startsWith('!') ? e.path.slice(1).replace('{token}', token) : `${V4}/room/${token}${e.path}`);

    for (const e of ENDPOINTS) {
      it(`${e.method} ${e.path.startsWith('!') ? e.path.slice(1) : `/room/{token}${e.path}`}`, async () => {
        const shared = await fixture();
        // Refusals first, so a success cannot change a later row.
        const order = [...KINDS].sort((a, b) => Number(e.want[a][0] < 300) - Number(e.want[b][0] < 300));
        const got: string[] = [];
        const want: string[] = [];
        for (const kind of order) {
          const f = e.fresh && e.want[kind][0] < 300 ? await fixture() : shared;
          const r = await t.call(e.method, url(e, f.token), { as: f.callers[kind], body: e.body });
          const [status, error] = e.want[kind];
          got.push(`${kind}: ${r.status}${r.status >= 400 ? ' ' + r.data?.error : ''}`);
          want.push(`${kind}: ${status}${status >= 400 ? ' ' + error : ''}`);
        }
        assert.deepEqual(got, want);
      });
    }

    it('GET /room/{token}/breakout-rooms: 401 for anonymous callers and guests (contract), 404 outsiders, 400 mode for users', async () => {
      const f = await fixture();
      const want: Record<Kind, Expect> = {
        anonymous: [401],
        guest: [401],
        guestModerator: [401],
        stranger: NF,
        participant: [400, 'mode'],
        moderator: [400, 'mode'],
        owner: [400, 'mode'],
      };
      for (const kind of KINDS) {
        const r = await t.call('GET', `${V4}/room/${f.token}/breakout-rooms`, { as: f.callers[kind] });
        const got: Expect = r.status === 401 ? [401] : [r.status, r.data?.error];
        assert.deepEqual(got, want[kind], kind);
      }
    });

    it('a guest who removes themselves is gone from the conversation', async () => {
      const f = await fixture();
      const r = await t.call('DELETE', `${V4}/room/${f.token}/participants/self`, { as: f.callers.guest });
      assert.equal(r.status, 200, r.text);
      const again = await t.call('GET', `${V4}/room/${f.token}/participants`, { as: f.callers.guest });
      assert.deepEqual([again.status, again.data.error], [404, 'room'], 'no longer a participant');
    });
  });
}
