/**
 * Previews of a user's own images at Nextcloud's /core/preview (docs/files.md): scaled (a=1) or
 * cropped (a=0) with sharp, never enlarged; PROPFIND says nc:has-preview; 404 for other users,
 * folders, non-images and decompression bombs (refused from the header, nothing decoded); 400
 * for bad parameters; 401 without a login. SQLite and PostgreSQL.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { basic, dialects, passwordOf, type Parley } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';
import { useParley } from './helpers/fixtures.js';
import { bombPng, decoded, jpeg, png } from './helpers/images.js';

for (const dialect of dialects()) {
  describe(`files previews [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob'] });
    let p: Parley;
    before(() => {
      p = t.p;
    });
    const auth = (user = 'alice') => ({ Authorization: basic(user, passwordOf(user)) });
    async function put(path: string, body: Buffer) {
      const res = await fetch(`${p.url}/remote.php/dav/files/alice/${path}`, { method: 'PUT', body: new Uint8Array(body), headers: auth() });
      assert.equal(res.status, 201);
      return (await p.services.files.stat('alice', path))!.id;
    }
    async function preview(query: string, user: string | null = 'alice') {
      const res = await fetch(`${p.url}/index.php/core/preview?${query}`, { headers: user ? auth(user) : {} });
      return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
    }

    it('scales to fit (a=1) or crops to fill (a=0), never enlarges; JPEG stays JPEG', async () => {
      const id = await put('wide.png', png(400, 200, [10, 200, 30]));
      const fit = await preview(`fileId=${id}&x=100&y=100&a=1`);
      assert.equal(fit.status, 200);
      assert.equal(fit.type, 'image/png');
      const f = await decoded(fit.body);
      assert.deepEqual([f.width, f.height], [100, 50]);
      assert.deepEqual(f.pixel(50, 25), [10, 200, 30]);
      const fill = await decoded((await preview(`fileId=${id}&x=64&y=64&a=0`)).body);
      assert.deepEqual([fill.width, fill.height], [64, 64]);
      const big = await decoded((await preview(`fileId=${id}&x=4000&y=4000&a=1`)).body);
      assert.deepEqual([big.width, big.height], [400, 200], 'not enlarged');
      const jid = await put('photo.jpg', jpeg(64, 64));
      const j = await preview(`fileId=${jid}&x=32&y=32&a=1`);
      assert.equal(j.type, 'image/jpeg');
      assert.equal((await decoded(j.body)).width, 32);
      const list = await fetch(`${p.url}/remote.php/dav/files/alice/wide.png`, { method: 'PROPFIND', headers: { ...auth(), Depth: '0' } });
      assert.match(await list.text(), /<nc:has-preview>true<\/nc:has-preview>/);
    });

    it('no preview (404) for other users, folders, non-images and decompression bombs; 400 bad parameters; 401 anonymous', async () => {
      const id = (await p.services.files.stat('alice', 'wide.png'))!.id;
      assert.equal((await preview(`fileId=${id}&x=32&y=32`, 'bob')).status, 404);
      assert.equal((await preview(`fileId=${id}&x=32&y=32`, null)).status, 401);
      assert.equal((await preview(`fileId=999999&x=32&y=32`)).status, 404);
      const txt = await put('notes.txt', Buffer.from('hello'));
      assert.equal((await preview(`fileId=${txt}&x=32&y=32`)).status, 404);
      const root = (await p.services.files.root('alice')).id;
      assert.equal((await preview(`fileId=${root}&x=32&y=32`)).status, 404);
      const bomb = await put('bomb.png', await bombPng(12000, 12000));
      const started = Date.now();
      const r = await preview(`fileId=${bomb}&x=64&y=64&a=1`);
      assert.equal(r.status, 404);
      assert.match(r.body.toString(), /too large/);
      assert.ok(Date.now() - started < 2000, 'refused from the header, not decoded');
      const list = await fetch(`${p.url}/remote.php/dav/files/alice/bomb.png`, { method: 'PROPFIND', headers: { ...auth(), Depth: '0' } });
      assert.match(await list.text(), /<nc:has-preview>false<\/nc:has-preview>/);
      for (const q of [`fileId=abc&x=32&y=32`, `fileId=${id}&x=0&y=32`, `fileId=${id}&x=32&y=-1`, `fileId=${id}&a=2`, 'x=32', `fileId=${id}%00`]) {
        assert.equal((await preview(q)).status, 400, q);
      }
    });
  });
}
