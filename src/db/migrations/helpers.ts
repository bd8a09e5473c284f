/** Small helpers so that one migration text serves SQLite and PostgreSQL. */
import type { CreateTableBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database.js';

export interface MigrationContext {
  db: Kysely<any>;
  dialect: Dialect;
}

export interface ParleyMigration {
  /** Sortable, unique name: NNNN-area-what. */
  name: string;
  up(ctx: MigrationContext): Promise<void>;
}

/** Adds an auto-incrementing integer primary key named `id`. */
export function withSerialId<T extends string>(builder: CreateTableBuilder<T, never>, dialect: Dialect): CreateTableBuilder<T, 'id'> {
  if (dialect === 'postgres') {
    return builder.addColumn('id', 'bigserial', (c) => c.primaryKey());
  }
  return builder.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
}
