/** SQL for app passwords (stored as sha256 of the token: they are long random strings). */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export interface AppPasswordLogin {
  appPasswordId: number;
  userId: string;
  enabled: number;
}

export class AppPasswordsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(userId: string, tokenHash: string, name: string, now: number): Promise<number> {
    const row = await this.db
      .insertInto('app_passwords')
      .values({ user_id: userId, token_hash: tokenHash, name, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /** The user behind an app password, in one query. */
  findLogin(tokenHash: string): Promise<AppPasswordLogin | undefined> {
    return this.db
      .selectFrom('app_passwords')
      .innerJoin('users', 'users.id', 'app_passwords.user_id')
      .select(['app_passwords.id as appPasswordId', 'users.id as userId', 'users.enabled as enabled'])
      .where('app_passwords.token_hash', '=', tokenHash)
      .executeTakeFirst();
  }

  async replaceHash(id: number, tokenHash: string): Promise<void> {
    await this.db.updateTable('app_passwords').set({ token_hash: tokenHash }).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('app_passwords').where('id', '=', id).execute();
  }
}
