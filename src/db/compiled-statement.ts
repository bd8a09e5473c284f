/**
 * Hot statements built and compiled once. Kysely builds a frozen operation tree for every query
 * and compiles it to SQL on every execution; for the few statements every chat post or room
 * request runs, that was a larger share of the server's CPU than SQLite running them (a chat
 * post's CPU profile: builder and compiler about a tenth, the driver's own work less).
 *
 * A statement is written once as an ordinary Kysely query whose variable values are named
 * placeholders (`p('id')`); it is compiled on first use per database (dialect) and then run
 * with the values of each call put in the placeholders' places. The SQL text is the same on
 * every run, so SQLite's statement cache (direct-reads.ts) and PostgreSQL's named prepared
 * statements (pg-prepared.ts) see one text as before. It runs on whatever it is given: the
 * database, or a transaction.
 */
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './schema.js';

/** A placeholder: stands for the call's value of `name` in the compiled parameters. */
class Slot {
  constructor(readonly name: string) {}
}

export type Placeholder = <T = never>(name: string) => T;

const placeholder: Placeholder = <T>(name: string) => new Slot(name) as unknown as T;

export interface CompiledStatement<R, A extends Record<string, unknown>> {
  /** Runs the statement on `db` (the database or a transaction) with `args` in its placeholders. */
  (db: Kysely<Database>, args: A): Promise<R[]>;
}

/**
 * Declares a statement compiled once per database. `build` writes it with `p(name)` for each
 * value that varies (`where('id', '=', p('id'))`); constants written in it stay constants.
 */
export function compiledStatement<R, A extends Record<string, unknown>>(
  build: (db: Kysely<Database>, p: Placeholder) => Compilable<R>,
): CompiledStatement<R, A> {
  // Per database (its adapter), since SQLite and PostgreSQL compile to different texts and one
  // process (the test suites) may hold both.
  const byAdapter = new WeakMap<object, { compiled: CompiledQuery<R>; slots: Array<string | undefined> }>();
  return async (db, args) => {
    const adapter = db.getExecutor().adapter;
    let entry = byAdapter.get(adapter);
    if (entry === undefined) {
      const compiled = build(db, placeholder).compile();
      entry = { compiled, slots: compiled.parameters.map((v) => (v instanceof Slot ? v.name : undefined)) };
      byAdapter.set(adapter, entry);
    }
    const { compiled, slots } = entry;
    const parameters = slots.map((name, i) => (name === undefined ? compiled.parameters[i] : args[name]));
    return (await db.executeQuery<R>({ ...compiled, parameters })).rows;
  };
}
