/**
 * Calls leave their trace in the chat (docs/reference/chat.md#system-messages call_*): call_started (silent when
 * the join was), call_joined, call_left, call_ended with the users who took part and the
 * duration, call_ended_everyone by a moderator or the max_call_duration job, and call_missed in a
 * one-to-one that only the caller joined (the caller sees call_tried). Over HTTP.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, startParley, type Caller, type Parley } from './helpers/parley.js';
import { enterRoom, createRoom, NO_THROTTLE, seedUser, V4 } from './helpers/rooms.js';
import { jobs, runJobIfDue } from '../src/jobs/index.js';
import { RoomType } from './helpers/fixtures.js';

const V1 = '/apps/spreed/api/v1';

/**
 * Talk's OpenAPI types messageParameters as a map of rich objects (TalkRichObjectParameter:
 * `type`, `id` and `name` strings, every other value a string too): no arrays, no numbers.
 */
function assertRichObjectsOnly(m: any): void {
  const params = m.messageParameters;
  if (Array.isArray(params)) return assert.equal(params.length, 0, `${m.systemMessage}: a list instead of a map`);
  for (const [key, value] of Object.entries(params as Record<string, any>)) {
    assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), `${m.systemMessage}.${key} is not a rich object: ${JSON.stringify(value)}`);
    for (const field of ['type', 'id', 'name']) assert.equal(typeof value[field], 'string', `${m.systemMessage}.${key}.${field}`);
    for (const [k, v] of Object.entries(value)) assert.equal(typeof v, 'string', `${m.systemMessage}.${key}.${k}`);
  }
}

