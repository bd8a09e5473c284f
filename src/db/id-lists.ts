/**
 * SQL over row ids (a membership test, a value per id), written once for every repository that needs it.
 */
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from './database.js';

/**
 * `column IN ids`. On PostgreSQL as `column = any($1)` with one array parameter, so the text is
 * the same for any number of ids and is sent as a named prepared statement (pg-prepared.ts); an
 * IN-list has one parameter per id, a new text per count, parsed and planned every time. On
 * SQLite the IN-list (it has no array parameter).
 */
export function idIn(dialect: Dialect, column: string, ids: readonly number[]): RawBuilder<SqlBool> {
  return dialect === 'postgres' ? sql<SqlBool>`${sql.ref(column)} = any(${ids})` : sql<SqlBool>`${sql.ref(column)} in (${sql.join(ids)})`;
}

/**
 * `case id when <id> then <value> ... else <otherwise> end`: a different value per row in one
 * UPDATE (row id → value). Without `otherwise` a row not in `values` gets null, so the
 * statement must only touch those rows.
 */
export function caseById<T>(values: ReadonlyMap<number, T>, otherwise?: RawBuilder<T>): RawBuilder<T> {
  const cases = sql.join(
    [...values].map(([id, value]) => sql`when ${id} then ${value}`),
    sql` `,
  );
  return otherwise === undefined ? sql<T>`case id ${cases} end` : sql<T>`case id ${cases} else ${otherwise} end`;
}
