/** SQL for favourite files (migration 0881): one row per user and file they marked. */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export class FileFavoritesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Marks or unmarks; one statement either way (a second mark changes nothing). */
  async set(userId: string, fileId: number, favorite: boolean): Promise<void> {
    if (favorite) {
      await this.db
        .insertInto('file_favorites')
        .values({ user_id: userId, file_id: fileId })
        .onConflict((oc) => oc.columns(['user_id', 'file_id']).doNothing())
        .execute();
    } else {
      await this.db.deleteFrom('file_favorites').where('user_id', '=', userId).where('file_id', '=', fileId).execute();
    }
  }

  /** Which of these files the user marked. */
  async among(userId: string, fileIds: number[]): Promise<Set<number>> {
    if (fileIds.length === 0) return new Set();
    const rows = await this.db.selectFrom('file_favorites').select('file_id').where('user_id', '=', userId).where('file_id', 'in', fileIds).execute();
    return new Set(rows.map((r) => Number(r.file_id)));
  }

  /** A deleted user's marks go with them. */
  async deleteUser(userId: string): Promise<void> {
    await this.db.deleteFrom('file_favorites').where('user_id', '=', userId).execute();
  }

  /** Marks of files that no longer exist (the file-uploads job sweeps them); how many went. */
  async deleteOrphans(): Promise<number> {
    const r = await this.db
      .deleteFrom('file_favorites')
      .where(({ not, exists, selectFrom }) => not(exists(selectFrom('files').select('files.id').whereRef('files.id', '=', 'file_favorites.file_id'))))
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
