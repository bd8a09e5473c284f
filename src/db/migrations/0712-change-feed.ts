/**
 * The change feed on SQLite (cache/change-feed.ts): every write to a table that rendered answers
 * read appends the *topic* it changes to `change_feed`, in the writing transaction, so a
 * process can tell which conversations changed since an answer was rendered instead of only
 * that something, somewhere, was written. Triggers, as for the revisions (0711), so that no
 * writer can forget it: a service, the CLI, another process or an operator's SQL.
 *
 * Topics:
 * - `r:<room id>`: the room's row, its attendees, sessions, messages (reactions are messages),
 *   polls and votes, recording consents, avatar, and the cookie sessions naming its token.
 * - `m:<actor type>:<actor id>`: an attendee row of that actor was added or removed (the set
 *   of the actor's conversations changed).
 * - `u:<user id>`: the user's status or preferences.
 * - `g`: everything any answer may read and no finer topic names: accounts (but for their
 *   last login and password hash, which no answer shows), groups, teams, the configuration,
 *   phone numbers, user avatars. These change rarely.
 * - `k:<table>:<key>` and `k:brute_force_attempts`: the rows behind the reads every request
 *   makes (direct-reads.ts `compiledRead`, keyed as the PostgreSQL read cache is, 0707): an
 *   account's row (any column), an app password by its hash, any brute-force attempt.
 *
 * Tables nothing cached reads (jobs, mail, login flows, notifications, signaling messages,
 * the cookie sessions' own row) append nothing.
 *
 * SQLite assigns `seq` as max + 1 and has one writer at a time, so the feed's order is the
 * order of commits and a reader that has applied every row up to N has seen every commit that
 * wrote one. The feed keeps the last 65,536 rows (pruned every 4,096 by a trigger); a reader
 * that fell further behind starts over (change-feed.ts).
 *
 * PostgreSQL has no table: the same triggers notify `feed:<topic>` on the schema's wake channel
 * (as 0707 notifies the read cache), delivered at commit, in commit order, never for a
 * rollback; the `k:` topics are not needed there (the read cache is notified by key). TRUNCATE
 * notifies `g`.
 */
import { sql, type Kysely } from 'kysely';
import type { ParleyMigration } from './helpers.js';
import { FEED_BY_ROOM as BY_ROOM, FEED_BY_USER as BY_USER, FEED_GLOBAL as GLOBAL } from '../../cache/topics.js';

/** The three tables whose updates bump `rev` by a second UPDATE on SQLite (0711): only the first one is fed. */
const REV_TABLES = new Set(['rooms', 'attendees', 'chat_messages']);

/** Tables whose rows name their room through another row: the SELECT yields the topic (none when that row is gone). */
const THROUGH: Array<[table: string, select: (row: 'NEW' | 'OLD') => string]> = [
  ['sessions', (r) => `SELECT 'r:' || room_id FROM attendees WHERE id = ${r}.attendee_id`],
  ['poll_votes', (r) => `SELECT 'r:' || room_id FROM polls WHERE id = ${r}.poll_id`],
  ['client_room_sessions', (r) => `SELECT 'r:' || id FROM rooms WHERE token = ${r}.token`],
];

/**
 * The UPDATE feed of a table whose updates bump `rev` (its WHEN reads `rev`): a test that drops
 * and re-adds `rev` drops this trigger first and makes it again with this.
 */
export async function createRevTableUpdateFeed(db: Kysely<any>, table: 'rooms' | 'attendees' | 'chat_messages'): Promise<void> {
  const column = BY_ROOM.find(([t]) => t === table)![1];
  await sql
    .raw(
      `CREATE TRIGGER ${table}_feed_update AFTER UPDATE ON ${table} FOR EACH ROW WHEN NEW.rev = OLD.rev BEGIN INSERT INTO change_feed (topic) VALUES ('r:' || NEW.${column}); END`,
    )
    .execute(db);
}

const EVENTS = [
  ['INSERT', 'NEW'],
  ['UPDATE', 'NEW'],
  ['DELETE', 'OLD'],
] as const;

