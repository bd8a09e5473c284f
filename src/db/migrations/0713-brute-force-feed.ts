/**
 * PostgreSQL only: a write to `brute_force_attempts` notifies the change-feed topic
 * `k:brute_force_attempts` (db/change-feed.ts), as SQLite's feed row does since 0712. The cap
 * check every authenticated request makes (repositories/brute-force.ts `atCap`) is then kept
 * per process until an attempt is recorded or removed, instead of costing a round trip per
 * request: in the mixed-load bench it was about one statement in eight that PostgreSQL served.
 * Attempts are written only where a credential is verified anew (and by the housekeeping that
 * removes old ones), so the topic changes rarely. PostgreSQL sends one notification per
 * transaction for the same payload, so a housekeeping delete of many rows is one.
 */
import { sql } from 'kysely';
import type { ParleyMigration } from './helpers.js';

/** The tables this migration feeds, besides 0712's (pg-read-cache.ts syncs a process's own writes to them). */
export const BRUTE_FORCE_FED_TABLES: readonly string[] = ['brute_force_attempts'];

export const bruteForceFeed: ParleyMigration = {
  name: '0713-brute-force-feed',
  async up({ db, dialect }) {
    if (dialect !== 'postgres') return;
    // The channel as wake.ts names it (as migrations 0707 and 0712 compute it).
    await sql`
      CREATE OR REPLACE FUNCTION parley_feed_brute_force() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify(left('parley_wake_' || regexp_replace(TG_TABLE_SCHEMA, '[^a-zA-Z0-9_]', '_', 'g'), 63), 'feed:k:brute_force_attempts');
        RETURN NULL;
      END
      $$`.execute(db);
    await sql`CREATE TRIGGER parley_feed AFTER INSERT OR UPDATE OR DELETE ON brute_force_attempts FOR EACH ROW EXECUTE FUNCTION parley_feed_brute_force()`.execute(
      db,
    );
    await sql`CREATE TRIGGER parley_feed_truncate AFTER TRUNCATE ON brute_force_attempts FOR EACH STATEMENT EXECUTE FUNCTION parley_feed_brute_force()`.execute(
      db,
    );
  },
};
