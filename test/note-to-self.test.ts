/**
 * The note-to-self conversation (docs/reference/conversations.md#note-to-self, docs/reference/conversations.md#the-conversation-record):
 * `GET /room/note-to-self` creates it on first demand as Talk does (type 6, "Note to self",
 * objectType `note_to_self` with the user's id, Talk's description, the 📝 emoji avatar, a
 * favorite, `conversation_created` by the system) and answers the same one after; guests and
 * anonymous callers get 401; nobody can be added to it and no call can start in it; leaving it
 * deletes it, and the next request creates a new one; one per user under simultaneous requests
 * (two processes: races.test.ts). JSON and XML, SQLite and PostgreSQL.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects } from './helpers/parley.js';
import { createRoom, enterRoom, joinGuest, NO_THROTTLE, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1';
const NOTES = `${V4}/room/note-to-self`;

for (const dialect of dialects()) {
  describe(`note-to-self [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE });
    before(async () => {
      for (const u of ['alice', 'bob', 'carol']) await createUser(t.p, u, { displayName: u.toUpperCase() });
    });
    const notes = (who: string, opts: Record<string, unknown> = {}) => t.call('GET', NOTES, { as: as(who), ...opts });
    const noteRooms = async () =>
      t.p.services.db.kysely.selectFrom('rooms').select(['id', 'token', 'object_id']).where('type', '=', RoomType.NOTE_TO_SELF).execute();

    it('the first request creates it as Talk does; the next ones answer the same conversation', async () => {
      const r = await notes('alice');
      assert.equal(r.status, 200, r.text);
      const d = r.data;
      assert.deepEqual(
        [d.type, d.name, d.displayName, d.description, d.objectType, d.objectId],
        [RoomType.NOTE_TO_SELF, 'Note to self', 'Note to self', 'A place for your private notes, thoughts and ideas', 'note_to_self', 'alice'],
      );
      assert.deepEqual([d.participantType, d.isFavorite, d.isCustomAvatar, d.canLeaveConversation, d.canStartCall], [1, true, true, false, false]);
      assert.deepEqual([d.lastMessage.systemMessage, d.lastMessage.actorType, d.lastMessage.actorId], ['conversation_created', 'guests', 'system']);
      assert.match(r.headers.get('x-nextcloud-talk-hash') ?? '', /^[0-9a-f]{40}$/);
      const again = await notes('alice');
      assert.equal(again.status, 200);
      assert.equal(again.data.token, d.token);
      // No description or avatar message: the creation is the only one.
      const chat = await t.call('GET', `${V1}/chat/${d.token}`, { as: as('alice'), query: { lookIntoFuture: 0 } });
      assert.deepEqual(
        chat.data.map((m: any) => m.systemMessage),
        ['conversation_created'],
      );
      // The emoji avatar is served.
      const avatar = await t.call('GET', `${V1}/room/${d.token}/avatar`, { as: as('alice') });
      assert.equal(avatar.status, 200);
      assert.match(avatar.text, /📝/);
      // Each user has their own.
      const bob = await notes('bob');
      assert.notEqual(bob.data.token, d.token);
      assert.equal(bob.data.objectId, 'bob');
      assert.equal((await noteRooms()).filter((n) => n.object_id === 'alice').length, 1);
      // Only its owner is in it: another user does not find it.
      assert.equal((await t.call('GET', `${V4}/room/${d.token}`, { as: as('bob') })).status, 404);
    });

    it('simultaneous first requests of one user make one conversation', async () => {
      const answers = await Promise.all(Array.from({ length: 8 }, () => notes('carol')));
      assert.deepEqual(
        answers.map((a) => a.status),
        Array(8).fill(200),
      );
      assert.equal(new Set(answers.map((a) => a.data.token)).size, 1);
      assert.equal((await noteRooms()).filter((n) => n.object_id === 'carol').length, 1);
    });

    it('401 for guests and anonymous callers', async () => {
      const room = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Open' });
      const guest = await joinGuest(t.p, room.token);
      assert.equal((await t.call('GET', NOTES, { as: guest.caller })).status, 401);
      assert.equal((await t.call('GET', NOTES, {})).status, 401);
    });

    it('nobody can be added and no call starts; its owner chats and edits without the 24-hour limit', async () => {
      const token = (await notes('alice')).data.token;
      const add = await t.call('POST', `${V4}/room/${token}/participants`, { as: as('alice'), body: { newParticipant: 'bob', source: 'users' } });
      assert.deepEqual([add.status, add.data.error], [400, 'room-type']);
      const sent = await t.call('POST', `${V1}/chat/${token}`, { as: as('alice'), body: { message: 'Buy milk' } });
      assert.equal(sent.status, 201, sent.text);
      await t.p.services.db.kysely
        .updateTable('chat_messages')
        .set({ created_at: Math.floor(Date.now() / 1000) - 3 * 86400 })
        .where('id', '=', sent.data.id)
        .execute();
      const edit = await t.call('PUT', `${V1}/chat/${token}/${sent.data.id}`, { as: as('alice'), body: { message: 'Buy oat milk' } });
      assert.equal(edit.status, 200, edit.text);
      // With a room session (as a call needs), the call is refused for the conversation's kind.
      const inRoom = await enterRoom(t.p, 'alice', token);
      const call = await t.call('POST', `/apps/spreed/api/v4/call/${token}`, { as: inRoom });
      assert.deepEqual([call.status, call.data.error], [400, 'type'], 'no call in a note-to-self');
    });

    it('leaving deletes it; the next request creates a new one', async () => {
      const first = (await notes('bob')).data.token;
      assert.equal((await t.call('DELETE', `${V4}/room/${first}/participants/self`, { as: as('bob') })).status, 200);
      assert.equal((await noteRooms()).filter((n) => n.object_id === 'bob').length, 0);
      const second = await notes('bob');
      assert.equal(second.status, 200);
      assert.notEqual(second.data.token, first);
    });

    it('XML, and the capability (also local)', async () => {
      const x = await notes('alice', { format: 'xml' });
      assert.equal(x.status, 200);
      assert.match(x.text, /<type>6<\/type>/);
      assert.match(x.text, /<objectType>note_to_self<\/objectType>/);
      const spreed = (await t.call('GET', '/cloud/capabilities', { as: as('alice') })).data.capabilities.spreed;
      assert.ok(spreed.features.includes('note-to-self'));
      assert.ok(spreed['features-local'].includes('note-to-self'));
    });
  });
}
