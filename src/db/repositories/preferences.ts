/** SQL for per-user preferences (app `spreed` user config). */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { compiledRead } from '../database.js';

async function upsert(db: Kysely<Database>, userId: string, key: string, value: string): Promise<void> {
  await db
    .insertInto('user_preferences')
    .values({ user_id: userId, key, value })
    .onConflict((oc) => oc.columns(['user_id', 'key']).doUpdateSet({ value }))
    .execute();
}

export class PreferencesRepository {
  private readonly forUserRead;

  constructor(private readonly db: Kysely<Database>) {
    this.forUserRead = compiledRead(db, db.selectFrom('user_preferences').select(['key', 'value']).where('user_id', '=', ''), {
      table: 'user_preferences',
    });
  }

  /** Read on hot requests (capabilities, X-Service-Hash), hence compiled once. */
  async forUser(userId: string): Promise<Map<string, string>> {
    const rows = await this.forUserRead([userId]);
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  async set(userId: string, key: string, value: string): Promise<void> {
    await upsert(this.db, userId, key, value);
  }

  /**
   * Stores `read_status_privacy` and copies it onto every attendee row of the user in one
   * transaction, so `lastCommonReadMessage` follows the new setting (docs/reference/capabilities-and-config.md#user-settings).
   */
  async setReadPrivacy(userId: string, value: '0' | '1'): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await upsert(trx, userId, 'read_status_privacy', value);
      await trx
        .updateTable('attendees')
        .set({ read_privacy: Number(value) })
        .where('actor_type', '=', 'users')
        .where('actor_id', '=', userId)
        .execute();
    });
  }

  async delete(userId: string, key: string): Promise<void> {
    await this.db.deleteFrom('user_preferences').where('user_id', '=', userId).where('key', '=', key).execute();
  }
}
