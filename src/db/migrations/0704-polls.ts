/**
 * Polls (docs/reference/chat.md#polls): a poll per row, votes one row per actor and option. The
 * poll's `votes` (option-<i> → count) and `num_voters` are recomputed from the vote rows in
 * the voting transaction, which holds the poll's row lock (a conditional update on an open
 * poll), so concurrent votes and a concurrent close cannot interleave.
 */
import type { ParleyMigration } from './helpers.js';
import { withSerialId } from './helpers.js';

export const polls: ParleyMigration = {
  name: '0704-polls',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('polls'), dialect)
      .addColumn('room_id', 'bigint', (c) => c.notNull())
      .addColumn('question', 'text', (c) => c.notNull())
      // JSON array of the option strings as sent.
      .addColumn('options', 'text', (c) => c.notNull())
      .addColumn('actor_type', 'varchar(64)', (c) => c.notNull())
      .addColumn('actor_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('actor_display_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      // 0 open, 1 closed (2 draft is not built).
      .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
      // 0 public, 1 hidden.
      .addColumn('result_mode', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('max_votes', 'integer', (c) => c.notNull().defaultTo(0))
      // JSON object "option-<index>" -> count.
      .addColumn('votes', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('num_voters', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('polls_room').on('polls').column('room_id').execute();
    await withSerialId(db.schema.createTable('poll_votes'), dialect)
      .addColumn('poll_id', 'bigint', (c) => c.notNull())
      .addColumn('actor_type', 'varchar(64)', (c) => c.notNull())
      .addColumn('actor_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('actor_display_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('option_id', 'integer', (c) => c.notNull())
      .addUniqueConstraint('poll_votes_once', ['poll_id', 'actor_type', 'actor_id', 'option_id'])
      .execute();
  },
};
