/**
 * Chat sends arriving together (db/commit-group.ts: on SQLite one COMMIT for the sends that
 * queued for the connection): every send is answered 201 with its own message, ids follow the
 * stored order, and the room, the author's read marker and the other members' unread counts
 * come out as from sends made one after the other. Also the group itself on the real database:
 * a work that fails is refused and leaves nothing, the others are committed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects } from './helpers/parley.js';
import { NO_THROTTLE, V4, useParley } from './helpers/fixtures.js';
import { commitGroup } from '../src/db/commit-group.js';
import { CHAT_MESSAGE_DEFAULTS } from '../src/db/repositories/chat-messages.js';
import type { Kysely } from 'kysely';
import type { Database } from '../src/db/schema.js';

const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`chat sends at once [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob', 'carl'] });

    it('30 sends at once from two authors: each 201 with its own message, in id order, counters exact', async () => {
      const room = await t.newRoom('alice', { members: ['bob', 'carl'] });
      const texts = Array.from({ length: 30 }, (_, i) => ({ who: i % 3 === 0 ? 'bob' : 'alice', message: `at once ${i}` }));
      const answers = await Promise.all(texts.map(({ who, message }) => t.call('POST', `${V1}/chat/${room.token}`, { as: as(who), body: { message } })));
      for (const [i, r] of answers.entries()) {
        assert.equal(r.status, 201, r.text);
        assert.equal(r.data.message, texts[i].message);
        assert.equal(r.data.actorId, texts[i].who);
      }
      const ids = answers.map((r) => r.data.id as number);
      assert.equal(new Set(ids).size, ids.length, 'every send has an id of its own');

      // History (newest first) holds exactly these, each under the id its send answered.
      const history = (await t.history(room, 'carl', 100)).filter((m) => m.systemMessage === '');
      assert.deepEqual(
        history.map((m) => m.id),
        [...ids].sort((a, b) => b - a),
      );
      const byId = new Map(answers.map((r) => [r.data.id, r.data.message]));
      for (const m of history) assert.equal(m.message, byId.get(m.id));

      const record = async (who: string) => {
        const r = await t.call('GET', `${V4}/room/${room.token}`, { as: as(who) });
        assert.equal(r.status, 200, r.text);
        return r.data;
      };
      const newest = Math.max(...ids);
      const alice = await record('alice');
      const bob = await record('bob');
      const carl = await record('carl');
      assert.equal(carl.lastMessage.id, newest, 'the room points at the newest message');
      assert.equal(carl.unreadMessages, 30);
      // Each author's marker is at their own newest message; what others sent after it is unread.
      const aliceNewest = Math.max(...ids.filter((_, i) => texts[i].who === 'alice'));
      const bobNewest = Math.max(...ids.filter((_, i) => texts[i].who === 'bob'));
      assert.equal(alice.lastReadMessage, aliceNewest);
      assert.equal(bob.lastReadMessage, bobNewest);
      assert.equal(alice.unreadMessages, ids.filter((id) => id > aliceNewest).length);
      assert.equal(bob.unreadMessages, ids.filter((id) => id > bobNewest).length);
    });

    it('a group commits its works in order; a failing work is refused alone', async () => {
      const room = await t.newRoom('alice');
      const roomId = (await t.services.repos.rooms.findByTokenWithMember(room.token, 'users', 'alice'))!.room.id;
      const group = commitGroup(t.services.db.kysely, t.services.db.dialect);
      /** The transaction each work last ran in (a group that a work failed in runs the others again). */
      const ranIn = new Map<number, Kysely<Database>>();
      const insert = async (trx: Kysely<Database>, message: string) => {
        const row = await t.services.repos.withTransaction(trx).chatMessages.insert({
          ...CHAT_MESSAGE_DEFAULTS,
          room_id: roomId,
          actor_type: 'users',
          actor_id: 'alice',
          message,
          message_type: 'comment',
          created_at: 1,
        });
        return row.id;
      };
      const works = [0, 1, 2, 3, 4].map((i) =>
        group.run(async (trx) => {
          ranIn.set(i, trx);
          const id = await insert(trx, `work ${i}`);
          if (i === 2) throw new Error('refused');
          return id;
        }),
      );
      const settled = await Promise.allSettled(works);
      assert.deepEqual(
        settled.map((s) => s.status),
        ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
      );
      assert.equal((settled[2] as PromiseRejectedResult).reason.message, 'refused');
      const ids = settled.filter((s) => s.status === 'fulfilled').map((s) => (s as PromiseFulfilledResult<number>).value);
      const stored = await t.services.db.kysely
        .selectFrom('chat_messages')
        .select(['id', 'message'])
        .where('room_id', '=', roomId)
        .where('created_at', '=', 1)
        .orderBy('message')
        .execute();
      assert.deepEqual(
        stored.map((m) => m.message),
        ['work 0', 'work 1', 'work 3', 'work 4'],
        'the refused work left nothing',
      );
      assert.deepEqual(
        stored.map((m) => m.id),
        ids,
        'each work answered the id it stored',
      );
      // On SQLite the works run one after the other in the order they were asked for (PostgreSQL
      // runs them side by side on its pool).
      if (dialect === 'sqlite')
        assert.deepEqual(
          ids,
          [...ids].sort((a, b) => a - b),
        );
      // On SQLite the four that were stored were committed by one transaction (the point of the
      // group: the refused one's failure rolled back the first attempt, which ran again without
      // it); elsewhere each is a transaction of its own.
      const committedIn = [0, 1, 3, 4].map((i) => ranIn.get(i));
      if (dialect === 'sqlite')
        assert.ok(
          committedIn.every((trx) => trx === committedIn[0]),
          'one transaction for works asked for together',
        );
      else assert.equal(new Set(committedIn).size, 4);
    });
  });
}
