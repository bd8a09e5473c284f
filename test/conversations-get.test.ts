/**
 * GET /room, GET /room/{token}, GET /listed-room: visibility (docs/reference/conversations.md#lookup-and-visibility), headers,
 * modifiedSince (LATEST rule, real clock), constant query counts, JSON and XML.
 */
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, startParley, type Parley } from './helpers/parley.js';
import { LobbyState, ParticipantType, RoomType } from '../src/domain/constants.js';
import { countQueries, createRoom, joinGuest, NO_THROTTLE, roomRow, seedUser, setRoom, V4 } from './helpers/rooms.js';

for (const dialect of dialects()) {
  describe(`conversation reads [${dialect}]`, () => {
    let p: Parley;
    let group: any;
    let pub: any;
    let listed: any;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      await createUser(p, 'alice', { displayName: 'Alice A' });
      await createUser(p, 'bob', { displayName: 'Bob B' });
      await createUser(p, 'dave');
      await createUser(p, 'gina', { groups: ['guest_app'] });
      group = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Team' });
      pub = await createRoom(p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Town hall' });
      listed = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Open Forum' });
      await setRoom(p, listed.token, { listable: 1, description: 'All welcome' });
    });
    after(async () => p.close());

    const get = (path: string, user?: string, extra: Record<string, unknown> = {}) =>
      call(p, 'GET', `${V4}${path}`, { as: user ? as(user) : undefined, ...extra });

    describe('GET /room', () => {
      it('401 when not logged in', async () => {
        const r = await get('/room');
        assert.equal(r.status, 401);
      });

      it("lists the caller's conversations only, with both hash and modified-before headers", async () => {
        const before = Math.floor(Date.now() / 1000);
        const r = await get('/room', 'alice');
        assert.equal(r.status, 200);
        assert.deepEqual(r.data.map((c: any) => c.token).sort(), [group.token, pub.token, listed.token].sort());
        const hash = r.headers.get('x-service-hash');
        assert.match(hash!, /^[0-9a-f]{40}$/);
        assert.equal(r.headers.get('x-nextcloud-talk-hash'), hash);
        const mb = Number(r.headers.get('x-service-modified-before'));
        assert.ok(mb >= before && mb <= before + 2, `${mb} vs ${before}`);
        assert.equal(r.headers.get('x-nextcloud-talk-modified-before'), String(mb));
        const bob = await get('/room', 'bob');
        assert.deepEqual(bob.data, []);
      });

      it('includeLastMessage=false omits lastMessage; default has the last chat message', async () => {
        const d = await get('/room', 'alice');
        assert.equal(d.data[0].lastMessage.systemMessage, 'conversation_created');
        const r = await get('/room', 'alice', { query: { includeLastMessage: 'false' } });
        assert.equal('lastMessage' in r.data[0], false);
      });

      it('400 for malformed parameters', async () => {
        for (const [k, v] of [
          ['modifiedSince', 'yesterday'],
          ['modifiedSince', '-5'],
          ['includeStatus', 'maybe'],
          ['noStatusUpdate', '7'],
        ]) {
          const r = await get('/room', 'alice', { query: { [k]: v } });
          assert.equal(r.status, 400, `${k}=${v}`);
          assert.equal(r.data.error, k);
        }
      });

      it('modifiedSince: the header value sent back misses nothing (real clock)', async () => {
        const first = await get('/room', 'alice');
        const since = first.headers.get('x-service-modified-before')!;
        // A change in the same second as the header must still show up.
        const renamed = await call(p, 'PUT', `${V4}/room/${group.token}`, { as: as('alice'), body: { roomName: 'Team 2' } });
        assert.equal(renamed.status, 200);
        const second = await get('/room', 'alice', { query: { modifiedSince: since } });
        assert.ok(
          second.data.some((c: any) => c.token === group.token),
          'renamed room is returned',
        );
        // Later, with nothing changed, an old room is not returned.
        await sleep(1100);
        const mark = (await get('/room', 'alice')).headers.get('x-service-modified-before')!;
        await sleep(1100);
        const third = await get('/room', 'alice', { query: { modifiedSince: mark } });
        assert.deepEqual(third.data, []);
        // A room created after the mark is returned.
        const fresh = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Fresh' });
        const fourth = await get('/room', 'alice', { query: { modifiedSince: mark } });
        assert.deepEqual(
          fourth.data.map((c: any) => c.token),
          [fresh.token],
        );
      });

      it('modifiedSince also returns rooms with an active call, own attendee changes, and one-to-ones with includeStatus', async () => {
        const one = await createRoom(p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
        await sleep(1100);
        const mark = (await get('/room', 'alice')).headers.get('x-service-modified-before')!;
        await sleep(1100);
        assert.deepEqual((await get('/room', 'alice', { query: { modifiedSince: mark } })).data, []);
        const withStatus = await get('/room', 'alice', { query: { modifiedSince: mark, includeStatus: 'true' } });
        assert.deepEqual(
          withStatus.data.map((c: any) => c.token),
          [one.token],
        );
        await setRoom(p, pub.token, { call_flag: 1, active_since: 1 });
        const row = await roomRow(p, listed.token);
        const now = Math.floor(Date.now() / 1000);
        await p.services.db.kysely
          .updateTable('attendees')
          .set({ last_attendee_activity: now, favorite: 1 })
          .where('room_id', '=', row!.id)
          .where('actor_id', '=', 'alice')
          .execute();
        const r = await get('/room', 'alice', { query: { modifiedSince: mark } });
        assert.deepEqual(r.data.map((c: any) => c.token).sort(), [pub.token, listed.token].sort());
        await setRoom(p, pub.token, { call_flag: 0, active_since: null });
      });

      it('costs the same number of queries for 1 and for 200 conversations', async () => {
        await createUser(p, 'counter');
        await createRoom(p, 'counter', { roomType: RoomType.ONE_TO_ONE, invite: 'alice' });
        const list = () => get('/room', 'counter', { query: { includeStatus: 'true' } });
        // Any write (here: in this process) voids every rendered answer kept on SQLite: `cold`
        // counts the full computation, `warm` the answer reused while nothing changed.
        const anyWrite = () => p.services.db.kysely.updateTable('users').set({ display_name: 'Counter' }).where('id', '=', 'counter').execute();
        const counts = async () => {
          await list(); // warm the credential cache, config snapshot and automatic online
          await anyWrite();
          await list(); // caches of other areas reload once after a write
          await anyWrite();
          const cold = await countQueries(p, list);
          const warm = await countQueries(p, list);
          assert.ok(warm <= cold);
          return { cold, warm };
        };
        const one = await counts();
        const { ROOM_DEFAULTS } = await import('../src/db/repositories/rooms.js');
        for (let i = 1; i < 200; i++) {
          const token = await p.services.rooms.newToken(await p.services.appConfig.snapshot());
          const oneToOne = i % 3 === 0;
          const id = await p.services.repos.rooms.insert({
            ...ROOM_DEFAULTS,
            token,
            name: oneToOne ? JSON.stringify(['counter', `u${i}`]) : `c${i}`,
            type: oneToOne ? 1 : 2,
            lobby_timer: i % 7 === 0 ? 5 : 0,
            lobby_state: i % 7 === 0 ? LobbyState.NON_MODERATORS : LobbyState.NONE,
          });
          await p.services.rooms.addAttendee(id, { actorType: 'users', actorId: 'counter', participantType: (i % 4) + 1 });
        }
        await list(); // lifts the expired lobby timers once
        const many = await counts();
        await countQueries(p, async () => {
          const r = await list();
          assert.equal(r.data.length, 200);
        });
        assert.deepEqual(many, one);
        // The ceiling: the login's brute-force cap check, credentials, config generation, the
        // automatic online status, the caller's attendee rows, their rooms with the chats' last
        // messages and common read markers (one statement; unread counts are counters on these
        // rows), other users' names, statuses and the caller's preferences.
        assert.ok(many.cold <= 9, `GET /room used ${many.cold} queries`);
        // PostgreSQL reads the credential, config generation, automatic online status and
        // preferences from the read cache (docs/architecture.md "Read cache"): the write to
        // users above made the caller's row be read again (`cold`), a write to any other table
        // (here a rename) leaves all of them cached, and only the conversation reads run.
        if (dialect === 'postgres') {
          // A conversation the caller is not in: its own records stay kept (conversation-list.ts).
          const elsewhere = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'elsewhere' });
          const rename = () => p.services.db.kysely.updateTable('rooms').set({ name: 'elsewhere' }).where('token', '=', elsewhere.token).execute();
          await rename();
          const afterRename = await countQueries(p, list);
          await rename();
          assert.equal(await countQueries(p, list), afterRename, 'constant');
          assert.equal(afterRename, many.cold - 1, `GET /room after a write elsewhere used ${afterRename} queries (cold ${many.cold})`);
          assert.ok(afterRename <= 5, `GET /room after a write elsewhere used ${afterRename} queries`);
        }
        // Lifting expired lobby timers (with their lobby_timer_reached messages) costs the same
        // number of statements for one room as for a hundred.
        await p.services.db.kysely.updateTable('rooms').set({ lobby_timer: 5, lobby_state: 1 }).where('name', '=', 'c2').execute();
        const withOneTimer = await countQueries(p, list);
        await p.services.db.kysely.updateTable('rooms').set({ lobby_timer: 5, lobby_state: 1 }).where('name', 'like', 'c1%').execute();
        const withTimers = await countQueries(p, list);
        assert.ok(withOneTimer > many.cold, 'an expired timer is lifted');
        assert.equal(withTimers, withOneTimer, 'expired lobby timers are lifted in a constant number of statements');
        const r = await list();
        assert.ok(r.data.every((c: any) => c.lobbyState === 0 && c.lobbyTimer === 0));
      });
    });

    describe('GET /room/{token}', () => {
      it("a group conversation without a name gets its users' display names, saved (default names)", async () => {
        const nameless = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Soon nameless' });
        await seedUser(p, nameless.token, 'bob');
        await seedUser(p, nameless.token, 'dave');
        // Rows made by other means (an import) may have no name; Parley's own paths refuse one.
        await setRoom(p, nameless.token, { name: '' });
        const r = await get(`/room/${nameless.token}`, 'bob');
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.name, 'Alice A, Bob B, dave');
        assert.equal(r.data.displayName, 'Alice A, Bob B, dave');
        assert.equal((await roomRow(p, nameless.token))!.name, 'Alice A, Bob B, dave');
        // Over 64 characters: the first 60 and "…".
        for (let i = 0; i < 8; i++) {
          await createUser(p, `long-name-${i}`, { displayName: `Participant number ${i}` });
          await seedUser(p, nameless.token, `long-name-${i}`);
        }
        await setRoom(p, nameless.token, { name: '' });
        const listed = (await get('/room', 'alice')).data.find((c: any) => c.token === nameless.token);
        const expected = Array.from('Alice A, Bob B, dave, Participant number 0, Participant number 1, Participant number 2').slice(0, 60).join('') + '…';
        assert.equal(listed.name, expected);
        assert.equal((await roomRow(p, nameless.token))!.name, expected);
      });

      it('participant: 200 with the record and the hash headers', async () => {
        const r = await get(`/room/${group.token}`, 'alice');
        assert.equal(r.status, 200);
        assert.equal(r.data.token, group.token);
        assert.equal(r.data.participantType, ParticipantType.OWNER);
        assert.match(r.headers.get('x-service-hash')!, /^[0-9a-f]{40}$/);
        assert.equal(r.headers.get('x-nextcloud-talk-hash'), r.headers.get('x-service-hash'));
      });

      it('404 room, identical for unknown, malformed and not-visible conversations', async () => {
        const bodies = new Set<string>();
        for (const [token, user] of [
          ['unknowntok', 'bob'],
          ['abc', 'bob'],
          ['ABCDEFGH', 'bob'],
          ['a'.repeat(31), 'bob'],
          ['abc%21def', 'bob'],
          [group.token, 'bob'],
          [group.token, undefined],
          [listed.token, undefined],
        ] as Array<[string, string | undefined]>) {
          const r = await get(`/room/${token}`, user);
          assert.equal(r.status, 404, `${token} as ${user}`);
          assert.deepEqual(r.data, { error: 'room' });
          bodies.add(r.text);
        }
        assert.equal(bodies.size, 1);
      });

      it('a listed room is visible to logged-in non-participants (limited record)', async () => {
        const r = await get(`/room/${listed.token}`, 'bob');
        assert.equal(r.status, 200);
        assert.equal(r.data.name, 'Open Forum');
        assert.equal(r.data.displayName, 'Open Forum');
        assert.equal(r.data.description, 'All welcome');
        assert.equal(r.data.listable, 1);
        assert.equal(r.data.participantType, ParticipantType.GUEST);
        assert.equal(r.data.attendeeId, 0);
        assert.equal(r.data.actorType, '');
        assert.equal(r.data.notificationLevel, 3);
        assert.equal(r.data.notificationCalls, 0);
        assert.equal(r.data.permissions, 1);
        assert.equal(r.data.attendeePermissions, 1);
        assert.equal(r.data.callPermissions, 1);
        assert.equal(r.data.defaultPermissions, 1);
        assert.equal(r.data.canStartCall, false);
        assert.equal(r.data.canLeaveConversation, false);
        assert.equal(r.data.sessionId, '0');
        // Scope 1 excludes guest-app accounts; scope 2 admits them.
        assert.equal((await get(`/room/${listed.token}`, 'gina')).status, 404);
        await setRoom(p, listed.token, { listable: 2 });
        assert.equal((await get(`/room/${listed.token}`, 'gina')).status, 200);
        await setRoom(p, listed.token, { listable: 1 });
      });

      it('a public room is visible to anyone; strangers get the restricted record', async () => {
        for (const user of [undefined, 'bob']) {
          const r = await get(`/room/${pub.token}`, user);
          assert.equal(r.status, 200, String(user));
          assert.equal(r.data.type, 3);
          assert.equal(r.data.name, '');
          assert.equal(r.data.displayName, '');
          assert.equal(r.data.participantType, ParticipantType.GUEST);
          assert.equal(r.data.lastActivity, 0);
          assert.equal(r.data.hasPassword, false);
          assert.match(r.data.avatarVersion, /^[0-9a-f]{8}$/);
        }
      });

      it('costs a constant number of queries', async () => {
        await get(`/room/${group.token}`, 'alice');
        const a = await countQueries(p, () => get(`/room/${group.token}`, 'alice'));
        const b = await countQueries(p, () => get(`/room/${group.token}`, 'alice'));
        assert.equal(a, b);
        // The ceiling (PostgreSQL; SQLite reuses the answer): the login's brute-force cap check,
        // credentials and config generation, the room with the caller's attendee row, the chat's
        // last message and the common read marker (one statement; the unread count is counters
        // on those rows), the caller's preferences.
        assert.ok(a <= 5, `GET /room/{token} used ${a} queries`);
        // PostgreSQL: the credential, config generation and preferences come from the read cache
        // (docs/architecture.md "Read cache") and the brute-force cap check is kept on the change
        // feed (migration 0713); the conversation's reads remain.
        if (dialect === 'postgres') assert.ok(a <= 2, `GET /room/{token} used ${a} queries on PostgreSQL`);
      });

      it('a repeated answer (reused on SQLite) follows writes, a lobby timer passing and a status clearing', async () => {
        await createUser(p, 'kim');
        await createUser(p, 'lee');
        const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Fresh' });
        await seedUser(p, room.token, 'kim');
        const direct = await createRoom(p, 'kim', { roomType: RoomType.ONE_TO_ONE, invite: 'lee' });
        const one = (token: string) => get(`/room/${token}`, 'kim');
        const inList = async (token: string) => (await get('/room', 'kim', { query: { includeStatus: 'true' } })).data.find((c: any) => c.token === token);
        assert.equal((await one(room.token)).data.name, 'Fresh');
        assert.equal((await inList(room.token)).name, 'Fresh');
        await call(p, 'PUT', `${V4}/room/${room.token}`, { as: as('alice'), body: { roomName: 'Fresher' } });
        assert.equal((await one(room.token)).data.name, 'Fresher');
        assert.equal((await inList(room.token)).name, 'Fresher');

        // No write happens when these pass: the reused answers must expire on their own.
        const soon = Math.floor(Date.now() / 1000) + 1;
        await setRoom(p, room.token, { lobby_state: 1, lobby_timer: soon });
        await call(p, 'PUT', '/apps/user_status/api/v1/user_status/message/custom', { as: as('lee'), body: { message: 'brb', clearAt: soon } });
        assert.equal((await inList(room.token)).lobbyState, 1);
        assert.equal((await one(room.token)).data.lobbyState, 1);
        assert.equal((await one(direct.token)).data.statusMessage, 'brb');
        assert.equal((await inList(direct.token)).statusMessage, 'brb');
        assert.equal((await one(direct.token)).data.statusMessage, 'brb');
        await new Promise((r) => setTimeout(r, 2100));
        assert.equal((await one(direct.token)).data.statusMessage, null);
        assert.equal((await inList(direct.token)).statusMessage, null);
        assert.equal((await inList(room.token)).lobbyState, 0);
        assert.equal((await one(room.token)).data.lobbyState, 0);
      });
    });

    describe('GET /listed-room', () => {
      it('401 when not logged in', async () => {
        assert.equal((await get('/listed-room')).status, 401);
      });

      it('lists listed rooms the caller is not in, filtered by searchTerm (query parameter)', async () => {
        const other = await createRoom(p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Second forum' });
        await setRoom(p, other.token, { listable: 2 });
        const all = await get('/listed-room', 'bob');
        assert.equal(all.status, 200);
        assert.deepEqual(
          all.data.map((c: any) => c.token),
          [listed.token, other.token],
        );
        assert.equal(all.data[0].participantType, ParticipantType.GUEST);
        assert.equal('lastMessage' in all.data[0], false);
        const term = await get('/listed-room', 'bob', { query: { searchTerm: 'OPEN' } });
        assert.deepEqual(
          term.data.map((c: any) => c.token),
          [listed.token],
        );
        const none = await get('/listed-room', 'bob', { query: { searchTerm: '%' } });
        assert.deepEqual(none.data, []);
        // Not for participants, and only scope 2 for guest-app users.
        assert.deepEqual((await get('/listed-room', 'alice')).data, []);
        assert.deepEqual(
          (await get('/listed-room', 'gina')).data.map((c: any) => c.token),
          [other.token],
        );
        await seedUser(p, other.token, 'bob');
        assert.deepEqual(
          (await get('/listed-room', 'bob')).data.map((c: any) => c.token),
          [listed.token],
        );
      });
    });

    describe('the record in XML', () => {
      it('GET /room/{token} renders every field, booleans as 1/empty, lastMessage as an element', async () => {
        const r = await get(`/room/${group.token}`, 'alice', { format: 'xml' });
        assert.equal(r.status, 200);
        assert.match(r.text, /<token>[a-z0-9]+<\/token>/);
        assert.match(r.text, /<canStartCall>1<\/canStartCall>/);
        assert.match(r.text, /<hasCall><\/hasCall>/);
        assert.match(r.text, /<lastMessage>\n\s*<id>\d+<\/id>/);
        assert.match(r.text, /<messageType>system<\/messageType>/);
        assert.match(r.text, /<sessionId>0<\/sessionId>/);
        const list = await get('/room', 'alice', { format: 'xml' });
        assert.match(list.text, /<data>\n  <element>\n   <id>\d+<\/id>/);
      });
    });

    it('capabilities advertise the features these endpoints make true, and not part B ones', async () => {
      const r = await call(p, 'GET', '/cloud/capabilities', { as: as('alice') });
      const features: string[] = r.data.capabilities.spreed.features;
      for (const f of ['conversation-v4', 'empty-group-room', 'last-room-activity', 'locked-one-to-one-rooms', 'start-call-flag']) {
        assert.ok(features.includes(f), f);
      }
      for (const f of ['conversation-v2', 'conversation-v3', 'chat']) assert.ok(!features.includes(f), f);
    });

    it('a guest who joined (cookie session) sees the participant record', async () => {
      const guest = await joinGuest(p, pub.token);
      const r = await call(p, 'GET', `${V4}/room/${pub.token}`, { as: guest.caller });
      assert.equal(r.status, 200);
      assert.equal(r.data.attendeeId, guest.attendeeId);
      assert.equal(r.data.actorType, 'guests');
      assert.equal(r.data.participantType, ParticipantType.GUEST);
      assert.equal(r.data.notificationLevel, 3);
      assert.equal(r.data.canLeaveConversation, false);
      assert.equal(r.data.name, 'Town hall');
      assert.equal(r.data.displayName, 'Town hall');
    });
  });
}
