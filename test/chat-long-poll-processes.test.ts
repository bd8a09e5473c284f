/**
 * Chat long-poll across processes (DESIGN.md §4, db/wake.ts): a message sent through one
 * `parley serve` wakes a waiter on another at once (PostgreSQL LISTEN/NOTIFY, NOTIFY carries the
 * room id only), and a stopping process releases its waiters (304) instead of hanging.
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
