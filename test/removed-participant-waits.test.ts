/**
 * A participant removed while its long-poll waits gets nothing posted after its removal: the
 * chat wait (`GET /chat/{token}?lookIntoFuture=1`) and the internal signaling poll re-check
 * membership before they answer, and answer as for a non-participant (404).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, basic, dialects } from './helpers/parley.js';
import { ocs, TWO_PROCESS_PASSWORD, useTwoProcesses } from './helpers/processes.js';
import { cookieOf } from './helpers/rooms.js';
import { NO_THROTTLE, RoomType, useParley, V4 } from './helpers/fixtures.js';
import { signalingChannel } from '../src/services/signaling/internal-signaling.js';

const CHAT = '/apps/spreed/api/v1/chat';
const V3 = '/apps/spreed/api/v3';
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const dialect of dialects()) {
  describe(`a removed participant's pending wait [${dialect}]`, () => {
    const t = useParley(dialect, { env: { ...NO_THROTTLE, SIGNALING_POLL_SECONDS: '6' }, users: ['owner', 'bob'] });

    it('a guest removed while waiting on the chat gets 404, not the next message', async () => {
      const room = await t.newRoom('owner', { type: RoomType.PUBLIC });
      const first = await t.say(room, 'owner', 'before');
      const guest = await t.newGuest(room);
      const stayer = await t.newGuest(room);
      const wait = (caller: typeof guest.caller) =>
        t.call('GET', `${CHAT}/${room.token}`, { as: caller, query: { lookIntoFuture: 1, timeout: 10, lastKnownMessageId: first } });
      const removed = wait(guest.caller);
      const kept = wait(stayer.caller);
      await pause(300);
      const r = await t.call('DELETE', `${V4}/room/${room.token}/attendees`, { as: as('owner'), body: { attendeeId: guest.attendeeId } });
      assert.equal(r.status, 200, r.text);
      await t.say(room, 'owner', 'after the removal');
      const [gone, still] = await Promise.all([removed, kept]);
      assert.equal(gone.status, 404, gone.text);
      assert.doesNotMatch(gone.text, /after the removal/);
      assert.deepEqual(gone.data, { error: 'room' });
      // The participant who stayed is woken as before.
      assert.equal(still.status, 200, still.text);
      assert.ok((still.data as any[]).length > 0);
    });

    it('a user removed while waiting on the chat gets 404 too', async () => {
      const room = await t.newRoom('owner', { type: RoomType.GROUP, members: ['bob'] });
      const first = await t.say(room, 'owner', 'before');
      const bobRow = await t.services.repos.attendees.find((await t.services.repos.rooms.findByToken(room.token))!.id, 'users', 'bob');
      const removed = t.call('GET', `${CHAT}/${room.token}`, { as: as('bob'), query: { lookIntoFuture: 1, timeout: 10, lastKnownMessageId: first } });
      await pause(300);
      assert.equal((await t.call('DELETE', `${V4}/room/${room.token}/attendees`, { as: as('owner'), body: { attendeeId: bobRow!.id } })).status, 200);
      await t.say(room, 'owner', 'after the removal');
      const gone = await removed;
      assert.equal(gone.status, 404, gone.text);
      assert.doesNotMatch(gone.text, /after the removal/);
    });

    it('an internal signaling poll of a removed guest answers 404, not a message addressed to its session', async () => {
      const room = await t.newRoom('owner', { type: RoomType.PUBLIC });
      const j = await t.call('POST', `${V4}/room/${room.token}/participants/active`, {});
      assert.equal(j.status, 200, j.text);
      const caller = { headers: { Cookie: cookieOf(j) } };
      const sessionId = j.data.sessionId as string;
      const polling = t.call('GET', `${V3}/signaling/${room.token}`, { as: caller });
      await pause(300);
      assert.equal((await t.call('DELETE', `${V4}/room/${room.token}/attendees`, { as: as('owner'), body: { attendeeId: j.data.attendeeId } })).status, 200);
      // A sender that checked the room's sessions just before the removal committed stores its
      // message after it: the row exists and the session's channel is woken.
      const roomId = (await t.services.repos.rooms.findByToken(room.token))!.id;
      await t.services.repos.signaling.insertMessages([
        { room_id: roomId, recipient: sessionId, data: '{"type":"offer","secret":"late"}', created_at: Math.floor(Date.now() / 1000) },
      ]);
      await t.services.db.wake.notify([signalingChannel(sessionId)]);
      const r = await polling;
      assert.equal(r.status, 404, r.text);
      assert.doesNotMatch(r.text, /late/);
    });
  });
}

describe(
  "a removed participant's pending wait across two processes [postgres]",
  { skip: dialects().includes('postgres') ? false : 'PARLEY_TEST_PG is not set' },
  () => {
    // SQLite's wake-ups are in-process by design: a waiter on another process is not woken there.
    const procs = useTwoProcesses('postgres', ['owner', 'bob']);
    const OWNER = basic('owner', TWO_PROCESS_PASSWORD);
    const BOB = basic('bob', TWO_PROCESS_PASSWORD);

    it('removed through A while waiting on B: B answers 404, not the message posted after the removal', async () => {
      const a = procs.a();
      const b = procs.b();
      const token = (await ocs(a, 'POST', `${V4}/room`, OWNER, { roomType: '2', roomName: 'Across' })).data.token as string;
      assert.equal((await ocs(a, 'POST', `${V4}/room/${token}/participants`, OWNER, { newParticipant: 'bob', source: 'users' })).status, 200);
      const first = (await ocs(a, 'POST', `${CHAT}/${token}`, OWNER, { message: 'before' })).data.id as number;
      const bobId = ((await ocs(a, 'GET', `${V4}/room/${token}/participants`, OWNER)).data as any[]).find((x) => x.actorId === 'bob').attendeeId;
      const waiting = ocs(b, 'GET', `${CHAT}/${token}?lookIntoFuture=1&timeout=10&lastKnownMessageId=${first}`, BOB);
      await pause(300);
      assert.equal((await ocs(a, 'DELETE', `${V4}/room/${token}/attendees?attendeeId=${bobId}`, OWNER)).status, 200);
      assert.equal((await ocs(a, 'POST', `${CHAT}/${token}`, OWNER, { message: 'after the removal' })).status, 201);
      const r = await waiting;
      assert.equal(r.status, 404);
      assert.doesNotMatch(JSON.stringify(r.data), /after the removal/);
    });
  },
);
