/** SQL for browser login sessions (stored by the sha256 of the cookie value). */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { UserRow } from './users.js';

export class LoginSessionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(tokenHash: string, userId: string, now: number, expiresAt: number): Promise<void> {
    await this.db.insertInto('login_sessions').values({ token_hash: tokenHash, user_id: userId, created_at: now, expires_at: expiresAt }).execute();
  }

  /** The enabled user behind a live session, in one query. */
  async findUser(tokenHash: string, now: number): Promise<UserRow | undefined> {
    const row = await this.db
      .selectFrom('login_sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .selectAll('u')
      .where('s.token_hash', '=', tokenHash)
      .where('s.expires_at', '>', now)
      .where('u.enabled', '=', 1)
      .executeTakeFirst();
    return row as UserRow | undefined;
  }

  /** Deletes a login session; returns its user (undefined when there was none). */
  async delete(tokenHash: string): Promise<string | undefined> {
    const row = await this.db.deleteFrom('login_sessions').where('token_hash', '=', tokenHash).returning('user_id').executeTakeFirst();
    return row?.user_id;
  }

  async deleteForUser(userId: string): Promise<void> {
    await this.db.deleteFrom('login_sessions').where('user_id', '=', userId).execute();
  }

  async deleteExpired(now: number): Promise<void> {
    await this.db.deleteFrom('login_sessions').where('expires_at', '<=', now).execute();
  }
}
