/**
 * Many long-polls on one conversation (docs/reference/chat.md#receiving; docs/benchmarks.md "Chat
 * long-poll scale"): every waiting member's `setReadMarker` move is stored (the moves of one
 * turn are written together, services/chat/receive-read-markers.ts), and one post wakes every waiter
 * with statements that do not grow with the number of waiters (their reads are shared,
 * cache/same-turn-reads.ts).
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects } from './helpers/parley.js';
import { countQueries, createRoom, roomRow, seedUser } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`chat long-poll with many waiters [${dialect}]`, () => {
    const t = useParley(dialect);
    let token: string;
    let roomId: number;
    const members = Array.from({ length: 50 }, (_, i) => `waiter${i}`);

    before(async () => {
      await createUser(t.p, 'alice');
      const room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Many' });
      token = room.token;
      roomId = (await roomRow(t.p, token))!.id;
      for (const m of members) {
        await createUser(t.p, m);
        await seedUser(t.p, token, m);
        // One password check each, one after another (50 at once from one address would reach
        // the login throttle's cap); the polls below then use the cached credential.
        assert.equal((await t.call('GET', `${V1}/chat/${token}`, { as: as(m), query: { lookIntoFuture: 0, limit: 1 } })).status, 200);
      }
    });

    const send = async (message: string) => {
      const r = await t.call('POST', `${V1}/chat/${token}`, { as: as('alice'), body: { message } });
      assert.equal(r.status, 201, r.text);
      return r.data.id as number;
    };

    /** Until `n` long-polls wait in the server (they have moved their markers by then). */
    const waitingReaches = async (n: number) => {
      const until = Date.now() + 20_000;
      while (t.p.services.db.wake.waiting < n) {
        assert.ok(Date.now() < until, `only ${t.p.services.db.wake.waiting} of ${n} long-polls are waiting`);
        await new Promise((r) => setTimeout(r, 10));
      }
    };

    /**
     * `who` long-poll after `lastKnown` (setReadMarker defaults to 1); once all wait, their
     * markers are checked and one message is posted. Returns the statements from the post to
     * the last answer.
     */
    const round = async (who: string[], lastKnown: number, message: string) => {
      const polls = who.map((m) =>
        t.call('GET', `${V1}/chat/${token}`, { as: as(m), query: { lookIntoFuture: 1, lastKnownMessageId: lastKnown, timeout: 30 } }),
      );
      await waitingReaches(who.length);
      const metrics = await (await fetch(`${t.p.url}/metrics`)).text();
      assert.match(metrics, new RegExp(`^parley_waiting_long_polls ${who.length}$`, 'm'), 'GET /metrics reports the waiting long-polls');
      const rows = await t.p.services.db.kysely
        .selectFrom('attendees')
        .select(['actor_id', 'last_read_message'])
        .where('room_id', '=', roomId)
        .where('actor_id', 'in', who)
        .execute();
      assert.equal(rows.length, who.length);
      for (const r of rows) assert.equal(Number(r.last_read_message), lastKnown, `${r.actor_id}'s read marker moved to ${lastKnown}`);
      let answers: Awaited<(typeof polls)[number]>[] = [];
      const statements = await countQueries(t.p, async () => {
        await send(message);
        answers = await Promise.all(polls);
      });
      for (const a of answers) {
        assert.equal(a.status, 200, a.text);
        assert.equal(a.data[0].message, message);
      }
      return statements;
    };

    it("50 waiting members' read markers all move, and one post wakes all of them", async () => {
      const first = await send('first');
      await round(members, first, 'for fifty');
      assert.equal(t.p.services.db.wake.waiting, 0);
    });

    it('a wake-up costs the same statements for 5 waiters as for 50', async () => {
      const a = await send('before five');
      const five = await round(members.slice(0, 5), a, 'to five');
      const b = await send('before fifty');
      const fifty = await round(members, b, 'to fifty');
      // Constant up to one: on PostgreSQL a read the post itself makes (the common read marker)
      // is shared with the waiters' identical read only when their wake-up falls in the same turn
      // of the event loop (same-turn-reads.ts, turn-batch.ts), which timing decides. A cost per
      // waiter would differ by 45 or more.
      assert.ok(Math.abs(fifty - five) <= 1, `statements from the post to the last answer: ${five} for 5 waiters, ${fifty} for 50`);
    });
  });
}
