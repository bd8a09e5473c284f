/**
 * Chat long-poll across processes (docs/design.md#storage, cache/wake.ts): a message sent through one
 * `parley serve` wakes a waiter on another at once (PostgreSQL LISTEN/NOTIFY, NOTIFY carries the
 * room id only), a poll following posts made at once through both misses none (a room's messages
 * commit in id order), and a stopping process releases its waiters (304) instead of hanging.
 * PostgreSQL only: SQLite's wake-ups are in-process by design.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { dropSchema } from '../src/db/database.js';
import { admin, basic, freshEnv } from './helpers/parley.js';
import { ocs, serve, stop, type Proc } from './helpers/processes.js';

const ADMIN = basic(admin.user!, admin.password!);
const ALICE = basic('alice', 'alice-password-123');
const BOB = basic('bob', 'bob-password-123');
const V1 = '/apps/spreed/api/v1';

async function poll(p: Proc, token: string, lastKnown: number, timeout: number) {
  const started = Date.now();
  const res = await fetch(`${p.url}/ocs/v2.php${V1}/chat/${token}?format=json&lookIntoFuture=1&timeout=${timeout}&lastKnownMessageId=${lastKnown}`, {
    headers: { 'OCS-APIRequest': 'true', Authorization: BOB },
  });
  const text = await res.text();
  return { status: res.status, data: text ? JSON.parse(text).ocs.data : undefined, ms: Date.now() - started };
}

describe('chat long-poll across two processes on one PostgreSQL schema', { skip: process.env.PARLEY_TEST_PG ? false : 'PARLEY_TEST_PG is not set' }, () => {
  let env: Record<string, string>;
  let a: Proc | undefined;
  let b: Proc | undefined;
  let token: string;
  let last: number;

  before(async () => {
    env = freshEnv('postgres');
    a = await serve(env);
    b = await serve(env);
    for (const u of ['alice', 'bob']) assert.equal((await ocs(a, 'POST', '/cloud/users', ADMIN, { userid: u, password: `${u}-password-123` })).status, 200);
    const room = await ocs(a, 'POST', '/apps/spreed/api/v4/room', ALICE, { roomType: '2', roomName: 'Across' });
    token = room.data.token;
    assert.equal((await ocs(a, 'POST', `/apps/spreed/api/v4/room/${token}/participants`, ALICE, { newParticipant: 'bob', source: 'users' })).status, 200);
    const first = await ocs(a, 'POST', `${V1}/chat/${token}`, ALICE, { message: 'first' });
    last = first.data.id;
  });
  after(async () => {
    await Promise.all([stop(a), stop(b)]);
    if (env.DATABASE_URL && env.DATABASE_SCHEMA) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
    fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
  });

  it('a message posted through A wakes a waiter on B at once, five times in a row', async () => {
    for (let i = 0; i < 5; i++) {
      const waiting = poll(b!, token, last, 30);
      // Give B time to subscribe; any delay after the post would be the wake-up's.
      await new Promise((r) => setTimeout(r, 300));
      const sentAt = Date.now();
      const sent = await ocs(a!, 'POST', `${V1}/chat/${token}`, ALICE, { message: `across ${i}` });
      assert.equal(sent.status, 201);
      const r = await waiting;
      assert.equal(r.status, 200);
      assert.equal(r.data[0].message, `across ${i}`);
      assert.ok(Date.now() - sentAt < 1500, `woke ${Date.now() - sentAt} ms after the post`);
      last = sent.data.id;
    }
  });

  it('many waiters on B for one room all wake for one post on A', async () => {
    const waiting = Array.from({ length: 20 }, () => poll(b!, token, last, 30));
    await new Promise((r) => setTimeout(r, 500));
    const sent = await ocs(a!, 'POST', `${V1}/chat/${token}`, ALICE, { message: 'to all waiters' });
    const results = await Promise.all(waiting);
    assert.ok(results.every((r) => r.status === 200 && r.data[0].id === sent.data.id));
    last = sent.data.id;
  });

  it('posts made at once through both processes into one room: a long-poll following them misses none', async () => {
    // A room's messages commit in id order (each post takes the room's row lock before its id):
    // a poll that has seen id n asks for ids above n, so a smaller id committed later would be
    // lost to it for good.
    const texts = Array.from({ length: 60 }, (_, i) => `at once ${i}`);
    const seen: number[] = [];
    let following = true;
    const follow = (async () => {
      let known = last;
      const until = Date.now() + 30_000;
      while (following && Date.now() < until) {
        const r = await poll(b!, token, known, 1);
        if (r.status !== 200) continue;
        for (const m of r.data as Array<{ id: number }>) seen.push(m.id);
        if (seen.length > 0) known = seen[seen.length - 1];
      }
    })();
    const sent = await Promise.all(texts.map((message, i) => ocs(i % 2 === 0 ? a! : b!, 'POST', `${V1}/chat/${token}`, ALICE, { message })));
    for (const r of sent) assert.equal(r.status, 201);
    const ids = sent.map((r) => r.data.id as number).sort((x, y) => x - y);
    const deadline = Date.now() + 10_000;
    while (seen[seen.length - 1] !== ids[ids.length - 1] && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    following = false;
    await follow;
    last = ids[ids.length - 1];
    assert.deepEqual(seen, ids, 'the poll saw every message once, in id order');
  });

  it('a stopping process releases its waiters (304) instead of holding them for the timeout', async () => {
    const waiting = poll(b!, token, last, 30);
    await new Promise((r) => setTimeout(r, 300));
    await stop(b);
    const r = await waiting;
    assert.equal(r.status, 304);
    assert.ok(r.ms < 10_000, `released after ${r.ms} ms`);
    b = undefined;
  });
});
