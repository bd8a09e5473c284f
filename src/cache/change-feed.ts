/**
 * Which topics changed, and when, as this process has seen them (the topics and the tables that
 * feed them are in topics.ts; the triggers in migration 0712). A rendered answer is kept with the feed position read before
 * it was computed and the topics it was computed from (the caller's conversations, the caller,
 * the other user of a one-to-one, ...); it is still exact while none of those topics, nor `g`,
 * changed after that position. So a write into one conversation no longer discards the answers
 * of callers who are not in it, whichever process wrote it.
 *
 * - SQLite (`SqliteChangeFeed`): the triggers append each topic to the `change_feed` table, in
 *   commit order. Reading it costs nothing while the database's change stamp (direct-reads.ts:
 *   any commit by any process, any write by this one) is the one of the last reading; otherwise
 *   one indexed statement reads the rows from the last one read on. A reader that fell behind
 *   the pruned rows, or that would have to read more than MAX_ROWS of them, starts over: every
 *   answer kept before is taken as changed (`floor`); so does one that finds the rows deleted by
 *   hand (the last row it read is gone). Inside a transaction there is no position.
 * - PostgreSQL (`PgChangeFeed`): the triggers notify `feed:<topic>` on the schema's wake channel,
 *   delivered at commit in commit order to every process's LISTEN connection (pg-read-cache.ts
 *   feeds them here in the order heard, numbered by this process). A write of this process
 *   returns only once its own notifications were heard, as for the read cache. While the
 *   connection does not listen there is no position, and each (re)connection or loss starts over.
 */
import type SQLite from 'better-sqlite3';
import type { QueryStats } from './query-stats.js';
import { GLOBAL_TOPIC } from './topics.js';

/** The SQLite connection with its change stamp now; undefined on PostgreSQL and while a transaction is open. */
export type StampedConnection = () => { database: SQLite.Database; stats: QueryStats; stamp: string } | undefined;

export interface ChangeFeed {
  /**
   * The feed position covering every commit this process can know of now, or undefined when
   * answers cannot be kept now. Read it BEFORE the reads it validates.
   */
  position(): number | undefined;
  /** True when none of `topics`, nor `g`, changed after position `at` (as of the last `position()`). */
  unchangedSince(at: number, topics: readonly string[]): boolean;
}

/** Rows read at once (SQLite); a longer gap starts over instead. */
const MAX_ROWS = 10_000;
/** Topics remembered; past that the reader starts over (and forgets them). */
const MAX_TOPICS = 200_000;
const GLOBAL = GLOBAL_TOPIC;

/**
 * Topic → the position of its last change, after `floor`; shared by both databases' feeds.
 * Positions are this process's own count of changes heard, so they only grow, whatever the
 * database numbers its rows.
 */
class TopicLog {
  /** The last change heard. */
  protected seq = 0;
  /** Answers kept at a position before this one are taken as changed. */
  private floor = 0;
  private readonly changedAt = new Map<string, number>();

  unchangedSince(at: number, topics: readonly string[]): boolean {
    if (at < this.floor) return false;
    if ((this.changedAt.get(GLOBAL) ?? 0) > at) return false;
    for (const t of topics) if ((this.changedAt.get(t) ?? 0) > at) return false;
    return true;
  }

  /** `topic` changed (after every change heard before). */
  protected changed(topic: string): void {
    this.seq++;
    // Re-inserted so that the map stays ordered by change (oldest first).
    this.changedAt.delete(topic);
    this.changedAt.set(topic, this.seq);
    if (this.changedAt.size > MAX_TOPICS) this.startOver();
  }

  /** Forgets every topic: every answer kept until now is taken as changed. */
  startOver(): void {
    this.changedAt.clear();
    this.floor = ++this.seq;
  }
}

export class SqliteChangeFeed extends TopicLog implements ChangeFeed {
  /** The change stamp of the last reading (no commit since: nothing to read). */
  private stamp: string | undefined;
  /** The last feed row read; undefined before the first reading. */
  private row: number | undefined;
  /** False once the feed turned out to be missing (a database without migration 0712). */
  private available = true;

  constructor(private readonly connection: StampedConnection) {
    super();
  }

  position(): number | undefined {
    if (!this.available) return undefined;
    const conn = this.connection();
    if (conn === undefined) return undefined;
    if (conn.stamp === this.stamp) return this.seq;
    try {
      this.read(conn.database, conn.stats);
    } catch (e) {
      if (!/no such table/.test(String(e))) throw e;
      this.available = false;
      return undefined;
    }
    this.stamp = conn.stamp;
    return this.seq;
  }

  /**
   * One indexed range read from the last row read (inclusive) on: that row still being there is
   * what shows that nothing before it went missing. It is not there when the reader fell behind
   * the pruned rows or the rows were deleted by hand (their numbering may start again below it),
   * and a reader that would have to read more than MAX_ROWS rows gives up: each then starts over
   * at the newest row (a second statement, rare). The first reading starts over too.
   */
  private read(database: SQLite.Database, stats: QueryStats): void {
    const from = this.row;
    if (from !== undefined) {
      const rows = timed(stats, READ_FROM, () => database.prepare(READ_FROM).all(from, MAX_ROWS + 2) as Array<{ seq: number; topic: string }>);
      // Row 0 is never written (numbering starts at 1): after an empty feed every row is new;
      // otherwise the first row is the one read last.
      const first = from === 0 ? 0 : 1;
      if ((first === 0 || rows[0]?.seq === from) && rows.length - first <= MAX_ROWS) {
        for (let i = first; i < rows.length; i++) this.changed(rows[i].topic);
        this.row = rows.at(-1)?.seq ?? from;
        return;
      }
    }
    this.startOver();
    this.row = timed(stats, NEWEST, () => database.prepare(NEWEST).pluck().get() as number | null) ?? 0;
  }
}

/** Runs one statement, counted and timed as every statement is (query-stats.ts). */
function timed<T>(stats: QueryStats, sql: string, statement: () => T): T {
  const begun = performance.now();
  try {
    return statement();
  } finally {
    stats.record(performance.now() - begun, false, sql);
  }
}

/**
 * The feed's rows from a position on, in order (change_feed.seq is the rowid: a range read).
 * Exported for bench/chat-send-floor.mjs, which runs a send's statements as the server does.
 */
export const READ_FROM = 'SELECT seq, topic FROM change_feed WHERE seq >= ? ORDER BY seq LIMIT ?';
const NEWEST = 'SELECT max(seq) FROM change_feed';

export class PgChangeFeed extends TopicLog implements ChangeFeed {
  /** @param listening true while every commit's notifications reach this process (pg-read-cache.ts `active`) */
  constructor(private readonly listening: () => boolean) {
    super();
  }

  position(): number | undefined {
    return this.listening() ? this.seq : undefined;
  }

  /** A `feed:<topic>` notification, in the order PostgreSQL delivers them (commit order). */
  heard(topic: string): void {
    this.changed(topic);
  }
}
