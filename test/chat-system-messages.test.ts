/**
 * System messages (docs/reference/chat.md#system-messages): each change of a conversation is recorded in its
 * chat by the service that makes it, in the same transaction, and moves lastMessage.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects } from './helpers/parley.js';
import { createRoom, seedUser, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`chat system messages [${dialect}]`, () => {
    const t = useParley(dialect);
    let room: any;
    let bobAttendee: number;
    before(async () => {
      await createUser(t.p, 'alice', { displayName: 'Alice A' });
      await createUser(t.p, 'bob', { displayName: 'Bob B' });
      room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Plans' });
      bobAttendee = (await seedUser(t.p, room.token, 'bob')).id;
    });

    const req = (method: string, path: string, who: string, body?: Record<string, unknown>) =>
      t.call(method, `${V4}/room/${room.token}${path}`, { as: as(who), body });
    const latest = async (who = 'bob') => (await t.call('GET', `${V1}/chat/${room.token}`, { as: as(who), query: { lookIntoFuture: 0, limit: 1 } })).data[0];

    it('conversation_created comes first, by the creator', async () => {
      const r = await t.call('GET', `${V1}/chat/${room.token}`, { as: as('bob'), query: { lookIntoFuture: 0 } });
      const first = r.data.at(-1);
      assert.equal(first.systemMessage, 'conversation_created');
      assert.equal(first.messageType, 'system');
      assert.equal(first.actorId, 'alice');
      assert.equal(first.message, '{actor} created the conversation');
      assert.equal(first.messageParameters.actor.name, 'Alice A');
      assert.equal(first.isReplyable, false);
      assert.equal(first.markdown, false);
    });

    const cases: Array<[string, string, string, Record<string, unknown>, string]> = [
      ['rename', 'PUT', '', { roomName: 'Plans 2' }, 'conversation_renamed'],
      ['description', 'PUT', '/description', { description: 'About' }, 'description_set'],
      ['description removed', 'PUT', '/description', { description: '' }, 'description_removed'],
      ['read-only', 'PUT', '/read-only', { state: 1 }, 'read_only'],
      ['read-write', 'PUT', '/read-only', { state: 0 }, 'read_only_off'],
      ['listable', 'PUT', '/listable', { scope: 1 }, 'listable_users'],
      ['lobby', 'PUT', '/webinar/lobby', { state: 1 }, 'lobby_non_moderators'],
      ['lobby off', 'PUT', '/webinar/lobby', { state: 0 }, 'lobby_none'],
      ['public', 'POST', '/public', {}, 'guests_allowed'],
      ['password', 'PUT', '/password', { password: 'a long enough secret' }, 'password_set'],
      ['private', 'DELETE', '/public', {}, 'guests_disallowed'],
      ['expiration', 'POST', '/message-expiration', { seconds: 3600 }, 'message_expiration_enabled'],
      ['expiration off', 'POST', '/message-expiration', { seconds: 0 }, 'message_expiration_disabled'],
    ];
    for (const [name, method, path, body, expected] of cases) {
      it(`${name} → ${expected}, and the room's lastMessage follows`, async () => {
        const r = await req(method, path, 'alice', body);
        assert.ok(r.status < 300, `${r.status} ${r.text}`);
        // Read as the moderator: bob would wait in the lobby (412) while it is closed.
        const m = await latest('alice');
        assert.equal(m.systemMessage, expected);
        assert.equal(m.actorId, 'alice');
        const rec = await t.call('GET', `${V4}/room/${room.token}`, { as: as('alice') });
        assert.equal(rec.data.lastMessage.id, m.id);
        // The change's answer already shows its own system message, as Talk formats the room after it.
        assert.deepEqual([r.data.lastMessage?.id, r.data.lastMessage?.systemMessage], [m.id, expected]);
      });
    }

    it('setting and removing the avatar answer the record whose lastMessage is avatar_set / avatar_removed', async () => {
      for (const [method, path, body, expected] of [
        ['POST', '/avatar/emoji', { emoji: '🚀', color: 'ff8800' }, 'avatar_set'],
        ['DELETE', '/avatar', undefined, 'avatar_removed'],
      ] as const) {
        const r = await t.call(method, `${V4}/room/${room.token}${path}`, { as: as('alice'), body });
        assert.equal(r.status, 200, r.text);
        const m = await latest('alice');
        assert.equal(m.systemMessage, expected);
        assert.deepEqual([r.data.lastMessage?.id, r.data.lastMessage?.systemMessage], [m.id, expected]);
      }
    });

    it('an unchanged value records nothing', async () => {
      const before = (await latest()).id;
      await req('PUT', '/read-only', 'alice', { state: 0 });
      await req('PUT', '/description', 'alice', { description: '' });
      assert.equal((await latest()).id, before);
    });

    it('moderator promoted and demoted name the user; bob reads "promoted you"', async () => {
      assert.equal((await req('POST', '/moderators', 'alice', { attendeeId: bobAttendee })).status, 200);
      const m = await latest();
      assert.equal(m.systemMessage, 'moderator_promoted');
      assert.equal(m.messageParameters.user.id, 'bob');
      assert.equal(m.message, '{actor} promoted you to moderator');
      assert.equal((await latest('alice')).message, 'You promoted {user} to moderator');
      assert.equal((await req('DELETE', '/moderators', 'alice', { attendeeId: bobAttendee })).status, 200);
      assert.equal((await latest()).systemMessage, 'moderator_demoted');
    });

    it('a refused change writes no message', async () => {
      const before = (await latest()).id;
      assert.equal((await req('PUT', '/read-only', 'bob', { state: 1 })).status, 403);
      assert.equal((await latest()).id, before);
    });
  });
}
