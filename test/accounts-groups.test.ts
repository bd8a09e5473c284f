/**
 * Provisioning API for groups and memberships (docs/api.md "Provisioning API"): /cloud/groups...,
 * /cloud/users/{userid}/groups. Nextcloud's codes: create 101 invalid / 102 exists; delete
 * 101 unknown / 102 admin; membership 101 no group / 102 unknown group / 103 unknown user /
 * 105 admin removing themself from admin.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, as, createUser, dialects } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';
import { useParley } from './helpers/fixtures.js';

for (const dialect of dialects()) {
  describe(`accounts: groups [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE });
    before(async () => {
      await createUser(t.p, 'bob', { groups: ['staff'] });
      await createUser(t.p, 'carol', { groups: ['sales'] });
    });

    const members = async (g: string) => (await t.call('GET', `/cloud/groups/${g}/users`, { as: admin })).data.users;
    const groupsOf = async (u: string) => (await t.call('GET', `/cloud/users/${u}/groups`, { as: admin })).data.groups;

    describe('GET /cloud/groups', () => {
      it('lists group ids; search, limit and offset', async () => {
        const r = await t.call('GET', '/cloud/groups', { as: admin });
        assert.equal(r.status, 200);
        assert.deepEqual(r.data, { groups: ['admin', 'sales', 'staff'] });
        assert.deepEqual((await t.call('GET', '/cloud/groups', { as: admin, query: { search: 'ST' } })).data.groups, ['staff']);
        assert.deepEqual((await t.call('GET', '/cloud/groups', { as: admin, query: { limit: 2, offset: 1 } })).data.groups, ['sales', 'staff']);
        assert.deepEqual((await t.call('GET', '/cloud/groups', { as: admin, query: { search: '_' } })).data.groups, [], 'a "_" matches only itself');
      });

      it('non-admin 403, anonymous 401; v1 403 keeps HTTP 200', async () => {
        assert.equal((await t.call('GET', '/cloud/groups', { as: as('bob') })).status, 403);
        assert.equal((await t.call('GET', '/cloud/groups')).status, 401);
        const v1 = await t.call('GET', '/cloud/groups', { as: as('bob'), version: 1 });
        assert.equal(v1.status, 200);
        assert.equal(v1.meta.statuscode, 403);
      });
    });

    describe('POST /cloud/groups', () => {
      it('creates a group with a display name', async () => {
        const r = await t.call('POST', '/cloud/groups', { as: admin, body: { groupid: 'devs', displayname: 'Developers' } });
        assert.equal(r.status, 200);
        assert.deepEqual(r.data, []);
        assert.ok((await t.call('GET', '/cloud/groups', { as: admin })).data.groups.includes('devs'));
        assert.equal((await t.p.services.directory.groups.find('devs'))?.display_name, 'Developers');
      });

      it('existing group: 102; empty or missing id: 101 (v1 HTTP 200 with the code)', async () => {
        const dup = await t.call('POST', '/cloud/groups', { as: admin, body: { groupid: 'staff', displayname: 'Other' } });
        assert.equal(dup.status, 400);
        assert.equal(dup.meta.statuscode, 102);
        assert.equal(dup.data.error, 'groupid');
        assert.equal((await t.p.services.directory.groups.find('staff'))?.display_name, 'staff');
        for (const body of [{ groupid: '' }, {}, { groupid: '   ' }]) {
          const r = await t.call('POST', '/cloud/groups', { as: admin, body });
          assert.equal(r.status, 400);
          assert.equal(r.meta.statuscode, 101);
          assert.equal(r.data.error, 'groupid');
        }
        const v1 = await t.call('POST', '/cloud/groups', { as: admin, version: 1, format: 'xml', body: { groupid: 'staff' } });
        assert.equal(v1.status, 200);
        assert.match(v1.text, /<statuscode>102<\/statuscode>/);
      });

      it('non-admin: 403, nothing created', async () => {
        assert.equal((await t.call('POST', '/cloud/groups', { as: as('bob'), body: { groupid: 'rogue' } })).status, 403);
        assert.ok(!(await t.call('GET', '/cloud/groups', { as: admin })).data.groups.includes('rogue'));
      });
    });

    describe('GET /cloud/groups/{groupid}/users', () => {
      it('lists members; the deprecated /cloud/groups/{groupid} answers the same', async () => {
        const r = await t.call('GET', '/cloud/groups/staff/users', { as: admin });
        assert.equal(r.status, 200);
        assert.deepEqual(r.data, { users: ['bob'] });
        assert.deepEqual((await t.call('GET', '/cloud/groups/staff', { as: admin })).data, { users: ['bob'] });
      });

      it('unknown group: 404 with data.error group', async () => {
        const r = await t.call('GET', '/cloud/groups/nope/users', { as: admin });
        assert.equal(r.status, 404);
        assert.equal(r.data.error, 'group');
      });

      it('non-admin: 403', async () => {
        assert.equal((await t.call('GET', '/cloud/groups/staff/users', { as: as('bob') })).status, 403);
      });
    });

    describe('DELETE /cloud/groups/{groupid}', () => {
      it('deletes a group and its memberships', async () => {
        await createUser(t.p, 'dora', { groups: ['temp'] });
        const r = await t.call('DELETE', '/cloud/groups/temp', { as: admin });
        assert.equal(r.status, 200);
        assert.deepEqual(r.data, []);
        assert.equal((await t.call('GET', '/cloud/groups/temp/users', { as: admin })).status, 404);
        assert.deepEqual(await groupsOf('dora'), []);
      });

      it('unknown group: 101; the admin group: 102 and it stays', async () => {
        const unknown = await t.call('DELETE', '/cloud/groups/nope', { as: admin });
        assert.equal(unknown.status, 400);
        assert.equal(unknown.meta.statuscode, 101);
        assert.equal(unknown.data.error, 'groupid');
        const adm = await t.call('DELETE', '/cloud/groups/admin', { as: admin });
        assert.equal(adm.status, 400);
        assert.equal(adm.meta.statuscode, 102);
        assert.equal(adm.data.error, 'groupid');
        assert.deepEqual(await members('admin'), ['admin']);
      });

      it('non-admin: 403 and the group stays', async () => {
        assert.equal((await t.call('DELETE', '/cloud/groups/staff', { as: as('bob') })).status, 403);
        assert.deepEqual(await members('staff'), ['bob']);
      });
    });

    describe('/cloud/users/{userid}/groups', () => {
      it('GET: admin sees anyone, a user themself; others 404 (998); unknown user 404', async () => {
        assert.deepEqual((await t.call('GET', '/cloud/users/bob/groups', { as: admin })).data, { groups: ['staff'] });
        assert.deepEqual((await t.call('GET', '/cloud/users/bob/groups', { as: as('bob') })).data, { groups: ['staff'] });
        const other = await t.call('GET', '/cloud/users/bob/groups', { as: as('carol') });
        assert.equal(other.status, 404);
        assert.equal(other.meta.statuscode, 998);
        assert.equal(other.data.error, 'user');
        const unknown = await t.call('GET', '/cloud/users/nobody/groups', { as: admin });
        assert.equal(unknown.status, 404);
        assert.equal(unknown.data.error, 'user');
        assert.equal((await t.call('GET', '/cloud/users/bob/groups')).status, 401);
      });

      it('POST adds (idempotently), DELETE removes; groupid from the body or the query', async () => {
        let r = await t.call('POST', '/cloud/users/bob/groups', { as: admin, body: { groupid: 'sales' } });
        assert.equal(r.status, 200);
        assert.deepEqual(r.data, []);
        r = await t.call('POST', '/cloud/users/bob/groups', { as: admin, form: { groupid: 'sales' } });
        assert.equal(r.status, 200);
        assert.deepEqual(await groupsOf('bob'), ['sales', 'staff']);
        r = await t.call('DELETE', '/cloud/users/bob/groups', { as: admin, query: { groupid: 'sales' } });
        assert.equal(r.status, 200);
        assert.deepEqual(await groupsOf('bob'), ['staff']);
      });

      it('POST/DELETE failures: 101 no group, 102 unknown group, 103 unknown user; nothing changed', async () => {
        for (const method of ['POST', 'DELETE']) {
          const cases: Array<[string, Record<string, string>, number, string]> = [
            ['/cloud/users/bob/groups', {}, 101, 'groupid'],
            ['/cloud/users/bob/groups', { groupid: '' }, 101, 'groupid'],
            ['/cloud/users/bob/groups', { groupid: 'nope' }, 102, 'groupid'],
            ['/cloud/users/nobody/groups', { groupid: 'staff' }, 103, 'userid'],
          ];
          for (const [path, body, code, field] of cases) {
            const r = await t.call(method, path, { as: admin, body });
            assert.equal(r.status, 400, `${method} ${JSON.stringify(body)}`);
            assert.equal(r.meta.statuscode, code);
            assert.equal(r.data.error, field);
          }
        }
        assert.deepEqual(await groupsOf('bob'), ['staff']);
        assert.deepEqual(await members('staff'), ['bob']);
      });

      it('an admin cannot remove themself from admin: 105', async () => {
        const r = await t.call('DELETE', '/cloud/users/admin/groups', { as: admin, body: { groupid: 'admin' } });
        assert.equal(r.status, 400);
        assert.equal(r.meta.statuscode, 105);
        assert.equal(r.data.error, 'groupid');
        assert.deepEqual(await members('admin'), ['admin']);
      });

      it('a new admin member gets admin rights at once; removing them takes them away', async () => {
        assert.equal((await t.call('GET', '/cloud/users', { as: as('carol') })).status, 403);
        await t.call('POST', '/cloud/users/carol/groups', { as: admin, body: { groupid: 'admin' } });
        assert.equal((await t.call('GET', '/cloud/users', { as: as('carol') })).status, 200);
        await t.call('DELETE', '/cloud/users/carol/groups', { as: admin, body: { groupid: 'admin' } });
        assert.equal((await t.call('GET', '/cloud/users', { as: as('carol') })).status, 403);
      });

      it('non-admin: POST and DELETE 403, nothing changed', async () => {
        assert.equal((await t.call('POST', '/cloud/users/bob/groups', { as: as('bob'), body: { groupid: 'admin' } })).status, 403);
        assert.equal((await t.call('DELETE', '/cloud/users/bob/groups', { as: as('bob'), body: { groupid: 'staff' } })).status, 403);
        assert.deepEqual(await groupsOf('bob'), ['staff']);
      });
    });
  });
}
