/**
 * Shared items of a conversation (docs/reference/chat.md#shared-items, Talk's attachments
 * table): one row per message that shares an object, with the kind the clients' "shared items"
 * lists filter by (`location`, `deckcard`, `poll`, `other`, ...). A table of its own instead of a
 * column of `chat_messages`: a plain post writes nothing here, and the lists walk
 * (room_id, object_type, message_id) instead of a room's whole history.
 *
 * Rows go with their message: a deletion (the message is no longer a share), clearing the
 * history, the expiration job and a deleted conversation remove them in the same transaction.
 * No answer kept by a process reads this table, so it feeds no change (0712).
 *
 * Polls were the only shared objects before this table: their messages are its first rows.
 */
import { sql } from 'kysely';
import type { ParleyMigration } from './helpers.js';

export const chatSharedItems: ParleyMigration = {
  name: '0714-chat-shared-items',
  async up({ db }) {
    await db.schema
      .createTable('chat_shared_items')
      .addColumn('message_id', 'bigint', (c) => c.primaryKey())
      .addColumn('room_id', 'bigint', (c) => c.notNull())
      .addColumn('object_type', 'varchar(16)', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('chat_shared_items_room').on('chat_shared_items').columns(['room_id', 'object_type', 'message_id']).execute();
    await sql`insert into chat_shared_items (message_id, room_id, object_type)
      select id, room_id, 'poll' from chat_messages where message_type = 'object_shared'`.execute(db);
  },
};
