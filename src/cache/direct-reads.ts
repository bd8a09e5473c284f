/**
 * Fast reads for the queries every request makes (credential check, config generation,
 * preferences), on SQLite. Two layers, both exact across processes:
 *
 * 1. Direct execution. A read compiled once from a Kysely template runs synchronously on a
 *    cached prepared statement, skipping Kysely's query building, async driver and connection
 *    lock (most of a small query's cost). better-sqlite3 is synchronous, so the read cannot
 *    interleave with another statement; while a transaction is open (it spans awaits) the read
 *    goes through Kysely instead and so waits its turn and never sees uncommitted rows.
 *
 * 2. A result cache checked against a change stamp: the database's cross-process change signal
 *    (the WAL-index header, see wal-stamp.ts; SQLite's `data_version` when the header cannot be
 *    read) plus the number of write statements run by any connection of this process. A cached
 *    result is used only under the stamp it was read under. The signal is read once per batch
 *    of HTTP requests: `afterFreshReads` holds each request as it starts until the event loop's
 *    check phase, then releases every request of that poll phase together and marks the rest of
 *    the turn as request-scoped; reads in that turn share one reading taken after all of those
 *    requests arrived, so every request sees every commit made before it started, by any
 *    process. Outside a request-scoped turn (jobs, commands, tests calling services) every
 *    cached read checks the signal itself. Writes by this process move the stamp at once.
 *
 * On PostgreSQL the statements are named prepared statements (pg-prepared.ts) and the results
 * of reads that name their `table` are cached per process, invalidated by LISTEN/NOTIFY
 * (pg-read-cache.ts); the other reads are ordinary Kysely queries. There `afterFreshReads`
 * holds each request until the process has heard every commit made before it arrived (one
 * round trip on the LISTEN connection per batch of requests, pg-read-cache.ts `afterSync`).
 */
import type SQLite from 'better-sqlite3';
import type { Compilable, Kysely } from 'kysely';
import { BoundedMap } from '../domain/bounded-map.js';
import { readCacheOf } from './pg-read-cache.js';
import type { QueryStats } from './query-stats.js';
/**
 * The caches hold queries of any schema: they key on the Kysely instance and the compiled
 * statement, never on a table's shape (so this layer imports nothing from db/).
 */
type Database = any;
import { WalHeaderStamp } from './wal-stamp.js';
import { SqliteChangeFeed, type ChangeFeed } from './change-feed.js';
import { cachedTableTopic, type CachedTable } from './topics.js';
import { withFastRows } from './sqlite-row-shapes.js';

interface DirectReader {
  database: SQLite.Database;
  stats: QueryStats;
  stampStatement: SQLite.Statement;
  /** The WAL-index header, read instead of data_version when it can be (see wal-stamp.ts). */
  wal: WalHeaderStamp | undefined;
  /** Change signal read since the latest request start in this turn (request-scoped turns only). */
  dataVersion?: string;
  /** True from the release of a batch of requests to the end of that event-loop turn. */
  scoped: boolean;
  /** Requests that started in this poll phase, released together (afterFreshReads). */
  waiting: Array<() => void>;
  /** Which topics changed since when (change-feed.ts), read under this connection's stamp. */
  feed: SqliteChangeFeed;
}

/** Write statements run by every connection of this process (all of them move every stamp). */
let localWrites = 0;

const readers = new WeakMap<Kysely<Database>, DirectReader>();

const STATEMENT_CACHE_SIZE = 1000;

/**
 * Enables direct reads on a SQLite connection. Also caches prepared statements by SQL text:
 * Kysely's driver prepares every statement anew, and a cached statement is never busy when it
 * is handed out again (one connection runs one statement at a time). A statement that writes
 * moves the change stamp as it is prepared, just before it runs.
 */
