/**
 * Splitting long lists for SQL: an `IN (...)` list or a multi-row VALUES becomes one bound
 * parameter per item, and SQLite (32,766) and PostgreSQL (65,535) cap parameters per statement.
 */

/** Items per `IN (...)` list. */
export const IN_LIST_CHUNK = 5000;

/** Splits `list` into pieces of at most `size` items. */
export function chunks<T>(list: readonly T[], size = IN_LIST_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** Rows per multi-row INSERT so that rows × columns stays well under SQLite's parameter cap. */
export function rowsPerInsert(columns: number): number {
  return Math.max(1, Math.floor(30_000 / Math.max(1, columns)));
}
