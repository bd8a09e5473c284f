/**
 * Call state under concurrency, two Parley servers (each its own connection pool, as two
 * processes behind a load balancer) on one database — PostgreSQL when PARLEY_TEST_PG is set:
 * two joins at once start exactly one call; two leaves at once end it exactly once; a join
 * racing the last leave never leaves a session in a call the room does not have.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, startParley, type Caller, type Parley } from './helpers/parley.js';
import { cookieOf, createRoom, NO_THROTTLE, roomRow, seedUser, V4 } from './helpers/rooms.js';
import { RoomType } from './helpers/fixtures.js';

const ROUNDS = 6;

for (const dialect of dialects()) {
  describe(`call races across two Parley servers [${dialect}]`, () => {
    let p: Parley;
    let q: Parley;
    const started: string[] = [];
    const ended: string[] = [];
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      q = await startParley(dialect, { env: p.env });
      for (const u of ['alice', 'bob']) await createUser(p, u);
      for (const s of [p, q]) {
        s.services.events.on('call.started', ({ room }) => void started.push(room.token));
        s.services.events.on('call.ended', ({ room }) => void ended.push(room.token));
      }
    });
    after(async () => {
      await q.close();
      await p.close();
    });

    async function setup(name: string): Promise<{ token: string; a: Caller; b: Caller }> {
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: name });
      await seedUser(p, room.token, 'bob');
      const ja = await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('alice') });
      const jb = await call(q, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('bob') });
      return { token: room.token, a: { ...as('alice'), headers: { Cookie: cookieOf(ja) } }, b: { ...as('bob'), headers: { Cookie: cookieOf(jb) } } };
    }
    const inCallSessions = async (token: string) => {
      const room = (await roomRow(p, token))!;
      const rows = await p.services.db.kysely
        .selectFrom('sessions as s')
        .innerJoin('attendees as a', 'a.id', 's.attendee_id')
        .select('s.in_call')
        .where('a.room_id', '=', room.id)
        .where('s.in_call', '!=', 0)
        .execute();
      return rows.length;
    };

    it('two join at once: one call start; two leave at once: the call ends once', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { token, a, b } = await setup(`race ${round}`);
        const joins = await Promise.all([call(p, 'POST', `${V4}/call/${token}`, { as: a }), call(q, 'POST', `${V4}/call/${token}`, { as: b })]);
        assert.deepEqual(
          joins.map((r) => r.status),
          [200, 200],
          joins.map((r) => r.text).join(' '),
        );
        assert.equal(started.filter((t) => t === token).length, 1, `round ${round}: exactly one call start`);
        let row = (await roomRow(p, token))!;
        assert.notEqual(row.active_since, null);
        assert.equal(row.call_flag, 7);
        assert.equal(await inCallSessions(token), 2);

        const leaves = await Promise.all([call(p, 'DELETE', `${V4}/call/${token}`, { as: a }), call(q, 'DELETE', `${V4}/call/${token}`, { as: b })]);
        assert.deepEqual(
          leaves.map((r) => r.status),
          [200, 200],
        );
        row = (await roomRow(p, token))!;
        assert.deepEqual([row.active_since, row.call_flag, row.call_permissions], [null, 0, 0], `round ${round}: the call ended`);
        assert.equal(ended.filter((t) => t === token).length, 1, `round ${round}: exactly one call end`);
      }
    });

    it('a join racing the last leave: whoever is in the call has a call', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const { token, a, b } = await setup(`join vs leave ${round}`);
        assert.equal((await call(p, 'POST', `${V4}/call/${token}`, { as: a })).status, 200);
        const [l, j] = await Promise.all([call(p, 'DELETE', `${V4}/call/${token}`, { as: a }), call(q, 'POST', `${V4}/call/${token}`, { as: b })]);
        assert.deepEqual([l.status, j.status], [200, 200]);
        const row = (await roomRow(p, token))!;
        assert.equal(await inCallSessions(token), 1, 'bob is in the call');
        assert.notEqual(row.active_since, null, `round ${round}: the room has a call while bob is in it`);
        assert.notEqual(row.call_flag, 0);
        // Starts and ends alternate: at most one call more started than ended.
        assert.equal(started.filter((t) => t === token).length - ended.filter((t) => t === token).length, 1);
        assert.equal((await call(q, 'DELETE', `${V4}/call/${token}`, { as: b })).status, 200);
        assert.equal((await roomRow(p, token))!.active_since, null);
      }
    });
  });
}
