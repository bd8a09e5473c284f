/** The OCS layer: envelope (v1/v2, JSON/XML), CSRF rule, not-found answers, format negotiation. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, dialects } from './helpers/parley.js';
import { useParley } from './helpers/fixtures.js';

for (const dialect of dialects()) {
  describe(`OCS envelope [${dialect}]`, () => {
    const t = useParley(dialect);

    it('status.php answers installed and not in maintenance', async () => {
      const res = await fetch(t.p.url + '/status.php');
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.equal(body.installed, true);
      assert.equal(body.maintenance, false);
    });

    it('v2 JSON success has statuscode 200 and no paging meta', async () => {
      const r = await t.call('GET', '/cloud/capabilities', { as: admin });
      assert.equal(r.status, 200);
      assert.deepEqual(r.meta, { status: 'ok', statuscode: 200, message: 'OK' });
      assert.match(r.headers.get('content-type')!, /^application\/json; charset=utf-8/);
    });

    it('v1 JSON success has statuscode 100 and empty paging strings', async () => {
      const r = await t.call('GET', '/cloud/capabilities', { as: admin, version: 1 });
      assert.equal(r.status, 200);
      assert.deepEqual(r.meta, { status: 'ok', statuscode: 100, message: 'OK', totalitems: '', itemsperpage: '' });
    });

    it('XML is the default format, with one-space indentation', async () => {
      const r = await t.call('GET', '/cloud/capabilities', { as: admin, format: 'none' });
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type')!, /^application\/xml/);
      assert.ok(
        r.text.startsWith(
          '<?xml version="1.0"?>\n<ocs>\n <meta>\n  <status>ok</status>\n  <statuscode>200</statuscode>\n  <message>OK</message>\n </meta>\n <data>\n',
        ),
      );
      assert.match(r.text, /<features>\n(\s+<element>[^<]+<\/element>\n)*\s+<\/features>|<features\/>/);
    });

    it('Accept: application/json selects JSON; format=xml overrides it', async () => {
      const j = await t.call('GET', '/cloud/capabilities', { as: admin, format: 'none', headers: { Accept: 'application/json' } });
      assert.equal(j.body.ocs.meta.statuscode, 200);
      const x = await t.call('GET', '/cloud/capabilities', { as: admin, format: 'xml', headers: { Accept: 'application/json' } });
      assert.match(x.text, /^<\?xml/);
    });

    it('v1 XML failure keeps HTTP 200 except for 401', async () => {
      const r = await t.call('GET', '/cloud/capabilities', { as: { user: 'admin', password: 'wrong' }, version: 1, format: 'xml' });
      assert.equal(r.status, 401);
      assert.match(r.text, /<statuscode>997<\/statuscode>/);
      assert.match(r.text, /<totalitems><\/totalitems>/);
    });

    it('a request without OCS-APIRequest gets 412 CSRF check failed (plain JSON)', async () => {
      const r = await t.call('GET', '/cloud/capabilities', { as: admin, ocsHeader: false });
      assert.equal(r.status, 412);
      assert.deepEqual(r.body, { message: 'CSRF check failed' });
    });

    it('unknown routes answer 404 in the envelope (v2) and 998 with HTTP 200 (v1)', async () => {
      const v2 = await t.call('GET', '/apps/spreed/api/v4/nothing-here', { as: admin });
      assert.equal(v2.status, 404);
      assert.equal(v2.meta.statuscode, 404);
      assert.equal(v2.meta.status, 'failure');
      assert.deepEqual(v2.data, []);
      const v1 = await t.call('GET', '/apps/spreed/api/v4/nothing-here', { as: admin, version: 1 });
      assert.equal(v1.status, 200);
      assert.equal(v1.meta.statuscode, 998);
    });

    it('an invalid JSON body on a POST route answers 400 with data.error "body" (never 500), nothing stored', async () => {
      for (const body of ['{"userid": "broken"', '{userid: broken}', '[1,2', 'nul']) {
        const r = await t.call('POST', '/cloud/users', { as: admin, body });
        assert.equal(r.status, 400, body);
        assert.equal(r.meta.statuscode, 400);
        assert.equal(r.data.error, 'body');
      }
      const v1 = await t.call('POST', '/cloud/users', { as: admin, body: '{"userid"', version: 1, format: 'xml' });
      assert.equal(v1.status, 200);
      assert.match(v1.text, /<statuscode>400<\/statuscode>/);
      assert.match(v1.text, /<error>body<\/error>/);
      assert.equal((await t.call('GET', '/cloud/users/broken', { as: admin })).status, 404);
    });

    it('a PHP-style form body reads `groups[]=a&groups[]=b` as a list', async () => {
      for (const g of ['form-a', 'form-b']) await t.call('POST', '/cloud/groups', { as: admin, form: { groupid: g } });
      const r = await t.call('POST', '/cloud/users', {
        as: admin,
        form: 'userid=form-user&password=form-password-1&groups%5B%5D=form-a&groups[]=form-b',
      });
      assert.equal(r.status, 200);
      const groups = await t.call('GET', '/cloud/users/form-user/groups', { as: admin });
      assert.deepEqual(groups.data.groups, ['form-a', 'form-b']);
    });
  });
}
