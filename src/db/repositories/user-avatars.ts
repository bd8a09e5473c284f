/** SQL for uploaded user avatars (table `user_avatars`, one row per user). */
import type { Kysely, Selectable } from 'kysely';
import type { Database, UserAvatarsTable } from '../schema.js';

export type UserAvatarRow = Selectable<UserAvatarsTable>;

export class UserAvatarsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  find(userId: string): Promise<UserAvatarRow | undefined> {
    return this.db.selectFrom('user_avatars').selectAll().where('user_id', '=', userId).executeTakeFirst();
  }

  /** Versions only (no image bytes) of some users, for avatar URLs. */
  async versions(userIds: string[]): Promise<Map<string, string>> {
    if (userIds.length === 0) return new Map();
    const rows = await this.db.selectFrom('user_avatars').select(['user_id', 'version']).where('user_id', 'in', userIds).execute();
    return new Map(rows.map((r) => [r.user_id, r.version]));
  }

  async save(row: UserAvatarRow): Promise<void> {
    await this.db
      .insertInto('user_avatars')
      .values(row)
      .onConflict((oc) =>
        oc.column('user_id').doUpdateSet({ version: row.version, content_type: row.content_type, data: row.data, updated_at: row.updated_at }),
      )
      .execute();
  }

  async remove(userId: string): Promise<void> {
    await this.db.deleteFrom('user_avatars').where('user_id', '=', userId).execute();
  }
}
