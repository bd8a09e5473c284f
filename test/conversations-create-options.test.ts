/**
 * POST /room as Talk's current clients use it: team-sourced conversations (`source=circles`),
 * breakout children of public parents (roomType 3), the create-time options (each validated as
 * its own endpoint validates it and written with the conversation), `force_passwords`, emoji
 * avatars at creation, and no token oracle through `objectType=room`.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects } from './helpers/parley.js';
import { attendeesOf, createRoom, roomCount, roomRow, seedUser, setRoom, V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

for (const dialect of dialects()) {
  describe(`POST /room: sources, options, parents [${dialect}]`, () => {
    const t = useParley(dialect, { env: { BRUTE_FORCE_DELAY_MS: '0', BRUTE_FORCE_MAX_ATTEMPTS: '4' }, users: ['alice', 'bob', 'carol', 'dave'] });
    const post = (user: string, body: Record<string, unknown>) => t.call('POST', `${V4}/room`, { as: as(user), body });
    before(async () => {
      await t.p.services.teams.create('design', 'Design team');
      for (const u of ['alice', 'bob', 'carol']) await t.p.services.teams.addMember('design', u);
    });

    it('source=circles with a team the caller is in creates the conversation with the team and its members', async () => {
      const r = await post('alice', { roomType: RoomType.GROUP, invite: 'design', source: 'circles' });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.data.name, 'Design team');
      assert.equal(r.data.type, RoomType.GROUP);
      const rows = await attendeesOf(t.p, r.data.token);
      assert.deepEqual(rows.map((a) => [a.actor_type, a.actor_id, a.participant_type]).sort(), [
        ['circles', 'design', ParticipantType.USER],
        ['users', 'alice', ParticipantType.OWNER],
        ['users', 'bob', ParticipantType.USER],
        ['users', 'carol', ParticipantType.USER],
      ]);
    });

    it('source=circles: 404 invite for an unknown team or one the caller is not in; nothing created', async () => {
      const before = await roomCount(t.p);
      for (const [user, invite] of [
        ['alice', 'nope'],
        ['dave', 'design'],
      ]) {
        const r = await post(user, { roomType: RoomType.GROUP, invite, source: 'circles' });
        assert.deepEqual([r.status, r.data.error], [404, 'invite'], `${user} ${invite}`);
      }
      assert.equal(await roomCount(t.p), before);
    });

    it('roomType 3 with objectType room creates a breakout child of the parent type', async () => {
      const parent = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Parent' });
      await setRoom(t.p, parent.token, { breakout_room_mode: 1 });
      await seedUser(t.p, parent.token, 'bob', ParticipantType.MODERATOR);
      const child = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Child', objectType: 'room', objectId: parent.token });
      assert.equal(child.type, RoomType.GROUP);
      assert.equal(child.objectType, 'room');
      assert.equal(child.objectId, parent.token);
      assert.equal(child.lobbyState, 1, 'stopped breakout rooms: the child starts behind the lobby');
      assert.ok((await attendeesOf(t.p, child.token)).some((a) => a.actor_id === 'bob' && a.participant_type === ParticipantType.MODERATOR));
    });

    it('applies every create-time option in the created conversation', async () => {
      const timer = Math.floor(Date.now() / 1000) + 3600;
      const r = await post('alice', {
        roomType: RoomType.PUBLIC,
        roomName: 'Configured',
        password: 'a very good passphrase',
        readOnly: 1,
        listable: 2,
        messageExpiration: 3600,
        lobbyState: 1,
        lobbyTimer: timer,
        permissions: 4,
        recordingConsent: 1,
        mentionPermissions: 1,
        description: '  About this  ',
      });
      assert.equal(r.status, 201, r.text);
      const d = r.data;
      assert.deepEqual(
        [d.hasPassword, d.readOnly, d.listable, d.messageExpiration, d.lobbyState, d.lobbyTimer, d.defaultPermissions, d.mentionPermissions, d.description],
        [true, 1, 2, 3600, 1, timer, 5, 1, 'About this'],
      );
      const row = await roomRow(t.p, d.token);
      assert.ok(row!.password.startsWith('$argon2'), 'the password is stored hashed');
      // The record shows the room's consent only while the admin makes it optional (recording_consent 2).
      assert.equal(row!.recording_consent, 1);
      // The password works for a guest joining.
      const join = await t.call('POST', `${V4}/room/${d.token}/participants/active`, { body: { password: 'a very good passphrase' } });
      assert.equal(join.status, 200, join.text);
    });

    it('options are optional and take form bodies too', async () => {
      const r = await t.call('POST', `${V4}/room`, { as: as('alice'), form: { roomType: '2', roomName: 'Form made', readOnly: '1', listable: '1' } });
      assert.equal(r.status, 201, r.text);
      assert.deepEqual([r.data.readOnly, r.data.listable, r.data.lobbyState, r.data.hasPassword], [1, 1, 0, false]);
    });

    it('each option is refused with 400 and its reason, and nothing is created', async () => {
      const before = await roomCount(t.p);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ roomType: RoomType.PUBLIC, password: 'short' }, 'password'],
        [{ roomType: RoomType.GROUP, readOnly: 2 }, 'read-only'],
        [{ roomType: RoomType.GROUP, listable: 3 }, 'listable'],
        [{ roomType: RoomType.GROUP, messageExpiration: -1 }, 'message-expiration'],
        [{ roomType: RoomType.GROUP, lobbyState: 2 }, 'lobby'],
        [{ roomType: RoomType.GROUP, lobbyState: 1, lobbyTimer: -5 }, 'lobby-timer'],
        [{ roomType: RoomType.GROUP, sipEnabled: 1 }, 'sip-enabled'],
        [{ roomType: RoomType.GROUP, sipEnabled: 7 }, 'sip-enabled'],
        [{ roomType: RoomType.GROUP, permissions: 512 }, 'permissions'],
        [{ roomType: RoomType.GROUP, recordingConsent: 2 }, 'recording-consent'],
        [{ roomType: RoomType.GROUP, mentionPermissions: 2 }, 'mention-permissions'],
        [{ roomType: RoomType.GROUP, description: 'x'.repeat(2001) }, 'description'],
        [{ roomType: RoomType.GROUP, emoji: 'ab' }, 'avatar'],
        [{ roomType: RoomType.GROUP, emoji: '🙂', avatarColor: 'red' }, 'avatar'],
        [{ roomType: RoomType.GROUP, readOnly: 'yes' }, 'read-only'],
      ];
      for (const [body, reason] of cases) {
        const r = await post('alice', { roomName: 'Refused', ...body });
        assert.deepEqual([r.status, r.data?.error], [400, reason], JSON.stringify(body));
      }
      assert.equal(await roomCount(t.p), before);
    });

    it('a password given for a group conversation is ignored, as Talk does (201, hasPassword false)', async () => {
      for (const format of ['json', 'xml'] as const) {
        const r = await t.call('POST', `${V4}/room`, { as: as('alice'), format, body: { roomType: RoomType.GROUP, roomName: 'No door', password: 'short' } });
        assert.equal(r.status, 201, r.text);
        const token = format === 'json' ? r.data.token : /<token>([^<]+)<\/token>/.exec(r.text)![1];
        if (format === 'json') assert.equal(r.data.hasPassword, false);
        else assert.match(r.text, /<hasPassword>(false|0)?<\/hasPassword>|<hasPassword\/>/);
        assert.equal((await roomRow(t.p, token))!.password, '', 'nothing stored');
      }
    });

    it('sipEnabled: 403 sip-enabled for a caller outside sip_bridge_groups, 400 while SIP is not configured, 201 for a member', async () => {
      const cfg = t.p.services.appConfig;
      await t.p.services.directory.createGroup('sip-people');
      await t.p.services.directory.addToGroup('sip-people', 'bob');
      const body = { roomType: RoomType.GROUP, roomName: 'Dial in', sipEnabled: 1 };
      const before = await roomCount(t.p);
      assert.deepEqual(await post('alice', body).then((r) => [r.status, r.data.error]), [400, 'sip-enabled'], 'SIP not configured');
      await cfg.set('sip_bridge_shared_secret', 'bridge-secret');
      await cfg.set('sip_bridge_dialin_info', 'Dial +1 555 0100');
      await cfg.set('sip_bridge_groups', '["sip-people"]');
      try {
        const refused = await post('alice', body);
        assert.deepEqual([refused.status, refused.data.error], [403, 'sip-enabled']);
        const xml = await t.call('POST', `${V4}/room`, { as: as('alice'), format: 'xml', body });
        assert.equal(xml.status, 403);
        assert.match(xml.text, /<statuscode>403<\/statuscode>/);
        assert.match(xml.text, /<error>sip-enabled<\/error>/);
        assert.equal(await roomCount(t.p), before, 'nothing created');
        const ok = await post('bob', body);
        assert.equal(ok.status, 201, ok.text);
        assert.equal(ok.data.sipEnabled, 1);
        // 0 is always allowed (nothing is enabled).
        assert.equal((await post('alice', { ...body, sipEnabled: 0 })).status, 201);
      } finally {
        await cfg.set('sip_bridge_groups', '[]');
        await cfg.set('sip_bridge_dialin_info', '');
        await cfg.set('sip_bridge_shared_secret', '');
      }
    });

    it('permissions up to 511 (react) are accepted', async () => {
      const r = await post('alice', { roomType: RoomType.GROUP, roomName: 'Reactive', permissions: 511 });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.data.defaultPermissions, 511);
    });

    it('an emoji avatar given at creation is the conversation avatar', async () => {
      const r = await post('alice', { roomType: RoomType.GROUP, roomName: 'Emoji', emoji: '🚀', avatarColor: 'ff0000' });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.data.isCustomAvatar, true);
      const img = await fetch(`${t.p.url}/ocs/v2.php/apps/spreed/api/v1/room/${r.data.token}/avatar`, {
        headers: { Authorization: 'Basic ' + Buffer.from('alice:alice-password-123').toString('base64') },
      });
      assert.equal(img.status, 200);
      assert.match(img.headers.get('content-type')!, /^image\/svg\+xml/);
      const svg = await img.text();
      assert.ok(svg.includes('🚀') && svg.includes('#ff0000'), svg);
    });

    it('an emoji avatar given at creation is announced after the creation (avatar_set), as Talk sets it after creating', async () => {
      const r = await post('alice', { roomType: RoomType.GROUP, roomName: 'Announced', emoji: '🚀' });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.data.lastMessage.systemMessage, 'avatar_set');
      assert.equal(r.data.lastMessage.actorId, 'alice');
      assert.equal(r.data.lastReadMessage, r.data.lastMessage.id, 'the creator has read up to the last message');
      const chat = await t.call('GET', `/apps/spreed/api/v1/chat/${r.data.token}`, { as: as('alice'), query: { lookIntoFuture: 0, limit: 10 } });
      assert.deepEqual(
        chat.data.map((m: { systemMessage: string }) => m.systemMessage),
        ['avatar_set', 'conversation_created'],
      );
    });

    it('force_passwords refuses a public conversation created without a password (400 password)', async () => {
      await t.p.services.appConfig.set('force_passwords', 'yes');
      try {
        const before = await roomCount(t.p);
        const r = await post('alice', { roomType: RoomType.PUBLIC, roomName: 'Open' });
        assert.deepEqual([r.status, r.data.error], [400, 'password']);
        assert.equal(await roomCount(t.p), before);
        const ok = await post('alice', { roomType: RoomType.PUBLIC, roomName: 'Closed', password: 'a very good passphrase' });
        assert.equal(ok.status, 201, ok.text);
        assert.equal((await post('alice', { roomType: RoomType.GROUP, roomName: 'Group is fine' })).status, 201);
      } finally {
        await t.p.services.appConfig.set('force_passwords', 'no');
      }
    });

    it('objectType=room: a public conversation the caller is not in answers like a missing one, and misses are throttled', async () => {
      const pub = await createRoom(t.p, 'bob', { roomType: RoomType.PUBLIC, roomName: 'Public, not yours' });
      await setRoom(t.p, pub.token, { breakout_room_mode: 1 });
      const answers = [];
      for (const objectId of [pub.token, 'missingtoken1']) {
        const r = await post('carol', { roomType: RoomType.GROUP, roomName: 'x', objectType: 'room', objectId });
        answers.push([r.status, r.data]);
      }
      assert.deepEqual(answers[0], answers[1], 'existing-but-not-yours and missing answer the same');
      assert.equal(answers[0][0], 400);
      // The cap is 4 failures from this address: the next guesses are 429, as for GET /room/{token}.
      let last = 0;
      for (let i = 0; i < 4; i++)
        last = (await post('carol', { roomType: RoomType.GROUP, roomName: 'x', objectType: 'room', objectId: `guess${i}abc` })).status;
      assert.equal(last, 429);
      assert.equal((await t.call('GET', `${V4}/room/missingtoken2`, { as: as('carol') })).status, 429, 'one throttle for every token miss');
    });
  });
}
