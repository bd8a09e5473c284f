/** SQL for brute-force attempts (per client subnet and action). */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export class BruteForceRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async count(subnet: string, action: string, since: number): Promise<number> {
    const r = await this.db
      .selectFrom('brute_force_attempts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('subnet', '=', subnet)
      .where('action', '=', action)
      .where('occurred_at', '>', since)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async record(subnet: string, action: string, now: number): Promise<void> {
    await this.db.insertInto('brute_force_attempts').values({ subnet, action, occurred_at: now }).execute();
  }

  async reset(subnet: string, action: string): Promise<void> {
    await this.db.deleteFrom('brute_force_attempts').where('subnet', '=', subnet).where('action', '=', action).execute();
  }

  async prune(before: number): Promise<void> {
    await this.db.deleteFrom('brute_force_attempts').where('occurred_at', '<=', before).execute();
  }
}
