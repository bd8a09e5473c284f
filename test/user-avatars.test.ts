/**
 * User and guest avatars at Nextcloud's paths (server AvatarController / GuestAvatarController,
 * Avatar.php): generated defaults with Nextcloud's initials, palette colour and light/dark blend,
 * size rounding (≤64 → 64, else 512), caching headers (ETag + 304, 1 day / 30 days with ?v=,
 * 30 minutes for guests), 404 JSON for unknown users, uploads and removal by the user themself
 * (CSRF header, login, image checks: decoded, pixel limit, re-encoded) and cleanup when the user
 * is deleted. Generated avatars are PNG rendered with the bundled font.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { basic, createUser, dialects, passwordOf, startParley, type Parley } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';
import fs from 'node:fs';
import { bombPng, decoded, jpeg, lyingPng, png } from './helpers/images.js';
import { nextcloudColour } from '../src/domain/avatar-svg.js';
import { fontconfigText } from '../src/services/images/rasterise.js';

for (const dialect of dialects()) {
  describe(`user avatars [${dialect}]`, () => {
    let p: Parley;
    before(async () => {
      p = await startParley(dialect, { env: NO_THROTTLE });
      await createUser(p, 'alice', { displayName: 'Alice Liddell Smith' });
      await createUser(p, 'bob', { displayName: 'bob' });
      await createUser(p, 'gone', { displayName: 'Gone Soon' });
    });
    after(async () => p?.close());

    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(p.url + path, { headers });
      return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
    };
    const auth = (user: string) => ({ Authorization: basic(user, passwordOf(user)) });
    async function upload(file: Buffer | undefined, opts: { user?: string; field?: string; headers?: Record<string, string> } = {}) {
      const form = new FormData();
      if (file) form.append(opts.field ?? 'files[]', new Blob([new Uint8Array(file)], { type: 'image/png' }), 'me.png');
      else form.append('other', 'x');
      const res = await fetch(`${p.url}/index.php/avatar`, {
        method: 'POST',
        body: form,
        headers: opts.headers ?? { 'OCS-APIRequest': 'true', ...auth(opts.user ?? 'alice') },
      });
      return { status: res.status, body: await res.json() };
    }

    it('a user without upload gets Nextcloud-style initials in the palette colour, light and dark, as a PNG', async () => {
      const light = await get('/index.php/avatar/alice/64');
      assert.equal(light.status, 200);
      assert.equal(light.headers.get('content-type'), 'image/png');
      assert.equal(light.headers.get('x-nc-iscustomavatar'), '0');
      const img = await decoded(light.body);
      assert.deepEqual([img.width, img.height], [64, 64]);
      // md5("alice liddell smith") picks one of 18 palette colours; the background is 10 % of it over white.
      const fg = nextcloudColour('Alice Liddell Smith');
      const bg = img.pixel(0, 0);
      for (let i = 0; i < 3; i++) assert.equal(bg[i], Math.trunc(0.9 * 255 + 0.1 * fg[i]));
      // The initials are drawn (with the bundled font, so even on a machine without fonts) in the colour itself.
      assert.ok(img.count(fg) > 20, 'text pixels in the palette colour');
      const dark = await decoded((await get('/index.php/avatar/alice/64/dark')).body);
      const dbg = dark.pixel(0, 0);
      for (let i = 0; i < 3; i++) assert.equal(dbg[i], Math.trunc(0.1 * fg[i]));
      assert.ok(dark.count(fg) > 20, 'same text colour');
      // Known palette entries: "bob" → md5 digit sum % 18 = 8 → (147,178,123).
      const bob = await decoded((await get('/avatar/bob/64')).body);
      assert.ok(bob.count([147, 178, 123]) > 20);
    });

    it('generated avatars render the bundled Noto Sans: the renderer is pointed at the font shipped in node_modules', async () => {
      const conf = fontconfigText(undefined);
      const dir = /<dir>([^<]+)<\/dir>/.exec(conf)![1];
      assert.ok(fs.readdirSync(dir).includes('NotoSans_400Regular.ttf'), dir);
      // The server process uses that configuration once it has rendered an avatar.
      await get('/index.php/avatar/gone/512');
      assert.match(fs.readFileSync(process.env.FONTCONFIG_FILE!, 'utf8'), new RegExp(`<dir>${dir}</dir>`));
    });

    it('sizes round like Nextcloud: up to 64 is 64, anything larger 512; a non-number is 400', async () => {
      for (const [asked, got] of [
        [1, 64],
        [32, 64],
        [64, 64],
        [65, 512],
        [256, 512],
        [2048, 512],
      ]) {
        const r = await get(`/index.php/avatar/alice/${asked}`);
        assert.equal(r.status, 200);
        const img = await decoded(r.body);
        assert.deepEqual([img.width, img.height], [got, got], String(asked));
      }
      const bad = await get('/index.php/avatar/alice/big');
      assert.equal(bad.status, 400);
      assert.equal(JSON.parse(bad.body.toString()).data.error, 'size');
    });

    it('caching: 1 day, 30 days with ?v=, ETag and 304', async () => {
      const r = await get('/index.php/avatar/alice/512');
      assert.equal(r.headers.get('cache-control'), 'private, max-age=86400, immutable');
      assert.ok(r.headers.get('expires'));
      const v = await get('/index.php/avatar/alice/512?v=3');
      assert.equal(v.headers.get('cache-control'), 'private, max-age=2592000, immutable');
      const etag = r.headers.get('etag')!;
      const again = await get('/index.php/avatar/alice/512', { 'If-None-Match': etag });
      assert.equal(again.status, 304);
      assert.equal(again.body.length, 0);
      assert.notEqual((await get('/index.php/avatar/alice/512/dark')).headers.get('etag'), etag);
    });

    it('unknown users answer 404 with a JSON body, not HTML', async () => {
      for (const path of ['/index.php/avatar/nobody/64', '/index.php/avatar/nobody/64/dark', '/avatar/nobody/512']) {
        const r = await get(path);
        assert.equal(r.status, 404);
        assert.match(r.headers.get('content-type')!, /application\/json/);
        assert.deepEqual(JSON.parse(r.body.toString()), []);
      }
    });

    it('guest avatars are generated from the name, 201, cached 30 minutes', async () => {
      const r = await get('/index.php/avatar/guest/Zo%C3%AB%20Guest/64');
      assert.equal(r.status, 201);
      assert.equal(r.headers.get('cache-control'), 'private, max-age=1800, immutable');
      assert.equal(r.headers.get('content-type'), 'image/png');
      assert.ok((await decoded(r.body)).count(nextcloudColour('Zoë Guest')) > 20);
      const d = await get('/avatar/guest/Zo%C3%AB%20Guest/512/dark');
      assert.equal(d.status, 201);
      assert.equal((await decoded(d.body)).width, 512);
      // Markup in a name is text to draw, not SVG to parse.
      const x = await get('/index.php/avatar/guest/%3Cscript%3E/64');
      assert.equal(x.status, 201);
      assert.equal((await decoded(x.body)).width, 64);
    });

    it('a user uploads their own avatar: served re-encoded, marked custom, new ETag; DELETE goes back', async () => {
      const before = await get('/index.php/avatar/alice/64');
      const image = png(40, 40);
      const r = await upload(image);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { status: 'success' });
      const g = await get('/index.php/avatar/alice/64');
      assert.equal(g.status, 200);
      assert.equal(g.headers.get('content-type'), 'image/png');
      assert.equal(g.headers.get('x-nc-iscustomavatar'), '1');
      assert.ok(g.headers.get('last-modified'));
      const served = await decoded(g.body);
      assert.deepEqual([served.width, served.height], [40, 40]);
      assert.deepEqual(served.pixel(20, 20), [200, 40, 90]);
      assert.notEqual(g.headers.get('etag'), before.headers.get('etag'));
      assert.ok((await get('/index.php/avatar/alice/512/dark')).body.equals(g.body), 'the dark variant is the same image');
      // JPEG through the "files" field name works too, and replaces it.
      const j = jpeg(16, 16);
      assert.equal((await upload(j, { field: 'files' })).status, 200);
      assert.equal((await get('/index.php/avatar/alice/64')).headers.get('content-type'), 'image/jpeg');
      // Only alice's avatar changed.
      assert.equal((await get('/index.php/avatar/bob/64')).headers.get('x-nc-iscustomavatar'), '0');

      const del = await fetch(`${p.url}/index.php/avatar`, { method: 'DELETE', headers: { 'OCS-APIRequest': 'true', ...auth('alice') } });
      assert.equal(del.status, 200);
      const after = await get('/index.php/avatar/alice/64');
      assert.equal(after.headers.get('x-nc-iscustomavatar'), '0');
      assert.equal(after.headers.get('etag'), before.headers.get('etag'));
    });

    it('uploads are refused with 400 and a reason for a missing, non-image, broken or non-square file', async () => {
      const cases: Array<[Buffer | undefined, string]> = [
        [undefined, 'file'],
        [Buffer.from('GIF89a not allowed'), 'mimetype'],
        [png(10, 10).subarray(0, 20), 'image'],
        [png(30, 20), 'square'],
      ];
      for (const [file, reason] of cases) {
        const r = await upload(file);
        assert.equal(r.status, 400, reason);
        assert.equal(r.body.data.error, reason);
      }
      assert.equal((await get('/index.php/avatar/alice/64')).headers.get('x-nc-iscustomavatar'), '0', 'nothing stored');
    });

    it('an image is decoded and re-encoded: a large one is scaled to 512, its bytes are never served as uploaded', async () => {
      // Extra data after IEND (where a polyglot would hide its payload) does not survive.
      const image = Buffer.concat([png(1024, 1024, [10, 120, 200]), Buffer.from('<script>alert(1)</script>')]);
      assert.equal((await upload(image, { user: 'bob' })).status, 200);
      const g = await get('/index.php/avatar/bob/512');
      assert.equal(g.headers.get('content-type'), 'image/png');
      assert.ok(!g.body.equals(image));
      assert.ok(!g.body.includes('<script>'));
      const served = await decoded(g.body);
      assert.deepEqual([served.width, served.height], [512, 512]);
      assert.deepEqual(served.pixel(100, 100), [10, 120, 200]);
      assert.equal((await fetch(`${p.url}/index.php/avatar`, { method: 'DELETE', headers: { 'OCS-APIRequest': 'true', ...auth('bob') } })).status, 200);
    });

    it('a decompression bomb and a header lying about its size are refused with 400 image, nothing stored', async () => {
      const bomb = await bombPng(12000, 12000);
      assert.ok(bomb.length < 1024 * 1024, 'small on the wire');
      for (const file of [bomb, lyingPng(2147483647, 2147483647), lyingPng(9000, 9000)]) {
        const r = await upload(file);
        assert.equal(r.status, 400);
        assert.equal(r.body.data.error, 'image');
        assert.match(r.body.data.message, /too large/);
      }
      // Within the pixel limit but with no pixel data behind the header: it does not decode.
      const broken = await upload(lyingPng(64, 64));
      assert.equal(broken.status, 400);
      assert.equal(broken.body.data.error, 'image');
      assert.equal((await get('/index.php/avatar/alice/64')).headers.get('x-nc-iscustomavatar'), '0', 'nothing stored');
      const rows = await p.services.db.kysely.selectFrom('user_avatars').select('user_id').where('user_id', '=', 'alice').execute();
      assert.equal(rows.length, 0);
    });

    it('uploads need a login (401) and the CSRF header (412); a wrong password counts as failed login', async () => {
      const noAuth = await upload(png(8, 8), { headers: { 'OCS-APIRequest': 'true' } });
      assert.equal(noAuth.status, 401);
      const wrong = await upload(png(8, 8), { headers: { 'OCS-APIRequest': 'true', Authorization: basic('alice', 'nope') } });
      assert.equal(wrong.status, 401);
      const noCsrf = await upload(png(8, 8), { headers: auth('alice') });
      assert.equal(noCsrf.status, 412);
      const del = await fetch(`${p.url}/index.php/avatar`, { method: 'DELETE' });
      assert.equal(del.status, 412);
      assert.equal((await get('/index.php/avatar/alice/64')).headers.get('x-nc-iscustomavatar'), '0');
    });

    it("a deleted user's uploaded avatar goes with the account (404 afterwards)", async () => {
      assert.equal((await upload(png(8, 8), { user: 'gone' })).status, 200);
      await p.services.directory.deleteUser('gone');
      assert.equal((await get('/index.php/avatar/gone/64')).status, 404);
      const rows = await p.services.db.kysely.selectFrom('user_avatars').select('user_id').where('user_id', '=', 'gone').execute();
      assert.equal(rows.length, 0);
    });
  });
}
