/**
 * A shared folder's contents and the `{file}` object's link (docs/files.md#receiving,
 * docs/reference/files.md#shared-folders, docs/reference/files.md#file-links): participants
 * list a shared folder and everything below it, download and preview files inside, and cannot
 * write there; guests of a public conversation download a file inside through the share link;
 * no path escapes the shared folder. `/index.php/f/{fileId}` leads a reader to the file's WebDAV
 * URL in their tree, answers 404 alike for a missing file and one they may not read, and sends
 * a visitor without a login to the login page. SQLite and PostgreSQL.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { as, basic, dialects, passwordOf } from './helpers/parley.js';
import { joinGuest } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';
import { decoded, png } from './helpers/images.js';

const SHARES = '/apps/files_sharing/api/v1/shares';
const CHAT = '/apps/spreed/api/v1/chat';

for (const dialect of dialects()) {
  describe(`shared folders and file links [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob', 'carol'], env: { BRUTE_FORCE_DELAY_MS: '0', BRUTE_FORCE_MAX_ATTEMPTS: '1000' } });
    let room: { token: string };
    let pub: { token: string };
    const auth = (user: string) => ({ Authorization: basic(user, passwordOf(user)) });
    const dav = (user: string, path: string, init: RequestInit = {}) =>
      fetch(`${t.p.url}/remote.php/dav/files/${user}/${path}`, { ...init, headers: { ...auth(user), ...(init.headers as Record<string, string>) } });
    async function put(user: string, path: string, body: Buffer | string) {
      const res = await dav(user, path, { method: 'PUT', body: typeof body === 'string' ? body : new Uint8Array(body) });
      assert.ok(res.status === 201 || res.status === 204, `upload ${path}: ${res.status}`);
    }
    const share = (user: string, body: Record<string, unknown>) => t.call('POST', SHARES, { as: as(user), body: { shareType: 10, ...body } });
    /** A GET of exactly `path` (fetch would resolve `..` and `%2e%2e` before sending). */
    const rawGet = (user: string, path: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const url = new URL(t.p.url);
        const req = httpRequest({ host: url.hostname, port: url.port, path: `/remote.php/dav/files/${user}/${path}`, headers: auth(user) }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const hrefs = (xml: string) => [...xml.matchAll(/<d:href>([^<]*)<\/d:href>/g)].map((m) => m[1]);

    before(async () => {
      room = (await t.newRoom('alice', { type: RoomType.GROUP, name: 'Album', members: ['bob'] })).record;
      pub = (await t.newRoom('alice', { type: RoomType.PUBLIC, name: 'Open' })).record;
      // alice's folder with a file, a picture, and a sub-folder with a file; a secret beside it.
      for (const folder of ['Trip', 'Trip/day 1']) assert.equal((await dav('alice', folder, { method: 'MKCOL' })).status, 201);
      await put('alice', 'Trip/notes.txt', 'notes');
      await put('alice', 'Trip/day 1/beach.png', png(90, 60, [0, 120, 250]));
      await put('alice', 'secret.txt', 'secret');
      await put('alice', 'Trip-secret.txt', 'not shared either');
    });

    it('a participant lists the shared folder and below, downloads and previews files inside, and cannot write there', async () => {
      assert.equal((await share('alice', { shareWith: room.token, path: '/Trip' })).status, 200);
      const file = (await t.history(room.token, 'bob', 1))[0].messageParameters.file;
      assert.equal(file.path, 'Talk/Trip');

      const top = await dav('bob', 'Talk/Trip', { method: 'PROPFIND', headers: { Depth: '1' } });
      assert.equal(top.status, 207);
      const xml = await top.text();
      assert.deepEqual(hrefs(xml).sort(), [
        '/remote.php/dav/files/bob/Talk/Trip/',
        '/remote.php/dav/files/bob/Talk/Trip/day%201/',
        '/remote.php/dav/files/bob/Talk/Trip/notes.txt',
      ]);
      assert.doesNotMatch(xml, /RGDNV/, 'read-only everywhere inside');
      const below = await dav('bob', 'Talk/Trip/day%201', { method: 'PROPFIND', headers: { Depth: '1' } });
      assert.equal(below.status, 207);
      const belowXml = await below.text();
      assert.ok(hrefs(belowXml).includes('/remote.php/dav/files/bob/Talk/Trip/day%201/beach.png'));
      const beachId = /<d:href>[^<]*beach\.png<\/d:href>.*?<oc:fileid>(\d+)<\/oc:fileid>/.exec(belowXml)![1];

      const got = await dav('bob', 'Talk/Trip/notes.txt');
      assert.equal(got.status, 200);
      assert.equal(await got.text(), 'notes');
      assert.equal((await dav('bob', 'Talk/Trip/day%201/beach.png', { method: 'HEAD' })).status, 200);
      const prev = await fetch(`${t.p.url}/index.php/core/preview?fileId=${beachId}&x=30&y=30&a=1`, { headers: auth('bob') });
      assert.equal(prev.status, 200);
      assert.equal((await decoded(Buffer.from(await prev.arrayBuffer()))).width, 30);

      // Writes inside are refused (new names too) and change nothing of alice's.
      assert.equal((await dav('bob', 'Talk/Trip/notes.txt', { method: 'PUT', body: 'changed' })).status, 403);
      assert.equal((await dav('bob', 'Talk/Trip/new.txt', { method: 'PUT', body: 'new' })).status, 403);
      assert.equal((await dav('bob', 'Talk/Trip/day%201/new', { method: 'MKCOL' })).status, 403);
      assert.equal((await dav('bob', 'Talk/Trip/day%201/beach.png', { method: 'DELETE' })).status, 403);
      const mv = await dav('bob', 'Talk/Trip/notes.txt', { method: 'MOVE', headers: { Destination: `${t.p.url}/remote.php/dav/files/bob/mine.txt` } });
      assert.equal(mv.status, 403);
      assert.equal(await (await dav('alice', 'Trip/notes.txt')).text(), 'notes');
      assert.equal(await t.services.files.stat('alice', 'Trip/new.txt'), undefined);
      assert.equal(await t.services.files.stat('bob', 'mine.txt'), undefined);

      // A file added to the folder later is readable too; carol (not a participant) gets nothing.
      await put('alice', 'Trip/day 1/later.txt', 'later');
      assert.equal(await (await dav('bob', 'Talk/Trip/day%201/later.txt')).text(), 'later');
      assert.equal((await dav('carol', 'Talk/Trip/notes.txt')).status, 404);
      assert.equal((await fetch(`${t.p.url}/index.php/core/preview?fileId=${beachId}&x=30&y=30`, { headers: auth('carol') })).status, 404);
    });

    it('no path leaves the shared folder: .., encoded, backslashes and look-alike names are 400 or 404, never another file', async () => {
      const cases: Array<[string, number[]]> = [
        ['Talk/Trip/..', [400]],
        ['Talk/Trip/../../secret.txt', [400]],
        ['Talk/Trip/%2e%2e/secret.txt', [400]],
        ['Talk/Trip/%2E%2E/%2E%2E/alice/secret.txt', [400]],
        ['Talk/Trip/..%2fsecret.txt', [400]],
        ['Talk/Trip/..%5csecret.txt', [400]],
        ['Talk/Trip/%252e%252e/secret.txt', [404]],
        ['Talk/Trip/.', [400]],
        ['Talk/Trip/notes.txt%00', [400]],
        ['Talk/Trip-secret.txt', [404]],
        ['Talk/Trip/~alice/secret.txt', [404]],
        ['Talk/Trip/notes.txt/..', [400]],
      ];
      for (const [path, statuses] of cases) {
        const { status, body } = await rawGet('bob', path);
        assert.ok(statuses.includes(status), `${path}: ${status}`);
        assert.doesNotMatch(body, /secret|not shared/, `${path} leaks nothing`);
      }
    });

    it('a guest of a public conversation downloads a file inside the shared folder through the link; escapes are refused', async () => {
      const r = await share('alice', { shareWith: pub.token, path: 'Trip' });
      assert.equal(r.status, 200, r.text);
      const guest = await joinGuest(t.p, pub.token);
      const hist = await t.call('GET', `${CHAT}/${pub.token}`, { as: guest.caller, query: { lookIntoFuture: 0, limit: 1 } });
      const link = hist.data[0].messageParameters.file.link as string;
      const down = await fetch(`${link}/download?path=${encodeURIComponent('/day 1/later.txt')}`);
      assert.equal(down.status, 200);
      assert.equal(await down.text(), 'later');
      const split = await fetch(`${link}/download?path=${encodeURIComponent('/day 1')}&files=later.txt`);
      assert.equal(await split.text(), 'later', "Nextcloud's path + files form");
      const beach = await fetch(`${link}/download?path=${encodeURIComponent('/day 1/beach.png')}`, { headers: { Range: 'bytes=0-3' } });
      assert.equal(beach.status, 206);
      const prev = await fetch(
        `${t.p.url}/index.php/apps/files_sharing/publicpreview/${r.data.token}?file=${encodeURIComponent('/day 1/beach.png')}&x=20&y=20&a=1`,
      );
      assert.equal(prev.status, 200);
      const page = await (await fetch(link)).text();
      assert.match(page, /href="\/index\.php\/s\/\w+\/download\?path=%2Fnotes\.txt">notes\.txt</);
      assert.match(page, /href="\/index\.php\/s\/\w+\?path=%2Fday%201">day 1\/</);
      const sub = await (await fetch(`${link}?path=${encodeURIComponent('/day 1')}`)).text();
      assert.match(sub, /download\?path=%2Fday%201%2Fbeach\.png">beach\.png</);
      assert.equal((await fetch(`${link}?path=${encodeURIComponent('/../secret.txt')}`)).status, 400);
      assert.equal((await fetch(`${link}/download`)).status, 404, 'the folder itself: no zip');
      assert.equal((await fetch(`${link}/download?path=/day%201`)).status, 404, 'a folder inside: no zip');
      for (const bad of ['/../secret.txt', '/day 1/../../secret.txt', '..', '/./notes.txt', '/notes.txt\u0000']) {
        const res = await fetch(`${link}/download?path=${encodeURIComponent(bad)}`);
        assert.equal(res.status, 400, `${JSON.stringify(bad)}: ${res.status}`);
        assert.doesNotMatch(await res.text(), /secret/);
      }
      for (const missing of ['/secret.txt', '/../Trip-secret.txt'.slice(4), '/nothing/here.txt', '/%2e%2e/secret.txt']) {
        const res = await fetch(`${link}/download?path=${encodeURIComponent(missing)}`);
        assert.equal(res.status, 404, `${missing}: ${res.status}`);
      }
    });

    it('/index.php/f/{fileId}: a reader is sent to the file in their tree; anybody else 404 as for a missing file; no login: the login page', async () => {
      await put('alice', 'photo.png', png(20, 20, [1, 2, 3]));
      assert.equal((await share('alice', { shareWith: room.token, path: 'photo.png' })).status, 200);
      const file = (await t.history(room.token, 'bob', 1))[0].messageParameters.file;
      const link = file.link as string;
      assert.match(link, new RegExp(`/index\\.php/f/${file.id}$`));

      const own = await fetch(link, { headers: auth('alice'), redirect: 'manual' });
      assert.equal(own.status, 302);
      assert.equal(own.headers.get('location'), '/remote.php/dav/files/alice/photo.png');
      const theirs = await fetch(link, { headers: auth('bob'), redirect: 'manual' });
      assert.equal(theirs.status, 302);
      assert.equal(theirs.headers.get('location'), `/remote.php/dav/files/bob/${file.path}`);
      const followed = await fetch(`${t.p.url}${theirs.headers.get('location')}`, { headers: auth('bob') });
      assert.equal(followed.status, 200);

      // A file inside a shared folder, and the folder itself.
      const notes = (await t.services.files.stat('alice', 'Trip/day 1/later.txt'))!;
      const inner = await fetch(`${t.p.url}/index.php/f/${notes.id}`, { headers: auth('bob'), redirect: 'manual' });
      assert.equal(inner.headers.get('location'), '/remote.php/dav/files/bob/Talk/Trip/day%201/later.txt');
      const trip = (await t.services.files.stat('alice', 'Trip'))!;
      const folder = await fetch(`${t.p.url}/index.php/f/${trip.id}`, { headers: auth('bob'), redirect: 'manual' });
      assert.equal(folder.headers.get('location'), '/remote.php/dav/files/bob/Talk/Trip/');

      // A browser session works like Basic.
      const login = await fetch(`${t.p.url}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { Origin: t.p.url, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ user: 'bob', password: passwordOf('bob') }).toString(),
      });
      const cookie = /parley_login=[^;]+/.exec(login.headers.get('set-cookie') ?? '')?.[0];
      assert.ok(cookie);
      const browser = await fetch(link, { headers: { Cookie: cookie }, redirect: 'manual' });
      assert.equal(browser.status, 302);
      assert.equal(browser.headers.get('location'), `/remote.php/dav/files/bob/${file.path}`);

      // carol may not read it: the same answer as for a file that does not exist.
      const secret = (await t.services.files.stat('alice', 'secret.txt'))!;
      const refused = await fetch(link, { headers: auth('carol'), redirect: 'manual' });
      const missing = await fetch(`${t.p.url}/index.php/f/999999999`, { headers: auth('carol'), redirect: 'manual' });
      const notShared = await fetch(`${t.p.url}/index.php/f/${secret.id}`, { headers: auth('bob'), redirect: 'manual' });
      for (const res of [refused, missing, notShared]) assert.equal(res.status, 404);
      const bodies = await Promise.all([refused.text(), missing.text(), notShared.text()]);
      assert.equal(new Set(bodies).size, 1, 'no existence leak');
      assert.equal((await fetch(`${t.p.url}/index.php/f/abc`, { headers: auth('bob'), redirect: 'manual' })).status, 404);

      // No login: the login page, with the way back.
      const anon = await fetch(link, { redirect: 'manual' });
      assert.equal(anon.status, 302);
      assert.equal(anon.headers.get('location'), `/login?redirect_url=${encodeURIComponent(`/index.php/f/${file.id}`)}`);
      const page = await fetch(`${t.p.url}${anon.headers.get('location')}`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), new RegExp(`value="/index.php/f/${file.id}"`));
    });
  });
}
