/**
 * More of the proxied conversation between two Parley servers on loopback (docs/federation.md
 * "The proxied conversation"): on bob's server, editing and deleting messages, reactions, the
 * read marker, mention suggestions, the context of a message and polls are forwarded to the host
 * and land there, the answers mapped (the host's users as federated users, bob as a user of his
 * own server); the host's refusals keep their status and `error`; endpoints that do not work on
 * a federated conversation answer 406 instead of acting on the empty local one; and a host that
 * stopped answering is 422 `remote`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, basic, call, createUser, dialects, passwordOf, type Parley } from './helpers/parley.js';
import { proxiedRoom, startFederatedPair } from './helpers/federation.js';
import { eventually } from './helpers/eventually.js';

const V4 = '/apps/spreed/api/v4';
const CHAT = '/apps/spreed/api/v1/chat';
const REACTION = '/apps/spreed/api/v1/reaction';
const POLL = '/apps/spreed/api/v1/poll';

for (const dialect of dialects()) {
  describe(`federation proxied chat: edits, reactions, read marker, 406 [${dialect}]`, () => {
    let host: Parley;
    let remote: Parley;
    let bobId: string;
    let hostToken: string;
    let localToken: string;
    let hostStopped = false;
    const alice = () => `alice@${host.url}`;
    const send = async (p: Parley, token: string, who: string, message: string) => {
      const r = await call(p, 'POST', `${CHAT}/${token}`, { as: as(who), body: { message } });
      assert.equal(r.status, 201, r.text);
      return r.data as any;
    };
    const hostHistory = async () => (await call(host, 'GET', `${CHAT}/${hostToken}`, { as: as('alice'), query: { lookIntoFuture: 0 } })).data as any[];

    before(async () => {
      const pair = await startFederatedPair(dialect);
      ({ host, remote, bobId } = pair);
      await createUser(remote, 'dave');
      ({ hostToken, localToken } = await proxiedRoom(pair, 'Proxied chat'));
    });
    after(async () => {
      if (!hostStopped) await host?.close();
      await remote?.close();
    });

    it('edits and deletes through the host; both servers show the change', async () => {
      const sent = await send(remote, localToken, 'bob', 'typo here');
      const edited = await call(remote, 'PUT', `${CHAT}/${localToken}/${sent.id}`, { as: as('bob'), body: { message: 'fixed here' } });
      assert.equal(edited.status, 200, edited.text);
      assert.equal(edited.data.systemMessage, 'message_edited');
      assert.equal(edited.data.token, localToken);
      assert.equal(edited.data.parent.id, sent.id);
      assert.equal(edited.data.parent.message, 'fixed here');
      assert.deepEqual([edited.data.parent.actorType, edited.data.parent.actorId], ['users', 'bob']);
      assert.deepEqual([edited.data.parent.lastEditActorType, edited.data.parent.lastEditActorId], ['users', 'bob']);
      const onHost = (await hostHistory()).find((m) => m.id === sent.id);
      assert.equal(onHost.message, 'fixed here');
      assert.deepEqual([onHost.lastEditActorType, onHost.lastEditActorId], ['federated_users', bobId]);

      const deleted = await call(remote, 'DELETE', `${CHAT}/${localToken}/${sent.id}`, { as: as('bob') });
      assert.equal(deleted.status, 200, deleted.text);
      assert.equal(deleted.data.systemMessage, 'message_deleted');
      assert.equal(deleted.data.parent.messageType, 'comment_deleted');
      assert.equal((await hostHistory()).find((m) => m.id === sent.id).messageType, 'comment_deleted');
      const onRemote = (await call(remote, 'GET', `${CHAT}/${localToken}`, { as: as('bob'), query: { lookIntoFuture: 0 } })).data as any[];
      assert.equal(onRemote.find((m) => m.id === sent.id).messageType, 'comment_deleted');
    });

    it("the host's refusal keeps its status and error (editing someone else's message)", async () => {
      const alices = await send(host, hostToken, 'alice', 'mine, not yours');
      const r = await call(remote, 'PUT', `${CHAT}/${localToken}/${alices.id}`, { as: as('bob'), body: { message: 'hijacked' } });
      assert.equal(r.status, 403, r.text);
      assert.equal(r.data.error, 'permission');
      const gone = await call(remote, 'DELETE', `${CHAT}/${localToken}/999999`, { as: as('bob') });
      assert.equal(gone.status, 404, gone.text);
      assert.equal(gone.data.error, 'message');
      assert.equal((await hostHistory()).find((m) => m.id === alices.id).message, 'mine, not yours');
    });

    it('reacts through the host; the reactions name the actors as each server does', async () => {
      const alices = await send(host, hostToken, 'alice', 'react to me');
      const added = await call(remote, 'POST', `${REACTION}/${localToken}/${alices.id}`, { as: as('bob'), body: { reaction: '👍' } });
      assert.equal(added.status, 201, added.text);
      assert.deepEqual(
        added.data['👍'].map((r: any) => [r.actorType, r.actorId]),
        [['users', 'bob']],
      );
      assert.equal((await call(host, 'POST', `${REACTION}/${hostToken}/${alices.id}`, { as: as('alice'), body: { reaction: '👍' } })).status, 201);
      const onHost = await call(host, 'GET', `${REACTION}/${hostToken}/${alices.id}`, { as: as('alice') });
      assert.deepEqual(onHost.data['👍'].map((r: any) => [r.actorType, r.actorId]).sort(), [
        ['federated_users', bobId],
        ['users', 'alice'],
      ]);
      const listed = await call(remote, 'GET', `${REACTION}/${localToken}/${alices.id}`, { as: as('bob') });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(listed.data['👍'].map((r: any) => [r.actorType, r.actorId]).sort(), [
        ['federated_users', alice()],
        ['users', 'bob'],
      ]);
      const again = await call(remote, 'POST', `${REACTION}/${localToken}/${alices.id}`, { as: as('bob'), body: { reaction: '👍' } });
      assert.equal(again.status, 200, again.text);

      const removed = await call(remote, 'DELETE', `${REACTION}/${localToken}/${alices.id}`, { as: as('bob'), body: { reaction: '👍' } });
      assert.equal(removed.status, 200, removed.text);
      assert.deepEqual(
        removed.data['👍'].map((r: any) => r.actorId),
        [alice()],
      );
      const hostAfter = await call(host, 'GET', `${REACTION}/${hostToken}/${alices.id}`, { as: as('alice') });
      assert.deepEqual(
        hostAfter.data['👍'].map((r: any) => r.actorId),
        ['alice'],
      );
      // Removing what is not there: the host's 404 passes through.
      const twice = await call(remote, 'DELETE', `${REACTION}/${localToken}/${alices.id}`, { as: as('bob'), body: { reaction: '👍' } });
      assert.equal(twice.status, 404, twice.text);
    });

    it("sets and unsets the read marker on the host; the answer is the local record with the host's read state", async () => {
      const first = await send(host, hostToken, 'alice', 'read me');
      const second = await send(host, hostToken, 'alice', 'and me');
      // bob's list on his server, kept current by the host's MESSAGE_POSTED and by his read markers.
      const listed = async () => (await call(remote, 'GET', `${V4}/room/${localToken}`, { as: as('bob') })).data;
      await eventually('both messages announced to the remote', async () => (await listed()).lastMessage?.message === 'and me');
      const read = await call(remote, 'POST', `${CHAT}/${localToken}/read`, { as: as('bob'), body: { lastReadMessage: first.id } });
      assert.equal(read.status, 200, read.text);
      assert.equal(read.data.token, localToken);
      assert.equal(read.data.lastReadMessage, first.id);
      assert.equal(read.data.unreadMessages, 1);
      assert.match(read.headers.get('x-chat-last-common-read') ?? '', /^\d+$/);
      const attendee = async () =>
        host.services.db.kysely
          .selectFrom('attendees')
          .select('last_read_message')
          .where('actor_type', '=', 'federated_users')
          .where('actor_id', '=', bobId)
          .executeTakeFirstOrThrow();
      assert.equal(Number((await attendee()).last_read_message), first.id);
      assert.deepEqual([(await listed()).unreadMessages, (await listed()).lastReadMessage], [1, first.id], 'kept on his server');

      const all = await call(remote, 'POST', `${CHAT}/${localToken}/read`, { as: as('bob') });
      assert.equal(all.status, 200, all.text);
      assert.equal(all.data.lastReadMessage, second.id);
      assert.equal(all.data.unreadMessages, 0);
      assert.deepEqual([(await listed()).unreadMessages, (await listed()).lastReadMessage], [0, second.id]);

      const unread = await call(remote, 'DELETE', `${CHAT}/${localToken}/read`, { as: as('bob') });
      assert.equal(unread.status, 200, unread.text);
      assert.equal(unread.data.lastReadMessage, first.id);
      assert.equal(Number((await attendee()).last_read_message), first.id);
      assert.equal((await listed()).unreadMessages, 1, 'marked unread on his server too');
    });

    it("waiting for new messages with the read marker on reads up to the last one given, on the user's server too", async () => {
      const first = await send(host, hostToken, 'alice', 'poll past me');
      const second = await send(host, hostToken, 'alice', 'and past me');
      const listed = async () => (await call(remote, 'GET', `${V4}/room/${localToken}`, { as: as('bob') })).data;
      await eventually('both messages announced to the remote', async () => (await listed()).lastMessage?.message === 'and past me');
      assert.equal((await listed()).unreadMessages >= 2, true, 'unread before the poll');
      const polled = await call(remote, 'GET', `${CHAT}/${localToken}`, {
        as: as('bob'),
        query: { lookIntoFuture: 1, lastKnownMessageId: first.id, timeout: 0, setReadMarker: 1 },
      });
      assert.equal(polled.status, 200, polled.text);
      assert.equal(polled.headers.get('x-chat-last-given'), String(second.id));
      assert.deepEqual([(await listed()).unreadMessages, (await listed()).lastReadMessage], [0, second.id]);
    });

    it('suggests mentions from the host, mapped; reads the context of a message', async () => {
      const r = await call(remote, 'GET', `${CHAT}/${localToken}/mentions`, { as: as('bob'), query: { search: 'ali' } });
      assert.equal(r.status, 200, r.text);
      const a = (r.data as any[]).find((m) => m.id === alice());
      assert.ok(a, r.text);
      assert.equal(a.source, 'federated_users');
      // What bob writes with it is sent to the host, where alice is a user.
      assert.equal(a.mentionId, 'alice');

      // Rich parameters: the host's user names the host as its server.
      const mentioning = await send(host, hostToken, 'alice', 'hello @alice');
      const history = (await call(remote, 'GET', `${CHAT}/${localToken}`, { as: as('bob'), query: { lookIntoFuture: 0, limit: 5 } })).data as any[];
      const got = history.find((m) => m.id === mentioning.id);
      const hostUrl = new URL(host.url);
      assert.deepEqual(
        Object.values(got.messageParameters).map((p: any) => [p.type, p.id, p.server]),
        [['user', 'alice', `${hostUrl.protocol}//${hostUrl.host}`]],
      );

      const mid = await send(remote, localToken, 'bob', 'in the middle');
      const context = await call(remote, 'GET', `${CHAT}/${localToken}/${mid.id}/context`, { as: as('bob'), query: { limit: 2 } });
      assert.equal(context.status, 200, context.text);
      const ids = (context.data as any[]).map((m) => m.id);
      assert.ok(ids.includes(mid.id), context.text);
      assert.ok((context.data as any[]).every((m) => m.token === localToken));
    });

    it('creates a poll and votes through the host', async () => {
      const created = await call(remote, 'POST', `${POLL}/${localToken}`, {
        as: as('bob'),
        body: { question: 'Lunch?', options: ['yes', 'no'], resultMode: 0, maxVotes: 1 },
      });
      assert.equal(created.status, 201, created.text);
      assert.deepEqual([created.data.actorType, created.data.actorId], ['users', 'bob']);
      const voted = await call(remote, 'POST', `${POLL}/${localToken}/${created.data.id}`, { as: as('bob'), body: { optionIds: [0] } });
      assert.equal(voted.status, 200, voted.text);
      assert.deepEqual(voted.data.votedSelf, [0]);
      const onHost = await call(host, 'GET', `${POLL}/${hostToken}/${created.data.id}`, { as: as('alice') });
      assert.equal(onHost.status, 200, onHost.text);
      assert.equal(onHost.data.question, 'Lunch?');
      assert.deepEqual([onHost.data.actorType, onHost.data.actorId], ['federated_users', bobId]);
      assert.equal(onHost.data.numVoters, 1);
      // A poll the host does not know: its 404 passes through.
      assert.equal((await call(remote, 'GET', `${POLL}/${localToken}/999999`, { as: as('bob') })).status, 404);
    });

    it('endpoints that do not work on a federated conversation answer 406 and change nothing', async () => {
      const before = await call(remote, 'GET', `${V4}/room/${localToken}`, { as: as('bob') });
      assert.equal(before.status, 200, before.text);
      const refused: Array<[string, string, Record<string, unknown>?]> = [
        ['PUT', `${V4}/room/${localToken}`, { roomName: 'Renamed locally' }],
        ['PUT', `${V4}/room/${localToken}/description`, { description: 'local' }],
        ['GET', `${CHAT}/${localToken}/share/overview`],
        ['POST', `${CHAT}/${localToken}/share`, { objectType: 'geo-location', objectId: 'geo:1,2', metaData: '{"name":"x"}' }],
        ['DELETE', `${CHAT}/${localToken}`],
        ['POST', `${V4}/call/${localToken}`],
      ];
      for (const [method, path, body] of refused) {
        const r = await call(remote, method as any, path, { as: as('bob'), ...(body ? { body } : {}) });
        assert.equal(r.status, 406, `${method} ${path}: ${r.text}`);
        assert.equal(r.data.error, 'federation');
      }
      // A file of bob's shared into it (files_sharing's share type 10).
      const put = await fetch(`${remote.url}/remote.php/dav/files/bob/notes.txt`, {
        method: 'PUT',
        body: 'hello',
        headers: { Authorization: basic('bob', passwordOf('bob')) },
      });
      assert.ok(put.ok, String(put.status));
      const share = await call(remote, 'POST', '/apps/files_sharing/api/v1/shares', {
        as: as('bob'),
        body: { shareType: 10, shareWith: localToken, path: 'notes.txt' },
      });
      assert.equal(share.status, 406, share.text);
      const after = await call(remote, 'GET', `${V4}/room/${localToken}`, { as: as('bob') });
      assert.equal(after.data.name, before.data.name);
      assert.equal(after.data.description, before.data.description);
      assert.equal(after.data.hasCall, false);
      // Someone who is not a participant gets the 404 of any conversation, not 406.
      assert.equal((await call(remote, 'PUT', `${V4}/room/${localToken}`, { as: as('dave'), body: { roomName: 'x' } })).status, 404);
      // The user's own settings still work here.
      assert.equal((await call(remote, 'POST', `${V4}/room/${localToken}/favorite`, { as: as('bob') })).status, 200);
    });

    it('a host that stopped answering is 422 remote, and nothing changes here', async () => {
      const last = await send(remote, localToken, 'bob', 'before the host goes');
      await host.close();
      hostStopped = true;
      for (const [method, path, body] of [
        ['POST', `${CHAT}/${localToken}`, { message: 'into the void' }],
        ['PUT', `${CHAT}/${localToken}/${last.id}`, { message: 'edit into the void' }],
        ['POST', `${REACTION}/${localToken}/${last.id}`, { reaction: '👍' }],
        ['POST', `${CHAT}/${localToken}/read`, {}],
        ['GET', `${V4}/room/${localToken}/participants`, undefined],
      ] as const) {
        const r = await call(remote, method, path, { as: as('bob'), ...(body ? { body } : {}) });
        assert.equal(r.status, 422, `${method} ${path}: ${r.text}`);
        assert.equal(r.data.error, 'remote');
      }
      assert.equal((await call(remote, 'GET', `${V4}/room/${localToken}`, { as: as('bob') })).status, 200);
    });
  });
}
