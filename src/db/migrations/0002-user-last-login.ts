/** Accounts: when a user last logged in (provisioning API `lastLogin`). */
import type { ParleyMigration } from './helpers.js';

export const userLastLogin: ParleyMigration = {
  name: '0002-user-last-login',
  async up({ db }) {
    await db.schema
      .alterTable('users')
      .addColumn('last_login', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
