/**
 * The tests play the SIP bridge (contract "Authentication" 5; docs/reference/sip.md#bridge-endpoints):
 * a correctly signed request passes; a signature over another token, with an old secret, a short
 * random or a tampered header is 401; repeated failures end in 429; nothing is readable without a
 * valid signature; 501 comes first when SIP (or dial-out) is not configured.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, startParley, type Parley } from './helpers/parley.js';
import { createRoom, NO_THROTTLE, V4 } from './helpers/rooms.js';
import { bridgeHeaders, configureSip } from './helpers/sip-bridge.js';
import { ParticipantType, RoomType } from './helpers/fixtures.js';

const SECRET = 'the-bridge-shared-secret';

/** A group conversation of alice with SIP (PIN) enabled; returns its token and alice's PIN. */
async function sipRoom(p: Parley, name: string): Promise<{ token: string; pin: string; attendeeId: number }> {
  const created = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: name });
  const r = await call(p, 'PUT', `${V4}/room/${created.token}/webinar/sip`, { as: as('alice'), body: { state: 1 } });
  assert.equal(r.status, 200);
  return { token: r.data.token, pin: r.data.attendeePin, attendeeId: r.data.attendeeId };
}

/** Asserts a 401 that carries nothing about the conversation. */
function assertRefused(r: { status: number; data: any; text: string }, token: string): void {
  assert.equal(r.status, 401, r.text);
  assert.deepEqual(r.data, { error: 'sip-bridge' });
  assert.ok(!r.text.includes('"name"'));
  assert.ok(!r.text.includes(`"token":"${token}"`));
}

