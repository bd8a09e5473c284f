/**
 * Browser login sessions (the admin page's login form, docs/operators.md "Admin settings page").
 * The cookie value is never stored, only its sha256, so a database dump cannot be replayed; every
 * Parley process sharing the database accepts the cookie.
 */
import type { ParleyMigration } from './helpers.js';

export const loginSessions: ParleyMigration = {
  name: '0500-login-sessions',
  async up({ db }) {
    await db.schema
      .createTable('login_sessions')
      .addColumn('token_hash', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('login_sessions_user').on('login_sessions').column('user_id').execute();
    await db.schema.createIndex('login_sessions_expires').on('login_sessions').column('expires_at').execute();
  },
};
