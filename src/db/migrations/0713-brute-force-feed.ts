/**
 * PostgreSQL only: a write to `brute_force_attempts` notifies the change-feed topic
 * `k:brute_force_attempts` (cache/change-feed.ts), as SQLite's feed row does since 0712. The cap
 * check every authenticated request makes (repositories/brute-force.ts `atCap`) is then kept
 * per process until an attempt is recorded or removed, instead of costing a round trip per
 * request: in the mixed-load bench it was about one statement in eight that PostgreSQL served.
 * Attempts are written only where a credential is verified anew (and by the housekeeping that
 * removes old ones), so the topic changes rarely. PostgreSQL sends one notification per
 * transaction for the same payload, so a housekeeping delete of many rows is one.
 */
import type { ParleyMigration } from './helpers.js';
import { createPgFeedFunction, createPgFeedTriggers } from './0712-change-feed.js';
import { BRUTE_FORCE_FED_TABLES, BRUTE_FORCE_TOPIC as TOPIC } from '../../cache/topics.js';

export const bruteForceFeed: ParleyMigration = {
  name: '0713-brute-force-feed',
  async up({ db, dialect }) {
    if (dialect !== 'postgres') return;
    // 0712's trigger function and triggers; a TRUNCATE names the same topic as a row.
    await createPgFeedFunction(db, 'brute_force', () => `PERFORM pg_notify(channel, 'feed:${TOPIC}');`, TOPIC);
    for (const table of BRUTE_FORCE_FED_TABLES) await createPgFeedTriggers(db, table, 'brute_force');
  },
};
