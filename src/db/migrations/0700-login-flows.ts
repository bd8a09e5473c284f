/**
 * Login Flow v2 and v1 state (docs/reference/accounts-and-login.md#login-flow-v2, docs/reference/accounts-and-login.md#login-flow-v1). One row per started flow, keyed
 * by the login token. Only hashes of the poll and state tokens are stored; the granted app
 * password is kept sealed for the poll token (domain/sealed-box.ts) until the client polls it,
 * and the row is deleted by that poll.
 */
import type { ParleyMigration } from './helpers.js';

export const loginFlows: ParleyMigration = {
  name: '0700-login-flows',
  async up({ db }) {
    await db.schema
      .createTable('login_flows')
      .addColumn('login_token', 'varchar(128)', (c) => c.primaryKey())
      .addColumn('kind', 'varchar(8)', (c) => c.notNull())
      .addColumn('poll_token_hash', 'varchar(64)', (c) => c.unique())
      .addColumn('state_hash', 'varchar(64)', (c) => c.unique())
      .addColumn('client_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('started', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('user_id', 'varchar(64)')
      .addColumn('public_key', 'text')
      .addColumn('sealed_private_key', 'text')
      .addColumn('server', 'varchar(1024)')
      .addColumn('sealed_app_password', 'text')
      .execute();
    await db.schema.createIndex('login_flows_created').on('login_flows').column('created_at').execute();
  },
};
