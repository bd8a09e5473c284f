/**
 * Recording consent given when joining a call that requires it (docs/reference/calls.md#joining-a-call join
 * step 1: "Given consent is stored"; Talk's `talk_consent`): one row per join with consent,
 * naming the conversation, the actor and when.
 */
import type { ParleyMigration } from './helpers.js';
import { withSerialId } from './helpers.js';

export const recordingConsent: ParleyMigration = {
  name: '0705-recording-consent',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('recording_consents'), dialect)
      .addColumn('room_id', 'bigint', (c) => c.notNull())
      .addColumn('actor_type', 'varchar(64)', (c) => c.notNull())
      .addColumn('actor_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('recording_consents_room').on('recording_consents').columns(['room_id', 'actor_type', 'actor_id']).execute();
  },
};
