/** SQL for app passwords (stored as sha256 of the token: they are long random strings). */
import type { Kysely } from 'kysely';
import { compiledRead } from '../database.js';
import type { Database } from '../schema.js';

export interface AppPasswordLogin {
  appPasswordId: number;
  userId: string;
}

export class AppPasswordsRepository {
  private readonly findRead;

  constructor(private readonly db: Kysely<Database>) {
    this.findRead = compiledRead(db, db.selectFrom('app_passwords').select(['id', 'user_id']).where('token_hash', '=', ''), { table: 'app_passwords' });
  }

  async insert(userId: string, tokenHash: string, name: string, now: number): Promise<number> {
    const row = await this.db
      .insertInto('app_passwords')
      .values({ user_id: userId, token_hash: tokenHash, name, created_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return Number(row.id);
  }

  /**
   * The app password with this hash and its user's id. Read on every request an app password
   * signs, hence compiled once and cached per process (the user row is read through
   * UsersRepository.find, cached the same way).
   */
  async findLogin(tokenHash: string): Promise<AppPasswordLogin | undefined> {
    const [row] = await this.findRead([tokenHash]);
    return row && { appPasswordId: Number(row.id), userId: row.user_id };
  }

  async replaceHash(id: number, tokenHash: string): Promise<void> {
    await this.db.updateTable('app_passwords').set({ token_hash: tokenHash }).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<void> {
    await this.db.deleteFrom('app_passwords').where('id', '=', id).execute();
  }
}
