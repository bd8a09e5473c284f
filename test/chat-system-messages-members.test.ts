/**
 * System messages for membership, avatars and lobby timers (docs/reference/chat.md#system-messages user_added,
 * user_removed, group_*, circle_*, avatar_*, lobby_timer_reached): written in the change's
 * transaction, with the acting participant as actor, and lastMessage follows.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects } from './helpers/parley.js';
import { ActorType, ParticipantType, RoomType, useParley, V4 } from './helpers/fixtures.js';
import { attendeesOf, countQueries, enterRoom, setRoom } from './helpers/rooms.js';

const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`chat system messages: members, avatar, lobby timer [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['owner', 'ann', 'ben', 'cat'] });

    /** The newest `limit` messages as `who` reads them, newest first. */
    const chat = (token: string, who = 'owner', limit = 10) => t.history(token, who, limit);
    async function lastMessageId(token: string, who = 'owner'): Promise<number> {
      const r = await t.call('GET', `${V4}/room/${token}`, { as: as(who) });
      assert.equal(r.status, 200, r.text);
      return r.data.lastMessage.id;
    }
    const add = (token: string, newParticipant: string, source: string, who = 'owner') =>
      t.call('POST', `${V4}/room/${token}/participants`, { as: as(who), body: { newParticipant, source } });
    const attendeeId = async (token: string, actorType: string, actorId: string) =>
      (await attendeesOf(t.p, token)).find((a) => a.actor_type === actorType && a.actor_id === actorId)!.id;

    it('a new conversation answers with its conversation_created message as lastMessage', async () => {
      const r = await t.call('POST', `${V4}/room`, { as: as('owner'), body: { roomType: RoomType.GROUP, roomName: 'Fresh' } });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.data.lastMessage.systemMessage, 'conversation_created');
      assert.equal(r.data.lastMessage.actorId, 'owner');
      const direct = await t.call('POST', `${V4}/room`, { as: as('owner'), body: { roomType: RoomType.ONE_TO_ONE, invite: 'ann' } });
      assert.equal(direct.status, 201, direct.text);
      assert.equal(direct.data.lastMessage.systemMessage, 'conversation_created');
    });

    it('adding a user records user_added by the moderator, naming the user; lastMessage follows', async () => {
      const room = await t.newRoom('owner');
      assert.equal((await add(room.token, 'ann', 'users')).status, 200);
      const [m] = await chat(room.token);
      assert.equal(m.systemMessage, 'user_added');
      assert.equal(m.actorType, 'users');
      assert.equal(m.actorId, 'owner');
      assert.deepEqual(m.messageParameters.user, { type: 'user', id: 'ann', name: 'ann', 'mention-id': 'ann' });
      assert.equal(m.message, 'You added {user}');
      assert.equal((await chat(room.token, 'ann'))[0].message, '{actor} added you');
      assert.equal(await lastMessageId(room.token), m.id);
      // Adding an existing member again records nothing.
      assert.equal((await add(room.token, 'ann', 'users')).status, 200);
      assert.equal((await chat(room.token))[0].id, m.id);
    });

    it('removing a user records user_removed by the moderator; leaving records it by the leaver', async () => {
      const room = await t.newRoom('owner', { members: ['ann', 'ben'] });
      const ann = await attendeeId(room.token, ActorType.USERS, 'ann');
      assert.equal((await t.call('DELETE', `${V4}/room/${room.token}/attendees`, { as: as('owner'), body: { attendeeId: ann } })).status, 200);
      const [removed] = await chat(room.token);
      assert.equal(removed.systemMessage, 'user_removed');
      assert.equal(removed.actorId, 'owner');
      assert.equal(removed.messageParameters.user.id, 'ann');
      assert.equal(await lastMessageId(room.token), removed.id);

      assert.equal((await t.call('DELETE', `${V4}/room/${room.token}/participants/self`, { as: as('ben') })).status, 200);
      const [left] = await chat(room.token);
      assert.equal(left.systemMessage, 'user_removed');
      assert.equal(left.actorId, 'ben');
      assert.equal(left.messageParameters.user.id, 'ben');
    });

    it('a self-joined user leaving a listable room records nothing; made a member, it is user_added', async () => {
      const room = await t.newRoom('owner', { type: RoomType.PUBLIC });
      await enterRoom(t.p, 'cat', room.token);
      const cat = (await attendeesOf(t.p, room.token)).find((a) => a.actor_id === 'cat')!;
      assert.equal(cat.participant_type, ParticipantType.USER_SELF_JOINED);
      const before = (await chat(room.token))[0].id;
      assert.equal((await t.call('DELETE', `${V4}/room/${room.token}/participants/self`, { as: as('cat') })).status, 200);
      assert.equal((await chat(room.token))[0].id, before, 'no message for a self-joined user leaving');

      await enterRoom(t.p, 'cat', room.token);
      assert.equal((await add(room.token, 'cat', 'users')).status, 200);
      const [m] = await chat(room.token);
      assert.equal(m.systemMessage, 'user_added');
      assert.equal(m.messageParameters.user.id, 'cat');
    });

    it('joining an open (listable) conversation is user_added by the one who joined; joining a public one is not recorded', async () => {
      const open = await t.newRoom('owner');
      assert.equal((await t.call('PUT', `${V4}/room/${open.token}/listable`, { as: as('owner'), body: { scope: 1 } })).status, 200);
      const before = await lastMessageId(open.token);
      await enterRoom(t.p, 'ben', open.token);
      const ben = (await attendeesOf(t.p, open.token)).find((a) => a.actor_id === 'ben')!;
      assert.equal(ben.participant_type, ParticipantType.USER);
      const [m] = await chat(open.token);
      assert.ok(m.id > before);
      assert.deepEqual([m.systemMessage, m.actorType, m.actorId], ['user_added', 'users', 'ben']);
      assert.deepEqual(m.messageParameters.user, { type: 'user', id: 'ben', name: 'ben', 'mention-id': 'ben' });
      assert.equal(m.message, '{actor} joined the conversation');
      assert.equal((await chat(open.token, 'ben'))[0].message, 'You joined the conversation');
      assert.equal(await lastMessageId(open.token), m.id);
      // Joining again (already a member) records nothing more.
      await enterRoom(t.p, 'ben', open.token);
      assert.equal((await chat(open.token))[0].id, m.id);

      const pub = await t.newRoom('owner', { type: RoomType.PUBLIC });
      const last = await lastMessageId(pub.token);
      await enterRoom(t.p, 'ben', pub.token);
      assert.equal((await chat(pub.token))[0].id, last, 'a self-joined (type 5) user is not recorded');
    });

    it('a group: group_added, then its members user_added; removing it records group_removed', async () => {
      await t.services.directory.createGroup('crew');
      await t.services.directory.addToGroup('crew', 'ann');
      await t.services.directory.addToGroup('crew', 'ben');
      const room = await t.newRoom('owner');
      assert.equal((await add(room.token, 'crew', 'groups')).status, 200);
      const [...users] = await chat(room.token, 'owner', 3);
      const group = users.pop()!;
      assert.equal(group.systemMessage, 'group_added');
      assert.deepEqual(group.messageParameters.group, { type: 'group', id: 'crew', name: 'crew', 'mention-id': 'user-group/crew' });
      assert.deepEqual(users.map((m) => [m.systemMessage, m.messageParameters.user.id]).sort(), [
        ['user_added', 'ann'],
        ['user_added', 'ben'],
      ]);
      assert.equal(await lastMessageId(room.token), users[0].id);

      const crew = await attendeeId(room.token, ActorType.GROUPS, 'crew');
      assert.equal((await t.call('DELETE', `${V4}/room/${room.token}/attendees`, { as: as('owner'), body: { attendeeId: crew } })).status, 200);
      // The group first, then the members only it kept here (chat-system-messages-sync.test.ts).
      const [m] = (await chat(room.token, 'owner', 3)).reverse();
      assert.equal(m.systemMessage, 'group_removed');
      assert.equal(m.messageParameters.group.id, 'crew');
    });

    it('a group is recorded with its members in the same number of statements whatever its size', async () => {
      await t.services.directory.createGroup('pair');
      for (const u of ['ann', 'ben']) await t.services.directory.addToGroup('pair', u);
      const crowd = Array.from({ length: 40 }, (_, i) => `crowd${i}`);
      for (const id of crowd) await createUser(t.p, id, { groups: ['crowd'] });
      const addCounted = async (group: string): Promise<{ token: string; n: number }> => {
        const room = await t.newRoom('owner');
        const n = await countQueries(t.p, async () => {
          assert.equal((await add(room.token, group, 'groups')).status, 200);
          await t.services.signalingNotifier.idle();
        });
        return { token: room.token, n };
      };
      await addCounted('pair'); // warm-up (cached credentials and config)
      const small = await addCounted('pair');
      const large = await addCounted('crowd');
      assert.equal(large.n, small.n, '40 members cost what 2 cost');
      const messages = (await chat(large.token, 'owner', 50)).reverse().filter((m) => m.systemMessage !== 'conversation_created');
      assert.equal(messages[0].systemMessage, 'group_added');
      assert.deepEqual(
        messages
          .slice(1)
          .map((m) => m.messageParameters.user.id)
          .sort(),
        [...crowd].sort(),
      );
      assert.ok(messages.slice(1).every((m) => m.systemMessage === 'user_added'));
      assert.equal(await lastMessageId(large.token), messages[messages.length - 1].id);
    });

    it('a team: circle_added and circle_removed', async () => {
      await t.services.teams.create('makers', 'Makers');
      await t.services.teams.addMember('makers', 'owner');
      const room = await t.newRoom('owner');
      assert.equal((await add(room.token, 'makers', 'circles')).status, 200);
      const [m] = await chat(room.token);
      assert.equal(m.systemMessage, 'circle_added');
      assert.deepEqual(m.messageParameters.circle, { type: 'circle', id: 'makers', name: 'Makers', 'mention-id': 'team/makers' });
      const makers = await attendeeId(room.token, ActorType.CIRCLES, 'makers');
      assert.equal((await t.call('DELETE', `${V4}/room/${room.token}/attendees`, { as: as('owner'), body: { attendeeId: makers } })).status, 200);
      assert.equal((await chat(room.token))[0].systemMessage, 'circle_removed');
    });

    it('e-mail guests are not recorded (as in Talk)', async () => {
      const room = await t.newRoom('owner', { type: RoomType.PUBLIC });
      const before = (await chat(room.token))[0].id;
      assert.equal((await add(room.token, 'guest@example.com', 'emails')).status, 200);
      assert.equal((await chat(room.token))[0].id, before);
    });

    it('avatar_set and avatar_removed, by the moderator; lastMessage follows', async () => {
      const room = await t.newRoom('owner');
      const set = await t.call('POST', `${V1}/room/${room.token}/avatar/emoji`, { as: as('owner'), body: { emoji: '🚀', color: 'ff8800' } });
      assert.equal(set.status, 200, set.text);
      const [m] = await chat(room.token);
      assert.equal(m.systemMessage, 'avatar_set');
      assert.equal(m.actorId, 'owner');
      assert.equal(await lastMessageId(room.token), m.id);
      assert.equal((await t.call('DELETE', `${V1}/room/${room.token}/avatar`, { as: as('owner') })).status, 200);
      assert.equal((await chat(room.token))[0].systemMessage, 'avatar_removed');
    });

    it('a passed lobby timer: lobby_timer_reached by guests/system, once, whoever lifts it', async () => {
      const room = await t.newRoom('owner', { members: ['ann'] });
      await setRoom(t.p, room.token, { lobby_state: 1, lobby_timer: Math.floor(Date.now() / 1000) - 10 });
      // Two readers at once (the record and the chat): one lift, one message.
      const [, record] = await Promise.all([chat(room.token, 'ann'), t.call('GET', `${V4}/room/${room.token}`, { as: as('owner') })]);
      assert.equal(record.status, 200);
      assert.equal(record.data.lobbyState, 0);
      const msgs = await chat(room.token, 'ann');
      assert.equal(msgs[0].systemMessage, 'lobby_timer_reached');
      assert.equal(msgs[0].actorType, 'guests');
      assert.equal(msgs[0].actorId, 'system');
      assert.equal(msgs[0].message, 'The conversation is now open to everyone');
      assert.equal(msgs.filter((m) => m.systemMessage === 'lobby_timer_reached').length, 1);
      assert.equal(await lastMessageId(room.token), msgs[0].id);

      // The lobby-timer job lifts (and records) the ones nobody reads.
      const other = await t.newRoom('owner');
      await setRoom(t.p, other.token, { lobby_state: 1, lobby_timer: Math.floor(Date.now() / 1000) - 10 });
      assert.ok((await t.services.housekeeping.liftExpiredLobbies(Math.floor(Date.now() / 1000))) >= 1);
      assert.equal((await chat(other.token))[0].systemMessage, 'lobby_timer_reached');
    });
  });
}
