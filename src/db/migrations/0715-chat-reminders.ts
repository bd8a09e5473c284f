/**
 * Message reminders (docs/reference/chat.md#reminders, Talk's `talk_reminders`): one row per
 * user and message, set again by a second POST (the unique key makes that one statement). The
 * reminder job reads the due rows by `remind_at` and the upcoming list a user's by
 * (user_id, remind_at). Nothing kept by a process reads this table, so it feeds no change (0712).
 *
 * `user_rate_limits`: requests counted against a per-user limit (Nextcloud's UserRateLimit;
 * setting a reminder allows 60 an hour). A request is recorded only when it is let through, in
 * the locked step that counts the window (repositories/user-rate-limits.ts).
 */
import type { ParleyMigration } from './helpers.js';
import { withSerialId } from './helpers.js';

export const chatReminders: ParleyMigration = {
  name: '0715-chat-reminders',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('chat_reminders'), dialect)
      .addColumn('user_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('room_id', 'bigint', (c) => c.notNull())
      .addColumn('message_id', 'bigint', (c) => c.notNull())
      .addColumn('remind_at', 'bigint', (c) => c.notNull())
      .addUniqueConstraint('chat_reminders_once', ['user_id', 'room_id', 'message_id'])
      .execute();
    await db.schema.createIndex('chat_reminders_due').on('chat_reminders').column('remind_at').execute();
    await db.schema.createIndex('chat_reminders_user').on('chat_reminders').columns(['user_id', 'remind_at']).execute();
    await db.schema.createIndex('chat_reminders_room').on('chat_reminders').column('room_id').execute();

    await withSerialId(db.schema.createTable('user_rate_limits'), dialect)
      .addColumn('user_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('action', 'varchar(64)', (c) => c.notNull())
      .addColumn('occurred_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('user_rate_limits_window').on('user_rate_limits').columns(['user_id', 'action', 'occurred_at']).execute();
  },
};
