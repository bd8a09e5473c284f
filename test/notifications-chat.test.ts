/**
 * Mention notifications fed by the chat through the event bus (Talk's notifier): a mention
 * notifies the mentioned user (not a silent message, not the author), and moving the read
 * marker past the message reads the notification, unless a long-poll asks to keep it.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, startParley, type Parley } from './helpers/parley.js';
import { createRoom, NO_THROTTLE, seedUser } from './helpers/rooms.js';
import { RoomType } from './helpers/fixtures.js';

const NOTES = '/ocs/v2.php/apps/notifications/api/v2/notifications';
const CHAT = '/apps/spreed/api/v1/chat';

for (const dialect of dialects()) {
  describe(`mention notifications [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      for (const u of ['alice', 'bob', 'carol']) await createUser(p, u);
    });
    after(async () => p.close());

    const chatNotes = async (user: string) => ((await call(p, 'GET', NOTES, { as: as(user) })).data as any[]).filter((n) => n.object_type === 'chat');
    const send = (user: string, token: string, body: Record<string, unknown>) => call(p, 'POST', `${CHAT}/${token}`, { as: as(user), body });

    it('a mention notifies the mentioned user; reading past it removes the notification', async () => {
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Mentions' });
      await seedUser(p, room.token, 'bob');
      await seedUser(p, room.token, 'carol');
      const sent = await send('alice', room.token, { message: 'Lunch, @bob?' });
      assert.equal(sent.status, 201, sent.text);
      const [note] = await chatNotes('bob');
      assert.ok(note, 'bob is notified');
      assert.equal(note.object_id, `${room.token}/${sent.data.id}`);
      // The message is shown with the mention, as Talk's notifier shows it.
      assert.equal(note.messageRich, 'Lunch, {mention-user1}?');
      assert.equal(note.messageRichParameters['mention-user1'].id, 'bob');
      assert.equal(note.message, 'Lunch, @bob?');
      assert.equal((await chatNotes('carol')).length, 0, 'not mentioned');
      assert.equal((await chatNotes('alice')).length, 0, 'not the author');

      const read = await call(p, 'POST', `${CHAT}/${room.token}/read`, { as: as('bob'), body: { lastReadMessage: sent.data.id } });
      assert.equal(read.status, 200, read.text);
      assert.equal((await chatNotes('bob')).length, 0);
    });

    it('a long-poll past the mention reads it; with markNotificationsAsRead=0 it is kept', async () => {
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Polling' });
      await seedUser(p, room.token, 'bob');
      const poll = (lastKnownMessageId: number, markNotificationsAsRead: number) =>
        call(p, 'GET', `${CHAT}/${room.token}`, {
          as: as('bob'),
          query: { lookIntoFuture: 1, timeout: 0, lastKnownMessageId, markNotificationsAsRead },
        });
      const first = await send('alice', room.token, { message: '@bob one' });
      const second = await send('alice', room.token, { message: '@bob two' });
      assert.equal((await chatNotes('bob')).length, 2);
      // The marker moves to the first, but the notifications stay (chat-keep-notifications).
      assert.equal((await poll(first.data.id, 0)).status, 200);
      const room1 = await call(p, 'GET', `/apps/spreed/api/v4/room/${room.token}`, { as: as('bob') });
      assert.equal(room1.data.lastReadMessage, first.data.id);
      assert.equal((await chatNotes('bob')).length, 2);
      // By default the marker moving reads the notifications up to it.
      assert.equal((await poll(second.data.id, 1)).status, 304);
      assert.equal((await chatNotes('bob')).length, 0);
    });

    it('a silent message notifies nobody', async () => {
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Quiet' });
      await seedUser(p, room.token, 'bob');
      assert.equal((await send('alice', room.token, { message: '@bob shh', silent: true })).status, 201);
      assert.equal((await chatNotes('bob')).length, 0);
    });
  });
}
