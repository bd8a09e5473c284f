/**
 * Scheduled messages (docs/reference/chat.md#scheduled-messages, capability `scheduled-messages`, local;
 * Talk's talk_scheduled_msg and talk_attendees.has_scheduled_messages): a user's message kept
 * for a time (`send_at`), then posted by the job as that user.
 * - `send_at` 0: sending failed (the conversation became read-only, the author lost the chat
 *   permission, ...); `original_send_at` keeps the time it was due.
 * - `attendees.has_scheduled_messages`: the record's `hasScheduledMessages`, the user's count of
 *   scheduled messages in the conversation, or -1 after a failure (Talk's
 *   Participant::ERROR_SCHEDULED_MESSAGE), kept by the writes so GET /room reads no more tables.
 *
 * Indexes: a user's own list in a conversation, and the due ones (the job), the latter partial
 * so that failed ones are not walked.
 */
import { sql, type Kysely } from 'kysely';
import type { ParleyMigration } from './helpers.js';
import { withSerialId } from './helpers.js';

/** Takes the attendee column off (a test takes attendee columns off and back in their migrated order). */
export async function dropScheduledMessagesColumn(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('attendees').dropColumn('has_scheduled_messages').execute();
}

/** The attendee column (also what the test adds back). */
export async function addScheduledMessagesColumn(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('attendees')
    .addColumn('has_scheduled_messages', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export const scheduledMessages: ParleyMigration = {
  name: '0720-scheduled-messages',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('scheduled_messages'), dialect)
      .addColumn('room_id', 'bigint', (c) => c.notNull())
      .addColumn('actor_type', 'varchar(64)', (c) => c.notNull())
      .addColumn('actor_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('message', 'text', (c) => c.notNull())
      .addColumn('parent_id', 'bigint')
      .addColumn('silent', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('send_at', 'bigint', (c) => c.notNull())
      .addColumn('original_send_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('scheduled_messages_actor').on('scheduled_messages').columns(['room_id', 'actor_type', 'actor_id', 'send_at']).execute();
    await db.schema.createIndex('scheduled_messages_due').on('scheduled_messages').column('send_at').where(sql.ref('send_at'), '>', 0).execute();
    await addScheduledMessagesColumn(db);
  },
};
