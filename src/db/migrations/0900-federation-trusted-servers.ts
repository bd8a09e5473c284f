/**
 * Trusted servers for federation (docs/federation.md "Trust"): while `federation_only_trusted_servers`
 * is on, invitations go only to, and shares are taken only from, the servers listed here. One row
 * per server, named as a cloud id's remote part without `https://` (`host[:port][/path]`).
 */
import { withSerialId, type ParleyMigration } from './helpers.js';

export const federationTrustedServers: ParleyMigration = {
  name: '0900-federation-trusted-servers',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('federation_trusted_servers'), dialect)
      .addColumn('server', 'varchar(255)', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
