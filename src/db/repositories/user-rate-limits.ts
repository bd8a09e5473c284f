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
import { chunks, rowsPerInsert } from '../chunks.js';

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
    return (await this.takeMany(new Map([[userId, 1]]), rate, now)).get(userId) === 1;
  }

  /**
   * `take` for many subjects at once: for each subject of `wants`, up to that many requests are
   * recorded, as many as its window still allows; how many were, by subject. One transaction of
   * a fixed number of statements whatever the number of subjects (a push batch of hundreds of
   * users): the locks (on PostgreSQL the advisory locks of every subject, taken in the order of
   * their keys so that two batches never wait on each other in a cycle), the old rows of all
   * subjects deleted, their windows counted, the new rows inserted.
   */
  async takeMany(wants: ReadonlyMap<string, number>, rate: RateLimit, now: number): Promise<Map<string, number>> {
    const { action, windowSeconds, limit } = rate;
    const subjects = [...wants.keys()].filter((s) => (wants.get(s) ?? 0) > 0);
    if (subjects.length === 0) return new Map();
    return this.db.transaction().execute(async (trx) => {
      if (this.dialect === 'postgres') {
        await sql`SELECT pg_advisory_xact_lock(${PG_LOCK_NAMESPACE}, k.h) FROM (SELECT DISTINCT hashtext(s || ${` ${action}`}) AS h FROM unnest(${subjects}::text[]) AS s ORDER BY h) AS k`.execute(
          trx,
        );
      }
      const since = now - windowSeconds;
      const used = new Map<string, number>();
      for (const part of chunks(subjects)) {
        await trx.deleteFrom('user_rate_limits').where('user_id', 'in', part).where('action', '=', action).where('occurred_at', '<=', since).execute();
        const counts = await trx
          .selectFrom('user_rate_limits')
          .select(['user_id', (eb) => eb.fn.countAll<number>().as('n')])
          .where('user_id', 'in', part)
          .where('action', '=', action)
          .groupBy('user_id')
          .execute();
        for (const c of counts) used.set(c.user_id, Number(c.n));
      }
      const granted = new Map<string, number>();
      const rows: Array<{ user_id: string; action: string; occurred_at: number }> = [];
      for (const s of subjects) {
        const n = Math.max(0, Math.min(wants.get(s)!, limit - (used.get(s) ?? 0)));
        granted.set(s, n);
        for (let i = 0; i < n; i++) rows.push({ user_id: s, action, occurred_at: now });
      }
      for (const part of chunks(rows, rowsPerInsert(3))) await trx.insertInto('user_rate_limits').values(part).execute();
      return granted;
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
