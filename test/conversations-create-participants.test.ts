/**
 * POST /room with Talk 21+'s `participants` map (docs/reference/conversations.md#creation-with-participants):
 * users, groups, teams, e-mails, federated users and phone numbers checked as Talk's
 * InvitationService checks them; a valid e-mail makes the conversation public; refused entries
 * come back in `invalidParticipants` with 202; all refused is 404 `invite` with nothing created;
 * a one-to-one may name its user as `participants.users[0]`; PHP-style form fields work too.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects } from './helpers/parley.js';
import { attendeesOf, roomCount, V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

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
        participants: { users: ['bob', 'carol'], groups: ['crew'], teams: ['design'], emails: ['guest@example.com'], federated_users: [], phones: [] },
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

    it('PHP-style form fields: participants[users][]=…', async () => {
      const form = 'roomType=2&roomName=Form&participants%5Busers%5D%5B%5D=bob&participants%5Busers%5D%5B%5D=carol';
      const r = await t.call('POST', `${V4}/room`, { as: as('alice'), form });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual(await actors(r.data.token), ['users/alice', 'users/bob', 'users/carol']);
    });

    it('conversation-creation-all is advertised', async () => {
      const caps = await t.call('GET', '/cloud/capabilities', { as: as('alice') });
      assert.ok(caps.data.capabilities.spreed.features.includes('conversation-creation-all'));
    });
  });
}
