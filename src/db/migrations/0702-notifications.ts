/**
 * The notifications app's table (Nextcloud `oc_notifications`), filled by Talk's events: one row
 * per (user, subject, object, message). The unique index makes repeating an event (a second call
 * in the same conversation) refresh the row instead of adding another one.
 */
import { withSerialId, type ParleyMigration } from './helpers.js';

export const notifications: ParleyMigration = {
  name: '0702-notifications',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('notifications'), dialect)
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('app', 'varchar(32)', (c) => c.notNull().defaultTo('spreed'))
      .addColumn('subject', 'varchar(64)', (c) => c.notNull())
      .addColumn('object_type', 'varchar(32)', (c) => c.notNull())
      .addColumn('object_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('room_id', 'bigint', (c) => c.notNull())
      .addColumn('message_id', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('subject_params', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('message', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('message_params', 'text', (c) => c.notNull().defaultTo('{}'))
      .addColumn('missed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('notifications_event')
      .unique()
      .on('notifications')
      .columns(['user_id', 'subject', 'object_type', 'object_id', 'message_id'])
      .execute();
    await db.schema.createIndex('notifications_room_user').on('notifications').columns(['room_id', 'user_id']).execute();
  },
};
