/**
 * The change feed (cache/change-feed.ts, migration 0712-change-feed) on SQLite: a rendered answer
 * names the topics it was computed from and is reused while none of them changed, so a write
 * into a conversation the caller is not in, by this or another process, no longer discards it,
 * with or without a cookie session; a write into one of its conversations still shows at once.
 * The suites run with VERIFY_KEPT_RECORDS, which compares every reuse on the feed's word with a
 * fresh computation; here each case is asserted by value and by statements, and the check is
 * shown to fail when a write bypasses the feed. On PostgreSQL the feed is LISTEN/NOTIFY
 * (pg-read-cache.ts): the same cases hold there, and across processes the existing two-process
 * suite of conversation-list-reuse.test.ts shows a change made through another process.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { as, basic, dialects, type Caller, type DialectName } from './helpers/parley.js';
import { ocs, TWO_PROCESS_PASSWORD, useTwoProcesses } from './helpers/processes.js';
import { seenAcross } from './helpers/eventually.js';
import { useParley, V4 } from './helpers/fixtures.js';
import { countQueries, enterRoom } from './helpers/rooms.js';
import { createRevTableUpdateFeed } from '../src/db/migrations/0712-change-feed.js';

for (const dialect of dialects())
  describe(`rendered answers reused on the change feed [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob', 'carol'] });
    const db = () => t.services.db.kysely;

    const list = async (caller: Caller = as('alice')) => {
      const r = await t.call('GET', `${V4}/room`, { as: caller });
      assert.equal(r.status, 200, r.text);
      return r.data as any[];
    };
    const find = async (token: string, caller?: Caller) => {
      const found = (await list(caller)).find((c) => c.token === token);
      assert.ok(found, 'the conversation is listed');
      return found;
    };
    /** Statements of one more list after `write`, once the reads every write makes stale were read again. */
    const afterWrite = async (write: () => Promise<unknown>, caller?: Caller) => {
      await list(caller);
      await write();
      return countQueries(t.p, () => list(caller));
    };

    it('a message into a conversation the caller is not in leaves its list in place; one into its own shows', async () => {
      const mine = (await t.newRoom('alice', { name: 'Mine', members: ['bob'] })).token;
      const elsewhere = (await t.newRoom('carol', { name: 'Elsewhere' })).token;
      await list();
      const unrelated = await afterWrite(() => t.say(elsewhere, 'carol', 'not for alice'));
      const related = await afterWrite(() => t.say(mine, 'bob', 'for alice'));
      // Unrelated: the feed's rows since the last list, the credential check (its cache is kept
      // under the change stamp). Related: the list's revisions and the rendering on top.
      assert.ok(unrelated <= 2, `a list after an unrelated write ran ${unrelated} statements`);
      assert.ok(related > unrelated + 1, `related ${related} vs unrelated ${unrelated}`);
      const r = await find(mine);
      assert.equal(r.lastMessage.message, 'for alice');
      assert.equal(r.unreadMessages, 1);
    });

    it('joining or leaving a conversation, and a rename of it, show in the next list', async () => {
      const room = (await t.newRoom('bob', { name: 'Later' })).token;
      await list();
      assert.equal(
        (await list()).some((c) => c.token === room),
        false,
      );
      const added = await t.call('POST', `${V4}/room/${room}/participants`, { as: as('bob'), body: { newParticipant: 'alice', source: 'users' } });
      assert.equal(added.status, 200, added.text);
      assert.equal((await find(room)).displayName, 'Later');
      assert.equal((await t.call('PUT', `${V4}/room/${room}`, { as: as('bob'), body: { roomName: 'Renamed' } })).status, 200);
      assert.equal((await find(room)).displayName, 'Renamed');
      const left = await t.call('DELETE', `${V4}/room/${room}/participants/self`, { as: as('alice') });
      assert.equal(left.status, 200, left.text);
      assert.equal(
        (await list()).some((c) => c.token === room),
        false,
      );
    });

    it('a caller with a cookie session is answered from its own entry, and sees its session end', async () => {
      const room = (await t.newRoom('alice', { name: 'With cookie' })).token;
      const elsewhere = (await t.newRoom('carol', { name: 'Elsewhere too' })).token;
      const browser = await enterRoom(t.p, 'alice', room);
      const joined = await find(room, browser);
      assert.notEqual(joined.sessionId, '0', 'the cookie names the session');
      assert.equal((await find(room)).sessionId, '0', 'without the cookie: no session of its own');
      const unrelated = await afterWrite(() => t.say(elsewhere, 'carol', 'elsewhere'), browser);
      assert.ok(unrelated <= 2, `a cookie list after an unrelated write ran ${unrelated} statements`);
      const leave = await t.call('DELETE', `${V4}/room/${room}/participants/active`, { as: browser });
      assert.equal(leave.status, 200, leave.text);
      assert.equal((await find(room, browser)).sessionId, '0');
    });

    it('GET /room/{token} and capabilities are reused across a write elsewhere, and show a change of their own', async () => {
      const room = (await t.newRoom('alice', { name: 'One' })).token;
      const elsewhere = (await t.newRoom('carol', { name: 'Not hers' })).token;
      const one = () => t.call('GET', `${V4}/room/${room}`, { as: as('alice') });
      await one();
      await t.say(elsewhere, 'carol', 'elsewhere');
      await one();
      await t.say(elsewhere, 'carol', 'elsewhere again');
      const reused = await countQueries(t.p, one);
      assert.ok(reused <= 2, `GET /room/{token} after an unrelated write ran ${reused} statements`);
      await t.call('PUT', `${V4}/room/${room}/description`, { as: as('alice'), body: { description: 'now described' } });
      assert.equal((await one()).data.description, 'now described');

      const caps = () => t.call('GET', '/cloud/capabilities', { as: as('alice') });
      await caps();
      await t.say(elsewhere, 'carol', 'and again');
      await caps();
      await t.say(elsewhere, 'carol', 'and once more');
      const capsReused = await countQueries(t.p, caps);
      assert.ok(capsReused <= 2, `capabilities after an unrelated write ran ${capsReused} statements`);
    });

    it(
      'a process that fell behind the pruned feed starts over: a change it did not read still shows',
      { skip: dialect === 'postgres' && 'no feed table on PostgreSQL' },
      async () => {
        const room = (await t.newRoom('alice', { name: 'Before the gap' })).token;
        await list();
        await list();
        await db().updateTable('rooms').set({ name: 'After the gap' }).where('token', '=', room).execute();
        const renamedAt = Number((await sql<{ seq: number }>`select max(seq) as seq from change_feed`.execute(db())).rows[0].seq);
        // 70,000 rows of a topic nobody reads: the prune trigger drops everything older than 65,536.
        await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 70000) insert into change_feed (topic) select 'x' from n`.execute(
          db(),
        );
        const oldest = Number((await sql<{ seq: number }>`select min(seq) as seq from change_feed`.execute(db())).rows[0].seq);
        assert.ok(oldest > renamedAt, `the rename's row (${renamedAt}) was pruned (oldest kept ${oldest})`);
        assert.equal((await find(room)).displayName, 'After the gap');
      },
    );

    it(
      'a feed emptied by hand, whose numbering starts again below what a process read, starts that process over',
      { skip: dialect === 'postgres' && 'no feed table on PostgreSQL' },
      async () => {
        const room = (await t.newRoom('alice', { name: 'Before emptying' })).token;
        await list();
        await list();
        await sql`delete from change_feed`.execute(db());
        await db().updateTable('rooms').set({ name: 'After emptying' }).where('token', '=', room).execute();
        const rows = (await sql<{ seq: number }>`select seq from change_feed`.execute(db())).rows;
        assert.ok(rows.length > 0 && rows.every((r) => Number(r.seq) < 10), 'the numbering started again');
        assert.equal((await find(room)).displayName, 'After emptying');
      },
    );

    it('the check (VERIFY_KEPT_RECORDS) fails a reuse whose write bypassed the feed', async () => {
      const room = (await t.newRoom('alice', { name: 'Unfed' })).token;
      await list();
      assert.equal((await find(room)).displayName, 'Unfed');
      // What a writer whose table has no feed trigger would leave: a write the feed says nothing of.
      if (dialect === 'postgres') await sql`alter table rooms disable trigger parley_feed`.execute(db());
      else await sql`drop trigger rooms_feed_update`.execute(db());
      try {
        await db().updateTable('rooms').set({ name: 'Unseen' }).where('token', '=', room).execute();
      } finally {
        if (dialect === 'postgres') await sql`alter table rooms enable trigger parley_feed`.execute(db());
        else await createRevTableUpdateFeed(db(), 'rooms');
      }
      const r = await t.call('GET', `${V4}/room`, { as: as('alice') });
      assert.equal(r.status, 500, `the stale answer was not caught: ${r.text.slice(0, 300)}`);
      // Any fed write to the room and the list is right again.
      assert.equal((await t.call('PUT', `${V4}/room/${room}`, { as: as('alice'), body: { roomName: 'Fed' } })).status, 200);
      assert.equal((await find(room)).displayName, 'Fed');
    });
  });

