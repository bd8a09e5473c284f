/**
 * SIP dial-out (docs/api.md "Settings and SIP"). Parley has no signaling server to hand a dial-out
 * to the bridge, so a started dial-out is recorded on the phone attendee (`dialout_request`, the
 * JSON the bridge reads; `dialout_requested_at` for order and expiry) until the bridge verifies or
 * rejects it. `phone_numbers` maps phone numbers to users (Talk's `talk_phone_numbers`): the first
 * number of the calling user, behind `sip_bridge_dialout_prefix`, is the caller number.
 */
import type { ParleyMigration } from './helpers.js';

export const sipDialOut: ParleyMigration = {
  name: '0300-sip-dialout',
  async up({ db }) {
    await db.schema.alterTable('attendees').addColumn('dialout_request', 'text').execute();
    await db.schema
      .alterTable('attendees')
      .addColumn('dialout_requested_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('attendees_dialout').on('attendees').column('dialout_requested_at').execute();
    await db.schema
      .createTable('phone_numbers')
      .addColumn('phone_number', 'varchar(32)', (c) => c.primaryKey())
      .addColumn('actor_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('phone_numbers_actor').on('phone_numbers').columns(['actor_id', 'created_at']).execute();
  },
};
