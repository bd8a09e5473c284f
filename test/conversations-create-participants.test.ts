/**
 * POST /room with Talk 21+'s `participants` map (docs/reference/conversations.md#creation-with-participants):
 * users, groups, teams, e-mails, federated users and phone numbers checked as Talk's
 * InvitationService checks them; a valid e-mail makes the conversation public; refused entries
 * come back in `invalidParticipants` with 202; all refused is 404 `invite` with nothing created;
 * a one-to-one may name its user as `participants.users[0]`; PHP-style form fields work too.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, startParley, type Parley } from './helpers/parley.js';
import { attendeesOf, roomCount, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';
import { configureSip } from './helpers/sip-bridge.js';
import { eventually } from './helpers/eventually.js';

for (const dialect of dialects()) {
  describe(`POST /room with participants [${dialect}]`, () => {
    const t = useParley(dialect, { env: { BRUTE_FORCE_DELAY_MS: '0', BRUTE_FORCE_MAX_ATTEMPTS: '1000' }, users: ['alice', 'bob', 'carol', 'dave'] });
    const post = (body: Record<string, unknown>) => t.call('POST', `${V4}/room`, { as: as('alice'), body });
    const actors = async (token: string) =>
      (await attendeesOf(t.p, token)).map((a) => `${a.actor_type}/${a.actor_type === 'emails' ? 'guest' : a.actor_id}`).sort();
    before(async () => {
      await createUser(t.p, 'erin', { groups: ['crew'] });
      await t.p.services.teams.create('design', 'Design team');
      for (const u of ['alice', 'dave']) await t.p.services.teams.addMember('design', u);
      await t.p.services.teams.create('others', 'Not alice');
      await t.p.services.teams.addMember('others', 'bob');
    });

    it('users, groups, teams and an e-mail: 201, public because of the e-mail, everyone added', async () => {
      const r = await post({
        roomType: RoomType.GROUP,
        roomName: 'Everyone',
        participants: {
          users: ['bob', 'carol', 'bob', 'alice'],
          groups: ['crew'],
          teams: ['design'],
          emails: ['guest@example.com'],
          federated_users: [],
          phones: [],
        },
      });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.data.type, RoomType.PUBLIC, 'a valid e-mail invitee makes it public');
      assert.equal(r.data.invalidParticipants, undefined);
      assert.deepEqual(await actors(r.data.token), [
        'circles/design',
        'emails/guest',
        'groups/crew',
        'users/alice',
        'users/bob',
        'users/carol',
        'users/dave',
        'users/erin',
      ]);
    });

    it('some refused: 202 with invalidParticipants by kind; SIP dial-out and federation off refuse all of theirs', async () => {
      const r = await post({
        roomType: RoomType.GROUP,
        roomName: 'Partly',
        participants: {
          users: ['bob', 'ghost'],
          groups: ['nogroup'],
          teams: ['others'],
          emails: ['not-an-address'],
          federated_users: ['zed@remote.example'],
          phones: ['+4930123456'],
        },
      });
      assert.equal(r.status, 202, r.text);
      assert.equal(r.data.type, RoomType.GROUP);
      assert.deepEqual(r.data.invalidParticipants, {
        users: ['ghost'],
        federated_users: ['zed@remote.example'],
        groups: ['nogroup'],
        teams: ['others'],
        emails: ['not-an-address'],
        phones: ['+4930123456'],
      });
      assert.deepEqual(await actors(r.data.token), ['users/alice', 'users/bob']);
    });

    it('a federated invitee refused when added (this server itself) is listed too', async () => {
      await t.p.services.appConfig.set('federation_enabled', 'yes');
      try {
        const self = `bob@${new URL(t.p.url).host}`;
        const r = await post({ roomType: RoomType.GROUP, roomName: 'Fed', participants: { users: ['carol'], federated_users: [self] } });
        assert.equal(r.status, 202, r.text);
        assert.deepEqual(r.data.invalidParticipants, { federated_users: [self] });
        assert.deepEqual(await actors(r.data.token), ['users/alice', 'users/carol']);
      } finally {
        await t.p.services.appConfig.set('federation_enabled', 'no');
      }
    });

    it('every invitee refused: 404 invite and nothing created', async () => {
      const before = await roomCount(t.p);
      const r = await post({ roomType: RoomType.GROUP, roomName: 'Nobody', participants: { users: ['ghost'], groups: ['nogroup'] } });
      assert.deepEqual([r.status, r.data.error], [404, 'invite']);
      assert.equal(await roomCount(t.p), before);
      // The legacy `invite` is one more invitee, as Talk merges it into the map.
      const mixed = await post({ roomType: RoomType.GROUP, invite: 'crew', participants: { users: ['ghost'] } });
      assert.equal(mixed.status, 202, mixed.text);
      assert.equal(mixed.data.name, 'crew');
      assert.deepEqual(mixed.data.invalidParticipants, { users: ['ghost'] });
      assert.deepEqual(await actors(mixed.data.token), ['groups/crew', 'users/alice', 'users/erin']);
    });

    it('an empty map creates the conversation as without one; a one-to-one takes participants.users[0]', async () => {
      const empty = await post({ roomType: RoomType.GROUP, roomName: 'Empty', participants: { users: [] } });
      assert.equal(empty.status, 201, empty.text);
      assert.deepEqual(await actors(empty.data.token), ['users/alice']);
      const one = await post({ roomType: RoomType.ONE_TO_ONE, participants: { users: ['dave'] } });
      assert.equal(one.status, 201, one.text);
      assert.equal(one.data.type, RoomType.ONE_TO_ONE);
      assert.equal(one.data.name, 'dave');
      const again = await post({ roomType: RoomType.ONE_TO_ONE, participants: { users: ['dave'] } });
      assert.deepEqual([again.status, again.data.token], [200, one.data.token]);
    });

    it('a list longer than 200 entries is 400 invite; nothing created', async () => {
      const before = await roomCount(t.p);
      const users = Array.from({ length: 201 }, (_, i) => `u${i}`);
      const r = await post({ roomType: RoomType.GROUP, roomName: 'Crowd', participants: { users } });
      assert.deepEqual([r.status, r.data.error], [400, 'invite']);
      for (const participants of [{ users: 'bob' }, { users: [['bob']] }, 'bob', { groups: { a: 'crew' } }]) {
        const bad = await post({ roomType: RoomType.GROUP, roomName: 'Odd', participants });
        assert.deepEqual([bad.status, bad.data.error], [400, 'invite'], JSON.stringify(participants));
      }
      assert.equal(await roomCount(t.p), before);
    });

    it('PHP-style form fields: participants[users][]=…', async () => {
      const form = 'roomType=2&roomName=Form&participants%5Busers%5D%5B%5D=bob&participants%5Busers%5D%5B%5D=carol';
      const r = await t.call('POST', `${V4}/room`, { as: as('alice'), form });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(await actors(r.data.token), ['users/alice', 'users/bob', 'users/carol']);
    });

    it('phone numbers with SIP dial-out for the caller: added; a number not in E.164 is listed', async () => {
      await configureSip(t.p, 'x'.repeat(32), []);
      await t.p.services.appConfig.set('sip_dialout', 'yes');
      try {
        const r = await post({ roomType: RoomType.GROUP, roomName: 'Phones', participants: { phones: ['+49 30 1234-5678', 'call me'] } });
        assert.equal(r.status, 202, r.text);
        assert.deepEqual(r.data.invalidParticipants, { phones: ['call me'] });
        const phones = (await attendeesOf(t.p, r.data.token)).filter((a) => a.actor_type === 'phones');
        assert.deepEqual(
          phones.map((a) => a.phone_number),
          ['+493012345678'],
        );
      } finally {
        await t.p.services.appConfig.set('sip_dialout', 'no');
      }
    });

    it('conversation-creation-all is advertised', async () => {
      const caps = await t.call('GET', '/cloud/capabilities', { as: as('alice') });
      assert.ok(caps.data.capabilities.spreed.features.includes('conversation-creation-all'));
    });
  });
}

for (const dialect of dialects()) {
  describe(`POST /room with a federated invitee [${dialect}]`, () => {
    let host: Parley;
    let remote: Parley;
    before(async () => {
      const env = { FEDERATION_ALLOW_INSECURE: 'true', BRUTE_FORCE_DELAY_MS: '0', BRUTE_FORCE_MAX_ATTEMPTS: '1000' };
      host = await startParley(dialect, { env });
      remote = await startParley(dialect, { env });
      for (const p of [host, remote]) await p.services.appConfig.set('federation_enabled', 'yes');
      await createUser(host, 'alice');
      await createUser(remote, 'bob');
    });
    after(async () => {
      await host?.close();
      await remote?.close();
    });

    it('the federated user is invited as POST participants invites them: attendee, then an invitation on their server', async () => {
      const bobId = `bob@${remote.url}`;
      const r = await call(host, 'POST', `${V4}/room`, {
        as: as('alice'),
        body: { roomType: RoomType.GROUP, roomName: 'Across', participants: { federated_users: [bobId] } },
      });
      assert.equal(r.status, 201, r.text);
      const fed = (await attendeesOf(host, r.data.token)).filter((a) => a.actor_type === 'federated_users');
      assert.equal(fed.length, 1);
      await eventually(
        'bob is invited',
        async () => {
          const inv = await call(remote, 'GET', '/apps/spreed/api/v1/federation/invitation', { as: as('bob') });
          return inv.status === 200 && (inv.data as any[]).some((i) => i.remoteToken === r.data.token);
        },
        20000,
      );
    });
  });
}
