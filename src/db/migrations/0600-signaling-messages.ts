/**
 * Internal signaling (docs/reference/signaling.md#internal-signaling): messages waiting for their recipient session.
 * A POST stores one row per recipient and notifies its channel; the recipient's long poll reads
 * and deletes its rows, in any Parley process.
 */
import type { ParleyMigration } from './helpers.js';
import { withSerialId } from './helpers.js';

export const signalingMessages: ParleyMigration = {
  name: '0600-signaling-messages',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('signaling_messages'), dialect)
      .addColumn('room_id', 'bigint', (c) => c.notNull())
      .addColumn('recipient', 'varchar(512)', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('signaling_messages_recipient').on('signaling_messages').columns(['recipient', 'id']).execute();
  },
};
