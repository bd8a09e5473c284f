/** Runs pending migrations with Kysely's Migrator (locking makes concurrent starts safe). */
import { Migrator, type Migration, type MigrationProvider } from 'kysely';
import type { Db } from './database.js';
import { migrations } from './migrations/index.js';

class ListProvider implements MigrationProvider {
  constructor(private readonly db: Db) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const m of migrations) {
      out[m.name] = { up: (kysely) => m.up({ db: kysely, dialect: this.db.dialect }) };
    }
    return out;
  }
}

export interface MigrateResult {
  applied: string[];
}

export async function migrateToLatest(db: Db): Promise<MigrateResult> {
  const migrator = new Migrator({
    db: db.kysely,
    provider: new ListProvider(db),
    migrationTableName: 'parley_migrations',
    migrationLockTableName: 'parley_migrations_lock',
    allowUnorderedMigrations: true,
    // Kysely looks for its tables in every schema unless told which one: with several schemas in
    // one database (concurrent PostgreSQL tests), it would see another schema's lock table.
    ...(db.schema ? { migrationTableSchema: db.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`);
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
