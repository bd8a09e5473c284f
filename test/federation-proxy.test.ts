/**
 * Proxied conversations between two Parley servers on loopback, each with its own database
 * (docs/federation.md "The proxied conversation"): after bob on the remote accepts alice's
 * invitation, the conversation is kept on bob's server with its own token, and bob's chat there
 * is forwarded to the host with his cloud id and shared secret (`X-Nextcloud-Federation`): he
 * sends, reads the history and long-polls, and the answers name the host's users as federated
 * users and bob as a user of his own server. The host accepts such requests only with the right
 * secret, throttled.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, type Parley } from './helpers/parley.js';
import { acceptedConversation, startFederatedPair } from './helpers/federation.js';
import { eventually } from './helpers/eventually.js';

const INVITATIONS = '/apps/spreed/api/v1/federation/invitation';
const V4 = '/apps/spreed/api/v4';
const CHAT = '/apps/spreed/api/v1/chat';

for (const dialect of dialects()) {
  describe(`federation proxied conversations [${dialect}]`, () => {
    let host: Parley;
    let remote: Parley;
    let bobId: string;
    let hostToken: string;
    let localToken: string;
    before(async () => {
      const pair = await startFederatedPair(dialect);
      ({ host, remote, bobId } = pair);
      await createUser(remote, 'dave');
      ({ hostToken, localToken } = await acceptedConversation(pair, 'Proxied'));
    });
    after(async () => {
      await host?.close();
      await remote?.close();
    });

    it('sends through the host and reads the history back, actors mapped', async () => {
      const sent = await call(remote, 'POST', `${CHAT}/${localToken}`, { as: as('bob'), body: { message: 'hello from bob' } });
      assert.equal(sent.status, 201, sent.text);
      assert.equal(sent.data.message, 'hello from bob');
      assert.equal(sent.data.token, localToken);
      assert.equal(sent.data.actorType, 'users');
      assert.equal(sent.data.actorId, 'bob');

      // On the host the message is bob's, as a federated user.
      const onHost = (await call(host, 'GET', `${CHAT}/${hostToken}`, { as: as('alice'), query: { lookIntoFuture: 0 } })).data as any[];
      const mine = onHost.find((m) => m.message === 'hello from bob');
      assert.ok(mine);
      assert.equal(mine.actorType, 'federated_users');
      assert.equal(mine.actorId, bobId);
      assert.equal(mine.id, sent.data.id);

      assert.equal((await call(host, 'POST', `${CHAT}/${hostToken}`, { as: as('alice'), body: { message: 'hi bob' } })).status, 201);
      const history = await call(remote, 'GET', `${CHAT}/${localToken}`, { as: as('bob'), query: { lookIntoFuture: 0 } });
      assert.equal(history.status, 200, history.text);
      assert.ok(history.headers.get('x-chat-last-given'));
      const alices = (history.data as any[]).find((m) => m.message === 'hi bob');
      assert.ok(alices);
      assert.equal(alices.actorType, 'federated_users');
      assert.equal(alices.actorId, `alice@${host.url}`);
      assert.equal(alices.token, localToken);
      const bobs = (history.data as any[]).find((m) => m.message === 'hello from bob');
      assert.equal(bobs.actorType, 'users');
      assert.equal(bobs.actorId, 'bob');
    });

    it('long-polls through the host (lookIntoFuture)', async () => {
      const history = (await call(remote, 'GET', `${CHAT}/${localToken}`, { as: as('bob'), query: { lookIntoFuture: 0, limit: 1 } })).data as any[];
      const last = history[0].id;
      const waiting = call(remote, 'GET', `${CHAT}/${localToken}`, { as: as('bob'), query: { lookIntoFuture: 1, lastKnownMessageId: last, timeout: 10 } });
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await call(host, 'POST', `${CHAT}/${hostToken}`, { as: as('alice'), body: { message: 'while you wait' } })).status, 201);
      const got = await waiting;
      assert.equal(got.status, 200, got.text);
      assert.deepEqual(
        (got.data as any[]).map((m) => [m.message, m.actorId]),
        [['while you wait', `alice@${host.url}`]],
      );
      // Nothing new: the host's 304 comes back as 304.
      const newest = (got.data as any[])[0].id;
      const idle = await call(remote, 'GET', `${CHAT}/${localToken}`, { as: as('bob'), query: { lookIntoFuture: 1, lastKnownMessageId: newest, timeout: 1 } });
      assert.equal(idle.status, 304);
    });

    it('lists the participants through the host, actors mapped', async () => {
      const r = await call(remote, 'GET', `${V4}/room/${localToken}/participants`, { as: as('bob') });
      assert.equal(r.status, 200, r.text);
      const who = (r.data as any[]).map((p) => [p.actorType, p.actorId, p.participantType]).sort();
      assert.deepEqual(who, [
        ['federated_users', `alice@${host.url}`, 1],
        ['users', 'bob', 3],
      ]);
      assert.ok(!r.text.includes(hostToken), 'no host token in the answer');
      // Asked again after a change on the host: not kept here.
      await createUser(host, 'erin');
      assert.equal((await call(host, 'POST', `${V4}/room/${hostToken}/participants`, { as: as('alice'), body: { newParticipant: 'erin' } })).status, 200);
      const again = (await call(remote, 'GET', `${V4}/room/${localToken}/participants`, { as: as('bob') })).data as any[];
      assert.ok(again.some((p) => p.actorId === `erin@${host.url}`));
      assert.equal((await call(remote, 'GET', `${V4}/room/${localToken}/participants`, { as: as('dave') })).status, 404);
    });

    it('a rename on the host reaches the conversation kept on the remote (ROOM_MODIFIED)', async () => {
      const r = await call(host, 'PUT', `${V4}/room/${hostToken}`, { as: as('alice'), body: { roomName: 'Renamed across' } });
      assert.equal(r.status, 200, r.text);
      await eventually('the rename on the remote', async () => {
        const local = await call(remote, 'GET', `${V4}/room/${localToken}`, { as: as('bob') });
        return local.data?.name === 'Renamed across';
      });
      const inv = ((await call(remote, 'GET', INVITATIONS, { as: as('bob') })).data as any[]).find((i) => i.remoteToken === hostToken);
      assert.equal(inv.roomName, 'Renamed across');
    });

    it('leaving on the remote removes the federated attendee on the host, and the conversation here', async () => {
      const left = await call(remote, 'DELETE', `${V4}/room/${localToken}/participants/self`, { as: as('bob') });
      assert.equal(left.status, 200, left.text);
      const onHost = (await call(host, 'GET', `${V4}/room/${hostToken}/participants`, { as: as('alice') })).data as any[];
      assert.ok(!onHost.some((p) => p.actorType === 'federated_users'), JSON.stringify(onHost));
      const chat = (await call(host, 'GET', `${CHAT}/${hostToken}`, { as: as('alice'), query: { lookIntoFuture: 0, limit: 1 } })).data as any[];
      assert.equal(chat[0].systemMessage, 'federated_user_removed');
      assert.equal((await call(remote, 'GET', `${V4}/room/${localToken}`, { as: as('bob') })).status, 404);
      assert.ok(!((await call(remote, 'GET', `${V4}/room`, { as: as('bob') })).data as any[]).some((r) => r.token === localToken));
      assert.ok(!((await call(remote, 'GET', INVITATIONS, { as: as('bob') })).data as any[]).some((i) => i.remoteToken === hostToken));
    });

    it('a removal on the host removes the conversation kept on the remote (SHARE_UNSHARED)', async () => {
      const again = await call(host, 'POST', `${V4}/room/${hostToken}/participants`, {
        as: as('alice'),
        body: { newParticipant: bobId, source: 'federated_users' },
      });
      assert.equal(again.status, 200, again.text);
      let inv: any;
      await eventually('the new invitation', async () => {
        inv = ((await call(remote, 'GET', INVITATIONS, { as: as('bob') })).data as any[]).find((i) => i.remoteToken === hostToken && i.state === 0);
        return inv !== undefined;
      });
      const accepted = await call(remote, 'POST', `${INVITATIONS}/${inv.id}`, { as: as('bob') });
      assert.equal(accepted.status, 200, accepted.text);
      const token = accepted.data.token;
      const fed = ((await call(host, 'GET', `${V4}/room/${hostToken}/participants`, { as: as('alice') })).data as any[]).find(
        (p) => p.actorType === 'federated_users',
      );
      const removed = await call(host, 'DELETE', `${V4}/room/${hostToken}/attendees`, { as: as('alice'), body: { attendeeId: fed.attendeeId } });
      assert.equal(removed.status, 200, removed.text);
      await eventually('the conversation gone on the remote', async () => (await call(remote, 'GET', `${V4}/room/${token}`, { as: as('bob') })).status === 404);
    });

    it('someone else on the remote, and anyone without the secret on the host, is refused', async () => {
      assert.equal((await call(remote, 'GET', `${CHAT}/${localToken}`, { as: as('dave'), query: { lookIntoFuture: 0 } })).status, 404);
      assert.equal((await call(remote, 'POST', `${CHAT}/${localToken}`, { as: as('dave'), body: { message: 'x' } })).status, 404);
      const forged = {
        authorization: 'Basic ' + Buffer.from(`${encodeURIComponent(bobId)}:not-the-secret`).toString('base64'),
        headers: { 'X-Nextcloud-Federation': 'true' },
      };
      const before = (await call(host, 'GET', `${CHAT}/${hostToken}`, { as: as('alice'), query: { lookIntoFuture: 0 } })).data.length;
      assert.equal((await call(host, 'POST', `${CHAT}/${hostToken}`, { as: forged, body: { message: 'forged' } })).status, 404);
      assert.equal((await call(host, 'GET', `${CHAT}/${hostToken}`, { as: forged, query: { lookIntoFuture: 0 } })).status, 404);
      assert.equal((await call(host, 'GET', `${CHAT}/${hostToken}`, { as: as('alice'), query: { lookIntoFuture: 0 } })).data.length, before);
    });
  });
}
