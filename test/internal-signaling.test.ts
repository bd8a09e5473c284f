/**
 * Internal signaling (docs/reference/signaling.md#internal-signaling): GET long-poll and POST messages between the
 * sessions of one conversation, the rules on who may send what, 400 in external mode, and —
 * on PostgreSQL — two "browsers" talking through two Parley processes (LISTEN/NOTIFY wake-ups).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { as, call, createUser, dialects, freshEnv, startParley, type Caller, type Parley } from './helpers/parley.js';
import { cookieOf, createRoom, joinGuest, NO_THROTTLE, V4 } from './helpers/rooms.js';
import { dropSchema } from '../src/db/database.js';
import { serve, stop, type Proc } from './helpers/processes.js';
import { RoomType } from './helpers/fixtures.js';

const V3 = '/apps/spreed/api/v3';

interface Browser {
  caller: Caller;
  sessionId: string;
}

/** A user's browser: joins the conversation and keeps the cookie session. */
async function join(p: { url: string }, token: string, user: string): Promise<Browser> {
  const r = await call(p as Parley, 'POST', `${V4}/room/${token}/participants/active`, { as: as(user) });
  assert.equal(r.status, 200, r.text);
  return { caller: { ...as(user), headers: { Cookie: cookieOf(r) } }, sessionId: r.data.sessionId };
}

function send(p: { url: string }, token: string, from: Browser, fns: Array<Record<string, unknown>>, sessionId = from.sessionId) {
  const messages = JSON.stringify(fns.map((fn) => ({ ev: 'message', sessionId, fn: JSON.stringify(fn) })));
  return call(p as Parley, 'POST', `${V3}/signaling/${token}`, { as: from.caller, form: { messages } });
}

const poll = (p: { url: string }, token: string, who: Browser) => call(p as Parley, 'GET', `${V3}/signaling/${token}`, { as: who.caller });

const messagesOf = (r: { data: any }) => (r.data as Array<{ type: string; data: any }>).filter((i) => i.type === 'message').map((i) => JSON.parse(i.data));

