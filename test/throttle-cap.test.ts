/**
 * The brute-force throttle is a hard cap (docs/security.md): past BRUTE_FORCE_MAX_ATTEMPTS
 * failures an address gets 429 for every credential — also a login password verified a moment
 * ago (credential cache) and a valid app password — and simultaneous attempts from one new
 * address never run more real password checks than the cap (counted by the
 * `parley_secret_checks` family of GET /metrics, incremented where the argon2 check runs).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword } from '../src/domain/passwords.js';
import { basic, createUser, dialects, passwordOf, startParley } from './helpers/parley.js';
import { countQueries, createRoom, setRoom, V4 } from './helpers/rooms.js';
import { seenAcross } from './helpers/eventually.js';
import { requestFrom, secretChecks } from './helpers/throttle.js';
import { RoomType, useParley } from './helpers/fixtures.js';

const CAP = 5;

for (const dialect of dialects()) {
  describe(`brute-force cap [${dialect}]`, () => {
    const t = useParley(dialect, { env: { BRUTE_FORCE_DELAY_MS: '1', BRUTE_FORCE_MAX_ATTEMPTS: String(CAP) }, users: ['alice', 'bob'] });

    it('a capped address gets 429 for a cached login password and for a valid app password', async () => {
      const addr = '127.0.0.21';
      const right = basic('alice', passwordOf('alice'));
      // Verified once: the credential is now cached in this process.
      assert.equal((await requestFrom(t.p.url, 'GET', '/cloud/user', addr, { authorization: right })).status, 200);
      const appPassword = await t.p.services.auth.createAppPassword('alice', 'phone');
      assert.equal((await requestFrom(t.p.url, 'GET', '/cloud/user', addr, { authorization: basic('alice', appPassword) })).status, 200);
      for (let i = 0; i < CAP; i++) {
        assert.equal((await requestFrom(t.p.url, 'GET', '/cloud/user', addr, { authorization: basic('alice', 'wrong-guess') })).status, 401);
      }
      const cached = await requestFrom(t.p.url, 'GET', '/cloud/user', addr, { authorization: right });
      assert.equal(cached.status, 429);
      assert.equal(cached.body.ocs.data.error, 'throttled');
      assert.equal((await requestFrom(t.p.url, 'GET', '/cloud/user', addr, { authorization: basic('alice', appPassword) })).status, 429);
      // Another address is not affected.
      assert.equal((await requestFrom(t.p.url, 'GET', '/cloud/user', '127.0.0.22', { authorization: right })).status, 200);
    });

    it('a burst of identical correct requests from a new address shares one password check and is not capped', async () => {
      // A client's parallel requests right after it starts: 4 × CAP of them, none cached yet.
      const erin = await t.newUser('erin');
      const before = await secretChecks(t.p.url, 'login');
      const answers = await Promise.all(
        Array.from({ length: 4 * CAP }, () => requestFrom(t.p.url, 'GET', '/cloud/user', '127.0.0.26', { authorization: basic(erin.id, erin.password) })),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        Array.from({ length: 4 * CAP }, () => 200),
      );
      assert.equal((await secretChecks(t.p.url, 'login')) - before, 1);
    });

    it('100 simultaneous wrong logins from a new address run at most the cap of password checks', async () => {
      const before = await secretChecks(t.p.url, 'login');
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) => requestFrom(t.p.url, 'GET', '/cloud/user', '127.0.0.23', { authorization: basic('bob', `wrong-${i}`) })),
      );
      const checks = (await secretChecks(t.p.url, 'login')) - before;
      const statuses = answers.map((a) => a.status);
      assert.equal(statuses.filter((s) => s === 401).length, CAP, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 429).length, 100 - CAP);
      assert.equal(checks, CAP);
    });

    it('100 simultaneous wrong conversation passwords on join run at most the cap of checks', async () => {
      const room = await createRoom(t.p, 'alice', { roomType: RoomType.PUBLIC, roomName: 'locked' });
      await setRoom(t.p, room.token, { password: await hashPassword('open sesame 42') });
      const before = await secretChecks(t.p.url, 'talkRoomPassword');
      const answers = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          requestFrom(t.p.url, 'POST', `${V4}/room/${room.token}/participants/active`, '127.0.0.24', { form: { password: `guess-${i}` } }),
        ),
      );
      const checks = (await secretChecks(t.p.url, 'talkRoomPassword')) - before;
      const statuses = answers.map((a) => a.status);
      assert.equal(statuses.filter((s) => s === 403).length, CAP, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 429).length, 100 - CAP);
      assert.equal(checks, CAP);
      // The right password from the capped address is refused too.
      const right = await requestFrom(t.p.url, 'POST', `${V4}/room/${room.token}/participants/active`, '127.0.0.24', { form: { password: 'open sesame 42' } });
      assert.equal(right.status, 429);
    });

    it('the cap check is kept per process, and failures recorded through another process cap a cached credential here too', async () => {
      const addr = '127.0.0.27';
      const right = basic('alice', passwordOf('alice'));
      const me = () => requestFrom(t.p.url, 'GET', '/cloud/capabilities', addr, { authorization: right });
      // The first request verifies the password and records the login (a write to the account's
      // row, read again by the next request).
      for (let i = 0; i < 3; i++) assert.equal((await me()).status, 200);
      // Warm: the credential and the cap check are both kept (on PostgreSQL the cap check on the
      // change feed's word, migration 0713), so the request reads nothing (PostgreSQL: but its
      // sync, which confirms that every earlier commit has been heard).
      assert.equal(await countQueries(t.p, me), dialect === 'postgres' ? 1 : 0);
      const other = await startParley(dialect, { env: t.p.env });
      try {
        for (let i = 0; i < CAP; i++) {
          assert.equal((await requestFrom(other.url, 'GET', '/cloud/user', addr, { authorization: basic('alice', 'wrong-guess') })).status, 401);
        }
        // This process hears the other's attempts (PostgreSQL: their notification) and refuses.
        const capped = await seenAcross(dialect, 'the cap reached through the other process applies here', me, (r) => r.status === 429);
        assert.equal(capped.body.ocs.data.error, 'throttled');
      } finally {
        await other.close();
      }
    });

    it('the first failure makes the next attempt wait BRUTE_FORCE_DELAY_MS, not twice that', async () => {
      const q = await startParley(dialect, { env: { BRUTE_FORCE_DELAY_MS: '1500', BRUTE_FORCE_MAX_ATTEMPTS: '10' } });
      try {
        await createUser(q, 'carol');
        const time = async () => {
          const t0 = performance.now();
          const r = await requestFrom(q.url, 'GET', '/cloud/user', '127.0.0.25', { authorization: basic('carol', 'nope-nope') });
          assert.equal(r.status, 401);
          return performance.now() - t0;
        };
        // The first attempt pays no delay, only the password check; the second pays the same check
        // plus the delay. Their difference is the delay alone, so a loaded machine (slow argon2)
        // does not blur it; a doubled delay (3 s) stays far outside the window.
        const first = await time();
        const second = await time();
        const delay = second - first;
        assert.ok(delay >= 1400 && delay < 2700, `second attempt took ${second} ms, first ${first} ms`);
      } finally {
        await q.close();
      }
    });
  });
}
