/**
 * The change feed on SQLite (db/change-feed.ts): every write to a table that rendered answers
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
 * that fell further behind starts over (change-feed.ts). PostgreSQL has no feed: there rendered
 * answers are not reused (its processes are invalidated by LISTEN/NOTIFY where they cache).
 */
import { sql, type Kysely } from 'kysely';
import type { ParleyMigration } from './helpers.js';

/** The three tables whose updates bump `rev` by a second UPDATE on SQLite (0711): only the first one is fed. */
const REV_TABLES = new Set(['rooms', 'attendees', 'chat_messages']);

/** Tables whose rows carry their room's id, with the expression naming it. */
const BY_ROOM: Array<[table: string, room: (row: 'NEW' | 'OLD') => string]> = [
  ['rooms', (r) => `${r}.id`],
  ['attendees', (r) => `${r}.room_id`],
  ['chat_messages', (r) => `${r}.room_id`],
  ['polls', (r) => `${r}.room_id`],
  ['recording_consents', (r) => `${r}.room_id`],
  ['room_avatars', (r) => `${r}.room_id`],
];

/** Tables whose rows name their room through another row: the SELECT yields the topic (none when that row is gone). */
const THROUGH: Array<[table: string, select: (row: 'NEW' | 'OLD') => string]> = [
  ['sessions', (r) => `SELECT 'r:' || room_id FROM attendees WHERE id = ${r}.attendee_id`],
  ['poll_votes', (r) => `SELECT 'r:' || room_id FROM polls WHERE id = ${r}.poll_id`],
  ['client_room_sessions', (r) => `SELECT 'r:' || id FROM rooms WHERE token = ${r}.token`],
];

const BY_USER = ['user_status', 'user_preferences'];
const GLOBAL = ['groups', 'group_members', 'teams', 'team_members', 'app_config', 'cache_state', 'phone_numbers', 'user_avatars'];

/**
 * The UPDATE feed of a table whose updates bump `rev` (its WHEN reads `rev`): a test that drops
 * and re-adds `rev` drops this trigger first and makes it again with this.
 */
export async function createRevTableUpdateFeed(db: Kysely<any>, table: 'rooms' | 'attendees' | 'chat_messages'): Promise<void> {
  const room = BY_ROOM.find(([t]) => t === table)![1];
  await sql
    .raw(
      `CREATE TRIGGER ${table}_feed_update AFTER UPDATE ON ${table} FOR EACH ROW WHEN NEW.rev = OLD.rev BEGIN INSERT INTO change_feed (topic) VALUES ('r:' || ${room('NEW')}); END`,
    )
    .execute(db);
}

const EVENTS = [
  ['INSERT', 'NEW'],
  ['UPDATE', 'NEW'],
  ['DELETE', 'OLD'],
] as const;

export const changeFeed: ParleyMigration = {
  name: '0712-change-feed',
  async up({ db, dialect }) {
    if (dialect !== 'sqlite') return;
    await sql`CREATE TABLE change_feed (seq INTEGER PRIMARY KEY, topic TEXT NOT NULL)`.execute(db);
    await sql`CREATE TRIGGER change_feed_prune AFTER INSERT ON change_feed WHEN NEW.seq % 4096 = 0
      BEGIN DELETE FROM change_feed WHERE seq <= NEW.seq - 65536; END`.execute(db);

    const trigger = async (table: string, event: string, body: string, when = '') => {
      const name = `${table}_feed_${event.toLowerCase()}`;
      await sql.raw(`CREATE TRIGGER ${name} AFTER ${event} ON ${table} FOR EACH ROW ${when} BEGIN ${body} END`).execute(db);
    };
    const feed = (topic: string) => `INSERT INTO change_feed (topic) VALUES (${topic});`;

    for (const [table, room] of BY_ROOM) {
      for (const [event, row] of EVENTS) {
        if (event === 'UPDATE' && REV_TABLES.has(table)) {
          await createRevTableUpdateFeed(db, table as 'rooms' | 'attendees' | 'chat_messages');
          continue;
        }
        let body = feed(`'r:' || ${room(row)}`);
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
      await sql
        .raw(`CREATE TRIGGER users_feed_account_${event.toLowerCase()} AFTER ${event} ON users FOR EACH ROW BEGIN ${feed(`'k:users:' || ${row}.id`)} END`)
        .execute(db);
      // A rotation changes the key: both the old and the new one.
      const rotated = event === 'UPDATE' ? feed(`'k:app_passwords:' || OLD.token_hash`) : '';
      await trigger('app_passwords', event, feed(`'k:app_passwords:' || ${row}.token_hash`) + rotated);
      await trigger('brute_force_attempts', event, feed(`'k:brute_force_attempts'`));
    }
    // Accounts: names and the enabled flag are shown everywhere; logins and password changes are not.
    await trigger('users', 'INSERT', feed(`'g'`));
    await trigger('users', 'DELETE', feed(`'g'`));
    await trigger(
      'users',
      'UPDATE',
      feed(`'g'`),
      'WHEN NEW.id IS NOT OLD.id OR NEW.display_name IS NOT OLD.display_name OR NEW.email IS NOT OLD.email OR NEW.enabled IS NOT OLD.enabled OR NEW.created_at IS NOT OLD.created_at',
    );
  },
};
