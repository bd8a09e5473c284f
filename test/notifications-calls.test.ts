/**
 * Call notifications fed by the call API through the event bus (docs/reference/accounts-and-login.md,
 * Talk's notifier): starting a call notifies the conversation's other users, joining removes
 * one's own, and the call ending turns the rest into missed calls; a silent call notifies nobody.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, startParley, type Caller, type Parley } from './helpers/parley.js';
import { enterRoom, createRoom, NO_THROTTLE, seedUser, V4 } from './helpers/rooms.js';
import { RoomType } from './helpers/fixtures.js';

const NOTES = '/ocs/v2.php/apps/notifications/api/v2/notifications';

for (const dialect of dialects()) {
  describe(`call notifications [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      for (const u of ['alice', 'bob', 'carol']) await createUser(p, u, { displayName: u[0].toUpperCase() + u.slice(1) });
    });
    after(async () => p.close());

    const enter = (user: string, token: string): Promise<Caller> => enterRoom(p, user, token);
    const callNotes = async (user: string) => ((await call(p, 'GET', NOTES, { as: as(user) })).data as any[]).filter((n) => n.object_type === 'call');
    async function groupRoom(name: string): Promise<string> {
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: name });
      await seedUser(p, room.token, 'bob');
      await seedUser(p, room.token, 'carol');
      return room.token as string;
    }

    it('a started call notifies the others; joining removes it; the end makes it a missed call', async () => {
      const token = await groupRoom('Standup');
      const alice = await enter('alice', token);
      assert.equal((await call(p, 'POST', `${V4}/call/${token}`, { as: alice, body: {} })).status, 200);
      assert.equal((await callNotes('alice')).length, 0, 'not the one who started it');
      assert.equal((await callNotes('bob')).length, 1);
      assert.equal((await callNotes('carol')).length, 1);

      const bob = await enter('bob', token);
      assert.equal((await call(p, 'POST', `${V4}/call/${token}`, { as: bob, body: {} })).status, 200);
      assert.equal((await callNotes('bob')).length, 0, 'joining the call reads its notification');

      assert.equal((await call(p, 'DELETE', `${V4}/call/${token}`, { as: alice })).status, 200);
      assert.equal((await call(p, 'DELETE', `${V4}/call/${token}`, { as: bob })).status, 200);
      const [missed] = await callNotes('carol');
      assert.equal(missed.subject, 'You missed a group call in Standup');
    });

    it('a silent call notifies nobody', async () => {
      const token = await groupRoom('Quiet');
      const alice = await enter('alice', token);
      assert.equal((await call(p, 'POST', `${V4}/call/${token}`, { as: alice, body: { silent: true } })).status, 200);
      assert.equal((await callNotes('bob')).length, 0);
      assert.equal((await call(p, 'DELETE', `${V4}/call/${token}`, { as: alice })).status, 200);
    });
    it('ringing an attendee gives that user (and nobody else) a call notification, even with call notifications off', async () => {
      const token = await groupRoom('Ring');
      const alice = await enter('alice', token);
      assert.equal((await call(p, 'POST', `${V4}/call/${token}`, { as: alice, body: { silent: true } })).status, 200);
      assert.equal((await callNotes('bob')).length, 0, 'silent call');
      // Bob turned call notifications off: a ring still reaches him (Talk's sendCallNotification).
      const bobSession = await enter('bob', token);
      assert.equal((await call(p, 'POST', `${V4}/room/${token}/notify-calls`, { as: bobSession, body: { level: 0 } })).status, 200);
      const list = await call(p, 'GET', `${V4}/room/${token}/participants`, { as: alice });
      const bob = list.data.find((x: any) => x.actorId === 'bob');
      const r = await call(p, 'POST', `${V4}/call/${token}/ring/${bob.attendeeId}`, { as: alice });
      assert.equal(r.status, 200, r.text);
      const [note] = (await callNotes('bob')).filter((n) => n.object_id === token);
      assert.ok(note, 'bob was rung');
      assert.equal(note.object_id, token);
      assert.match(note.subject, /call/);
      assert.equal((await callNotes('carol')).filter((n) => n.object_id === token).length, 0, 'only the rung attendee');
      // Capability advertised because this works.
      const caps = (await call(p, 'GET', '/cloud/capabilities', { as: as('bob') })).data.capabilities.spreed;
      assert.ok(caps.features.includes('send-call-notification'));
      assert.equal((await call(p, 'DELETE', `${V4}/call/${token}`, { as: alice })).status, 200);
    });
  });
}
