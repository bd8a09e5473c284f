/** SQL for the /metrics gauges: a few COUNT(*)s per scrape, whatever the data size in rows returned. */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

export class MetricsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async roomsByType(): Promise<Array<{ type: number; count: number }>> {
    const rows = await this.db
      .selectFrom('rooms')
      .select(['type', sql<number>`count(*)`.as('count')])
      .groupBy('type')
      .execute();
    return rows.map((r) => ({ type: Number(r.type), count: Number(r.count) }));
  }

  async attendeesByActorType(): Promise<Array<{ actorType: string; count: number }>> {
    const rows = await this.db
      .selectFrom('attendees')
      .select(['actor_type', sql<number>`count(*)`.as('count')])
      .groupBy('actor_type')
      .execute();
    return rows.map((r) => ({ actorType: r.actor_type, count: Number(r.count) }));
  }

  /** Sessions, split by whether they are in a call. */
  async sessions(): Promise<{ total: number; inCall: number }> {
    const row = await this.db
      .selectFrom('sessions')
      .select([sql<number>`count(*)`.as('total'), sql<number>`sum(case when in_call > 0 then 1 else 0 end)`.as('in_call')])
      .executeTakeFirst();
    return { total: Number(row?.total ?? 0), inCall: Number(row?.in_call ?? 0) };
  }
}
