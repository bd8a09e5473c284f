/**
 * Chunked uploads (Nextcloud's chunking v2, docs/files.md): an upload a client opened with MKCOL
 * (`file_uploads`, unique per user and upload id, with the destination it named) and the chunks
 * it sent (`file_upload_chunks`, one blob per chunk number; a chunk sent again replaces the
 * earlier one). Rows outlive a process, so any process may receive the next chunk or the final
 * MOVE; the cleanup job removes uploads left unfinished.
 */
import type { ParleyMigration } from './helpers.js';
import { withSerialId } from './helpers.js';

export const fileUploads: ParleyMigration = {
  name: '0801-file-uploads',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('file_uploads'), dialect)
      .addColumn('owner', 'varchar(64)', (c) => c.notNull())
      .addColumn('upload_id', 'varchar(128)', (c) => c.notNull())
      .addColumn('destination', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('file_uploads_owner_id').on('file_uploads').columns(['owner', 'upload_id']).unique().execute();
    await db.schema.createIndex('file_uploads_created').on('file_uploads').column('created_at').execute();
    await db.schema
      .createTable('file_upload_chunks')
      .addColumn('upload', 'bigint', (c) => c.notNull())
      .addColumn('number', 'integer', (c) => c.notNull())
      .addColumn('blob', 'varchar(128)', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('file_upload_chunks_pk', ['upload', 'number'])
      .execute();
  },
};
