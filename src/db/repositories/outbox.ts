/**
 * SQL for the outbox (migration 0820): claim due rows with one conditional UPDATE, delete what
 * was delivered, put back what failed with a later due time. Every write names the claiming
 * process, so a process whose claim expired (and was taken over) changes nothing.
 */
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { Dialect } from '../database.js';
import type { Database, OutboxTable } from '../schema.js';

export type OutboxRow = Selectable<OutboxTable>;
export type NewOutboxRow = Omit<Insertable<OutboxTable>, 'id'>;

export class OutboxRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async insert(rows: NewOutboxRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.db
      .insertInto('outbox')
      .values(rows)
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .execute();
  }

  /**
   * Claims up to `limit` due rows of `topics` for `owner` until `until` (ms), oldest first, and
   * counts the attempt. One statement: a row another process claimed meanwhile fails the
   * re-checked condition and is not returned (PostgreSQL also skips rows locked by a claim in
   * progress instead of waiting for it).
   */
  async claim(topics: string[], owner: string, now: number, until: number, limit: number): Promise<OutboxRow[]> {
    let due = this.db
      .selectFrom('outbox')
      .select('id')
      .where('topic', 'in', topics)
      .where('due_at', '<=', now)
      .where('claimed_until', '<', now)
      .orderBy('due_at')
      .orderBy('id')
      .limit(limit);
    if (this.dialect === 'postgres') due = due.forUpdate().skipLocked();
    const rows = await this.db
      .updateTable('outbox')
      .set((eb) => ({ claimed_by: owner, claimed_until: until, attempts: eb('attempts', '+', 1) }))
      .where('id', 'in', due)
      .where('claimed_until', '<', now)
      .returningAll()
      .execute();
    return rows.sort((a, b) => Number(a.id) - Number(b.id));
  }

  /** Delivered (or given up): the rows go. */
  async finish(ids: number[], owner: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db.deleteFrom('outbox').where('id', 'in', ids).where('claimed_by', '=', owner).execute();
  }

  /** Failed for now: due again at `dueAt` (ms), claim released. */
  async retryAt(ids: number[], owner: string, dueAt: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('outbox')
      .set({ due_at: dueAt, claimed_by: null, claimed_until: 0 })
      .where('id', 'in', ids)
      .where('claimed_by', '=', owner)
      .execute();
  }

  /**
   * The earliest time (ms) a row of `topics` becomes claimable (due, and any claim on it
   * expired), or undefined when none is left.
   */
  async nextDue(topics: string[]): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('outbox')
      .select(sql<number | null>`min(case when claimed_until >= due_at then claimed_until + 1 else due_at end)`.as('at'))
      .where('topic', 'in', topics)
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  }

  /** Rows not yet delivered, by topic (metrics, tests). */
  async pending(): Promise<Array<{ topic: string; count: number }>> {
    const rows = await this.db
      .selectFrom('outbox')
      .select((eb) => ['topic', eb.fn.countAll<number>().as('count')])
      .groupBy('topic')
      .execute();
    return rows.map((r) => ({ topic: r.topic, count: Number(r.count) }));
  }
}