/** Accounts' columns that answers show (a change of another one, a login or a password, is not `g`). */
const SHOWN_USER_COLUMNS = ['id', 'display_name', 'email', 'enabled', 'created_at'];

/**
 * PostgreSQL: one trigger function per kind of table, each reading its columns directly (a
 * generic function turning rows into JSON cost a chat send a third more database CPU). `R` is
 * the row version (OLD, then NEW on an update: the same topic twice is one notification).
 */
const PG_KINDS: Record<string, (row: 'OLD' | 'NEW') => string> = {
  rooms: (r) => `PERFORM pg_notify(channel, 'feed:r:' || ${r}.id);`,
  room_id: (r) => `PERFORM pg_notify(channel, 'feed:r:' || ${r}.room_id);`,
  attendees: (r) => `PERFORM pg_notify(channel, 'feed:r:' || ${r}.room_id);
    IF TG_OP <> 'UPDATE' THEN PERFORM pg_notify(channel, 'feed:m:' || ${r}.actor_type || ':' || ${r}.actor_id); END IF;`,
  sessions: (r) => `PERFORM pg_notify(channel, 'feed:r:' || a.room_id) FROM attendees a WHERE a.id = ${r}.attendee_id;`,
  poll_votes: (r) => `PERFORM pg_notify(channel, 'feed:r:' || p.room_id) FROM polls p WHERE p.id = ${r}.poll_id;`,
  client_room_sessions: (r) => `PERFORM pg_notify(channel, 'feed:r:' || x.id) FROM rooms x WHERE x.token = ${r}.token;`,
  user: (r) => `PERFORM pg_notify(channel, 'feed:u:' || ${r}.user_id);`,
  global: () => `PERFORM pg_notify(channel, 'feed:g');`,
};

/**
 * PostgreSQL: the trigger function `parley_feed_<kind>()`, running `body` for the old and the new
 * row version; a TRUNCATE notifies `statementTopic`. `body` may use `channel`: the wake channel as
 * wake.ts names it (as migration 0707 computes it). Also used by later migrations (0713).
 */
export async function createPgFeedFunction(db: Kysely<any>, kind: string, body: (row: 'OLD' | 'NEW') => string, statementTopic = 'g'): Promise<void> {
  await sql
    .raw(
      `CREATE OR REPLACE FUNCTION parley_feed_${kind}() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
          channel text := left('parley_wake_' || regexp_replace(TG_TABLE_SCHEMA, '[^a-zA-Z0-9_]', '_', 'g'), 63);
        BEGIN
          IF TG_LEVEL = 'STATEMENT' THEN
            PERFORM pg_notify(channel, 'feed:${statementTopic}');
            RETURN NULL;
          END IF;
          IF TG_OP <> 'INSERT' THEN ${body('OLD')} END IF;
          IF TG_OP <> 'DELETE' THEN ${body('NEW')} END IF;
          RETURN NULL;
        END
        $$`,
    )
    .execute(db);
}

/** PostgreSQL: the row and TRUNCATE triggers calling `parley_feed_<kind>()` on `table`. */
export async function createPgFeedTriggers(db: Kysely<any>, table: string, kind: string): Promise<void> {
  await sql.raw(`CREATE TRIGGER parley_feed AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION parley_feed_${kind}()`).execute(db);
  await sql.raw(`CREATE TRIGGER parley_feed_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION parley_feed_${kind}()`).execute(db);
}

