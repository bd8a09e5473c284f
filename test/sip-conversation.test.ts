/**
 * SIP in conversations (contract "Conversation" sipEnabled/canEnableSIP/attendeePin; docs/reference/constants.md#generated-identifiers PIN, docs/reference/conversations.md#the-conversation-record, docs/reference/conversations.md#endpoint-rules webinar/sip): features follow the configuration, numeric tokens, the canEnableSIP
 * rules, every status of PUT /room/{token}/webinar/sip in Talk's order, sip_dialin_default.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isSipCompatibleToken } from '../src/domain/tokens.js';
import { admin, as, call, createUser, dialects, startParley, type Parley } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';
import { ParticipantType, RoomType } from './helpers/fixtures.js';

const V4 = '/apps/spreed/api/v4';
const SIP = { sipGroups: ['sip'], dialInInfo: 'Dial +49 30 123456 and enter the conversation ID', sharedSecret: 'bridge-secret' };

async function features(p: Parley): Promise<string[]> {
  const r = await call(p, 'GET', '/cloud/capabilities', { as: as('alice') });
  return r.data.capabilities.spreed.features;
}

async function createRoom(p: Parley, user: string, name: string, roomType = 2): Promise<any> {
  const r = await call(p, 'POST', `${V4}/room`, { as: as(user), body: { roomType, roomName: name } });
  assert.equal(r.status, 201, r.text);
  return r.data;
}

async function setSip(p: Parley, user: string | undefined, token: string, state: unknown) {
  return call(p, 'PUT', `${V4}/room/${token}/webinar/sip`, { as: user ? as(user) : undefined, body: { state } });
}

async function sipEnabledOf(p: Parley, token: string): Promise<number> {
  const row = await p.services.db.kysely.selectFrom('rooms').select('sip_enabled').where('token', '=', token).executeTakeFirstOrThrow();
  return Number(row.sip_enabled);
}

for (const dialect of dialects()) {
  describe(`SIP in conversations [${dialect}]`, () => {
    let p: Parley;
    let alphaToken: string;
    let room: any;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      await createUser(p, 'alice', { groups: ['sip'] });
      await createUser(p, 'bob', { groups: ['other'] });
      await createUser(p, 'carol', { groups: ['sip'] });
      await createUser(p, 'dave');
    });
    after(async () => p.close());

    it('without SIP configured: sip-support only (as Talk), alphanumeric tokens, 412 on webinar/sip', async () => {
      const f = await features(p);
      assert.ok(f.includes('sip-support'), 'advertised as Talk advertises it');
      for (const name of ['sip-support-nopin', 'sip-support-dialout']) assert.ok(!f.includes(name), name);
      const r = await createRoom(p, 'alice', 'before sip');
      alphaToken = r.token;
      assert.match(alphaToken, /^[a-z0-9]{8,}$/);
      assert.equal(r.canEnableSIP, false);
      const s = await setSip(p, 'alice', alphaToken, 1);
      assert.equal(s.status, 412);
      assert.equal(s.data.error, 'sip');
      assert.equal(await sipEnabledOf(p, alphaToken), 0);
    });

    it('configuring SIP advertises sip-support and sip-support-nopin; dial-out needs sip_dialout', async () => {
      const r = await call(p, 'POST', '/apps/spreed/api/v1/settings/sip', { as: admin, body: SIP });
      assert.equal(r.status, 200);
      let f = await features(p);
      assert.ok(f.includes('sip-support'));
      assert.ok(f.includes('sip-support-nopin'));
      assert.ok(!f.includes('sip-support-dialout'));
      await p.services.appConfig.set('sip_dialout', 'yes');
      f = await features(p);
      assert.ok(f.includes('sip-support-dialout'));
      await p.services.appConfig.set('sip_dialout', 'no');
    });

    it('new conversations get numeric SIP-compatible tokens; canEnableSIP for moderators in sip_bridge_groups', async () => {
      room = await createRoom(p, 'alice', 'sip room');
      assert.match(room.token, /^[1-9]\d{9,}$/);
      assert.ok(isSipCompatibleToken(room.token));
      assert.equal(room.canEnableSIP, true);
      assert.equal(room.sipEnabled, 0);
      assert.equal(room.attendeePin, '');
      const roomRow = await p.services.repos.rooms.findByToken(room.token);
      await p.services.rooms.addAttendees(roomRow!.id, [
        { actorType: 'users', actorId: 'bob', participantType: ParticipantType.MODERATOR },
        { actorType: 'users', actorId: 'carol', participantType: ParticipantType.USER },
      ]);
      const bob = await call(p, 'GET', `${V4}/room/${room.token}`, { as: as('bob') });
      assert.equal(bob.data.canEnableSIP, false, 'moderator outside sip_bridge_groups');
      const carol = await call(p, 'GET', `${V4}/room/${room.token}`, { as: as('carol') });
      assert.equal(carol.data.canEnableSIP, false, 'member of the group but not a moderator');
      const aliceAlpha = await call(p, 'GET', `${V4}/room/${alphaToken}`, { as: as('alice') });
      assert.equal(aliceAlpha.data.canEnableSIP, false, 'token is not numeric');
    });

    it('401 for anonymous callers', async () => {
      const r = await setSip(p, undefined, room.token, 1);
      assert.equal(r.status, 401);
    });

    it('404 for unknown, malformed and not-joined conversations (same body)', async () => {
      const unknown = await setSip(p, 'alice', '1234567890', 1);
      const malformed = await setSip(p, 'alice', 'NOT-A-TOKEN', 1);
      const notJoined = await setSip(p, 'dave', room.token, 1);
      for (const r of [unknown, malformed, notJoined]) {
        assert.equal(r.status, 404);
        assert.deepEqual(r.data, unknown.data);
      }
    });

    it('403 for a non-moderator and for a moderator outside sip_bridge_groups; nothing changed', async () => {
      const carol = await setSip(p, 'carol', room.token, 1);
      assert.equal(carol.status, 403);
      assert.equal(carol.data.error, 'moderator');
      const bob = await setSip(p, 'bob', room.token, 1);
      assert.equal(bob.status, 403);
      assert.equal(bob.data.error, 'sip_bridge_groups');
      assert.equal(await sipEnabledOf(p, room.token), 0);
    });

    it('400 for a bad state value or type, nothing changed', async () => {
      for (const state of [3, -1, 'on', '', null, [1]]) {
        const r = await setSip(p, 'alice', room.token, state);
        assert.equal(r.status, 400, JSON.stringify(state));
        assert.equal(r.data.error, 'value');
      }
      const missing = await call(p, 'PUT', `${V4}/room/${room.token}/webinar/sip`, { as: as('alice'), body: {} });
      assert.equal(missing.status, 400);
      assert.equal(await sipEnabledOf(p, room.token), 0);
    });

    it('400 token for a conversation whose token is not SIP compatible', async () => {
      const r = await setSip(p, 'alice', alphaToken, 1);
      assert.equal(r.status, 400);
      assert.equal(r.data.error, 'token');
      assert.equal(await sipEnabledOf(p, alphaToken), 0);
    });

    it('400 type for one-to-one conversations and breakout-room for breakout children', async () => {
      const one = await call(p, 'POST', `${V4}/room`, { as: as('alice'), body: { roomType: RoomType.ONE_TO_ONE, invite: 'carol' } });
      assert.ok([200, 201].includes(one.status), one.text);
      const t = await setSip(p, 'alice', one.data.token, 1);
      // One-to-one attendees are owners, so the moderator check passes and the type rule answers.
      assert.equal(t.status, 400);
      assert.equal(t.data.error, 'type');

      const child = await createRoom(p, 'alice', 'child');
      await p.services.db.kysely.updateTable('rooms').set({ object_type: 'room', object_id: room.token }).where('token', '=', child.token).execute();
      const b = await setSip(p, 'alice', child.token, 1);
      assert.equal(b.status, 400);
      assert.equal(b.data.error, 'breakout-room');
      assert.equal(await sipEnabledOf(p, child.token), 0);
    });

    it('a moderator in the group enables SIP: 200 with the record, PINs for users', async () => {
      const before = await p.services.repos.rooms.findByToken(room.token);
      const r = await setSip(p, 'alice', room.token, 1);
      assert.equal(r.status, 200);
      assert.equal(r.data.token, room.token);
      assert.equal(r.data.sipEnabled, 1);
      assert.match(r.data.attendeePin, /^[1-9]\d{6}$/);
      assert.ok(isSipCompatibleToken(r.data.attendeePin));
      assert.equal(await sipEnabledOf(p, room.token), 1);
      const after = await p.services.repos.rooms.findByToken(room.token);
      assert.ok(after!.last_activity >= before!.last_activity);

      // The PIN is stable and each attendee sees their own.
      const again = await call(p, 'GET', `${V4}/room/${room.token}`, { as: as('alice') });
      assert.equal(again.data.attendeePin, r.data.attendeePin);
      const carol = await call(p, 'GET', `${V4}/room/${room.token}`, { as: as('carol') });
      assert.match(carol.data.attendeePin, /^\d{7}$/);
      assert.notEqual(carol.data.attendeeId, again.data.attendeeId);
      assert.equal(carol.data.sipEnabled, 1);
    });

    it('setting the same state again is a 200 no-op; state 2 (no PIN) and 0 work', async () => {
      const same = await setSip(p, 'alice', room.token, 1);
      assert.equal(same.status, 200);
      assert.equal(same.data.sipEnabled, 1);
      const nopin = await setSip(p, 'alice', room.token, 2);
      assert.equal(nopin.status, 200);
      assert.equal(nopin.data.sipEnabled, 2);
      const off = await setSip(p, 'alice', room.token, '0');
      assert.equal(off.status, 200);
      assert.equal(off.data.sipEnabled, 0);
      assert.equal(off.data.attendeePin, '');
    });

    it('sipEnabled reads 0 while SIP is unconfigured, and the stored value returns with it', async () => {
      await setSip(p, 'alice', room.token, 1);
      await call(p, 'POST', '/apps/spreed/api/v1/settings/sip', { as: admin, body: { ...SIP, sharedSecret: '' } });
      const r = await call(p, 'GET', `${V4}/room/${room.token}`, { as: as('alice') });
      assert.equal(r.data.sipEnabled, 0);
      assert.equal(r.data.attendeePin, '');
      assert.equal(r.data.canEnableSIP, false);
      await call(p, 'POST', '/apps/spreed/api/v1/settings/sip', { as: admin, body: SIP });
      const back = await call(p, 'GET', `${V4}/room/${room.token}`, { as: as('alice') });
      assert.equal(back.data.sipEnabled, 1);
    });

    it('sip_dialin_default applies to new conversations', async () => {
      await p.services.appConfig.set('sip_dialin_default', '2');
      const r = await createRoom(p, 'alice', 'default on');
      assert.equal(r.sipEnabled, 2);
      await p.services.appConfig.set('sip_dialin_default', '0');
      const r0 = await createRoom(p, 'alice', 'default off');
      assert.equal(r0.sipEnabled, 0);
    });
  });
}
