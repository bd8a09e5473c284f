/**
 * Chat storage and ChatService writes (docs/reference/chat.md#common-rules, docs/reference/chat.md#sending side effects): global ids,
 * system messages atomic with the caller's transaction, lastMessage/lastActivity, the author's
 * read marker, mention markers, expiration from the room.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { dialects } from './helpers/parley.js';
import { createRoom, roomRow, seedUser, setRoom } from './helpers/rooms.js';
import { SYSTEM_ACTOR } from '../src/domain/chat.js';
import type { MentionedAttendees } from '../src/services/chat/chat.js';
import { RoomType, useParley } from './helpers/fixtures.js';

for (const dialect of dialects()) {
  describe(`chat storage [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob'] });
    let room1: any;
    let room2: any;
    before(async () => {
      room1 = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'One' });
      room2 = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Two' });
      await seedUser(t.p, room1.token, 'bob');
    });

    const post = async (token: string, text: string, mentions: MentionedAttendees = { direct: [], indirect: [], notices: [] }) => {
      const room = (await roomRow(t.p, token))!;
      const attendee = await t.p.services.repos.attendees.find(room.id, 'users', 'alice');
      const posted = await t.p.services.chat.postUserMessage(room, {
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
      return posted.id;
    };

    it('ids are global and increasing across rooms; the room points at its newest message', async () => {
      const a = await post(room1.token, 'one');
      const b = await post(room2.token, 'two');
      const c = await post(room1.token, 'three');
      assert.ok(a < b && b < c);
      assert.equal((await roomRow(t.p, room1.token))!.last_message, c);
      assert.equal((await roomRow(t.p, room2.token))!.last_message, b);
      const alice = await t.p.services.repos.attendees.find((await roomRow(t.p, room1.token))!.id, 'users', 'alice');
      assert.equal(alice!.last_read_message, c, "the author's read marker moves to their message");
    });

    it('a system message is written in the caller transaction and vanishes with its rollback', async () => {
      const room = (await roomRow(t.p, room1.token))!;
      await assert.rejects(
        t.p.services.db.kysely.transaction().execute(async (trx) => {
          await t.p.services.chat.postSystemMessage(trx, room, SYSTEM_ACTOR, 'read_only');
          throw new Error('roll back');
        }),
        /roll back/,
        'only the thrown error, not a failing write, rolls back',
      );
      assert.equal((await roomRow(t.p, room1.token))!.last_message, room.last_message);
      const id = await t.p.services.db.kysely.transaction().execute((trx) => t.p.services.chat.postSystemMessage(trx, room, SYSTEM_ACTOR, 'read_only'));
      assert.ok(id > room.last_message);
      assert.equal((await roomRow(t.p, room1.token))!.last_message, id);
    });

    it('mentions set last_mention_message, direct ones also last_mention_direct', async () => {
      const room = (await roomRow(t.p, room1.token))!;
      const bob = (await t.p.services.repos.attendees.find(room.id, 'users', 'bob'))!;
      const id1 = await post(room1.token, 'hey all', { direct: [], indirect: [bob.id], notices: [{ userId: 'bob', reason: 'all' }] });
      let row = (await t.p.services.repos.attendees.find(room.id, 'users', 'bob'))!;
      assert.equal(row.last_mention_message, id1);
      assert.equal(row.last_mention_direct, 0);
      const id2 = await post(room1.token, 'hey bob', { direct: [bob.id], indirect: [], notices: [{ userId: 'bob', reason: 'direct' }] });
      row = (await t.p.services.repos.attendees.find(room.id, 'users', 'bob'))!;
      assert.equal(row.last_mention_message, id2);
      assert.equal(row.last_mention_direct, id2);
    });

    it('deleting a conversation deletes its messages', async () => {
      const doomed = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Doomed' });
      const id = (await roomRow(t.p, doomed.token))!.id;
      await post(doomed.token, 'bye');
      const count = async () => (await t.p.services.db.kysely.selectFrom('chat_messages').select('id').where('room_id', '=', id).execute()).length;
      assert.ok((await count()) >= 2);
      await t.p.services.rooms.deleteRooms([(await roomRow(t.p, doomed.token))!]);
      assert.equal(await count(), 0);
    });

    it("new messages expire after the room's message expiration", async () => {
      await setRoom(t.p, room2.token, { message_expiration: 3600 });
      const id = await post(room2.token, 'short-lived');
      const [row] = await t.p.services.db.kysely.selectFrom('chat_messages').selectAll().where('id', '=', id).execute();
      assert.ok(Math.abs(Number(row.expires_at) - (Number(row.created_at) + 3600)) <= 1);
    });
  });
}
