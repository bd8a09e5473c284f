/**
 * The change feed's topics, in one place outside the migrations (docs/architecture.md "Caches:
 * one table"): what each topic names, and which tables feed it. Migration 0712 creates its
 * triggers from these tables (0713 the brute-force one); the PostgreSQL read cache syncs this
 * process's writes to every fed table (pg-read-cache.ts). Imports nothing, so a migration may
 * import it without a loop.
 *
 * - `r:<room id>`: the room's row, its attendees, sessions, messages (reactions are messages),
 *   polls and votes, recording consents, avatar, and the cookie sessions naming its token.
 * - `m:<actor type>:<actor id>`: an attendee row of that actor was added or removed.
 * - `u:<user id>`: the user's status or preferences.
 * - `g`: what any answer may read and no finer topic names (accounts' shown columns, groups,
 *   teams, the configuration, phone numbers, user avatars).
 * - `k:<table>:<key>`, `k:brute_force_attempts`: the rows behind the reads every request makes.
 */

/** What every answer depends on. */
export const GLOBAL_TOPIC = 'g';
/** Topic of every brute-force attempt (the kept cap check; on PostgreSQL notified since migration 0713). */
export const BRUTE_FORCE_TOPIC = 'k:brute_force_attempts';
/** Topic of a conversation (its room id). */
export const roomTopic = (roomId: number): string => `r:${roomId}`;
/** Topic of a user's own rows (status, preferences). */
export const userTopic = (userId: string): string => `u:${userId}`;
/** Topic of an actor's set of conversations. */
export const memberTopic = (actorType: string, actorId: string): string => `m:${actorType}:${actorId}`;

/** Tables whose rows carry their room's id, with the column holding it (`r:`). */
export const FEED_BY_ROOM: ReadonlyArray<readonly [table: string, column: string]> = [
  ['rooms', 'id'],
  ['attendees', 'room_id'],
  ['chat_messages', 'room_id'],
  ['polls', 'room_id'],
  ['recording_consents', 'room_id'],
  ['room_avatars', 'room_id'],
];
/** Tables whose rows name their room through another row (`r:`; the lookup is migration 0712's). */
export const FEED_THROUGH_ROOM: readonly string[] = ['sessions', 'poll_votes', 'client_room_sessions'];
/** Tables of a user's own rows (`u:`). */
export const FEED_BY_USER: readonly string[] = ['user_status', 'user_preferences'];
/** Tables any answer may read (`g`). */
export const FEED_GLOBAL: readonly string[] = [
  'groups',
  'group_members',
  'teams',
  'team_members',
  'app_config',
  'cache_state',
  'phone_numbers',
  'user_avatars',
];
/** Every table migration 0712's triggers are on. */
export const FED_TABLES: readonly string[] = [...FEED_BY_ROOM.map(([t]) => t), ...FEED_THROUGH_ROOM, ...FEED_BY_USER, ...FEED_GLOBAL, 'users'];
/** The tables migration 0713 feeds (`k:brute_force_attempts`, PostgreSQL). */
export const BRUTE_FORCE_FED_TABLES: readonly string[] = ['brute_force_attempts'];

/** Tables whose reads the PostgreSQL read cache keeps, by the key their notify trigger sends (migration 0707). */
export const CACHED_TABLES = ['users', 'user_preferences', 'user_status', 'app_passwords', 'cache_state'] as const;
export type CachedTable = (typeof CACHED_TABLES)[number];

/**
 * The topic of a cached table read's key (direct-reads.ts `compiledRead`): the key column the
 * PostgreSQL read cache is notified with (migration 0707) names the same rows here (0712).
 */
export function cachedTableTopic(table: CachedTable, key: unknown): string {
  switch (table) {
    case 'users':
      return `k:users:${String(key)}`;
    case 'app_passwords':
      return `k:app_passwords:${String(key)}`;
    case 'user_preferences':
    case 'user_status':
      return userTopic(String(key));
    case 'cache_state':
      return GLOBAL_TOPIC;
  }
}
