/**
 * Named prepared statements on PostgreSQL. Kysely's driver sends every statement unnamed, so the
 * server parses and plans the same SQL text on every request. Here a statement's text gets one
 * name, shared by every connection; pg parses it once per connection under that name and then
 * sends only the name and the parameters (Bind/Execute), the equivalent of better-sqlite3's
 * statement cache on SQLite (direct-reads.ts).
 *
 * Bounds: only data statements (select, insert, update, delete, with) with at most MAX_PARAMS
 * parameters are named, and at most MAX_NAMED distinct texts: past that, a new text runs unnamed
 * as before, so no connection holds more than MAX_NAMED statements. Statements with long
 * parameter lists (the batch loads' IN-lists) stay unnamed: after five runs PostgreSQL may switch
 * a named statement to a generic plan, which made GET /room's batch loads slower (measured: the
 * request took twice as long), while an unnamed statement is always planned for its values.
 * A statement with many values but only key lookups is named anyway when its module asks for
 * it (`alwaysNamed`).
 */
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

const MAX_NAMED = 1000;
const MAX_PARAMS = 8;
const DATA_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

/** Statement names by SQL text (process-wide: the same text has the same name on every connection). */
const names = new Map<string, string>();

/** Texts named whatever their number of parameters (`alwaysNamed`). */
const namedAnyway = new Set<string>();

/**
 * Names `text` whatever its number of parameters: for a statement with many values but no
 * list whose length varies, whose every lookup is by a key, so that a generic plan is the plan
 * its values would get anyway (a chat post on PostgreSQL: 32 values, one row each). Returns the
 * text.
 */
export function alwaysNamed(text: string): string {
  namedAnyway.add(text);
  return text;
}

function nameOf(text: string): string | undefined {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED && DATA_STATEMENT.test(text)) {
    name = `parley_${names.size}`;
    names.set(text, name);
  }
  return name;
}

const wrapped = new WeakSet<PostgresPoolClient>();

/** Makes a pooled client send data statements as named prepared statements (once per client). */
function prepareStatements(client: PostgresPoolClient): PostgresPoolClient {
  if (wrapped.has(client)) return client;
  wrapped.add(client);
  const query = client.query.bind(client) as (config: unknown, values?: unknown) => Promise<unknown>;
  client.query = ((config: unknown, values?: unknown[]) => {
    if (typeof config === 'string' && ((values?.length ?? 0) <= MAX_PARAMS || namedAnyway.has(config))) {
      const name = nameOf(config);
      if (name !== undefined) return query({ name, text: config, values });
    }
    return query(config, values);
  }) as PostgresPoolClient['query'];
  return client;
}

/** The pool Kysely is given: the same connections, each sending named statements. */
export function preparedStatementPool(pool: Pick<pg.Pool, 'connect' | 'end'>): PostgresPool {
  return {
    connect: async () => prepareStatements((await pool.connect()) as unknown as PostgresPoolClient),
    end: () => pool.end(),
  };
}
