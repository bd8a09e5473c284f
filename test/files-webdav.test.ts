/**
 * WebDAV for users' own files at Nextcloud's path /remote.php/dav/files/{user}/ (docs/files.md),
 * over HTTP: PROPFIND Depth 0/1 with the properties the apps read, PUT (new and overwrite),
 * GET with Range, HEAD, MKCOL, MOVE, COPY, DELETE; logins (password, app password, none);
 * another user's tree; path traversal and other bad paths refused with 400 and nothing written;
 * the size limit (413) and the quota (507) from app config. Never a 500.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { as, basic, call, dialects, passwordOf, type Parley } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';
import { useParley } from './helpers/fixtures.js';
import { png } from './helpers/images.js';

for (const dialect of dialects()) {
  describe(`files WebDAV [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob'] });
    let p: Parley;
    before(() => {
      p = t.p;
    });

    const dav = (path: string) => `${p.url}/remote.php/dav/files/${path}`;
    const auth = (user = 'alice') => ({ Authorization: basic(user, passwordOf(user)) });
    async function req(method: string, path: string, opts: { body?: Buffer | string; headers?: Record<string, string>; user?: string } = {}) {
      const body = typeof opts.body === 'string' || opts.body === undefined ? opts.body : new Uint8Array(opts.body);
      const res = await fetch(dav(path), { method, body, headers: { ...auth(opts.user), ...(opts.headers ?? {}) } });
      return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
    }
    /** A request with the path sent exactly as given (fetch would resolve `..`). */
    function raw(method: string, rawPath: string, body?: string): Promise<{ status: number; body: string }> {
      return new Promise((resolve, reject) => {
        const url = new URL(p.url);
        const r = http.request({ host: url.hostname, port: url.port, method, path: rawPath, headers: auth() }, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode!, body: text }));
        });
        r.on('error', reject);
        r.end(body);
      });
    }
    const names = (xml: string) => [...xml.matchAll(/<d:href>([^<]*)<\/d:href>/g)].map((m) => m[1]);

    it('PUT creates (201) and overwrites (204) a file; GET, HEAD and Range read it back', async () => {
      const image = png(40, 30);
      const put = await req('PUT', 'alice/photo.png', { body: image, headers: { 'X-OC-MTime': '1700000000' } });
      assert.equal(put.status, 201);
      assert.match(put.headers.get('etag')!, /^"[0-9a-f]{13}"$/);
      assert.match(put.headers.get('oc-fileid')!, /^\d{8}ocparley$/);
      assert.equal(put.headers.get('x-oc-mtime'), 'accepted');
      const get = await req('GET', 'alice/photo.png');
      assert.equal(get.status, 200);
      assert.equal(get.headers.get('content-type'), 'image/png');
      assert.ok(get.body.equals(image));
      assert.equal(get.headers.get('etag'), put.headers.get('etag'));
      assert.equal(get.headers.get('last-modified'), new Date(1700000000 * 1000).toUTCString());
      assert.match(get.headers.get('content-disposition')!, /^attachment/);
      const head = await req('HEAD', 'alice/photo.png');
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('content-length'), String(image.length));
      assert.equal(head.body.length, 0);
      const part = await req('GET', 'alice/photo.png', { headers: { Range: 'bytes=8-15' } });
      assert.equal(part.status, 206);
      assert.equal(part.headers.get('content-range'), `bytes 8-15/${image.length}`);
      assert.ok(part.body.equals(image.subarray(8, 16)));
      const tail = await req('GET', 'alice/photo.png', { headers: { Range: 'bytes=-4' } });
      assert.ok(tail.body.equals(image.subarray(image.length - 4)));
      const bad = await req('GET', 'alice/photo.png', { headers: { Range: `bytes=${image.length}-` } });
      assert.equal(bad.status, 416);
      assert.equal(bad.headers.get('content-range'), `bytes */${image.length}`);
      const again = await req('PUT', 'alice/photo.png', { body: 'text now' });
      assert.equal(again.status, 204);
      assert.notEqual(again.headers.get('etag'), put.headers.get('etag'));
      assert.equal((await req('GET', 'alice/photo.png')).body.toString(), 'text now');
    });

    it('PROPFIND answers Depth 0 and 1 with the properties the apps read, in Nextcloud namespaces', async () => {
      await req('PUT', 'alice/pic%20two.png', { body: png(20, 10) });
      const d0 = await req('PROPFIND', 'alice/', { headers: { Depth: '0' } });
      assert.equal(d0.status, 207);
      assert.match(d0.headers.get('content-type')!, /^application\/xml/);
      const root = d0.body.toString();
      assert.deepEqual(names(root), ['/remote.php/dav/files/alice/']);
      assert.match(root, /xmlns:d="DAV:"/);
      assert.match(root, /xmlns:oc="http:\/\/owncloud.org\/ns"/);
      assert.match(root, /xmlns:nc="http:\/\/nextcloud.org\/ns"/);
      assert.match(root, /<d:resourcetype><d:collection\/><\/d:resourcetype>/);
      assert.match(root, /<d:quota-available-bytes>-3<\/d:quota-available-bytes>/);
      const d1 = (
        await req('PROPFIND', 'alice', { headers: { Depth: '1' }, body: '<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:allprop/></d:propfind>' })
      ).body.toString();
      assert.deepEqual(names(d1), ['/remote.php/dav/files/alice/', '/remote.php/dav/files/alice/photo.png', '/remote.php/dav/files/alice/pic%20two.png']);
      const file = (await req('PROPFIND', 'alice/pic%20two.png', { headers: { Depth: '0' } })).body.toString();
      const id = (await p.services.files.stat('alice', 'pic two.png'))!;
      assert.match(file, new RegExp(`<oc:fileid>${id.id}</oc:fileid>`));
      assert.match(file, new RegExp(`<d:getetag>&quot;${id.etag}&quot;</d:getetag>`));
      assert.match(file, new RegExp(`<d:getcontentlength>${id.size}</d:getcontentlength>`));
      assert.match(file, /<d:getcontenttype>image\/png<\/d:getcontenttype>/);
      assert.match(file, /<oc:permissions>RGDNVW<\/oc:permissions>/);
      assert.match(file, /<d:resourcetype\/>/);
      assert.match(file, /<d:getlastmodified>[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT<\/d:getlastmodified>/);
      const missing = await req('PROPFIND', 'alice/nope.txt', { headers: { Depth: '0' } });
      assert.equal(missing.status, 404);
      assert.match(missing.body.toString(), /<s:exception>Sabre\\DAV\\Exception\\NotFound<\/s:exception>/);
    });

    it('MKCOL, MOVE, COPY (Overwrite), DELETE', async () => {
      assert.equal((await req('MKCOL', 'alice/Talk')).status, 201);
      assert.equal((await req('MKCOL', 'alice/Talk')).status, 405);
      assert.equal((await req('MKCOL', 'alice/none/sub')).status, 409);
      assert.equal((await req('PUT', 'alice/none/x.txt', { body: 'x' })).status, 409);
      assert.equal((await req('PUT', 'alice/Talk', { body: 'x' })).status, 405, 'a PUT onto a folder');
      await req('PUT', 'alice/Talk/a.txt', { body: 'aaa' });
      const dest = (path: string) => ({ Destination: `${p.url}/remote.php/dav/files/alice/${path}` });
      assert.equal((await req('COPY', 'alice/Talk', { headers: dest('Copy') })).status, 201);
      assert.equal((await req('GET', 'alice/Copy/a.txt')).body.toString(), 'aaa');
      assert.equal((await req('MOVE', 'alice/Copy/a.txt', { headers: { ...dest('Talk/a.txt'), Overwrite: 'F' } })).status, 412);
      assert.equal((await req('MOVE', 'alice/Copy/a.txt', { headers: dest('Talk/b.txt') })).status, 201);
      assert.equal((await req('GET', 'alice/Copy/a.txt')).status, 404);
      assert.equal((await req('MOVE', 'alice/Talk/b.txt', { headers: dest('Talk/a.txt') })).status, 204, 'overwrites');
      assert.equal((await req('MOVE', 'alice/Talk', { headers: dest('Talk/inside') })).status, 403);
      assert.equal((await req('MOVE', 'alice/Talk/a.txt', { headers: { Destination: `${p.url}/remote.php/dav/files/bob/a.txt` } })).status, 403);
      assert.equal((await req('MOVE', 'alice/Talk/a.txt')).status, 400, 'no Destination');
      assert.equal((await req('DELETE', 'alice/Copy')).status, 204);
      assert.equal((await req('DELETE', 'alice/Copy')).status, 404);
    });

    it('logins: 401 without one (WWW-Authenticate), app passwords work, another user’s tree is 404', async () => {
      const anon = await fetch(dav('alice/photo.png'));
      assert.equal(anon.status, 401);
      assert.match(anon.headers.get('www-authenticate')!, /^Basic realm=/);
      const wrong = await fetch(dav('alice/photo.png'), { headers: { Authorization: basic('alice', 'wrong') } });
      assert.equal(wrong.status, 401);
      const token = (await call(p, 'GET', '/core/getapppassword', { as: as('alice') })).data.apppassword;
      const withToken = await fetch(dav('alice/photo.png'), { headers: { Authorization: basic('alice', token) } });
      assert.equal(withToken.status, 200);
      assert.equal((await req('GET', 'alice/photo.png', { user: 'bob' })).status, 404);
      assert.equal((await req('PUT', 'alice/from-bob.txt', { user: 'bob', body: 'x' })).status, 404);
      assert.equal(await p.services.files.stat('alice', 'from-bob.txt'), undefined);
    });

    it('bad paths (.., encoded .., NUL, encoded slash, bad encoding) are 400 and write nothing', async () => {
      for (const path of [
        '/remote.php/dav/files/alice/../bob/x.txt',
        '/remote.php/dav/files/alice/%2e%2e/x.txt',
        '/remote.php/dav/files/alice/Talk/%2E%2E/%2E%2E/x.txt',
        '/remote.php/dav/files/alice/a%00b.txt',
        '/remote.php/dav/files/alice/a%2Fb.txt',
        '/remote.php/dav/files/alice/a%5Cb.txt',
        '/remote.php/dav/files/alice/%ff.txt',
        '/remote.php/dav/files/al%00ice/x.txt',
      ]) {
        for (const method of ['PUT', 'GET', 'PROPFIND', 'MKCOL', 'DELETE']) {
          const r = await raw(method, path, method === 'PUT' ? 'evil' : undefined);
          assert.ok(r.status >= 400 && r.status < 500, `${method} ${path}: ${r.status}`);
        }
      }
      const bad = await raw('PUT', '/remote.php/dav/files/alice/a%00b.txt', 'x');
      assert.equal(bad.status, 400);
      assert.match(bad.body, /NUL/);
      const all = await p.services.db.kysely.selectFrom('files').select(['owner', 'path']).orderBy('path').execute();
      assert.deepEqual(
        all.map((r) => `${r.owner}:${r.path}`),
        ['alice:', 'alice:Talk', 'alice:Talk/a.txt', 'alice:photo.png', 'alice:pic two.png'],
      );
    });

    it('limits: 413 above files_max_file_size, 507 past files_quota; nothing stored', async () => {
      await p.services.appConfig.set('files_max_file_size', '10');
      try {
        assert.equal((await req('PUT', 'alice/big.bin', { body: Buffer.alloc(11) })).status, 413);
      } finally {
        await p.services.appConfig.set('files_max_file_size', '1073741824');
      }
      await p.services.appConfig.set('files_quota', '1');
      try {
        const r = await req('PUT', 'alice/big.bin', { body: Buffer.alloc(100) });
        assert.equal(r.status, 507);
        assert.match(r.body.toString(), /InsufficientStorage/);
      } finally {
        await p.services.appConfig.set('files_quota', '-1');
      }
      assert.equal((await req('GET', 'alice/big.bin')).status, 404);
    });
  });
}

for (const dialect of dialects()) {
  describe(`files WebDAV brute-force throttle [${dialect}]`, () => {
    const t = useParley(dialect, { env: { BRUTE_FORCE_DELAY_MS: '0', BRUTE_FORCE_MAX_ATTEMPTS: '3' }, users: ['carol'] });

    it('failed WebDAV logins count: past the cap even the right password gets 429, with a WebDAV body', async () => {
      const url = `${t.p.url}/remote.php/dav/files/carol/`;
      const propfind = (password: string) => fetch(url, { method: 'PROPFIND', headers: { Depth: '0', Authorization: basic('carol', password) } });
      assert.equal((await propfind(passwordOf('carol'))).status, 207);
      for (let i = 0; i < 3; i++) assert.equal((await propfind('wrong password')).status, 401);
      const capped = await propfind(passwordOf('carol'));
      assert.equal(capped.status, 429);
      assert.match(await capped.text(), /<s:exception>OCA\\DAV\\Connector\\Sabre\\Exception\\TooManyRequests<\/s:exception>/);
    });
  });
}
