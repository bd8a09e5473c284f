/**
 * Users' file storage (docs/files.md): metadata in the database, contents as blobs under
 * DATA_DIR written atomically, the per-file limit and the quota from app config, folders,
 * moves and copies of subtrees, and cleanup with the user. Through the service over a real
 * database and disk; the WebDAV routes on top are tested in files-webdav.test.ts.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { dialects, type Parley } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';
import { useParley } from './helpers/fixtures.js';
import { png } from './helpers/images.js';
import { ApiError } from '../src/domain/errors.js';

for (const dialect of dialects()) {
  describe(`file storage [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob'] });
    let p: Parley;
    before(() => {
      p = t.p;
    });

    const files = () => p.services.files;
    const blobFiles = () => {
      const dir = path.join(p.env.DATA_DIR, 'files', 'blobs');
      return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length : 0;
    };
    const tmpFiles = () => {
      const dir = path.join(p.env.DATA_DIR, 'files', 'tmp');
      return fs.existsSync(dir) ? fs.readdirSync(dir).length : 0;
    };
    const status = async (promise: Promise<unknown>) => {
      try {
        await promise;
        return 0;
      } catch (err) {
        if (err instanceof ApiError) return err.status;
        throw err;
      }
    };

    it('writes a file: metadata in the database (size, mimetype, etag, image size), bytes under DATA_DIR', async () => {
      const image = png(30, 20);
      const { row, created } = await files().write('alice', 'photo.png', Readable.from([image]), image.length);
      assert.equal(created, true);
      assert.equal(row.size, image.length);
      assert.equal(row.mimetype, 'image/png');
      assert.deepEqual([row.width, row.height], [30, 20]);
      assert.match(row.etag, /^[0-9a-f]{13}$/);
      const stored = await p.services.db.kysely
        .selectFrom('files')
        .selectAll()
        .where('owner', '=', 'alice')
        .where('path', '=', 'photo.png')
        .executeTakeFirstOrThrow();
      assert.equal(stored.id, row.id);
      assert.equal(blobFiles(), 1);
      const back = Buffer.concat(await files().read(stored).toArray());
      assert.ok(back.equals(image));
      assert.equal(await text(files().read(stored, { start: 1, end: 3 })), image.subarray(1, 4).toString());
      // A new version: same id, new etag, the old blob gone.
      const again = await files().write('alice', 'photo.png', Readable.from([Buffer.from('plain')]), 5);
      assert.equal(again.created, false);
      assert.equal(again.row.id, row.id);
      assert.notEqual(again.row.etag, row.etag);
      assert.equal(blobFiles(), 1);
      assert.equal((await files().stat('bob', ''))?.is_dir, 1, "bob's root exists on first need");
      assert.equal((await files().children('bob', await files().root('bob'))).length, 0, "alice's file is not bob's");
    });

    it('a stream that fails mid-way leaves no file, no row and no temp file', async () => {
      const failing = new Readable({
        read() {
          this.push(Buffer.alloc(1000));
          this.destroy(new Error('connection reset'));
        },
      });
      await assert.rejects(files().write('alice', 'broken.bin', failing, undefined));
      assert.equal(await files().stat('alice', 'broken.bin'), undefined);
      assert.equal(blobFiles(), 1);
      assert.equal(tmpFiles(), 0);
    });

    it('limits from app config: 413 above the per-file size, 507 past the quota (declared or streamed), nothing kept', async () => {
      await p.services.appConfig.set('files_max_file_size', '100');
      try {
        assert.equal(await status(files().write('alice', 'big.bin', Readable.from([Buffer.alloc(101)]), 101)), 413);
        assert.equal(await status(files().write('alice', 'big.bin', Readable.from([Buffer.alloc(60), Buffer.alloc(60)]), undefined)), 413);
      } finally {
        await p.services.appConfig.set('files_max_file_size', '1073741824');
      }
      const used = (await files().quota('alice')).used;
      await p.services.appConfig.set('files_quota', String(used + 50));
      try {
        assert.equal((await files().quota('alice')).available, 50);
        assert.equal(await status(files().write('alice', 'q.bin', Readable.from([Buffer.alloc(51)]), 51)), 507);
        assert.equal(await status(files().write('alice', 'q.bin', Readable.from([Buffer.alloc(51)]), undefined)), 507);
        assert.equal(await status(files().write('alice', 'q.bin', Readable.from([Buffer.alloc(50)]), 50)), 0);
      } finally {
        await p.services.appConfig.set('files_quota', '-1');
      }
      assert.equal(await files().stat('alice', 'big.bin'), undefined);
      assert.equal(blobFiles(), 2);
      assert.equal(tmpFiles(), 0);
      await files().remove('alice', 'q.bin');
    });

    it('folders: create, 409 without parent, 405 when taken; move and copy whole subtrees; delete', async () => {
      await files().mkdir('alice', 'Talk');
      assert.equal(await status(files().mkdir('alice', 'Talk')), 405);
      assert.equal(await status(files().mkdir('alice', 'none/sub')), 409);
      assert.equal(await status(files().write('alice', 'none/x.txt', Readable.from([Buffer.from('x')]), 1)), 409);
      await files().mkdir('alice', 'Talk/sub');
      await files().write('alice', 'Talk/sub/a.txt', Readable.from([Buffer.from('aaa')]), 3);
      const rootEtag = (await files().root('alice')).etag;
      await files().transfer('copy', 'alice', 'Talk', 'Copy', false);
      assert.equal(await text(files().read((await files().stat('alice', 'Copy/sub/a.txt'))!)), 'aaa');
      assert.notEqual((await files().root('alice')).etag, rootEtag, 'changes propagate to the folders above');
      assert.equal(await status(files().transfer('move', 'alice', 'Copy', 'Talk', false)), 412);
      assert.equal(await status(files().transfer('move', 'alice', 'Copy', 'Copy/sub/in', false)), 403);
      await files().transfer('move', 'alice', 'Copy', 'Moved', false);
      assert.equal(await files().stat('alice', 'Copy/sub/a.txt'), undefined);
      const moved = (await files().stat('alice', 'Moved/sub/a.txt'))!;
      assert.equal(moved.parent, 'Moved/sub');
      assert.deepEqual(
        (await files().children('alice', (await files().stat('alice', 'Moved'))!)).map((r) => r.name),
        ['sub'],
      );
      const before = blobFiles();
      await files().remove('alice', 'Moved');
      assert.equal(await files().stat('alice', 'Moved/sub'), undefined);
      assert.equal(blobFiles(), before - 1);
    });

    it("a deleted user's files go with the account", async () => {
      await files().write('bob', 'b.txt', Readable.from([Buffer.from('b')]), 1);
      const before = blobFiles();
      await p.services.directory.deleteUser('bob');
      const rows = await p.services.db.kysely.selectFrom('files').select('id').where('owner', '=', 'bob').execute();
      assert.equal(rows.length, 0);
      assert.equal(blobFiles(), before - 1);
    });
  });
}