export function attachDirectReads(kysely: Kysely<Database>, database: SQLite.Database, stats: QueryStats): void {
  const reader: DirectReader = {
    database,
    stats,
    stampStatement: database.prepare('PRAGMA data_version').pluck(),
    wal: !database.memory && String(database.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal' ? new WalHeaderStamp(database.name) : undefined,
    scoped: false,
    waiting: [],
    feed: new SqliteChangeFeed(() => (reader.database.inTransaction ? undefined : { database, stats, stamp: currentStamp(reader) })),
  };
  const cache = new Map<string, SQLite.Statement>();
  const prepare = database.prepare.bind(database);
  database.prepare = ((source: string) => {
    let stmt = cache.get(source);
    if (stmt === undefined) {
      stmt = withFastRows(prepare(source));
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(source, stmt);
    }
    if (!stmt.readonly) localWrites++;
    return stmt;
  }) as SQLite.Database['prepare'];
  readers.set(kysely, reader);
}

/**
 * Called as each HTTP request starts (its headers have been read); `proceed` continues the
 * request once the change signal may be read again. Requests are held until the check phase
 * of the event loop (setImmediate), after every socket that was ready in this poll phase has
 * been read; then they all go on, and the first read among them takes one fresh reading that
 * the rest share. That reading is taken after each of those requests arrived, so each still
 * sees every commit made, by any process, before it started; it costs one signal read per
 * batch of requests instead of one per request.
 */
export function afterFreshReads(kysely: Kysely<Database>, proceed: () => void): void {
  const reader = readers.get(kysely);
  // PostgreSQL: once this process has heard every commit made before the request arrived.
  if (reader === undefined) {
    const cache = readCacheOf(kysely);
    return cache === undefined ? proceed() : cache.afterSync(proceed);
  }
  reader.waiting.push(proceed);
  if (reader.waiting.length === 1) setImmediate(releaseWaiting, reader);
}

function releaseWaiting(reader: DirectReader): void {
  const waiting = reader.waiting;
  reader.waiting = [];
  reader.dataVersion = undefined;
  if (!reader.scoped) {
    reader.scoped = true;
    // The request-scoped turn ends in the next loop iteration's check phase, before the next
    // batch is released (which starts a new one).
    setImmediate(() => {
      reader.scoped = false;
      reader.dataVersion = undefined;
    });
  }
  for (const proceed of waiting) proceed();
}

/** Stops direct reads on a connection that is being closed (releases the `-shm` handle). */
export function detachDirectReads(kysely: Kysely<Database>): void {
  readers.get(kysely)?.wal?.close();
  readers.delete(kysely);
}

function currentStamp(reader: DirectReader): string {
  let version = reader.scoped ? reader.dataVersion : undefined;
  if (version === undefined) {
    version = reader.wal?.read();
    if (version === undefined) {
      // Header unreadable or being written: ask SQLite (a query, so it is counted as one).
      const started = performance.now();
      version = `v${reader.stampStatement.get() as number}`;
      reader.stats.record(performance.now() - started, false, reader.stampStatement.source);
    }
    if (reader.scoped) reader.dataVersion = version;
  }
  return `${version}:${localWrites}`;
}

/**
 * The database's change stamp, for caches of results derived from many reads (rendered
 * conversation records): equal stamps mean no commit by any process in between. Read it BEFORE
 * the reads whose result it will validate. Undefined on PostgreSQL and while this process has a
 * transaction open (its uncommitted writes must not be cached).
 */
export function changeStamp(kysely: Kysely<Database>): string | undefined {
  const reader = readers.get(kysely);
  if (reader === undefined || reader.database.inTransaction) return undefined;
  return currentStamp(reader);
}

const noFeed = new SqliteChangeFeed(() => undefined);

/**
 * The change feed of a database connection (change-feed.ts), one per process and connection so
 * that every cache shares its reading: SQLite's, or PostgreSQL's kept by the read cache (one
 * that never has a position where neither exists).
 */
export function changeFeedOf(kysely: Kysely<Database>): ChangeFeed {
  return readers.get(kysely)?.feed ?? readCacheOf(kysely)?.feed ?? noFeed;
}

/**
 * PostgreSQL, a read with a topic and no cached table (the brute-force cap check): results are
 * kept per parameters with the change feed's position read before the statement, and reused
 * while the feed has heard no change of the topic since (notified at commit, in commit order:
 * a commit the statement did not see is heard after that position). No position (the LISTEN
 * connection is down): not kept.
 */
function keptOnFeed<R extends object>(
  feed: ChangeFeed,
  topic: string,
  query: (parameters: readonly unknown[]) => Promise<R[]>,
): (parameters: readonly unknown[]) => Promise<R[]> {
  const kept = new BoundedMap<string, { position: number; rows: R[] }>(10_000);
  return async (parameters) => {
    const position = feed.position();
    if (position === undefined) return query(parameters);
    const key = JSON.stringify(parameters);
    let hit = kept.get(key);
    if (hit === undefined || !feed.unchangedSince(hit.position, [topic])) {
      hit = { position, rows: await query(parameters) };
      kept.set(key, hit);
    }
    return hit.rows.map((r) => ({ ...r }));
  };
}

function run<R>(reader: DirectReader, sql: string, parameters: readonly unknown[]): R[] {
  const started = performance.now();
  const rows = reader.database.prepare(sql).all(parameters as unknown[]) as R[];
  reader.stats.record(performance.now() - started, false, sql);
  return rows;
}

export interface CompiledReadOptions {
  /**
   * The table read, for the PostgreSQL cache: results are then cached per process and dropped
   * when the table's notify trigger names the read's one parameter (pg-read-cache.ts). Without
   * it, a read with a `topic` is kept on PostgreSQL's change feed instead, and any other is not
   * cached there. On SQLite it names the read's change-feed topic (`cachedTableTopic`).
   */
  table?: CachedTable;
  /** The change-feed topic of a read without `table` (change-feed.ts; on PostgreSQL its notify trigger must exist), the same for all its parameters. */
  topic?: string;
}

/**
 * A hot read of small rows, compiled once from a Kysely template; each call passes the
 * parameters in the template's order (`find(id)` → `[id]`). Results are cached by parameters
 * and checked against the change stamp on SQLite; on PostgreSQL, with `table`, cached until a
 * notification (or this process's own write) invalidates them. Callers get their own copies of
 * the rows.
 */
export function compiledRead<R extends object>(
  db: Kysely<Database>,
  template: Compilable<R>,
  options: CompiledReadOptions = {},
): (parameters: readonly unknown[]) => Promise<R[]> {
  const compiled = template.compile();
  if (compiled.parameters.length === 0) throw new Error('compiledRead: the template needs its parameters');
  const results = new BoundedMap<string, { stamp: string; position: number | undefined; rows: R[] }>(10_000);
  const query = async (parameters: readonly unknown[]) => (await db.executeQuery<R>({ ...compiled, parameters })).rows;
  const readCache = readCacheOf(db);
  if (readCache !== undefined && options.table !== undefined && compiled.parameters.length !== 1) {
    throw new Error('compiledRead: a cached table read takes its key as its one parameter');
  }
  // PostgreSQL: a table's read through the read cache; a read with a topic on the change feed.
  const uncached =
    readCache === undefined
      ? query
      : options.table !== undefined
        ? readCache.reader(options.table, query)
        : options.topic !== undefined
          ? keptOnFeed(readCache.feed, options.topic, query)
          : query;
  const topicOf =
    options.table !== undefined
      ? (p: readonly unknown[]) => cachedTableTopic(options.table!, p[0])
      : options.topic !== undefined
        ? () => options.topic!
        : undefined;
  return async (parameters) => {
    if (parameters.length !== compiled.parameters.length) throw new Error('compiledRead: wrong number of parameters');
    const reader = readers.get(db);
    if (reader === undefined) return uncached(parameters);
    if (reader.database.inTransaction) return query(parameters);
    const stamp = currentStamp(reader);
    const key = JSON.stringify(parameters);
    let hit = results.get(key);
    if (hit !== undefined && hit.stamp !== stamp) {
      // Something was written: still this result while the feed shows no write to its topic.
      const position = topicOf === undefined ? undefined : reader.feed.position();
      if (position !== undefined && hit.position !== undefined && reader.feed.unchangedSince(hit.position, [topicOf!(parameters)])) {
        hit.stamp = stamp;
        hit.position = position;
      } else hit = undefined;
    }
    if (hit === undefined) {
      // The position is read before the statement, as the stamp is.
      const position = topicOf === undefined ? undefined : reader.feed.position();
      hit = { stamp, position, rows: run<R>(reader, compiled.sql, parameters) };
      results.set(key, hit);
    }
    return hit.rows.map((r) => ({ ...r }));
  };
}
