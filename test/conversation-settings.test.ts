/**
 * Conversation settings endpoints (contract "Conversations": description, public, read-only,
 * password, permissions/{mode}, favorite, notify, notify-calls, message-expiration, listable;
 * plus webinar/lobby): each status the contract lists, Talk's check order (docs/reference/conversations.md#endpoint-rules),
 * the updated record in the answer, lastActivity / last_attendee_activity (docs/reference/conversations.md#last-activity), the side
 * effects (guests removed, permissions reset, calls ended) and the capabilities they make true.
 * Who may call what is covered table-wise in conversations-who-may.test.ts, bad input in
 * conversations-bad-input.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects, type Caller } from './helpers/parley.js';
import { attendeesOf, createRoom, joinGuest, NO_THROTTLE, roomRow, seedAttendee, seedUser, setRoom, V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

const OLD = 100;

for (const dialect of dialects()) {
  describe(`conversation settings [${dialect}]`, () => {
    const fx = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob', 'carol', 'dave', 'erin'] });

    const req = (method: string, token: string, path: string, who: string | Caller | undefined, body?: unknown) =>
      fx.call(method, `${V4}/room/${token}${path}`, { as: typeof who === 'string' ? as(who) : who, body });
    const get = (token: string, who: string | Caller | undefined) => req('GET', token, '', who);
    /** [status, data.error] of an answer. */
    const outcome = async (answer: Promise<{ status: number; data: any }>) => {
      const r = await answer;
      return [r.status, r.data?.error];
    };

    /** A conversation of alice with bob (moderator) and carol (user); lastActivity set back to OLD. */
    async function room(roomType = 2, name = 'Room'): Promise<string> {
      const r = await createRoom(fx.p, 'alice', { roomType, roomName: name });
      await seedUser(fx.p, r.token, 'bob', ParticipantType.MODERATOR);
      await seedUser(fx.p, r.token, 'carol', ParticipantType.USER);
      await setRoom(fx.p, r.token, { last_activity: OLD });
      return r.token;
    }

    async function oneToOne(): Promise<string> {
      const r = await fx.call('POST', `${V4}/room`, { as: as('alice'), body: { roomType: RoomType.ONE_TO_ONE, invite: 'erin' } });
      assert.ok(r.status === 200 || r.status === 201, r.text);
      return r.data.token;
    }

    /** Seeds a running call: the room's call columns and an in-call session per attendee id. */
    async function seedCall(token: string, attendeeIds: number[]): Promise<void> {
      const now = Math.floor(Date.now() / 1000);
      await setRoom(fx.p, token, { active_since: now - 60, call_flag: 7 });
      await fx.p.services.db.kysely
        .insertInto('sessions')
        .values(attendeeIds.map((id, i) => ({ attendee_id: id, session_id: `call-${token}-${i}`, in_call: 7, last_ping: now, state: 1 })))
        .execute();
    }
    /**
     * modifiedSince tests: every room and attendee row back to OLD and no calls (rooms with a call
     * are always returned), so only the change under test can bring a room back.
     */
    const quietEverything = async () => {
      await fx.p.services.db.kysely.updateTable('rooms').set({ call_flag: 0, active_since: null, last_activity: OLD }).execute();
      await fx.p.services.db.kysely.updateTable('attendees').set({ last_attendee_activity: OLD }).execute();
    };
    const inCall = async (attendeeId: number) =>
      (await fx.p.services.db.kysely.selectFrom('sessions').select('in_call').where('attendee_id', '=', attendeeId).execute()).map((s) => s.in_call);

    const assertBumped = async (token: string, r: { data: any }) => {
      const row = await roomRow(fx.p, token);
      assert.ok(row!.last_activity > OLD, 'lastActivity moved');
      assert.equal(r.data.lastActivity, row!.last_activity);
    };
    const assertNotBumped = async (token: string) => assert.equal((await roomRow(fx.p, token))!.last_activity, OLD);

    describe('PUT /room/{token}/description', () => {
      it('200 with the updated record; trimmed; lastActivity moves; an unchanged text is a no-op', async () => {
        const t = await room();
        const r = await req('PUT', t, '/description', 'alice', { description: '  About us  ' });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.description, 'About us');
        assert.equal(r.data.token, t);
        assert.equal((await roomRow(fx.p, t))!.description, 'About us');
        await assertBumped(t, r);
        await setRoom(fx.p, t, { last_activity: OLD });
        assert.equal((await req('PUT', t, '/description', 'bob', { description: 'About us ' })).status, 200);
        await assertNotBumped(t);
      });

      it('empty removes it; 2000 characters (multibyte counted as characters) pass, 2001 is 400 value', async () => {
        const t = await room();
        await req('PUT', t, '/description', 'alice', { description: 'x' });
        const cleared = await req('PUT', t, '/description', 'alice', { description: '' });
        assert.equal(cleared.status, 200);
        assert.equal(cleared.data.description, '');
        const max = '😀'.repeat(2000);
        assert.equal((await req('PUT', t, '/description', 'alice', { description: max })).status, 200);
        const long = await req('PUT', t, '/description', 'alice', { description: 'y'.repeat(2001) });
        assert.equal(long.status, 400);
        assert.equal(long.data.error, 'value');
        assert.equal((await roomRow(fx.p, t))!.description, max);
      });

      it('400 type for one-to-one, 400 event for event conversations, 403 for non-moderators, 404 for strangers', async () => {
        const one = await oneToOne();
        const r = await req('PUT', one, '/description', 'alice', { description: 'x' });
        assert.equal(r.status, 400);
        assert.equal(r.data.error, 'type');
        const t = await room();
        await setRoom(fx.p, t, { object_type: 'event', object_id: '1#2' });
        assert.deepEqual(await outcome(req('PUT', t, '/description', 'alice', { description: 'x' })), [400, 'event']);
        const c = await req('PUT', t, '/description', 'carol', { description: 'x' });
        assert.deepEqual([c.status, c.data.error], [403, 'moderator']);
        const e = await req('PUT', t, '/description', 'erin', { description: 'x' });
        assert.deepEqual([e.status, e.data.error], [404, 'room']);
        assert.equal((await roomRow(fx.p, t))!.description, '');
      });

      it('guest moderators may set it', async () => {
        const t = await room(3);
        const g = await joinGuest(fx.p, t, ParticipantType.GUEST_MODERATOR);
        const r = await req('PUT', t, '/description', g.caller, { description: 'By a guest moderator' });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.participantType, ParticipantType.GUEST_MODERATOR);
        assert.equal((await roomRow(fx.p, t))!.description, 'By a guest moderator');
      });
    });

    describe('POST and DELETE /room/{token}/public', () => {
      it('group to public (200 record, type 3, lastActivity), again is a no-op; public to group likewise', async () => {
        const t = await room(2);
        const r = await req('POST', t, '/public', 'alice');
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.type, RoomType.PUBLIC);
        assert.equal(r.data.hasPassword, false);
        await assertBumped(t, r);
        await setRoom(fx.p, t, { last_activity: OLD });
        // Contract: already public is "not a group conversation" (400), and changes nothing.
        assert.deepEqual(await outcome(req('POST', t, '/public', 'bob')), [400, 'type']);
        await assertNotBumped(t);
        const back = await req('DELETE', t, '/public', 'alice');
        assert.equal(back.status, 200);
        assert.equal(back.data.type, RoomType.GROUP);
        await assertBumped(t, back);
        await setRoom(fx.p, t, { last_activity: OLD });
        assert.deepEqual(await outcome(req('DELETE', t, '/public', 'alice')), [400, 'type']);
        await assertNotBumped(t);
      });

      it('leaving public removes guests, guest moderators and self-joined users with their sessions', async () => {
        const t = await room(3);
        await seedUser(fx.p, t, 'dave', ParticipantType.USER_SELF_JOINED);
        await seedAttendee(fx.p, t, { actorType: 'groups', actorId: 'staff', participantType: ParticipantType.USER });
        const g = await joinGuest(fx.p, t);
        const gm = await joinGuest(fx.p, t, ParticipantType.GUEST_MODERATOR);
        await seedAttendee(fx.p, t, { actorType: 'emails', actorId: 'x@example.org', participantType: ParticipantType.GUEST });
        const r = await req('DELETE', t, '/public', 'bob');
        assert.equal(r.status, 200, r.text);
        const left = (await attendeesOf(fx.p, t)).map((a) => `${a.actor_type}:${a.actor_id}:${a.participant_type}`).sort();
        assert.deepEqual(left, ['groups:staff:3', 'users:alice:1', 'users:bob:2', 'users:carol:3']);
        const sessions = await fx.p.services.db.kysely
          .selectFrom('sessions')
          .select('attendee_id')
          .where('attendee_id', 'in', [g.attendeeId, gm.attendeeId])
          .execute();
        assert.deepEqual(sessions, []);
        assert.equal((await get(t, g.caller)).status, 404);
      });

      it('an optional password on make-public is checked against the policy and stored as an argon2id hash', async () => {
        const t = await room(2);
        const short = await req('POST', t, '/public', 'alice', { password: 'short' });
        assert.deepEqual([short.status, short.data.error], [400, 'password']);
        assert.match(short.data.message, /at least 10 characters/);
        assert.equal((await roomRow(fx.p, t))!.type, RoomType.GROUP);
        const r = await req('POST', t, '/public', 'alice', { password: 'long enough secret' });
        assert.equal(r.status, 200);
        assert.equal(r.data.hasPassword, true);
        const row = await roomRow(fx.p, t);
        assert.match(row!.password, /^\$argon2id\$/);
        assert.ok(!r.text.includes(row!.password) && !r.text.includes('long enough secret'));
      });

      it('force_passwords: make-public needs a password (400 password with a message)', async () => {
        await fx.p.services.appConfig.set('force_passwords', '1');
        try {
          const t = await room(2);
          const r = await req('POST', t, '/public', 'alice');
          assert.deepEqual([r.status, r.data.error, r.data.message], [400, 'password', 'Password needs to be set']);
          assert.equal((await roomRow(fx.p, t))!.type, RoomType.GROUP);
          assert.equal((await req('POST', t, '/public', 'alice', { password: 'long enough secret' })).status, 200);
        } finally {
          await fx.p.services.appConfig.set('force_passwords', '0');
        }
      });

      it('400 type for one-to-one, 400 breakout-room for breakout parents and children, 403 for guest moderators', async () => {
        const one = await oneToOne();
        for (const m of ['POST', 'DELETE']) {
          const r = await req(m, one, '/public', 'alice');
          assert.deepEqual([r.status, r.data.error], [400, 'type'], m);
        }
        const parent = await room(2);
        await setRoom(fx.p, parent, { breakout_room_mode: 1 });
        assert.deepEqual(await outcome(req('POST', parent, '/public', 'alice')), [400, 'breakout-room']);
        const child = await room(3);
        await setRoom(fx.p, child, { object_type: 'room', object_id: parent });
        assert.deepEqual(await outcome(req('DELETE', child, '/public', 'alice')), [400, 'breakout-room']);
        assert.equal((await roomRow(fx.p, child))!.type, RoomType.PUBLIC);
        const pub = await room(3);
        const gm = await joinGuest(fx.p, pub, ParticipantType.GUEST_MODERATOR);
        const r = await req('DELETE', pub, '/public', gm.caller);
        assert.deepEqual([r.status, r.data.error], [403, 'moderator']);
        assert.equal((await roomRow(fx.p, pub))!.type, RoomType.PUBLIC);
      });
    });

    describe('PUT /room/{token}/read-only', () => {
      it('state 1 and back (record readOnly, lastActivity); same state is a no-op', async () => {
        const t = await room(3);
        const r = await req('PUT', t, '/read-only', 'alice', { state: 1 });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.readOnly, 1);
        await assertBumped(t, r);
        await setRoom(fx.p, t, { last_activity: OLD });
        assert.equal((await req('PUT', t, '/read-only', 'bob', { state: 1 })).status, 200);
        await assertNotBumped(t);
        const back = await req('PUT', t, '/read-only', 'alice', { state: 0 });
        assert.equal(back.data.readOnly, 0);
        assert.equal((await roomRow(fx.p, t))!.read_only, 0);
      });

      it('read-only takes everyone out of the call, which ends it (call permissions back to 0)', async () => {
        const t = await room(3);
        const ids = (await attendeesOf(fx.p, t)).map((a) => a.id);
        await seedCall(t, ids);
        await fx.p.services.repos.rooms.update((await roomRow(fx.p, t))!.id, { call_permissions: 5 });
        const r = await req('PUT', t, '/read-only', 'alice', { state: 1 });
        assert.equal(r.status, 200);
        assert.equal(r.data.hasCall, false);
        for (const id of ids) assert.deepEqual(await inCall(id), [0]);
        const row = await roomRow(fx.p, t);
        assert.deepEqual([row!.active_since, row!.call_flag, row!.call_permissions], [null, 0, 0]);
      });

      it('400 type for one-to-one, 400 value for other states, 403 for users; nothing changed', async () => {
        const one = await oneToOne();
        assert.deepEqual((await req('PUT', one, '/read-only', 'alice', { state: 1 })).data, {
          error: 'type',
          message: 'This conversation type does not support this setting',
        });
        const t = await room(3);
        const v = await req('PUT', t, '/read-only', 'alice', { state: 2 });
        assert.deepEqual([v.status, v.data.error], [400, 'value']);
        const c = await req('PUT', t, '/read-only', 'carol', { state: 1 });
        assert.deepEqual([c.status, c.data.error], [403, 'moderator']);
        assert.equal((await roomRow(fx.p, t))!.read_only, 0);
        // Group conversations can be read-only too (Talk; docs/reference/conversations.md#endpoint-rules).
        const group = await room(2);
        assert.equal((await req('PUT', group, '/read-only', 'alice', { state: 1 })).status, 200);
        assert.equal((await roomRow(fx.p, group))!.read_only, 1);
        await assertNotBumped(t);
      });
    });

    describe('PUT /room/{token}/password', () => {
      it('sets (argon2id, hasPassword, lastActivity), guests then need it to join; empty removes it', async () => {
        const t = await room(3);
        const r = await req('PUT', t, '/password', 'alice', { password: 'correct horse battery' });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.hasPassword, true);
        await assertBumped(t, r);
        assert.match((await roomRow(fx.p, t))!.password, /^\$argon2id\$v=19\$/);
        const denied = await fx.call('POST', `${V4}/room/${t}/participants/active`, { body: { password: 'wrong' } });
        assert.equal(denied.status, 403);
        const ok = await fx.call('POST', `${V4}/room/${t}/participants/active`, { body: { password: 'correct horse battery' } });
        assert.equal(ok.status, 200, ok.text);
        await setRoom(fx.p, t, { last_activity: OLD });
        const removed = await req('PUT', t, '/password', 'bob', { password: '' });
        assert.equal(removed.data.hasPassword, false);
        assert.equal((await roomRow(fx.p, t))!.password, '');
        await assertBumped(t, removed);
      });

      it('policy: the minimum length from app config; a violation is 400 value with a readable message', async () => {
        const t = await room(3);
        const r = await req('PUT', t, '/password', 'alice', { password: 'short' });
        assert.deepEqual(r.data, { error: 'value', message: 'Password needs to be at least 10 characters long.' });
        assert.equal(r.status, 400);
        await fx.p.services.appConfig.set('password_policy_min_length', '4');
        try {
          assert.equal((await req('PUT', t, '/password', 'alice', { password: 'abcd' })).status, 200);
          assert.equal((await req('PUT', t, '/password', 'alice', { password: 'abc' })).status, 400);
        } finally {
          await fx.p.services.appConfig.set('password_policy_min_length', '10');
        }
      });

      it('force_passwords refuses removing it (400 value, message); the password stays', async () => {
        const t = await room(3);
        await req('PUT', t, '/password', 'alice', { password: 'correct horse battery' });
        const before = (await roomRow(fx.p, t))!.password;
        await fx.p.services.appConfig.set('force_passwords', '1');
        try {
          const r = await req('PUT', t, '/password', 'alice', { password: '' });
          assert.deepEqual([r.status, r.data.error, r.data.message], [400, 'value', 'Password needs to be set']);
          assert.equal((await roomRow(fx.p, t))!.password, before);
        } finally {
          await fx.p.services.appConfig.set('force_passwords', '0');
        }
      });

      it('403 type when the conversation is not public, 400 breakout-room for breakout rooms, guest moderators may', async () => {
        const g = await room(2);
        const r = await req('PUT', g, '/password', 'alice', { password: 'correct horse battery' });
        assert.deepEqual([r.status, r.data.error], [403, 'type']);
        const child = await room(3);
        await setRoom(fx.p, child, { object_type: 'room', object_id: g });
        assert.deepEqual(await outcome(req('PUT', child, '/password', 'alice', { password: 'correct horse battery' })), [400, 'breakout-room']);
        const pub = await room(3);
        const gm = await joinGuest(fx.p, pub, ParticipantType.GUEST_MODERATOR);
        assert.equal((await req('PUT', pub, '/password', gm.caller, { password: 'correct horse battery' })).status, 200);
        const c = await req('PUT', pub, '/password', 'carol', { password: '' });
        assert.deepEqual([c.status, c.data.error], [403, 'moderator']);
        assert.notEqual((await roomRow(fx.p, pub))!.password, '');
      });
    });

    describe('PUT /room/{token}/permissions/{mode}', () => {
      it("default: Custom bit added, attendees' own permissions reset (not groups), effective permissions follow", async () => {
        const t = await room(2);
        const carol = (await attendeesOf(fx.p, t)).find((a) => a.actor_id === 'carol')!;
        await fx.p.services.repos.attendees.update(carol.id, { permissions: 1 | 128 });
        const group = await seedAttendee(fx.p, t, { actorType: 'groups', actorId: 'staff', participantType: ParticipantType.USER, permissions: 1 | 4 });
        const r = await req('PUT', t, '/permissions/default', 'bob', { permissions: 4 | 128 });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.defaultPermissions, 1 | 4 | 128);
        assert.equal(r.data.permissions, 254, 'moderators keep all permissions');
        const after = await attendeesOf(fx.p, t);
        assert.equal(after.find((a) => a.actor_id === 'carol')!.permissions, 0);
        assert.equal(after.find((a) => a.id === group.id)!.permissions, 1 | 4);
        const mine = await get(t, 'carol');
        assert.deepEqual([mine.data.permissions, mine.data.attendeePermissions, mine.data.defaultPermissions], [133, 0, 133]);
        const zero = await req('PUT', t, '/permissions/default', 'alice', { permissions: 0 });
        assert.equal(zero.data.defaultPermissions, 0);
        assert.equal((await get(t, 'carol')).data.permissions, 246, 'back to the server default');
      });

      it('call: stored as call permissions (in the chain before the default) and reset to 0 when the call ends', async () => {
        const t = await room(3);
        const r = await req('PUT', t, '/permissions/call', 'alice', { permissions: 4 });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.callPermissions, 5);
        assert.equal((await get(t, 'carol')).data.permissions, 5);
        await seedCall(t, [(await attendeesOf(fx.p, t))[0].id]);
        await req('PUT', t, '/read-only', 'alice', { state: 1 });
        assert.equal((await roomRow(fx.p, t))!.call_permissions, 0);
      });

      it("moves every attendee's last_attendee_activity, so modifiedSince returns the conversation to them", async () => {
        const t = await room(2);
        const since = Math.floor(Date.now() / 1000);
        await quietEverything();
        await req('PUT', t, '/permissions/default', 'alice', { permissions: 128 });
        const list = await fx.call('GET', `${V4}/room`, { as: as('carol'), query: { modifiedSince: since } });
        assert.deepEqual(
          list.data.map((x: any) => x.token),
          [t],
        );
      });

      it('400 mode, type (one-to-one), breakout-room, value; 403 for users; guest moderators may', async () => {
        const t = await room(3);
        assert.deepEqual(await outcome(req('PUT', t, '/permissions/everyone', 'alice', { permissions: 4 })), [400, 'mode']);
        const one = await oneToOne();
        assert.deepEqual(await outcome(req('PUT', one, '/permissions/default', 'alice', { permissions: 4 })), [400, 'type']);
        const child = await room(2);
        await setRoom(fx.p, child, { object_type: 'room', object_id: t });
        assert.deepEqual(await outcome(req('PUT', child, '/permissions/default', 'alice', { permissions: 4 })), [400, 'breakout-room']);
        for (const v of [512, -1]) assert.deepEqual(await outcome(req('PUT', t, '/permissions/default', 'alice', { permissions: v })), [400, 'value']);
        const c = await req('PUT', t, '/permissions/default', 'carol', { permissions: 4 });
        assert.deepEqual([c.status, c.data.error], [403, 'moderator']);
        assert.equal((await roomRow(fx.p, t))!.default_permissions, 0);
        const gm = await joinGuest(fx.p, t, ParticipantType.GUEST_MODERATOR);
        assert.equal((await req('PUT', t, '/permissions/default', gm.caller, { permissions: 4 })).status, 200);
        assert.equal((await roomRow(fx.p, t))!.default_permissions, 5);
      });
    });

    describe('favorite, notify, notify-calls', () => {
      it("favorite on and off; only the caller's list sees the change with modifiedSince; lastActivity unchanged", async () => {
        const t = await room(2);
        await quietEverything();
        const since = Math.floor(Date.now() / 1000);
        const r = await req('POST', t, '/favorite', 'carol');
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.isFavorite, true);
        await assertNotBumped(t);
        const mine = await fx.call('GET', `${V4}/room`, { as: as('carol'), query: { modifiedSince: since } });
        assert.deepEqual(
          mine.data.map((x: any) => [x.token, x.isFavorite]),
          [[t, true]],
        );
        const theirs = await fx.call('GET', `${V4}/room`, { as: as('bob'), query: { modifiedSince: since } });
        assert.ok(!theirs.data.some((x: any) => x.token === t));
        const off = await req('DELETE', t, '/favorite', 'carol');
        assert.equal(off.data.isFavorite, false);
        assert.equal((await attendeesOf(fx.p, t)).find((a) => a.actor_id === 'carol')!.favorite, 0);
      });

      it('notify 1..3 (0 and 4 are 400 level), notify-calls 0..1 (2 is 400 level)', async () => {
        const t = await room(2);
        const n = await req('POST', t, '/notify', 'carol', { level: 3 });
        assert.equal(n.status, 200);
        assert.equal(n.data.notificationLevel, 3);
        for (const level of [0, 4]) {
          const bad = await req('POST', t, '/notify', 'carol', { level });
          assert.deepEqual([bad.status, bad.data.error], [400, 'level'], String(level));
        }
        const c = await req('POST', t, '/notify-calls', 'carol', { level: 0 });
        assert.equal(c.data.notificationCalls, 0);
        assert.deepEqual(await outcome(req('POST', t, '/notify-calls', 'carol', { level: 2 })), [400, 'level']);
        const row = (await attendeesOf(fx.p, t)).find((a) => a.actor_id === 'carol')!;
        assert.deepEqual([row.notification_level, row.notification_calls], [3, 0]);
        assert.ok(row.last_attendee_activity > OLD);
      });

      it('401 guest for guests and guest moderators, 404 for strangers; one-to-one works', async () => {
        const t = await room(3);
        for (const type of [4, 6]) {
          const g = await joinGuest(fx.p, t, type);
          for (const [m, path, body] of [
            ['POST', '/favorite'],
            ['DELETE', '/favorite'],
            ['POST', '/notify', { level: 1 }],
            ['POST', '/notify-calls', { level: 0 }],
          ] as const) {
            const r = await req(m, t, path, g.caller, body);
            assert.deepEqual([r.status, r.data.error], [401, 'guest'], `${type} ${m} ${path}`);
          }
        }
        assert.equal((await req('POST', t, '/favorite', 'erin')).status, 404);
        const one = await oneToOne();
        assert.equal((await req('POST', one, '/favorite', 'alice')).data.isFavorite, true);
      });
    });

    describe('POST /room/{token}/message-expiration', () => {
      it('seconds stored (record, lastActivity), 0 turns it off; negative is 400 value', async () => {
        const t = await room(2);
        const r = await req('POST', t, '/message-expiration', 'bob', { seconds: 3600 });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.messageExpiration, 3600);
        await assertBumped(t, r);
        assert.equal((await req('POST', t, '/message-expiration', 'alice', { seconds: 0 })).data.messageExpiration, 0);
        const neg = await req('POST', t, '/message-expiration', 'alice', { seconds: -1 });
        assert.deepEqual([neg.status, neg.data.error], [400, 'value']);
        assert.equal((await roomRow(fx.p, t))!.message_expiration, 0);
      });

      it('400 breakout-room, 400 type for former one-to-one, 403 for users; one-to-one and guest moderators may', async () => {
        const parent = await room(3);
        const child = await room(2);
        await setRoom(fx.p, child, { object_type: 'room', object_id: parent });
        assert.deepEqual(await outcome(req('POST', child, '/message-expiration', 'alice', { seconds: 60 })), [400, 'breakout-room']);
        const former = await room(2);
        await setRoom(fx.p, former, { type: RoomType.ONE_TO_ONE_FORMER });
        assert.deepEqual(await outcome(req('POST', former, '/message-expiration', 'alice', { seconds: 60 })), [400, 'type']);
        assert.equal((await req('POST', parent, '/message-expiration', 'carol', { seconds: 60 })).status, 403);
        const one = await oneToOne();
        assert.equal((await req('POST', one, '/message-expiration', 'alice', { seconds: 60 })).data.messageExpiration, 60);
        const gm = await joinGuest(fx.p, parent, ParticipantType.GUEST_MODERATOR);
        assert.equal((await req('POST', parent, '/message-expiration', gm.caller, { seconds: 60 })).status, 200);
      });
    });

    describe('PUT /room/{token}/listable', () => {
      it('scope 1 lists it for other users (GET /listed-room), 0 hides it again; lastActivity moves', async () => {
        const t = await room(3, 'Open house');
        const r = await req('PUT', t, '/listable', 'alice', { scope: 1 });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.listable, 1);
        await assertBumped(t, r);
        const listed = await fx.call('GET', `${V4}/listed-room`, { as: as('erin'), query: { searchTerm: 'open house' } });
        assert.deepEqual(
          listed.data.map((x: any) => x.token),
          [t],
        );
        await req('PUT', t, '/listable', 'alice', { scope: 0 });
        const unlisted = await fx.call('GET', `${V4}/listed-room`, { as: as('erin'), query: { searchTerm: 'open house' } });
        assert.deepEqual(unlisted.data, []);
      });

      it('400 type for one-to-one, 400 breakout-room, 400 value for scope 3, 403 for users', async () => {
        const one = await oneToOne();
        assert.deepEqual(await outcome(req('PUT', one, '/listable', 'alice', { scope: 1 })), [400, 'type']);
        const t = await room(3);
        const child = await room(3);
        await setRoom(fx.p, child, { object_type: 'room', object_id: t });
        assert.deepEqual(await outcome(req('PUT', child, '/listable', 'alice', { scope: 1 })), [400, 'breakout-room']);
        assert.deepEqual(await outcome(req('PUT', t, '/listable', 'alice', { scope: 3 })), [400, 'value']);
        assert.equal((await req('PUT', t, '/listable', 'carol', { scope: 1 })).status, 403);
        assert.equal((await roomRow(fx.p, t))!.listable, 0);
        // A group conversation can be listed: Talk's "open conversations" (docs/reference/conversations.md#endpoint-rules).
        const group = await room(2);
        assert.equal((await req('PUT', group, '/listable', 'alice', { scope: 1 })).status, 200);
        assert.equal((await roomRow(fx.p, group))!.listable, 1);
      });
    });

    describe('PUT /room/{token}/webinar/lobby', () => {
      it('state and timer in the record; lastActivity moves; timer null means none', async () => {
        const t = await room(3);
        const timer = Math.floor(Date.now() / 1000) + 3600;
        const r = await req('PUT', t, '/webinar/lobby', 'alice', { state: 1, timer });
        assert.equal(r.status, 200, r.text);
        assert.deepEqual([r.data.lobbyState, r.data.lobbyTimer], [1, timer]);
        await assertBumped(t, r);
        const n = await req('PUT', t, '/webinar/lobby', 'alice', { state: 1, timer: null });
        assert.deepEqual([n.data.lobbyState, n.data.lobbyTimer], [1, 0]);
        const off = await req('PUT', t, '/webinar/lobby', 'alice', { state: 0 });
        assert.equal(off.data.lobbyState, 0);
      });

      it('a passed timer lifts the lobby on the next read', async () => {
        const t = await room(2);
        const past = Math.floor(Date.now() / 1000) - 5;
        const r = await req('PUT', t, '/webinar/lobby', 'alice', { state: 1, timer: past });
        assert.equal(r.status, 200);
        const again = await get(t, 'carol');
        assert.deepEqual([again.data.lobbyState, again.data.lobbyTimer], [0, 0]);
        assert.equal((await roomRow(fx.p, t))!.lobby_state, 0);
      });

      it('the lobby holds back users and guests without bit 8 (record and 412 on the participant list), not moderators', async () => {
        const t = await room(3);
        const guest = await joinGuest(fx.p, t);
        const gm = await joinGuest(fx.p, t, ParticipantType.GUEST_MODERATOR);
        await seedUser(fx.p, t, 'dave', ParticipantType.USER);
        const dave = (await attendeesOf(fx.p, t)).find((a) => a.actor_id === 'dave')!;
        await fx.p.services.repos.attendees.update(dave.id, { permissions: 1 | 4 | 8 | 128 });
        const ids = (await attendeesOf(fx.p, t)).map((a) => a.id);
        await seedCall(t, ids);
        const r = await req('PUT', t, '/webinar/lobby', 'bob', { state: 1 });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data.hasCall, true, 'moderators still see the call');
        for (const who of ['carol', guest.caller] as const) {
          const rec = await get(t, who);
          assert.equal(rec.data.hasCall, false);
          assert.equal(rec.data.canStartCall, false);
          assert.equal((await req('GET', t, '/participants', who)).status, 412);
        }
        for (const who of ['dave', gm.caller, 'alice'] as const) {
          assert.equal((await get(t, who)).data.hasCall, true);
          assert.equal((await req('GET', t, '/participants', who)).status, 200);
        }
        // Non-moderators left the call, moderators stayed, so the call goes on.
        const byId = new Map((await attendeesOf(fx.p, t)).map((a) => [a.actor_id, a.id]));
        assert.deepEqual(await inCall(byId.get('carol')!), [0]);
        assert.ok((await inCall(guest.attendeeId)).every((f) => f === 0));
        assert.deepEqual(await inCall(byId.get('bob')!), [7]);
        assert.ok((await inCall(gm.attendeeId)).includes(7));
      });

      it('400 breakout-room, type, object, value; 403 for users and guest moderators', async () => {
        const t = await room(2);
        const child = await room(2);
        await setRoom(fx.p, child, { object_type: 'room', object_id: t });
        assert.deepEqual(await outcome(req('PUT', child, '/webinar/lobby', 'alice', { state: 1 })), [400, 'breakout-room']);
        const one = await oneToOne();
        assert.deepEqual(await outcome(req('PUT', one, '/webinar/lobby', 'alice', { state: 1 })), [400, 'type']);
        const file = await room(2);
        await setRoom(fx.p, file, { object_type: 'file', object_id: '42' });
        assert.deepEqual(await outcome(req('PUT', file, '/webinar/lobby', 'alice', { state: 1 })), [400, 'object']);
        const ev = await room(2);
        await setRoom(fx.p, ev, { object_type: 'event', object_id: '1#2' });
        assert.equal((await req('PUT', ev, '/webinar/lobby', 'alice', { state: 1 })).status, 200);
        assert.deepEqual(await outcome(req('PUT', t, '/webinar/lobby', 'alice', { state: 2 })), [400, 'value']);
        assert.equal((await req('PUT', t, '/webinar/lobby', 'carol', { state: 1 })).status, 403);
        const pub = await room(3);
        const gm = await joinGuest(fx.p, pub, ParticipantType.GUEST_MODERATOR);
        // A guest moderator has no login: 401, as Talk's endpoint is not a public page (docs/reference/conversations.md#endpoint-rules).
        assert.equal((await req('PUT', pub, '/webinar/lobby', gm.caller, { state: 1 })).status, 401);
        assert.equal((await roomRow(fx.p, t))!.lobby_state, 0);
        assert.equal((await roomRow(fx.p, pub))!.lobby_state, 0);
      });
    });

    describe('envelope and capabilities', () => {
      it('the record comes in XML and under /ocs/v1.php too', async () => {
        const t = await room(2);
        const x = await fx.call('PUT', `${V4}/room/${t}/description`, { as: as('alice'), form: { description: 'In XML' }, format: 'xml' });
        assert.equal(x.status, 200);
        assert.match(x.text, /<description>In XML<\/description>/);
        assert.match(x.text, /<token>[a-z0-9]+<\/token>/);
        const v1 = await fx.call('POST', `${V4}/room/${t}/favorite`, { as: as('alice'), version: 1 });
        assert.equal(v1.status, 200);
        assert.equal(v1.meta.statuscode, 100);
        assert.equal(v1.data.isFavorite, true);
      });

      it('capabilities advertise the features these endpoints make true (favorites and listable-rooms also local)', async () => {
        const r = await fx.call('GET', '/cloud/capabilities', { as: as('alice') });
        const spreed = r.data.capabilities.spreed;
        for (const f of [
          'favorites',
          'notification-levels',
          'notification-calls',
          'read-only-rooms',
          'listable-rooms',
          'webinary-lobby',
          'room-description',
          'message-expiration',
          'conversation-permissions',
        ]) {
          assert.ok(spreed.features.includes(f), f);
        }
        assert.ok(spreed['features-local'].includes('favorites'));
        assert.ok(spreed['features-local'].includes('listable-rooms'));
        assert.ok(spreed.features.includes('conversation-creation-password'), 'POST /room and POST public take a password');
        assert.ok(spreed.features.includes('conversation-creation-all'), 'POST /room takes every option and the participants map');
      });
    });
  });
}
