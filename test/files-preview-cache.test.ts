/**
 * Previews are kept on disk (docs/files.md#for-apps-previews): a repeated request for the same
 * file, size and mode is answered from the cache without decoding (counted in /metrics as
 * `parley_file_previews_total{source=…}`), a new version of the file (new etag) is decoded
 * again and its old previews go, entries are whole files under the data directory, and the
 * cache stays within app config `files_preview_cache_size` (0 keeps nothing). SQLite and PostgreSQL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { admin, basic, dialects, passwordOf } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';
import { useParley } from './helpers/fixtures.js';
import { decoded, png } from './helpers/images.js';

const CONFIG = '/apps/provisioning_api/api/v1/config/apps/spreed/files_preview_cache_size';

for (const dialect of dialects()) {
  describe(`files preview cache [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice'] });
    const auth = { Authorization: basic('alice', passwordOf('alice')) };
    const cacheDir = () => path.join(t.p.env.DATA_DIR, 'files', 'previews');
    async function put(name: string, body: Buffer): Promise<number> {
      const res = await fetch(`${t.p.url}/remote.php/dav/files/alice/${name}`, { method: 'PUT', body: new Uint8Array(body), headers: auth });
      assert.ok(res.status === 201 || res.status === 204);
      return (await t.services.files.stat('alice', name))!.id;
    }
    async function preview(id: number, q = 'x=40&y=40&a=1') {
      const res = await fetch(`${t.p.url}/index.php/core/preview?fileId=${id}&${q}`, { headers: auth });
      assert.equal(res.status, 200);
      return Buffer.from(await res.arrayBuffer());
    }
    /** The counts of previews made (decoded) and answered from the cache, from /metrics. */
    async function counts(): Promise<{ made: number; cache: number }> {
      const text = await (await fetch(`${t.p.url}/metrics`)).text();
      const n = (source: string) => Number(new RegExp(`parley_file_previews_total\\{source="${source}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
      return { made: n('made'), cache: n('cache') };
    }
    const setLimit = async (bytes: number) => assert.equal((await t.call('POST', CONFIG, { as: admin, body: { value: String(bytes) } })).status, 200);

    it('the second request for a size is served from the cache, not decoded; another size or mode is made once', async () => {
      const id = await put('a.png', png(300, 200, [200, 30, 30]));
      const start = await counts();
      const first = await preview(id);
      assert.deepEqual(await counts(), { made: start.made + 1, cache: start.cache });
      const second = await preview(id);
      assert.deepEqual(await counts(), { made: start.made + 1, cache: start.cache + 1 }, 'not decoded again');
      assert.deepEqual(second, first);
      const d = await decoded(second);
      assert.deepEqual([d.width, d.height], [40, 27]);
      await preview(id, 'x=40&y=40&a=0');
      await preview(id, 'x=40&y=40&a=0');
      assert.deepEqual(await counts(), { made: start.made + 2, cache: start.cache + 2 });
      // Whole files only, named by file id and etag, under the data directory.
      const entries = fs.readdirSync(path.join(cacheDir(), String(id)));
      assert.equal(entries.length, 2);
      assert.ok(
        entries.every((n) => /^[0-9a-f]+-40x40-[01]\.png$/.test(n)),
        entries.join(),
      );
    });

    it('a new version of the file (new etag) is decoded again and its old previews are removed', async () => {
      const id = await put('b.png', png(100, 100, [0, 0, 255]));
      await preview(id);
      const start = await counts();
      assert.equal(await put('b.png', png(100, 100, [0, 255, 0])), id, 'same file, new etag');
      const fresh = await decoded(await preview(id));
      assert.deepEqual(fresh.pixel(20, 20), [0, 255, 0], 'the new picture, not the cached old one');
      assert.deepEqual(await counts(), { made: start.made + 1, cache: start.cache });
      const etag = (await t.services.files.stat('alice', 'b.png'))!.etag;
      assert.deepEqual(
        fs.readdirSync(path.join(cacheDir(), String(id))).map((n) => n.split('-')[0]),
        [etag],
      );
    });

    it('bounded by files_preview_cache_size: over it, entries are evicted; 0 keeps nothing', async () => {
      const id = await put('c.png', png(400, 400, [9, 9, 9]));
      const size = (await preview(id, 'x=200&y=200')).length;
      // Room for about three previews: new ones push the least recently used out.
      const limit = size * 3;
      await setLimit(limit);
      for (const x of [190, 191, 192, 193, 194, 195, 196, 197]) await preview(id, `x=${x}&y=${x}`);
      const sizes = fs
        .readdirSync(cacheDir())
        .flatMap((d) => fs.readdirSync(path.join(cacheDir(), d)).map((n) => fs.statSync(path.join(cacheDir(), d, n)).size));
      const total = sizes.reduce((a, b) => a + b, 0);
      assert.ok(total <= limit, `${total} bytes kept, limit ${limit}`);
      assert.ok(sizes.length >= 1 && sizes.length <= 3, `${sizes.length} entries kept`);
      const start0 = await counts();
      await preview(id, 'x=197&y=197');
      assert.equal((await counts()).cache, start0.cache + 1, 'the most recent one is still kept');
      await setLimit(0);
      const start = await counts();
      await preview(id, 'x=50&y=50');
      await preview(id, 'x=50&y=50');
      assert.deepEqual(await counts(), { made: start.made + 2, cache: start.cache }, 'nothing kept, nothing served from the cache');
      await setLimit(268435456);
    });
  });
}
