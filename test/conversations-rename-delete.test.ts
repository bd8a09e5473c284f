/** PUT /room/{token} (rename) and DELETE /room/{token} (contract; docs/reference/conversations.md#endpoint-rules). */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, dialects, type Caller } from './helpers/parley.js';
import { attendeesOf, createRoom, joinGuest, NO_THROTTLE, roomRow, seedUser, setRoom, V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

for (const dialect of dialects()) {
  describe(`rename and delete [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob', 'carol', 'dave', 'erin'] });

    const rename = (token: string, roomName: unknown, who?: string | object) =>
      t.call('PUT', `${V4}/room/${token}`, { as: typeof who === 'string' ? as(who) : (who as any), body: roomName === undefined ? {} : { roomName } });
    const del = (token: string, who?: string | object) => t.call('DELETE', `${V4}/room/${token}`, { as: typeof who === 'string' ? as(who) : (who as any) });
    /** [token, caller] pairs the conversation is not found for: a stranger, nobody, an unknown and malformed tokens (404 room). */
    const notFoundFor = (token: string): Array<[string, string | undefined]> => [
      [token, 'erin'],
      [token, undefined],
      ['unknowntok', 'alice'],
      ['NOT-A-TOKEN', 'alice'],
      ['x', 'alice'],
    ];

    describe('PUT /room/{token}', () => {
      let room: any;
      let guestModerator: Caller;
      before(async () => {
        room = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Original' });
        await seedUser(t.p, room.token, 'bob', ParticipantType.MODERATOR);
        await seedUser(t.p, room.token, 'carol', ParticipantType.USER);
        await seedUser(t.p, room.token, 'dave', ParticipantType.USER_SELF_JOINED);
        guestModerator = (await joinGuest(t.p, room.token, ParticipantType.GUEST_MODERATOR)).caller;
      });
      // The guest leaves: its session would otherwise outlive this block (DELETE below counts sessions).
      after(async () => assert.equal((await t.call('DELETE', `${V4}/room/${room.token}/participants/active`, { as: guestModerator })).status, 200));

      it('200 with the record; trimmed; lastActivity moves', async () => {
        await setRoom(t.p, room.token, { last_activity: 100 });
        const r = await rename(room.token, '  Renamed  ', 'alice');
        assert.equal(r.status, 200);
        assert.equal(r.data.name, 'Renamed');
        assert.equal(r.data.token, room.token);
        const row = await roomRow(t.p, room.token);
        assert.equal(row!.name, 'Renamed');
        assert.ok(row!.last_activity > 100);
        assert.equal(r.data.lastActivity, row!.last_activity);
      });

      it('moderators and guest moderators may rename', async () => {
        assert.equal((await rename(room.token, 'By bob', 'bob')).status, 200);
        const g = await t.call('PUT', `${V4}/room/${room.token}`, { as: guestModerator, body: { roomName: 'By guest' } });
        assert.equal(g.status, 200, g.text);
        assert.equal((await roomRow(t.p, room.token))!.name, 'By guest');
      });

      it('an unchanged name is a no-op (lastActivity stays)', async () => {
        await setRoom(t.p, room.token, { last_activity: 100 });
        const r = await rename(room.token, 'By guest', 'alice');
        assert.equal(r.status, 200);
        assert.equal((await roomRow(t.p, room.token))!.last_activity, 100);
      });

      it('403 moderator for users, self-joined users; 404 for strangers, anonymous, unknown and malformed tokens', async () => {
        for (const u of ['carol', 'dave']) {
          const r = await rename(room.token, 'Nope', u);
          assert.equal(r.status, 403, u);
          assert.equal(r.data.error, 'moderator');
        }
        for (const [token, who] of notFoundFor(room.token)) {
          const r = await rename(token, 'Nope', who);
          assert.equal(r.status, 404, `${token} ${who}`);
          assert.equal(r.data.error, 'room');
        }
        assert.equal((await roomRow(t.p, room.token))!.name, 'By guest');
      });

      it('400 value for empty, blank, too long, missing or wrong-typed names; nothing changed', async () => {
        for (const name of ['', '   ', 'x'.repeat(256), undefined, { a: 1 }, ['x']]) {
          const r = await rename(room.token, name, 'alice');
          assert.equal(r.status, 400, JSON.stringify(name));
          assert.equal(r.data.error, 'value');
        }
        assert.equal((await roomRow(t.p, room.token))!.name, 'By guest');
      });

      it('400 type for one-to-one, 400 event for event conversations', async () => {
        const one = await createRoom(t.p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
        const r = await rename(one.token, 'Nope', 'alice');
        assert.equal(r.status, 400);
        assert.equal(r.data.error, 'type');
        const ev = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Meeting' });
        await setRoom(t.p, ev.token, { object_type: 'event', object_id: '1#2' });
        const e = await rename(ev.token, 'Nope', 'alice');
        assert.equal(e.status, 400);
        assert.equal(e.data.error, 'event');
        assert.equal((await roomRow(t.p, ev.token))!.name, 'Meeting');
      });
    });

    describe('DELETE /room/{token}', () => {
      it('200 (data null); the room, its attendees and their sessions are gone', async () => {
        const room = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Doomed' });
        const bob = await seedUser(t.p, room.token, 'bob');
        const keep = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Keep' });
        const kept = await seedUser(t.p, keep.token, 'bob');
        await t.p.services.db.kysely
          .insertInto('sessions')
          .values([
            { attendee_id: bob.id, session_id: 's-doomed', in_call: 0, last_ping: 1, state: 1 },
            { attendee_id: kept.id, session_id: 's-kept', in_call: 0, last_ping: 1, state: 1 },
          ])
          .execute();
        const r = await del(room.token, 'alice');
        assert.equal(r.status, 200);
        assert.equal(r.data, null);
        assert.equal(await roomRow(t.p, room.token), undefined);
        assert.deepEqual(await attendeesOf(t.p, room.token), []);
        const sessions = await t.p.services.db.kysely.selectFrom('sessions').select('session_id').execute();
        assert.deepEqual(
          sessions.map((s) => s.session_id),
          ['s-kept'],
        );
        assert.equal((await attendeesOf(t.p, keep.token)).length, 2);
        assert.equal((await t.call('GET', `${V4}/room/${room.token}`, { as: as('alice') })).status, 404);
      });

      it('deleting a parent deletes its breakout rooms, nothing else', async () => {
        const parent = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Parent' });
        await setRoom(t.p, parent.token, { breakout_room_mode: 1, breakout_room_status: 1 });
        const c1 = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Child 1', objectType: 'room', objectId: parent.token });
        const c2 = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Child 2', objectType: 'room', objectId: parent.token });
        const other = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'Other' });
        assert.equal((await del(parent.token, 'alice')).status, 200);
        for (const token of [parent.token, c1.token, c2.token]) assert.equal(await roomRow(t.p, token), undefined, token);
        assert.ok(await roomRow(t.p, other.token));
      });

      it('moderators and guest moderators may delete; 403 for users; 404 for strangers and bad tokens', async () => {
        const room = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Rights' });
        await seedUser(t.p, room.token, 'carol', ParticipantType.USER);
        await seedUser(t.p, room.token, 'dave', ParticipantType.USER_SELF_JOINED);
        for (const u of ['carol', 'dave']) {
          const r = await del(room.token, u);
          assert.equal(r.status, 403);
          assert.equal(r.data.error, 'moderator');
        }
        for (const [token, who] of notFoundFor(room.token)) {
          const r = await del(token, who);
          assert.equal(r.status, 404, `${token} ${who}`);
          assert.equal(r.data.error, 'room');
        }
        assert.ok(await roomRow(t.p, room.token));
        const { caller: guestModerator } = await joinGuest(t.p, room.token, ParticipantType.GUEST_MODERATOR);
        const g = await t.call('DELETE', `${V4}/room/${room.token}`, { as: guestModerator });
        assert.equal(g.status, 200);
        assert.equal(await roomRow(t.p, room.token), undefined);
        const m = await createRoom(t.p, 'alice', { roomType: RoomType.GROUP, roomName: 'By moderator' });
        await seedUser(t.p, m.token, 'bob', ParticipantType.MODERATOR);
        assert.equal((await del(m.token, 'bob')).status, 200);
      });

      it('400 type for one-to-one unless delete_one_to_one_conversations is on', async () => {
        const one = await createRoom(t.p, 'carol', { roomType: RoomType.ONE_TO_ONE, invite: 'dave' });
        const r = await del(one.token, 'carol');
        assert.equal(r.status, 400);
        assert.equal(r.data.error, 'type');
        assert.ok(await roomRow(t.p, one.token));
        const before = await t.call('GET', `${V4}/room/${one.token}`, { as: as('carol') });
        assert.equal(before.data.canDeleteConversation, false);
        await t.p.services.appConfig.set('delete_one_to_one_conversations', '1');
        try {
          const rec = await t.call('GET', `${V4}/room/${one.token}`, { as: as('carol') });
          assert.equal(rec.data.canDeleteConversation, true);
          assert.equal(rec.data.canLeaveConversation, false);
          assert.equal((await del(one.token, 'carol')).status, 200);
          assert.equal(await roomRow(t.p, one.token), undefined);
        } finally {
          await t.p.services.appConfig.set('delete_one_to_one_conversations', '0');
        }
      });
    });
  });
}
