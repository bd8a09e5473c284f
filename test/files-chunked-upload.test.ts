/**
 * Chunked uploads, Nextcloud's chunking v2 (docs/files.md), over HTTP: MKCOL of the upload
 * with its Destination, numbered chunks in any order, MOVE of .file with OC-Total-Length; bad
 * chunk names, a wrong total, a chunk past the size limit, a MOVE onto a folder, unknown and
 * foreign uploads refused with 4xx and nothing written; the job removing unfinished uploads.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { basic, dialects, passwordOf, type Parley } from './helpers/parley.js';
import { NO_THROTTLE } from './helpers/rooms.js';
import { useParley } from './helpers/fixtures.js';
import { fileUploadsJob } from '../src/jobs/file-uploads.js';

for (const dialect of dialects()) {
  describe(`files chunked upload [${dialect}]`, () => {
    const t = useParley(dialect, { env: NO_THROTTLE, users: ['alice', 'bob'] });
    let p: Parley;
    before(() => {
      p = t.p;
    });

    async function req(method: string, path: string, opts: { body?: Buffer; headers?: Record<string, string>; user?: string } = {}) {
      const user = opts.user ?? 'alice';
      const res = await fetch(`${p.url}/remote.php/dav/${path}`, {
        method,
        body: opts.body ? new Uint8Array(opts.body) : undefined,
        headers: { Authorization: basic(user, passwordOf(user)), ...(opts.headers ?? {}) },
      });
      return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
    }
    const dest = (path: string) => ({ Destination: `${p.url}/remote.php/dav/files/alice/${path}` });
    const chunkRows = async () => (await p.services.db.kysely.selectFrom('file_upload_chunks').select('blob').execute()).length;

    it('MKCOL, chunks out of order, MOVE .file: the file is the chunks in number order', async () => {
      const parts = [Buffer.alloc(3000, 1), Buffer.alloc(2000, 2), Buffer.alloc(10, 3)];
      assert.equal((await req('MKCOL', 'uploads/alice/web-file-upload-1', { headers: dest('big.bin') })).status, 201);
      assert.equal((await req('MKCOL', 'uploads/alice/web-file-upload-1', { headers: dest('big.bin') })).status, 405);
      assert.equal((await req('PUT', 'uploads/alice/web-file-upload-1/00003', { body: parts[2] })).status, 201);
      assert.equal((await req('PUT', 'uploads/alice/web-file-upload-1/00001', { body: Buffer.from('replaced below') })).status, 201);
      assert.equal((await req('PUT', 'uploads/alice/web-file-upload-1/00001', { body: parts[0] })).status, 201);
      assert.equal((await req('PUT', 'uploads/alice/web-file-upload-1/00002', { body: parts[1] })).status, 201);
      const total = String(parts.reduce((n, b) => n + b.length, 0));
      const move = await req('MOVE', 'uploads/alice/web-file-upload-1/.file', { headers: { ...dest('big.bin'), 'OC-Total-Length': total } });
      assert.equal(move.status, 201);
      assert.match(move.headers.get('oc-fileid')!, /ocparley$/);
      const got = await req('GET', 'files/alice/big.bin');
      assert.ok(got.body.equals(Buffer.concat(parts)));
      assert.equal(await chunkRows(), 0, 'chunks are gone');
      assert.equal((await req('PUT', 'uploads/alice/web-file-upload-1/00004', { body: parts[2] })).status, 404, 'the upload is finished');
    });

    const assemblyFile = (key: string) => path.join(t.services.settings.dataDir, 'files', 'assembly', key);
    const assemblies = () => {
      const dir = path.join(t.services.settings.dataDir, 'files', 'assembly');
      return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
    };

    it('chunks in order are appended to one assembly (no blob each) that becomes the file; nothing is left after the MOVE', async () => {
      const parts = [Buffer.alloc(5000, 7), Buffer.alloc(5000, 8), Buffer.alloc(123, 9)];
      assert.equal((await req('MKCOL', 'uploads/alice/in-order', { headers: dest('in-order.bin') })).status, 201);
      for (let i = 0; i < parts.length; i++) assert.equal((await req('PUT', `uploads/alice/in-order/${i + 1}`, { body: parts[i] })).status, 201);
      const upload = (await t.services.repos.fileUploads.find('alice', 'in-order'))!;
      const chunks = await t.services.repos.fileUploads.chunks(upload.id);
      assert.deepEqual(
        chunks.map((c) => [c.blob, Number(c.assembly_offset), Number(c.size)]),
        [
          ['', 0, 5000],
          ['', 5000, 5000],
          ['', 10000, 123],
        ],
      );
      assert.equal(fs.statSync(assemblyFile(upload.assembly)).size, 10123);
      const move = await req('MOVE', 'uploads/alice/in-order/.file', { headers: { ...dest('in-order.bin'), 'OC-Total-Length': '10123' } });
      assert.equal(move.status, 201);
      assert.ok((await req('GET', 'files/alice/in-order.bin')).body.equals(Buffer.concat(parts)));
      assert.equal(await chunkRows(), 0);
      assert.deepEqual(assemblies(), [], 'the assembly is gone (the file is its own blob)');
    });

    it('an appended chunk sent again, and a chunk or MOVE while a PUT holds the assembly: the file is still the chunks in number order', async () => {
      const parts = [Buffer.alloc(700, 1), Buffer.alloc(800, 2), Buffer.alloc(900, 3), Buffer.alloc(100, 4)];
      assert.equal((await req('MKCOL', 'uploads/alice/mixed', { headers: dest('mixed.bin') })).status, 201);
      assert.equal((await req('PUT', 'uploads/alice/mixed/1', { body: parts[0] })).status, 201);
      assert.equal((await req('PUT', 'uploads/alice/mixed/2', { body: Buffer.alloc(50, 0xee) })).status, 201);
      // Chunk 2 again: kept on its own; the assembly's copy of it is no longer used.
      assert.equal((await req('PUT', 'uploads/alice/mixed/2', { body: parts[1] })).status, 201);
      assert.equal((await req('PUT', 'uploads/alice/mixed/3', { body: parts[2] })).status, 201);
      // Another PUT (of any process) holds the assembly: chunk 4 is kept on its own.
      const held = () =>
        p.services.db.kysely
          .updateTable('file_uploads')
          .set({ appending: Math.floor(Date.now() / 1000) })
          .where('upload_id', '=', 'mixed')
          .execute();
      await held();
      assert.equal((await req('PUT', 'uploads/alice/mixed/4', { body: parts[3] })).status, 201);
      const upload = (await t.services.repos.fileUploads.find('alice', 'mixed'))!;
      const chunks = await t.services.repos.fileUploads.chunks(upload.id);
      assert.deepEqual(
        chunks.map((c) => c.blob === ''),
        [true, false, true, false],
      );
      const move = await req('MOVE', 'uploads/alice/mixed/.file', { headers: { ...dest('mixed.bin'), 'OC-Total-Length': '2500' } });
      assert.equal(move.status, 201);
      assert.ok((await req('GET', 'files/alice/mixed.bin')).body.equals(Buffer.concat(parts)));

      // Every chunk in the assembly, but a PUT holds it: the MOVE copies the recorded bytes.
      assert.equal((await req('MKCOL', 'uploads/alice/held', { headers: dest('held.bin') })).status, 201);
      assert.equal((await req('PUT', 'uploads/alice/held/1', { body: parts[0] })).status, 201);
      assert.equal((await req('PUT', 'uploads/alice/held/2', { body: parts[1] })).status, 201);
      await p.services.db.kysely.updateTable('file_uploads').set({ appending: 1 }).where('upload_id', '=', 'held').execute();
      const heldMove = await req('MOVE', 'uploads/alice/held/.file', { headers: { ...dest('held.bin'), 'OC-Total-Length': '1500' } });
      assert.equal(heldMove.status, 201);
      assert.ok((await req('GET', 'files/alice/held.bin')).body.equals(Buffer.concat(parts.slice(0, 2))));
      assert.deepEqual(assemblies(), []);
    });

    it('an assembly cut short on disk (not synced as it grows; a crash can do it) fails the MOVE with 400 and writes nothing', async () => {
      assert.equal((await req('MKCOL', 'uploads/alice/cut-assembly', { headers: dest('cut-assembly.bin') })).status, 201);
      assert.equal((await req('PUT', 'uploads/alice/cut-assembly/1', { body: Buffer.alloc(4000, 1) })).status, 201);
      assert.equal((await req('PUT', 'uploads/alice/cut-assembly/2', { body: Buffer.alloc(4000, 2) })).status, 201);
      const upload = (await t.services.repos.fileUploads.find('alice', 'cut-assembly'))!;
      fs.truncateSync(assemblyFile(upload.assembly), 5000);
      // A chunk after the lost bytes is not appended past them (that would fill them with zeros).
      assert.equal((await req('PUT', 'uploads/alice/cut-assembly/3', { body: Buffer.alloc(10, 3) })).status, 201);
      assert.equal(fs.statSync(assemblyFile(upload.assembly)).size, 5000);
      const move = await req('MOVE', 'uploads/alice/cut-assembly/.file', { headers: { ...dest('cut-assembly.bin'), 'OC-Total-Length': '8010' } });
      assert.equal(move.status, 400, move.body.toString());
      assert.match(move.body.toString(), /Chunk 2 was lost/);
      assert.equal((await req('GET', 'files/alice/cut-assembly.bin')).status, 404);
      assert.equal((await req('DELETE', 'uploads/alice/cut-assembly')).status, 204);
      assert.deepEqual(assemblies(), []);
    });

    it('a chunk cut short on disk (chunks are not synced one by one; a crash can do it) fails the MOVE with 400 and writes nothing', async () => {
      assert.equal((await req('MKCOL', 'uploads/alice/cut-short', { headers: dest('cut.bin') })).status, 201);
      // Chunk 2 first: it is not the next in order, so it is a blob of its own.
      assert.equal((await req('PUT', 'uploads/alice/cut-short/2', { body: Buffer.alloc(4000, 2) })).status, 201);
      assert.equal((await req('PUT', 'uploads/alice/cut-short/1', { body: Buffer.alloc(4000, 1) })).status, 201);
      const upload = await t.services.repos.fileUploads.find('alice', 'cut-short');
      const own = (await t.services.repos.fileUploads.chunks(upload!.id)).find((c) => c.blob !== '')!;
      assert.equal(own.number, 2);
      fs.truncateSync(path.join(t.services.settings.dataDir, 'files', 'blobs', own.blob.slice(0, 2), own.blob), 100);
      const move = await req('MOVE', 'uploads/alice/cut-short/.file', { headers: { ...dest('cut.bin'), 'OC-Total-Length': '8000' } });
      assert.equal(move.status, 400, move.body.toString());
      assert.equal((await req('GET', 'files/alice/cut.bin')).status, 404);
      assert.equal((await req('DELETE', 'uploads/alice/cut-short')).status, 204);
    });

    it('bad input: chunk names, wrong total, too large, MOVE onto a folder, unknown or foreign uploads; nothing written', async () => {
      assert.equal((await req('MKCOL', 'uploads/alice/u2', { headers: dest('u2.bin') })).status, 201);
      for (const name of ['abc', '0', '10001', '123456']) {
        assert.equal((await req('PUT', `uploads/alice/u2/${name}`, { body: Buffer.from('x') })).status, 400, name);
      }
      assert.equal((await req('PUT', 'uploads/alice/u2/1', { body: Buffer.alloc(100) })).status, 201);
      const wrong = await req('MOVE', 'uploads/alice/u2/.file', { headers: { ...dest('u2.bin'), 'OC-Total-Length': '99' } });
      assert.equal(wrong.status, 400);
      assert.match(wrong.body.toString(), /add up to 100 bytes/);
      assert.equal((await req('GET', 'files/alice/u2.bin')).status, 404);
      assert.equal((await req('MKCOL', 'files/alice/Folder')).status, 201);
      assert.equal((await req('MOVE', 'uploads/alice/u2/.file', { headers: { ...dest('Folder'), 'OC-Total-Length': '100' } })).status, 405);
      await p.services.appConfig.set('files_max_file_size', '150');
      try {
        assert.equal((await req('PUT', 'uploads/alice/u2/2', { body: Buffer.alloc(60) })).status, 413, 'the chunks together past the limit');
      } finally {
        await p.services.appConfig.set('files_max_file_size', '1073741824');
      }
      assert.equal((await req('PUT', 'uploads/alice/nope/1', { body: Buffer.from('x') })).status, 404);
      assert.equal((await req('PUT', 'uploads/alice/u2/1', { body: Buffer.from('x'), user: 'bob' })).status, 404);
      assert.equal((await req('PUT', 'uploads/bob/u2/1', { body: Buffer.from('x') })).status, 404);
      assert.equal((await req('MKCOL', 'uploads/alice/a%20b')).status, 400);
      assert.equal((await req('MKCOL', 'uploads/alice/a%00b')).status, 400);
      assert.equal(await chunkRows(), 1);
      assert.equal((await req('DELETE', 'uploads/alice/u2')).status, 204);
      assert.equal(await chunkRows(), 0);
    });

    it('a PUT or chunk whose body breaks off before its Content-Length keeps nothing and is no 500', async () => {
      const truncated = (path: string) =>
        new Promise<void>((resolve) => {
          const url = new URL(p.url);
          const r = http.request({
            host: url.hostname,
            port: url.port,
            method: 'PUT',
            path: `/remote.php/dav/${path}`,
            headers: { Authorization: basic('alice', passwordOf('alice')), 'Content-Length': '100000' },
          });
          r.on('error', () => resolve());
          r.write(Buffer.alloc(5000));
          setTimeout(() => {
            r.destroy();
            setTimeout(resolve, 200);
          }, 200);
        });
      assert.equal((await req('MKCOL', 'uploads/alice/cut', { headers: dest('cut.bin') })).status, 201);
      await truncated('files/alice/cut.bin');
      await truncated('uploads/alice/cut/1');
      assert.equal((await req('GET', 'files/alice/cut.bin')).status, 404);
      assert.equal(await chunkRows(), 0);
      const metrics = await (await fetch(`${p.url}/metrics`)).text();
      assert.doesNotMatch(metrics, /parley_http_requests_total\{[^}]*status="5\d\d"/);
      assert.match(metrics, /parley_http_requests_total\{method="PUT"[^}]*status="400"/);
      assert.equal((await req('DELETE', 'uploads/alice/cut')).status, 204);
    });

    it('the job removes uploads left unfinished for a day, with their chunks', async () => {
      assert.equal((await req('MKCOL', 'uploads/alice/old', { headers: dest('old.bin') })).status, 201);
      assert.equal((await req('PUT', 'uploads/alice/old/1', { body: Buffer.alloc(10) })).status, 201);
      assert.equal((await req('MKCOL', 'uploads/alice/fresh', { headers: dest('fresh.bin') })).status, 201);
      const now = Math.floor(Date.now() / 1000);
      assert.equal(await fileUploadsJob.run(p.services, now + 3600), '0 removed', 'an hour is not a day');
      await p.services.db.kysely
        .updateTable('file_uploads')
        .set({ created_at: now - 2 * 86400 })
        .where('upload_id', '=', 'old')
        .execute();
      assert.equal(await fileUploadsJob.run(p.services, now), '1 removed');
      assert.equal(await chunkRows(), 0);
      assert.equal((await req('PUT', 'uploads/alice/old/2', { body: Buffer.alloc(1) })).status, 404);
      assert.equal((await req('PUT', 'uploads/alice/fresh/1', { body: Buffer.alloc(1) })).status, 201);
    });
  });
}