for (const dialect of dialects()) {
  describe(`call system messages [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      for (const [u, name] of [
        ['alice', 'Alice A'],
        ['bob', 'Bob B'],
        ['carol', 'Carol C'],
      ])
        await createUser(p, u, { displayName: name });
    });
    after(async () => p.close());

    const enter = (user: string, token: string): Promise<Caller> => enterRoom(p, user, token);
    const join = (who: Caller, token: string, body: Record<string, unknown> = {}) => call(p, 'POST', `${V4}/call/${token}`, { as: who, body });
    const leave = (who: Caller, token: string, query: Record<string, string> = {}) => call(p, 'DELETE', `${V4}/call/${token}`, { as: who, query });
    /** The call messages of the room, oldest first, as `viewer` sees them. */
    async function callMessages(token: string, viewer = 'carol'): Promise<any[]> {
      const r = await call(p, 'GET', `${V1}/chat/${token}`, { as: as(viewer), query: { lookIntoFuture: 0, limit: 100 } });
      assert.equal(r.status, 200, r.text);
      return (r.data as any[]).filter((m) => /^call_/.test(m.systemMessage)).reverse();
    }
    async function groupRoom(name: string): Promise<string> {
      const room = await createRoom(p, 'alice', { roomType: RoomType.GROUP, roomName: name });
      await seedUser(p, room.token, 'bob');
      await seedUser(p, room.token, 'carol');
      return room.token as string;
    }

    it('started, joined, left, ended: one message each, by the right actor, with who took part and the duration', async () => {
      const token = await groupRoom('Daily');
      const alice = await enter('alice', token);
      const bob = await enter('bob', token);
      assert.equal((await join(alice, token)).status, 200);
      assert.equal((await join(bob, token)).status, 200);
      // A flags change is no chat event.
      assert.equal((await call(p, 'PUT', `${V4}/call/${token}`, { as: bob, body: { flags: 1 } })).status, 200);
      assert.equal((await leave(bob, token)).status, 200);
      assert.equal((await leave(alice, token)).status, 200);
      const msgs = await callMessages(token);
      assert.deepEqual(
        msgs.map((m) => [m.systemMessage, m.actorId]),
        [
          ['call_started', 'alice'],
          ['call_joined', 'bob'],
          ['call_left', 'bob'],
          ['call_left', 'alice'],
          ['call_ended', 'alice'],
        ],
      );
      assert.equal(msgs[0].message, '{actor} started a call');
      assert.equal(msgs[0].messageParameters.actor.name, 'Alice A');
      assert.equal(msgs[1].message, '{actor} joined the call');
      assert.equal(msgs[2].message, '{actor} left the call');
      const ended = msgs[4];
      assert.match(ended.message, /^Call with \{user1\} and \{user2\} ended \(Duration \d+:\d\d\)$/);
      assert.deepEqual([ended.messageParameters.user1.id, ended.messageParameters.user2.id].sort(), ['alice', 'bob']);
      assert.equal(ended.messageParameters.user1.type, 'user');
      // The actor sees "You".
      const own = (await callMessages(token, 'alice'))[0];
      assert.equal(own.message, 'You started a call');
    });

    it('a silent call starts with a silent call_started', async () => {
      const token = await groupRoom('Silent');
      const alice = await enter('alice', token);
      assert.equal((await join(alice, token, { silent: true })).status, 200);
      assert.equal((await leave(alice, token)).status, 200);
      const [started] = await callMessages(token);
      assert.equal(started.systemMessage, 'call_started');
      assert.equal(started.silent, true);
      assert.equal(started.message, '{actor} started a silent call');
    });

    it('a moderator ending the call for everyone: call_ended_everyone, no call_left for the others', async () => {
      const token = await groupRoom('Ended for all');
      const alice = await enter('alice', token);
      const bob = await enter('bob', token);
      assert.equal((await join(alice, token)).status, 200);
      assert.equal((await join(bob, token)).status, 200);
      assert.equal((await leave(alice, token, { all: 'true' })).status, 200);
      const msgs = await callMessages(token);
      assert.deepEqual(
        msgs.map((m) => [m.systemMessage, m.actorId]),
        [
          ['call_started', 'alice'],
          ['call_joined', 'bob'],
          ['call_ended_everyone', 'alice'],
        ],
      );
      // The moderator is the subject, not among "with …".
      assert.match(msgs[2].message, /^\{actor\} ended the call with \{user1\} \(Duration \d+:\d\d\)$/);
      assert.equal(msgs[2].messageParameters.user1.id, 'bob');
    });

    it('the max_call_duration job ends the call "as it reached the maximum call duration"', async () => {
      const token = await groupRoom('Too long');
      const alice = await enter('alice', token);
      assert.equal((await join(alice, token)).status, 200);
      await p.services.appConfig.set('max_call_duration', '1');
      try {
        await new Promise((r) => setTimeout(r, 1100));
        const out = await runJobIfDue(
          p.services,
          jobs.find((j) => j.name === 'call-duration')!,
          true,
        );
        assert.equal(out.status, 'ok', out.error);
      } finally {
        await p.services.appConfig.set('max_call_duration', '0');
      }
      const last = (await callMessages(token)).at(-1);
      assert.equal(last.systemMessage, 'call_ended_everyone');
      assert.deepEqual([last.actorType, last.actorId], ['guests', 'system']);
      assert.match(last.message, /^Call with \{user1\} was ended, as it reached the maximum call duration \(Duration \d+:\d\d\)$/);
    });

    it('a one-to-one call only the caller joined is a missed call; the caller sees an unanswered call', async () => {
      const room = await createRoom(p, 'alice', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
      const alice = await enter('alice', room.token);
      assert.equal((await join(alice, room.token)).status, 200);
      assert.equal((await leave(alice, room.token)).status, 200);
      const seenByBob = (await callMessages(room.token, 'bob')).at(-1);
      assert.equal(seenByBob.systemMessage, 'call_missed');
      assert.equal(seenByBob.message, 'Missed call');
      // Who missed it sees the caller as {user}; the caller sees the one they tried to reach.
      assert.deepEqual([seenByBob.messageParameters.user.id, seenByBob.messageParameters.user.name], ['alice', 'Alice A']);
      const seenByAlice = (await callMessages(room.token, 'alice')).at(-1);
      assert.equal(seenByAlice.systemMessage, 'call_tried');
      assert.equal(seenByAlice.message, 'Unanswered call');
      assert.deepEqual(
        [seenByAlice.messageParameters.user.type, seenByAlice.messageParameters.user.id, seenByAlice.messageParameters.user.name],
        ['user', 'bob', 'Bob B'],
      );
      assert.equal(seenByAlice.messageParameters.user1, undefined);
      // One-to-one calls are outgoing for the caller and incoming for the other.
      assert.equal((await callMessages(room.token, 'alice'))[0].message, 'Outgoing call');
      assert.equal((await callMessages(room.token, 'bob'))[0].message, 'Incoming call');

      // Answered: both joined → call_ended.
      const bob = await enter('bob', room.token);
      assert.equal((await join(alice, room.token)).status, 200);
      assert.equal((await join(bob, room.token)).status, 200);
      assert.equal((await leave(alice, room.token)).status, 200);
      assert.equal((await leave(bob, room.token)).status, 200);
      const ended = (await callMessages(room.token, 'bob')).at(-1);
      assert.equal(ended.systemMessage, 'call_ended');
      assert.match(ended.message, /^Call ended \(Duration \d+:\d\d\)$/);

      // A silent one-to-one call says so.
      assert.equal((await join(alice, room.token, { silent: true })).status, 200);
      assert.equal((await leave(alice, room.token)).status, 200);
      const silent = (await callMessages(room.token, 'bob')).filter((m) => m.systemMessage === 'call_started').at(-1);
      assert.equal(silent.message, 'Incoming silent call');
    });

    it("call messages carry rich objects only: actor and the users the text names, as Talk's parser", async () => {
      const token = await groupRoom('Shapes');
      const alice = await enter('alice', token);
      const bob = await enter('bob', token);
      assert.equal((await join(alice, token)).status, 200);
      assert.equal((await join(bob, token)).status, 200);
      assert.equal((await leave(bob, token)).status, 200);
      assert.equal((await leave(alice, token)).status, 200);
      assert.equal((await join(alice, token)).status, 200);
      assert.equal((await join(bob, token)).status, 200);
      assert.equal((await leave(alice, token, { all: 'true' })).status, 200);
      const msgs = await callMessages(token);
      for (const m of msgs) assertRichObjectsOnly(m);
      const ended = msgs.find((m) => m.systemMessage === 'call_ended');
      assert.deepEqual(Object.keys(ended.messageParameters).sort(), ['actor', 'user1', 'user2']);
      const everyone = msgs.find((m) => m.systemMessage === 'call_ended_everyone');
      assert.deepEqual(Object.keys(everyone.messageParameters).sort(), ['actor', 'user1']);

      // One-to-one: the end names nobody but its actor; a missed call only `user` (no actor).
      const one = await createRoom(p, 'carol', { roomType: RoomType.ONE_TO_ONE, invite: 'bob' });
      const carol = await enter('carol', one.token);
      const bob1 = await enter('bob', one.token);
      assert.equal((await join(carol, one.token)).status, 200);
      assert.equal((await leave(carol, one.token)).status, 200);
      assert.equal((await join(carol, one.token)).status, 200);
      assert.equal((await join(bob1, one.token)).status, 200);
      assert.equal((await leave(carol, one.token, { all: 'true' })).status, 200);
      for (const viewer of ['carol', 'bob']) {
        const calls = await callMessages(one.token, viewer);
        for (const m of calls) assertRichObjectsOnly(m);
        const missed = calls.find((m) => m.systemMessage === 'call_missed' || m.systemMessage === 'call_tried');
        assert.deepEqual(Object.keys(missed.messageParameters), ['user']);
        const end = calls.at(-1);
        assert.equal(end.systemMessage, 'call_ended_everyone');
        assert.deepEqual(Object.keys(end.messageParameters), ['actor']);
        assert.match(end.message, /^Call ended \(Duration \d+:\d\d\)$/);
      }
    });

    it('past five users the text names four and "N others", and only those four are parameters', async () => {
      const token = await groupRoom('Crowd');
      const people = ['dave', 'erin', 'frank'];
      for (const u of people) {
        await createUser(p, u);
        await seedUser(p, token, u);
      }
      const callers: Caller[] = [];
      for (const u of ['alice', 'bob', 'carol', ...people]) {
        const c = await enter(u, token);
        assert.equal((await join(c, token)).status, 200);
        callers.push(c);
      }
      for (const c of callers) assert.equal((await leave(c, token)).status, 200);
      const ended = (await callMessages(token)).at(-1);
      assert.equal(ended.systemMessage, 'call_ended');
      assert.match(ended.message, /^Call with \{user1\}, \{user2\}, \{user3\}, \{user4\} and 2 others ended/);
      assertRichObjectsOnly(ended);
      assert.deepEqual(Object.keys(ended.messageParameters).sort(), ['actor', 'user1', 'user2', 'user3', 'user4']);
    });

    it('the last one leaving the conversation while in the call ends it as the system; leaving the call ends it as the leaver', async () => {
      const token = await groupRoom('Left the room');
      const alice = await enter('alice', token);
      const bob = await enter('bob', token);
      assert.equal((await join(alice, token)).status, 200);
      assert.equal((await join(bob, token)).status, 200);
      assert.equal((await leave(bob, token)).status, 200);
      // alice closes the conversation without leaving the call first.
      assert.equal((await call(p, 'DELETE', `${V4}/room/${token}/participants/active`, { as: alice })).status, 200);
      const msgs = await callMessages(token);
      assert.deepEqual(
        msgs.slice(-2).map((m) => [m.systemMessage, m.actorType, m.actorId]),
        [
          ['call_left', 'users', 'alice'],
          ['call_ended', 'guests', 'system'],
        ],
      );
      const ended = msgs.at(-1);
      assert.deepEqual(ended.messageParameters.actor, { type: 'guest', id: 'guest/system', name: 'System', 'mention-id': 'guest/system' });
      assert.match(ended.message, /^Call with \{user1\} and \{user2\} ended \(Duration \d+:\d\d\)$/);
      assertRichObjectsOnly(ended);

      // Leaving the call itself (Talk's CallController::leaveCall) ends it in the leaver's name.
      const again = await enter('alice', token);
      assert.equal((await join(again, token)).status, 200);
      assert.equal((await leave(again, token)).status, 200);
      const last = (await callMessages(token)).at(-1);
      assert.deepEqual([last.systemMessage, last.actorType, last.actorId], ['call_ended', 'users', 'alice']);
    });
  });
}
