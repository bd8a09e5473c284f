/** SQL for chunked uploads (tables `file_uploads`, `file_upload_chunks`, migration 0801). */
import type { Kysely, Selectable } from 'kysely';
import type { Database, FileUploadChunksTable, FileUploadsTable } from '../schema.js';

export type FileUploadRow = Selectable<FileUploadsTable>;
export type FileUploadChunkRow = Selectable<FileUploadChunksTable>;

export class FileUploadsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Opens an upload unless the id is taken (unique owner+id): its row id, or undefined. */
  async open(owner: string, uploadId: string, destination: string, now: number): Promise<number | undefined> {
    const r = await this.db
      .insertInto('file_uploads')
      .values({ owner, upload_id: uploadId, destination, created_at: now })
      .onConflict((oc) => oc.columns(['owner', 'upload_id']).doNothing())
      .returning('id')
      .executeTakeFirst();
    return r?.id;
  }

  find(owner: string, uploadId: string): Promise<FileUploadRow | undefined> {
    return this.db.selectFrom('file_uploads').selectAll().where('owner', '=', owner).where('upload_id', '=', uploadId).executeTakeFirst();
  }

  chunks(upload: number): Promise<FileUploadChunkRow[]> {
    return this.db.selectFrom('file_upload_chunks').selectAll().where('upload', '=', upload).orderBy('number').execute();
  }

  /** Records a chunk (replacing one of the same number): the replaced chunk's blob, if any. */
  async putChunk(row: FileUploadChunkRow): Promise<string | undefined> {
    const old = await this.db
      .deleteFrom('file_upload_chunks')
      .where('upload', '=', row.upload)
      .where('number', '=', row.number)
      .returning('blob')
      .executeTakeFirst();
    await this.db.insertInto('file_upload_chunks').values(row).execute();
    return old?.blob;
  }

  /** Removes uploads with their chunks: the chunks' blobs. */
  async remove(uploads: number[]): Promise<string[]> {
    if (uploads.length === 0) return [];
    const chunks = await this.db.deleteFrom('file_upload_chunks').where('upload', 'in', uploads).returning('blob').execute();
    await this.db.deleteFrom('file_uploads').where('id', 'in', uploads).execute();
    return chunks.map((c) => c.blob);
  }

  /** Ids of uploads opened before `before` (unix seconds). */
  async openedBefore(before: number, limit: number): Promise<number[]> {
    const rows = await this.db.selectFrom('file_uploads').select('id').where('created_at', '<', before).orderBy('id').limit(limit).execute();
    return rows.map((r) => r.id);
  }

  /** Ids of a user's uploads. */
  async ofOwner(owner: string): Promise<number[]> {
    const rows = await this.db.selectFrom('file_uploads').select('id').where('owner', '=', owner).execute();
    return rows.map((r) => r.id);
  }
}
