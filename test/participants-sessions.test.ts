/** Sessions (contract "Participants": join, leave, state) and a guest's whole journey. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, startParley, type Caller, type Parley } from './helpers/parley.js';
import { attendeesOf, cookieOf, createRoom, NO_THROTTLE, roomRow, setRoom, V4 } from './helpers/rooms.js';
import { hashPassword } from '../src/domain/passwords.js';
import { jobs, runJobIfDue } from '../src/jobs/index.js';
import { ParticipantType, RoomType } from './helpers/fixtures.js';

const guest = (cookie?: string): Caller => ({ headers: cookie ? { Cookie: cookie } : {} });

for (const dialect of dialects()) {
  describe(`sessions [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      for (const u of ['owner', 'member', 'outsider']) await createUser(p, u);
    });
    after(async () => p.close());

    it('a member joins: 200 with the room record and a 512-character session id; leave ends it', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Team' });
      const j = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('owner') });
      assert.equal(j.status, 200, j.text);
      assert.equal(j.data.token, room.token);
      assert.equal(j.data.sessionId.length, 512);
      const cookie = cookieOf(j);
      assert.ok(cookie, 'a cookie session is set');
      assert.match(j.headers.get('set-cookie')!, /HttpOnly/);
      assert.match(j.headers.get('set-cookie')!, /SameSite=Lax/);
      const withCookie: Caller = { ...as('owner'), headers: { Cookie: cookie } };
      const g = await call(p, 'GET', `${V4}/room/${room.token}`, { as: withCookie });
      assert.equal(g.data.sessionId, j.data.sessionId, 'the cookie session finds its own session');
      const list = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('owner') });
      assert.deepEqual(list.data[0].sessionIds, [j.data.sessionId]);
      const l = await call(p, 'DELETE', `${V4}/room/${room.token}/participants/active`, { as: withCookie });
      assert.equal(l.status, 200);
      const after = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('owner') });
      assert.deepEqual(after.data[0].sessionIds, []);
    });

    it('join: 404 for an unknown or invisible conversation, leave 404 likewise', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Hidden' });
      for (const [who, token] of [
        [as('outsider'), room.token],
        [as('owner'), 'zzzzzzzzzz'],
        [guest(), room.token],
        [as('owner'), 'BAD TOKEN'],
      ] as const) {
        const j = await call(p, 'POST', `${V4}/room/${encodeURIComponent(token)}/participants/active`, { as: who });
        assert.equal(j.status, 404, `${JSON.stringify(who)} ${token}`);
        const l = await call(p, 'DELETE', `${V4}/room/${encodeURIComponent(token)}/participants/active`, { as: who });
        assert.equal(l.status, 404);
      }
      assert.equal((await attendeesOf(p, room.token)).length, 1);
    });

    it('self-join of a public conversation: type 5, removed again on leave', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.PUBLIC, roomName: 'Open' });
      const j = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('member') });
      assert.equal(j.status, 200, j.text);
      assert.equal(j.data.participantType, ParticipantType.USER_SELF_JOINED);
      const cookie = cookieOf(j);
      const l = await call(p, 'DELETE', `${V4}/room/${room.token}/participants/active`, { as: { ...as('member'), headers: { Cookie: cookie } } });
      assert.equal(l.status, 200);
      assert.equal(
        (await attendeesOf(p, room.token)).some((a) => a.actor_id === 'member'),
        false,
      );
    });

    it('password: 403 without or with a wrong one, 200 with the right one; members need none', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.PUBLIC, roomName: 'Locked' });
      await setRoom(p, room.token, { password: await hashPassword('open sesame 42') });
      for (const password of [undefined, 'wrong']) {
        const r = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('member'), body: password ? { password } : {} });
        assert.equal(r.status, 403);
        assert.equal(r.data.error, 'password');
        const g = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: guest(), body: password ? { password } : {} });
        assert.equal(g.status, 403);
      }
      assert.equal((await attendeesOf(p, room.token)).length, 1, 'nothing was added');
      const ok = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('member'), body: { password: 'open sesame 42' } });
      assert.equal(ok.status, 200);
      const own = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('owner') });
      assert.equal(own.status, 200);
    });

    it('409 with force=false while the cookie session is active; force=true replaces it', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Conflict' });
      const first = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('owner') });
      const caller: Caller = { ...as('owner'), headers: { Cookie: cookieOf(first) } };
      const c = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: caller, body: { force: false } });
      assert.equal(c.status, 409);
      assert.equal(c.data.sessionId, first.data.sessionId);
      assert.equal(c.data.inCall, 0);
      assert.equal(typeof c.data.lastPing, 'number');
      const f = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: caller, body: { force: true } });
      assert.equal(f.status, 200);
      const list = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('owner') });
      assert.deepEqual(list.data[0].sessionIds, [f.data.sessionId], 'the old session was replaced');
      // A plain API client without a cookie never conflicts: a new session each time.
      const a = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('owner'), body: { force: false } });
      assert.equal(a.status, 200);
    });

    it('a stale session (no ping for over 40 s, not in a call) is replaced without 409', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Stale' });
      const first = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('owner') });
      await p.services.db.kysely
        .updateTable('sessions')
        .set({ last_ping: Math.floor(Date.now() / 1000) - 45 })
        .where('session_id', '=', first.data.sessionId)
        .execute();
      const r = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, {
        as: { ...as('owner'), headers: { Cookie: cookieOf(first) } },
        body: { force: false },
      });
      assert.equal(r.status, 200);
    });

    it('an in-call session conflicts for 60 s without a ping (409 at 45 s), not after (200 at 61 s)', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'In call' });
      const first = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('owner') });
      assert.equal(first.status, 200, first.text);
      const caller: Caller = { ...as('owner'), headers: { Cookie: cookieOf(first) } };
      const pingedAgo = (seconds: number) =>
        p.services.db.kysely
          .updateTable('sessions')
          .set({ in_call: 7, last_ping: Math.floor(Date.now() / 1000) - seconds })
          .where('session_id', '=', first.data.sessionId)
          .execute();
      await pingedAgo(45);
      const conflict = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: caller, body: { force: false } });
      assert.equal(conflict.status, 409, conflict.text);
      assert.equal(conflict.data.sessionId, first.data.sessionId);
      assert.equal(conflict.data.inCall, 7);
      await pingedAgo(61);
      const replaced = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: caller, body: { force: false } });
      assert.equal(replaced.status, 200, replaced.text);
      assert.notEqual(replaced.data.sessionId, first.data.sessionId);
    });

    it('two joins with force=false at the same moment on one cookie session: one 200, one 409', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Race' });
      const first = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('owner') });
      const caller: Caller = { ...as('owner'), headers: { Cookie: cookieOf(first) } };
      await call(p, 'DELETE', `${V4}/room/${room.token}/participants/active`, { as: caller });
      for (let round = 0; round < 5; round++) {
        const [a, b] = await Promise.all([
          call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: caller, body: { force: false } }),
          call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: caller, body: { force: false } }),
        ]);
        assert.deepEqual([a.status, b.status].sort(), [200, 409], `round ${round}`);
        const list = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('owner') });
        assert.equal(list.data[0].sessionIds.length, 1, 'exactly one active session');
        await call(p, 'DELETE', `${V4}/room/${room.token}/participants/active`, { as: caller });
      }
    });

    it('state: 200 with 0 and 1, 400 for other values, 404 without a session', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'State' });
      const j = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('owner') });
      const caller: Caller = { ...as('owner'), headers: { Cookie: cookieOf(j) } };
      for (const state of [0, 1]) {
        const r = await call(p, 'PUT', `${V4}/room/${room.token}/participants/state`, { as: caller, body: { state } });
        assert.equal(r.status, 200);
        assert.equal(r.data.token, room.token);
        const row = await p.services.db.kysely.selectFrom('sessions').select('state').where('session_id', '=', j.data.sessionId).executeTakeFirst();
        assert.equal(row?.state, state);
      }
      for (const body of [{ state: 2 }, { state: -1 }, { state: 'active' }, {}]) {
        const r = await call(p, 'PUT', `${V4}/room/${room.token}/participants/state`, { as: caller, body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.data.error, 'state');
      }
      const none = await call(p, 'PUT', `${V4}/room/${room.token}/participants/state`, { as: as('owner'), body: { state: 1 } });
      assert.equal(none.status, 404);
    });

    it("a guest's whole journey: join, name, promoted, changes another guest's permissions, leaves", async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.PUBLIC, roomName: 'Guests welcome' });
      const j = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: guest() });
      assert.equal(j.status, 200, j.text);
      assert.equal(j.data.participantType, ParticipantType.GUEST);
      assert.equal(j.data.actorType, 'guests');
      assert.match(j.data.actorId, /^[0-9a-f]{40}$/);
      const g1 = guest(cookieOf(j));
      const other = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: guest() });
      const g2 = guest(cookieOf(other));

      const n = await call(p, 'POST', `/apps/spreed/api/v1/guest/${room.token}/name`, { as: g1, body: { displayName: 'Grace' } });
      assert.equal(n.status, 200, n.text);
      const denied = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: g1 });
      assert.equal(denied.status, 403, 'plain guests cannot list');

      const list = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('owner') });
      const grace = list.data.find((x: any) => x.displayName === 'Grace');
      assert.ok(grace, 'the guest is listed with its name');
      const promote = await call(p, 'POST', `${V4}/room/${room.token}/moderators`, { as: as('owner'), body: { attendeeId: grace.attendeeId } });
      assert.equal(promote.status, 200);
      const mine = await call(p, 'GET', `${V4}/room/${room.token}`, { as: g1 });
      assert.equal(mine.data.participantType, ParticipantType.GUEST_MODERATOR);

      const asMod = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: g1 });
      assert.equal(asMod.status, 200);
      const target = asMod.data.find((x: any) => x.actorId === other.data.actorId);
      const perm = await call(p, 'PUT', `${V4}/room/${room.token}/attendees/permissions`, {
        as: g1,
        body: { attendeeId: target.attendeeId, method: 'set', permissions: 128 },
      });
      assert.equal(perm.status, 200, perm.text);
      assert.equal(perm.data[0].attendeePermissions, 129);
      const seen = await call(p, 'GET', `${V4}/room/${room.token}`, { as: g2 });
      assert.equal(seen.data.permissions, 129);

      const leave = await call(p, 'DELETE', `${V4}/room/${room.token}/participants/active`, { as: g1 });
      assert.equal(leave.status, 200);
      const gone = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: g1 });
      assert.equal(gone.status, 404, 'after leaving, the guest is no longer a participant');
      const still = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('owner') });
      assert.ok(
        still.data.some((x: any) => x.displayName === 'Grace' && x.participantType === ParticipantType.GUEST_MODERATOR && x.sessionIds.length === 0),
        'guest moderators stay listed',
      );
    });

    it('the cleanup job removes stale sessions and the attendees that lived only for them', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.PUBLIC, roomName: 'Cleanup' });
      const g = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: guest() });
      const u = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('member') });
      const old = Math.floor(Date.now() / 1000) - 200;
      await p.services.db.kysely.updateTable('sessions').set({ last_ping: old }).where('session_id', 'in', [g.data.sessionId, u.data.sessionId]).execute();
      const job = jobs.find((j) => j.name === 'stale-sessions')!;
      const out = await runJobIfDue(p.services, job, true);
      assert.equal(out.status, 'ok');
      assert.match(out.summary!, /^[2-9]\d* session/);
      assert.equal(await p.services.sessions.cleanupStale(), 0, 'idempotent');
      const left = await attendeesOf(p, room.token);
      assert.deepEqual(
        left.map((a) => a.actor_id),
        ['owner'],
      );
      assert.ok(await roomRow(p, room.token));
    });
  });
}

for (const dialect of dialects()) {
  describe(`join race across two Parley processes [${dialect}]`, () => {
    let p: Parley;
    let q: Parley;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      // A second server on the same database, as another process behind a load balancer.
      q = await startParley(dialect, { env: p.env });
      await createUser(p, 'owner');
    });
    after(async () => {
      await q.close();
      await p.close();
    });

    it('two force=false joins on one cookie session, one per process: exactly one session and one 409', async () => {
      const room = await createRoom(p, 'owner', { roomType: RoomType.GROUP, roomName: 'Two processes' });
      const first = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('owner') });
      const caller: Caller = { ...as('owner'), headers: { Cookie: cookieOf(first) } };
      await call(q, 'DELETE', `${V4}/room/${room.token}/participants/active`, { as: caller });
      for (let round = 0; round < 5; round++) {
        const [a, b] = await Promise.all([
          call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: caller, body: { force: false } }),
          call(q, 'POST', `${V4}/room/${room.token}/participants/active`, { as: caller, body: { force: false } }),
        ]);
        assert.deepEqual([a.status, b.status].sort(), [200, 409], `round ${round}: ${a.text} ${b.text}`);
        const winner = a.status === 200 ? a : b;
        const loser = a.status === 409 ? a : b;
        assert.equal(loser.data.sessionId, winner.data.sessionId);
        const list = await call(q, 'GET', `${V4}/room/${room.token}/participants`, { as: as('owner') });
        assert.deepEqual(list.data[0].sessionIds, [winner.data.sessionId]);
        await call(p, 'DELETE', `${V4}/room/${room.token}/participants/active`, { as: caller });
      }
    });
  });
}
