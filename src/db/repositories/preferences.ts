/** SQL for per-user preferences (app `spreed` user config). */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export class PreferencesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async forUser(userId: string): Promise<Map<string, string>> {
    const rows = await this.db.selectFrom('user_preferences').select(['key', 'value']).where('user_id', '=', userId).execute();
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  async set(userId: string, key: string, value: string): Promise<void> {
    await this.db
      .insertInto('user_preferences')
      .values({ user_id: userId, key, value })
      .onConflict((oc) => oc.columns(['user_id', 'key']).doUpdateSet({ value }))
      .execute();
  }

  async delete(userId: string, key: string): Promise<void> {
    await this.db.deleteFrom('user_preferences').where('user_id', '=', userId).where('key', '=', key).execute();
  }

  async deleteForUser(userId: string): Promise<void> {
    await this.db.deleteFrom('user_preferences').where('user_id', '=', userId).execute();
  }
}
