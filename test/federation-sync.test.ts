/**
 * Keeping the conversation kept on the user's server current (docs/federation.md "Keeping the
 * conversation current"), between two Parley servers on loopback: every message posted on the
 * host is owed to bob's server as MESSAGE_POSTED through the outbox, and there it becomes the
 * conversation's lastMessage (mapped: the host's users as federated users, bob as a user, the
 * local token), bob's unread counters and mention flags, and a notification when he is
 * mentioned. A bad notification is 400 and changes nothing; a remote that is down gets the
 * message once it is back.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { as, basic, call, dialects, passwordOf, type Parley } from './helpers/parley.js';
import { png } from './helpers/images.js';
import { proxiedRoom, startFederatedPair } from './helpers/federation.js';
import { eventually } from './helpers/eventually.js';

const V4 = '/apps/spreed/api/v4';
const CHAT = '/apps/spreed/api/v1/chat';
const NOTIFICATIONS = '/apps/notifications/api/v2/notifications';

for (const dialect of dialects()) {
  describe(`federation: the kept conversation stays current [${dialect}]`, () => {
    let host: Parley;
    let remote: Parley;
    let bobId: string;
    let hostToken: string;
    let localToken: string;

    const local = async () => {
      const r = await call(remote, 'GET', `${V4}/room/${localToken}`, { as: as('bob') });
      assert.equal(r.status, 200, r.text);
      return r.data;
    };
    const post = async (message: string) => {
      const r = await call(host, 'POST', `${CHAT}/${hostToken}`, { as: as('alice'), body: { message } });
      assert.equal(r.status, 201, r.text);
      return r.data;
    };
    /**
     * Waits until the remote kept the host's message `id` (read from its database: polling GET
     * /room while a notification lands would race the test server's check of kept answers).
     */
    const arrived = async (id: number, also: (u: any) => boolean = () => true) => {
      await eventually(
        `message ${id} kept on the remote`,
        async () => {
          const db = remote.services.db.kysely;
          const room = await db.selectFrom('rooms').select('id').where('token', '=', localToken).executeTakeFirstOrThrow();
          const last = await db.selectFrom('federation_last_messages').selectAll().where('room_id', '=', room.id).executeTakeFirst();
          const unread = await db.selectFrom('federation_unread').selectAll().where('room_id', '=', room.id).executeTakeFirst();
          return Number(last?.remote_message_id) === id && unread !== undefined && also(unread);
        },
        15_000,
      );
    };
    const hostOutbox = () => host.services.db.kysely.selectFrom('outbox').selectAll().where('topic', '=', 'federation').execute();

    before(async () => {
      const pair = await startFederatedPair(dialect);
      ({ host, remote, bobId } = pair);
      ({ hostToken, localToken } = await proxiedRoom(pair, 'Current'));
    });
    after(async () => {
      await host?.close();
      await remote?.close();
    });

    it('a message on the host is the lastMessage on the remote, with the unread count; bob writing through the proxy clears it', async () => {
      const before = await local();
      const sent = await post('news from the host');
      await arrived(sent.id);
      const room = await local();
      assert.equal(room.lastMessage.id, sent.id);
      assert.equal(room.lastMessage.token, localToken);
      assert.equal(room.lastMessage.actorType, 'federated_users');
      assert.equal(room.lastMessage.actorId, `alice@${host.url}`);
      assert.equal(room.lastMessage.actorDisplayName, 'Alice A');
      assert.equal(room.lastMessage.messageType, 'comment');
      assert.ok(room.unreadMessages >= 1, JSON.stringify(room));
      assert.equal(room.unreadMention, false);
      assert.ok(room.lastActivity >= before.lastActivity);
      assert.ok(!JSON.stringify(room).includes(`"token":"${hostToken}"`));
      // The list shows the same.
      const listed = ((await call(remote, 'GET', `${V4}/room`, { as: as('bob') })).data as any[]).find((r) => r.token === localToken);
      assert.equal(listed.lastMessage.message, 'news from the host');
      assert.equal(listed.unreadMessages, room.unreadMessages);

      // bob answers through the proxy: his own message, read up to it, nothing unread.
      const mine = await call(remote, 'POST', `${CHAT}/${localToken}`, { as: as('bob'), body: { message: 'thanks' } });
      assert.equal(mine.status, 201, mine.text);
      await arrived(mine.data.id, (u) => Number(u.last_read_message) === mine.data.id);
      const after = await local();
      assert.equal(after.lastMessage.actorType, 'users');
      assert.equal(after.lastMessage.actorId, 'bob');
      assert.equal(after.unreadMessages, 0);
      assert.equal(after.lastReadMessage, mine.data.id);
    });

    it('a mention of bob on the host notifies him on his server and sets the mention flags', async () => {
      const sent = await post(`look here @"federated_user/${bobId}"`);
      await arrived(sent.id, (u) => Number(u.unread_mention_direct) === 1);
      const room = await local();
      assert.equal(room.unreadMention, true);
      assert.equal(room.lastMessage.id, sent.id);
      // The mention names bob as a user of his own server.
      const params = Object.values(room.lastMessage.messageParameters) as any[];
      const bob = params.find((p) => p.type === 'user');
      assert.equal(bob.id, 'bob');
      assert.equal(bob.server, undefined);
      let mention: any;
      await eventually('the notification', async () => {
        const list = await call(remote, 'GET', NOTIFICATIONS, { as: as('bob') });
        mention = (list.data as any[]).find((n) => n.object_type === 'chat' && n.object_id === `${localToken}/${sent.id}`);
        return mention !== undefined;
      });
      assert.equal(mention.subject, 'Alice A mentioned you in conversation Current');
      assert.equal(mention.message, 'look here @Bob B');
      assert.equal(mention.subjectRichParameters.user.server, host.url.replace(/^https:\/\//, ''));
      // A message that mentions nobody notifies nobody.
      await arrived((await post('plain again')).id);
      assert.equal((await local()).lastMessage.message, 'plain again');
      const list = (await call(remote, 'GET', NOTIFICATIONS, { as: as('bob') })).data as any[];
      assert.equal(list.filter((n) => n.object_type === 'chat').length, 1);
      // bob writes through the proxy: his read marker on the host passes the mention, and the
      // next MESSAGE_POSTED says so; the notification goes.
      const mine = await call(remote, 'POST', `${CHAT}/${localToken}`, { as: as('bob'), body: { message: 'seen it' } });
      assert.equal(mine.status, 201, mine.text);
      await arrived(mine.data.id);
      await eventually('the mention notification read', async () => {
        const list = (await call(remote, 'GET', NOTIFICATIONS, { as: as('bob') })).data as any[];
        return !list.some((n) => n.object_type === 'chat');
      });
    });

    it('the description, type, read-only state and lobby set on the host reach the conversation kept on the remote (ROOM_MODIFIED)', async () => {
      const put = async (method: 'PUT' | 'POST', path: string, body: Record<string, unknown> = {}) => {
        const r = await call(host, method, `${V4}/room/${hostToken}${path}`, { as: as('alice'), body });
        assert.equal(r.status, 200, r.text);
      };
      await put('PUT', '/description', { description: 'What we talk about' });
      await put('POST', '/public');
      const timer = Math.floor(Date.now() / 1000) + 3600;
      await put('PUT', '/webinar/lobby', { state: 1, timer });
      await put('PUT', '/read-only', { state: 1 });
      // Read from the remote's database first (see `arrived`), then the record.
      await eventually(
        'the changes on the remote',
        async () => {
          const row = await remote.services.db.kysely.selectFrom('rooms').selectAll().where('token', '=', localToken).executeTakeFirstOrThrow();
          return row.read_only === 1;
        },
        15_000,
      );
      const room = await local();
      assert.equal(room.description, 'What we talk about');
      assert.equal(room.type, 3);
      assert.equal(room.lobbyState, 1);
      assert.equal(room.lobbyTimer, timer);
      assert.equal(room.readOnly, 1);
      // Back as they were, for the tests after this one.
      await put('PUT', '/read-only', { state: 0 });
      await put('PUT', '/webinar/lobby', { state: 0 });
      await eventually(
        'the lobby lifted on the remote',
        async () => {
          const row = await remote.services.db.kysely.selectFrom('rooms').selectAll().where('token', '=', localToken).executeTakeFirstOrThrow();
          return row.lobby_state === 0 && row.read_only === 0;
        },
        15_000,
      );
      assert.equal((await local()).lobbyState, 0);
    });

    it("an avatar set on the host is the remote's avatarVersion, and its image is read from the host", async () => {
      const image = png(16, 16, [10, 120, 200]);
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'avatar.png');
      const set = await fetch(`${host.url}/ocs/v2.php/apps/spreed/api/v1/room/${hostToken}/avatar?format=json`, {
        method: 'POST',
        body: form,
        headers: { 'OCS-APIRequest': 'true', Authorization: basic('alice', passwordOf('alice')) },
      });
      assert.equal(set.status, 200, await set.text());
      const hostRoom = (await call(host, 'GET', `${V4}/room/${hostToken}`, { as: as('alice') })).data;
      await eventually(
        'the avatar on the remote',
        async () => {
          const row = await remote.services.db.kysely.selectFrom('rooms').select('avatar').where('token', '=', localToken).executeTakeFirstOrThrow();
          return row.avatar !== '';
        },
        15_000,
      );
      assert.equal((await local()).avatarVersion, hostRoom.avatarVersion);
      const avatarOf = async (p: Parley, token: string, user: string) => {
        const r = await fetch(`${p.url}/ocs/v2.php/apps/spreed/api/v1/room/${token}/avatar`, { headers: { Authorization: basic(user, passwordOf(user)) } });
        return { status: r.status, type: r.headers.get('content-type'), body: Buffer.from(await r.arrayBuffer()) };
      };
      const onHost = await avatarOf(host, hostToken, 'alice');
      const onRemote = await avatarOf(remote, localToken, 'bob');
      assert.deepEqual([onRemote.status, onRemote.type], [200, 'image/png']);
      assert.ok(onRemote.body.equals(onHost.body), "the remote serves the host's image");

      // Removed on the host: back to the generated image on both.
      assert.equal((await call(host, 'DELETE', `/apps/spreed/api/v1/room/${hostToken}/avatar`, { as: as('alice') })).status, 200);
      await eventually(
        'the avatar removed on the remote',
        async () => {
          const row = await remote.services.db.kysely.selectFrom('rooms').select('avatar').where('token', '=', localToken).executeTakeFirstOrThrow();
          return row.avatar === '';
        },
        15_000,
      );
      const generated = await avatarOf(remote, localToken, 'bob');
      assert.deepEqual([generated.status, generated.type?.startsWith('image/svg+xml')], [200, true]);
    });

    it("bob's permissions set on the host become his permissions on the remote (PARTICIPANT_MODIFIED)", async () => {
      const fed = ((await call(host, 'GET', `${V4}/room/${hostToken}/participants`, { as: as('alice') })).data as any[]).find(
        (p) => p.actorType === 'federated_users',
      );
      const set = await call(host, 'PUT', `${V4}/room/${hostToken}/attendees/permissions`, {
        as: as('alice'),
        body: { attendeeId: fed.attendeeId, method: 'set', permissions: 1 | 128 },
      });
      assert.equal(set.status, 200, set.text);
      const onHost = ((await call(host, 'GET', `${V4}/room/${hostToken}/participants`, { as: as('alice') })).data as any[]).find(
        (p) => p.actorType === 'federated_users',
      );
      await eventually(
        'the permissions on the remote',
        async () => {
          const row = await remote.services.db.kysely
            .selectFrom('attendees')
            .innerJoin('rooms', 'rooms.id', 'attendees.room_id')
            .select('attendees.permissions')
            .where('rooms.token', '=', localToken)
            .where('attendees.actor_id', '=', 'bob')
            .executeTakeFirstOrThrow();
          return row.permissions === onHost.attendeePermissions;
        },
        15_000,
      );
      assert.equal((await local()).attendeePermissions, onHost.attendeePermissions);
    });

    it('an edit or deletion of the last message on the host is read again by the remote', async () => {
      const sent = await post('first draft');
      await arrived(sent.id);
      const kept = async () => {
        const room = await remote.services.db.kysely.selectFrom('rooms').select('id').where('token', '=', localToken).executeTakeFirstOrThrow();
        return remote.services.db.kysely.selectFrom('federation_last_messages').selectAll().where('room_id', '=', room.id).executeTakeFirstOrThrow();
      };
      const edited = await call(host, 'PUT', `${CHAT}/${hostToken}/${sent.id}`, { as: as('alice'), body: { message: 'final text' } });
      assert.equal(edited.status, 200, edited.text);
      await eventually('the edit on the remote', async () => (await kept()).message === 'final text', 15_000);
      const room = await local();
      assert.equal(room.lastMessage.id, sent.id);
      assert.equal(room.lastMessage.message, 'final text');
      assert.equal(room.lastMessage.actorId, `alice@${host.url}`);
      const deleted = await call(host, 'DELETE', `${CHAT}/${hostToken}/${sent.id}`, { as: as('alice') });
      assert.equal(deleted.status, 200, deleted.text);
      await eventually('the deletion on the remote', async () => (await kept()).message_type === 'comment_deleted', 15_000);
      assert.equal((await local()).lastMessage.messageType, 'comment_deleted');
    });

    it('an expired last message is not shown', async () => {
      const sent = await post('soon gone');
      await arrived(sent.id);
      assert.equal((await local()).lastMessage.message, 'soon gone');
      // As if it had been posted with an expiration that has passed now (a write the test makes
      // itself; the room's change-feed topic is not touched, so only the kept answer's time bound
      // can take it away).
      const db = remote.services.db.kysely;
      const room = await db.selectFrom('rooms').select('id').where('token', '=', localToken).executeTakeFirstOrThrow();
      const at = Math.floor(Date.now() / 1000) + 2;
      await db.updateTable('federation_last_messages').set({ expires_at: at }).where('room_id', '=', room.id).execute();
      await db
        .updateTable('rooms')
        .set({ last_activity: sql`last_activity` })
        .where('id', '=', room.id)
        .execute();
      assert.equal((await local()).lastMessage.message, 'soon gone');
      await eventually('the message expired', async () => Math.floor(Date.now() / 1000) > at, 5000);
      assert.deepEqual((await local()).lastMessage, []);
    });

    it('a bad MESSAGE_POSTED is 400 and changes nothing; a wrong secret is RESOURCE_NOT_FOUND', async () => {
      const attendee = await host.services.db.kysely
        .selectFrom('attendees')
        .select(['id', 'access_token'])
        .where('actor_type', '=', 'federated_users')
        .executeTakeFirstOrThrow();
      const send = async (
        secret: string,
        messageData: unknown,
        unreadInfo: unknown = { unreadMessages: 1, unreadMention: false, unreadMentionDirect: false, lastReadMessage: 1 },
      ) => {
        const res = await fetch(`${remote.url}/ocm/notifications`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            notificationType: 'MESSAGE_POSTED',
            resourceType: 'talk-room',
            providerId: String(attendee.id),
            notification: { remoteServerUrl: host.url, sharedSecret: secret, remoteToken: hostToken, messageData, unreadInfo },
          }),
        });
        return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
      };
      const good = {
        remoteMessageId: 999999,
        actorType: 'users',
        actorId: 'alice',
        actorDisplayName: 'Alice A',
        messageType: 'comment',
        systemMessage: '',
        expirationDatetime: '',
        message: 'forged',
        messageParameter: '[]',
        creationDatetime: '2026-12-06T08:00:00+00:00',
        metaData: '[]',
      };
      const before = await local();
      let r = await send('not-the-secret', good);
      assert.deepEqual(r, { status: 400, body: { message: 'RESOURCE_NOT_FOUND' } });
      r = await send(attendee.access_token!, { ...good, remoteMessageId: 'x', creationDatetime: 'yesterday' });
      assert.equal(r.status, 400);
      assert.deepEqual(
        r.body.validationErrors.map((e: any) => e.name),
        ['messageData.remoteMessageId', 'messageData.creationDatetime'],
      );
      r = await send(attendee.access_token!, { ...good, messageParameter: '{"a":1}' });
      assert.equal(r.status, 400);
      r = await send(attendee.access_token!, good, { unreadMessages: -1, unreadMention: 'yes', unreadMentionDirect: false, lastReadMessage: 1 });
      assert.equal(r.status, 400);
      assert.deepEqual(
        r.body.validationErrors.map((e: any) => e.name),
        ['unreadInfo.unreadMessages', 'unreadInfo.unreadMention'],
      );
      const after = await local();
      assert.deepEqual(after.lastMessage, before.lastMessage);
      assert.equal(after.unreadMessages, before.unreadMessages);
      assert.equal(after.lastActivity, before.lastActivity);
    });

    it('a remote that is down gets the message once it is back (the outbox retries)', async () => {
      const port = Number(new URL(remote.url).port);
      await new Promise<void>((resolve) => remote.app.server.close(() => resolve()));
      let listening = false;
      try {
        const sent = await post('while you were away');
        await eventually('tried while the remote is down', async () => (await hostOutbox()).some((r) => Number(r.attempts) >= 1), 15_000);
        assert.equal((await hostOutbox()).length, 1);
        await new Promise<void>((resolve) => remote.app.server.listen(port, '127.0.0.1', () => resolve()));
        listening = true;
        // The next try is due now (as when its back-off has run out).
        await host.services.db.kysely.updateTable('outbox').set({ due_at: 0 }).where('topic', '=', 'federation').execute();
        host.services.outbox.kick();
        await arrived(sent.id);
        assert.equal((await local()).lastMessage.message, 'while you were away');
        await eventually('the outbox is empty', async () => (await hostOutbox()).length === 0);
      } finally {
        if (!listening) await new Promise<void>((resolve) => remote.app.server.listen(port, '127.0.0.1', () => resolve()));
      }
    });
  });
}
