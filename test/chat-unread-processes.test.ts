/**
 * The unread counters (migration 0706-chat-unread-counters) under concurrency, across two
 * `parley serve` processes on one PostgreSQL schema: posts through both processes at once must
 * each add one (no lost increment), while read markers move forwards and backwards and messages
 * are deleted through both. Afterwards every member's unreadMessages equals the count by the rule
 * (docs/reference/conversations.md#the-conversation-record), recomputed from the history and the member's marker, all through HTTP.
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
const V4 = '/apps/spreed/api/v4';
const WRITERS = ['w1', 'w2', 'w3'];
const READERS = ['r1', 'r2', 'r3'];
const auth = (u: string) => basic(u, `${u}-password-123`);

describe('unread counters across two processes on one PostgreSQL schema', { skip: process.env.PARLEY_TEST_PG ? false : 'PARLEY_TEST_PG is not set' }, () => {
  let env: Record<string, string>;
  let a: Proc | undefined;
  let b: Proc | undefined;
  let token: string;
  const pick = (i: number) => (i % 2 === 0 ? a! : b!);

  before(async () => {
    env = freshEnv('postgres');
    a = await serve(env);
    b = await serve(env);
    for (const u of [...WRITERS, ...READERS])
      assert.equal((await ocs(a, 'POST', '/cloud/users', ADMIN, { userid: u, password: `${u}-password-123` })).status, 200);
    const room = await ocs(a, 'POST', `${V4}/room`, auth('w1'), { roomType: '2', roomName: 'Counters' });
    token = room.data.token;
    for (const u of [...WRITERS.slice(1), ...READERS])
      assert.equal((await ocs(a, 'POST', `${V4}/room/${token}/participants`, auth('w1'), { newParticipant: u, source: 'users' })).status, 200);
  });
  after(async () => {
    await Promise.all([stop(a), stop(b)]);
    if (env.DATABASE_URL && env.DATABASE_SCHEMA) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
    fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
  });

  /** Every message of the room, oldest first (history pages of 200). */
  const history = async () => {
    const out: any[] = [];
    let before = 0;
    for (;;) {
      const q = `lookIntoFuture=0&limit=200${before ? `&lastKnownMessageId=${before}` : ''}`;
      const res = await fetch(`${a!.url}/ocs/v2.php${V1}/chat/${token}?${q}&format=json`, { headers: { 'OCS-APIRequest': 'true', Authorization: auth('r1') } });
      if (res.status === 304) break; // before the first message
      assert.equal(res.status, 200);
      const page = (await res.json()).ocs.data as any[];
      out.push(...page);
      before = Math.min(...page.map((m: any) => m.id));
    }
    return out.sort((x, y) => x.id - y.id);
  };
  const record = async (p: Proc, u: string) => (await ocs(p, 'GET', `${V4}/room/${token}`, auth(u))).data;

  it('concurrent posts, marker moves and deletions through both processes leave every count exact', async () => {
    const posted: Array<{ id: number; by: string }> = [];
    const ops: Array<Promise<unknown>> = [];
    // 3 writers x 20 posts, alternating processes, all at once.
    for (const w of WRITERS)
      for (let i = 0; i < 20; i++)
        ops.push(
          ocs(pick(i), 'POST', `${V1}/chat/${token}`, auth(w), { message: `${w} ${i}` }).then((r) => {
            assert.equal(r.status, 201);
            posted.push({ id: r.data.id, by: w });
          }),
        );
    // Readers move their markers meanwhile: to the last message, back to "first unread", to
    // whatever was last seen, and mark unread.
    for (const u of READERS)
      ops.push(
        (async () => {
          for (let i = 0; i < 12; i++) {
            const p = pick(i + 1);
            const seen = posted.length ? String(posted[posted.length - 1].id) : undefined;
            if (i % 4 === 3) await ocs(p, 'DELETE', `${V1}/chat/${token}/read`, auth(u));
            else if (i % 3 === 1) await ocs(p, 'POST', `${V1}/chat/${token}/read`, auth(u), { lastReadMessage: '0' });
            else if (i % 3 === 2 && seen) await ocs(p, 'POST', `${V1}/chat/${token}/read`, auth(u), { lastReadMessage: seen });
            else await ocs(p, 'POST', `${V1}/chat/${token}/read`, auth(u));
          }
        })(),
      );
    await Promise.all(ops);

    // Deletions of read and unread messages through both processes, racing more marker moves
    // and more posts (and the same message deleted through both at once).
    const victims = posted.filter((_, i) => i % 5 === 0);
    const more: Array<Promise<unknown>> = [];
    victims.forEach((m, i) => {
      more.push(ocs(pick(i), 'DELETE', `${V1}/chat/${token}/${m.id}`, auth(m.by)));
      if (i % 3 === 0) more.push(ocs(pick(i + 1), 'DELETE', `${V1}/chat/${token}/${m.id}`, auth(m.by)));
      more.push(ocs(pick(i + 1), 'POST', `${V1}/chat/${token}/read`, auth(READERS[i % READERS.length]), { lastReadMessage: String(m.id) }));
      more.push(ocs(pick(i), 'POST', `${V1}/chat/${token}`, auth(WRITERS[i % WRITERS.length]), { message: `late ${i}` }));
    });
    await Promise.all(more);

    const messages = await history();
    const counted = messages.filter((m) => m.messageType === 'comment' && m.systemMessage === '');
    // 60 posts and one late post per deleted message: each there once, the deleted ones comment_deleted.
    assert.equal(counted.length, 60);
    assert.equal(messages.filter((m) => m.messageType === 'comment_deleted').length, victims.length);
    for (const u of [...WRITERS, ...READERS]) {
      for (const p of [a!, b!]) {
        const r = await record(p, u);
        const expected = counted.filter((m) => m.id > r.lastReadMessage).length;
        assert.equal(r.unreadMessages, expected, `${u}: marker ${r.lastReadMessage}`);
      }
    }
  });
});
