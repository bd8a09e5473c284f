/**
 * User status (Nextcloud's user_status app; docs/api.md "Participants and sessions"): one row per
 * user that ever had a status. Times are unix seconds; `clear_at` null means the message never
 * expires.
 */
import type { ParleyMigration } from './helpers.js';

export const userStatus: ParleyMigration = {
  name: '0200-user-status',
  async up({ db }) {
    await db.schema
      .createTable('user_status')
      .addColumn('user_id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('offline'))
      .addColumn('status_timestamp', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('is_user_defined', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('custom_icon', 'varchar(64)')
      .addColumn('custom_message', 'text')
      .addColumn('clear_at', 'bigint')
      .execute();
  },
};