for (const dialect of dialects()) {
  describe(`internal signaling [${dialect}]`, () => {
    let p: Parley;
    let token: string;
    let alice: Browser;
    let bob: Browser;
    before(async () => {
      p = await startParley(dialect, { env: { ...NO_THROTTLE, SIGNALING_POLL_SECONDS: '4' } });
      for (const u of ['alice', 'bob', 'carol']) await createUser(p, u);
      token = (await createRoom(p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Call' })).token;
      await call(p, 'POST', `${V4}/room/${token}/participants`, { as: as('alice'), body: { newParticipant: 'bob', source: 'users' } });
      alice = await join(p, token, 'alice');
      bob = await join(p, token, 'bob');
    });
    after(async () => p.close());

    it('a message to another session of the room is delivered once, with from; usersInRoom follows', async () => {
      const offer = { to: bob.sessionId, type: 'offer', roomType: 'video', payload: { sdp: 'v=0' } };
      const s = await send(p, token, alice, [offer]);
      assert.equal(s.status, 200, s.text);
      assert.equal(s.data, null);
      const r = await poll(p, token, bob);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(messagesOf(r), [{ ...offer, from: alice.sessionId }]);
      const users = r.data.at(-1);
      assert.equal(users.type, 'usersInRoom');
      assert.deepEqual(users.data.map((u: any) => u.userId).sort(), ['alice', 'bob']);
      const a = users.data.find((u: any) => u.userId === 'alice');
      assert.equal(a.sessionId, alice.sessionId);
      assert.equal(a.actorType, 'users');
      assert.equal(typeof a.participantPermissions, 'number');
      assert.equal(typeof a.roomId, 'number');
    });

    it('a waiting poll is woken by the message (well before the poll time) and ends empty at the poll time', async () => {
      const started = Date.now();
      const waiting = poll(p, token, bob);
      await new Promise((r) => setTimeout(r, 300));
      await send(p, token, alice, [{ to: bob.sessionId, type: 'candidate', payload: { candidate: 'c1' } }]);
      const r = await waiting;
      const ms = Date.now() - started;
      assert.deepEqual(
        messagesOf(r).map((m) => m.payload.candidate),
        ['c1'],
      );
      assert.ok(ms < 3000, `woken after ${ms} ms, not at the 4 s poll end`);
      const t0 = Date.now();
      const empty = await poll(p, token, bob);
      assert.equal(messagesOf(empty).length, 0);
      assert.ok(Date.now() - t0 >= 3500, 'an idle poll waits the poll time');
    });

    it('a poll whose client went away takes nothing: the message waits for the next poll', async () => {
      const gone = new AbortController();
      const headers = {
        'OCS-APIRequest': 'true',
        Authorization: 'Basic ' + Buffer.from('bob:bob-password-123').toString('base64'),
        ...(bob.caller.headers ?? {}),
      };
      const dead = fetch(`${p.url}/ocs/v2.php${V3}/signaling/${token}?format=json`, { headers, signal: gone.signal }).catch(() => 'aborted');
      await new Promise((r) => setTimeout(r, 400));
      gone.abort();
      assert.equal(await dead, 'aborted');
      await new Promise((r) => setTimeout(r, 200));
      await send(p, token, alice, [{ to: bob.sessionId, type: 'candidate', payload: { candidate: 'after-abort' } }]);
      const r = await poll(p, token, bob);
      assert.deepEqual(
        messagesOf(r).map((m) => m.payload.candidate),
        ['after-abort'],
      );
    });

    it('dropped silently: another sender session id, recipients outside the room, control from non-moderators', async () => {
      const carolRoom = (await createRoom(p, 'carol', { roomType: RoomType.PUBLIC, roomName: 'Other' })).token;
      const carol = await join(p, carolRoom, 'carol');
      await send(p, token, bob, [{ to: alice.sessionId, type: 'offer' }], alice.sessionId);
      await send(p, token, bob, [{ to: carol.sessionId, type: 'offer' }]);
      await send(p, token, bob, [{ to: alice.sessionId, type: 'control', payload: { action: 'forceMute' } }]);
      await send(p, token, alice, [{ to: bob.sessionId, type: 'control', payload: { action: 'forceMute' } }]);
      // A marker bob may send, so alice's poll ends at once with whatever was stored for her.
      await send(p, token, bob, [{ to: alice.sessionId, type: 'mute', payload: { name: 'audio' } }]);
      const a = await poll(p, token, alice);
      assert.deepEqual(
        messagesOf(a).map((m) => m.type),
        ['mute'],
        'alice got none of bob’s refused messages',
      );
      const b = await poll(p, token, bob);
      assert.deepEqual(
        messagesOf(b).map((m) => m.type),
        ['control'],
        'the moderator’s control message arrives',
      );
      const forCarol = await p.services.db.kysely.selectFrom('signaling_messages').selectAll().where('recipient', '=', carol.sessionId).execute();
      assert.equal(forCarol.length, 0, 'nothing was stored for a session of another room');
    });

    it('bad input: 400 for messages that are not a JSON list or missing; 404 without a session; nothing stored', async () => {
      for (const messages of ['not json', '{"a":1}', 'null']) {
        const r = await call(p, 'POST', `${V3}/signaling/${token}`, { as: alice.caller, form: { messages } });
        assert.equal(r.status, 400, r.text);
        assert.equal(r.data.error, 'messages');
      }
      const missing = await call(p, 'POST', `${V3}/signaling/${token}`, { as: alice.caller, form: {} });
      assert.deepEqual([missing.status, missing.data?.error], [400, 'messages'], missing.text);
      const arr = await call(p, 'POST', `${V3}/signaling/${token}`, { as: alice.caller, body: { messages: [1] } });
      assert.deepEqual([arr.status, arr.data?.error], [400, 'messages'], arr.text);
      // More than 500 messages in one request is refused whole, not cut short.
      const tooMany = JSON.stringify(Array.from({ length: 501 }, () => ({ ev: 'message', sessionId: 'x', fn: '{}' })));
      const many = await call(p, 'POST', `${V3}/signaling/${token}`, { as: alice.caller, form: { messages: tooMany } });
      assert.equal(many.status, 400, many.text);
      assert.equal(many.data.error, 'messages');
      const noSession = await call(p, 'GET', `${V3}/signaling/${token}`, { as: as('bob') });
      assert.equal(noSession.status, 404);
      assert.deepEqual(noSession.data, [{ type: 'usersInRoom', data: [] }]);
      const post404 = await call(p, 'POST', `${V3}/signaling/${token}`, { as: as('carol'), form: { messages: '[]' } });
      assert.equal(post404.status, 404, post404.text);
      assert.equal((await call(p, 'GET', `${V3}/signaling/nosuchroom1`, { as: alice.caller })).status, 404);
      const { caller } = await joinGuest(p, (await createRoom(p, 'carol', { roomType: RoomType.PUBLIC, roomName: 'Public' })).token);
      assert.equal((await call(p, 'GET', `${V3}/signaling/${token}`, { as: caller })).status, 404, 'a guest of another room');
      const rows = await p.services.db.kysely.selectFrom('signaling_messages').selectAll().execute();
      assert.equal(rows.length, 0);
    });

    it('external mode: both endpoints answer 400 with a plain string', async () => {
      await p.services.serverLists.addServer('signaling_servers', 'https://hpb.example.org', 'secret', true);
      try {
        const g = await poll(p, token, alice);
        assert.equal(g.status, 400);
        assert.equal(g.data, 'Internal signaling disabled.');
        const s = await send(p, token, alice, []);
        assert.equal(s.status, 400);
        assert.equal(s.data, 'Internal signaling disabled.');
      } finally {
        await p.services.serverLists.deleteServer('signaling_servers', 'https://hpb.example.org');
      }
    });
  });
}

// ---- two browsers through two Parley processes on one PostgreSQL ----

describe('internal signaling across two Parley processes on one PostgreSQL', { skip: process.env.PARLEY_TEST_PG ? false : 'PARLEY_TEST_PG is not set' }, () => {
  let env: Record<string, string>;
  const procs: Proc[] = [];
  let setup: Parley;
  before(async () => {
    env = freshEnv('postgres', { ...NO_THROTTLE, SIGNALING_POLL_SECONDS: '15' });
    // Users and the room are made through one process's services, then both serve the schema.
    setup = await startParley('postgres', { env });
    for (const u of ['alice', 'bob']) await createUser(setup, u);
    procs.push(await serve(env), await serve(env));
  });
  after(async () => {
    for (const p of procs) await stop(p);
    await setup.app.close();
    await setup.services.db.close();
    await dropSchema(env.DATABASE_URL!, env.DATABASE_SCHEMA!);
  });

  it('alice on process 1 and bob on process 2 exchange offer and answer; waiting polls wake at once', async () => {
    const [one, two] = [procs[0]!, procs[1]!];
    const token = (await createRoom(setup, 'alice', { roomType: RoomType.PUBLIC, roomName: 'Split call' })).token;
    await call(setup, 'POST', `${V4}/room/${token}/participants`, { as: as('alice'), body: { newParticipant: 'bob', source: 'users' } });
    const alice = await join(one, token, 'alice');
    const bob = await join(two, token, 'bob');

    // Bob waits on process 2; alice's offer is posted to process 1.
    let t = Date.now();
    const bobWaits = poll(two, token, bob);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await send(one, token, alice, [{ to: bob.sessionId, type: 'offer', payload: { sdp: 'offer-sdp' } }])).status, 200);
    const got = await bobWaits;
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(
      messagesOf(got).map((m) => [m.type, m.from, m.payload.sdp]),
      [['offer', alice.sessionId, 'offer-sdp']],
    );
    // Far below the 15 s poll time even on a loaded machine: only a cross-process wake-up ends it this early.
    assert.ok(Date.now() - t < 8000, `bob was woken across processes after ${Date.now() - t} ms (poll time 15 s)`);
    assert.deepEqual(
      got.data
        .at(-1)
        .data.map((u: any) => u.userId)
        .sort(),
      ['alice', 'bob'],
    );

    // And back: alice waits on process 1, bob answers through process 2.
    t = Date.now();
    const aliceWaits = poll(one, token, alice);
    await new Promise((r) => setTimeout(r, 500));
    await send(two, token, bob, [{ to: alice.sessionId, type: 'answer', payload: { sdp: 'answer-sdp' } }]);
    const back = await aliceWaits;
    assert.deepEqual(
      messagesOf(back).map((m) => [m.type, m.from]),
      [['answer', bob.sessionId]],
    );
    assert.ok(Date.now() - t < 8000, `alice was woken after ${Date.now() - t} ms (poll time 15 s)`);
  });
});