for (const dialect of dialects()) {
  describe(`SIP bridge [${dialect}]`, () => {
    let p: Parley;
    let room: { token: string; pin: string; attendeeId: number };
    let other: { token: string; pin: string; attendeeId: number };
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      await createUser(p, 'alice', { groups: ['sip'] });
      await createUser(p, 'mallory');
    });
    after(async () => p.close());

    it('501 before anything else while SIP is not configured (even unsigned)', async () => {
      for (const [method, path] of [
        ['POST', 'verify-dialin'],
        ['POST', 'verify-dialout'],
        ['DELETE', 'rejected-dialout'],
      ]) {
        const r = await call(p, method, `${V4}/room/1234567890/${path}`, { body: { pin: '1234567' } });
        assert.equal(r.status, 501, path);
        assert.equal(r.data.error, 'sip');
      }
    });

    it('setup: SIP configured, two conversations with dial-in', async () => {
      await configureSip(p, SECRET);
      room = await sipRoom(p, 'Weekly sync');
      other = await sipRoom(p, 'Other room');
      assert.match(room.pin, /^\d{7}$/);
    });

    it('dial-out endpoints stay 501 (dialout) until sip_dialout is on', async () => {
      for (const [method, path] of [
        ['POST', 'verify-dialout'],
        ['DELETE', 'rejected-dialout'],
      ]) {
        const r = await call(p, method, `${V4}/room/${room.token}/${path}`, { headers: bridgeHeaders(SECRET, room.token) });
        assert.equal(r.status, 501, path);
        assert.equal(r.data.error, 'dialout');
      }
    });

    it('GET /room/{token} signed: the limited view with the forced name, no last message', async () => {
      const r = await call(p, 'GET', `${V4}/room/${room.token}`, { headers: bridgeHeaders(SECRET, room.token) });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.token, room.token);
      assert.equal(r.data.name, 'Weekly sync');
      assert.equal(r.data.displayName, 'Weekly sync');
      assert.equal(r.data.sipEnabled, 1);
      assert.equal(r.data.participantType, ParticipantType.GUEST);
      assert.equal(r.data.attendeeId, 0);
      assert.equal(r.data.attendeePin, '');
      assert.ok(!('lastMessage' in r.data));
      assert.ok(r.headers.get('x-nextcloud-talk-hash'));
    });

    it('GET /room/{token} unsigned: not visible (404); invalid signature: 401', async () => {
      const unsigned = await call(p, 'GET', `${V4}/room/${room.token}`);
      assert.equal(unsigned.status, 404);
      const bad = await call(p, 'GET', `${V4}/room/${room.token}`, { headers: bridgeHeaders('wrong', room.token) });
      assertRefused(bad, room.token);
      // A logged-in non-participant with a bad signature is refused too.
      const mallory = await call(p, 'GET', `${V4}/room/${room.token}`, { as: as('mallory'), headers: bridgeHeaders('wrong', room.token) });
      assert.equal(mallory.status, 401);
    });

    it('GET /room/{token}/pin/{pin}: the attendee’s record; 404 for an unknown PIN or room', async () => {
      const r = await call(p, 'GET', `${V4}/room/${room.token}/pin/${room.pin}`, { headers: bridgeHeaders(SECRET, room.token) });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.token, room.token);
      assert.equal(r.data.actorType, 'users');
      assert.equal(r.data.actorId, 'alice');
      assert.equal(r.data.attendeeId, room.attendeeId);
      assert.equal(r.data.attendeePin, room.pin);
      assert.equal(r.data.displayName, 'Weekly sync');
      assert.ok(!('lastMessage' in r.data));

      const wrongPin = await call(p, 'GET', `${V4}/room/${room.token}/pin/${other.pin === '9876543' ? '8765432' : '9876543'}`, {
        headers: bridgeHeaders(SECRET, room.token),
      });
      assert.equal(wrongPin.status, 404);
      const otherRoomsPin = await call(p, 'GET', `${V4}/room/${room.token}/pin/${other.pin}`, { headers: bridgeHeaders(SECRET, room.token) });
      assert.equal(other.pin === room.pin ? 200 : 404, otherRoomsPin.status);
      const malformed = await call(p, 'GET', `${V4}/room/${room.token}/pin/12ab`, { headers: bridgeHeaders(SECRET, room.token) });
      assert.equal(malformed.status, 404);
      const noRoom = await call(p, 'GET', `${V4}/room/2323232323/pin/${room.pin}`, { headers: bridgeHeaders(SECRET, '2323232323') });
      assert.equal(noRoom.status, 404);
      assert.equal(noRoom.data.error, 'room');
    });

    it('POST verify-dialin: 200 with the attendee’s record; 404 participant for an unknown or malformed PIN', async () => {
      const r = await call(p, 'POST', `${V4}/room/${room.token}/verify-dialin`, { headers: bridgeHeaders(SECRET, room.token), body: { pin: room.pin } });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.actorId, 'alice');
      assert.equal(r.data.attendeePin, room.pin);
      const form = await call(p, 'POST', `${V4}/room/${room.token}/verify-dialin`, { headers: bridgeHeaders(SECRET, room.token), form: { pin: room.pin } });
      assert.equal(form.status, 200);
      for (const pin of ['0000000', '', 'abc', '1'.repeat(40)]) {
        const bad = await call(p, 'POST', `${V4}/room/${room.token}/verify-dialin`, { headers: bridgeHeaders(SECRET, room.token), body: { pin } });
        assert.deepEqual([bad.status, bad.data.error], [404, 'participant'], pin);
      }
    });

    it('nothing is readable without a valid signature: every bridge endpoint answers 401', async () => {
      const attempts = [
        call(p, 'GET', `${V4}/room/${room.token}/pin/${room.pin}`),
        call(p, 'POST', `${V4}/room/${room.token}/verify-dialin`, { body: { pin: room.pin } }),
        call(p, 'GET', `${V4}/room/${room.token}/pin/${room.pin}`, { as: as('alice') }),
        call(p, 'POST', `${V4}/room/${room.token}/verify-dialin`, { as: as('alice'), body: { pin: room.pin } }),
        // An unknown conversation is 401 too: existence is not revealed before the signature.
        call(p, 'POST', `${V4}/room/2323232323/verify-dialin`, { body: { pin: room.pin } }),
      ];
      for (const r of await Promise.all(attempts)) assertRefused(r, room.token);
    });

    it('signature over another token → 401', async () => {
      const r = await call(p, 'POST', `${V4}/room/${room.token}/verify-dialin`, { headers: bridgeHeaders(SECRET, other.token), body: { pin: room.pin } });
      assertRefused(r, room.token);
    });

    it('short random (31 characters) → 401, 32 characters pass', async () => {
      const short = await call(p, 'POST', `${V4}/room/${room.token}/verify-dialin`, {
        headers: bridgeHeaders(SECRET, room.token, 'r'.repeat(31)),
        body: { pin: room.pin },
      });
      assertRefused(short, room.token);
      const ok = await call(p, 'POST', `${V4}/room/${room.token}/verify-dialin`, {
        headers: bridgeHeaders(SECRET, room.token, 'r'.repeat(32)),
        body: { pin: room.pin },
      });
      assert.equal(ok.status, 200);
    });

    it('tampered checksum, tampered random, one header missing → 401; upper-case hex passes', async () => {
      const h = bridgeHeaders(SECRET, room.token);
      const flipped = h['Talk-SIPBridge-Checksum'].replace(/^./, (c) => (c === 'a' ? 'b' : 'a'));
      const variants: Record<string, string>[] = [
        { ...h, 'Talk-SIPBridge-Checksum': flipped },
        { ...h, 'Talk-SIPBridge-Random': h['Talk-SIPBridge-Random'] + 'x' },
        { ...h, 'Talk-SIPBridge-Checksum': h['Talk-SIPBridge-Checksum'].slice(0, 40) },
        { 'Talk-SIPBridge-Random': h['Talk-SIPBridge-Random'] },
        { 'Talk-SIPBridge-Checksum': h['Talk-SIPBridge-Checksum'] },
      ];
      for (const headers of variants) {
        const r = await call(p, 'POST', `${V4}/room/${room.token}/verify-dialin`, { headers, body: { pin: room.pin } });
        assertRefused(r, room.token);
      }
      const upper = await call(p, 'POST', `${V4}/room/${room.token}/verify-dialin`, {
        headers: { ...h, 'Talk-SIPBridge-Checksum': h['Talk-SIPBridge-Checksum'].toUpperCase() },
        body: { pin: room.pin },
      });
      assert.equal(upper.status, 200);
    });

    it('old secret → 401 once the admin rotates it; the new one passes', async () => {
      await configureSip(p, 'rotated-secret');
      const old = await call(p, 'POST', `${V4}/room/${room.token}/verify-dialin`, { headers: bridgeHeaders(SECRET, room.token), body: { pin: room.pin } });
      assertRefused(old, room.token);
      const fresh = await call(p, 'POST', `${V4}/room/${room.token}/verify-dialin`, {
        headers: bridgeHeaders('rotated-secret', room.token),
        body: { pin: room.pin },
      });
      assert.equal(fresh.status, 200);
      await configureSip(p, SECRET);
    });

    describe('dial-out', () => {
      let phone: any;
      before(async () => {
        await p.services.appConfig.set('sip_dialout', 'yes');
        const row = await p.services.repos.rooms.findByToken(room.token);
        phone = await p.services.sip.addPhoneParticipant(await aliceContext(p), row!, '+4930123456789');
      });

      it('phone attendees: E.164 number, masked display name', () => {
        assert.equal(phone.actor_type, 'phones');
        assert.equal(phone.phone_number, '+4930123456789');
        assert.equal(phone.display_name, '+493012345…');
        assert.match(phone.actor_id, /^[0-9a-f]{40}$/);
      });

      it('verify-dialout: options as JSON text or object → 200 with the phone attendee’s record', async () => {
        const options = { actorId: phone.actor_id, actorType: 'phones', attendeeId: phone.id };
        for (const opts of [JSON.stringify(options), options]) {
          const r = await call(p, 'POST', `${V4}/room/${room.token}/verify-dialout`, {
            headers: bridgeHeaders(SECRET, room.token),
            body: { number: '+4930123456789', options: opts },
          });
          assert.equal(r.status, 200, r.text);
          assert.equal(r.data.actorType, 'phones');
          assert.equal(r.data.actorId, phone.actor_id);
          assert.equal(r.data.attendeeId, phone.id);
        }
      });

      it('verify-dialout: bad options 400, unknown actor 404, number mismatch 400, unsigned 401', async () => {
        const post = (body: unknown, headers = bridgeHeaders(SECRET, room.token)) =>
          call(p, 'POST', `${V4}/room/${room.token}/verify-dialout`, { headers, body });
        const good = { actorId: phone.actor_id, actorType: 'phones', attendeeId: phone.id };
        const cases: Array<[unknown, number, string]> = [
          [{ number: '+4930123456789', options: { ...good, actorType: 'users' } }, 400, 'options'],
          [{ number: '+4930123456789', options: { actorType: 'phones' } }, 400, 'options'],
          [{ number: '+4930123456789', options: 'not json' }, 400, 'options'],
          [{ number: '+4930123456789' }, 400, 'options'],
          [{ number: '+4930123456789', options: { ...good, actorId: 'f'.repeat(40) } }, 404, 'participant'],
          [{ number: '+4930999999999', options: good }, 400, 'number'],
        ];
        for (const [body, status, error] of cases) {
          const r = await post(body);
          assert.equal(r.status, status, JSON.stringify(body));
          assert.equal(r.data.error, error);
        }
        assertRefused(await post({ number: '+4930123456789', options: good }, {}), room.token);
      });

      it('rejected-dialout: resets the call id; mismatch 400, unknown/other attendee 404, missing attendeeId 400', async () => {
        await p.services.repos.attendees.update(phone.id, { call_id: 'call-123' });
        const del = (body: unknown, token = room.token) =>
          call(p, 'DELETE', `${V4}/room/${token}/rejected-dialout`, { headers: bridgeHeaders(SECRET, token), body });
        const callIdOf = async () => (await p.services.repos.attendees.findById(phone.id))!.call_id;

        let r = await del({ callId: 'call-999', options: { attendeeId: phone.id } });
        assert.equal(r.status, 400);
        assert.equal(r.data.error, 'callId');
        r = await del({ callId: 'call-123', options: {} });
        assert.equal(r.status, 400);
        assert.equal(r.data.error, 'options');
        r = await del({ callId: 'call-123', options: { attendeeId: room.attendeeId } });
        assert.equal(r.status, 404, 'a users attendee is not a phone');
        r = await del({ callId: 'call-123', options: { attendeeId: phone.id } }, other.token);
        assert.equal(r.status, 404, 'the attendee belongs to another conversation');
        r = await del({ callId: 'call-123', options: { attendeeId: 999999 } });
        assert.equal(r.status, 404);
        assert.equal(await callIdOf(), 'call-123');

        r = await del({ callId: 'call-123', options: JSON.stringify({ attendeeId: phone.id }) });
        assert.equal(r.status, 200, r.text);
        assert.equal(r.data, null);
        assert.equal(await callIdOf(), null);
        r = await del({ callId: 'call-123', options: { attendeeId: phone.id } });
        assert.equal(r.status, 400, 'already reset');
      });

      it('a valid signature over an unknown numeric token: 404 room on every bridge endpoint', async () => {
        const unknown = '2323232323';
        const good = { actorId: phone.actor_id, actorType: 'phones', attendeeId: phone.id };
        for (const [method, path, body] of [
          ['POST', 'verify-dialin', { pin: room.pin }],
          ['POST', 'verify-dialout', { number: '+4930123456789', options: good }],
          ['DELETE', 'rejected-dialout', { callId: 'call-123', options: good }],
        ] as const) {
          const r = await call(p, method, `${V4}/room/${unknown}/${path}`, { headers: bridgeHeaders(SECRET, unknown), body });
          assert.deepEqual([r.status, r.data.error], [404, 'room'], path);
        }
      });

      it('rejected-dialout unsigned or wrongly signed: 401, the call id kept', async () => {
        await p.services.repos.attendees.update(phone.id, { call_id: 'call-456' });
        const body = { callId: 'call-456', options: { attendeeId: phone.id } };
        for (const headers of [{}, bridgeHeaders('wrong', room.token), bridgeHeaders(SECRET, other.token)]) {
          assertRefused(await call(p, 'DELETE', `${V4}/room/${room.token}/rejected-dialout`, { headers, body }), room.token);
        }
        assert.equal((await p.services.repos.attendees.findById(phone.id))!.call_id, 'call-456');
      });

      it('addPhoneParticipant: 400 phone for non-E.164 numbers, 501 sip when dial-out is off', async () => {
        const row = (await p.services.repos.rooms.findByToken(room.token))!;
        const ctx = await aliceContext(p);
        for (const bad of ['030123456', '+0301234', 'phone', '+123456789012345678']) {
          await assert.rejects(p.services.sip.addPhoneParticipant(ctx, row, bad), (e: any) => e.status === 400 && e.data.error === 'phone');
        }
        await p.services.appConfig.set('sip_dialout', 'no');
        // A new request context: a context reads the app config once.
        await assert.rejects(
          p.services.sip.addPhoneParticipant(await aliceContext(p), row, '+4930123456789'),
          (e: any) => e.status === 501 && e.data.error === 'sip',
        );
      });
    });
  });

  describe(`SIP bridge brute-force cap [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: { BRUTE_FORCE_DELAY_MS: '1', BRUTE_FORCE_MAX_ATTEMPTS: '3' } });
      await createUser(p, 'alice', { groups: ['sip'] });
      await configureSip(p, SECRET);
    });
    after(async () => p.close());

    it('repeated failures end in 429, even for a correct signature', async () => {
      const room = await sipRoom(p, 'Throttled');
      const url = `${V4}/room/${room.token}/verify-dialin`;
      for (let i = 0; i < 3; i++) {
        const r = await call(p, 'POST', url, { headers: bridgeHeaders('guess-' + i, room.token), body: { pin: room.pin } });
        assert.equal(r.status, 401);
      }
      const capped = await call(p, 'POST', url, { headers: bridgeHeaders('guess-x', room.token), body: { pin: room.pin } });
      assert.equal(capped.status, 429);
      const valid = await call(p, 'POST', url, { headers: bridgeHeaders(SECRET, room.token), body: { pin: room.pin } });
      assert.equal(valid.status, 429);
      assert.ok(!valid.text.includes(room.pin));
    });
  });
}

/** A RequestContext for alice (service-level set-up of phone attendees). */
async function aliceContext(p: Parley) {
  const { RequestContext } = await import('../src/services/platform/request-context.js');
  const user = await p.services.directory.users.find('alice');
  return new RequestContext(p.services.directory, p.services.appConfig, user!, '127.0.0.1');
}
