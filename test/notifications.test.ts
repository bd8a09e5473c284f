/**
 * Notifications (the notifications app API Talk apps poll; Talk's Notifier wording): the
 * capability entry; invitations created by adding people (users, groups) and gone when they
 * leave, are removed or the conversation is deleted; list/get/delete/delete-all/exists with
 * their statuses, ETag/304 and X-Nextcloud-User-Status; v1 without rich fields; push
 * registration refused as JSON. The hook methods the chat and call areas will call (mentions,
 * read marker, calls, missed calls, leaving) are exercised through p.services.notifications
 * against the real database, and read back over HTTP. Query count of the list is constant.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, call, passwordOf, createUser, dialects, startParley, type Parley } from './helpers/parley.js';
import { countQueries, createRoom, NO_THROTTLE, seedUser, V4 } from './helpers/rooms.js';
import { RoomType } from './helpers/fixtures.js';
import { CHAT_MESSAGE_DEFAULTS } from '../src/db/repositories/chat-messages.js';

const N = '/apps/notifications/api/v2/notifications';

for (const dialect of dialects()) {
  describe(`notifications [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      await createUser(p, 'alice', { displayName: 'Alice Archer' });
      await createUser(p, 'bob', { displayName: 'Bob Builder' });
      await createUser(p, 'carol', { displayName: 'Carol', groups: ['crew'] });
      await createUser(p, 'dave', { displayName: 'Dave', groups: ['crew'] });
      await createUser(p, 'erin', { displayName: 'Erin' });
    });
    after(async () => p?.close());

    /**
     * A stored message by `actor` that reaches `users` by name (`reason`), handed to the notifier
     * as the chat's event hands it; returns its id.
     */
    const mention = async (
      room: any,
      actor: any,
      users: string[],
      text: string,
      parameters: Record<string, unknown> = {},
      reason: 'direct' | 'all' = 'direct',
    ) => {
      const [{ id }] = await p.services.repos.chatMessages.insertMany([
        {
          ...CHAT_MESSAGE_DEFAULTS,
          room_id: room.id,
          actor_type: actor.type,
          actor_id: actor.id,
          actor_display_name: actor.displayName ?? '',
          message: text,
          message_parameters: JSON.stringify(parameters),
          message_type: 'comment',
          created_at: Math.floor(Date.now() / 1000),
        },
      ]);
      await p.services.notifications.messagePosted(
        room,
        id,
        actor,
        users.map((userId) => ({ userId, reason })),
        undefined,
        { mentionsOnly: true },
      );
      return id;
    };
    const list = async (user: string, opts: { version?: 1 | 2; headers?: Record<string, string>; api?: string } = {}) => {
      const r = await call(p, 'GET', `/apps/notifications/api/${opts.api ?? 'v2'}/notifications`, {
        as: as(user),
        version: opts.version,
        headers: opts.headers,
      });
      return r;
    };
    const add = (token: string, who: string, newParticipant: string, source = 'users') =>
      call(p, 'POST', `${V4}/room/${token}/participants`, { as: as(who), body: { newParticipant, source } });
    const roomOf = async (token: string) => (await p.services.repos.rooms.findByToken(token))!;
    const clear = async () => {
      for (const u of ['alice', 'bob', 'carol', 'dave', 'erin']) await call(p, 'DELETE', N, { as: as(u) });
    };

    it('the capabilities carry the notifications entry the apps check, with the push features', async () => {
      const r = await call(p, 'GET', '/cloud/capabilities', { as: as('bob') });
      const n = r.data.capabilities.notifications;
      for (const e of ['list', 'get', 'delete', 'delete-all', 'rich-strings', 'icons', 'action-web', 'user-status'])
        assert.ok(n['ocs-endpoints'].includes(e), e);
      assert.deepEqual(n.push, ['devices', 'object-data', 'delete']);
    });

    it('adding a user to a group conversation invites them, as Talk words it', async () => {
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Pictures' });
      assert.equal((await add(room.token, 'alice', 'bob')).status, 200);
      const r = await list('bob');
      assert.equal(r.status, 200);
      assert.equal(r.data.length, 1);
      const n = r.data[0];
      assert.equal(n.app, 'spreed');
      assert.equal(n.user, 'bob');
      assert.equal(n.object_type, 'room');
      assert.equal(n.object_id, room.token);
      assert.match(n.datetime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
      assert.equal(n.subject, 'Alice Archer invited you to a group conversation: Pictures');
      assert.equal(n.subjectRich, '{user} invited you to a group conversation: {call}');
      assert.deepEqual(n.subjectRichParameters.user, { type: 'user', id: 'alice', name: 'Alice Archer' });
      const roomRow = await roomOf(room.token);
      assert.equal(n.subjectRichParameters.call.type, 'call');
      assert.equal(n.subjectRichParameters.call.id, String(roomRow.id));
      assert.equal(n.subjectRichParameters.call.name, 'Pictures');
      assert.equal(n.subjectRichParameters.call['call-type'], 'group');
      assert.equal(n.link, `${p.url}/index.php/call/${room.token}`);
      assert.equal(n.icon, `${p.url}/apps/spreed/img/app-dark.svg`);
      assert.equal(n.shouldNotify, true);
      assert.deepEqual(n.messageRichParameters, []);
      assert.deepEqual(n.actions, [{ label: 'View chat', link: n.link, type: 'WEB', primary: false }]);
      assert.equal(r.headers.get('x-nextcloud-user-status'), 'online');
      // The icon the record points at exists.
      const icon = await fetch(n.icon);
      assert.equal(icon.status, 200);
      assert.match(icon.headers.get('content-type')!, /image\/svg\+xml/);
      assert.match(await icon.text(), /^<svg/);
      // The actor gets nothing.
      assert.deepEqual((await list('alice')).data, []);
      // v1: no rich fields.
      const v1 = await list('bob', { api: 'v1' });
      assert.equal(v1.data[0].subject, n.subject);
      assert.equal(v1.data[0].subjectRich, undefined);
      assert.equal(v1.headers.get('etag'), null);
    });

    it('ETag is md5 of the ids; a matching If-None-Match answers 304', async () => {
      const r = await list('bob');
      const etag = r.headers.get('etag')!;
      assert.match(etag, /^"[0-9a-f]{32}"$/);
      const same = await list('bob', { headers: { 'If-None-Match': etag } });
      assert.equal(same.status, 304);
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Second' });
      await add(room.token, 'alice', 'bob');
      const changed = await list('bob', { headers: { 'If-None-Match': etag } });
      assert.equal(changed.status, 200);
      assert.notEqual(changed.headers.get('etag'), etag);
      assert.equal(changed.data[0].object_id, room.token, 'newest first');
    });

    it('adding a group invites its members; one-to-one conversations and existing members get none', async () => {
      await clear();
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Crew room' });
      assert.equal((await add(room.token, 'alice', 'crew', 'groups')).status, 200);
      for (const u of ['carol', 'dave']) assert.equal((await list(u)).data.length, 1, u);
      await add(room.token, 'alice', 'carol');
      assert.equal((await list('carol')).data.length, 1, 'already a member: no second invitation');
      await createRoom(p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'erin' });
      assert.deepEqual((await list('erin')).data, []);
    });

    it("get one: 200 for own, 404 for id 0, missing or another user's, 400 for a non-number", async () => {
      const mine = (await list('carol')).data[0];
      const r = await call(p, 'GET', `${N}/${mine.notification_id}`, { as: as('carol') });
      assert.equal(r.status, 200);
      assert.deepEqual(r.data, mine);
      for (const [who, id] of [
        ['dave', mine.notification_id],
        ['carol', 0],
        ['carol', 99999999],
      ] as const) {
        const g = await call(p, 'GET', `${N}/${id}`, { as: as(who) });
        assert.equal(g.status, 404, `${who} ${id}`);
        assert.equal(g.data.error, 'notification');
      }
      const bad = await call(p, 'GET', `${N}/abc`, { as: as('carol') });
      assert.equal(bad.status, 400);
      assert.equal(bad.data.error, 'id');
      assert.equal((await call(p, 'GET', N)).status, 401);
    });

    it('delete one (200 even when gone, 404 for 0), exists, delete all', async () => {
      const [n] = (await list('dave')).data;
      const other = (await list('carol')).data[0];
      const ex = await call(p, 'POST', `${N}/exists`, { as: as('dave'), body: { ids: [n.notification_id, other.notification_id, 0] } });
      assert.equal(ex.status, 200);
      assert.deepEqual(ex.data, [n.notification_id]);
      for (const ids of [Array.from({ length: 201 }, (_, i) => i + 1), 'x', ['x']]) {
        const r = await call(p, 'POST', `${N}/exists`, { as: as('dave'), body: { ids } });
        assert.deepEqual([r.status, r.data?.error], [400, 'ids'], `${JSON.stringify(ids).slice(0, 20)}: ${r.text}`);
      }
      const badId = await call(p, 'DELETE', `${N}/abc`, { as: as('dave') });
      assert.deepEqual([badId.status, badId.data.error], [400, 'id']);
      for (const [m, path] of [
        ['DELETE', `${N}/${n.notification_id}`],
        ['DELETE', N],
        ['POST', `${N}/exists`],
      ] as const) {
        assert.equal((await call(p, m, path, { body: { ids: [n.notification_id] } })).status, 401, `${m} ${path} without a login`);
      }
      // Someone else cannot delete it.
      assert.equal((await call(p, 'DELETE', `${N}/${n.notification_id}`, { as: as('carol') })).status, 200);
      assert.equal((await list('dave')).data.length, 1);
      assert.equal((await call(p, 'DELETE', `${N}/${n.notification_id}`, { as: as('dave') })).status, 200);
      assert.equal((await call(p, 'DELETE', `${N}/${n.notification_id}`, { as: as('dave') })).status, 200);
      assert.equal((await call(p, 'DELETE', `${N}/0`, { as: as('dave') })).status, 404);
      assert.deepEqual((await list('dave')).data, []);
      for (const name of ['One', 'Two']) await add((await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: name })).token, 'alice', 'bob');
      assert.equal((await list('bob')).data.length, 2);
      assert.equal((await call(p, 'DELETE', N, { as: as('bob') })).status, 200);
      assert.deepEqual((await list('bob')).data, []);
      assert.equal((await list('carol')).data.length, 1, "only the caller's went");
    });

    it('leaving, being removed and deletion of the conversation remove the invitation', async () => {
      await clear();
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Leaving' });
      for (const u of ['bob', 'erin']) await add(room.token, 'alice', u);
      assert.equal((await list('bob')).data.length, 1);
      assert.equal((await call(p, 'DELETE', `${V4}/room/${room.token}/participants/self`, { as: as('bob') })).status, 200);
      assert.deepEqual((await list('bob')).data, []);
      const rows = (await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('alice') })).data;
      const erin = rows.find((r: any) => r.actorId === 'erin');
      assert.equal((await call(p, 'DELETE', `${V4}/room/${room.token}/attendees`, { as: as('alice'), body: { attendeeId: erin.attendeeId } })).status, 200);
      assert.deepEqual((await list('erin')).data, []);
      await add(room.token, 'alice', 'erin');
      assert.equal((await list('erin')).data.length, 1);
      assert.equal((await call(p, 'DELETE', `${V4}/room/${room.token}`, { as: as('alice') })).status, 200);
      assert.deepEqual((await list('erin')).data, []);
      const left = await p.services.db.kysely.selectFrom('notifications').select('id').where('object_id', '=', room.token).execute();
      assert.equal(left.length, 0, 'rows are gone, not just hidden');
    });

    it('joining a group that is in a conversation invites the new member in the name of who changed the group', async () => {
      await clear();
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Late joiners' });
      assert.equal((await add(room.token, 'alice', 'crew', 'groups')).status, 200);
      await createUser(p, 'late1', { displayName: 'Gina' });
      // An administrator adds late1 to the group (provisioning API): attendee row and invitation.
      assert.equal((await call(p, 'POST', '/cloud/users/late1/groups', { as: admin, body: { groupid: 'crew' } })).status, 200);
      const got = (await list('late1')).data.filter((n: any) => n.object_id === room.token);
      assert.equal(got.length, 1, JSON.stringify(got));
      assert.equal(got[0].object_type, 'room');
      assert.equal(got[0].subjectRich, '{user} invited you to a group conversation: {call}');
      assert.equal(got[0].subjectRichParameters.user.id, 'admin');
      const participants = await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('late1') });
      assert.equal(participants.status, 200, 'late1 is a participant');
      // Created with the group by an administrator: the same.
      assert.equal(
        (await call(p, 'POST', '/cloud/users', { as: admin, body: { userid: 'late2', password: passwordOf('late2'), groups: ['crew'] } })).status,
        200,
      );
      assert.equal((await list('late2')).data.filter((n: any) => n.object_id === room.token).length, 1);
      // The operator's command line is nobody logged in: a member, but no invitation (Talk's notifier needs an acting user).
      await createUser(p, 'late3', { displayName: 'Late 3' });
      await p.services.directory.addToGroup('crew', 'late3');
      assert.equal((await call(p, 'GET', `${V4}/room/${room.token}/participants`, { as: as('late3') })).status, 200);
      assert.deepEqual((await list('late3')).data, []);
    });

    it('a group member removed from the group (and so from the conversation) loses the invitation', async () => {
      await clear();
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Group left' });
      await add(room.token, 'alice', 'crew', 'groups');
      assert.equal((await list('dave')).data.length, 1);
      await p.services.directory.removeFromGroup('crew', 'dave');
      assert.deepEqual((await list('dave')).data, []);
    });

    it('mentions: subject, message with @names, object id token/messageId; read marker removes them up to the message', async () => {
      await clear();
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Chatty' });
      for (const u of ['bob', 'carol']) await add(room.token, 'alice', u);
      await clear();
      const r = await roomOf(room.token);
      const params = { 'mention-user1': { type: 'user', id: 'bob', name: 'Bob Builder', 'mention-id': 'bob' } };
      const notes = p.services.notifications;
      const m10 = await mention(r, { type: 'users', id: 'alice' }, ['bob', 'alice', 'erin'], 'Hi {mention-user1}, look', params);
      const m12 = await mention(r, { type: 'users', id: 'alice' }, ['bob'], 'again');
      assert.deepEqual((await list('alice')).data, [], 'not the author');
      assert.deepEqual((await list('erin')).data, [], 'not a participant');
      const got = (await list('bob')).data;
      assert.equal(got.length, 2);
      const first = got.find((n: any) => n.object_id === `${room.token}/${m10}`);
      assert.equal(first.object_type, 'chat');
      assert.equal(first.subject, 'Alice Archer mentioned you in conversation Chatty');
      assert.equal(first.subjectRich, '{user} mentioned you in conversation {call}');
      assert.equal(first.message, 'Hi @Bob Builder, look');
      assert.equal(first.messageRich, 'Hi {mention-user1}, look');
      assert.deepEqual(first.messageRichParameters, params);
      assert.equal(first.link, `${p.url}/index.php/call/${room.token}#message_${m10}`);
      // Reading up to the first removes that one, not the second.
      await notes.chatReadUpTo(r.id, ['bob'], m10);
      assert.deepEqual(
        (await list('bob')).data.map((n: any) => n.object_id),
        [`${room.token}/${m12}`],
      );
      await notes.chatReadUpTo(r.id, ['bob'], m12);
      assert.deepEqual((await list('bob')).data, []);
      // @all, a guest author, and a participant who muted the conversation.
      await p.services.db.kysely.updateTable('attendees').set({ notification_level: 3 }).where('room_id', '=', r.id).where('actor_id', '=', 'carol').execute();
      await mention(r, { type: 'guests', id: 'g1', displayName: 'Visitor' }, ['bob', 'carol'], '@all hi', {}, 'all');
      assert.deepEqual((await list('carol')).data, [], 'notification level never');
      const all = (await list('bob')).data[0];
      assert.equal(all.subject, 'Visitor (guest) mentioned everyone in conversation Chatty');
      assert.deepEqual(all.subjectRichParameters.guest, { type: 'guest', id: 'g1', name: 'Visitor' });
      await notes.leftRoom(r.id, 'bob');
      assert.deepEqual((await list('bob')).data, []);
    });

    it('one-to-one mention and calls: ringing, missed, joined, repeated start', async () => {
      await clear();
      const one = await createRoom(p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
      const r = await roomOf(one.token);
      const notes = p.services.notifications;
      const psst = await mention(r, { type: 'users', id: 'alice' }, ['bob'], 'psst');
      assert.equal((await list('bob')).data[0].subject, 'Alice Archer mentioned you in a private conversation');
      await notes.chatReadUpTo(r.id, ['bob'], psst);

      await notes.callStarted(r, { type: 'users', id: 'alice' }, ['alice', 'bob']);
      assert.deepEqual((await list('alice')).data, [], 'not the caller');
      let n = (await list('bob')).data[0];
      assert.equal(n.object_type, 'call');
      assert.equal(n.object_id, one.token);
      assert.equal(n.subject, 'Alice Archer would like to talk with you');
      assert.equal(n.subjectRichParameters.call.name, 'Alice Archer', 'a one-to-one is named after the other person');
      assert.equal(n.subjectRichParameters.call['call-type'], 'one2one');
      assert.deepEqual(n.actions, [{ label: 'Answer call', link: `${n.link}#direct-call`, type: 'WEB', primary: true }]);
      await notes.missedCall(r.id);
      n = (await list('bob')).data[0];
      assert.equal(n.subject, 'You missed a call from Alice Archer');
      assert.equal(n.actions[0].label, 'Call back');
      // A new call refreshes the same row (ringing again), never a second one.
      await notes.callStarted(r, { type: 'users', id: 'alice' }, ['bob']);
      const again = (await list('bob')).data;
      assert.equal(again.length, 1);
      assert.equal(again[0].subject, 'Alice Archer would like to talk with you');
      await notes.joinedCall(r.id, 'bob');
      assert.deepEqual((await list('bob')).data, []);
    });

    it('group calls: started, missed for some, call notifications off are skipped', async () => {
      await clear();
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Standup' });
      for (const u of ['bob', 'carol', 'dave']) await seedUser(p, room.token, u);
      const r = await roomOf(room.token);
      await p.services.db.kysely.updateTable('attendees').set({ notification_calls: 0 }).where('room_id', '=', r.id).where('actor_id', '=', 'dave').execute();
      const notes = p.services.notifications;
      await notes.callStarted(r, { type: 'users', id: 'alice' }, ['bob', 'carol', 'dave', 'erin']);
      assert.deepEqual((await list('dave')).data, [], 'call notifications off');
      assert.deepEqual((await list('erin')).data, [], 'not a participant');
      assert.equal((await list('bob')).data[0].subject, 'A group call has started in Standup');
      assert.equal((await list('bob')).data[0].actions[0].label, 'Join call');
      await notes.missedCall(r.id, ['carol']);
      assert.equal((await list('carol')).data[0].subject, 'You missed a group call in Standup');
      assert.equal((await list('bob')).data[0].subject, 'A group call has started in Standup', 'only the named users missed it');
    });

    it('push registration answers bad input in JSON with the notifications app messages, never HTML or a 500', async () => {
      const expected: Record<string, string> = { POST: 'INVALID_DEVICE_KEY', DELETE: 'INVALID_SESSION_TOKEN' };
      for (const method of ['POST', 'DELETE']) {
        const r = await call(p, method, '/apps/notifications/api/v2/push', {
          as: as('bob'),
          form: { pushTokenHash: 'a'.repeat(128), devicePublicKey: 'x', proxyServer: 'https://push.example' },
        });
        assert.equal(r.status, 400, method);
        assert.equal(r.data.message, expected[method]);
      }
    });

    it('the list costs a constant number of queries, however many notifications', async () => {
      await clear();
      const rooms = [];
      for (let i = 0; i < 3; i++) rooms.push(await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: `Q${i}` }));
      await add(rooms[0].token, 'alice', 'bob');
      const r0 = await roomOf(rooms[0].token);
      // One notification about a message (its message is read with the list), one invitation.
      await mention(r0, { type: 'users', id: 'alice' }, ['bob'], 'm0');
      await list('bob');
      const few = await countQueries(p, () => list('bob'));
      for (const room of rooms.slice(1)) await add(room.token, 'alice', 'bob');
      for (let m = 1; m <= 5; m++) await mention(r0, { type: 'users', id: 'alice' }, ['bob'], `m${m}`);
      assert.equal((await list('bob')).data.length, 9);
      await list('bob');
      const many = await countQueries(p, () => list('bob'));
      assert.equal(many, few);
    });
    it("creating a conversation with invite=<group> invites each member (not the creator), as Talk's notifier", async () => {
      await clear();
      for (const u of ['frank', 'gina', 'hank']) await createUser(p, u, { displayName: u[0].toUpperCase() + u.slice(1), groups: ['squad'] });
      const room = await createRoom(p, 'frank', { roomType: RoomType.GROUP, invite: 'squad', roomName: 'Crew created' });
      for (const u of ['gina', 'hank']) {
        const notes = (await list(u)).data.filter((n: any) => n.object_id === room.token);
        assert.equal(notes.length, 1, u);
        assert.equal(notes[0].object_type, 'room');
        assert.equal(notes[0].subject, 'Frank invited you to a group conversation: Crew created');
      }
      assert.deepEqual((await list('frank')).data, [], 'not the creator');
    });

    it('joining the conversation processes the invitation (it disappears), and only that one', async () => {
      await clear();
      const a = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Join me' });
      const b = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Not yet' });
      await add(a.token, 'alice', 'bob');
      await add(b.token, 'alice', 'bob');
      assert.equal((await list('bob')).data.length, 2);
      assert.equal((await call(p, 'POST', `${V4}/room/${a.token}/participants/active`, { as: as('bob') })).status, 200);
      assert.deepEqual(
        (await list('bob')).data.map((n: any) => n.object_id),
        [b.token],
      );
    });
  });
}
