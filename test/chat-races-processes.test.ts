/**
 * Reaction and poll races across two `parley serve` processes on one PostgreSQL schema
 * (docs/reference/chat.md#reactions-and-polls): the same reaction added at once through both processes is stored
 * once (partial unique index); concurrent votes of one person leave exactly one of their vote
 * sets (never a union beyond maxVotes); concurrent votes of many people are all counted; a
 * close racing votes counts exactly the votes that were accepted (the poll's row lock); one
 * user's reminders set at once through both processes never pass the hourly limit (a per-user
 * advisory lock around the count and the record).
 * PostgreSQL only: SQLite serialises writers in one process by design.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { dropSchema } from '../src/db/database.js';
import { admin, basic, freshEnv } from './helpers/parley.js';
import { ocs, serve, stop, type Proc } from './helpers/processes.js';

const ADMIN = basic(admin.user!, admin.password!);
const V1 = '/apps/spreed/api/v1';
const VOTERS = ['v1', 'v2', 'v3', 'v4', 'v5', 'v6'];
const auth = (u: string) => basic(u, `${u}-password-123`);

/** A JSON OCS request (poll options and votes are lists). */
async function json(p: Proc, method: string, apiPath: string, user: string, body?: unknown) {
  const res = await fetch(`${p.url}/ocs/v2.php${apiPath}?format=json`, {
    method,
    headers: { 'OCS-APIRequest': 'true', Authorization: auth(user), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  return { status: res.status, data: text ? JSON.parse(text).ocs.data : undefined };
}

describe(
  'reaction and poll races across two processes on one PostgreSQL schema',
  { skip: process.env.PARLEY_TEST_PG ? false : 'PARLEY_TEST_PG is not set' },
  () => {
    let env: Record<string, string>;
    let a: Proc | undefined;
    let b: Proc | undefined;
    let token: string;
    const both = () => [a!, b!];

    before(async () => {
      env = freshEnv('postgres');
      // One after the other (the first migrates), so a failed start leaves nothing running for after().
      a = await serve(env);
      b = await serve(env);
      for (const u of ['alice', 'bob', ...VOTERS])
        assert.equal((await ocs(a, 'POST', '/cloud/users', ADMIN, { userid: u, password: `${u}-password-123` })).status, 200);
      const room = await ocs(a, 'POST', '/apps/spreed/api/v4/room', auth('alice'), { roomType: '2', roomName: 'Races' });
      token = room.data.token;
      for (const u of ['bob', ...VOTERS]) {
        assert.equal(
          (await ocs(a, 'POST', `/apps/spreed/api/v4/room/${token}/participants`, auth('alice'), { newParticipant: u, source: 'users' })).status,
          200,
        );
      }
    });
    after(async () => {
      await Promise.all([stop(a), stop(b)]);
      if (env.DATABASE_URL && env.DATABASE_SCHEMA) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
      fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
    });

    const newPoll = async (maxVotes: number) => {
      const r = await json(a!, 'POST', `${V1}/poll/${token}`, 'alice', { question: 'Which?', options: ['a', 'b', 'c', 'd'], resultMode: 0, maxVotes });
      assert.equal(r.status, 201, JSON.stringify(r.data));
      return r.data.id as number;
    };

    it('the same reaction added at once through both processes is stored once (10 rounds)', async () => {
      for (let round = 0; round < 10; round++) {
        const msg = await json(a!, 'POST', `${V1}/chat/${token}`, 'alice', { message: `react ${round}` });
        assert.equal(msg.status, 201);
        const tries = await Promise.all(
          [...both(), ...both()].map((p) => json(p, 'POST', `${V1}/reaction/${token}/${msg.data.id}`, 'bob', { reaction: '👍' })),
        );
        assert.deepEqual(tries.map((r) => r.status).sort(), [200, 200, 200, 201], 'one add creates it, the others find it');
        const list = await json(b!, 'GET', `${V1}/reaction/${token}/${msg.data.id}`, 'alice');
        assert.deepEqual(Object.keys(list.data), ['👍']);
        assert.equal(list.data['👍'].length, 1);
        const shown = await json(a!, 'GET', `${V1}/chat/${token}/${msg.data.id}/context`, 'alice', undefined);
        assert.equal(shown.data.find((m: any) => m.id === msg.data.id).reactions['👍'], 1, 'the count on the message agrees');
      }
    });

    it('one person voting through both processes at once keeps exactly one vote set within maxVotes (10 rounds)', async () => {
      for (let round = 0; round < 10; round++) {
        const poll = await newPoll(2);
        const sets = [
          [0, 1],
          [2, 3],
        ];
        const r = await Promise.all(both().map((p, i) => json(p, 'POST', `${V1}/poll/${token}/${poll}`, 'bob', { optionIds: sets[i] })));
        assert.deepEqual(
          r.map((x) => x.status),
          [200, 200],
        );
        const shown = await json(a!, 'GET', `${V1}/poll/${token}/${poll}`, 'bob');
        assert.ok(
          sets.some((s) => JSON.stringify(s) === JSON.stringify(shown.data.votedSelf)),
          `votedSelf ${JSON.stringify(shown.data.votedSelf)}`,
        );
        const closed = await json(b!, 'DELETE', `${V1}/poll/${token}/${poll}`, 'alice');
        assert.equal(closed.status, 200);
        assert.equal(closed.data.numVoters, 1);
        assert.equal(closed.data.details.length, 2, 'two votes, not four');
        assert.equal(
          Object.values(closed.data.votes as Record<string, number>).reduce((x, y) => x + y, 0),
          2,
        );
      }
    });

    it('many people voting at once through both processes are all counted', async () => {
      const poll = await newPoll(1);
      const r = await Promise.all(VOTERS.map((u, i) => json(both()[i % 2], 'POST', `${V1}/poll/${token}/${poll}`, u, { optionIds: [i % 4] })));
      assert.ok(r.every((x) => x.status === 200));
      const closed = await json(a!, 'DELETE', `${V1}/poll/${token}/${poll}`, 'alice');
      assert.equal(closed.data.numVoters, VOTERS.length);
      assert.deepEqual(closed.data.votes, { 'option-0': 2, 'option-1': 2, 'option-2': 1, 'option-3': 1 });
    });

    it('closing while people vote: exactly the accepted votes are counted; later votes get 400 (5 rounds)', async () => {
      for (let round = 0; round < 5; round++) {
        const poll = await newPoll(0);
        const votes = VOTERS.map((u, i) => json(both()[i % 2], 'POST', `${V1}/poll/${token}/${poll}`, u, { optionIds: [0] }));
        const closing = json(both()[round % 2], 'DELETE', `${V1}/poll/${token}/${poll}`, 'alice');
        const [results, closed] = await Promise.all([Promise.all(votes), closing]);
        assert.equal(closed.status, 200);
        assert.ok(
          results.every((x) => x.status === 200 || x.status === 400),
          JSON.stringify(results.map((x) => x.status)),
        );
        const accepted = results.filter((x) => x.status === 200).length;
        const final = await json(a!, 'GET', `${V1}/poll/${token}/${poll}`, 'alice');
        assert.equal(final.data.status, 1);
        assert.equal(final.data.numVoters, accepted);
        assert.equal(final.data.details.length, accepted);
        assert.equal((await json(b!, 'POST', `${V1}/poll/${token}/${poll}`, 'v1', { optionIds: [1] })).status, 400);
        assert.equal((await json(a!, 'DELETE', `${V1}/poll/${token}/${poll}`, 'alice')).status, 400, 'closed once');
      }
    });

    it("a user's reminder rate limit holds across both processes: 70 at once, exactly 60 set, 10 answered 429", async () => {
      const msg = await json(a!, 'POST', `${V1}/chat/${token}`, 'alice', { message: 'Remind me' });
      assert.equal(msg.status, 201);
      const tries = await Promise.all(
        Array.from({ length: 70 }, (_, i) =>
          json(both()[i % 2], 'POST', `${V1}/chat/${token}/${msg.data.id}/reminder`, 'bob', { timestamp: 2_000_000_000 + i }),
        ),
      );
      const statuses = tries.map((r) => r.status);
      assert.equal(statuses.filter((s) => s === 201).length, 60, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 429).length, 10, JSON.stringify(statuses));
      assert.equal((await json(b!, 'POST', `${V1}/chat/${token}/${msg.data.id}/reminder`, 'bob', { timestamp: 1 })).status, 429);
      assert.equal(
        (await json(a!, 'POST', `${V1}/chat/${token}/${msg.data.id}/reminder`, 'alice', { timestamp: 1 })).status,
        201,
        'another user is not limited',
      );
    });
  },
);
