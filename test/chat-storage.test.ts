/**
 * Chat storage and ChatService writes (talk-chat-calls.md §1.1, §1.5 side effects): global ids,
 * system messages atomic with the caller's transaction, lastMessage/lastActivity, the author's
 * read marker, mention markers, expiration from the room.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createUser, dialects, startParley, type Parley } from './helpers/parley.js';
import { createRoom, roomRow, seedUser, setRoom } from './helpers/rooms.js';
import { SYSTEM_ACTOR } from '../src/domain/chat.js';
import { RoomType } from './helpers/fixtures.js';

for (const dialect of dialects()) {
  describe(`chat storage [${dialect}]`, () => {
    let p: Parley;
    let room1: any;
    let room2: any;
    before(async () => {
      p = await startParley(dialect);
      await createUser(p, 'alice');
      await createUser(p, 'bob');
      room1 = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'One' });
      room2 = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Two' });
      await seedUser(p, room1.token, 'bob');
    });
    after(async () => p.close());

    const post = async (token: string, text: string, mentions = { direct: [] as number[], indirect: [] as number[], userIds: [] as string[] }) => {
      const room = (await roomRow(p, token))!;
      const attendee = await p.services.repos.attendees.find(room.id, 'users', 'alice');
      return p.services.chat.postUserMessage(room, {
        actor: { type: 'users', id: 'alice', displayName: 'alice' },
        attendeeId: attendee!.id,
        message: text,
        parameters: {},
        parentId: null,
        referenceId: '',
        silent: false,
        canMentionAll: false,
        mentions,
      });
    };

    it('ids are global and increasing across rooms; the room points at its newest message', async () => {
      const a = await post(room1.token, 'one');
      const b = await post(room2.token, 'two');
      const c = await post(room1.token, 'three');
      assert.ok(a < b && b < c);
      assert.equal((await roomRow(p, room1.token))!.last_message, c);
      assert.equal((await roomRow(p, room2.token))!.last_message, b);
      const alice = await p.services.repos.attendees.find((await roomRow(p, room1.token))!.id, 'users', 'alice');
      assert.equal(alice!.last_read_message, c, "the author's read marker moves to their message");
    });

    it('a system message is written in the caller transaction and vanishes with its rollback', async () => {
      const room = (await roomRow(p, room1.token))!;
      await assert.rejects(
        p.services.db.kysely.transaction().execute(async (trx) => {
          await p.services.chat.postSystemMessage(trx, room, SYSTEM_ACTOR, 'read_only');
          throw new Error('roll back');
        }),
      );
      assert.equal((await roomRow(p, room1.token))!.last_message, room.last_message);
      const id = await p.services.db.kysely.transaction().execute((trx) => p.services.chat.postSystemMessage(trx, room, SYSTEM_ACTOR, 'read_only'));
      assert.ok(id > room.last_message);
      assert.equal((await roomRow(p, room1.token))!.last_message, id);
    });

    it('mentions set last_mention_message, direct ones also last_mention_direct', async () => {
      const room = (await roomRow(p, room1.token))!;
      const bob = (await p.services.repos.attendees.find(room.id, 'users', 'bob'))!;
      const id1 = await post(room1.token, 'hey all', { direct: [], indirect: [bob.id], userIds: ['bob'] });
      let row = (await p.services.repos.attendees.find(room.id, 'users', 'bob'))!;
      assert.equal(row.last_mention_message, id1);
      assert.equal(row.last_mention_direct, 0);
      const id2 = await post(room1.token, 'hey bob', { direct: [bob.id], indirect: [], userIds: ['bob'] });
      row = (await p.services.repos.attendees.find(room.id, 'users', 'bob'))!;
      assert.equal(row.last_mention_message, id2);
      assert.equal(row.last_mention_direct, id2);
    });

    it('deleting a conversation deletes its messages', async () => {
      const doomed = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Doomed' });
      const id = (await roomRow(p, doomed.token))!.id;
      await post(doomed.token, 'bye');
      const count = async () => (await p.services.db.kysely.selectFrom('chat_messages').select('id').where('room_id', '=', id).execute()).length;
      assert.ok((await count()) >= 2);
      await p.services.rooms.deleteRooms([(await roomRow(p, doomed.token))!]);
      assert.equal(await count(), 0);
    });

    it("new messages expire after the room's message expiration", async () => {
      await setRoom(p, room2.token, { message_expiration: 3600 });
      const id = await post(room2.token, 'short-lived');
      const [row] = await p.services.db.kysely.selectFrom('chat_messages').selectAll().where('id', '=', id).execute();
      assert.ok(Math.abs(Number(row.expires_at) - (Number(row.created_at) + 3600)) <= 1);
    });
  });
}