// Two processes, one database: B's writes reach the answers A keeps (SQLite: A's next request
// reads the feed; PostgreSQL: once B's notifications reached A's LISTEN connection).
for (const dialect of dialects() as DialectName[]) {
  describe(`answers kept by one process show a change made through another [${dialect}]`, () => {
    const procs = useTwoProcesses(dialect, ['alice', 'bob']);
    const alice = basic('alice', TWO_PROCESS_PASSWORD);
    /** A's answer (200). */
    const onA = async (path: string) => {
      const r = await ocs(procs.a(), 'GET', path, alice);
      assert.equal(r.status, 200, JSON.stringify(r.data));
      return r.data;
    };

    it('GET /room/{token} and the participant list, kept by A, follow a rename and a new member through B', async () => {
      const created = await ocs(procs.a(), 'POST', `${V4}/room`, alice, { roomType: '2', roomName: 'Kept on A' });
      assert.equal(created.status, 201, JSON.stringify(created.data));
      const token = created.data.token as string;
      for (let i = 0; i < 3; i++) {
        assert.equal((await onA(`${V4}/room/${token}`)).displayName, 'Kept on A');
        assert.equal((await onA(`${V4}/room/${token}/participants`)).length, 1);
      }
      assert.equal((await ocs(procs.b(), 'PUT', `${V4}/room/${token}`, alice, { roomName: 'Renamed on B' })).status, 200);
      await seenAcross(
        dialect,
        'the rename on A',
        () => onA(`${V4}/room/${token}`),
        (d) => d.displayName === 'Renamed on B',
      );
      assert.equal((await ocs(procs.b(), 'POST', `${V4}/room/${token}/participants`, alice, { newParticipant: 'bob', source: 'users' })).status, 200);
      const members = await seenAcross(
        dialect,
        'the new member on A',
        () => onA(`${V4}/room/${token}/participants`),
        (d) => d.length === 2,
      );
      assert.deepEqual(members.map((p: any) => p.actorId).sort(), ['alice', 'bob']);
    });
  });
}
