/**
 * Read markers where Talk sets them without a read (docs/reference/conversations.md#creation, docs/reference/participants.md; Talk's
 * ParticipantService::addUsers, joinRoomAsNewGuest, resetChatDetails and
 * ChatController::markUnread), over HTTP:
 * - whoever is added, however, has read the conversation up to its last message (the creator
 *   up to `conversation_created`), so nobody new drags X-Chat-Last-Common-Read down to 0;
 * - clearing the history puts every marker at -2, which reads as one unread message;
 * - marking unread when the newest messages are system messages leaves the newest chat message
 *   unread.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects, type Caller } from './helpers/parley.js';
import { attendeesOf, enterRoom, joinGuest } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley, V4 } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1';

for (const dialect of dialects()) {
  describe(`read markers Talk sets itself [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['owner', 'ann', 'ben', 'cat', 'dan'] });

    const record = async (token: string, who: string | Caller) => {
      const r = await t.call('GET', `${V4}/room/${token}`, { as: typeof who === 'string' ? as(who) : who });
      assert.equal(r.status, 200, r.text);
      return r.data;
    };
    const add = async (token: string, newParticipant: string, source: string) => {
      const r = await t.call('POST', `${V4}/room/${token}/participants`, { as: as('owner'), body: { newParticipant, source } });
      assert.equal(r.status, 200, r.text);
    };
    /** The newest messages, newest first, with X-Chat-Last-Common-Read. */
    const chat = async (token: string, who = 'owner') => {
      const r = await t.call('GET', `${V1}/chat/${token}`, { as: as(who), query: { lookIntoFuture: 0, limit: 20 } });
      assert.equal(r.status, 200, r.text);
      return { messages: r.data as any[], commonRead: Number(r.headers.get('x-chat-last-common-read')) };
    };
    const markerOf = async (token: string, actorType: string, actorId: string) =>
      (await attendeesOf(t.p, token)).find((a) => a.actor_type === actorType && a.actor_id === actorId)!.last_read_message;

    it('the creator has read conversation_created; a user added has read what was there before their user_added', async () => {
      const created = await t.call('POST', `${V4}/room`, { as: as('owner'), body: { roomType: RoomType.GROUP, roomName: 'Markers' } });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.data.lastMessage.systemMessage, 'conversation_created');
      assert.equal(created.data.lastReadMessage, created.data.lastMessage.id);
      assert.equal(created.data.unreadMessages, 0);
      const token = created.data.token;
      await t.say(token, 'owner', 'before ann');
      const before = (await chat(token)).messages[0].id;
      await add(token, 'ann', 'users');
      const ann = await record(token, 'ann');
      assert.equal(ann.lastReadMessage, before, 'the last message when she was added');
      assert.equal(ann.unreadMessages, 0);
      assert.equal(ann.lastMessage.systemMessage, 'user_added');
      // The common read is the lower of the two markers, not 0.
      assert.equal(ann.lastCommonReadMessage, before);
      assert.equal((await chat(token)).commonRead, before);
      // What comes after she was added is unread to her.
      await t.say(token, 'owner', 'welcome');
      assert.equal((await record(token, 'ann')).unreadMessages, 1);
    });

    it('one-to-one: both users have read conversation_created; the other user added back has read up to the message that re-adds them', async () => {
      const created = await t.call('POST', `${V4}/room`, { as: as('owner'), body: { roomType: RoomType.ONE_TO_ONE, invite: 'dan' } });
      assert.equal(created.status, 201, created.text);
      const token = created.data.token;
      const start = created.data.lastMessage.id;
      assert.equal(created.data.lastReadMessage, start);
      assert.equal((await record(token, 'dan')).lastReadMessage, start);
      assert.equal((await t.call('DELETE', `${V4}/room/${token}/participants/self`, { as: as('dan') })).status, 200);
      const earlier = await t.say(token, 'owner', 'still there?');
      const dan = await record(token, 'dan');
      assert.ok(dan.lastReadMessage > 0 && dan.lastReadMessage < earlier, `${dan.lastReadMessage} < ${earlier}`);
      assert.equal(dan.unreadMessages, 1, 'the message that brought him back is unread');
    });

    it('groups, teams, e-mail guests, guests and self-joins: each new attendee has read the last message', async () => {
      await t.services.directory.createGroup('readers');
      await t.services.directory.addToGroup('readers', 'ben');
      await t.services.teams.create('crew', 'Crew');
      await t.services.teams.addMember('crew', 'owner');
      await t.services.teams.addMember('crew', 'cat');
      const room = await t.newRoom('owner', { type: RoomType.PUBLIC });
      const token = room.token;
      const last = async () => (await chat(token)).messages[0].id as number;

      await add(token, 'readers', 'groups');
      // Talk's addGroup: group_added first, then the members, who have read it.
      assert.equal((await chat(token)).messages[1].systemMessage, 'group_added');
      assert.equal(await markerOf(token, 'users', 'ben'), (await chat(token)).messages[1].id);
      assert.equal(await markerOf(token, 'groups', 'readers'), 0, 'a group reads nothing itself');
      await add(token, 'crew', 'circles');
      assert.equal(await markerOf(token, 'users', 'cat'), (await chat(token)).messages[1].id);
      let expected = await last();
      await add(token, 'guest@example.com', 'emails');
      const email = (await attendeesOf(t.p, token)).find((a) => a.actor_type === 'emails')!;
      assert.equal(email.last_read_message, expected);

      expected = await last();
      const guest = await joinGuest(t.p, token);
      const guestRecord = await record(token, guest.caller);
      assert.equal(guestRecord.lastReadMessage, expected);
      assert.equal(guestRecord.unreadMessages, 0);

      // A self-joined user (public, type 5) and a user joining a listed conversation (type 3).
      expected = await last();
      const dan = await enterRoom(t.p, 'dan', token);
      assert.equal((await record(token, dan)).participantType, ParticipantType.USER_SELF_JOINED);
      assert.equal((await record(token, dan)).lastReadMessage, expected);
      const open = await t.newRoom('owner');
      assert.equal((await t.call('PUT', `${V4}/room/${open.token}/listable`, { as: as('owner'), body: { scope: 1 } })).status, 200);
      const openBefore = (await chat(open.token)).messages[0].id;
      await enterRoom(t.p, 'ann', open.token);
      const annOpen = await record(open.token, 'ann');
      assert.equal(annOpen.lastReadMessage, openBefore, 'read up to the message before her own user_added');
      assert.equal(annOpen.unreadMessages, 0);
      // The owner has read up to conversation_created (the listable change came after): the common read.
      assert.equal((await chat(open.token)).commonRead, (await record(open.token, 'owner')).lastReadMessage);
      assert.ok((await chat(open.token)).commonRead > 0);
    });

    it('breakout rooms: everyone put in a room has read its conversation_created', async () => {
      const parent = await t.newRoom('owner', { members: ['ann', 'ben'] });
      const r = await t.call('POST', `${V1}/breakout-rooms/${parent.token}`, { as: as('owner'), body: { mode: 1, amount: 1 } });
      assert.equal(r.status, 200, r.text);
      const [child] = await t.services.repos.rooms.childrenOf(parent.token);
      const messages = (await chat(child.token)).messages.reverse();
      assert.equal(messages[0].systemMessage, 'conversation_created');
      for (const who of ['owner', 'ann', 'ben']) assert.equal(await markerOf(child.token, 'users', who), messages[0].id, who);
      assert.equal((await chat(child.token)).commonRead, messages[0].id);
    });

    it('clearing the history: every marker at -2, one unread message (history_cleared) for each user until read', async () => {
      const room = await t.newRoom('owner', { members: ['ann', 'ben'] });
      await t.say(room.token, 'ann', 'one');
      await t.say(room.token, 'ben', 'two');
      const cleared = await t.call('DELETE', `${V1}/chat/${room.token}`, { as: as('owner') });
      assert.equal(cleared.status, 200, cleared.text);
      for (const who of ['owner', 'ann', 'ben']) {
        const r = await record(room.token, who);
        assert.deepEqual([r.lastReadMessage, r.unreadMessages, r.lastCommonReadMessage], [-2, 1, -2], who);
        assert.equal(r.lastMessage.id, cleared.data.id);
      }
      assert.equal((await chat(room.token, 'ann')).commonRead, -2);
      const read = await t.call('POST', `${V1}/chat/${room.token}/read`, { as: as('ann'), body: {} });
      assert.deepEqual([read.data.lastReadMessage, read.data.unreadMessages], [cleared.data.id, 0]);
      await t.say(room.token, 'owner', 'fresh start');
      assert.deepEqual([(await record(room.token, 'ann')).unreadMessages, (await record(room.token, 'ben')).unreadMessages], [1, 1]);
    });

    it('mark unread: after system messages the newest chat message is unread again; a chat message last, the one before it', async () => {
      const room = await t.newRoom('owner', { members: ['ann'] });
      const first = await t.say(room.token, 'ann', 'first');
      const second = await t.say(room.token, 'ann', 'second');
      assert.equal((await t.call('PUT', `${V4}/room/${room.token}/description`, { as: as('owner'), body: { description: 'topic' } })).status, 200);
      assert.equal((await t.call('PUT', `${V4}/room/${room.token}`, { as: as('owner'), body: { roomName: 'Renamed' } })).status, 200);
      const r = await t.call('DELETE', `${V1}/chat/${room.token}/read`, { as: as('owner') });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual([r.data.lastReadMessage, r.data.unreadMessages], [first, 1]);
      assert.equal((await record(room.token, 'owner')).unreadMessages, 1);
      const third = await t.say(room.token, 'ann', 'third');
      assert.ok(third > second);
      const again = await t.call('DELETE', `${V1}/chat/${room.token}/read`, { as: as('owner') });
      assert.deepEqual([again.data.lastReadMessage, again.data.unreadMessages], [second, 1]);
    });

    it('mark unread with only system messages: the message before the last; with nothing before, -2', async () => {
      const created = await t.call('POST', `${V4}/room`, { as: as('owner'), body: { roomType: RoomType.GROUP, roomName: 'Quiet' } });
      const token = created.data.token;
      const alone = await t.call('DELETE', `${V1}/chat/${token}/read`, { as: as('owner') });
      assert.deepEqual([alone.data.lastReadMessage, alone.data.unreadMessages], [-2, 1]);
      assert.equal((await t.call('PUT', `${V4}/room/${token}/description`, { as: as('owner'), body: { description: 'quiet' } })).status, 200);
      const r = await t.call('DELETE', `${V1}/chat/${token}/read`, { as: as('owner') });
      assert.deepEqual([r.data.lastReadMessage, r.data.unreadMessages], [created.data.lastMessage.id, 0]);
    });
  });
}
