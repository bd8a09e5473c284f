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

/**
 * No earlier row of the same topic and destination (of `outbox as o`) waits for a retry or is
 * still claimed: `o` is at the head of its destination's queue.
 */
const unblocked = (now: number) =>
  sql<boolean>`not exists (select 1 from outbox e where e.topic = o.topic and e.destination = o.destination and e.id < o.id and (e.due_at > ${now} or e.claimed_until >= ${now}))`;

export class OutboxRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /** Writes rows; with `via` (the change's open transaction) they exist only if it commits. */
  async insert(rows: NewOutboxRow[], via?: Kysely<Database>): Promise<void> {
    if (rows.length === 0) return;
    await (via ?? this.db)
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

  /**
   * Ordered topics: up to `limit` destinations of `topic` whose first row is due and unclaimed
   * (a destination whose head waits for a retry is not offered).
   */
  async dueDestinations(topic: string, now: number, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('outbox as o')
      .select('o.destination')
      .distinct()
      .where('o.topic', '=', topic)
      .where('o.due_at', '<=', now)
      .where('o.claimed_until', '<', now)
      .where(unblocked(now))
      .limit(limit)
      .execute();
    return rows.map((r) => r.destination);
  }

  /**
   * Takes the lease of each destination that nobody holds (or whose holder's lease expired), in
   * one statement: the destinations now held by `owner`.
   */
  async lease(topic: string, destinations: string[], owner: string, now: number, until: number): Promise<string[]> {
    if (destinations.length === 0) return [];
    const rows = await this.db
      .insertInto('outbox_leases')
      .values(destinations.map((destination) => ({ topic, destination, claimed_by: owner, claimed_until: until })))
      .onConflict((oc) =>
        oc
          .columns(['topic', 'destination'])
          .doUpdateSet((eb) => ({ claimed_by: eb.ref('excluded.claimed_by'), claimed_until: eb.ref('excluded.claimed_until') }))
          .where('outbox_leases.claimed_until', '<', now),
      )
      .returning('destination')
      .execute();
    return rows.map((r) => r.destination);
  }

  /**
   * Ordered topics: claims the due rows at the head of one leased destination, in id order, up
   * to the first row that waits for a retry or is still claimed by an earlier holder.
   */
  async claimHead(topic: string, destination: string, owner: string, now: number, until: number, limit: number): Promise<OutboxRow[]> {
    const head = this.db
      .selectFrom('outbox as o')
      .select('o.id')
      .where('o.topic', '=', topic)
      .where('o.destination', '=', destination)
      .where('o.due_at', '<=', now)
      .where('o.claimed_until', '<', now)
      .where(unblocked(now))
      .orderBy('o.id')
      .limit(limit);
    const rows = await this.db
      .updateTable('outbox')
      .set((eb) => ({ claimed_by: owner, claimed_until: until, attempts: eb('attempts', '+', 1) }))
      .where('id', 'in', head)
      .where('claimed_until', '<', now)
      .returningAll()
      .execute();
    return rows.sort((a, b) => Number(a.id) - Number(b.id));
  }

  /** The leases `owner` holds on these destinations end (their rows are finished or put back). */
  async releaseLeases(topic: string, destinations: string[], owner: string): Promise<void> {
    if (destinations.length === 0) return;
    await this.db.deleteFrom('outbox_leases').where('topic', '=', topic).where('destination', 'in', destinations).where('claimed_by', '=', owner).execute();
  }

  /** Claimed but not tried (an earlier row of their destination failed): back as they were. */
  async release(ids: number[], owner: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('outbox')
      .set((eb) => ({ claimed_by: null, claimed_until: 0, attempts: eb('attempts', '-', 1) }))
      .where('id', 'in', ids)
      .where('claimed_by', '=', owner)
      .execute();
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
  async nextDue(topics: string[], ordered: string[] = []): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('outbox as o')
      .select(sql<number | null>`min(case when o.claimed_until >= o.due_at then o.claimed_until + 1 else o.due_at end)`.as('at'))
      .where('o.topic', 'in', topics)
      // An ordered destination's later rows wait for its head: only heads count.
      .where((eb) =>
        ordered.length === 0
          ? eb.val(true)
          : eb.or([
              eb('o.topic', 'not in', ordered),
              eb.not(
                eb.exists(
                  eb
                    .selectFrom('outbox as e')
                    .select('e.id')
                    .whereRef('e.topic', '=', 'o.topic')
                    .whereRef('e.destination', '=', 'o.destination')
                    .whereRef('e.id', '<', 'o.id'),
                ),
              ),
            ]),
      )
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
