/**
 * Favourite files (docs/files.md "For apps: WebDAV"): WebDAV PROPPATCH of `oc:favorite` marks a
 * file or folder for one user, as Nextcloud's tags do, and PROPFIND shows it. Per user and
 * file, so a file shared with several people is each one's own favourite or not.
 */
import type { ParleyMigration } from './helpers.js';

export const fileFavorites: ParleyMigration = {
  name: '0881-file-favorites',
  async up({ db }) {
    await db.schema
      .createTable('file_favorites')
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('file_id', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('file_favorites_pk', ['user_id', 'file_id'])
      .execute();
  },
};
