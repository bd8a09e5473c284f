/**
 * The per-process read cache across processes (docs/architecture.md "Read cache",
 * docs/security.md): two real `parley serve` processes on one database (PostgreSQL when
 * PARLEY_TEST_PG is set, and one SQLite file). Each warms its caches with a credential; then
 * the credential is revoked through the first process (app password revoked, password changed,
 * account disabled, account deleted), and the second must refuse it at its very next request,
 * on both databases (SQLite reads the change stamp as each request starts; PostgreSQL holds the
 * request until its LISTEN connection has delivered every commit made before it arrived), and
 * never accept it again. The writing process refuses at once (it invalidates its own cache
 * before the write returns). A new password works at once everywhere (the counted check reads
 * the stored row, not a cached one).
 *
 * PostgreSQL only: a write drops only the key it wrote (in the writing process too, before the
 * write returns); when the LISTEN connection is lost the cache is cleared and bypassed until it
 * listens again, so a notification missed meanwhile leaves nothing stale; and a LISTEN
 * connection that stops delivering without closing (stalled behind a proxy) is dropped within a
 * few seconds, by the request that found it silent or by the heartbeat, never trusted.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { admin, as, basic, call, createUser, dialects, startParley, type Parley } from './helpers/parley.js';
import { ocs, TWO_PROCESS_PASSWORD, useTwoProcesses, type Proc } from './helpers/processes.js';
import { countQueries } from './helpers/rooms.js';
import { eventually } from './helpers/eventually.js';
import { stallableProxy, type StallableProxy } from './helpers/stallable-proxy.js';

const ADMIN = basic(admin.user!, admin.password!);
const PASSWORD = TWO_PROCESS_PASSWORD;
/** The statement every request costs on PostgreSQL: the round trip confirming that this process heard every earlier commit. */
const SYNC = 1;

async function status(p: Proc, auth: string): Promise<number> {
  return (await ocs(p, 'GET', '/cloud/capabilities', auth)).status;
}

/** The credential is refused by `p` at its very next request (no window on either database) and stays refused. */
async function refused(p: Proc, auth: string, what: string): Promise<void> {
  assert.equal(await status(p, auth), 401, `${what}: refused at the next request`);
  for (let i = 0; i < 10; i++) assert.equal(await status(p, auth), 401, `${what}: accepted again`);
}

for (const dialect of dialects()) {
  describe(`read cache across two processes on one ${dialect === 'postgres' ? 'PostgreSQL schema' : 'SQLite file'}`, () => {
    // Refused requests count as failed logins (each waiting longer than the last); the
    // throttle is not what is tested here (throttle-cap.test.ts is): the helper turns it off.
    const procs = useTwoProcesses(dialect, ['alice', 'bob', 'carol', 'dave']);

    /** An app password of `user`, made on A, used on both processes until each has it cached. */
    const warmAppPassword = async (user: string): Promise<string> => {
      const token = (await ocs(procs.a(), 'GET', '/core/getapppassword', basic(user, PASSWORD))).data.apppassword as string;
      assert.equal(token.length, 72);
      for (const p of [procs.a(), procs.b(), procs.a(), procs.b()]) assert.equal(await status(p, basic(user, token)), 200);
      return token;
    };
    const warmPassword = async (user: string) => {
      for (const p of [procs.a(), procs.b(), procs.a(), procs.b()]) assert.equal(await status(p, basic(user, PASSWORD)), 200);
    };
    /** Both credentials of `user` warmed on both processes, the account changed through A, then both refused by B. */
    const bothRefusedAfter = async (user: string, change: () => Promise<{ status: number }>, what: string): Promise<string> => {
      await warmPassword(user);
      const token = await warmAppPassword(user);
      assert.equal((await change()).status, 200);
      await refused(procs.b(), basic(user, PASSWORD), `${what}, password`);
      await refused(procs.b(), basic(user, token), `${what}, app password`);
      return token;
    };

    it('an app password revoked on one process is refused by the other', async () => {
      const token = await warmAppPassword('alice');
      const other = await warmAppPassword('alice');
      assert.equal((await ocs(procs.a(), 'DELETE', '/core/apppassword', basic('alice', token))).status, 200);
      assert.equal(await status(procs.a(), basic('alice', token)), 401, 'the revoking process refuses at once');
      await refused(procs.b(), basic('alice', token), 'revoked app password on the other process');
      // Only that app password: the user's other one and the password still work.
      assert.equal(await status(procs.b(), basic('alice', other)), 200);
    });

    it('a changed password: the old one is refused by the other process, the new one works at once', async () => {
      await warmPassword('bob');
      const NEW = 'the new password of bob, long enough';
      assert.equal((await ocs(procs.a(), 'PUT', '/cloud/users/bob', ADMIN, { key: 'password', value: NEW })).status, 200);
      assert.equal(await status(procs.a(), basic('bob', PASSWORD)), 401, 'the writing process refuses at once');
      assert.equal(await status(procs.b(), basic('bob', NEW)), 200, 'the new password on the other process at once');
      await refused(procs.b(), basic('bob', PASSWORD), 'old password on the other process');
    });

    it('a disabled account is refused by the other process (password and app password); enabled again, accepted', async () => {
      const token = await bothRefusedAfter('carol', () => ocs(procs.a(), 'PUT', '/cloud/users/carol/disable', ADMIN), 'disabled account');
      assert.equal((await ocs(procs.a(), 'PUT', '/cloud/users/carol/enable', ADMIN)).status, 200);
      assert.equal(await status(procs.b(), basic('carol', token)), 200, 'enabled again, app password, at the next request');
      assert.equal(await status(procs.b(), basic('carol', PASSWORD)), 200, 'enabled again, password, at the next request');
    });

    it('a deleted account is refused by the other process (password and app password)', async () => {
      await bothRefusedAfter('dave', () => ocs(procs.a(), 'DELETE', '/cloud/users/dave', ADMIN), 'deleted account');
    });
  });
}

