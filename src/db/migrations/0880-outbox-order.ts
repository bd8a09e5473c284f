/**
 * Ordered outbox topics (docs/design.md#files-push-and-federation "One outbox"): a destination
 * whose messages must arrive in the order they were written (a signaling server hearing about
 * one conversation: `invite` before `message` before `disinvite`) is delivered by one process at
 * a time. That process holds the destination's lease, a row here taken with one conditional
 * upsert and deleted when it is done; a process that dies leaves it to expire. The index finds
 * the head of each destination's queue.
 */
import type { ParleyMigration } from './helpers.js';

export const outboxOrder: ParleyMigration = {
  name: '0880-outbox-order',
  async up({ db }) {
    await db.schema
      .createTable('outbox_leases')
      .addColumn('topic', 'varchar(32)', (c) => c.notNull())
      .addColumn('destination', 'varchar(1000)', (c) => c.notNull())
      .addColumn('claimed_by', 'varchar(64)', (c) => c.notNull())
      // Milliseconds, as the outbox's claims.
      .addColumn('claimed_until', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('outbox_leases_pk', ['topic', 'destination'])
      .execute();
    await db.schema.createIndex('outbox_destination').on('outbox').columns(['topic', 'destination', 'id']).execute();
  },
};
