/**
 * The OCS input rules hold outside OCS too (docs/security.md "Bad input"): every route the
 * server registers outside /ocs/ (enumerated from the server itself, so routes added later are
 * covered) answers a NUL byte in a path placeholder, the query or a form body with a 400 naming
 * the field, never a 500, on SQLite and PostgreSQL, and nothing is stored.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { basic, dialects, passwordOf } from './helpers/parley.js';
import { useParley } from './helpers/fixtures.js';

const NUL = 'a%00b';

for (const dialect of dialects()) {
  describe(`NUL bytes outside OCS are 400 [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice'] });

    /** Each route's URL with every placeholder (and wildcard) filled by `value`. */
    const fill = (url: string, value: string) => url.replace(/:[A-Za-z]+/g, value).replace(/\*$/, value);

    it('the server lists its routes outside OCS (avatars, login flows, pages)', () => {
      const urls = t.p.app.webRoutes.map((r) => `${r.method} ${r.url}`);
      for (const want of ['GET /index.php/avatar/:userId/:size', 'POST /index.php/login/v2', 'POST /login', 'GET /index.php/login/flow']) {
        assert.ok(urls.includes(want), `${want} missing from ${urls.join(', ')}`);
      }
    });

    it('a NUL byte in a path placeholder is 400 on every route that has one', async () => {
      const withParams = t.p.app.webRoutes.filter((r) => /[:*]/.test(r.url));
      assert.ok(withParams.length >= 5);
      for (const r of withParams) {
        const res = await fetch(t.p.url + fill(r.url, NUL), { method: r.method, headers: { Authorization: basic('alice', passwordOf('alice')) } });
        const text = await res.text();
        assert.equal(res.status, 400, `${r.method} ${r.url}: ${res.status} ${text}`);
        assert.match(text, /NUL/, `${r.method} ${r.url}`);
      }
    });

    it('a NUL byte in the query or a form field is 400 on every route', async () => {
      for (const r of t.p.app.webRoutes) {
        const path = fill(r.url, 'x');
        const q = await fetch(`${t.p.url}${path}?name=${NUL}`, { method: r.method });
        assert.equal(q.status, 400, `${r.method} ${r.url} (query): ${q.status} ${await q.text()}`);
        // WebDAV bodies are file contents, never parsed as forms: any byte is data there.
        if (r.method === 'GET' || r.url.startsWith('/remote.php/dav/')) continue;
        const f = await fetch(t.p.url + path, {
          method: r.method,
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: `user=${NUL}&password=x`,
        });
        const text = await f.text();
        assert.equal(f.status, 400, `${r.method} ${r.url} (form): ${f.status} ${text}`);
        assert.match(text, /user/);
      }
    });

    it("the avatar of a user id with a NUL byte is 400, the user's own still served", async () => {
      for (const path of ['/index.php/avatar/a%00b/64', '/avatar/a%00b/64/dark', '/index.php/avatar/guest/a%00/64']) {
        assert.equal((await fetch(t.p.url + path)).status, 400, path);
      }
      assert.ok((await fetch(`${t.p.url}/index.php/avatar/alice/64`)).status < 300);
    });
  });
}