if (dialects().includes('postgres')) {
  describe('read cache when the LISTEN connection drops [postgres]', () => {
    let p: Parley;
    let other: Parley; // a second server on the same schema ("another process")
    let killer: pg.Client;
    before(async () => {
      p = await startParley('postgres');
      other = await startParley('postgres', { env: p.env });
      await createUser(p, 'alice');
      killer = new pg.Client({ connectionString: p.env.DATABASE_URL });
      await killer.connect();
    });
    after(async () => {
      await killer.end();
      await other.app.close();
      await other.services.db.close();
      await p.close();
    });

    const typingPrivacy = async () => {
      const r = await call(p, 'GET', '/cloud/capabilities', { as: as('alice') });
      assert.equal(r.status, 200, r.text);
      return r.data.capabilities.spreed.config.chat['typing-privacy'] as number;
    };
    const setTypingPrivacy = async (value: string) => {
      const r = await call(other, 'POST', '/apps/spreed/api/v1/settings/user', { as: as('alice'), body: { key: 'typing_privacy', value } });
      assert.equal(r.status, 200, r.text);
    };
    /** Ends the LISTEN connections of the schema's processes, as a network failure would (they are named after their channel). */
    const dropListen = async () => {
      const channel = `parley_wake_${p.env.DATABASE_SCHEMA}`;
      const r = await killer.query('SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = $1', [channel]);
      assert.ok(r.rows.length > 0, 'a LISTEN connection was found');
    };

    it('a write drops only the key it wrote, in the writing process too, and is seen there at once', async () => {
      await createUser(p, 'bob');
      const capsOf = (user: string) => call(p, 'GET', '/cloud/capabilities', { as: as(user) });
      for (const user of ['alice', 'bob', 'alice', 'bob']) assert.equal((await capsOf(user)).status, 200);
      // Nothing but the request's sync: the credential, preferences and configuration are
      // cached, and so is the brute-force cap check (kept on the change feed, migration 0713).
      assert.equal(await countQueries(p, () => capsOf('alice')), SYNC);
      assert.equal(await countQueries(p, () => capsOf('bob')), SYNC);
      // Through this process: bob's preference row changes (the write returns once this
      // process has applied its notification).
      const r = await call(p, 'POST', '/apps/spreed/api/v1/settings/user', { as: as('bob'), body: { key: 'typing_privacy', value: '1' } });
      assert.equal(r.status, 200, r.text);
      assert.equal(await countQueries(p, () => capsOf('alice')), SYNC, "alice's entries are kept");
      let seen: any;
      assert.equal(await countQueries(p, async () => (seen = await capsOf('bob'))), SYNC + 1, "bob's preferences are read again");
      assert.equal(seen.data.capabilities.spreed.config.chat['typing-privacy'], 1);
      assert.equal(await countQueries(p, () => capsOf('bob')), SYNC);
    });

    it('clears and bypasses the cache until it listens again; a notification missed meanwhile leaves nothing stale', async () => {
      const cache = p.services.db.readCache!;
      await eventually('listening', async () => cache.active);
      // The first login records lastLogin, a write to users: the row is read again once.
      await typingPrivacy();
      await typingPrivacy();
      assert.equal(await countQueries(p, typingPrivacy), SYNC, 'warm: nothing read');
      // The reconnection comes a second after the loss; on a busy machine an attempt may see it
      // before its checks are done, and is then repeated.
      let checked = false;
      for (let attempt = 0; attempt < 5 && !checked; attempt++) {
        const before = await typingPrivacy();
        await dropListen();
        await eventually('the loss is noticed', async () => !cache.active, 2000);
        const bypassed = await countQueries(p, typingPrivacy);
        const next = before === 1 ? '0' : '1';
        // Written and committed by the other process while this one does not listen: its
        // notification is never heard here.
        await setTypingPrivacy(next);
        const seen = await typingPrivacy();
        if (cache.active) continue;
        assert.ok(bypassed >= 4, `not listening: every read goes to the database (${bypassed} statements)`);
        assert.equal(seen, Number(next), 'not listening: the change is read from the database');
        await eventually('listening again', async () => cache.active);
        assert.equal(await typingPrivacy(), Number(next), 'after the reconnection: nothing stale');
        await typingPrivacy();
        assert.equal(await countQueries(p, typingPrivacy), SYNC, 'cached again');
        checked = true;
      }
      assert.ok(checked, 'the LISTEN connection stayed down long enough to check once');
    });
  });
}

