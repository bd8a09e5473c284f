/**
 * The trusted servers admin API (docs/federation.md#the-trusted-servers-api), in the shape of
 * Nextcloud's federation app: admin only, the CLI's validation, 409 for a listed server, 404 for
 * an unknown id, JSON and XML, v1 and v2; the list it keeps is the one federation consults.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, dialects } from './helpers/parley.js';
import { assertAdminOnly, useParley } from './helpers/fixtures.js';

const BASE = '/apps/federation/trusted-servers';

for (const dialect of dialects()) {
  describe(`trusted servers API [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice'] });
    const trust = () => t.services.federation.trust;
    const add = (url: unknown) => t.call('POST', BASE, { as: admin, body: { url } });
    const list = async () => (await t.call('GET', BASE, { as: admin })).data as Array<{ id: number; url: string }>;

    it('is admin only: 401 anonymous, 403 for a user, on every route; nothing changes', async () => {
      await trust().add('kept.example.org');
      const [kept] = await list();
      await assertAdminOnly(t, 'alice', [
        ['GET', BASE],
        ['POST', BASE, { url: 'cloud.example.org' }],
        ['DELETE', `${BASE}/${kept.id}`],
      ]);
      assert.deepEqual(await trust().list(), ['kept.example.org']);
      await trust().remove('kept.example.org');
    });

    it('adds (named as the CLI names it), lists by name and removes by id; federation consults the same list', async () => {
      const r = await add('https://Cloud.Example.org/');
      assert.equal(r.status, 200);
      assert.equal(r.data.url, 'cloud.example.org');
      assert.equal(r.data.message, 'Added to the list of trusted servers');
      assert.ok(Number.isInteger(r.data.id) && r.data.id > 0);
      const other = await add('  another.example.org:8443/nc ');
      assert.equal(other.data.url, 'another.example.org:8443/nc');

      assert.deepEqual(await list(), [
        { id: other.data.id, url: 'another.example.org:8443/nc' },
        { id: r.data.id, url: 'cloud.example.org' },
      ]);
      assert.equal(await trust().isTrusted('cloud.example.org'), true);
      assert.deepEqual(await trust().list(), ['another.example.org:8443/nc', 'cloud.example.org']);

      const del = await t.call('DELETE', `${BASE}/${r.data.id}`, { as: admin });
      assert.equal(del.status, 200);
      assert.deepEqual(del.data, { id: r.data.id });
      assert.equal(await trust().isTrusted('cloud.example.org'), false);
      assert.deepEqual(await list(), [{ id: other.data.id, url: 'another.example.org:8443/nc' }]);
      await t.call('DELETE', `${BASE}/${other.data.id}`, { as: admin });
      assert.deepEqual(await list(), []);
    });

    it('refuses what the CLI refuses with 400 url, and a listed server with 409; nothing is stored', async () => {
      for (const url of ['not a server', '', 'cloud.example.org:99999', 'ftp://cloud.example.org', 'x'.repeat(300), 42, undefined]) {
        const r = await add(url);
        assert.equal(r.status, 400, `url ${String(url)}`);
        assert.equal(r.data.error, 'url');
        assert.equal(typeof r.data.message, 'string');
      }
      assert.deepEqual(await list(), []);

      const first = await add('cloud.example.org');
      assert.equal(first.status, 200);
      // The same server written differently is the same server.
      for (const again of ['cloud.example.org', 'https://CLOUD.example.org']) {
        const r = await add(again);
        assert.equal(r.status, 409, again);
        assert.equal(r.data.error, 'url');
        assert.equal(r.meta.message, 'Server is already in the list of trusted servers.');
      }
      assert.deepEqual(await list(), [{ id: first.data.id, url: 'cloud.example.org' }]);
      await t.call('DELETE', `${BASE}/${first.data.id}`, { as: admin });
    });

    it('two admins adding the same server at once: one is added, the other is 409', async () => {
      const statuses = (await Promise.all([add('race.example.org'), add('race.example.org')])).map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 409]);
      const [row] = await list();
      assert.equal(row.url, 'race.example.org');
      await t.call('DELETE', `${BASE}/${row.id}`, { as: admin });
    });

    it('an unknown id is 404 id, a malformed one 400 id; removing twice is 404 the second time', async () => {
      const r = await add('cloud.example.org');
      const unknown = await t.call('DELETE', `${BASE}/${r.data.id + 1000}`, { as: admin });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.data.error, 'id');
      assert.equal(unknown.data.message, `No server found with ID: ${r.data.id + 1000}`);
      const bad = await t.call('DELETE', `${BASE}/abc`, { as: admin });
      assert.equal(bad.status, 400);
      assert.equal(bad.data.error, 'id');
      assert.deepEqual(await trust().list(), ['cloud.example.org']);
      assert.equal((await t.call('DELETE', `${BASE}/${r.data.id}`, { as: admin })).status, 200);
      const twice = await t.call('DELETE', `${BASE}/${r.data.id}`, { as: admin });
      assert.equal(twice.status, 404);
      assert.equal(twice.data.error, 'id');
    });

    it('answers in XML and in the v1 envelope', async () => {
      const added = await t.call('POST', BASE, { as: admin, body: { url: 'cloud.example.org' }, format: 'xml' });
      assert.equal(added.status, 200);
      const id = Number(/<id>(\d+)<\/id>/.exec(added.text)?.[1]);
      assert.ok(id > 0, added.text);
      const xml = await t.call('GET', BASE, { as: admin, format: 'xml' });
      assert.match(xml.text, new RegExp(`<data>\\n  <element>\\n   <id>${id}</id>\\n   <url>cloud.example.org</url>\\n  </element>\\n </data>`));
      const refused = await t.call('POST', BASE, { as: admin, body: { url: 'not a server' }, format: 'xml' });
      assert.equal(refused.status, 400);
      assert.match(refused.text, /<error>url<\/error>/);

      const v1 = await t.call('GET', BASE, { as: admin, version: 1 });
      assert.equal(v1.status, 200);
      assert.equal(v1.meta.statuscode, 100);
      assert.deepEqual(v1.data, [{ id, url: 'cloud.example.org' }]);
      const v1unknown = await t.call('DELETE', `${BASE}/${id + 1000}`, { as: admin, version: 1 });
      assert.equal(v1unknown.meta.statuscode, 998);
      assert.equal(v1unknown.data.error, 'id');
      await t.call('DELETE', `${BASE}/${id}`, { as: admin });
    });
  });
}
