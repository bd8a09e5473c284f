/** SQL for user statuses (Nextcloud user_status). */
import type { Kysely } from 'kysely';
import { compiledRead } from '../database.js';
import type { Database, UserStatusTable } from '../schema.js';

export type UserStatusRow = UserStatusTable;

export class UserStatusRepository {
  private readonly findRead;

  constructor(private readonly db: Kysely<Database>) {
    this.findRead = compiledRead(db, db.selectFrom('user_status').selectAll().where('user_id', '=', ''), { table: 'user_status' });
  }

  /** Read on every GET /room (automatic online), hence compiled once and cached by change stamp. */
  async find(userId: string): Promise<UserStatusRow | undefined> {
    const [row] = await this.findRead([userId]);
    return row;
  }

  /** Statuses of many users in one query (participant list, conversation list). */
  async findMany(userIds: string[]): Promise<UserStatusRow[]> {
    if (userIds.length === 0) return [];
    const out: UserStatusRow[] = [];
    // Chunked so that very large lists stay under the parameter limits of both databases.
    for (let i = 0; i < userIds.length; i += 5000) {
      out.push(
        ...(await this.db
          .selectFrom('user_status')
          .selectAll()
          .where('user_id', 'in', userIds.slice(i, i + 5000))
          .execute()),
      );
    }
    return out;
  }

  /** Inserts or replaces the whole row. */
  async upsert(row: UserStatusRow): Promise<void> {
    const { user_id: _id, ...rest } = row;
    await this.db
      .insertInto('user_status')
      .values(row)
      .onConflict((oc) => oc.column('user_id').doUpdateSet(rest))
      .execute();
  }

  /**
   * Automatic "online" (GET /room without noStatusUpdate): only when the user has not chosen a
   * persistent status (away, dnd, invisible). One statement, no read first.
   */
  async markOnline(userId: string, now: number, persistent: string[]): Promise<void> {
    await this.db
      .insertInto('user_status')
      .values({ user_id: userId, status: 'online', status_timestamp: now, is_user_defined: 0, custom_icon: null, custom_message: null, clear_at: null })
      .onConflict((oc) =>
        oc
          .column('user_id')
          .doUpdateSet({ status: 'online', status_timestamp: now, is_user_defined: 0 })
          .where((eb) => eb.or([eb('user_status.is_user_defined', '=', 0), eb('user_status.status', 'not in', persistent)])),
      )
      .execute();
  }

  async clearMessage(userId: string): Promise<void> {
    await this.db.updateTable('user_status').set({ custom_icon: null, custom_message: null, clear_at: null }).where('user_id', '=', userId).execute();
  }

  async delete(userId: string): Promise<void> {
    await this.db.deleteFrom('user_status').where('user_id', '=', userId).execute();
  }
}
