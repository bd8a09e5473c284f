/**
 * Chunked uploads written once (docs/files.md#for-apps-chunked-uploads): chunks that arrive in
 * order are appended to one file per upload, the assembly, which becomes the file at the MOVE.
 * `file_uploads` names it (`assembly`, a blob-store key, '' until the first append), how far it
 * is written (`assembly_size` bytes, through chunk `assembled_through`) and who writes it now
 * (`appending`, the unix time a PUT or the MOVE took it, 0 when free). A chunk appended there
 * has `assembly_offset` (where its bytes start) and no blob of its own (`blob` '').
 */
import type { ParleyMigration } from './helpers.js';

export const uploadAssembly: ParleyMigration = {
  name: '0950-upload-assembly',
  async up({ db }) {
    await db.schema
      .alterTable('file_uploads')
      .addColumn('assembly', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('file_uploads')
      .addColumn('assembly_size', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('file_uploads')
      .addColumn('assembled_through', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .alterTable('file_uploads')
      .addColumn('appending', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.alterTable('file_upload_chunks').addColumn('assembly_offset', 'bigint').execute();
  },
};
