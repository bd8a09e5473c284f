/**
 * Keeping proxied conversations current (docs/reference/federation.md#keeping-the-conversation-current).
 *
 * On the host: `rooms.has_federation` is 1 once a federated user was invited, so a message
 * posted there knows without a query that it owes MESSAGE_POSTED to other servers (set for the
 * conversations that have federated attendees already).
 *
 * On the user's server: the host's last message of each conversation kept here
 * (`federation_last_messages`, one row per local conversation, Talk's ProxyCacheMessage for the
 * last one only) and each local user's unread counters there (`federation_unread`, one row per
 * attendee of a local conversation), as the host's MESSAGE_POSTED tells them.
 */
import { sql, type Kysely } from 'kysely';
import type { ParleyMigration } from './helpers.js';

/** The column on rooms (also used by a test that rebuilds the columns of rooms in their order). */
export async function addHasFederationColumn(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('rooms')
    .addColumn('has_federation', 'smallint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE rooms SET has_federation = 1 WHERE EXISTS (SELECT 1 FROM attendees a WHERE a.room_id = rooms.id AND a.actor_type = 'federated_users')`.execute(
    db,
  );
}

export async function dropHasFederationColumn(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('rooms').dropColumn('has_federation').execute();
}

export const federationSync: ParleyMigration = {
  name: '0920-federation-sync',
  async up({ db }) {
    await addHasFederationColumn(db);
    await db.schema
      .createTable('federation_last_messages')
      .addColumn('room_id', 'bigint', (c) => c.primaryKey())
      .addColumn('remote_message_id', 'bigint', (c) => c.notNull())
      .addColumn('actor_type', 'varchar(64)', (c) => c.notNull())
      .addColumn('actor_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('actor_display_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('message_type', 'varchar(64)', (c) => c.notNull())
      .addColumn('system_message', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('message_parameters', 'text', (c) => c.notNull())
      .addColumn('meta_data', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable('federation_unread')
      .addColumn('attendee_id', 'bigint', (c) => c.primaryKey())
      .addColumn('room_id', 'bigint', (c) => c.notNull())
      .addColumn('unread_messages', 'integer', (c) => c.notNull())
      .addColumn('unread_mention', 'smallint', (c) => c.notNull())
      .addColumn('unread_mention_direct', 'smallint', (c) => c.notNull())
      .addColumn('last_read_message', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('federation_unread_room').on('federation_unread').column('room_id').execute();
  },
};