if (dialects().includes('postgres')) {
  describe('read cache when the LISTEN connection stops delivering without closing [postgres]', () => {
    let proxy: StallableProxy;
    let p: Parley; // reaches PostgreSQL through the proxy
    let other: Parley; // a second server on the same schema, directly
    let listenStatement = '';
    before(async () => {
      proxy = await stallableProxy(process.env.PARLEY_TEST_PG!);
      other = await startParley('postgres');
      p = await startParley('postgres', { env: { ...other.env, DATABASE_URL: proxy.url } });
      listenStatement = `LISTEN "parley_wake_${other.env.DATABASE_SCHEMA}"`;
      await createUser(p, 'alice');
    });
    after(async () => {
      await p.app.close();
      await p.services.db.close();
      await other.close();
      await proxy.close();
    });

    const typingPrivacy = async () => {
      const r = await call(p, 'GET', '/cloud/capabilities', { as: as('alice') });
      assert.equal(r.status, 200, r.text);
      return r.data.capabilities.spreed.config.chat['typing-privacy'] as number;
    };
    const flipTypingPrivacy = async (from: number) => {
      const value = from === 1 ? '0' : '1';
      const r = await call(other, 'POST', '/apps/spreed/api/v1/settings/user', { as: as('alice'), body: { key: 'typing_privacy', value } });
      assert.equal(r.status, 200, r.text);
      return Number(value);
    };
    const stalls = () => p.services.db.wake.health!.losses.stalled;
    /** Warm and listening: the next request reads nothing but its sync. */
    const warm = async () => {
      await eventually('listening', async () => p.services.db.readCache!.active, 10_000);
      // The first login records lastLogin, a write to users: the row is read again once.
      await typingPrivacy();
      await typingPrivacy();
      assert.equal(await countQueries(p, typingPrivacy), SYNC, 'warm');
    };

    it('a request finds the connection silent: it answers from the database at once after the deadline, never the cached answer, and the cache is dropped', async () => {
      await warm();
      const before = await typingPrivacy();
      const stalledBefore = stalls();
      assert.equal(proxy.stall(listenStatement), 1, 'the LISTEN connection is stalled');
      // Committed by the other process: its notification is held back in the stalled path.
      const next = await flipTypingPrivacy(before);
      const started = Date.now();
      assert.equal(await typingPrivacy(), next, 'the change is seen, not the cached answer');
      const took = Date.now() - started;
      assert.ok(took < 5000, `answered within a few seconds (${took} ms)`);
      assert.equal(stalls(), stalledBefore + 1, 'the silent connection was dropped as stalled');
      // It listens again on a new connection (the proxy passes new connections) and caches again.
      await warm();
      assert.equal(await typingPrivacy(), next);
      const metrics = await call(p, 'GET', '/metrics');
      assert.match(metrics.text, /parley_db_listen_losses_total\{reason="stalled"\} [1-9]/);
    });

    it('with no request at all, the heartbeat notices a silent connection within a few seconds', async () => {
      await warm();
      const stalledBefore = stalls();
      const started = Date.now();
      assert.equal(proxy.stall(listenStatement), 1, 'the LISTEN connection is stalled');
      await eventually('the stall is noticed', async () => stalls() > stalledBefore, 6000);
      const took = Date.now() - started;
      assert.ok(took < 6000, `noticed after ${took} ms`);
      await warm();
    });
  });
}
