/**
 * Two processes on one SQLite file (a CLI command beside a running server): writers wait for
 * each other (busy timeout, transactions that take the write lock when they begin) instead of
 * failing with "database is locked" (docs/security.md). The server is kept busy with writes from
 * several clients while real `parley` CLI processes write to the same file; every command
 * succeeds and no request gets a 5xx. Also run on PostgreSQL when PARLEY_TEST_PG is set.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { dropSchema } from '../src/db/database.js';
import { admin, basic, dialects, freshEnv, passwordOf } from './helpers/parley.js';
import { spawnCli } from './helpers/cli.js';
import { ocs, serve, stop, type Proc } from './helpers/processes.js';
import { V4 } from './helpers/rooms.js';

const ADMIN = basic(admin.user!, admin.password!);
const CLIENTS = 4;
const COMMANDS = 2;

for (const dialect of dialects()) {
  describe(`a CLI command beside a loaded server [${dialect}]`, () => {
    let env: Record<string, string>;
    let server: Proc | undefined;
    before(async () => {
      env = freshEnv(dialect);
      server = await serve(env);
      const r = await ocs(server, 'POST', '/cloud/users', ADMIN, { userid: 'alice', password: passwordOf('alice') });
      assert.equal(r.status, 200, JSON.stringify(r.data));
    });
    after(async () => {
      await stop(server);
      if (env.DATABASE_URL && env.DATABASE_SCHEMA) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
      fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
    });

    it('CLI writes wait for the server and succeed; the server answers no 5xx meanwhile', async () => {
      const alice = basic('alice', passwordOf('alice'));
      let loading = true;
      const statuses: number[] = [];
      // Each client creates a conversation and changes its description, over and over.
      const clients = Array.from({ length: CLIENTS }, async (_, c) => {
        for (let i = 0; loading; i++) {
          const room = await ocs(server!, 'POST', `${V4}/room`, alice, { roomType: '2', roomName: `load ${c}-${i}` });
          statuses.push(room.status);
          if (room.status !== 201) continue;
          statuses.push((await ocs(server!, 'PUT', `${V4}/room/${room.data.token}/description`, alice, { description: `d ${i}` })).status);
        }
      });
      const runs = await Promise.all(
        Array.from({ length: COMMANDS }, (_, k) => spawnCli(env, ['talk:room:create', `cli ${k}`, '--user', 'alice', '--description', 'from the CLI'])),
      );
      loading = false;
      await Promise.all(clients);
      for (const r of runs) {
        assert.equal(r.code, 0, r.stdout + r.stderr);
        assert.match(r.stdout, /Room successfully created/);
      }
      assert.ok(statuses.length > CLIENTS, `only ${statuses.length} requests were made`);
      assert.deepEqual(
        statuses.filter((s) => s >= 500),
        [],
      );
      const rooms = (await ocs(server!, 'GET', `${V4}/room`, alice)).data as Array<{ displayName: string }>;
      assert.equal(rooms.filter((r) => r.displayName.startsWith('cli ')).length, COMMANDS);
    });
  });
}
