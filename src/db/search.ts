/**
 * Case-insensitive substring search and paging shared by the directory and conversation lists.
 * The term's `%`, `_` and `\` match themselves (escaped), so a search for "_" finds ids with an
 * underscore rather than every id.
 */
import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';

/** `lower(col) LIKE '%term%'` on any of `columns` (ESCAPE '\'); `term` non-empty. */
export function anyColumnContains(columns: string[], term: string): RawBuilder<boolean> {
  const like = `%${term.toLowerCase().replace(/[\\%_]/g, (c) => '\\' + c)}%`;
  return sql<boolean>`(${sql.join(
    columns.map((c) => sql`lower(${sql.ref(c)}) like ${like} escape '\\'`),
    sql` or `,
  )})`;
}

/** Applies limit/offset (an offset without a limit needs one on SQLite). */
export function page<DB, TB extends keyof DB, O>(q: SelectQueryBuilder<DB, TB, O>, limit: number | undefined, offset: number): SelectQueryBuilder<DB, TB, O> {
  if (limit !== undefined) q = q.limit(limit);
  if (offset) q = q.offset(offset).$if(limit === undefined, (qq) => qq.limit(1_000_000));
  return q;
}
