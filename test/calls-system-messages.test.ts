/**
 * Calls leave their trace in the chat (talk-chat-calls.md §2 call_*): call_started (silent when
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
  });
}
