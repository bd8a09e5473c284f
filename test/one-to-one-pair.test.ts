/**
 * One one-to-one conversation per pair, held by a unique index on the pair (migration
 * 0101-one-to-one-pair): simultaneous creation in one process answers 201 once and 200 with the
 * same token otherwise; a database written before the index, holding several one-to-ones of a
 * pair, keeps the oldest and turns the others into former one-to-ones when it migrates. The
 * two-process race is in races.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { migrateToLatest } from '../src/db/migrate.js';
import { oneToOneName } from '../src/services/conversations/rooms.js';
import { as, dialects } from './helpers/parley.js';
import { V4 } from './helpers/rooms.js';
import { RoomType, useParley } from './helpers/fixtures.js';

for (const dialect of dialects()) {
  describe(`one one-to-one per pair [${dialect}]`, () => {
    const t = useParley(dialect, { users: ['alice', 'bob', 'carol'] });

    it('ten simultaneous requests from both sides: one 201, nine 200, one token', async () => {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t.call('POST', `${V4}/room`, { as: as(i % 2 ? 'alice' : 'bob'), body: { roomType: RoomType.ONE_TO_ONE, invite: i % 2 ? 'bob' : 'alice' } }),
        ),
      );
      assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
      assert.equal(new Set(answers.map((a) => a.data.token)).size, 1);
    });

    it('the database refuses a second one-to-one of the pair', async () => {
      const name = oneToOneName('alice', 'bob');
      const row = await t.p.services.repos.rooms.findOneToOne(name);
      assert.ok(row);
      await assert.rejects(
        sql`INSERT INTO rooms (token, name, type, created_at, last_activity) VALUES ('dupe0001', ${name}, 1, 0, 0)`.execute(t.p.services.db.kysely),
        /unique/i,
      );
    });

    it('migrating a database with duplicate one-to-ones keeps the oldest and turns the others former', async () => {
      const db = t.p.services.db.kysely;
      const name = oneToOneName('alice', 'carol');
      const first = await t.call('POST', `${V4}/room`, { as: as('alice'), body: { roomType: RoomType.ONE_TO_ONE, invite: 'carol' } });
      assert.equal(first.status, 201);
      // As before the index: drop it, add a duplicate, forget the migration, migrate again.
      await sql`DROP INDEX rooms_one_to_one_pair`.execute(db);
      await sql`INSERT INTO rooms (token, name, type, created_at, last_activity) VALUES ('dupe0002', ${name}, 1, 0, 0)`.execute(db);
      await sql`DELETE FROM parley_migrations WHERE name = '0101-one-to-one-pair'`.execute(db);
      assert.deepEqual((await migrateToLatest(t.p.services.db)).applied, ['0101-one-to-one-pair']);
      const rows = (await sql<{ token: string; type: number }>`SELECT token, type FROM rooms WHERE name = ${name} ORDER BY id`.execute(db)).rows;
      assert.deepEqual(
        rows.map((r) => [r.token, Number(r.type)]),
        [
          [first.data.token, 1],
          ['dupe0002', 5],
        ],
      );
      const again = await t.call('POST', `${V4}/room`, { as: as('carol'), body: { roomType: RoomType.ONE_TO_ONE, invite: 'alice' } });
      assert.equal(again.status, 200);
      assert.equal(again.data.token, first.data.token);
    });
  });
}
