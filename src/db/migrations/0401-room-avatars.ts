/**
 * Custom conversation avatars, stored in the database so that every Parley process serves them
 * (docs/api.md "Conversation avatars (feature `avatar`)"). One row per conversation; `rooms.avatar`
 * holds `<version>.<ext>`.
 */
import type { ParleyMigration } from './helpers.js';

export const roomAvatars: ParleyMigration = {
  name: '0401-room-avatars',
  async up({ db, dialect }) {
    await db.schema
      .createTable('room_avatars')
      .addColumn('room_id', 'bigint', (c) => c.primaryKey())
      .addColumn('version', 'varchar(32)', (c) => c.notNull())
      .addColumn('content_type', 'varchar(32)', (c) => c.notNull())
      .addColumn('data', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
