/**
 * The push rate (60 pushes a minute per user, Nextcloud's notifications app) is taken for a whole
 * batch of users in one transaction (UserRateLimitsRepository.takeMany), and the cap stays exact
 * when two processes take it for the same users at once: on PostgreSQL each user's advisory
 * lock, taken in key order so that two batches never wait on each other in a cycle; on SQLite
 * the write lock. Two real processes, the same 30 users in opposite orders, 60 rounds of one push wanted per
 * user each: exactly 60 granted per user, no deadlock, and 60 rows recorded per user.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { dropSchema, openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { PUSH_RATE } from '../src/domain/rate-limits.js';
import { dialects, freshEnv } from './helpers/parley.js';

const HELPER = new URL('./helpers/rate-race.ts', import.meta.url).pathname;

/** Runs the helper as a process; its JSON answer. */
function race(env: Record<string, string>, args: string[]): Promise<Record<string, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', HELPER, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d));
    child.stderr.on('data', (d: Buffer) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Record<string, number>) : reject(new Error(`exit ${code}: ${err}`))));
  });
}

for (const dialect of dialects()) {
  describe(`push rate over many users at once [${dialect}]`, () => {
    it('two processes taking the rate of the same users in opposite orders grant exactly the cap', async () => {
      const env = freshEnv(dialect);
      const db = await openDatabase({ databaseUrl: env.DATABASE_URL, schema: env.DATABASE_SCHEMA, dataDir: env.DATA_DIR });
      try {
        await migrateToLatest(db);
        const users = Array.from({ length: 30 }, (_, i) => `racer${i}`);
        const now = Math.floor(Date.now() / 1000);
        const startAt = String(Date.now() + 3000);
        const [x, y] = await Promise.all([
          race(env, [users.join(','), '40', String(PUSH_RATE.limit), String(now), startAt]),
          race(env, [[...users].reverse().join(','), '40', String(PUSH_RATE.limit), String(now), startAt]),
        ]);
        for (const u of users) assert.equal(x[u] + y[u], 40 * PUSH_RATE.limit, `${u}: ${x[u]} + ${y[u]}`);
        const rows = await db.kysely
          .selectFrom('user_rate_limits')
          .select(['user_id', (eb) => eb.fn.countAll<number>().as('n')])
          .groupBy('user_id')
          .execute();
        assert.deepEqual(new Set(rows.map((r) => Number(r.n))), new Set([40 * PUSH_RATE.limit]));
        assert.equal(rows.length, users.length);
      } finally {
        await db.close();
        if (env.DATABASE_URL && env.DATABASE_SCHEMA) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
        fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
      }
    });
  });
}
