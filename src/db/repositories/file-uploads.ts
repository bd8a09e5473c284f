/** SQL for chunked uploads (tables `file_uploads`, `file_upload_chunks`, migrations 0801 and 0950). */
import { sql, type Kysely, type Selectable } from 'kysely';
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
  async putChunk(row: Omit<FileUploadChunkRow, 'assembly_offset'>): Promise<string | undefined> {
    const old = await this.db
      .deleteFrom('file_upload_chunks')
      .where('upload', '=', row.upload)
      .where('number', '=', row.number)
      .returning('blob')
      .executeTakeFirst();
    await this.db.insertInto('file_upload_chunks').values(row).execute();
    return old?.blob || undefined;
  }

  /**
   * Takes the upload's assembly to append chunk `number` (docs/files.md#for-apps-chunked-uploads):
   * only when it is free and `number` is the next chunk after the ones appended. Names it `key`
   * when it has no assembly yet. The assembly's key and where the chunk starts, or undefined.
   */
  async takeForAppend(upload: number, number: number, key: string, now: number): Promise<{ assembly: string; offset: number } | undefined> {
    const r = await this.db
      .updateTable('file_uploads')
      .set({ appending: now, assembly: sql<string>`case when assembly = '' then ${key} else assembly end` })
      .where('id', '=', upload)
      .where('appending', '=', 0)
      .where('assembled_through', '=', number - 1)
      .returning(['assembly', 'assembly_size'])
      .executeTakeFirst();
    return r ? { assembly: r.assembly, offset: Number(r.assembly_size) } : undefined;
  }

  /**
   * Records chunk `number` appended at `offset` and frees the assembly, in one transaction: the
   * replaced chunk's blob ('' or undefined: none of its own), or false when the upload is gone.
   */
  async appended(upload: number, number: number, offset: number, size: number): Promise<string | undefined | false> {
    return this.db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('file_uploads')
        .set({ appending: 0, assembled_through: number, assembly_size: offset + size })
        .where('id', '=', upload)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) return false;
      const old = await trx.deleteFrom('file_upload_chunks').where('upload', '=', upload).where('number', '=', number).returning('blob').executeTakeFirst();
      await trx.insertInto('file_upload_chunks').values({ upload, number, blob: '', size, assembly_offset: offset }).execute();
      return old?.blob;
    });
  }

  /** Takes the assembly for the MOVE (nothing appends meanwhile): false while a PUT appends. */
  async takeForMove(upload: number, now: number): Promise<boolean> {
    const r = await this.db.updateTable('file_uploads').set({ appending: now }).where('id', '=', upload).where('appending', '=', 0).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Frees the assembly after a failed append or MOVE. */
  async release(upload: number): Promise<void> {
    await this.db.updateTable('file_uploads').set({ appending: 0 }).where('id', '=', upload).execute();
  }

  /** Removes uploads with their chunks: the blobs of the chunks and the uploads' assemblies. */
  async remove(uploads: number[]): Promise<{ blobs: string[]; assemblies: string[] }> {
    if (uploads.length === 0) return { blobs: [], assemblies: [] };
    const chunks = await this.db.deleteFrom('file_upload_chunks').where('upload', 'in', uploads).returning('blob').execute();
    const gone = await this.db.deleteFrom('file_uploads').where('id', 'in', uploads).returning('assembly').execute();
    return { blobs: chunks.map((c) => c.blob).filter((b) => b !== ''), assemblies: gone.map((u) => u.assembly).filter((a) => a !== '') };
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
