/**
 * One one-to-one conversation per pair of users, held by the database: a unique index on the
 * canonical pair name (the sorted user ids, as Talk names one-to-ones) over rooms of type 1.
 * A former one-to-one (type 5) leaves the index, so the pair can start a new one.
 *
 * Databases written before the index may hold several one-to-ones of one pair (simultaneous
 * creation); the oldest stays the pair's conversation and the others become former one-to-ones,
 * which keeps their messages and members readable and loses nothing.
 */
import { sql } from 'kysely';
import type { ParleyMigration } from './helpers.js';

export const oneToOnePair: ParleyMigration = {
  name: '0101-one-to-one-pair',
  async up({ db }) {
    await sql`UPDATE rooms SET type = 5 WHERE type = 1 AND id NOT IN (SELECT MIN(id) FROM rooms WHERE type = 1 GROUP BY name)`.execute(db);
    await sql`CREATE UNIQUE INDEX rooms_one_to_one_pair ON rooms (name) WHERE type = 1`.execute(db);
  },
};
