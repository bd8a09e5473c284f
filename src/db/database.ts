/**
 * Opens the database: SQLite (better-sqlite3, WAL) by default, PostgreSQL when a
 * postgres:// URL is given. One Kysely instance serves both; repositories never
 * know which dialect they run on except through `dialect` where SQL differs.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Compilable } from 'kysely';
import type { LogEvent } from 'kysely';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface DbStats {
  /** Every SQL statement sent, counted so tests can assert queries per request. */
  queries: number;
  /** Told each statement's duration from Kysely's log event (the /metrics query timings). */
  queryListeners: Array<(ms: number, failed: boolean) => void>;
}

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  stats: DbStats;
  /** The PostgreSQL schema in use, when one was given. */
  schema?: string;
  /** The PostgreSQL connection pool (its counts feed /metrics). */
  pool?: { totalCount: number; idleCount: number; waitingCount: number };
  close(): Promise<void>;
}

export interface DbOptions {
  databaseUrl?: string;
  dataDir: string;
  /** PostgreSQL schema to create and use (tests run one schema each). */
  schema?: string;
}

// int8 (bigint) columns and COUNT(*) arrive as strings from pg; every value we store fits a JS number.
pg.types.setTypeParser(20, (v) => Number(v));

export async function openDatabase(opts: DbOptions): Promise<Db> {
  const stats: DbStats = { queries: 0, queryListeners: [] };
  const log = (event: LogEvent) => {
    stats.queries++;
    for (const fn of stats.queryListeners) fn(event.queryDurationMillis, event.level === 'error');
  };
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
      ...(schema ? { options: `-c search_path="${schema}"` } : {}),
    });
    const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
    return { kysely, dialect: 'postgres', stats, schema, pool, close: () => kysely.destroy() };
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const file = path.join(opts.dataDir, 'parley.sqlite');
  const database = new SQLite(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  // Several processes may share the file; wait for a writer instead of failing.
  database.pragma('busy_timeout = 5000');
  database.pragma('foreign_keys = OFF');
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(database) }), log });
  directReaders.set(kysely, { database, stats });
  return { kysely, dialect: 'sqlite', stats, close: () => kysely.destroy() };
}

/** SQLite connections that hot reads may use directly (see compiledRead). */
const directReaders = new WeakMap<Kysely<Database>, { database: SQLite.Database; stats: DbStats }>();

/**
 * A hot read, compiled once from a Kysely template; each call passes the parameters in the
 * template's order (`find(id)` → `[id]`). On SQLite, while no transaction is open on the
 * connection, it runs synchronously on a cached prepared statement, skipping Kysely's query
 * building, async driver and connection lock, which are most of a small query's cost under
 * load (better-sqlite3 is synchronous, so the read cannot interleave with another statement;
 * an open transaction spans awaits, so then the read waits its turn through Kysely and never
 * sees uncommitted rows). On PostgreSQL it is an ordinary Kysely query. Meant for the reads
 * every request makes (credential check, config generation, preferences). Counted in db.stats.
 */
export function compiledRead<R>(db: Kysely<Database>, template: Compilable<R>): (parameters: readonly unknown[]) => Promise<R[]> {
  const compiled = template.compile();
  if (compiled.parameters.length === 0) throw new Error('compiledRead: the template needs its parameters');
  return async (parameters) => {
    if (parameters.length !== compiled.parameters.length) throw new Error('compiledRead: wrong number of parameters');
    const direct = directReaders.get(db);
    if (direct && !direct.database.inTransaction) {
      const { stats } = direct;
      stats.queries++;
      if (stats.queryListeners.length === 0) return direct.database.prepare(compiled.sql).all(parameters as unknown[]) as R[];
      const started = performance.now();
      const rows = direct.database.prepare(compiled.sql).all(parameters as unknown[]) as R[];
      for (const fn of stats.queryListeners) fn(performance.now() - started, false);
      return rows;
    }
    return (await db.executeQuery<R>({ ...compiled, parameters })).rows;
  };
}

const STATEMENT_CACHE_SIZE = 1000;

/**
 * Kysely's SQLite driver prepares every statement anew, which is most of the cost of a small
 * query. Statements are reused by SQL text instead (one connection runs one statement at a
 * time, so a cached statement is never busy when it is handed out again).
 */
function withStatementCache(database: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = database.prepare.bind(database);
  database.prepare = ((source: string) => {
    let stmt = cache.get(source);
    if (stmt === undefined) {
      stmt = prepare(source);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
      cache.set(source, stmt);
    }
    return stmt;
  }) as SQLite.Database['prepare'];
  return database;
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

export { sql };