async function postgresFeed(db: Kysely<any>): Promise<void> {
  for (const [kind, body] of Object.entries(PG_KINDS)) await createPgFeedFunction(db, kind, body);
  const kinds: Array<[table: string, kind: string]> = [
    ...BY_ROOM.map(([table]): [string, string] => [table, table === 'rooms' || table === 'attendees' ? table : 'room_id']),
    ...THROUGH.map(([table]): [string, string] => [table, table]),
    ...BY_USER.map((t): [string, string] => [t, 'user']),
    ...GLOBAL.map((t): [string, string] => [t, 'global']),
  ];
  for (const [table, kind] of kinds) await createPgFeedTriggers(db, table, kind);
  const shownChanged = SHOWN_USER_COLUMNS.map((c) => `OLD.${c} IS DISTINCT FROM NEW.${c}`).join(' OR ');
  await sql.raw(`CREATE TRIGGER parley_feed AFTER INSERT OR DELETE ON users FOR EACH ROW EXECUTE FUNCTION parley_feed_global()`).execute(db);
  await sql
    .raw(`CREATE TRIGGER parley_feed_update AFTER UPDATE ON users FOR EACH ROW WHEN (${shownChanged}) EXECUTE FUNCTION parley_feed_global()`)
    .execute(db);
  await sql.raw(`CREATE TRIGGER parley_feed_truncate AFTER TRUNCATE ON users FOR EACH STATEMENT EXECUTE FUNCTION parley_feed_global()`).execute(db);
}

export const changeFeed: ParleyMigration = {
  name: '0712-change-feed',
  async up({ db, dialect }) {
    if (dialect === 'postgres') return postgresFeed(db);
    await sql`CREATE TABLE change_feed (seq INTEGER PRIMARY KEY, topic TEXT NOT NULL)`.execute(db);
    await sql`CREATE TRIGGER change_feed_prune AFTER INSERT ON change_feed WHEN NEW.seq % 4096 = 0
      BEGIN DELETE FROM change_feed WHERE seq <= NEW.seq - 65536; END`.execute(db);

    const trigger = async (table: string, event: string, body: string, when = '', name = `${table}_feed_${event.toLowerCase()}`) => {
      await sql.raw(`CREATE TRIGGER ${name} AFTER ${event} ON ${table} FOR EACH ROW ${when} BEGIN ${body} END`).execute(db);
    };
    const feed = (topic: string) => `INSERT INTO change_feed (topic) VALUES (${topic});`;

    for (const [table, column] of BY_ROOM) {
      for (const [event, row] of EVENTS) {
        if (event === 'UPDATE' && REV_TABLES.has(table)) {
          await createRevTableUpdateFeed(db, table as 'rooms' | 'attendees' | 'chat_messages');
          continue;
        }
        let body = feed(`'r:' || ${row}.${column}`);
        // Added or removed: the actor's set of conversations changed too.
        if (table === 'attendees' && event !== 'UPDATE') body += feed(`'m:' || ${row}.actor_type || ':' || ${row}.actor_id`);
        await trigger(table, event, body);
      }
    }
    for (const [table, select] of THROUGH) {
      for (const [event, row] of EVENTS) {
        let body = `INSERT INTO change_feed (topic) ${select(row)};`;
        // A row moved to another room (a cookie naming another token): both rooms changed.
        if (event === 'UPDATE') body += `INSERT INTO change_feed (topic) ${select('OLD')};`;
        await trigger(table, event, body);
      }
    }
    for (const table of BY_USER) {
      for (const [event, row] of EVENTS) await trigger(table, event, feed(`'u:' || ${row}.user_id`));
    }
    for (const table of GLOBAL) {
      for (const [event] of EVENTS) await trigger(table, event, feed(`'g'`));
    }
    // The reads of every request: an account, an app password, the brute-force attempts.
    for (const [event, row] of EVENTS) {
      await trigger('users', event, feed(`'k:users:' || ${row}.id`), '', `users_feed_account_${event.toLowerCase()}`);
      // A rotation changes the key: both the old and the new one.
      const rotated = event === 'UPDATE' ? feed(`'k:app_passwords:' || OLD.token_hash`) : '';
      await trigger('app_passwords', event, feed(`'k:app_passwords:' || ${row}.token_hash`) + rotated);
      await trigger('brute_force_attempts', event, feed(`'k:brute_force_attempts'`));
    }
    // Accounts: names and the enabled flag are shown everywhere; logins and password changes are not.
    await trigger('users', 'INSERT', feed(`'g'`));
    await trigger('users', 'DELETE', feed(`'g'`));
    await trigger('users', 'UPDATE', feed(`'g'`), `WHEN ${SHOWN_USER_COLUMNS.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(' OR ')}`);
  },
};
