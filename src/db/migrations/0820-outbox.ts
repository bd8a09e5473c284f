/**
 * The outbox: one row per message Parley owes another server (docs/talk-apps.md "Push notifications"),
 * written in the transaction of the change that causes it and delivered by a worker after
 * commit. A worker claims due rows with one conditional UPDATE (`claimed_until` in the past),
 * so each row is sent by one process at a time; a delivered row is deleted, a failed one gets
 * a later `due_at` (back-off) and its claim released. A process that dies mid-delivery leaves
 * its claim to expire, and another process takes the row over.
 *
 * `destination` is what deliveries are batched by (a push proxy, a Web Push endpoint);
 * `dedupe_key`, when set, is unique: an event written twice is owed once.
 */
import { sql } from 'kysely';
import { withSerialId, type ParleyMigration } from './helpers.js';

export const outbox: ParleyMigration = {
  name: '0820-outbox',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('outbox'), dialect)
      .addColumn('topic', 'varchar(32)', (c) => c.notNull())
      .addColumn('destination', 'varchar(1000)', (c) => c.notNull())
      .addColumn('dedupe_key', 'varchar(255)')
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      // Milliseconds: back-off steps start below a second.
      .addColumn('due_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('claimed_by', 'varchar(64)')
      .addColumn('claimed_until', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('outbox_dedupe').unique().on('outbox').column('dedupe_key').execute();
    await db.schema.createIndex('outbox_due').on('outbox').columns(['due_at', 'id']).execute();
    if (dialect === 'postgres') await sql`ALTER TABLE outbox SET (fillfactor = 80)`.execute(db);
  },
};
