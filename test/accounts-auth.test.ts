/**
 * Logging in (docs/api.md "Accounts"): HTTP Basic with the login password or an app password, the
 * credential cache and its invalidation, app passwords as Nextcloud clients obtain them
 * (GET /core/getapppassword, DELETE /core/apppassword, POST /core/apppassword/rotate), and the
 * failed-login throttle (docs/reference/envelope-and-errors.md#brute-force-throttle: growing delay per client address, then 429).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { hashPassword } from '../src/domain/passwords.js';
import { admin, as, basic, call, createUser, dialects, passwordOf, startParley, type Parley } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';

/** GET from a chosen local address (127.0.0.x), to act as another client. */
function getFrom(p: Parley, path: string, authorization: string, localAddress: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${p.url}/ocs/v2.php${path}?format=json`);
    const req = http.request(url, { method: 'GET', localAddress, headers: { 'OCS-APIRequest': 'true', Authorization: authorization } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

for (const dialect of dialects()) {
  describe(`accounts: login and app passwords [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      for (const u of ['bob', 'carol', 'dan', 'eve', 'fay']) await createUser(p, u);
    });
    after(async () => p.close());

    const expect401 = async (authorization: string, label: string) => {
      const r = await call(p, 'GET', '/cloud/user', { as: { authorization } });
      assert.equal(r.status, 401, label);
      assert.equal(r.meta.statuscode, 997, label);
      assert.equal(r.meta.message, 'Current user is not logged in');
      assert.deepEqual(r.data, []);
      const v1 = await call(p, 'GET', '/cloud/user', { as: { authorization }, version: 1, format: 'xml' });
      assert.equal(v1.status, 401, label);
      assert.match(v1.text, /<statuscode>997<\/statuscode>/);
    };

    it('the login password works', async () => {
      const r = await call(p, 'GET', '/cloud/user', { as: as('bob') });
      assert.equal(r.status, 200);
      assert.equal(r.data.id, 'bob');
    });

    it('malformed Authorization headers: 401 (997)', async () => {
      for (const h of ['Basic', 'Basic !!!', 'Basic ' + b64('no-colon'), 'Basic ' + b64(':password'), 'Bearer abc', 'Digest x', 'Basic']) {
        await expect401(h, h);
      }
    });

    it('wrong password and unknown user: 401 (997)', async () => {
      await expect401(basic('bob', 'wrong-password'), 'wrong password');
      await expect401(basic('nobody', 'whatever-pass'), 'unknown user');
      await expect401(basic('bob', ''), 'empty password');
    });

    it('a disabled user: 401 even with the right password; enabled again, 200', async () => {
      assert.equal((await call(p, 'GET', '/cloud/user', { as: as('carol') })).status, 200);
      await call(p, 'PUT', '/cloud/users/carol/disable', { as: admin });
      await expect401(basic('carol', passwordOf('carol')), 'disabled (was cached)');
      await call(p, 'PUT', '/cloud/users/carol/enable', { as: admin });
      assert.equal((await call(p, 'GET', '/cloud/user', { as: as('carol') })).status, 200);
    });

    it('a password change drops the cached credential: old 401 at once, new works', async () => {
      assert.equal((await call(p, 'GET', '/cloud/user', { as: as('dan') })).status, 200);
      assert.equal((await call(p, 'GET', '/cloud/user', { as: as('dan') })).status, 200);
      const r = await call(p, 'PUT', '/cloud/users/dan', { as: admin, body: { key: 'password', value: 'dan-new-password-1' } });
      assert.equal(r.status, 200);
      await expect401(basic('dan', passwordOf('dan')), 'old password');
      assert.equal((await call(p, 'GET', '/cloud/user', { as: { user: 'dan', password: 'dan-new-password-1' } })).status, 200);
      // A user changing their own password.
      const self = await call(p, 'PUT', '/cloud/users/dan', {
        as: { user: 'dan', password: 'dan-new-password-1' },
        body: { key: 'password', value: 'dan-third-password' },
      });
      assert.equal(self.status, 200);
      await expect401(basic('dan', 'dan-new-password-1'), 'second old password');
      assert.equal((await call(p, 'GET', '/cloud/user', { as: { user: 'dan', password: 'dan-third-password' } })).status, 200);
    });

    it('a password changed by another process (no local event) also ends the cached login', async () => {
      assert.equal((await call(p, 'GET', '/cloud/user', { as: as('fay') })).status, 200);
      // Write the hash directly, as another Parley process sharing the database would.
      await p.services.directory.users.update('fay', { password_hash: await hashPassword('fay-elsewhere-1') });
      await expect401(basic('fay', passwordOf('fay')), 'changed elsewhere');
      assert.equal((await call(p, 'GET', '/cloud/user', { as: { user: 'fay', password: 'fay-elsewhere-1' } })).status, 200);
    });

    it('getapppassword turns the login into an app password that logs in', async () => {
      const r = await call(p, 'GET', '/core/getapppassword', { as: as('eve'), headers: { 'User-Agent': 'Mozilla/5.0 (Android) Nextcloud-Talk v18' } });
      assert.equal(r.status, 200);
      const token: string = r.data.apppassword;
      assert.match(token, /^[A-Za-z0-9]{72}$/);
      const me = await call(p, 'GET', '/cloud/user', { as: { user: 'eve', password: token } });
      assert.equal(me.status, 200);
      assert.equal(me.data.id, 'eve');
      // Stored hashed, named after the client.
      const rows = await p.services.db.kysely.selectFrom('app_passwords').selectAll().where('user_id', '=', 'eve').execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0].name, 'Mozilla/5.0 (Android) Nextcloud-Talk v18');
      assert.notEqual(rows[0].token_hash, token);
      // Only with the right login.
      await expect401(basic('bob', token), 'app password of another user');
    });

    it('getapppassword with an app password: 403; v1 and XML too', async () => {
      const token = (await call(p, 'GET', '/core/getapppassword', { as: as('eve') })).data.apppassword;
      const r = await call(p, 'GET', '/core/getapppassword', { as: { user: 'eve', password: token } });
      assert.equal(r.status, 403);
      assert.equal(r.data.error, 'apppassword');
      const v1 = await call(p, 'GET', '/core/getapppassword', { as: { user: 'eve', password: token }, version: 1, format: 'xml' });
      assert.equal(v1.status, 200);
      assert.match(v1.text, /<statuscode>403<\/statuscode>/);
      assert.equal((await call(p, 'GET', '/core/getapppassword')).status, 401);
    });

    it('DELETE /core/apppassword revokes the one in use; without one: 403', async () => {
      const token = (await call(p, 'GET', '/core/getapppassword', { as: as('eve') })).data.apppassword;
      const other = (await call(p, 'GET', '/core/getapppassword', { as: as('eve') })).data.apppassword;
      const noAp = await call(p, 'DELETE', '/core/apppassword', { as: as('eve') });
      assert.equal(noAp.status, 403);
      assert.equal(noAp.data.error, 'apppassword');
      const r = await call(p, 'DELETE', '/core/apppassword', { as: { user: 'eve', password: token } });
      assert.equal(r.status, 200);
      assert.deepEqual(r.data, []);
      await expect401(basic('eve', token), 'revoked app password');
      // Other app passwords and the login password keep working.
      assert.equal((await call(p, 'GET', '/cloud/user', { as: { user: 'eve', password: other } })).status, 200);
      assert.equal((await call(p, 'GET', '/cloud/user', { as: as('eve') })).status, 200);
    });

    it('rotate gives the app password in use a new secret; without one: 403', async () => {
      const token = (await call(p, 'GET', '/core/getapppassword', { as: as('eve') })).data.apppassword;
      assert.equal((await call(p, 'POST', '/core/apppassword/rotate', { as: as('eve') })).status, 403);
      const r = await call(p, 'POST', '/core/apppassword/rotate', { as: { user: 'eve', password: token } });
      assert.equal(r.status, 200);
      const fresh: string = r.data.apppassword;
      assert.match(fresh, /^[A-Za-z0-9]{72}$/);
      await expect401(basic('eve', token), 'rotated-away secret');
      assert.equal((await call(p, 'GET', '/cloud/user', { as: { user: 'eve', password: fresh } })).status, 200);
    });

    it("a disabled user's app password stops working; deleting the user removes their app passwords", async () => {
      await createUser(p, 'gus');
      const ap = await call(p, 'GET', '/core/getapppassword', { as: as('gus') });
      assert.equal(ap.status, 200, ap.text);
      const token: string = ap.data.apppassword;
      assert.equal((await call(p, 'GET', '/cloud/user', { as: { user: 'gus', password: token } })).status, 200, 'the app password works before');
      assert.equal((await call(p, 'PUT', '/cloud/users/gus/disable', { as: admin })).status, 200);
      await expect401(basic('gus', token), 'disabled user app password');
      const rowsOfGus = () => p.services.db.kysely.selectFrom('app_passwords').selectAll().where('user_id', '=', 'gus').execute();
      assert.equal((await rowsOfGus()).length, 1, 'the app password is stored before the delete');
      assert.equal((await call(p, 'DELETE', '/cloud/users/gus', { as: admin })).status, 200);
      assert.equal((await rowsOfGus()).length, 0);
    });
  });

  describe(`accounts: two Parley servers on one database [${dialect}]`, () => {
    let a: Parley;
    let b: Parley;
    before(async () => {
      a = await startParley(dialect, { env: { BRUTE_FORCE_DELAY_MS: '0' } });
      // Same DATA_DIR / DATABASE_SCHEMA: a second server with its own services and caches.
      b = await startParley(dialect, { env: a.env });
    });
    after(async () => {
      await b.close();
      await a.close();
    });

    it('a user created through one is seen by the other at once; a password change there ends cached logins here', async () => {
      const created = await call(a, 'POST', '/cloud/users', { as: admin, body: { userid: 'zoe', password: 'zoe-first-pass' } });
      assert.equal(created.status, 200);
      const viaB = await call(b, 'GET', '/cloud/user', { as: { user: 'zoe', password: 'zoe-first-pass' } });
      assert.equal(viaB.status, 200);
      assert.equal(viaB.data.id, 'zoe');
      // B now holds zoe's verified credential in its cache; A changes the password.
      assert.equal((await call(a, 'PUT', '/cloud/users/zoe', { as: admin, body: { key: 'password', value: 'zoe-second-pass' } })).status, 200);
      const stale = await call(b, 'GET', '/cloud/user', { as: { user: 'zoe', password: 'zoe-first-pass' } });
      assert.equal(stale.status, 401);
      assert.equal((await call(b, 'GET', '/cloud/user', { as: { user: 'zoe', password: 'zoe-second-pass' } })).status, 200);
      // Disabling through A also ends the login on B.
      await call(a, 'PUT', '/cloud/users/zoe/disable', { as: admin });
      assert.equal((await call(b, 'GET', '/cloud/user', { as: { user: 'zoe', password: 'zoe-second-pass' } })).status, 401);
    });
  });

  describe(`accounts: failed-login throttle [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: { BRUTE_FORCE_DELAY_MS: '50', BRUTE_FORCE_MAX_ATTEMPTS: '4' } });
      for (const u of ['bob', 'carol', 'dina']) await createUser(p, u);
    });
    after(async () => p.close());

    it('failures from one address slow down, then end in 429 even for the right password', async () => {
      const timings: number[] = [];
      for (let i = 0; i < 4; i++) {
        const t0 = performance.now();
        const r = await getFrom(p, '/cloud/user', basic('bob', 'wrong-password'), '127.0.0.1');
        timings.push(performance.now() - t0);
        assert.equal(r.status, 401);
      }
      // The first failure makes the next attempt wait BRUTE_FORCE_DELAY_MS, then it doubles:
      // 50, 100, 200 ms (lower bounds only, the machine may be slow).
      assert.ok(timings[1] >= 48, `2nd attempt took ${timings[1]} ms`);
      assert.ok(timings[2] >= 98, `3rd attempt took ${timings[2]} ms`);
      assert.ok(timings[3] >= 198, `4th attempt took ${timings[3]} ms`);
      const capped = await getFrom(p, '/cloud/user', basic('bob', passwordOf('bob')), '127.0.0.1');
      assert.equal(capped.status, 429);
      assert.equal(capped.body.ocs.meta.statuscode, 429);
      assert.equal(capped.body.ocs.data.error, 'throttled');
    });

    it('another client address is not affected', async () => {
      const r = await getFrom(p, '/cloud/user', basic('bob', passwordOf('bob')), '127.0.0.2');
      assert.equal(r.status, 200);
      assert.equal(r.body.ocs.data.id, 'bob');
    });

    it('a successful login resets the count for that address', async () => {
      for (let i = 0; i < 3; i++) assert.equal((await getFrom(p, '/cloud/user', basic('carol', 'nope-nope'), '127.0.0.3')).status, 401);
      assert.equal((await getFrom(p, '/cloud/user', basic('carol', passwordOf('carol')), '127.0.0.3')).status, 200);
      for (let i = 0; i < 3; i++) assert.equal((await getFrom(p, '/cloud/user', basic('carol', 'nope-nope'), '127.0.0.3')).status, 401);
      // 3 + 3 failures would be past the cap of 4 without the reset (dina's login is not cached yet).
      assert.equal((await getFrom(p, '/cloud/user', basic('dina', passwordOf('dina')), '127.0.0.3')).status, 200);
    });
  });
}
