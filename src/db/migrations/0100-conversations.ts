/**
 * Conversations: rooms, attendees and sessions (docs/reference/conversations.md#talks-schema, with Parley's unix-second
 * times). No foreign keys: deletes cascade in the services, in one transaction, as Talk does.
 */
import type { ParleyMigration } from './helpers.js';
import { withSerialId } from './helpers.js';

export const conversations: ParleyMigration = {
  name: '0100-conversations',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('rooms'), dialect)
      .addColumn('token', 'varchar(32)', (c) => c.notNull().unique())
      .addColumn('name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('type', 'integer', (c) => c.notNull())
      .addColumn('password', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('active_since', 'bigint')
      .addColumn('call_flag', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_activity', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_message', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('lobby_state', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('lobby_timer', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('read_only', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('listable', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('object_type', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .addColumn('object_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .addColumn('sip_enabled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('default_permissions', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('call_permissions', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('message_expiration', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('breakout_room_mode', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('breakout_room_status', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('avatar', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .addColumn('call_recording', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('recording_consent', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('mention_permissions', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('rooms_listable').on('rooms').column('listable').execute();
    await db.schema.createIndex('rooms_object').on('rooms').columns(['object_type', 'object_id']).execute();
    await db.schema.createIndex('rooms_last_activity').on('rooms').column('last_activity').execute();

    await withSerialId(db.schema.createTable('attendees'), dialect)
      .addColumn('room_id', 'bigint', (c) => c.notNull())
      .addColumn('actor_type', 'varchar(32)', (c) => c.notNull())
      .addColumn('actor_id', 'varchar(255)', (c) => c.notNull())
      .addColumn('display_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('pin', 'varchar(32)')
      .addColumn('participant_type', 'integer', (c) => c.notNull())
      .addColumn('favorite', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('notification_level', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('notification_calls', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('last_joined_call', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_read_message', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_mention_message', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_mention_direct', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('read_privacy', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('permissions', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('access_token', 'varchar(255)')
      .addColumn('invited_cloud_id', 'varchar(255)')
      .addColumn('phone_number', 'varchar(64)')
      .addColumn('call_id', 'varchar(255)')
      .addColumn('last_attendee_activity', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .addUniqueConstraint('attendees_ident', ['room_id', 'actor_type', 'actor_id'])
      .execute();
    await db.schema.createIndex('attendees_actor').on('attendees').columns(['actor_type', 'actor_id']).execute();
    await db.schema.createIndex('attendees_room_pin').on('attendees').columns(['room_id', 'pin']).execute();

    await withSerialId(db.schema.createTable('sessions'), dialect)
      .addColumn('attendee_id', 'bigint', (c) => c.notNull())
      .addColumn('session_id', 'varchar(512)', (c) => c.notNull().unique())
      .addColumn('in_call', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_ping', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('state', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema.createIndex('sessions_attendee').on('sessions').column('attendee_id').execute();
    await db.schema.createIndex('sessions_last_ping').on('sessions').column('last_ping').execute();
  },
};
