/**
 * Provisioning API for users (docs/api.md "Provisioning API"): /cloud/users, /cloud/users/{userid},
 * enable/disable, /cloud/user. Nextcloud's codes: 102 exists, 101 invalid, 104 unknown group,
 * 998 not found / not allowed; v1 answers HTTP 200 with the code, v2 maps 1xx to HTTP 400.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, createUser, dialects } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';
import { useParley } from './helpers/fixtures.js';

// Failed logins in these suites must not throttle the next tests (throttling has its own file).

for (const dialect of dialects()) {
  describe(`accounts: users [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE });
    before(async () => {
      await createUser(t.p, 'bob', { displayName: 'Bob B', email: 'bob@example.com', groups: ['staff'] });
      await createUser(t.p, 'carol', { displayName: 'Carol C' });
    });

    describe('GET /cloud/users', () => {
      it('lists user ids for an admin, ordered by id', async () => {
        const r = await t.call('GET', '/cloud/users', { as: admin });
        assert.equal(r.status, 200);
        assert.deepEqual(r.data, { users: ['admin', 'bob', 'carol'] });
      });

      it('searches id, display name and email; limit and offset page', async () => {
        assert.deepEqual((await t.call('GET', '/cloud/users', { as: admin, query: { search: 'carol c' } })).data.users, ['carol']);
        assert.deepEqual((await t.call('GET', '/cloud/users', { as: admin, query: { search: 'EXAMPLE.com' } })).data.users, ['bob']);
        assert.deepEqual((await t.call('GET', '/cloud/users', { as: admin, query: { limit: 1, offset: 1 } })).data.users, ['bob']);
        assert.deepEqual((await t.call('GET', '/cloud/users', { as: admin, query: { offset: 2 } })).data.users, ['carol']);
      });

      it('search wildcards match themselves: "_" and "%" find no user without them', async () => {
        for (const search of ['_', '%', 'b_b', '\\']) {
          assert.deepEqual((await t.call('GET', '/cloud/users', { as: admin, query: { search } })).data.users, [], search);
        }
      });

      it('rejects a non-numeric or negative limit with 400 limit', async () => {
        for (const limit of ['abc', '-1']) {
          const r = await t.call('GET', '/cloud/users', { as: admin, query: { limit } });
          assert.equal(r.status, 400);
          assert.equal(r.data.error, 'limit');
        }
      });

      it('is admin-only: 403 for a user, 401 (997) anonymous', async () => {
        const r = await t.call('GET', '/cloud/users', { as: as('bob') });
        assert.equal(r.status, 403);
        assert.equal(r.meta.statuscode, 403);
        const anon = await t.call('GET', '/cloud/users');
        assert.equal(anon.status, 401);
        assert.equal(anon.meta.statuscode, 997);
      });

      it('answers in XML with one <element> per id', async () => {
        const r = await t.call('GET', '/cloud/users', { as: admin, format: 'xml' });
        assert.equal(r.status, 200);
        assert.match(r.text, /<users>\n\s+<element>admin<\/element>\n\s+<element>bob<\/element>\n\s+<element>carol<\/element>\n\s+<\/users>/);
      });
    });

    describe('POST /cloud/users', () => {
      it('creates a user with display name, email and groups, and the new user can log in', async () => {
        const r = await t.call('POST', '/cloud/users', {
          as: admin,
          body: { userid: 'dave', password: 'dave-secret-1', displayName: 'Dave D', email: 'dave@example.com', groups: ['staff'] },
        });
        assert.equal(r.status, 200);
        assert.deepEqual(r.data, { id: 'dave' });
        const me = await t.call('GET', '/cloud/user', { as: { user: 'dave', password: 'dave-secret-1' } });
        assert.equal(me.status, 200);
        assert.equal(me.data.displayname, 'Dave D');
        assert.equal(me.data.email, 'dave@example.com');
        assert.deepEqual(me.data.groups, ['staff']);
      });

      it('reads a PHP-style form body with groups[]', async () => {
        const r = await t.call('POST', '/cloud/users', {
          as: admin,
          form: 'userid=erin&password=erin-secret-1&groups[]=staff&groups[]=admin',
        });
        assert.equal(r.status, 200);
        const g = await t.call('GET', '/cloud/users/erin/groups', { as: admin });
        assert.deepEqual(g.data.groups, ['admin', 'staff']);
      });

      it('duplicate id: 102 (v2 HTTP 400; also case-insensitively), nothing changed', async () => {
        for (const userid of ['bob', 'BOB']) {
          const r = await t.call('POST', '/cloud/users', { as: admin, body: { userid, password: 'other-password-1', displayName: 'Impostor' } });
          assert.equal(r.status, 400);
          assert.equal(r.meta.statuscode, 102);
          assert.equal(r.meta.message, 'User already exists');
          assert.equal(r.data.error, 'userid');
        }
        const bob = await t.call('GET', '/cloud/users/bob', { as: admin });
        assert.equal(bob.data.displayname, 'Bob B');
        // The old password still works.
        assert.equal((await t.call('GET', '/cloud/user', { as: as('bob') })).status, 200);
      });

      it('duplicate id on v1: HTTP 200 with statuscode 102', async () => {
        const r = await t.call('POST', '/cloud/users', { as: admin, version: 1, body: { userid: 'bob', password: 'other-password-1' } });
        assert.equal(r.status, 200);
        assert.equal(r.meta.status, 'failure');
        assert.equal(r.meta.statuscode, 102);
        assert.equal(r.data.error, 'userid');
      });

      it('duplicate id in XML', async () => {
        const r = await t.call('POST', '/cloud/users', { as: admin, format: 'xml', body: { userid: 'bob', password: 'other-password-1' } });
        assert.equal(r.status, 400);
        assert.match(r.text, /<statuscode>102<\/statuscode>/);
        assert.match(r.text, /<error>userid<\/error>/);
      });

      it('unknown group: 104 and no user is created', async () => {
        const r = await t.call('POST', '/cloud/users', { as: admin, body: { userid: 'frank', password: 'frank-secret-1', groups: ['staff', 'nope'] } });
        assert.equal(r.status, 400);
        assert.equal(r.meta.statuscode, 104);
        assert.equal(r.data.error, 'groups');
        assert.equal((await t.call('GET', '/cloud/users/frank', { as: admin })).status, 404);
      });

      it('invalid input: 101 with the field in data.error, nothing created', async () => {
        const cases: Array<[Record<string, unknown>, string]> = [
          [{ userid: 'bad/id', password: 'secret-pw-1' }, 'userid'],
          [{ userid: ' spaced', password: 'secret-pw-1' }, 'userid'],
          [{ userid: 'x'.repeat(65), password: 'secret-pw-1' }, 'userid'],
          [{ userid: '', password: 'secret-pw-1' }, 'userid'],
          [{ userid: 'gina', password: '' }, 'password'],
          [{ userid: 'gina', password: 'p'.repeat(470) }, 'password'],
          [{ userid: 'gina', password: 'secret-pw-1', email: 'not-an-email' }, 'email'],
          [{ userid: 'gina', password: 'secret-pw-1', displayName: 'x'.repeat(256) }, 'displayName'],
        ];
        for (const [body, field] of cases) {
          const r = await t.call('POST', '/cloud/users', { as: admin, body });
          assert.equal(r.status, 400, JSON.stringify(body));
          assert.equal(r.meta.statuscode, 101, JSON.stringify(body));
          assert.equal(r.data.error, field);
        }
        const list = await t.call('GET', '/cloud/users', { as: admin, query: { search: 'gina' } });
        assert.deepEqual(list.data.users, []);
      });

      it('wrong types: missing userid or groups not a list → 400 with the field', async () => {
        const missing = await t.call('POST', '/cloud/users', { as: admin, body: { password: 'secret-pw-1' } });
        assert.equal(missing.status, 400);
        assert.equal(missing.data.error, 'userid');
        const groups = await t.call('POST', '/cloud/users', { as: admin, body: { userid: 'hank', password: 'secret-pw-1', groups: 'staff' } });
        assert.equal(groups.status, 400);
        assert.equal(groups.data.error, 'groups');
        assert.equal((await t.call('GET', '/cloud/users/hank', { as: admin })).status, 404);
      });

      it('non-admin: 403, nothing created', async () => {
        const r = await t.call('POST', '/cloud/users', { as: as('bob'), body: { userid: 'ivan', password: 'secret-pw-1' } });
        assert.equal(r.status, 403);
        assert.equal((await t.call('GET', '/cloud/users/ivan', { as: admin })).status, 404);
      });
    });

    describe('GET /cloud/users/{userid} and /cloud/user', () => {
      it('gives an admin the Nextcloud record of any user', async () => {
        const r = await t.call('GET', '/cloud/users/bob', { as: admin });
        assert.equal(r.status, 200);
        const d = r.data;
        assert.equal(d.enabled, true);
        assert.equal(d.id, 'bob');
        assert.equal(d.displayname, 'Bob B');
        assert.equal(d['display-name'], 'Bob B');
        assert.equal(d.email, 'bob@example.com');
        assert.deepEqual(d.groups, ['staff']);
        assert.equal(d.backend, 'Database');
        assert.equal(typeof d.lastLogin, 'number');
        assert.equal(typeof d.quota, 'object');
        assert.equal(d.quota.used, 0);
        assert.deepEqual(d.backendCapabilities, { setDisplayName: true, setPassword: true });
        // Scopes only for the user's own record.
        assert.equal(d.displaynameScope, undefined);
      });

      it('a user sees their own record (with scopes); lastLogin is set by logging in', async () => {
        const r = await t.call('GET', '/cloud/users/carol', { as: as('carol') });
        assert.equal(r.status, 200);
        assert.equal(r.data.id, 'carol');
        assert.equal(r.data.email, null);
        assert.equal(r.data.displaynameScope, 'v2-federated');
        assert.ok(r.data.lastLogin > 0);
        assert.ok(Math.abs(r.data.lastLogin - Date.now()) < 120_000);
      });

      it('/cloud/user is the same record as /cloud/users/{self}', async () => {
        const a = await t.call('GET', '/cloud/user', { as: as('carol') });
        const b = await t.call('GET', '/cloud/users/carol', { as: as('carol') });
        assert.equal(a.status, 200);
        assert.deepEqual(a.data, b.data);
        assert.equal((await t.call('GET', '/cloud/user')).status, 401);
      });

      it("another user's record: 404 (998) for a non-admin, same as an unknown user", async () => {
        const r = await t.call('GET', '/cloud/users/bob', { as: as('carol') });
        assert.equal(r.status, 404);
        assert.equal(r.meta.statuscode, 998);
        assert.equal(r.data.error, 'user');
        const v1 = await t.call('GET', '/cloud/users/bob', { as: as('carol'), version: 1 });
        assert.equal(v1.status, 200);
        assert.equal(v1.meta.statuscode, 998);
      });

      it('unknown user: 404 with data.error user', async () => {
        const r = await t.call('GET', '/cloud/users/nobody', { as: admin });
        assert.equal(r.status, 404);
        assert.equal(r.data.error, 'user');
        assert.equal(r.meta.message, '');
      });

      it('anonymous: 401', async () => {
        assert.equal((await t.call('GET', '/cloud/users/bob')).status, 401);
      });

      it('XML record renders groups as elements and booleans PHP-style', async () => {
        const r = await t.call('GET', '/cloud/users/bob', { as: admin, format: 'xml' });
        assert.equal(r.status, 200);
        assert.match(r.text, /<enabled>1<\/enabled>/);
        assert.match(r.text, /<groups>\n\s+<element>staff<\/element>\n\s+<\/groups>/);
        assert.match(r.text, /<display-name>Bob B<\/display-name>/);
      });
    });

    describe('PUT /cloud/users/{userid}', () => {
      it('admin edits displayname, display and email of another user', async () => {
        await createUser(t.p, 'kim');
        let r = await t.call('PUT', '/cloud/users/kim', { as: admin, body: { key: 'displayname', value: 'Kim K' } });
        assert.equal(r.status, 200);
        assert.deepEqual(r.data, []);
        assert.equal((await t.call('GET', '/cloud/users/kim', { as: admin })).data.displayname, 'Kim K');
        r = await t.call('PUT', '/cloud/users/kim', { as: admin, form: { key: 'display', value: 'Kim Legacy' } });
        assert.equal(r.status, 200);
        r = await t.call('PUT', '/cloud/users/kim', { as: admin, body: { key: 'email', value: 'kim@example.org' } });
        assert.equal(r.status, 200);
        const d = (await t.call('GET', '/cloud/users/kim', { as: admin })).data;
        assert.equal(d.displayname, 'Kim Legacy');
        assert.equal(d.email, 'kim@example.org');
        // An empty email clears it.
        await t.call('PUT', '/cloud/users/kim', { as: admin, body: { key: 'email', value: '' } });
        assert.equal((await t.call('GET', '/cloud/users/kim', { as: admin })).data.email, null);
      });

      it('a user edits their own display name and email', async () => {
        await createUser(t.p, 'lena');
        const r = await t.call('PUT', '/cloud/users/lena', { as: as('lena'), body: { key: 'displayname', value: 'Lena L' } });
        assert.equal(r.status, 200);
        assert.equal((await t.call('GET', '/cloud/user', { as: as('lena') })).data.displayname, 'Lena L');
      });

      it('a user cannot edit someone else: 404 (998), nothing changed', async () => {
        const r = await t.call('PUT', '/cloud/users/bob', { as: as('carol'), body: { key: 'displayname', value: 'Hacked' } });
        assert.equal(r.status, 404);
        assert.equal(r.meta.statuscode, 998);
        assert.equal(r.data.error, 'user');
        assert.equal((await t.call('GET', '/cloud/users/bob', { as: admin })).data.displayname, 'Bob B');
      });

      it('unknown user: 404 (998)', async () => {
        const r = await t.call('PUT', '/cloud/users/nobody', { as: admin, body: { key: 'displayname', value: 'x' } });
        assert.equal(r.status, 404);
        assert.equal(r.meta.statuscode, 998);
      });

      it('unknown key: 400-class (113) with data.error key, nothing changed', async () => {
        for (const key of ['quota', 'nonsense', '']) {
          const r = await t.call('PUT', '/cloud/users/bob', { as: admin, body: { key, value: '5 GB' } });
          assert.equal(r.status, 400, key);
          assert.equal(r.meta.statuscode, 113);
          assert.equal(r.data.error, 'key');
        }
        const v1 = await t.call('PUT', '/cloud/users/bob', { as: admin, version: 1, body: { key: 'nonsense', value: 'x' } });
        assert.equal(v1.status, 200);
        assert.equal(v1.meta.statuscode, 113);
      });

      it('invalid values: 400-class with the field, nothing changed', async () => {
        const cases: Array<[string, string, string, number]> = [
          ['email', 'not-an-email', 'email', 101],
          ['displayname', 'x'.repeat(256), 'displayname', 101],
          // A NUL byte is refused by the OCS parameter layer for every route (docs/security.md):
          // plain 400 naming the parameter that holds it.
          ['displayname', 'bad\u0000name', 'value', 400],
          ['password', '', 'password', 102],
          ['password', 'p'.repeat(470), 'password', 102],
        ];
        for (const [key, value, field, code] of cases) {
          const r = await t.call('PUT', '/cloud/users/bob', { as: admin, body: { key, value } });
          assert.equal(r.status, 400, key);
          assert.equal(r.meta.statuscode, code, key);
          assert.equal(r.data.error, field);
        }
        const d = (await t.call('GET', '/cloud/users/bob', { as: admin })).data;
        assert.equal(d.email, 'bob@example.com');
        assert.equal(d.displayname, 'Bob B');
        assert.equal((await t.call('GET', '/cloud/user', { as: as('bob') })).status, 200);
      });

      it('missing key or value: 400 naming it', async () => {
        const noKey = await t.call('PUT', '/cloud/users/bob', { as: admin, body: { value: 'x' } });
        assert.equal(noKey.status, 400);
        assert.equal(noKey.data.error, 'key');
        const noValue = await t.call('PUT', '/cloud/users/bob', { as: admin, body: { key: 'email' } });
        assert.equal(noValue.status, 400);
        assert.equal(noValue.data.error, 'value');
      });

      it('anonymous: 401', async () => {
        assert.equal((await t.call('PUT', '/cloud/users/bob', { body: { key: 'email', value: '' } })).status, 401);
      });
    });

    describe('DELETE /cloud/users/{userid}', () => {
      it('admin deletes a user: record, login and memberships are gone', async () => {
        await createUser(t.p, 'mona', { groups: ['staff'] });
        const r = await t.call('DELETE', '/cloud/users/mona', { as: admin });
        assert.equal(r.status, 200);
        assert.deepEqual(r.data, []);
        assert.equal((await t.call('GET', '/cloud/users/mona', { as: admin })).status, 404);
        assert.equal((await t.call('GET', '/cloud/user', { as: as('mona') })).status, 401);
        assert.ok(!(await t.call('GET', '/cloud/groups/staff/users', { as: admin })).data.users.includes('mona'));
      });

      it('unknown user: 404 (998); deleting yourself: 101', async () => {
        const r = await t.call('DELETE', '/cloud/users/nobody', { as: admin });
        assert.equal(r.status, 404);
        assert.equal(r.meta.statuscode, 998);
        const self = await t.call('DELETE', '/cloud/users/admin', { as: admin });
        assert.equal(self.status, 400);
        assert.equal(self.meta.statuscode, 101);
        assert.equal(self.data.error, 'userid');
        assert.equal((await t.call('GET', '/cloud/user', { as: admin })).status, 200);
      });

      it('non-admin: 403 and the user stays; anonymous 401', async () => {
        const r = await t.call('DELETE', '/cloud/users/bob', { as: as('carol') });
        assert.equal(r.status, 403);
        assert.equal((await t.call('DELETE', '/cloud/users/bob')).status, 401);
        assert.equal((await t.call('GET', '/cloud/users/bob', { as: admin })).status, 200);
      });
    });

    describe('PUT /cloud/users/{userid}/enable|disable', () => {
      it('disable stops logins (401), enable restores them', async () => {
        await createUser(t.p, 'nina');
        assert.equal((await t.call('GET', '/cloud/user', { as: as('nina') })).status, 200);
        const d = await t.call('PUT', '/cloud/users/nina/disable', { as: admin });
        assert.equal(d.status, 200);
        assert.deepEqual(d.data, []);
        assert.equal((await t.call('GET', '/cloud/users/nina', { as: admin })).data.enabled, false);
        const denied = await t.call('GET', '/cloud/user', { as: as('nina') });
        assert.equal(denied.status, 401);
        assert.equal(denied.meta.statuscode, 997);
        assert.equal((await t.call('PUT', '/cloud/users/nina/enable', { as: admin })).status, 200);
        assert.equal((await t.call('GET', '/cloud/user', { as: as('nina') })).status, 200);
      });

      it('disabling or enabling yourself: 101; unknown user: 101', async () => {
        for (const path of ['/cloud/users/admin/disable', '/cloud/users/admin/enable', '/cloud/users/nobody/disable']) {
          const r = await t.call('PUT', path, { as: admin });
          assert.equal(r.status, 400, path);
          assert.equal(r.meta.statuscode, 101);
          assert.equal(r.data.error, 'userid');
        }
        assert.equal((await t.call('GET', '/cloud/user', { as: admin })).data.enabled, true);
      });

      it('non-admin: 403, user stays enabled', async () => {
        assert.equal((await t.call('PUT', '/cloud/users/bob/disable', { as: as('carol') })).status, 403);
        assert.equal((await t.call('GET', '/cloud/users/bob', { as: admin })).data.enabled, true);
      });
    });
  });
}
