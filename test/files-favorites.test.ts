/**
 * Favourite files over WebDAV (docs/files.md "For apps: WebDAV"): PROPPATCH of `oc:favorite`
 * as nc_py_api's `files.setfav` and Nextcloud's clients send it, shown by PROPFIND to that user
 * only; other properties refused as Sabre does (403, the rest 424, nothing applied); bad bodies
 * 400 or 413; WebDAV methods Parley does not implement answer 405 with the ones it does.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { basic, dialects, passwordOf } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';
import { useParley } from './helpers/fixtures.js';
import { fileUploadsJob } from '../src/jobs/file-uploads.js';

const setFavorite = (value: string, prefix = 'oc') =>
  `<?xml version="1.0"?><d:propertyupdate xmlns:d="DAV:" xmlns:${prefix}="http://owncloud.org/ns"><d:set><d:prop><${prefix}:favorite>${value}</${prefix}:favorite></d:prop></d:set></d:propertyupdate>`;

for (const dialect of dialects()) {
  describe(`files favourites [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob'] });
    const req = async (method: string, path: string, body?: string, user = 'alice', headers: Record<string, string> = {}) => {
      const res = await fetch(`${t.p.url}/remote.php/dav/files/${path}`, {
        method,
        body,
        headers: { Authorization: basic(user, passwordOf(user)), ...headers },
      });
      return { status: res.status, headers: res.headers, text: await res.text() };
    };
    const favoriteOf = async (path: string, user = 'alice') => {
      const r = await req('PROPFIND', path, undefined, user, { Depth: '0' });
      assert.equal(r.status, 207, r.text);
      return /<oc:favorite>(\d)<\/oc:favorite>/.exec(r.text)?.[1];
    };

    it('PROPPATCH oc:favorite marks and unmarks a file, whatever the prefix; PROPFIND shows it', async () => {
      assert.equal((await req('PUT', 'alice/notes.txt', 'hello')).status, 201);
      assert.equal(await favoriteOf('alice/notes.txt'), '0');
      const set = await req('PROPPATCH', 'alice/notes.txt', setFavorite('1'));
      assert.equal(set.status, 207, set.text);
      assert.match(set.text, /<d:href>\/remote\.php\/dav\/files\/alice\/notes\.txt<\/d:href>/);
      assert.match(set.text, /<x:favorite xmlns:x="http:\/\/owncloud\.org\/ns"\/><\/d:prop><d:status>HTTP\/1\.1 200 OK<\/d:status>/);
      assert.equal(await favoriteOf('alice/notes.txt'), '1');
      // The folder's listing shows it too (Depth 1), and nobody else's view changes.
      const listing = await req('PROPFIND', 'alice/', undefined, 'alice', { Depth: '1' });
      assert.match(listing.text, /notes\.txt<\/d:href><d:propstat><d:prop>.*<oc:favorite>1<\/oc:favorite>/);
      assert.equal((await req('PROPPATCH', 'alice/notes.txt', setFavorite('0', 'owncloud'))).status, 207);
      assert.equal(await favoriteOf('alice/notes.txt'), '0');
      const remove = `<d:propertyupdate xmlns:d="DAV:"><d:remove><d:prop><favorite xmlns="http://owncloud.org/ns"/></d:prop></d:remove></d:propertyupdate>`;
      assert.equal((await req('PROPPATCH', 'alice/notes.txt', setFavorite('true'))).status, 207);
      assert.equal(await favoriteOf('alice/notes.txt'), '1');
      assert.equal((await req('PROPPATCH', 'alice/notes.txt', remove)).status, 207);
      assert.equal(await favoriteOf('alice/notes.txt'), '0');
    });

    it('another property is refused (403) and the favourite beside it not applied (424)', async () => {
      assert.equal((await req('PUT', 'alice/other.txt', 'x')).status, 201);
      const body = `<d:propertyupdate xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns"><d:set><d:prop><oc:favorite>1</oc:favorite><d:displayname>New</d:displayname></d:prop></d:set></d:propertyupdate>`;
      const r = await req('PROPPATCH', 'alice/other.txt', body);
      assert.equal(r.status, 207);
      assert.match(r.text, /<x:displayname xmlns:x="DAV:"\/><\/d:prop><d:status>HTTP\/1\.1 403 Forbidden/);
      assert.match(r.text, /<x:favorite xmlns:x="http:\/\/owncloud\.org\/ns"\/><\/d:prop><d:status>HTTP\/1\.1 424 Failed Dependency/);
      assert.equal(await favoriteOf('alice/other.txt'), '0');
    });

    it('bad bodies are 400 or 413, a missing file 404, another user 404; nothing is marked', async () => {
      for (const bad of [
        'not xml <',
        '<d:foo xmlns:d="DAV:"/>',
        '',
        `<!DOCTYPE x [<!ENTITY a "b">]>${setFavorite('1')}`,
        setFavorite('1').replace('xmlns:oc="http://owncloud.org/ns"', ''),
      ]) {
        const r = await req('PROPPATCH', 'alice/other.txt', bad);
        assert.equal(r.status, 400, `${bad}: ${r.text}`);
        assert.match(r.text, /<s:exception>Sabre\\DAV\\Exception\\BadRequest<\/s:exception>/);
      }
      const huge = await req('PROPPATCH', 'alice/other.txt', setFavorite('1'.repeat(70_000)));
      assert.equal(huge.status, 413);
      assert.equal((await req('PROPPATCH', 'alice/missing.txt', setFavorite('1'))).status, 404);
      assert.equal((await req('PROPPATCH', 'alice/other.txt', setFavorite('1'), 'bob')).status, 404);
      assert.equal(await favoriteOf('alice/other.txt'), '0');
    });

    it('a deleted file’s mark is swept by the file-uploads job', async () => {
      assert.equal((await req('PUT', 'alice/gone.txt', 'x')).status, 201);
      assert.equal((await req('PROPPATCH', 'alice/gone.txt', setFavorite('1'))).status, 207);
      assert.equal((await req('DELETE', 'alice/gone.txt')).status, 204);
      assert.match(String(await fileUploadsJob.run(t.p.services, Math.floor(Date.now() / 1000))), /, and 1 favourite marks of deleted files$/);
      assert.equal((await t.p.services.db.kysely.selectFrom('file_favorites').selectAll().where('user_id', '=', 'alice').execute()).length, 0);
    });

    it('LOCK, REPORT and SEARCH answer 405 with the methods that work, in Sabre’s body', async () => {
      for (const method of ['LOCK', 'REPORT', 'SEARCH']) {
        const r = await req(method, 'alice/other.txt', '<x/>');
        assert.equal(r.status, 405, `${method}: ${r.text}`);
        assert.match(r.headers.get('allow') ?? '', /PROPPATCH/);
        assert.match(r.text, /MethodNotAllowed/);
      }
    });
  });
}
