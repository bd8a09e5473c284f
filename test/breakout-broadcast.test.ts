/**
 * Breakout broadcast (docs/reference/conversations.md#breakout-rooms): a logged-in moderator of the parent posts one
 * message into every breakout room (201 with the breakout rooms); 400 mode / message,
 * 413 message, 403 for non-moderators, 404 for strangers.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects } from './helpers/parley.js';
import { createRoom, NO_THROTTLE, seedUser } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const BR = '/apps/spreed/api/v1/breakout-rooms';
const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`breakout broadcast [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob', 'carol', 'dave'] });

    const broadcast = (token: string, who: string, message?: string) =>
      t.call('POST', `${BR}/${token}/broadcast`, { as: as(who), body: message === undefined ? {} : { message } });

    it('201: the message lands in every breakout room, from the moderator', async () => {
      const room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Workshop' });
      await seedUser(t.p, room.token, 'bob');
      await seedUser(t.p, room.token, 'carol');
      assert.equal((await t.call('POST', `${BR}/${room.token}`, { as: as('alice'), body: { mode: 1, amount: 2 } })).status, 200);
      const r = await broadcast(room.token, 'alice', 'Five minutes left, @bob');
      assert.equal(r.status, 201, r.text);
      const children = await t.p.services.repos.rooms.childrenOf(room.token);
      assert.equal(children.length, 2);
      assert.deepEqual(r.data.map((x: any) => x.token).sort(), children.map((c) => c.token).sort());
      for (const child of children) {
        const h = await t.call('GET', `${V1}/chat/${child.token}`, { as: as('alice'), query: { lookIntoFuture: 0, limit: 5 } });
        assert.equal(h.status, 200, h.text);
        const m = h.data[0];
        assert.equal(m.actorId, 'alice');
        assert.equal(m.messageType, 'comment');
        assert.equal(m.message, 'Five minutes left, {mention-user1}');
      }
      // Not in the parent.
      const parent = await t.call('GET', `${V1}/chat/${room.token}`, { as: as('alice'), query: { lookIntoFuture: 0, limit: 5 } });
      assert.ok(!parent.data.some((m: any) => m.message.startsWith('Five minutes')));
    });

    it('400 mode without breakout rooms, 400/413 message, 403 non-moderators, 404 strangers', async () => {
      const room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Plain' });
      await seedUser(t.p, room.token, 'bob');
      const mode = await broadcast(room.token, 'alice', 'x');
      assert.equal(mode.status, 400);
      assert.equal(mode.data.error, 'mode');
      await t.call('POST', `${BR}/${room.token}`, { as: as('alice'), body: { mode: 3, amount: 1 } });
      const child = (await t.p.services.repos.rooms.childrenOf(room.token))[0];
      const count = async () =>
        (await t.p.services.db.kysely.selectFrom('chat_messages').select('id').where('room_id', '=', child.id).where('message_type', '=', 'comment').execute())
          .length;
      const empty = await broadcast(room.token, 'alice', '   ');
      assert.equal(empty.status, 400);
      assert.equal(empty.data.error, 'message');
      assert.equal((await broadcast(room.token, 'alice')).status, 400);
      const long = await broadcast(room.token, 'alice', 'x'.repeat(32001));
      assert.equal(long.status, 413);
      assert.equal(long.data.error, 'message');
      assert.equal((await broadcast(room.token, 'bob', 'hi')).status, 403);
      assert.equal((await broadcast(room.token, 'dave', 'hi')).status, 404);
      assert.equal((await broadcast('nosuchtoken', 'alice', 'hi')).status, 404);
      assert.equal(await count(), 0, 'nothing was posted by the refusals');
      assert.equal((await broadcast(room.token, 'alice', 'ok')).status, 201);
      assert.equal(await count(), 1);
    });
  });
}
