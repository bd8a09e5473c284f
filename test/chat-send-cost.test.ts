/**
 * What sending a chat message costs in SQL statements (docs/design.md#performance: a request costs a constant
 * number of queries): the same in a conversation of 2 and of 50 members, with no earlier message
 * and with a thousand, for a plain message, a reply and mentions; and no more than the budget
 * below. Counted from the request's start until the background work it queued (the signaling
 * notifier) is done.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects } from './helpers/parley.js';
import { countQueries } from './helpers/rooms.js';
import { NO_THROTTLE, RoomType, useParley, type RoomFixture } from './helpers/fixtures.js';
import { CHAT_MESSAGE_DEFAULTS } from '../src/db/repositories/chat-messages.js';

const V1 = '/apps/spreed/api/v1';
const MEMBERS = Array.from({ length: 48 }, (_, i) => `member${i}`);

/**
 * The budget of a plain message. SQLite: the login's brute-force check, credentials and config
 * generation, the room with the caller's attendee row, begin, insert (RETURNING the answer),
 * the room's lastMessage/lastActivity, the author's read marker, commit, the common read
 * marker (X-Chat-Last-Common-Read). PostgreSQL: the request's sync (its process has heard
 * every earlier commit), then the login's reads come from the read cache; the room with the caller's attendee row, the post as one statement (the room's row lock,
 * insert, room, read marker and wake-up: ChatMessagesRepository.postAlone), this process's
 * read-cache marker after that write, the common read marker; as a transaction the post was
 * 10 statements in all. Both: the notifier's two, the users notified of every message (by
 * index) and one insert of their notifications (here the others are notified: a group's default
 * level is "always"). Nothing after the answer: with internal signaling the signaling notifier
 * queues nothing.
 */
const BUDGET = { sqlite: 10, postgres: 7 };

for (const dialect of dialects()) {
  describe(`chat send: statements per message [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob', ...MEMBERS] });
    let small: RoomFixture;
    let large: RoomFixture;

    const send = (room: RoomFixture, body: Record<string, unknown>) => t.call('POST', `${V1}/chat/${room.token}`, { as: as('alice'), body });

    /** Statements of one send, including what it queued for after the answer. */
    const cost = async (room: RoomFixture, body: Record<string, unknown>): Promise<{ n: number; id: number }> => {
      let id = 0;
      const n = await countQueries(t.p, async () => {
        const r = await send(room, body);
        assert.equal(r.status, 201, r.text);
        id = r.data.id;
        await t.services.signalingNotifier.idle();
      });
      return { n, id };
    };

    it('a plain message costs the same in a room of 2 and of 50, with 0 and with 1,000 earlier messages, within the budget', async () => {
      small = await t.newRoom('alice', { members: ['bob'] });
      large = await t.newRoom('alice', { members: ['bob', ...MEMBERS] });
      // Warm up each room (first-use compilation of statements, cached credentials).
      await cost(small, { message: 'warm-up' });
      await cost(large, { message: 'warm-up' });
      const smallEmpty = (await cost(small, { message: 'hello' })).n;
      const largeEmpty = (await cost(large, { message: 'hello' })).n;
      assert.equal(largeEmpty, smallEmpty, 'the room size does not change the statements');

      // A thousand earlier messages in the large room.
      const room = (await t.services.repos.rooms.findByTokenWithMember(large.token, 'users', 'alice'))?.room;
      assert.ok(room);
      await t.services.repos.chatMessages.insertMany(
        Array.from({ length: 1000 }, (_, i) => ({
          ...CHAT_MESSAGE_DEFAULTS,
          room_id: room.id,
          actor_type: 'users',
          actor_id: MEMBERS[i % MEMBERS.length],
          message: `earlier ${i}`,
          message_type: 'comment',
          created_at: room.created_at,
        })),
      );
      await cost(large, { message: 'warm-up' });
      const largeFull = (await cost(large, { message: 'hello' })).n;
      assert.equal(largeFull, smallEmpty, 'earlier messages do not change the statements');
      assert.ok(smallEmpty <= BUDGET[dialect], `a message used ${smallEmpty} statements (budget ${BUDGET[dialect]})`);
    });

    it('a message into a one-to-one costs one statement more: whether the other user is still there (docs/reference/chat.md#sending: re-adding)', async () => {
      const one = await t.newRoom('alice', { type: RoomType.ONE_TO_ONE, invite: 'bob' });
      await cost(one, { message: 'warm-up' });
      const oneToOne = (await cost(one, { message: 'hello' })).n;
      const group = (await cost(small, { message: 'hello' })).n;
      assert.equal(oneToOne, group + 1);
    });

    it('a reply, a user mention and @all cost the same in a room of 2 and of 50', async () => {
      const parentSmall = (await cost(small, { message: 'question' })).id;
      const parentLarge = (await cost(large, { message: 'question' })).id;
      assert.equal((await cost(large, { message: 'answer', replyTo: parentLarge })).n, (await cost(small, { message: 'answer', replyTo: parentSmall })).n);
      assert.equal((await cost(large, { message: 'hi @bob' })).n, (await cost(small, { message: 'hi @bob' })).n);
      assert.equal((await cost(large, { message: 'hi @all' })).n, (await cost(small, { message: 'hi @all' })).n);
    });

    it('the answer is the stored message, as a history read shows it', async () => {
      const sent = await send(small, { message: 'as stored', referenceId: 'ref-stored' });
      assert.equal(sent.status, 201, sent.text);
      const read = await t.call('GET', `${V1}/chat/${small.token}`, {
        as: as('alice'),
        query: { lookIntoFuture: 0, limit: 1 },
      });
      assert.equal(read.status, 200, read.text);
      assert.deepEqual(sent.data, read.data[0]);
    });
  });
}
