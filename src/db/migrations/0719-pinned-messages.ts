/**
 * Pinned messages (docs/reference/chat.md#pinned-messages, docs/reference/chat.md#the-message-object `metaData`, docs/reference/conversations.md#the-conversation-record
 * `lastPinnedId`/`hiddenPinnedId`; Talk's migration Version23000Date20251030090219 and the
 * `pinned_*` metadata of its comments):
 * - `chat_messages.pinned_id`: the `message_pinned` system message that pinned it (0: not
 *   pinned); its order is the order of pins, which the `pinned` shared-items list follows.
 *   `pinned_by_*`, `pinned_at` and `pinned_until` (0: no end) are the message's `metaData`.
 * - `rooms.last_pinned_id`: the message pinned last that is still pinned (0: none).
 * - `attendees.hidden_pinned_id`: the pinned message this attendee hid for themselves.
 *
 * Two partial indexes, so that nothing grows for messages never pinned: a room's pins in pin
 * order, and the pins that end at a time (the unpin job).
 */
import { sql, type Kysely } from 'kysely';
import type { ParleyMigration } from './helpers.js';

/** The message columns, in their migrated order (a test takes them off and back). */
export const PINNED_MESSAGE_COLUMNS = ['pinned_id', 'pinned_by_type', 'pinned_by_id', 'pinned_by_name', 'pinned_at', 'pinned_until'] as const;

export async function dropPinnedMessages(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('chat_messages_pinned').execute();
  await db.schema.dropIndex('chat_messages_pinned_until').execute();
  for (const column of PINNED_MESSAGE_COLUMNS) await db.schema.alterTable('chat_messages').dropColumn(column).execute();
  await db.schema.alterTable('rooms').dropColumn('last_pinned_id').execute();
  await db.schema.alterTable('attendees').dropColumn('hidden_pinned_id').execute();
}

export const pinnedMessages: ParleyMigration = {
  name: '0719-pinned-messages',
  async up({ db }) {
    const messages = db.schema.alterTable('chat_messages');
    await messages.addColumn('pinned_id', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await messages.addColumn('pinned_by_type', 'varchar(64)', (c) => c.notNull().defaultTo('')).execute();
    await messages.addColumn('pinned_by_id', 'varchar(255)', (c) => c.notNull().defaultTo('')).execute();
    await messages.addColumn('pinned_by_name', 'varchar(255)', (c) => c.notNull().defaultTo('')).execute();
    await messages.addColumn('pinned_at', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await messages.addColumn('pinned_until', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema
      .alterTable('rooms')
      .addColumn('last_pinned_id', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('attendees')
      .addColumn('hidden_pinned_id', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('chat_messages_pinned').on('chat_messages').columns(['room_id', 'pinned_id']).where(sql.ref('pinned_id'), '>', 0).execute();
    await db.schema.createIndex('chat_messages_pinned_until').on('chat_messages').column('pinned_until').where(sql.ref('pinned_until'), '>', 0).execute();
  },
};
