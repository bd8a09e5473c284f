/** POST /room (contract "Create a conversation"; docs/reference/conversations.md#creation). */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, createUser, dialects } from './helpers/parley.js';
import { attendeesOf, createRoom, NO_THROTTLE, roomCount, roomRow, seedAttendee, seedUser, setRoom, V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

for (const dialect of dialects()) {
  describe(`POST /room [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE });
    before(async () => {
      await createUser(t.p, 'alice', { displayName: 'Alice A' });
      await createUser(t.p, 'bob', { displayName: 'Bob B' });
      await createUser(t.p, 'carol', { groups: ['creators'] });
      await t.p.services.directory.createGroup('team', '  The Team of everyone who works here and a very long suffix that is cut  ');
      await t.p.services.directory.addToGroup('team', 'bob');
      await t.p.services.directory.addToGroup('team', 'carol');
      await t.p.services.directory.addToGroup('team', 'alice');
    });

    const post = (user: string | undefined, body: unknown, format: 'json' | 'xml' = 'json') =>
      t.call('POST', `${V4}/room`, { as: user ? as(user) : undefined, body, format });

    it('401 when not logged in', async () => {
      const r = await post(undefined, { roomType: RoomType.GROUP, roomName: 'x' });
      assert.equal(r.status, 401);
    });

    it('400 type for a missing, unknown or malformed roomType; nothing created', async () => {
      const before = await roomCount(t.p);
      for (const body of [
        { roomName: 'x' },
        { roomType: RoomType.CHANGELOG, roomName: 'x' },
        { roomType: 0, roomName: 'x' },
        { roomType: 'abc', roomName: 'x' },
        { roomType: RoomType.NOTE_TO_SELF, roomName: 'x' },
      ]) {
        const r = await post('alice', body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.data.error, 'type');
      }
      assert.equal(await roomCount(t.p), before);
    });

    it('group: 201, name trimmed, caller is owner (participantType 1)', async () => {
      const r = await post('alice', { roomType: RoomType.GROUP, roomName: '  Planning  ' });
      assert.equal(r.status, 201);
      assert.equal(r.data.type, RoomType.GROUP);
      assert.equal(r.data.name, 'Planning');
      assert.equal(r.data.displayName, 'Planning');
      assert.equal(r.data.participantType, ParticipantType.OWNER);
      assert.equal(r.data.actorType, 'users');
      assert.equal(r.data.actorId, 'alice');
      assert.match(r.data.token, /^[abcdefghijkmnopqrstuvwxyz23456789]{8}$/);
      const rows = await attendeesOf(t.p, r.data.token);
      assert.deepEqual(
        rows.map((a) => [a.actor_type, a.actor_id, a.participant_type]),
        [['users', 'alice', ParticipantType.OWNER]],
      );
      const row = await roomRow(t.p, r.data.token);
      assert.ok(row!.last_activity > 0);
      assert.equal(r.data.lastActivity, row!.last_activity);
    });

    it('400 name for empty, blank, too long names, wrong type; nothing created', async () => {
      const before = await roomCount(t.p);
      for (const roomName of ['', '   ', 'x'.repeat(256), 'é'.repeat(256)]) {
        for (const roomType of [RoomType.GROUP, RoomType.PUBLIC]) {
          const r = await post('alice', { roomType, roomName });
          assert.equal(r.status, 400, `${roomType} ${roomName.length}`);
          assert.equal(r.data.error, 'name');
        }
      }
      const r = await post('alice', { roomType: RoomType.GROUP, roomName: { a: 1 } });
      assert.equal(r.status, 400);
      assert.equal(r.data.error, 'name');
      assert.equal(await roomCount(t.p), before);
    });

    it('255 multibyte characters are accepted', async () => {
      const r = await post('alice', { roomType: RoomType.GROUP, roomName: 'é'.repeat(255) });
      assert.equal(r.status, 201);
      assert.equal(r.data.name, 'é'.repeat(255));
    });

    it('public: 201 type 3', async () => {
      const r = await post('alice', { roomType: RoomType.PUBLIC, roomName: 'Open house' });
      assert.equal(r.status, 201);
      assert.equal(r.data.type, RoomType.PUBLIC);
      assert.equal(r.data.name, 'Open house');
    });

    it('one-to-one: 201 then 200 with the same conversation, from either side', async () => {
      const r = await post('alice', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
      assert.equal(r.status, 201);
      assert.equal(r.data.type, RoomType.ONE_TO_ONE);
      assert.equal(r.data.name, 'bob');
      assert.equal(r.data.displayName, 'Bob B');
      assert.equal(r.data.participantType, ParticipantType.OWNER);
      assert.equal((await roomRow(t.p, r.data.token))!.name, '["alice","bob"]');
      const again = await post('alice', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
      assert.equal(again.status, 200);
      assert.equal(again.data.token, r.data.token);
      const other = await post('bob', { roomType: RoomType.ONE_TO_ONE, invite: 'alice' });
      assert.equal(other.status, 200);
      assert.equal(other.data.token, r.data.token);
      assert.equal(other.data.name, 'alice');
      assert.equal(other.data.displayName, 'Alice A');
      // Both are owners; bob sees it in his list without doing anything.
      const rows = await attendeesOf(t.p, r.data.token);
      assert.deepEqual(rows.map((a) => [a.actor_id, a.participant_type]).sort(), [
        ['alice', ParticipantType.OWNER],
        ['bob', ParticipantType.OWNER],
      ]);
    });

    it('one-to-one: the caller who left is added back (200)', async () => {
      const r = await post('carol', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
      assert.equal(r.status, 201);
      const row = await roomRow(t.p, r.data.token);
      await t.p.services.db.kysely.deleteFrom('attendees').where('room_id', '=', row!.id).where('actor_id', '=', 'carol').execute();
      const again = await post('carol', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
      assert.equal(again.status, 200);
      assert.equal(again.data.participantType, ParticipantType.OWNER);
      assert.equal(again.data.token, r.data.token);
    });

    it('one-to-one: 404 invite for unknown or empty target, 403 invite for yourself; nothing created', async () => {
      const before = await roomCount(t.p);
      for (const invite of ['nobody', '']) {
        const r = await post('alice', { roomType: RoomType.ONE_TO_ONE, invite });
        assert.equal(r.status, 404);
        assert.equal(r.data.error, 'invite');
      }
      const self = await post('alice', { roomType: RoomType.ONE_TO_ONE, invite: 'alice' });
      assert.equal(self.status, 403);
      assert.equal(self.data.error, 'invite');
      assert.equal(await roomCount(t.p), before);
    });

    it('group with an invited group: name from the group, members and the group added', async () => {
      const r = await post('alice', { roomType: RoomType.GROUP, invite: 'team' });
      assert.equal(r.status, 201);
      assert.equal(r.data.name, 'The Team of everyone who works here and a very long suffix that');
      const rows = await attendeesOf(t.p, r.data.token);
      assert.deepEqual(rows.map((a) => [a.actor_type, a.actor_id, a.participant_type]).sort(), [
        ['groups', 'team', ParticipantType.USER],
        ['users', 'alice', ParticipantType.OWNER],
        ['users', 'bob', ParticipantType.USER],
        ['users', 'carol', ParticipantType.USER],
      ]);
      const named = await post('alice', { roomType: RoomType.GROUP, invite: 'team', source: 'groups', roomName: 'Own name' });
      assert.equal(named.status, 201);
      assert.equal(named.data.name, 'Own name');
    });

    it('group invite: 404 invite for an unknown group; every source but circles is a group invite (Talk)', async () => {
      const before = await roomCount(t.p);
      const r = await post('alice', { roomType: RoomType.GROUP, invite: 'no-such-group' });
      assert.equal(r.status, 404);
      assert.equal(r.data.error, 'invite');
      assert.equal(await roomCount(t.p), before);
      for (const source of ['group', 'emails', 'whatever']) {
        const s = await post('alice', { roomType: RoomType.GROUP, invite: 'team', source });
        assert.equal(s.status, 201, source);
        assert.ok(
          (await attendeesOf(t.p, s.data.token)).some((a) => a.actor_type === 'groups' && a.actor_id === 'team'),
          source,
        );
      }
    });

    it('start_conversations: 403 permissions outside the groups (not for one-to-one)', async () => {
      await t.p.services.appConfig.set('start_conversations', '["creators"]');
      try {
        const before = await roomCount(t.p);
        for (const roomType of [RoomType.GROUP, RoomType.PUBLIC]) {
          const r = await post('bob', { roomType, roomName: 'nope' });
          assert.equal(r.status, 403);
          assert.equal(r.data.error, 'permissions');
        }
        assert.equal(await roomCount(t.p), before);
        assert.equal((await post('carol', { roomType: RoomType.GROUP, roomName: 'yes' })).status, 201);
        assert.equal((await post('alice', { roomType: RoomType.ONE_TO_ONE, invite: 'carol' })).status, 201);
      } finally {
        await t.p.services.appConfig.set('start_conversations', '[]');
      }
    });

    describe('breakout children (objectType room)', () => {
      let parent: any;
      before(async () => {
        parent = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Workshop' });
        await seedUser(t.p, parent.token, 'bob', ParticipantType.MODERATOR);
        await seedUser(t.p, parent.token, 'carol', ParticipantType.USER);
        await seedAttendee(t.p, parent.token, {
          actorType: 'guests',
          actorId: 'g1',
          displayName: 'Guest mod',
          participantType: ParticipantType.GUEST_MODERATOR,
        });
      });

      it('400 mode while the parent has no breakout rooms configured', async () => {
        const r = await post('alice', { roomType: RoomType.GROUP, roomName: 'Room 1', objectType: 'room', objectId: parent.token });
        assert.equal(r.status, 400);
        assert.equal(r.data.error, 'mode');
      });

      it('creates a child: parent type, lobby while stopped, parent moderators added', async () => {
        await setRoom(t.p, parent.token, { breakout_room_mode: 1, breakout_room_status: 0 });
        const r = await post('alice', { roomType: RoomType.GROUP, roomName: 'Room 1', objectType: 'room', objectId: parent.token });
        assert.equal(r.status, 201);
        assert.equal(r.data.type, RoomType.PUBLIC);
        assert.equal(r.data.objectType, 'room');
        assert.equal(r.data.objectId, parent.token);
        assert.equal(r.data.lobbyState, 1);
        const rows = await attendeesOf(t.p, r.data.token);
        assert.deepEqual(rows.map((a) => [a.actor_type, a.actor_id, a.participant_type]).sort(), [
          ['guests', 'g1', ParticipantType.GUEST_MODERATOR],
          ['users', 'alice', ParticipantType.OWNER],
          ['users', 'bob', ParticipantType.MODERATOR],
        ]);
      });

      it('no lobby when breakout rooms are started; a moderator of the parent may create', async () => {
        await setRoom(t.p, parent.token, { breakout_room_status: 1 });
        const r = await post('bob', { roomType: RoomType.GROUP, roomName: 'Room 2', objectType: 'room', objectId: parent.token });
        assert.equal(r.status, 201);
        assert.equal(r.data.lobbyState, 0);
        assert.equal(r.data.participantType, ParticipantType.OWNER);
      });

      it('400 permissions for non-moderators, 400 room for unknown or invisible parents, 400 object otherwise', async () => {
        const before = await roomCount(t.p);
        const nm = await post('carol', { roomType: RoomType.GROUP, roomName: 'x', objectType: 'room', objectId: parent.token });
        assert.equal(nm.status, 400);
        assert.equal(nm.data.error, 'permissions');
        const hidden = await createRoom(t.p, 'bob', { roomType: RoomType.GROUP, roomName: 'Hidden' });
        for (const objectId of ['unknowntoken', hidden.token, '', 'BAD!']) {
          const r = await post('alice', { roomType: RoomType.GROUP, roomName: 'x', objectType: 'room', objectId });
          assert.equal(r.status, 400, objectId);
          assert.equal(r.data.error, 'room');
        }
        for (const body of [
          { objectType: 'file', objectId: '12' },
          { objectType: '', objectId: parent.token },
          { objectType: 'x'.repeat(65), objectId: parent.token },
        ]) {
          const r = await post('alice', { roomType: RoomType.GROUP, roomName: 'x', ...body });
          assert.equal(r.status, 400, JSON.stringify(body));
          assert.equal(r.data.error, 'object');
        }
        assert.equal(await roomCount(t.p), before + 1);
      });
    });

    it('tokens: length from token_entropy; numeric and SIP compatible when SIP is configured', async () => {
      await t.p.services.appConfig.set('token_entropy', '12');
      const long = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Long token' });
      assert.match(long.token, /^[a-km-z2-9]{12}$/);
      await t.p.services.appConfig.set('token_entropy', '8');
      await t.p.services.appConfig.set('sip_bridge_shared_secret', 'secret-secret');
      await t.p.services.appConfig.set('sip_bridge_dialin_info', 'Call +1 555');
      try {
        const sip = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'SIP' });
        assert.match(sip.token, /^[1-9]\d{9}$/);
        assert.ok(!/(\d)\1/.test(sip.token));
      } finally {
        await t.p.services.appConfig.set('sip_bridge_shared_secret', '');
        await t.p.services.appConfig.set('sip_bridge_dialin_info', '');
      }
    });

    it('answers in XML and on v1 as well', async () => {
      const x = await post('alice', { roomType: RoomType.GROUP, roomName: 'In XML' }, 'xml');
      assert.equal(x.status, 201);
      assert.match(x.text, /<statuscode>201<\/statuscode>/);
      assert.match(x.text, /<name>In XML<\/name>/);
      const v1 = await t.call('POST', `${V4}/room`, { as: as('alice'), body: { roomType: RoomType.GROUP, roomName: 'v1' }, version: 1 });
      assert.equal(v1.status, 200);
      assert.equal(v1.meta.statuscode, 201);
      assert.equal(v1.data.name, 'v1');
    });
  });
}
