/**
 * The test servers of this process by database schema, so that a CLI command run against one
 * (helpers/cli.ts) returns only once that server can see what the command wrote. On PostgreSQL a
 * server's read cache and change feed hear another process's commits by notification
 * (cache/pg-read-cache.ts), a moment after the command has finished; a test that reads through the
 * API right after the command would otherwise race that moment. On SQLite the next request reads
 * the change stamp and needs nothing.
 */
import type { Db } from '../../src/db/database.js';

const servers = new Map<string, NonNullable<Db['readCache']>>();

export function registerServer(schema: string | undefined, db: Db): () => void {
  if (schema === undefined || db.readCache === undefined) return () => undefined;
  servers.set(schema, db.readCache);
  return () => servers.delete(schema);
}

/** After a command ran with `env`: waits until the server on its schema has heard its commits. */
export async function serverCaughtUp(env: Record<string, string | undefined>): Promise<void> {
  await (env.DATABASE_SCHEMA === undefined ? undefined : servers.get(env.DATABASE_SCHEMA))?.catchUp();
}
