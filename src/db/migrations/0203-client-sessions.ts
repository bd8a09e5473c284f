/**
 * Cookie ("client") sessions: what a browser's HttpOnly cookie identifies. Per conversation
 * token (and optional tab id) it remembers the Talk session id of the last join and, for
 * guests, the guest actor id, so that later requests from any Parley process find the guest's
 * attendee (docs/reference/participants.md#joining-and-leaving join steps 1, 4, 7, 8). The cookie value itself is never
 * stored: only its sha256.
 */
import type { ParleyMigration } from './helpers.js';
import { withSerialId } from './helpers.js';

export const clientSessions: ParleyMigration = {
  name: '0203-client-sessions',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('client_sessions'), dialect)
      .addColumn('key_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('last_seen', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('client_sessions_last_seen').on('client_sessions').column('last_seen').execute();
    await withSerialId(db.schema.createTable('client_room_sessions'), dialect)
      .addColumn('client_session_id', 'bigint', (c) => c.notNull())
      .addColumn('token', 'varchar(32)', (c) => c.notNull())
      .addColumn('tab_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .addColumn('session_id', 'varchar(512)')
      .addColumn('guest_actor_id', 'varchar(255)')
      .addUniqueConstraint('client_room_sessions_ident', ['client_session_id', 'token', 'tab_id'])
      .execute();
  },
};
