/**
 * Message expiration (docs/reference/chat.md#expiration) on the real clock: the conversation's
 * messageExpiration stamps expirationTimestamp on new messages (and their reactions); expired
 * messages are hidden from history, context, lastMessage and unread counts before the job
 * runs; the message-expiration job deletes them.
 */
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import assert from 'node:assert/strict';
import { jobs, runJobIfDue } from '../src/jobs/index.js';
import { as, dialects } from './helpers/parley.js';
import { createRoom, roomRow, seedUser, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`chat message expiration [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob'] });

    const rowsOf = async (roomId: number) =>
      t.p.services.db.kysely.selectFrom('chat_messages').select(['id', 'message_type', 'expires_at']).where('room_id', '=', roomId).execute();

    it('expired messages vanish from every read at once; the job deletes them', async () => {
      const room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Ephemeral' });
      await seedUser(t.p, room.token, 'bob');
      const set = await t.call('POST', `${V4}/room/${room.token}/message-expiration`, { as: as('alice'), body: { seconds: 2 } });
      assert.equal(set.status, 200, set.text);
      const sent = await t.call('POST', `${V1}/chat/${room.token}`, { as: as('alice'), body: { message: 'Gone soon' } });
      assert.equal(sent.status, 201);
      assert.equal(sent.data.expirationTimestamp, sent.data.timestamp + 2);
      const react = await t.call('POST', `${V1}/reaction/${room.token}/${sent.data.id}`, { as: as('bob'), body: { reaction: '👍' } });
      assert.equal(react.status, 201);
      const before = await t.call('GET', `${V4}/room/${room.token}`, { as: as('bob') });
      assert.equal(before.data.lastMessage.id, sent.data.id);
      assert.equal(before.data.unreadMessages, 1);

      await sleep(3100);
      const history = await t.call('GET', `${V1}/chat/${room.token}`, { as: as('bob'), query: { lookIntoFuture: 0 } });
      assert.ok(!history.data.some((m: any) => m.id === sent.data.id || m.parent?.id === sent.data.id), 'hidden before the job');
      const ctx = await t.call('GET', `${V1}/chat/${room.token}/${sent.data.id}/context`, { as: as('bob') });
      assert.ok(ctx.status === 304 || !ctx.data.some((m: any) => m.id === sent.data.id));
      const after = await t.call('GET', `${V4}/room/${room.token}`, { as: as('bob') });
      assert.equal(after.data.unreadMessages, 0);
      assert.notEqual(after.data.lastMessage?.id, sent.data.id);
      assert.equal((await t.call('GET', `${V1}/reaction/${room.token}/${sent.data.id}`, { as: as('bob') })).status, 404);

      const roomId = (await roomRow(t.p, room.token))!.id;
      const stored = await rowsOf(roomId);
      assert.ok(
        stored.some((r) => Number(r.id) === sent.data.id),
        'still stored until the job runs',
      );
      // The message, bob's reaction row (which carries the message's expiry) and the system
      // messages posted since the expiration was set.
      const expired = stored.filter((r) => Number(r.expires_at) > 0);
      assert.ok(expired.some((r) => r.message_type === 'reaction'));
      const job = jobs.find((j) => j.name === 'message-expiration')!;
      const out = await runJobIfDue(t.p.services, job, true);
      assert.equal(out.status, 'ok', out.error);
      assert.equal(out.summary, `${expired.length} messages deleted`);
      const left = await rowsOf(roomId);
      assert.ok(!left.some((r) => Number(r.id) === sent.data.id));
      assert.ok(
        left.every((r) => Number(r.expires_at) === 0),
        'only messages that never expire remain',
      );
      assert.equal((await runJobIfDue(t.p.services, job, true)).summary, '0 messages deleted');
    });

    it('messages sent without expiration are kept', async () => {
      const room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Kept' });
      const sent = await t.call('POST', `${V1}/chat/${room.token}`, { as: as('alice'), body: { message: 'Stays' } });
      assert.equal(sent.data.expirationTimestamp, 0);
      await runJobIfDue(
        t.p.services,
        jobs.find((j) => j.name === 'message-expiration')!,
        true,
      );
      const h = await t.call('GET', `${V1}/chat/${room.token}`, { as: as('alice'), query: { lookIntoFuture: 0 } });
      assert.ok(h.data.some((m: any) => m.id === sent.data.id));
    });
  });
}
