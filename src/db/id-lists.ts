/**
 * SQL over a list of row ids, written once for every repository that needs it.
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
