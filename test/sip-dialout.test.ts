/**
 * Starting a SIP dial-out (docs/reference/calls.md#the-call-api; docs/api.md "Settings and SIP"):
 * `POST /call/{token}/dialout/{attendeeId}` records the dial-out (call id, number, caller number
 * from sip_bridge_dialout_anonymous / sip_bridge_dialout_number / sip_bridge_dialout_prefix + the
 * user's first phone number) where the bridge reads it, `GET /dialout/pending` (signed);
 * verify-dialout takes it off the list, rejected-dialout resets the call id. Also
 * `parley phone-number:*`.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, call, createUser, dialects, startParley, type Parley } from './helpers/parley.js';
import { expectRefusal, runCli } from './helpers/cli.js';
import { attendeesOf, cookieOf, createRoom, NO_THROTTLE, seedUser, V4 } from './helpers/rooms.js';
import { bridgeHeaders, configureSip } from './helpers/sip-bridge.js';
import { ParticipantType, RoomType } from './helpers/fixtures.js';

const SECRET = 'dialout-bridge-secret';
const NUMBER = '+493012345678';

for (const dialect of dialects()) {
  describe(`SIP dial-out [${dialect}]`, () => {
    let p: Parley;
    let token: string;
    let phoneId: number;
    let phoneActor: string;
    let userAttendeeId: number;

    const dialOut = (user: string, attendeeId: unknown, t = token) => call(p, 'POST', `${V4}/call/${t}/dialout/${attendeeId}`, { as: as(user) });
    const pending = (headers = bridgeHeaders(SECRET, 'dialout')) => call(p, 'GET', `${V4}/dialout/pending`, { headers });
    const phoneRow = async () => (await p.services.repos.attendees.findById(phoneId))!;
    const setConfig = (key: string, value: string) => p.services.appConfig.set(key, value);
    /** Alice joins the conversation and its call: a dial-out needs a running call. */
    async function startCall(t: string): Promise<string> {
      const j = await call(p, 'POST', `${V4}/room/${t}/participants/active`, { as: as('alice') });
      const cookie = cookieOf(j);
      const c = await call(p, 'POST', `${V4}/call/${t}`, { as: { ...as('alice'), headers: { Cookie: cookie } }, body: { flags: 1 } });
      assert.equal(c.status, 200, c.text);
      return cookie;
    }

    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      await createUser(p, 'alice', { groups: ['sip'] });
      await createUser(p, 'bob');
      await createUser(p, 'carol');
      await createUser(p, 'dave');
      await configureSip(p, SECRET);
      await setConfig('sip_dialout', 'yes');
      token = (await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Dial-out' })).token;
      await seedUser(p, token, 'bob', ParticipantType.MODERATOR);
      const carol = await seedUser(p, token, 'carol', ParticipantType.USER);
      const added = await call(p, 'POST', `${V4}/room/${token}/participants`, { as: as('alice'), body: { newParticipant: NUMBER, source: 'phones' } });
      assert.equal(added.status, 200, added.text);
      const phone = (await attendeesOf(p, token)).find((a) => a.actor_type === 'phones')!;
      phoneId = phone.id;
      phoneActor = phone.actor_id;
      userAttendeeId = carol.id;
      await startCall(token);
    });
    after(async () => p.close());

    it('404 for a non-participant and for an unknown conversation; nothing recorded', async () => {
      assert.equal((await dialOut('dave', phoneId)).status, 404);
      assert.equal((await dialOut('alice', phoneId, 'abcdefgh')).status, 404);
      assert.equal((await dialOut('alice', phoneId, 'bad token!')).status, 404);
      const row = await phoneRow();
      assert.equal(row.call_id, null);
      assert.equal(row.dialout_request, null);
    });

    it('404 anonymous (without a session nobody is a participant)', async () => {
      const r = await call(p, 'POST', `${V4}/call/${token}/dialout/${phoneId}`, {});
      assert.equal(r.status, 404);
      assert.equal((await phoneRow()).call_id, null);
    });

    it('403 permissions without the start-call permission or while nobody may start calls', async () => {
      // Default permissions without "start call" (custom bit 1 + join call 4 + ...; no 2).
      const perms = await call(p, 'PUT', `${V4}/room/${token}/permissions/default`, { as: as('alice'), body: { permissions: 1 | 4 | 8 } });
      assert.equal(perms.status, 200, perms.text);
      const carol = await dialOut('carol', phoneId);
      assert.equal(carol.status, 403);
      assert.equal(carol.data.error, 'permissions');
      assert.equal((await call(p, 'PUT', `${V4}/room/${token}/permissions/default`, { as: as('alice'), body: { permissions: 0 } })).status, 200);
      await setConfig('start_calls', '3');
      try {
        const alice = await dialOut('alice', phoneId);
        assert.equal(alice.status, 403);
      } finally {
        await p.services.appConfig.delete('start_calls');
      }
      assert.equal((await phoneRow()).call_id, null);
    });

    it('403 permissions comes before 501: a user without the start-call permission while dial-out is off', async () => {
      assert.equal((await call(p, 'PUT', `${V4}/room/${token}/permissions/default`, { as: as('alice'), body: { permissions: 1 | 4 | 8 } })).status, 200);
      await setConfig('sip_dialout', 'no');
      try {
        const carol = await dialOut('carol', phoneId);
        assert.deepEqual([carol.status, carol.data.error], [403, 'permissions']);
        const alice = await dialOut('alice', phoneId);
        assert.deepEqual([alice.status, alice.data.error], [501, 'dialout'], 'a moderator may start calls: 501');
      } finally {
        await setConfig('sip_dialout', 'yes');
        assert.equal((await call(p, 'PUT', `${V4}/room/${token}/permissions/default`, { as: as('alice'), body: { permissions: 0 } })).status, 200);
      }
      assert.equal((await phoneRow()).call_id, null);
    });

    it('with SIP not configured (no shared secret): 501 dialout to start, 501 sip for the pending list', async () => {
      await configureSip(p, '');
      try {
        const r = await dialOut('alice', phoneId);
        assert.deepEqual([r.status, r.data.error], [501, 'dialout']);
        const list = await pending();
        assert.deepEqual([list.status, list.data.error], [501, 'sip']);
      } finally {
        await configureSip(p, SECRET);
      }
      assert.equal((await phoneRow()).call_id, null);
    });

    it("400 in-call without a running call, or when the caller's session is not in it", async () => {
      const quiet = (await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'No call' })).token;
      const added = await call(p, 'POST', `${V4}/room/${quiet}/participants`, { as: as('alice'), body: { newParticipant: NUMBER, source: 'phones' } });
      assert.equal(added.status, 200, added.text);
      const phone = (await attendeesOf(p, quiet)).find((a) => a.actor_type === 'phones')!;
      const none = await dialOut('alice', phone.id, quiet);
      assert.deepEqual([none.status, none.data.error], [400, 'in-call']);
      const cookie = await startCall(quiet);
      await call(p, 'DELETE', `${V4}/call/${quiet}`, { as: { ...as('alice'), headers: { Cookie: cookie } } });
      const left = await call(p, 'POST', `${V4}/call/${quiet}/dialout/${phone.id}`, { as: { ...as('alice'), headers: { Cookie: cookie } } });
      assert.deepEqual([left.status, left.data.error], [400, 'in-call'], 'the caller left the call');
      assert.equal((await p.services.repos.attendees.findById(phone.id))!.call_id, null);
    });

    it('501 dialout while dial-out is off', async () => {
      await setConfig('sip_dialout', 'no');
      try {
        const r = await dialOut('alice', phoneId);
        assert.equal(r.status, 501);
        assert.equal(r.data.error, 'dialout');
      } finally {
        await setConfig('sip_dialout', 'yes');
      }
      assert.equal((await phoneRow()).call_id, null);
    });

    it('404 participant unless the attendee is a phone of this conversation; 400 for a malformed id', async () => {
      for (const id of [userAttendeeId, 999999]) {
        const r = await dialOut('alice', id);
        assert.equal(r.status, 404, String(id));
        assert.equal(r.data.error, 'participant');
      }
      const other = (await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: 'Other' })).token;
      await startCall(other);
      const r = await dialOut('alice', phoneId, other);
      assert.equal(r.status, 404);
      const bad = await dialOut('alice', 'abc');
      assert.equal(bad.status, 400);
      assert.equal(bad.data.error, 'attendeeId');
      assert.equal((await phoneRow()).call_id, null);
    });

    it('pending list: 501 while dial-out is off, 401 without a valid signature, [] when nothing waits', async () => {
      await setConfig('sip_dialout', 'no');
      try {
        const off = await pending();
        assert.deepEqual([off.status, off.data.error], [501, 'dialout']);
      } finally {
        await setConfig('sip_dialout', 'yes');
      }
      assert.equal((await pending({})).status, 401);
      const basicAuth = await call(p, 'GET', `${V4}/dialout/pending`, { as: admin });
      assert.deepEqual([basicAuth.status, basicAuth.data], [401, { error: 'sip-bridge' }], 'an admin login is no bridge signature');
      assert.equal((await pending(bridgeHeaders(SECRET, token))).status, 401, 'signed over a token, not "dialout"');
      assert.equal((await pending(bridgeHeaders('old-secret', 'dialout'))).status, 401);
      const r = await pending();
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.data, []);
    });

    it('201: a new call id and the dial-out the bridge reads (the bridge decides the caller by default)', async () => {
      const r = await dialOut('bob', phoneId);
      assert.equal(r.status, 201, r.text);
      assert.equal(r.data, null);
      const row = await phoneRow();
      assert.match(row.call_id ?? '', /^[0-9a-f]{32}$/);
      const list = await pending();
      assert.equal(list.status, 200);
      assert.deepEqual(list.data, [{ token, callId: row.call_id, number: NUMBER, options: { attendeeId: phoneId, actorType: 'phones', actorId: phoneActor } }]);
      // XML too: the bridge may ask for it.
      const xml = await call(p, 'GET', `${V4}/dialout/pending`, { headers: bridgeHeaders(SECRET, 'dialout'), format: 'xml' });
      assert.equal(xml.status, 200);
      assert.match(xml.text, new RegExp(`<callId>${row.call_id}</callId>`));
      // Moderators allowed to configure SIP see the call id in the participant list.
      const parts = await call(p, 'GET', `${V4}/room/${token}/participants`, { as: as('alice') });
      assert.equal(parts.data.find((e: any) => e.actorType === 'phones').callId, row.call_id);
    });

    it("the caller: sip_bridge_dialout_number, then prefix + the user's first number, anonymous hides it", async () => {
      const options = async () => ((await pending()).data as any[]).find((e) => e.options.attendeeId === phoneId).options;
      try {
        await setConfig('sip_bridge_dialout_number', '+4930999000');
        assert.equal((await dialOut('alice', phoneId)).status, 201);
        assert.equal((await options()).caller, '+4930999000');

        assert.equal((await runCli(p.env, ['phone-number:add', '49 170 5550001', 'alice'])).code, 0);
        assert.equal((await runCli(p.env, ['phone-number:add', '491705550002', 'alice'])).code, 0);
        assert.equal((await dialOut('alice', phoneId)).status, 201);
        assert.equal((await options()).caller, '+491705550001', 'prefix "+" + the first number');
        await setConfig('sip_bridge_dialout_prefix', '00');
        assert.equal((await dialOut('alice', phoneId)).status, 201);
        assert.equal((await options()).caller, '00491705550001');
        // Bob has no number: the fallback number.
        assert.equal((await dialOut('bob', phoneId)).status, 201);
        assert.equal((await options()).caller, '+4930999000');

        await setConfig('sip_bridge_dialout_anonymous', 'true');
        assert.equal((await dialOut('alice', phoneId)).status, 201);
        const anon = await options();
        assert.equal(anon.anonymous, true);
        assert.equal('caller' in anon, false);
      } finally {
        for (const key of ['sip_bridge_dialout_anonymous', 'sip_bridge_dialout_prefix', 'sip_bridge_dialout_number']) await p.services.appConfig.delete(key);
      }
    });

    it('verify-dialout takes the request off the list; the call id stays until rejected-dialout resets it', async () => {
      assert.equal((await dialOut('alice', phoneId)).status, 201);
      const [entry] = (await pending()).data;
      const verified = await call(p, 'POST', `${V4}/room/${token}/verify-dialout`, {
        headers: bridgeHeaders(SECRET, token),
        body: { number: entry.number, options: JSON.stringify(entry.options) },
      });
      assert.equal(verified.status, 200, verified.text);
      assert.deepEqual((await pending()).data, []);
      assert.equal((await phoneRow()).call_id, entry.callId);

      const wrong = await call(p, 'DELETE', `${V4}/room/${token}/rejected-dialout`, {
        headers: bridgeHeaders(SECRET, token),
        body: { callId: 'another-call', options: JSON.stringify(entry.options) },
      });
      assert.equal(wrong.status, 400);
      assert.equal((await phoneRow()).call_id, entry.callId);
      const rejected = await call(p, 'DELETE', `${V4}/room/${token}/rejected-dialout`, {
        headers: bridgeHeaders(SECRET, token),
        body: { callId: entry.callId, options: JSON.stringify(entry.options) },
      });
      assert.equal(rejected.status, 200, rejected.text);
      assert.equal((await phoneRow()).call_id, null);
    });

    it('a rejected dial-out that was never verified leaves the list too', async () => {
      assert.equal((await dialOut('alice', phoneId)).status, 201);
      const [entry] = (await pending()).data;
      const r = await call(p, 'DELETE', `${V4}/room/${token}/rejected-dialout`, {
        headers: bridgeHeaders(SECRET, token),
        body: { callId: entry.callId, options: entry.options },
      });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual((await pending()).data, []);
    });

    it('a dial-out no bridge took within 60 seconds is no longer listed', async () => {
      assert.equal((await dialOut('alice', phoneId)).status, 201);
      assert.equal((await pending()).data.length, 1);
      await p.services.repos.attendees.update(phoneId, { dialout_requested_at: Math.floor(Date.now() / 1000) - 61 });
      assert.deepEqual((await pending()).data, []);
    });

    it('phone-number CLI: add, list, refuse bad input, move with --force, remove; deleting the user drops them', async () => {
      const list = async (user?: string) =>
        JSON.parse((await runCli(p.env, ['phone-number:list', '--output', 'json', ...(user ? ['--user', user] : [])])).stdout);
      assert.deepEqual(await list('alice'), [
        { phoneNumber: '491705550001', userId: 'alice' },
        { phoneNumber: '491705550002', userId: 'alice' },
      ]);
      for (const args of [
        ['phone-number:add', 'call me', 'bob'],
        ['phone-number:add', '+1', 'bob'],
        ['phone-number:add', '4930111', 'nobody'],
        ['phone-number:add', '491705550001', 'bob'],
        ['phone-number:remove', '4930000'],
      ]) {
        expectRefusal(await runCli(p.env, args), undefined, args.join(' '));
      }
      assert.deepEqual(await list('bob'), []);
      assert.equal((await runCli(p.env, ['phone-number:add', '--force', '491705550001', 'bob'])).code, 0);
      assert.deepEqual(await list('bob'), [{ phoneNumber: '491705550001', userId: 'bob' }]);
      assert.equal((await runCli(p.env, ['phone-number:remove', '+491705550001'])).code, 0);
      assert.deepEqual(await list('bob'), []);
      assert.equal((await call(p, 'DELETE', '/cloud/users/alice', { as: admin })).status, 200);
      assert.deepEqual(await list(), []);
    });
  });

  describe(`SIP dial-out pending list brute-force cap [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: { BRUTE_FORCE_DELAY_MS: '1', BRUTE_FORCE_MAX_ATTEMPTS: '3' } });
      await configureSip(p, SECRET);
      await p.services.appConfig.set('sip_dialout', 'yes');
    });
    after(async () => p.close());

    it('repeated bad signatures end in 429, even for a correct one', async () => {
      const pending = (headers: Record<string, string>) => call(p, 'GET', `${V4}/dialout/pending`, { headers });
      for (let i = 0; i < 3; i++) assert.equal((await pending(bridgeHeaders('guess-' + i, 'dialout'))).status, 401);
      assert.equal((await pending(bridgeHeaders('guess-x', 'dialout'))).status, 429);
      assert.equal((await pending(bridgeHeaders(SECRET, 'dialout'))).status, 429);
    });
  });
}
