/**
 * SQL for brute-force attempts (per client subnet and action). Deciding whether another attempt
 * may run and recording it is one locked step, so simultaneous requests from one address (in
 * any number of processes) can never start more attempts than the cap allows.
 */
import { BRUTE_FORCE_TOPIC } from '../../cache/topics.js';
import { sql, type Kysely } from 'kysely';
import { compiledRead, type Dialect } from '../database.js';
import type { Database } from '../schema.js';

/** Namespace of the PostgreSQL advisory locks taken per (subnet, action); arbitrary constant. */
const PG_LOCK_NAMESPACE = 1_117_052_419;

export class BruteForceRepository {
  private readonly nthLatestRead;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {
    this.nthLatestRead = compiledRead(
      db,
      db
        .selectFrom('brute_force_attempts')
        .select('occurred_at')
        .where('subnet', '=', '')
        .where('action', '=', '')
        .orderBy('occurred_at', 'desc')
        .limit(1)
        .offset(0),
      { topic: BRUTE_FORCE_TOPIC },
    );
  }

  /**
   * Whether at least `max` attempts happened after `since`, for requests that present an
   * already verified credential: a read kept on the change feed (topic `k:brute_force_attempts`,
   * both databases) until an attempt is recorded or removed.
   */
  async atCap(subnet: string, action: string, since: number, max: number): Promise<boolean> {
    const rows = await this.nthLatestRead([subnet, action, 1, max - 1]);
    return rows.length > 0 && Number(rows[0].occurred_at) > since;
  }

  /**
   * Records an attempt unless `max` attempts already happened after `since`. Returns the number
   * of earlier attempts in the window, or undefined when the cap is reached (nothing recorded).
   * The count and the insert run under one lock: on SQLite the transaction begins IMMEDIATE
   * (the database write lock, see database.ts); on PostgreSQL a transaction-scoped advisory lock
   * on (subnet, action) serialises the callers, and the count after it sees every committed row.
   */
  async reserve(subnet: string, action: string, now: number, since: number, max: number): Promise<number | undefined> {
    return this.db.transaction().execute(async (trx) => {
      if (this.dialect === 'postgres') {
        await sql`SELECT pg_advisory_xact_lock(${PG_LOCK_NAMESPACE}, hashtext(${`${subnet} ${action}`}))`.execute(trx);
      }
      const r = await trx
        .selectFrom('brute_force_attempts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('subnet', '=', subnet)
        .where('action', '=', action)
        .where('occurred_at', '>', since)
        .executeTakeFirstOrThrow();
      const earlier = Number(r.n);
      if (earlier >= max) return undefined;
      await trx.insertInto('brute_force_attempts').values({ subnet, action, occurred_at: now }).execute();
      return earlier;
    });
  }

  async reset(subnet: string, action: string): Promise<void> {
    await this.db.deleteFrom('brute_force_attempts').where('subnet', '=', subnet).where('action', '=', action).execute();
  }

  async prune(before: number): Promise<void> {
    await this.db.deleteFrom('brute_force_attempts').where('occurred_at', '<=', before).execute();
  }
}
