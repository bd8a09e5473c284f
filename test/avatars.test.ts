/**
 * Conversation avatars (contract "Avatar"; docs/reference/conversations.md#avatars): multipart
 * uploads checked from the bytes, storage in the database, generated fallbacks, caching headers,
 * and an oversized upload answered before its body has even finished arriving.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { ListableScope } from '../src/domain/constants.js';
import { NO_THROTTLE, ParticipantType, RoomType, useParley, type RoomFixture } from './helpers/fixtures.js';
import { as, basic, dialects, passwordOf } from './helpers/parley.js';
import { roomRow, setRoom } from './helpers/rooms.js';
import { bombPng, decoded, jpeg, lyingPng, png } from './helpers/images.js';

for (const dialect of dialects()) {
  describe(`avatars [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['carol', 'frank'] });
    let group: RoomFixture;
    let one: RoomFixture;
    before(async () => {
      await t.newUser('alice', { displayName: 'Alice Archer' });
      await t.newUser('bob', { displayName: 'Bob Builder' });
      group = await t.newRoom('alice', { name: 'Pictures', members: { bob: ParticipantType.MODERATOR, carol: ParticipantType.USER } });
      one = await t.newRoom('alice', { type: RoomType.ONE_TO_ONE, invite: 'bob' });
    });

    const url = (token: string, api = 'v4', suffix = '') => `${t.p.url}/ocs/v2.php/apps/spreed/api/${api}/room/${token}/avatar${suffix}?format=json`;
    const auth = (user?: string): Record<string, string> => (user ? { Authorization: basic(user, passwordOf(user)) } : {});

    /** `headers` (e.g. a guest's cookie) replace alice's (or `user`'s) credentials. */
    async function upload(
      token: string,
      file: Buffer | string | undefined,
      opts: { user?: string; api?: string; field?: string; type?: string; name?: string; headers?: Record<string, string> } = {},
    ) {
      const form = new FormData();
      form.append('other', 'value');
      if (file !== undefined)
        form.append(
          opts.field ?? 'file',
          new Blob([typeof file === 'string' ? file : new Uint8Array(file)], { type: opts.type ?? 'image/png' }),
          opts.name ?? 'avatar.png',
        );
      const res = await fetch(url(token, opts.api), {
        method: 'POST',
        body: form,
        headers: { 'OCS-APIRequest': 'true', ...(opts.headers ?? auth(opts.user ?? 'alice')) },
      });
      const body: any = await res.json();
      return { status: res.status, data: body.ocs.data };
    }
    const get = async (token: string, opts: { user?: string; api?: string; dark?: boolean; headers?: Record<string, string> } = {}) => {
      const res = await fetch(url(token, opts.api, opts.dark ? '/dark' : ''), { headers: { ...auth(opts.user ?? 'alice'), ...(opts.headers ?? {}) } });
      return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
    };

    it('uploads a PNG and serves it from the database with cache headers, ETag and 304', async () => {
      const image = png(32, 32);
      const r = await upload(group.token, image);
      assert.equal(r.status, 200, JSON.stringify(r.data));
      assert.equal(r.data.token, group.token);
      assert.equal(r.data.isCustomAvatar, true);
      assert.match(r.data.avatarVersion, /^[a-z0-9]{16}$/);
      const row = await roomRow(t.p, group.token);
      assert.equal(row!.avatar, `${r.data.avatarVersion}.png`);

      const g = await get(group.token, { user: 'carol' });
      assert.equal(g.status, 200);
      assert.equal(g.headers.get('content-type'), 'image/png');
      assert.equal(g.headers.get('cache-control'), 'private, max-age=86400, immutable');
      // Decoded and re-encoded: the same picture, not the uploaded bytes.
      const served = await decoded(g.body);
      assert.deepEqual([served.width, served.height], [32, 32]);
      assert.deepEqual(served.pixel(16, 16), [200, 40, 90]);
      const etag = g.headers.get('etag')!;
      assert.ok(etag);
      const again = await get(group.token, { headers: { 'If-None-Match': etag } });
      assert.equal(again.status, 304);
      assert.equal(again.body.length, 0);
      // The dark variant of a custom avatar is the same image; api/v1 serves it too.
      assert.ok((await get(group.token, { dark: true, api: 'v1' })).body.equals(g.body));
      const record = await t.call('GET', `/apps/spreed/api/v4/room/${group.token}`, { as: as('carol') });
      assert.equal(record.data.avatarVersion, r.data.avatarVersion);
      assert.equal(record.data.isCustomAvatar, true);
    });

    it('a JPEG replaces it (through api/v1) and avatarVersion changes with every upload', async () => {
      const before = (await roomRow(t.p, group.token))!.avatar;
      const r = await upload(group.token, jpeg(16, 16), { api: 'v1', user: 'bob', type: 'application/octet-stream', name: 'x.bin' });
      assert.equal(r.status, 200, JSON.stringify(r.data));
      assert.notEqual(`${r.data.avatarVersion}.jpg`, before);
      const g = await get(group.token);
      assert.equal(g.headers.get('content-type'), 'image/jpeg');
      const same = await upload(group.token, jpeg(16, 16));
      assert.notEqual(same.data.avatarVersion, r.data.avatarVersion, 'a new upload is a new version');
    });

    it('refuses every bad upload with its own reason and keeps the avatar', async () => {
      const kept = (await roomRow(t.p, group.token))!.avatar;
      const cases: Array<[Buffer | string | undefined, string, Record<string, string>?]> = [
        [undefined, 'file'],
        [png(8, 8), 'file', { field: 'image' }],
        [Buffer.alloc(0), 'file'],
        ['just some text', 'mimetype'],
        [Buffer.from('GIF89a........'), 'mimetype'],
        [png(8, 8).subarray(0, 40), 'image'],
        [Buffer.concat([png(8, 8).subarray(0, 20), Buffer.alloc(4), png(8, 8).subarray(24)]), 'image'],
        [jpeg(8, 8).subarray(0, 30), 'image'],
        [png(32, 16), 'square'],
        [jpeg(16, 24), 'square'],
        // More pixels than Parley decodes: a decompression bomb and headers that lie.
        [await bombPng(12000, 12000), 'image'],
        [lyingPng(2147483647, 2147483647), 'image'],
        [lyingPng(9000, 9000), 'image'],
        // A header within the limit with no pixels behind it does not decode.
        [lyingPng(64, 64), 'image'],
      ];
      for (const [file, error, opts] of cases) {
        const r = await upload(group.token, file, opts ?? {});
        assert.equal(r.status, 400, `${error}: ${JSON.stringify(r.data)}`);
        assert.equal(r.data.error, error);
      }
      // Not multipart at all: a form field named file is no upload.
      const form = await t.call('POST', `/apps/spreed/api/v4/room/${group.token}/avatar`, { as: as('alice'), form: { file: 'abc' } });
      assert.equal(form.status, 400);
      assert.equal(form.data.error, 'file');
      const one1 = await upload(one.token, png(8, 8));
      assert.equal(one1.status, 400);
      assert.equal(one1.data.error, 'type');
      assert.equal((await roomRow(t.p, group.token))!.avatar, kept);
      assert.equal((await roomRow(t.p, one.token))!.avatar, '');
    });

    it('403 for non-moderators, 404 for strangers and anonymous callers, 412 without OCS-APIRequest', async () => {
      const kept = (await roomRow(t.p, group.token))!.avatar;
      assert.equal((await upload(group.token, png(8, 8), { user: 'carol' })).status, 403);
      assert.equal((await upload(group.token, png(8, 8), { user: 'frank' })).status, 404);
      const anon = await fetch(url(group.token), { method: 'POST', body: new FormData(), headers: { 'OCS-APIRequest': 'true' } });
      assert.equal(anon.status, 404);
      const csrf = await fetch(url(group.token), { method: 'DELETE', headers: auth('alice') });
      assert.equal(csrf.status, 412);
      assert.equal((await t.call('DELETE', `/apps/spreed/api/v4/room/${group.token}/avatar`, { as: as('carol') })).status, 403);
      assert.equal((await get(group.token, { user: 'frank' })).status, 404);
      assert.equal((await get(group.token, { user: 'frank', dark: true })).status, 404);
      assert.equal((await get(group.token, { user: undefined, headers: {} })).status, 200, 'alice by default');
      const anonGet = await fetch(url(group.token));
      assert.equal(anonGet.status, 404);
      assert.equal((await get('nonexistent1')).status, 404);
      assert.equal((await roomRow(t.p, group.token))!.avatar, kept);
    });

    it('guest moderators may upload and remove an avatar, plain guests get 403 (public conversation)', async () => {
      const pub = await t.newRoom('alice', { type: RoomType.PUBLIC, name: 'Guest pictures' });
      const guest = await t.newGuest(pub);
      const guestModerator = await t.newGuest(pub, ParticipantType.GUEST_MODERATOR);
      const refused = await upload(pub.token, png(8, 8), { headers: guest.caller.headers });
      assert.deepEqual([refused.status, refused.data.error], [403, 'moderator']);
      assert.equal((await roomRow(t.p, pub.token))!.avatar, '');
      const r = await upload(pub.token, png(8, 8), { headers: guestModerator.caller.headers });
      assert.equal(r.status, 200, JSON.stringify(r.data));
      assert.equal(r.data.isCustomAvatar, true);
      assert.notEqual((await roomRow(t.p, pub.token))!.avatar, '');
      const keep = await t.call('DELETE', `/apps/spreed/api/v4/room/${pub.token}/avatar`, { as: guest.caller });
      assert.deepEqual([keep.status, keep.data.error], [403, 'moderator']);
      const del = await t.call('DELETE', `/apps/spreed/api/v4/room/${pub.token}/avatar`, { as: guestModerator.caller });
      assert.equal(del.status, 200, del.text);
      assert.equal(del.data.isCustomAvatar, false);
      assert.equal((await roomRow(t.p, pub.token))!.avatar, '');
    });

    it('a large image is stored re-encoded at most 512 pixels a side', async () => {
      const image = jpeg(2000, 2000);
      const r = await upload(group.token, image);
      assert.equal(r.status, 200, JSON.stringify(r.data));
      const g = await get(group.token);
      assert.equal(g.headers.get('content-type'), 'image/jpeg');
      assert.ok(!g.body.equals(image));
      const served = await decoded(g.body);
      assert.deepEqual([served.width, served.height], [512, 512]);
    });

    it('DELETE goes back to the generated image; listed rooms show it to any user', async () => {
      const r = await t.call('DELETE', `/apps/spreed/api/v1/room/${group.token}/avatar`, { as: as('bob') });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.data.isCustomAvatar, false);
      assert.match(r.data.avatarVersion, /^[0-9a-f]{8}$/);
      assert.equal((await roomRow(t.p, group.token))!.avatar, '');
      const light = await get(group.token);
      assert.equal(light.headers.get('content-type'), 'image/svg+xml');
      assert.match(light.body.toString(), /^<svg /);
      const dark = await get(group.token, { dark: true });
      assert.notEqual(dark.body.toString(), light.body.toString());
      assert.notEqual(dark.headers.get('etag'), light.headers.get('etag'));
      await setRoom(t.p, group.token, { listable: ListableScope.ALL });
      assert.equal((await get(group.token, { user: 'frank' })).status, 200);
      await setRoom(t.p, group.token, { listable: ListableScope.NONE });
    });

    it('one-to-one conversations show the other user initials (PNG, drawn with the bundled font); public ones an icon', async () => {
      const forAlice = await get(one.token);
      assert.equal(forAlice.headers.get('content-type'), 'image/png');
      const forBob = await get(one.token, { user: 'bob' });
      assert.ok(!forAlice.body.equals(forBob.body));
      const img = await decoded(forAlice.body);
      assert.deepEqual([img.width, img.height], [512, 512]);
      assert.ok(img.count([255, 255, 255]) > 1000, 'white initials drawn');
      const pub = await t.newRoom('alice', { type: RoomType.PUBLIC, name: 'Open' });
      const pubSvg = (await get(pub.token)).body.toString();
      assert.notEqual(pubSvg, (await get(group.token)).body.toString());
    });

    it('a conversation whose name starts with an emoji shows that emoji on the theme grey; avatarVersion follows the emoji', async () => {
      const party = await t.newRoom('alice', { type: RoomType.GROUP, name: '🎉 Party' });
      const light = await get(party.token);
      assert.match(light.headers.get('content-type')!, /^image\/svg\+xml/);
      assert.ok(light.body.toString().includes('🎉') && light.body.toString().includes('#6b6b6b'), light.body.toString());
      assert.ok((await get(party.token, { dark: true })).body.toString().includes('#3b3b3b'));
      const family = await t.newRoom('alice', { type: RoomType.GROUP, name: '👨‍👩‍👧 Family' });
      assert.ok((await get(family.token)).body.toString().includes('👨‍👩‍👧'), 'the whole first emoji');
      const version = (name: string) => t.call('GET', `/apps/spreed/api/v4/room/${name}`, { as: as('alice') }).then((r) => r.data.avatarVersion as string);
      assert.notEqual(await version(party.token), await version(family.token));
      // A name that does not start with an emoji keeps the icon.
      const plain = await t.newRoom('alice', { type: RoomType.GROUP, name: 'Party 🎉' });
      assert.ok(!(await get(plain.token)).body.toString().includes('🎉'));
    });

    it('malformed multipart bodies are a 400 body, never a 500', async () => {
      const send = (contentType: string, body: string) =>
        fetch(url(group.token), { method: 'POST', body, headers: { 'Content-Type': contentType, 'OCS-APIRequest': 'true', ...auth('alice') } });
      for (const [type, body] of [
        ['multipart/form-data', '--x\r\n\r\nabc\r\n--x--'],
        ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc'],
        ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="file"'],
      ]) {
        const r = await send(type, body);
        assert.equal(r.status, 400, `${type} ${JSON.stringify(body)}`);
        assert.equal(((await r.json()) as any).ocs.data.error, 'body');
      }
      const ok = await send('multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\nabc\r\n--x--\r\n');
      assert.equal(((await ok.json()) as any).ocs.data.error, 'mimetype', 'a complete body reaches the checks');
    });

    it('an oversized upload is refused before its body has finished arriving', async () => {
      const boundary = 'parleyboundary';
      const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`);
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(url(group.token), {
          method: 'POST',
          headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'OCS-APIRequest': 'true', ...auth('alice') },
        });
        req.on('response', (r) => {
          let body = '';
          r.on('data', (c) => (body += c));
          r.on('end', () => {
            resolve({ status: r.statusCode!, body });
            req.destroy();
          });
        });
        req.on('error', (e) => (/socket hang up|ECONNRESET|EPIPE/.test(String(e)) ? undefined : reject(e)));
        req.write(head);
        req.write(png(8, 8));
        const mib = Buffer.alloc(1024 * 1024, 7);
        for (let i = 0; i < 21; i++) req.write(mib);
        // The body is never finished: only an early answer can resolve this.
      });
      assert.equal(res.status, 400);
      assert.equal(JSON.parse(res.body).ocs.data.error, 'size');
      assert.equal((await roomRow(t.p, group.token))!.avatar, '');
      // The server is still fine afterwards.
      assert.equal((await get(group.token)).status, 200);
    });
  });
}
