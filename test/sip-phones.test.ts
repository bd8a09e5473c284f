/**
 * Phone participants for SIP dial-out (docs/reference/participants.md#the-participant-record `phones`):
 * `source=phones` on POST /room/{token}/participants, E.164 validation, 501 while dial-out is off,
 * phoneNumber/callId only for moderators allowed to configure SIP, and the bridge finding the
 * phone attendee through verify-dialout.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects } from './helpers/parley.js';
import { attendeesOf, createRoom, NO_THROTTLE, seedUser, V4 } from './helpers/rooms.js';
import { bridgeHeaders, configureSip } from './helpers/sip-bridge.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

const SECRET = 'phones-bridge-secret';

for (const dialect of dialects()) {
  describe(`SIP phone participants [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE });
    let token: string;
    const phonesIn = async () => (await attendeesOf(t.p, token)).filter((a) => a.actor_type === 'phones');
    const addPhone = (user: string, number: unknown) =>
      t.call('POST', `${V4}/room/${token}/participants`, { as: as(user), body: { newParticipant: number, source: 'phones' } });
    const list = async (user: string) => {
      const r = await t.call('GET', `${V4}/room/${token}/participants`, { as: as(user) });
      assert.equal(r.status, 200, r.text);
      return r.data as any[];
    };

    before(async () => {
      await createUser(t.p, 'alice', { groups: ['sip'] });
      await createUser(t.p, 'bob', { groups: ['other'] });
      await createUser(t.p, 'carol', { groups: ['sip'] });
      await configureSip(t.p, SECRET);
      token = (await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Dial-out' })).token;
      await seedUser(t.p, token, 'bob', ParticipantType.MODERATOR);
      await seedUser(t.p, token, 'carol', ParticipantType.USER);
    });

    it('501 sip while dial-out is off; nothing added', async () => {
      const r = await addPhone('alice', '+4930123456789');
      assert.equal(r.status, 501);
      assert.equal(r.data.error, 'sip');
      assert.equal((await phonesIn()).length, 0);
      await t.p.services.appConfig.set('sip_dialout', 'yes');
    });

    it('403 for non-moderators, 501 for moderators outside sip_bridge_groups', async () => {
      const carol = await addPhone('carol', '+4930123456789');
      assert.equal(carol.status, 403);
      const bob = await addPhone('bob', '+4930123456789');
      assert.equal(bob.status, 501);
      assert.equal(bob.data.error, 'sip');
      assert.equal((await phonesIn()).length, 0);
    });

    it('400 phone for numbers that are not E.164; nothing added', async () => {
      for (const number of ['030 1234567', '+0301234567', 'call me', '', '+1234567890123456', '+49 30 12#34']) {
        const r = await addPhone('alice', number);
        assert.equal(r.status, 400, number);
        assert.equal(r.data.error, 'phone');
      }
      assert.equal((await phonesIn()).length, 0);
    });

    it('a moderator in sip_bridge_groups adds a phone number (spaces and dashes allowed)', async () => {
      const r = await addPhone('alice', '+49 30 1234-5678');
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.data, []);
      const phones = await phonesIn();
      assert.equal(phones.length, 1);
      assert.equal(phones[0].phone_number, '+493012345678');
      assert.equal(phones[0].display_name, '+49301234…');
    });

    it('phoneNumber and callId are shown only to moderators allowed to configure SIP', async () => {
      const [phone] = await phonesIn();
      await t.p.services.repos.attendees.update(phone.id, { call_id: 'call-42' });
      const forAlice = (await list('alice')).find((e) => e.actorType === 'phones');
      assert.equal(forAlice.phoneNumber, '+493012345678');
      assert.equal(forAlice.callId, 'call-42');
      assert.equal(forAlice.displayName, '+49301234…');
      for (const user of ['bob', 'carol']) {
        const entry = (await list(user)).find((e) => e.actorType === 'phones');
        assert.equal(entry.phoneNumber, '', user);
        assert.equal(entry.callId, '', user);
      }
    });

    it('the bridge verifies the dial-out with the attendee from the list', async () => {
      const entry = (await list('alice')).find((e) => e.actorType === 'phones');
      const r = await t.call('POST', `${V4}/room/${token}/verify-dialout`, {
        headers: bridgeHeaders(SECRET, token),
        body: { number: '+493012345678', options: JSON.stringify({ actorId: entry.actorId, actorType: 'phones', attendeeId: entry.attendeeId }) },
      });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.attendeeId, entry.attendeeId);
    });
  });
}
