/**
 * Calls in one-to-one conversations as Talk's CallController::joinCall has them: starting a call
 * in a one-to-one the other user left adds them back (ensureOneToOneRoomIsFilled, as a chat
 * message does), and a former one-to-one (read-only in Talk) refuses calls with 403 `readOnly`.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, dialects } from './helpers/parley.js';
import { attendeesOf, enterRoom, NO_THROTTLE, setRoom, V4 } from './helpers/rooms.js';
import { ParticipantType, RoomType, useParley } from './helpers/fixtures.js';

for (const dialect of dialects()) {
  describe(`calls in one-to-one conversations [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob', 'carol', 'dave'] });

    const users = async (token: string) =>
      (await attendeesOf(t.p, token))
        .filter((a) => a.actor_type === 'users')
        .map((a) => [a.actor_id, a.participant_type])
        .sort();

    it('starting a call in a one-to-one the other user left adds them back as owner', async () => {
      const room = await t.newRoom('alice', { type: RoomType.ONE_TO_ONE, invite: 'bob' });
      const left = await t.call('DELETE', `${V4}/room/${room.token}/participants/self`, { as: as('bob') });
      assert.equal(left.status, 200, left.text);
      assert.deepEqual(await users(room.token), [['alice', ParticipantType.OWNER]], 'bob left');
      const alice = await enterRoom(t.p, 'alice', room.token);
      const joined = await t.call('POST', `${V4}/call/${room.token}`, { as: alice });
      assert.equal(joined.status, 200, joined.text);
      assert.deepEqual(await users(room.token), [
        ['alice', ParticipantType.OWNER],
        ['bob', ParticipantType.OWNER],
      ]);
      // Bob sees the conversation again, with the call in it.
      const seen = await t.call('GET', `${V4}/room/${room.token}`, { as: as('bob') });
      assert.equal(seen.status, 200, seen.text);
      assert.equal(seen.data.hasCall, true);
    });

    it('joining a call with both users present changes nobody', async () => {
      const room = await t.newRoom('carol', { type: RoomType.ONE_TO_ONE, invite: 'dave' });
      const carol = await enterRoom(t.p, 'carol', room.token);
      assert.equal((await t.call('POST', `${V4}/call/${room.token}`, { as: carol })).status, 200);
      assert.deepEqual(await users(room.token), [
        ['carol', ParticipantType.OWNER],
        ['dave', ParticipantType.OWNER],
      ]);
    });

    it('a former one-to-one refuses calls with 403 readOnly (JSON and XML) and starts nothing', async () => {
      const room = await t.newRoom('alice', { type: RoomType.ONE_TO_ONE, invite: 'carol' });
      const alice = await enterRoom(t.p, 'alice', room.token);
      await setRoom(t.p, room.token, { type: RoomType.ONE_TO_ONE_FORMER });
      const json = await t.call('POST', `${V4}/call/${room.token}`, { as: alice });
      assert.deepEqual([json.status, json.data?.error], [403, 'readOnly'], json.text);
      const xml = await t.call('POST', `${V4}/call/${room.token}`, { as: alice, format: 'xml' });
      assert.equal(xml.status, 403, xml.text);
      assert.match(xml.text, /<statuscode>403<\/statuscode>/);
      assert.match(xml.text, /<error>readOnly<\/error>/);
      const peers = await t.call('GET', `${V4}/call/${room.token}`, { as: alice });
      assert.deepEqual([peers.status, peers.data?.error], [403, 'readOnly']);
      const record = await t.call('GET', `${V4}/room/${room.token}`, { as: as('alice') });
      assert.equal(record.data.hasCall, false, 'no call started');
    });

    it('deleting the other user makes the one-to-one a read-only former one: no messages, no calls', async () => {
      await t.newUser('zed');
      const room = await t.newRoom('alice', { type: RoomType.ONE_TO_ONE, invite: 'zed' });
      const alice = await enterRoom(t.p, 'alice', room.token);
      const gone = await t.call('DELETE', '/cloud/users/zed', { as: admin });
      assert.equal(gone.status, 200, gone.text);
      const record = await t.call('GET', `${V4}/room/${room.token}`, { as: as('alice') });
      assert.deepEqual([record.data.type, record.data.readOnly], [RoomType.ONE_TO_ONE_FORMER, 1]);
      const post = await t.call('POST', `/apps/spreed/api/v1/chat/${room.token}`, { as: as('alice'), body: { message: 'hello?' } });
      assert.equal(post.status, 403, post.text);
      const join = await t.call('POST', `${V4}/call/${room.token}`, { as: alice });
      assert.deepEqual([join.status, join.data?.error], [403, 'readOnly']);
    });

    it('changelog and note-to-self still answer 400 type', async () => {
      const note = await t.call('GET', `${V4}/room/note-to-self`, { as: as('dave') });
      assert.equal(note.status, 200, note.text);
      const dave = await enterRoom(t.p, 'dave', note.data.token);
      const r = await t.call('POST', `${V4}/call/${note.data.token}`, { as: dave });
      assert.deepEqual([r.status, r.data?.error], [400, 'type']);
    });
  });
}
