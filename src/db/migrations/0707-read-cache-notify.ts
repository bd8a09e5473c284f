/**
 * PostgreSQL only: every write to a table whose reads are cached per process notifies the
 * processes (pg-read-cache.ts). A row trigger sends `cache:<table>:<key>` on the wake channel of
 * the table's schema (the name wake.ts listens on), inside the writing transaction, so the
 * notification is delivered at commit, never for a rollback, and whatever wrote the row (any
 * Parley process, the CLI, an operator's psql). An update that changes the key notifies both
 * keys; TRUNCATE notifies `*` (the whole table). SQLite needs none of this: its cache is checked
 * against the database's change stamp (direct-reads.ts).
 *
 * The list is frozen here (a migration never changes): the key column is the one parameter of
 * the table's cached reads.
 */
import { sql } from 'kysely';
import type { ParleyMigration } from './helpers.js';

const TABLES: Array<[table: string, key: string]> = [
  ['users', 'id'],
  ['user_preferences', 'user_id'],
  ['user_status', 'user_id'],
  ['app_passwords', 'token_hash'],
  ['cache_state', 'id'],
];

export const readCacheNotify: ParleyMigration = {
  name: '0707-read-cache-notify',
  async up({ db, dialect }) {
    if (dialect !== 'postgres') return;
    // The channel as wake.ts names it: parley_wake_ + the schema with other characters as _.
    await sql`
      CREATE OR REPLACE FUNCTION parley_cache_notify() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        channel text := left('parley_wake_' || regexp_replace(TG_TABLE_SCHEMA, '[^a-zA-Z0-9_]', '_', 'g'), 63);
        prefix text := 'cache:' || TG_TABLE_NAME || ':';
        old_key text;
        new_key text;
      BEGIN
        IF TG_LEVEL = 'STATEMENT' THEN
          PERFORM pg_notify(channel, prefix || '*');
          RETURN NULL;
        END IF;
        IF TG_OP <> 'INSERT' THEN
          old_key := to_jsonb(OLD) ->> TG_ARGV[0];
          PERFORM pg_notify(channel, prefix || old_key);
        END IF;
        IF TG_OP <> 'DELETE' THEN
          new_key := to_jsonb(NEW) ->> TG_ARGV[0];
          IF old_key IS DISTINCT FROM new_key THEN
            PERFORM pg_notify(channel, prefix || new_key);
          END IF;
        END IF;
        RETURN NULL;
      END
      $$`.execute(db);
    for (const [table, key] of TABLES) {
      await sql`CREATE TRIGGER parley_cache_notify AFTER INSERT OR UPDATE OR DELETE ON ${sql.table(table)} FOR EACH ROW EXECUTE FUNCTION parley_cache_notify(${sql.lit(key)})`.execute(
        db,
      );
      await sql`CREATE TRIGGER parley_cache_notify_truncate AFTER TRUNCATE ON ${sql.table(table)} FOR EACH STATEMENT EXECUTE FUNCTION parley_cache_notify()`.execute(
        db,
      );
    }
  },
};
