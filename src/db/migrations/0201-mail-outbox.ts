/**
 * Mail outbox: invitations written here when no SMTP server is configured, so nothing is lost
 * on a laptop (docs/api.md "Participants and sessions").
 */
import type { ParleyMigration } from './helpers.js';
import { withSerialId } from './helpers.js';

export const mailOutbox: ParleyMigration = {
  name: '0201-mail-outbox',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('mail_outbox'), dialect)
      .addColumn('recipient', 'varchar(255)', (c) => c.notNull())
      .addColumn('subject', 'varchar(255)', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
  },
};
