/** Uploaded user avatars (`POST /index.php/avatar`), in the database so every process serves them. */
import type { ParleyMigration } from './helpers.js';

export const userAvatars: ParleyMigration = {
  name: '0701-user-avatars',
  async up({ db, dialect }) {
    await db.schema
      .createTable('user_avatars')
      .addColumn('user_id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('version', 'varchar(32)', (c) => c.notNull())
      .addColumn('content_type', 'varchar(32)', (c) => c.notNull())
      .addColumn('data', dialect === 'postgres' ? 'bytea' : 'blob', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
