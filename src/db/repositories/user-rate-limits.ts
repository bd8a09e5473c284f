/**
 * SQL for per-user rate limits (table `user_rate_limits`, migration 0715; Nextcloud's
 * UserRateLimit attribute): at most `limit` requests of one action per user in a sliding window.
 * Anonymous limits (Nextcloud's registerAnonRequest) count per remote address instead: their
 * subject, in the same column, is `anonymousSubject(ip)`, which no user id can be (user ids hold
 * no colon).
 * Counting and recording are one locked step, so simultaneous requests of one user — in any
 * number of processes — never get more than the limit through: on SQLite the transaction begins
 * IMMEDIATE (the database write lock, see database.ts); on PostgreSQL a transaction-scoped
 * advisory lock on (user, action) serialises them, and the count after it sees every committed row.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Database } from '../schema.js';
import type { RateLimit } from '../../domain/rate-limits.js';

/** Namespace of the PostgreSQL advisory locks taken per (user, action); arbitrary constant. */
const PG_LOCK_NAMESPACE = 1_117_052_420;

/** The subject of an anonymous limit: the remote address, never a user id (see the file comment). */
export const anonymousSubject = (ip: string): string => `address:${ip}`;

export class UserRateLimitsRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Records a request of `rate.action` by `userId` (or an anonymous subject) unless `rate.limit`
   * were recorded within the last `rate.windowSeconds`; false when the limit is reached (nothing
   * recorded). Older rows of the same subject and action are removed in the same step.
   */
  async take(userId: string, rate: RateLimit, now: number): Promise<boolean> {
    const { action, windowSeconds, limit } = rate;
    return this.db.transaction().execute(async (trx) => {
      if (this.dialect === 'postgres') {
        await sql`SELECT pg_advisory_xact_lock(${PG_LOCK_NAMESPACE}, hashtext(${`${userId} ${action}`}))`.execute(trx);
      }
      const since = now - windowSeconds;
      await trx.deleteFrom('user_rate_limits').where('user_id', '=', userId).where('action', '=', action).where('occurred_at', '<=', since).execute();
      const r = await trx
        .selectFrom('user_rate_limits')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('action', '=', action)
        .executeTakeFirstOrThrow();
      if (Number(r.n) >= limit) return false;
      await trx.insertInto('user_rate_limits').values({ user_id: userId, action, occurred_at: now }).execute();
      return true;
    });
  }

  /** Forgets every row older than `cutoff` (subjects that never came back); how many went. */
  async deleteOlderThan(cutoff: number): Promise<number> {
    const r = await this.db.deleteFrom('user_rate_limits').where('occurred_at', '<', cutoff).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  async deleteForUser(userId: string): Promise<void> {
    await this.db.deleteFrom('user_rate_limits').where('user_id', '=', userId).execute();
  }
}
