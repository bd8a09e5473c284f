/**
 * A user's cookie session (`parley_session`) is bound to the login that opened it
 * (docs/security.md "Logins, Talk-session cookies and what follows an account"): the user and
 * one credential, the app password's id, the browser login session's token hash, or a stamp of
 * the password hash the request was verified against. A request carrying only the cookie acts
 * as that user only while the account is enabled and the credential still exists; cookie
 * sessions opened before this migration have no binding and act for guests only.
 */
import type { ParleyMigration } from './helpers.js';

export const cookieSessionLogin: ParleyMigration = {
  name: '0721-cookie-session-login',
  async up({ db }) {
    await db.schema.alterTable('client_sessions').addColumn('user_id', 'varchar(64)').execute();
    await db.schema.alterTable('client_sessions').addColumn('app_password_id', 'bigint').execute();
    await db.schema.alterTable('client_sessions').addColumn('login_token_hash', 'varchar(64)').execute();
    await db.schema.alterTable('client_sessions').addColumn('password_stamp', 'varchar(64)').execute();
    // The sessions to end when a user's credentials change are found by user.
    await db.schema.createIndex('client_sessions_user').on('client_sessions').column('user_id').execute();
  },
};
