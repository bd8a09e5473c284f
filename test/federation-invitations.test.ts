/**
 * Federation invitations between two Parley servers on loopback, each with its own database
 * (docs/federation.md "Invitations"): alice on the host invites bob on the remote
 * (source=federated_users); the share travels through the host's outbox; bob lists, accepts or
 * declines, and the host learns it by OCM notification; a removal on the host withdraws the
 * invitation; the app-config keys switch each direction off with Talk's statuses; the trusted
 * servers list refuses other servers; a server without FEDERATION_ALLOW_INSECURE refuses to reach
 * a loopback peer; the OCM end points authenticate by shared secret and are throttled.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, freePort, startParley, type Parley } from './helpers/parley.js';
import { createRoom, V4 } from './helpers/rooms.js';
import { eventually } from './helpers/eventually.js';
import { startFederatedPair } from './helpers/federation.js';

const INVITATIONS = '/apps/spreed/api/v1/federation/invitation';

for (const dialect of dialects()) {
  describe(`federation invitations [${dialect}]`, () => {
    let host: Parley;
    let remote: Parley;
    let bobId: string;
    before(async () => {
      ({ host, remote, bobId } = await startFederatedPair(dialect));
    });
    after(async () => {
      await host?.close();
      await remote?.close();
    });

    const invite = (token: string, who = bobId, by = 'alice') =>
      call(host, 'POST', `${V4}/room/${token}/participants`, { as: as(by), body: { newParticipant: who, source: 'federated_users' } });
    const participants = async (token: string) => {
      const r = await call(host, 'GET', `${V4}/room/${token}/participants`, { as: as('alice') });
      assert.equal(r.status, 200, r.text);
      return r.data as any[];
    };
    const federated = async (token: string) => (await participants(token)).filter((p) => p.actorType === 'federated_users');
    /**
     * The host's federated attendees read from its database: what polls use while the remote's
     * notification may land (a rendered answer checked by VERIFY_KEPT_RECORDS while another
     * request commits would be compared with a state newer than the one it was reused under).
     */
    const federatedRows = async (token: string) => {
      const room = await host.services.repos.rooms.findByToken(token);
      return (await host.services.repos.attendees.forRoom(room!.id)).filter((a) => a.actor_type === 'federated_users');
    };
    const invitations = async () => {
      const r = await call(remote, 'GET', INVITATIONS, { as: as('bob') });
      assert.equal(r.status, 200, r.text);
      return r.data as any[];
    };
    const invitationFor = async (token: string) => {
      let found: any;
      await eventually(`bob's invitation to ${token}`, async () => {
        found = (await invitations()).find((i) => i.remoteToken === token);
        return found !== undefined;
      });
      return found;
    };

    it('advertises federation-v1 while federation is enabled; not federation-v2 (calls in federated conversations)', async () => {
      const caps = (await call(host, 'GET', '/cloud/capabilities', { as: as('alice') })).data.capabilities.spreed;
      assert.ok(caps.features.includes('federation-v1'));
      assert.ok(!caps.features.includes('federation-v2'));
      assert.deepEqual(caps.config.federation, { enabled: true, 'incoming-enabled': true, 'outgoing-enabled': true, 'only-trusted-servers': false });
    });

    it('invites, notifies and lists the invitation; accepting tells the host', async () => {
      const room = await createRoom(host, 'alice', { roomType: 2, roomName: 'Across' });
      const r = await invite(room.token);
      assert.equal(r.status, 200, r.text);
      const [attendee] = await federated(room.token);
      assert.equal(attendee.actorId, bobId);
      assert.equal(attendee.displayName, bobId);
      assert.ok(!JSON.stringify(await participants(room.token)).includes('access'), 'no secret in the list');
      // Inviting again changes nothing.
      assert.equal((await invite(room.token)).status, 200);
      assert.equal((await federated(room.token)).length, 1);

      const inv = await invitationFor(room.token);
      assert.deepEqual(
        { ...inv, id: 0, remoteAttendeeId: 0 },
        {
          id: 0,
          userId: 'bob',
          state: 0,
          localCloudId: bobId,
          remoteServerUrl: host.url,
          remoteToken: room.token,
          remoteAttendeeId: 0,
          inviterCloudId: `alice@${host.url}`,
          inviterDisplayName: 'Alice A',
          roomName: 'Across',
          localToken: '',
        },
      );
      assert.equal(inv.remoteAttendeeId, attendee.attendeeId);
      assert.ok(!JSON.stringify(inv).includes('accessToken'));

      const notes = (await call(remote, 'GET', '/apps/notifications/api/v2/notifications', { as: as('bob') })).data as any[];
      const note = notes.find((n) => n.object_type === 'remote_talk_share');
      assert.ok(note, JSON.stringify(notes));
      assert.equal(note.object_id, String(inv.id));
      assert.equal(note.subjectRich, '{user1} invited you to a federated conversation');
      assert.equal(note.subjectRichParameters.user1.name, 'Alice A');
      assert.deepEqual(
        note.actions.map((a: any) => [a.label, a.type]),
        [
          ['Accept', 'POST'],
          ['Decline', 'DELETE'],
        ],
      );

      const accepted = await call(remote, 'POST', `${INVITATIONS}/${inv.id}`, { as: as('bob') });
      assert.equal(accepted.status, 200, accepted.text);
      // Talk's answer: the conversation kept on bob's server, naming its host.
      const local = accepted.data;
      assert.equal(local.remoteServer, host.url);
      assert.equal(local.remoteToken, room.token);
      assert.notEqual(local.token, room.token);
      assert.equal(local.name, 'Across');
      assert.equal(local.type, 2);
      assert.equal(local.actorType, 'users');
      assert.equal(local.actorId, 'bob');
      assert.equal(local.participantType, 3);
      const listed = (await call(remote, 'GET', `${V4}/room`, { as: as('bob') })).data as any[];
      const mine = listed.find((r) => r.token === local.token);
      assert.ok(mine, JSON.stringify(listed.map((r) => r.token)));
      assert.equal(mine.remoteServer, host.url);
      assert.equal(mine.remoteToken, room.token);
      const one = await call(remote, 'GET', `${V4}/room/${local.token}`, { as: as('bob') });
      assert.equal(one.status, 200, one.text);
      assert.equal(one.data.remoteServer, host.url);
      assert.equal(one.data.remoteToken, room.token);
      // Conversations of this server carry neither field.
      assert.ok(!('remoteServer' in (await call(host, 'GET', `${V4}/room/${room.token}`, { as: as('alice') })).data));
      assert.equal((await invitations()).find((i) => i.id === inv.id).localToken, local.token);
      // The host learnt it at once: the attendee carries the name bob's server gave.
      assert.equal((await federated(room.token))[0].displayName, 'Bob B');
      assert.equal((await invitations()).find((i) => i.id === inv.id).state, 1);
      const again = await call(remote, 'POST', `${INVITATIONS}/${inv.id}`, { as: as('bob') });
      assert.equal(again.status, 400);
      assert.equal(again.data.error, 'state');
      const declineAccepted = await call(remote, 'DELETE', `${INVITATIONS}/${inv.id}`, { as: as('bob') });
      assert.equal(declineAccepted.status, 400);
      // The notification went with the pending invitation.
      const after = (await call(remote, 'GET', '/apps/notifications/api/v2/notifications', { as: as('bob') })).data as any[];
      assert.ok(!after.some((n) => n.object_type === 'remote_talk_share'));

      // The chat recorded the invitation.
      const chat = (await call(host, 'GET', `/apps/spreed/api/v1/chat/${room.token}`, { as: as('alice'), query: { lookIntoFuture: 0 } })).data as any[];
      const added = chat.find((m) => m.systemMessage === 'federated_user_added');
      assert.ok(added);
      assert.equal(added.messageParameters.federated_user.server, remote.url);
    });

    it("someone else's invitation is 404, and so is an unknown one", async () => {
      await createUser(remote, 'eve');
      const room = await createRoom(host, 'alice', { roomType: 2, roomName: 'Private' });
      await invite(room.token);
      const inv = await invitationFor(room.token);
      for (const method of ['POST', 'DELETE']) {
        const r = await call(remote, method, `${INVITATIONS}/${inv.id}`, { as: as('eve') });
        assert.equal(r.status, 404);
        assert.equal(r.data.error, 'invitation');
        assert.equal((await call(remote, method, `${INVITATIONS}/999999`, { as: as('bob') })).status, 404);
      }
      assert.deepEqual((await call(remote, 'GET', INVITATIONS, { as: as('eve') })).data, []);
    });

    it('declining removes the federated attendee on the host', async () => {
      const room = await createRoom(host, 'alice', { roomType: 3, roomName: 'Declined' });
      assert.equal((await invite(room.token)).status, 200);
      const inv = await invitationFor(room.token);
      const r = await call(remote, 'DELETE', `${INVITATIONS}/${inv.id}`, { as: as('bob') });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data, null);
      assert.ok(!(await invitations()).some((i) => i.id === inv.id));
      await eventually('the host removed the attendee', async () => (await federatedRows(room.token)).length === 0);
      assert.deepEqual(await federated(room.token), []);
    });

    it('removing the federated attendee on the host withdraws the invitation', async () => {
      const room = await createRoom(host, 'alice', { roomType: 2, roomName: 'Withdrawn' });
      await invite(room.token);
      const inv = await invitationFor(room.token);
      const r = await call(host, 'DELETE', `${V4}/room/${room.token}/attendees`, { as: as('alice'), body: { attendeeId: inv.remoteAttendeeId } });
      assert.equal(r.status, 200, r.text);
      await eventually('the invitation was withdrawn', async () => !(await invitations()).some((i) => i.id === inv.id));
    });

    it('deleting the conversation withdraws the invitation', async () => {
      const room = await createRoom(host, 'alice', { roomType: 2, roomName: 'Deleted' });
      await invite(room.token);
      const inv = await invitationFor(room.token);
      assert.equal((await call(host, 'DELETE', `${V4}/room/${room.token}`, { as: as('alice') })).status, 200);
      await eventually('the invitation was withdrawn', async () => !(await invitations()).some((i) => i.id === inv.id));
    });

    it("switches: federation off 501, outgoing off 400, inviter outside the groups 400, bad cloud ids 400; the remote's incoming off refuses the share", async () => {
      const room = await createRoom(host, 'alice', { roomType: 2, roomName: 'Switches' });
      const refused = async (status: number, error: string, who = bobId) => {
        const r = await invite(room.token, who);
        assert.equal(r.status, status, r.text);
        assert.equal(r.data.error, error);
        assert.equal((await federated(room.token)).length, 0);
      };
      for (const bad of ['bob', 'bob@', 'bob@host with space', '@x.org', 'bob@ftp://x.org']) await refused(400, 'cloud-id', bad);
      await refused(400, 'cloud-id', `alice@${host.url}`);

      await host.services.appConfig.set('federation_enabled', 'no');
      await refused(501, 'federation');
      assert.ok(!(await call(host, 'GET', '/cloud/capabilities', { as: as('alice') })).data.capabilities.spreed.features.includes('federation-v1'));
      assert.equal((await call(host, 'GET', INVITATIONS, { as: as('alice') })).status, 404, 'the routes go with the capability');
      await host.services.appConfig.set('federation_enabled', 'yes');

      await host.services.appConfig.set('federation_outgoing_enabled', '0');
      await refused(400, 'outgoing');
      await host.services.appConfig.set('federation_outgoing_enabled', '1');

      await host.services.directory.createGroup('federators');
      await host.services.appConfig.set('federation_allowed_groups', ['federators']);
      await refused(400, 'federation');
      await host.services.appConfig.set('federation_allowed_groups', []);

      await remote.services.appConfig.set('federation_incoming_enabled', '0');
      try {
        assert.equal((await invite(room.token)).status, 200);
        await eventually('the refused share removed the attendee', async () => (await federatedRows(room.token)).length === 0);
        assert.deepEqual(await federated(room.token), []);
        assert.ok(!(await invitations()).some((i) => i.remoteToken === room.token));
      } finally {
        await remote.services.appConfig.set('federation_incoming_enabled', '1');
      }
    });

    it('a remote that is down delays nothing here: the share is retried until it is up', async () => {
      const port = await freePort();
      const later = `carl@http://127.0.0.1:${port}`;
      const room = await createRoom(host, 'alice', { roomType: 2, roomName: 'Later' });
      const started = Date.now();
      assert.equal((await invite(room.token, later)).status, 200);
      assert.ok(Date.now() - started < 2000, 'answered without waiting for the remote');
      const pending = await host.services.outbox.idle().then(() => host.services.repos.outbox.pending());
      assert.deepEqual(pending, [{ topic: 'federation', count: 1 }]);
      // While the remote is down, the share is tried again (the outbox's back-off, 1 s doubling).
      const attempts = async () =>
        Number((await host.services.db.kysely.selectFrom('outbox').select('attempts').where('topic', '=', 'federation').executeTakeFirst())?.attempts ?? 0);
      await eventually('tried again while the remote is down', async () => (await attempts()) >= 2, 30_000);
      const late = await startParley(dialect, { port, env: { FEDERATION_ALLOW_INSECURE: 'true' } });
      try {
        await late.services.appConfig.set('federation_enabled', 'yes');
        await createUser(late, 'carl');
        // The next try is due now (as when its back-off has run out), not in up to a minute.
        await host.services.db.kysely.updateTable('outbox').set({ due_at: 0 }).where('topic', '=', 'federation').execute();
        host.services.outbox.kick();
        await eventually(
          'the retried share arrived',
          async () => (await late.services.repos.federationInvitations.forUser('carl')).some((i) => i.remote_token === room.token),
          30_000,
        );
        assert.equal((await federatedRows(room.token)).length, 1);
      } finally {
        await late.close();
      }
    });

    it('a share whose tries are spent (the server never answered) removes the invited attendee', async () => {
      const port = await freePort();
      const room = await createRoom(host, 'alice', { roomType: 2, roomName: 'Nobody there' });
      assert.equal((await invite(room.token, `nobody@http://127.0.0.1:${port}`)).status, 200);
      assert.equal((await federatedRows(room.token)).length, 1);
      const row = () => host.services.db.kysely.selectFrom('outbox').selectAll().where('topic', '=', 'federation').executeTakeFirst();
      await eventually('tried once', async () => Number((await row())?.attempts ?? 0) >= 1, 30_000);
      // Its tries spent (as after the back-off's last one, about two minutes later), due now.
      await host.services.db.kysely.updateTable('outbox').set({ attempts: 8, due_at: 0 }).where('topic', '=', 'federation').execute();
      host.services.outbox.kick();
      await eventually('the attendee removed', async () => (await federatedRows(room.token)).length === 0, 30_000);
      const left = await host.services.db.kysely.selectFrom('outbox').select('payload').where('topic', '=', 'federation').execute();
      assert.ok(
        left.every((r) => !String(r.payload).includes('"kind":"share"')),
        'the share row is gone',
      );
      const history = (await call(host, 'GET', `/apps/spreed/api/v1/chat/${room.token}`, { as: as('alice'), query: { lookIntoFuture: 0 } })).data as any[];
      assert.equal(history[0].systemMessage, 'federated_user_removed');
    });

    it('only trusted servers: others are refused until listed', async () => {
      const room = await createRoom(host, 'alice', { roomType: 2, roomName: 'Trusted' });
      await host.services.appConfig.set('federation_only_trusted_servers', '1');
      try {
        const r = await invite(room.token);
        assert.equal(r.status, 400);
        assert.equal(r.data.error, 'trusted-servers');
        await host.services.federation.trust.add(remote.url);
        assert.equal((await invite(room.token)).status, 200);
        await invitationFor(room.token);
      } finally {
        await host.services.appConfig.set('federation_only_trusted_servers', '0');
      }
    });

    it('a server without FEDERATION_ALLOW_INSECURE does not reach loopback or plain http', async () => {
      const strict = await startParley(dialect);
      try {
        await strict.services.appConfig.set('federation_enabled', 'yes');
        await createUser(strict, 'dave');
        const room = await createRoom(strict, 'dave', { roomType: 2, roomName: 'Strict' });
        for (const who of [bobId, `bob@${remote.url.replace('http://', '')}`, 'bob@169.254.169.254', 'bob@[::1]:8080', 'bob@10.0.0.1']) {
          const r = await call(strict, 'POST', `${V4}/room/${room.token}/participants`, {
            as: as('dave'),
            body: { newParticipant: who, source: 'federated_users' },
          });
          assert.equal(r.status, 400, who);
          assert.equal(r.data.error, 'cloud-id', who);
        }
        // And a share from a loopback host is not taken.
        const share = await fetch(`${strict.url}/ocm/shares`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            shareWith: `dave@${strict.url}`,
            name: 'abcdefgh',
            providerId: '7',
            owner: `mallory@${remote.url}`,
            ownerDisplayName: 'M',
            shareType: 'user',
            resourceType: 'talk-room',
            protocol: { name: 'nctalk', options: { sharedSecret: 'x'.repeat(32) }, roomName: 'R', roomType: 2 },
          }),
        });
        assert.equal(share.status, 400);
        assert.deepEqual(await share.json(), { message: 'Server may not be reached' });
      } finally {
        await strict.close();
      }
    });

    it('OCM end points: bad input is a 4xx that changes nothing; notifications need the shared secret', async () => {
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${host.url}${path}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        });
        return { status: res.status, body: (await res.json().catch(() => undefined)) as any };
      };
      const room = await createRoom(host, 'alice', { roomType: 2, roomName: 'Guarded' });
      await invite(room.token);
      const inv = await invitationFor(room.token);
      const notification = (secret: string, providerId: unknown = String(inv.remoteAttendeeId), type = 'SHARE_DECLINED') => ({
        notificationType: type,
        resourceType: 'talk-room',
        providerId,
        notification: { remoteServerUrl: remote.url, sharedSecret: secret, message: 'x' },
      });
      let r = await post('/ocm/notifications', notification('wrong-secret'));
      assert.deepEqual(r, { status: 400, body: { message: 'RESOURCE_NOT_FOUND' } });
      r = await post('/ocm/notifications', notification('wrong-secret', '999999'));
      assert.deepEqual(r, { status: 400, body: { message: 'RESOURCE_NOT_FOUND' } });
      r = await post('/ocm/notifications', notification('x', 'abc'));
      assert.equal(r.status, 400);
      assert.deepEqual(r.body.validationErrors, [{ name: 'providerId', message: 'invalid' }]);
      r = await post('/ocm/notifications', { ...notification('x'), resourceType: 'file' });
      assert.equal(r.status, 501);
      r = await post('/ocm/notifications', notification('x', String(inv.remoteAttendeeId), 'NO_SUCH_TYPE'));
      assert.equal(r.status, 400);
      r = await post('/ocm/notifications', '[1,2');
      assert.equal(r.status, 400);
      r = await post('/ocm/shares', { shareWith: 'x' });
      assert.equal(r.status, 400);
      r = await post('/ocm/shares', 'x'.repeat(70 * 1024));
      assert.equal(r.status, 413);
      // Nothing changed: the attendee is still there.
      assert.equal((await federated(room.token)).length, 1);
    });

    it('wrong secrets are throttled per address', async () => {
      const strict = await startParley(dialect, { env: { BRUTE_FORCE_DELAY_MS: '0', BRUTE_FORCE_MAX_ATTEMPTS: '3' } });
      try {
        await strict.services.appConfig.set('federation_enabled', 'yes');
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) {
          const res = await fetch(`${strict.url}/ocm/notifications`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({
              notificationType: 'SHARE_ACCEPTED',
              resourceType: 'talk-room',
              providerId: String(i + 1),
              notification: { remoteServerUrl: 'https://cloud.example.org', sharedSecret: `guess${i}` },
            }),
          });
          statuses.push(res.status);
        }
        assert.deepEqual(statuses.slice(0, 3), [400, 400, 400]);
        assert.equal(statuses[4], 429);
      } finally {
        await strict.close();
      }
    });
  });
}
