/**
 * Result rows of SQLite statements built as fixed-shape objects. better-sqlite3 builds each row
 * object property by property in native code, which for a 200-row `select *` of conversations
 * cost more than running the statement (1.0 ms as objects, 0.39 ms as arrays, measured on the
 * bench database). Reading rows as arrays and turning each into an object literal compiled once
 * per statement from its column names gives the same objects (same keys, same order, a later
 * duplicate name wins as it does natively) for a fraction of the cost, and every row of a
 * statement shares one hidden class.
 */
import type SQLite from 'better-sqlite3';

/** Data statements only: PRAGMA statements are also run with pluck() (Database.pragma), which raw mode would undo. */
const DATA_STATEMENT = /^\s*(select|with|insert|update|delete)\b/i;

type RowBuilder = (values: unknown[]) => Record<string, unknown>;

/** The builder of `stmt`'s rows, or undefined when its column names cannot be used as literal keys. */
function rowBuilder(stmt: SQLite.Statement): RowBuilder | undefined {
  const names = stmt.columns().map((c) => c.name);
  if (names.includes('__proto__')) return undefined; // a literal key would set the prototype
  const fields = names.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ');
  return new Function('v', `return { ${fields} };`) as RowBuilder;
}

/**
 * Makes `stmt.all()` (what Kysely's SQLite driver calls for a statement returning rows) read
 * arrays and build the objects as above. Other methods (`get`, `iterate`, pluck/raw users) are
 * unchanged: raw mode is on only for the duration of that call.
 */
export function withFastRows(stmt: SQLite.Statement): SQLite.Statement {
  if (!stmt.reader || !DATA_STATEMENT.test(stmt.source)) return stmt;
  const build = rowBuilder(stmt);
  if (build === undefined) return stmt;
  const all = stmt.all.bind(stmt) as (...params: unknown[]) => unknown[];
  stmt.all = ((...params: unknown[]) => {
    stmt.raw(true);
    let rows: unknown[];
    try {
      rows = all(...params);
    } finally {
      stmt.raw(false);
    }
    for (let i = 0; i < rows.length; i++) rows[i] = build(rows[i] as unknown[]);
    return rows;
  }) as SQLite.Statement['all'];
  return stmt;
}
