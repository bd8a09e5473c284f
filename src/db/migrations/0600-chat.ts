/**
 * Chat messages (docs/reference/chat.md#common-rules "Message ids", "Storage"). One table for every room:
 * ids are global and monotonic across rooms, as Talk's comments table. Text messages, system
 * messages and deleted messages share it (`message_type` plays the role of Talk's verb).
 *
 * Reads the API needs, and their index:
 * - history / long-poll / context / unread counts / last message of a room: (room_id, id);
 * - the expiration job: expires_at (0 = never);
 * - replies shown with their parent and deletions that touch replies: by primary key.
 */
import type { ParleyMigration } from './helpers.js';
import { withSerialId } from './helpers.js';

export const chatMessages: ParleyMigration = {
  name: '0600-chat-messages',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('chat_messages'), dialect)
      .addColumn('room_id', 'bigint', (c) => c.notNull())
      .addColumn('actor_type', 'varchar(64)', (c) => c.notNull())
      .addColumn('actor_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('actor_display_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      // Text with mentions already replaced by {placeholders}; '' for system messages.
      .addColumn('message', 'text', (c) => c.notNull().defaultTo(''))
      // comment | system | comment_deleted | command | voice-message | record-audio | record-video
      .addColumn('message_type', 'varchar(32)', (c) => c.notNull())
      .addColumn('system_message', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      // JSON object: placeholder -> rich object (docs/reference/chat.md#rich-objects).
      .addColumn('message_parameters', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('reference_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .addColumn('parent_id', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('silent', 'integer', (c) => c.notNull().defaultTo(0))
      // May every participant be "mentioned" by an @all in this message (Talk's can_mention_all).
      .addColumn('can_mention_all', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_edit_actor_type', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .addColumn('last_edit_actor_id', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('last_edit_actor_display_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('last_edit_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('deleted_by_type', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .addColumn('deleted_by_id', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('deleted_at', 'bigint', (c) => c.notNull().defaultTo(0))
      // Emoji -> count, kept on the message so reads need no join (reactions build on it).
      .addColumn('reactions', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
    await db.schema.createIndex('chat_messages_room_id').on('chat_messages').columns(['room_id', 'id']).execute();
    await db.schema.createIndex('chat_messages_expires').on('chat_messages').column('expires_at').execute();
  },
};
