/**
 * Files across processes (docs/files.md): two `parley serve` processes on one database and one
 * DATA_DIR. A file uploaded through one is listed and downloaded through the other; a chunked
 * upload's requests may each reach either; parallel uploads through both cannot together pass
 * the quota (the tree's lock, not a check in one process). SQLite and PostgreSQL.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { admin, basic, dialects } from './helpers/parley.js';
import { ocs, TWO_PROCESS_PASSWORD, useTwoProcesses, type Proc } from './helpers/processes.js';

const ALICE = basic('alice', TWO_PROCESS_PASSWORD);

async function dav(p: Proc, method: string, path: string, opts: { body?: Buffer; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${p.url}/remote.php/dav/${path}`, {
    method,
    body: opts.body ? new Uint8Array(opts.body) : undefined,
    headers: { Authorization: ALICE, ...(opts.headers ?? {}) },
  });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

for (const dialect of dialects()) {
  describe(`files across two processes [${dialect}]`, () => {
    const { a, b } = useTwoProcesses(dialect, ['alice']);

    it('uploaded through one process, listed and downloaded through the other', async () => {
      const data = Buffer.from('written by process A');
      assert.equal((await dav(a(), 'PUT', 'files/alice/shared.txt', { body: data })).status, 201);
      const list = await dav(b(), 'PROPFIND', 'files/alice/', { headers: { Depth: '1' } });
      assert.equal(list.status, 207);
      assert.match(list.body.toString(), /<d:href>\/remote.php\/dav\/files\/alice\/shared.txt<\/d:href>/);
      assert.ok((await dav(b(), 'GET', 'files/alice/shared.txt')).body.equals(data));
    });

    it('a chunked upload whose requests alternate between the processes', async () => {
      const dest = { Destination: `${a().url}/remote.php/dav/files/alice/chunked.bin` };
      assert.equal((await dav(a(), 'MKCOL', 'uploads/alice/two', { headers: dest })).status, 201);
      assert.equal((await dav(b(), 'PUT', 'uploads/alice/two/2', { body: Buffer.from('world') })).status, 201);
      assert.equal((await dav(a(), 'PUT', 'uploads/alice/two/1', { body: Buffer.from('hello ') })).status, 201);
      assert.equal((await dav(b(), 'MOVE', 'uploads/alice/two/.file', { headers: { ...dest, 'OC-Total-Length': '11' } })).status, 201);
      assert.equal((await dav(a(), 'GET', 'files/alice/chunked.bin')).body.toString(), 'hello world');
    });

    it('parallel uploads through both processes never pass the quota together', async () => {
      const adminAuth = basic(admin.user!, admin.password!);
      const used = 'written by process A'.length + 'hello world'.length;
      const set = await ocs(a(), 'POST', '/apps/provisioning_api/api/v1/config/apps/spreed/files_quota', adminAuth, { value: String(used + 150) });
      assert.equal(set.status, 200);
      for (let round = 0; round < 3; round++) {
        const results = await Promise.all([
          dav(a(), 'PUT', `files/alice/q${round}a.bin`, { body: Buffer.alloc(100) }),
          dav(b(), 'PUT', `files/alice/q${round}b.bin`, { body: Buffer.alloc(100) }),
        ]);
        const statuses = results.map((r) => r.status).sort();
        if (round === 0) assert.deepEqual(statuses, [201, 507], 'exactly one fits');
        else assert.deepEqual(statuses, [507, 507]);
      }
    });
  });
}
