/**
 * Users' files (docs/files.md): one row per file or folder of a user's tree, the metadata
 * WebDAV answers from (Nextcloud's filecache). The bytes live in the blob store under the data
 * directory; `blob` names them (NULL for folders). A user's root folder is the row with path ''.
 *
 * - `path`: the path inside the user's tree, without leading or trailing slash; `parent` is the
 *   parent folder's path (NULL for the root), so a Depth 1 listing is one index range.
 * - Unique (owner, path): two writers of one path cannot both create it.
 * - `size`, `mtime` (Unix seconds), `etag`, `mimetype` (`httpd/unix-directory` for folders),
 *   `width`/`height` for images whose header was read.
 */
import type { ParleyMigration } from './helpers.js';
import { withSerialId } from './helpers.js';

export const files: ParleyMigration = {
  name: '0800-files',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('files'), dialect)
      .addColumn('owner', 'varchar(64)', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('parent', 'text')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('is_dir', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('size', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('mimetype', 'varchar(255)', (c) => c.notNull())
      .addColumn('etag', 'varchar(64)', (c) => c.notNull())
      .addColumn('mtime', 'bigint', (c) => c.notNull())
      .addColumn('width', 'integer')
      .addColumn('height', 'integer')
      .addColumn('blob', 'varchar(128)')
      .execute();
    await db.schema.createIndex('files_owner_path').on('files').columns(['owner', 'path']).unique().execute();
    await db.schema.createIndex('files_owner_parent').on('files').columns(['owner', 'parent']).execute();
  },
};
