/**
 * Chat notifications fed by the chat through the event bus (Talk's Chat\Notifier): a message
 * notifies the author of the message it replies to (`reply`), the users it mentions (directly,
 * through a group or @all), and then everybody notified of every message (notification level
 * "always": the default in one-to-ones, and in groups while `default_group_notification` is 1)
 * who is not reading the conversation right now (`chat`). Never the author, never a silent
 * message, each user once. Moving the read marker past the message reads the notifications,
 * unless a long-poll asks to keep them.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, call, createUser, dialects, startParley, type Parley } from './helpers/parley.js';
import { createRoom, NO_THROTTLE, seedUser } from './helpers/rooms.js';
import { RoomType } from './helpers/fixtures.js';

const NOTES = '/ocs/v2.php/apps/notifications/api/v2/notifications';
const CHAT = '/apps/spreed/api/v1/chat';
const V4 = '/apps/spreed/api/v4';

for (const dialect of dialects()) {
  describe(`chat notifications [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      for (const u of ['alice', 'bob', 'carol', 'dave']) await createUser(p, u, { displayName: u.toUpperCase() });
    });
    after(async () => p.close());

    /** The user's chat notifications of one conversation. */
    const chatNotes = async (user: string, token: string) =>
      ((await call(p, 'GET', NOTES, { as: as(user) })).data as any[]).filter((n) => n.object_type === 'chat' && n.object_id.startsWith(`${token}/`));
    const send = (user: string, token: string, body: Record<string, unknown>) => call(p, 'POST', `${CHAT}/${token}`, { as: as(user), body });
    const setLevel = (user: string, token: string, level: number) => call(p, 'POST', `${V4}/room/${token}/notify`, { as: as(user), body: { level } });
    const attendeeIdOf = async (token: string, user: string) => {
      const r = await call(p, 'GET', `${V4}/room/${token}/participants`, { as: as('alice') });
      return r.data.find((x: any) => x.actorId === user).attendeeId as number;
    };

    it('a mention notifies the mentioned user with the message; the others of the group are told a message came; reading removes them', async () => {
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Mentions' });
      for (const u of ['bob', 'carol', 'dave']) await seedUser(p, room.token, u);
      assert.equal((await setLevel('dave', room.token, 2)).status, 200, 'dave: mentions only');
      const sent = await send('alice', room.token, { message: 'Lunch, @bob?' });
      assert.equal(sent.status, 201, sent.text);
      const [note] = await chatNotes('bob', room.token);
      assert.ok(note, 'bob is notified');
      assert.equal(note.subject, 'ALICE mentioned you in conversation Mentions');
      assert.equal(note.object_id, `${room.token}/${sent.data.id}`);
      // The message is shown with the mention, as Talk's notifier shows it.
      assert.equal(note.messageRich, 'Lunch, {mention-user1}?');
      assert.equal(note.messageRichParameters['mention-user1'].id, 'bob');
      assert.equal(note.message, 'Lunch, @BOB?');
      const carol = await chatNotes('carol', room.token);
      assert.deepEqual(
        carol.map((n) => n.subject),
        ['ALICE sent a message in conversation Mentions'],
        'the default in a group is "always" (default_group_notification 1)',
      );
      assert.equal(carol[0].message, 'Lunch, @BOB?');
      assert.equal((await chatNotes('dave', room.token)).length, 0, 'mentions only, not mentioned');
      assert.equal((await chatNotes('alice', room.token)).length, 0, 'not the author');

      const read = await call(p, 'POST', `${CHAT}/${room.token}/read`, { as: as('bob'), body: { lastReadMessage: sent.data.id } });
      assert.equal(read.status, 200, read.text);
      assert.equal((await chatNotes('bob', room.token)).length, 0);
    });

    it('default_group_notification 2: in groups only mentions notify; one-to-ones still notify every message', async () => {
      assert.equal(
        (await call(p, 'POST', '/apps/provisioning_api/api/v1/config/apps/spreed/default_group_notification', { as: admin, form: { value: '2' } })).status,
        200,
      );
      try {
        const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Mentions only' });
        await seedUser(p, room.token, 'carol');
        assert.equal((await send('alice', room.token, { message: 'Anyone?' })).status, 201);
        assert.equal((await chatNotes('carol', room.token)).length, 0);
        const one = await createRoom(p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'carol' });
        assert.equal((await send('alice', one.token, { message: 'Psst' })).status, 201);
        const [dm] = await chatNotes('carol', one.token);
        assert.equal(dm.subject, 'ALICE sent you a private message');
        assert.equal(dm.message, 'Psst');
      } finally {
        await call(p, 'DELETE', '/apps/provisioning_api/api/v1/config/apps/spreed/default_group_notification', { as: admin });
      }
    });

    it('somebody reading the conversation (a session pinged in the last 30 s) is not told of every message, but still of mentions', async () => {
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Online' });
      for (const u of ['bob', 'carol']) await seedUser(p, room.token, u);
      assert.equal((await call(p, 'POST', `${V4}/room/${room.token}/participants/active`, { as: as('carol') })).status, 200);
      assert.equal((await send('alice', room.token, { message: 'Hello all' })).status, 201);
      assert.equal((await chatNotes('carol', room.token)).length, 0, 'carol is reading');
      assert.equal((await chatNotes('bob', room.token)).length, 1, 'bob is not');
      assert.equal((await send('alice', room.token, { message: '@carol look' })).status, 201);
      assert.deepEqual(
        (await chatNotes('carol', room.token)).map((n) => n.subject),
        ['ALICE mentioned you in conversation Online'],
      );
    });

    it('a reply notifies the author replied to; @all and group mentions are worded as Talk; each user once', async () => {
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Team' });
      for (const u of ['bob', 'carol', 'dave']) await seedUser(p, room.token, u);
      for (const u of ['carol', 'dave']) assert.equal((await setLevel(u, room.token, 2)).status, 200);
      const first = await send('bob', room.token, { message: 'Who is in?' });
      const reply = await send('alice', room.token, { message: 'Me, @bob and @all', replyTo: first.data.id });
      assert.equal(reply.status, 201);
      assert.deepEqual(
        (await chatNotes('bob', room.token)).map((n) => n.subject),
        ['ALICE replied to your message in conversation Team'],
        'the reply comes first; bob is not notified again for the mention',
      );
      assert.deepEqual(
        (await chatNotes('carol', room.token)).map((n) => n.subject),
        ['ALICE mentioned everyone in conversation Team'],
      );

      assert.equal((await call(p, 'POST', '/cloud/groups', { as: admin, form: { groupid: 'crew' } })).status, 200);
      assert.equal((await call(p, 'POST', '/cloud/users/dave/groups', { as: admin, form: { groupid: 'crew' } })).status, 200);
      assert.equal(
        (await call(p, 'POST', `${V4}/room/${room.token}/participants`, { as: as('alice'), body: { newParticipant: 'crew', source: 'groups' } })).status,
        200,
      );
      const grp = await send('alice', room.token, { message: 'Ping @"group/crew"' });
      assert.equal(grp.status, 201, grp.text);
      const dave = (await chatNotes('dave', room.token)).find((n) => n.object_id === `${room.token}/${grp.data.id}`);
      assert.equal(dave.subject, 'ALICE mentioned group crew in conversation Team');
      assert.deepEqual(dave.subjectRichParameters.group, { type: 'user-group', id: 'crew', name: 'crew' });
    });

    it('a shared location and a poll notify as messages do (docs/reference/chat.md#shared-objects), named by the object', async () => {
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Shares' });
      await seedUser(p, room.token, 'bob');
      const geo = { type: 'geo-location', id: 'geo:52.5,13.4', name: 'Berlin office', latitude: '52.5', longitude: '13.4' };
      const shared = await call(p, 'POST', `${CHAT}/${room.token}/share`, {
        as: as('alice'),
        body: { objectType: 'geo-location', objectId: geo.id, metaData: JSON.stringify(geo) },
      });
      assert.equal(shared.status, 201, shared.text);
      const poll = await call(p, 'POST', `/apps/spreed/api/v1/poll/${room.token}`, {
        as: as('alice'),
        body: { question: 'Lunch?', options: ['Pizza', 'Sushi'], resultMode: 0, maxVotes: 0 },
      });
      assert.equal(poll.status, 201, poll.text);
      const notes = await chatNotes('bob', room.token);
      assert.deepEqual(
        notes.map((n) => [n.subject, n.message]),
        [
          ['ALICE sent a message in conversation Shares', 'Lunch?'],
          ['ALICE sent a message in conversation Shares', 'Berlin office'],
        ],
      );
      assert.equal(notes[1].object_id, `${room.token}/${shared.data.id}`);
      assert.equal((await chatNotes('alice', room.token)).length, 0, 'not the author');
    });

    it('an edit notifies the users it now mentions and withdraws the mention of those it no longer does; the notification shows the message as it is', async () => {
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Edits' });
      for (const u of ['bob', 'carol']) await seedUser(p, room.token, u);
      for (const u of ['bob', 'carol']) assert.equal((await setLevel(u, room.token, 2)).status, 200);
      const sent = await send('alice', room.token, { message: 'Ask @bob' });
      assert.deepEqual(
        (await chatNotes('bob', room.token)).map((n) => n.message),
        ['Ask @BOB'],
      );
      const edit = await call(p, 'PUT', `${CHAT}/${room.token}/${sent.data.id}`, { as: as('alice'), body: { message: 'Ask @carol instead' } });
      assert.equal(edit.status, 200, edit.text);
      assert.deepEqual(await chatNotes('bob', room.token), [], "bob's mention is withdrawn");
      const [carol] = await chatNotes('carol', room.token);
      assert.equal(carol.subject, 'ALICE mentioned you in conversation Edits');
      assert.equal(carol.message, 'Ask @CAROL instead');

      // An edit that keeps the mention shows the new text; a deleted message takes its notification along.
      assert.equal((await call(p, 'PUT', `${CHAT}/${room.token}/${sent.data.id}`, { as: as('alice'), body: { message: 'Ask @carol today' } })).status, 200);
      assert.deepEqual(
        (await chatNotes('carol', room.token)).map((n) => n.message),
        ['Ask @CAROL today'],
      );
      assert.equal((await call(p, 'DELETE', `${CHAT}/${room.token}/${sent.data.id}`, { as: as('alice') })).status, 200);
      assert.deepEqual(await chatNotes('carol', room.token), []);
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
      assert.equal((await chatNotes('bob', room.token)).length, 2);
      // The marker moves to the first, but the notifications stay (chat-keep-notifications).
      assert.equal((await poll(first.data.id, 0)).status, 200);
      const room1 = await call(p, 'GET', `${V4}/room/${room.token}`, { as: as('bob') });
      assert.equal(room1.data.lastReadMessage, first.data.id);
      assert.equal((await chatNotes('bob', room.token)).length, 2);
      // By default the marker moving reads the notifications up to it.
      assert.equal((await poll(second.data.id, 1)).status, 304);
      assert.equal((await chatNotes('bob', room.token)).length, 0);
    });

    it('a mention does not reach somebody held in the lobby; a moderator passes it', async () => {
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Webinar' });
      for (const u of ['bob', 'carol']) await seedUser(p, room.token, u);
      for (const u of ['bob', 'carol']) assert.equal((await setLevel(u, room.token, 2)).status, 200);
      assert.equal(
        (await call(p, 'POST', `${V4}/room/${room.token}/moderators`, { as: as('alice'), body: { attendeeId: await attendeeIdOf(room.token, 'carol') } }))
          .status,
        200,
      );
      assert.equal((await call(p, 'PUT', `${V4}/room/${room.token}/webinar/lobby`, { as: as('alice'), body: { state: 1 } })).status, 200);
      assert.equal((await send('alice', room.token, { message: '@bob and @carol, soon' })).status, 201);
      assert.deepEqual(await chatNotes('bob', room.token), [], 'bob waits in the lobby');
      assert.equal((await chatNotes('carol', room.token)).length, 1, 'carol moderates');
    });

    it('a silent message notifies nobody, not even a one-to-one', async () => {
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Quiet' });
      await seedUser(p, room.token, 'bob');
      assert.equal((await send('alice', room.token, { message: '@bob shh', silent: true })).status, 201);
      assert.equal((await chatNotes('bob', room.token)).length, 0);
      const one = await createRoom(p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'dave' });
      assert.equal((await send('alice', one.token, { message: 'shh', silent: true })).status, 201);
      assert.equal((await chatNotes('dave', one.token)).length, 0);
    });
  });
}
