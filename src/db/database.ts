/**
 * Opens the database: SQLite (better-sqlite3, WAL) by default, PostgreSQL when a
 * postgres:// URL is given. One Kysely instance serves both; repositories never
 * know which dialect they run on except through `dialect` where SQL differs.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, SqliteDriver } from 'kysely';
import type { DatabaseConnection, Driver, LogEvent } from 'kysely';
import type { Database } from './schema.js';
import { attachDirectReads, detachDirectReads } from '../cache/direct-reads.js';
import { preparedStatementPool } from './pg-prepared.js';
import { attachReadCache, PgReadCache } from '../cache/pg-read-cache.js';
import { QueryStats } from '../cache/query-stats.js';
import { startCheckpointer } from './sqlite-checkpointer.js';
import { inProcessWake, postgresWake, type Wake } from '../cache/wake.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** Statements sent and their timings (tests' query counts, GET /metrics). */
  stats: QueryStats;
  /** The PostgreSQL schema in use, when one was given. */
  schema?: string;
  /** The PostgreSQL connection pool (its counts feed /metrics). */
  pool?: { totalCount: number; idleCount: number; waitingCount: number };
  /** SQLite: how long the first caller in line for the one connection has waited (ms). */
  connectionWaitMs?: () => number;
  /** Cross-process wake-ups (LISTEN/NOTIFY on PostgreSQL, in-process on SQLite). */
  wake: Wake;
  /** PostgreSQL: the per-process read cache (pg-read-cache.ts); enabled after migrations. */
  readCache?: PgReadCache;
  close(): Promise<void>;
}

export interface DbOptions {
  databaseUrl?: string;
  dataDir: string;
  /** PostgreSQL schema to create and use (tests run one schema each). */
  schema?: string;
  /** Told of trouble in the background that no request sees (SQLite's checkpoint worker, PostgreSQL's LISTEN connection). */
  warn?: (message: string) => void;
}

// int8 (bigint) columns and COUNT(*) arrive as strings from pg; every value we store fits a JS number.
pg.types.setTypeParser(20, (v) => Number(v));

export async function openDatabase(opts: DbOptions): Promise<Db> {
  const stats = new QueryStats();
  const log = (event: LogEvent) => stats.record(event.queryDurationMillis, event.level === 'error', event.query.sql);
  if (opts.databaseUrl) {
    const schema = opts.schema;
    if (schema) {
      // Make sure the schema exists before the pool pins search_path to it.
      const client = new pg.Client({ connectionString: opts.databaseUrl });
      await client.connect();
      try {
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      } finally {
        await client.end();
      }
    }
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: 10,
      // A connection that died silently is noticed in seconds, not after the OS default of two hours.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      ...(schema ? { options: `-c search_path="${schema}"` } : {}),
    });
    // The wake channel is named after the schema the tables live in: the notify triggers of the
    // read cache (migration 0707) name it from the table's schema.
    const channelSchema =
      schema ??
      (await pool
        .query<{ s: string }>('select current_schema() as s')
        .then((r) => r.rows[0]?.s ?? 'public')
        .catch(async (e: unknown) => {
          await pool.end();
          throw e;
        }));
    // The read cache confirms through the wake module's LISTEN connection, made just below.
    let confirm: (counted?: boolean) => Promise<boolean> = async () => false;
    const readCache = new PgReadCache(() => confirm());
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparedStatementPool(readCache.trackWrites(pool)) }), log });
    attachReadCache(kysely, readCache);
    const wake = postgresWake(kysely, opts.databaseUrl, channelSchema, {
      observer: readCache.observer,
      // A sync round trip is a statement, counted as one (tests pin statements per request).
      counted: (ms, sql) => stats.record(ms, false, sql),
      warn: opts.warn,
    });
    confirm = wake.confirm!;
    return {
      kysely,
      dialect: 'postgres',
      stats,
      schema,
      pool,
      wake,
      readCache,
      close: async () => {
        await wake.close();
        await kysely.destroy();
      },
    };
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const file = path.join(opts.dataDir, 'parley.sqlite');
  const database = new SQLite(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  // Several processes may share the file; wait for a writer instead of failing.
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = OFF');
  const checkpointer = startCheckpointer(database, file, opts.warn);
  const dialect = new ImmediateSqliteDialect({ database });
  const kysely = new Kysely<Database>({ dialect, log });
  attachDirectReads(kysely, database, stats);
  const wake = inProcessWake();
  return {
    kysely,
    dialect: 'sqlite',
    stats,
    wake,
    connectionWaitMs: () => dialect.driver?.oldestWaitMs() ?? 0,
    close: async () => {
      await wake.close();
      detachDirectReads(kysely);
      await kysely.destroy();
      await checkpointer.close();
    },
  };
}

/**
 * SQLite transactions begin IMMEDIATE. A deferred transaction that reads first and writes later
 * cannot wait for another process's writer: SQLite answers SQLITE_BUSY at once to the upgrade
 * (the busy timeout is not consulted, to avoid a deadlock), which surfaced as "database is
 * locked" 500s when a CLI command ran beside a server. Taking the write lock at BEGIN makes
 * the busy timeout apply, so writers in other processes queue instead of failing; it also makes
 * every transaction a per-database write lock, which the room-level invariants rely on.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  /**
   * Callers waiting for the one connection, served first come first served. Kysely's own lock
   * wakes every waiter at each release and all but one wait again: with n requests queued (a
   * burst of long-polls arriving, docs/benchmarks.md "Chat long-poll scale") that is n² promise
   * wake-ups, most of a request's garbage and CPU. Behind this queue Kysely's lock is always
   * free when asked.
   */
  private readonly queue: Array<() => void> = [];
  /** When each queued caller started waiting (performance.now()), in queue order. */
  private readonly queuedAt: number[] = [];
  private queueHead = 0;
  private held = false;

  override async acquireConnection(): Promise<DatabaseConnection> {
    if (this.held) {
      await new Promise<void>((resolve) => {
        this.queue.push(resolve);
        this.queuedAt.push(performance.now());
      });
    } else this.held = true;
    return super.acquireConnection();
  }

  /** How long the caller first in line has waited for the connection (ms; 0 when none waits). */
  oldestWaitMs(): number {
    return this.queueHead < this.queue.length ? performance.now() - this.queuedAt[this.queueHead] : 0;
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    if (this.queueHead < this.queue.length) {
      // Handed straight to the next caller (`held` stays true).
      const next = this.queue[this.queueHead];
      this.queue[this.queueHead++] = undefined as unknown as () => void;
      if (this.queueHead === this.queue.length) {
        this.queue.length = 0;
        this.queuedAt.length = 0;
        this.queueHead = 0;
      }
      next();
    } else {
      this.held = false;
    }
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly cfg: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(cfg);
  }

  /** The driver of the one connection, once Kysely has made it. */
  driver: ImmediateSqliteDriver | undefined;

  override createDriver(): Driver {
    this.driver = new ImmediateSqliteDriver(this.cfg);
    return this.driver;
  }
}

/** Drops a test schema on PostgreSQL (used by the test harness only). */
export async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

export { afterFreshReads, changeFeedOf, changeStamp, compiledRead } from '../cache/direct-reads.js';
