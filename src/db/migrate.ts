/**
 * Runs pending migrations. A small runner of our own rather than Kysely's Migrator: the Migrator
 * checks for its tables by introspecting every table of every schema in the database, which
 * fails when another schema is dropped at the same moment (concurrent PostgreSQL test suites,
 * each in its own schema). This runner only touches its own table, in the connection's schema.
 *
 * Concurrency: on PostgreSQL the whole run holds a transaction-scoped advisory lock, on SQLite an
 * immediate (write) transaction, so processes starting together apply each migration once.
 * The bookkeeping table keeps Kysely's layout (`name`, `timestamp`), so databases created by
 * earlier versions continue where they were.
 */
import { sql, type Kysely } from 'kysely';
import type { Db } from './database.js';
import { migrations } from './migrations/index.js';

const TABLE = 'parley_migrations';
/** Arbitrary constant: the advisory lock key for "parley migrations" (per database). */
const PG_LOCK_KEY = 704_211_913;

export interface MigrateResult {
  applied: string[];
}

async function applyPending(trx: Kysely<any>, db: Db): Promise<string[]> {
  await trx.schema
    .createTable(TABLE)
    .ifNotExists()
    .addColumn('name', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('timestamp', 'varchar(255)', (c) => c.notNull())
    .execute();
  const done = new Set((await trx.selectFrom(TABLE).select('name').execute()).map((r: { name: string }) => r.name));
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.name)) continue;
    try {
      await m.up({ db: trx, dialect: db.dialect });
    } catch (e) {
      throw new Error(`migration ${m.name} failed: ${(e as Error)?.message ?? e}`);
    }
    await trx.insertInto(TABLE).values({ name: m.name, timestamp: new Date().toISOString() }).execute();
    applied.push(m.name);
  }
  return applied;
}

export async function migrateToLatest(db: Db): Promise<MigrateResult> {
  const kysely = db.kysely as unknown as Kysely<any>;
  if (db.dialect === 'postgres') {
    const applied = await kysely.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${PG_LOCK_KEY}, hashtext(current_schema()))`.execute(trx);
      return applyPending(trx, db);
    });
    return { applied };
  }
  // SQLite: one connection per process; BEGIN IMMEDIATE takes the write lock up front so two
  // processes never interleave (the other waits for busy_timeout).
  await sql`BEGIN IMMEDIATE`.execute(kysely);
  try {
    const applied = await applyPending(kysely, db);
    await sql`COMMIT`.execute(kysely);
    return { applied };
  } catch (e) {
    await sql`ROLLBACK`.execute(kysely).catch(() => undefined);
    throw e;
  }
}
