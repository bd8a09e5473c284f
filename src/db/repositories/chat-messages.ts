/**
 * SQL for chat messages (table `chat_messages`). Every read of a room's messages walks the
 * (room_id, id) index; lists of rooms (last messages, unread counts) are one statement each,
 * whatever the number of rooms. Expired rows (expires_at in the past) are invisible to every
 * read (docs/reference/chat.md#expiration), before the job deletes them.
 */
import type { ExpressionBuilder, Insertable, Kysely, Selectable, Updateable } from 'kysely';
import { CompiledQuery, sql } from 'kysely';
import type { ChatMessagesTable, Database } from '../schema.js';
import { chunks } from '../chunks.js';
import { ActorType } from '../../domain/constants.js';
import { DELETED_USERS, MessageType, mentionedIds } from '../../domain/chat.js';
import { closedPollId } from '../../domain/chat-shares.js';
import { compiledStatement } from '../compiled-statement.js';
import { alwaysNamed } from '../pg-prepared.js';
import { repointLastPinned } from './last-pinned.js';

export type ChatMessageRow = Selectable<ChatMessagesTable>;
export type NewChatMessage = Insertable<ChatMessagesTable>;
/** A message as read: the row plus its author's current display name when the author is a user. */
export type ChatMessageRead = ChatMessageRow & { user_display_name: string | null };
export type ChatMessagePatch = Updateable<Omit<ChatMessagesTable, 'id' | 'room_id'>>;

/** Column values of a new message besides room, actor, type and time (the migration's defaults). */
export const CHAT_MESSAGE_DEFAULTS = {
  actor_display_name: '',
  message: '',
  system_message: '',
  message_parameters: '{}',
  reference_id: '',
  parent_id: null,
  expires_at: 0,
  silent: 0,
  can_mention_all: 0,
  last_edit_actor_type: '',
  last_edit_actor_id: '',
  last_edit_actor_display_name: '',
  last_edit_at: 0,
  deleted_by_type: '',
  deleted_by_id: '',
  deleted_at: 0,
  reactions: '{}',
} satisfies Partial<NewChatMessage>;

/** Every column of a new message (the defaults' and the ones each post names). */
const NEW_MESSAGE_COLUMNS = [...Object.keys(CHAT_MESSAGE_DEFAULTS), 'room_id', 'actor_type', 'actor_id', 'message_type', 'created_at'] as Array<
  keyof NewChatMessage
>;

/** One message in, the stored row out (compiled once, compiled-statement.ts: a post's costliest statement to build). */
const INSERT_MESSAGE = compiledStatement<ChatMessageRow, NewChatMessage>((db, p) =>
  db
    .insertInto('chat_messages')
    .values(Object.fromEntries(NEW_MESSAGE_COLUMNS.map((c) => [c, p(c)])) as unknown as NewChatMessage)
    .returningAll(),
);

/**
 * What a user's post moves besides its own row (`postAlone`); the room, the time and whether the
 * message counts as unread come from the row itself.
 */
export interface LonePost {
  /** The author's attendee row: its read marker moves to the message (0: none). */
  authorAttendeeId: number;
  /** Attendees mentioned: `direct` also get the direct flag (AttendeesRepository.markMentioned). */
  mentions: { direct: readonly number[]; indirect: readonly number[] };
  /** The long-polls' wake-up (wake.ts): its database channel and payload, delivered at commit. */
  wake: { channel: string; payload: string };
}

/** The statement's values after the message's columns, by name (`postAlone` passes them in this order). */
const LONE_POST_VALUES = ['roomId', 'now', 'counted', 'expiresAt', 'author', 'mentioned', 'direct', 'channel', 'payload', 'touched'] as const;
type LonePostValue = (typeof LONE_POST_VALUES)[number];
/**
 * PostgreSQL: a user's post as ONE statement, committed on its own: the room's row lock, the
 * message's id (taken under that lock, so a room's messages commit in id order: a long-poll
 * that saw id n never misses a smaller one), the insert, the room's lastMessage, lastActivity
 * and counters, the author's read marker with the mentioned attendees' markers (one UPDATE:
 * a row must not be updated twice in one statement) and the wake-up. As a transaction these
 * were seven round trips, the room's row lock held across five of them, which is what bounds
 * the posts per second into one busy room (docs/history/benchmarks-2026-11.md "A post in one statement").
 *
 * The UPDATEs run whether or not the query reads them (data-modifying WITH); the notification,
 * a plain SELECT, runs because the query joins it.
 *
 * Every sub-statement sees the snapshot taken when the statement started, possibly before the
 * lock was granted; the UPDATEs re-read rows that a post committed in between changed (READ
 * COMMITTED re-checks the newest version), and the read marker's read_count takes the room's
 * new chat_count from the room UPDATE's RETURNING, not from a read of the table.
 */
const LONE_POST_SQL = (() => {
  const at = (name: LonePostValue) => `$${NEW_MESSAGE_COLUMNS.length + 1 + LONE_POST_VALUES.indexOf(name)}`;
  // Every SET expression sees the row as it was: the author's marker only moves forward.
  const advances = `attendees.id = ${at('author')} and attendees.last_read_message < m.id`;
  return `with locked as (select id from rooms where id = ${at('roomId')} for update),
  m as (select nextval(pg_get_serial_sequence('chat_messages', 'id')) as id from locked),
  ins as (insert into chat_messages (id, ${NEW_MESSAGE_COLUMNS.map((c) => `"${c}"`).join(', ')})
    select m.id, ${NEW_MESSAGE_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')} from m returning *),
  room as (update rooms set
      last_message = case when rooms.last_message < m.id then m.id else rooms.last_message end,
      last_activity = case when rooms.last_activity < ${at('now')} then ${at('now')} else rooms.last_activity end,
      chat_count = rooms.chat_count + ${at('counted')}::int,
      next_expiry = case when ${at('expiresAt')}::bigint > 0 and (rooms.next_expiry = 0 or rooms.next_expiry > ${at('expiresAt')}::bigint)
        then ${at('expiresAt')}::bigint else rooms.next_expiry end
    from m where rooms.id = ${at('roomId')} returning rooms.chat_count),
  att as (update attendees set
      last_read_message = case when ${advances} then m.id else attendees.last_read_message end,
      last_attendee_activity = case when ${advances} then ${at('now')} else attendees.last_attendee_activity end,
      read_count = case when ${advances} then room.chat_count else attendees.read_count end,
      last_mention_message = case when attendees.id = any(${at('mentioned')}::bigint[]) then m.id else attendees.last_mention_message end,
      last_mention_direct = case when attendees.id = any(${at('direct')}::bigint[]) then m.id else attendees.last_mention_direct end
    from m, room
    where attendees.id = any(${at('touched')}::bigint[]) and attendees.room_id = ${at('roomId')}
    returning 1),
  woke as (select pg_notify(${at('channel')}, ${at('payload')}) from ins)
select ins.* from ins cross join woke`;
})();
// Named although it has 32 values: every row it reads or writes is found by its key (the
// attendees by primary key, `touched`), so a generic plan is what its values would be given.
alwaysNamed(LONE_POST_SQL);

/** A pin as a message stores it (0719). */
export type PinFields = Pick<ChatMessagePatch, 'pinned_by_type' | 'pinned_by_id' | 'pinned_by_name'> & {
  pinned_id: number;
  pinned_at: number;
  pinned_until: number;
};

/** A message that is not pinned. */
export const NOT_PINNED = { pinned_id: 0, pinned_by_type: '', pinned_by_id: '', pinned_by_name: '', pinned_at: 0, pinned_until: 0 } as const;

/** Every message column (a Record so that a column added to the table must be added here). */
const MESSAGE_COLUMN_SET: Record<keyof ChatMessageRow, true> = {
  id: true,
  room_id: true,
  actor_type: true,
  actor_id: true,
  actor_display_name: true,
  message: true,
  message_type: true,
  system_message: true,
  message_parameters: true,
  reference_id: true,
  parent_id: true,
  created_at: true,
  expires_at: true,
  silent: true,
  can_mention_all: true,
  last_edit_actor_type: true,
  last_edit_actor_id: true,
  last_edit_actor_display_name: true,
  last_edit_at: true,
  deleted_by_type: true,
  deleted_by_id: true,
  deleted_at: true,
  reactions: true,
  rev: true,
  pinned_id: true,
  pinned_by_type: true,
  pinned_by_id: true,
  pinned_by_name: true,
  pinned_at: true,
  pinned_until: true,
  deleted_by_name: true,
};
const MESSAGE_COLUMNS = Object.keys(MESSAGE_COLUMN_SET) as Array<keyof ChatMessageRow>;

/**
 * A message joined as `lm` (with its user author joined as `lu`) beside another table's row, as
 * one value `lm_packed`: a JSON array of its columns and the author's name, null when the outer
 * join found none (a conversation's last message read with the room). One packed value instead of
 * 25 columns: most rows of a list carry either a message or nothing, and building 25 null cells
 * for each of 200 rooms cost more than the statement it saves (docs/benchmarks.md).
 */
export function packedLastMessage(postgres: boolean) {
  const values = sql.join([...MESSAGE_COLUMNS.map((c) => sql.ref(`lm.${c}`)), sql.ref('lu.display_name')]);
  return sql<unknown>`case when lm.id is null then null else ${sql.raw(postgres ? 'json_build_array' : 'json_array')}(${values}) end`.as('lm_packed');
}

/** The message of such a row; undefined when the outer join found none. */
export function lastMessageOf(row: Record<string, unknown>): ChatMessageRead | undefined {
  const packed = row.lm_packed;
  if (packed === null || packed === undefined) return undefined;
  // SQLite hands over the JSON text, PostgreSQL's driver parses json values itself.
  const values = (typeof packed === 'string' ? JSON.parse(packed) : packed) as unknown[];
  const m: Record<string, unknown> = { user_display_name: values[MESSAGE_COLUMNS.length] ?? null };
  for (let i = 0; i < MESSAGE_COLUMNS.length; i++) m[MESSAGE_COLUMNS[i]] = values[i];
  return m as unknown as ChatMessageRead;
}

/** Message types counted as unread chat (Talk counts verbs comment and object_shared). */
export const UNREAD_TYPES = ['comment', 'object_shared', 'voice-message', 'record-audio', 'record-video'];

export class ChatMessagesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Inserts one message and returns the stored row (RETURNING: the caller answers with it instead of reading it back). */
  async insert(row: NewChatMessage): Promise<ChatMessageRow> {
    const [r] = await INSERT_MESSAGE(this.db, { ...CHAT_MESSAGE_DEFAULTS, ...row });
    return r;
  }

  /**
   * PostgreSQL only, outside a transaction: a user's post and everything it moves in one
   * statement (LONE_POST_SQL). Returns the stored row, or undefined when the room is gone
   * (deleted since the caller read it: the statement's room lock finds no row, nothing is written).
   */
  async postAlone(row: NewChatMessage, post: LonePost): Promise<ChatMessageRow | undefined> {
    const full: Record<string, unknown> = { ...CHAT_MESSAGE_DEFAULTS, ...row };
    const { direct, all } = mentionedIds(post.mentions);
    const values: Record<LonePostValue, unknown> = {
      roomId: row.room_id,
      // The room's lastActivity moves to the message's time.
      now: row.created_at,
      counted: UNREAD_TYPES.includes(row.message_type) ? 1 : 0,
      expiresAt: row.expires_at ?? 0,
      author: post.authorAttendeeId,
      mentioned: all,
      direct,
      channel: post.wake.channel,
      payload: post.wake.payload,
      // The attendee rows the UPDATE may touch: the author's and the mentioned ones.
      touched: post.authorAttendeeId > 0 ? [post.authorAttendeeId, ...all] : all,
    };
    const parameters = [...NEW_MESSAGE_COLUMNS.map((c) => full[c] ?? null), ...LONE_POST_VALUES.map((v) => values[v])];
    const { rows } = await this.db.executeQuery<ChatMessageRow>(CompiledQuery.raw(LONE_POST_SQL, parameters));
    return rows[0];
  }

  /** Inserts several messages in one statement; returns each new id with its room. */
  async insertMany(rows: NewChatMessage[]): Promise<Array<{ id: number; roomId: number }>> {
    if (rows.length === 0) return [];
    const r = await this.db.insertInto('chat_messages').values(rows).returning(['id', 'room_id']).execute();
    return r.map((x) => ({ id: Number(x.id), roomId: Number(x.room_id) }));
  }

  findInRoom(roomId: number, id: number, now: number): Promise<ChatMessageRead | undefined> {
    return this.visible(now).where('m.room_id', '=', roomId).where('m.id', '=', id).executeTakeFirst();
  }

  /** Whether `id` is a message of the room (expired or not): offsets of other rooms are ignored. */
  async existsInRoom(roomId: number, id: number): Promise<boolean> {
    const r = await this.db.selectFrom('chat_messages').select('id').where('room_id', '=', roomId).where('id', '=', id).executeTakeFirst();
    return r !== undefined;
  }

  /** When each of `userIds` last wrote a comment in the room (Talk's CommentsManager::getLastCommentDateByActor); absent: never. */
  async lastCommentAtByUser(roomId: number, userIds: string[]): Promise<Map<string, number>> {
    if (userIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('chat_messages')
      .select(['actor_id', (eb) => eb.fn.max('created_at').as('at')])
      .where('room_id', '=', roomId)
      .where('message_type', '=', 'comment')
      .where('actor_type', '=', 'users')
      .where('actor_id', 'in', userIds)
      .groupBy('actor_id')
      .execute();
    return new Map(rows.map((r) => [r.actor_id, Number(r.at)]));
  }

  /** Messages by id (parents, last messages), expired ones left out. */
  async findByIds(ids: number[], now: number): Promise<ChatMessageRead[]> {
    const out: ChatMessageRead[] = [];
    for (const part of chunks([...new Set(ids)])) out.push(...(await this.visible(now).where('m.id', 'in', part).execute()));
    return out;
  }

  /**
   * History page (lookIntoFuture=0): newest first, ids below `beforeId` (or up to it when
   * `inclusive`), `beforeId` 0 = from the newest.
   */
  history(roomId: number, beforeId: number, inclusive: boolean, limit: number): Promise<ChatMessageRead[]> {
    let q = this.withNames().where('m.room_id', '=', roomId);
    if (beforeId > 0) q = q.where('m.id', inclusive ? '<=' : '<', beforeId);
    return q.orderBy('m.id', 'desc').limit(limit).execute();
  }

  /** Future page (lookIntoFuture=1): oldest first, ids above `afterId` (or from it when `inclusive`). */
  future(roomId: number, afterId: number, inclusive: boolean, limit: number): Promise<ChatMessageRead[]> {
    return this.withNames()
      .where('m.room_id', '=', roomId)
      .where('m.id', inclusive ? '>=' : '>', afterId)
      .orderBy('m.id', 'asc')
      .limit(limit)
      .execute();
  }

  /** The newest `limit` visible message ids of a room (of one of `types`) below `beforeId` (or up to it when `inclusive`), newest first. */
  async previousIds(roomId: number, beforeId: number, inclusive: boolean, now: number, limit: number, types?: string[]): Promise<number[]> {
    let q = this.visible(now)
      .clearSelect()
      .select('m.id')
      .where('m.room_id', '=', roomId)
      .where('m.id', inclusive ? '<=' : '<', beforeId);
    if (types) q = q.where('m.message_type', 'in', types);
    const rows = await q.orderBy('m.id', 'desc').limit(limit).execute();
    return rows.map((r) => Number(r.id));
  }

  /**
   * Counted messages after each attendee's read marker that have expired but are still in the
   * table (room id -> count), one statement: what unreadMessages leaves out of the counters
   * until the expiration job deletes them. Walks the expires_at index over expired rows only
   * (at most one job interval of them), whatever the number of messages.
   */
  async expiredUnreadCounts(attendeeIds: number[], now: number): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    for (const part of chunks([...new Set(attendeeIds)])) {
      const rows = await this.db
        .selectFrom('attendees as a')
        .innerJoin('chat_messages as m', 'm.room_id', 'a.room_id')
        .select(['a.room_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('a.id', 'in', part)
        .where('m.expires_at', '>', 0)
        .where('m.expires_at', '<=', now)
        .whereRef('m.id', '>', 'a.last_read_message')
        .where('m.message_type', 'in', UNREAD_TYPES)
        .groupBy('a.room_id')
        .execute();
      for (const r of rows) out.set(Number(r.room_id), Number(r.n));
    }
    return out;
  }

  /** Updates a message; with `onlyIfType`, only while it still has that type. Whether a row changed. */
  async update(id: number, patch: ChatMessagePatch, onlyIfType?: string): Promise<boolean> {
    let q = this.db.updateTable('chat_messages').set(patch).where('id', '=', id);
    if (onlyIfType !== undefined) q = q.where('message_type', '=', onlyIfType);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  // ---- pins (migration 0719; docs/reference/chat.md#pinned-messages) ----

  /**
   * Pins a message unless it is pinned (one statement: of two moderators pinning at once, one
   * changes the row). False when it was pinned already.
   */
  async pin(id: number, pin: PinFields): Promise<boolean> {
    const r = await this.db.updateTable('chat_messages').set(pin).where('id', '=', id).where('pinned_id', '=', 0).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Unpins a message pinned by `pinnedId` (0: whatever pinned it); false when it was not (any
   * more): of two unpins at once, or an unpin and the job, one changes the row.
   */
  async unpin(id: number, pinnedId = 0): Promise<boolean> {
    let q = this.db.updateTable('chat_messages').set(NOT_PINNED).where('id', '=', id);
    q = pinnedId > 0 ? q.where('pinned_id', '=', pinnedId) : q.where('pinned_id', '>', 0);
    const r = await q.executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * A room's pinned messages, the one pinned last first (the order of their `message_pinned`
   * messages), with ids below `beforeId` (0: all), by the partial index chat_messages_pinned.
   */
  pinned(roomId: number, beforeId: number, limit: number, now: number): Promise<ChatMessageRead[]> {
    let q = this.visible(now).where('m.room_id', '=', roomId).where('m.pinned_id', '>', sql.lit(0));
    if (beforeId > 0) q = q.where('m.id', '<', beforeId);
    return q.orderBy('m.pinned_id', 'desc').limit(limit).execute();
  }

  /** Pins whose time ran out before `now` (the unpin job), by the partial index chat_messages_pinned_until. */
  async pinsEnded(now: number, limit: number): Promise<Array<{ id: number; room_id: number; pinned_id: number }>> {
    const rows = await this.db
      .selectFrom('chat_messages')
      .select(['id', 'room_id', 'pinned_id'])
      .where('pinned_until', '>', sql.lit(0))
      .where('pinned_until', '<=', now)
      .orderBy('pinned_until')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ id: Number(r.id), room_id: Number(r.room_id), pinned_id: Number(r.pinned_id) }));
  }

  /**
   * The `poll_closed` message of a poll whose message was deleted (docs/reference/chat.md#deleting-and-editing Delete: the poll and its
   * `poll_closed` messages are removed). Read by the room's index and the system-message kind,
   * then matched on the poll in their parameters: a room holds one such message per closed poll.
   */
  async deletePollClosed(roomId: number, pollId: number): Promise<void> {
    const closed = await this.db
      .selectFrom('chat_messages')
      .select(['id', 'message_parameters'])
      .where('room_id', '=', roomId)
      .where('message_type', '=', MessageType.SYSTEM)
      .where('system_message', '=', 'poll_closed')
      .execute();
    const ids = closed.filter((m) => closedPollId(m.message_parameters) === pollId).map((m) => m.id);
    if (ids.length) await this.db.deleteFrom('chat_messages').where('id', 'in', ids).execute();
  }

  /** Every message of the rooms, and their shared items (0714). */
  async deleteForRooms(roomIds: number[]): Promise<void> {
    for (const part of chunks([...new Set(roomIds)])) {
      await this.db.deleteFrom('chat_shared_items').where('room_id', 'in', part).execute();
      await this.db.deleteFrom('chat_messages').where('room_id', 'in', part).execute();
    }
  }

  /**
   * A deleted user's messages (and reactions) are no longer theirs: actor `deleted_users` with an
   * empty display name, as Nextcloud's CommentsManager::deleteReferencesOfActor rewrites them.
   */
  async reassignToDeletedUser(userId: string): Promise<void> {
    // One reaction per actor, message and emoji (index chat_messages_reaction_unique): where an
    // earlier deleted user already holds it, this one's row goes (the counts stay as they are).
    await this.db
      .deleteFrom('chat_messages')
      .where('message_type', '=', 'reaction')
      .where('actor_type', '=', ActorType.USERS)
      .where('actor_id', '=', userId)
      .where(({ exists, selectFrom }) =>
        exists(
          selectFrom('chat_messages as d')
            .select('d.id')
            .where('d.message_type', '=', 'reaction')
            .where('d.actor_type', '=', DELETED_USERS)
            .where('d.actor_id', '=', DELETED_USERS)
            .whereRef('d.parent_id', '=', 'chat_messages.parent_id')
            .whereRef('d.message', '=', 'chat_messages.message'),
        ),
      )
      .execute();
    await this.db
      .updateTable('chat_messages')
      .set({ actor_type: DELETED_USERS, actor_id: DELETED_USERS, actor_display_name: '' })
      .where('actor_type', '=', ActorType.USERS)
      .where('actor_id', '=', userId)
      .execute();
  }

  /**
   * Deletes expired messages (the expiration job); returns how many went. The counters of their
   * rooms and attendees (migration 0706) move in the same transaction, under the rooms' row
   * locks taken first: a second job waiting on them then finds nothing left to count, a message
   * deletion (which locks the room first too) cannot interleave, and the attendee update touches
   * every attendee row of those rooms so it serialises with marker moves (see
   * AttendeesRepository.setReadMarker). Each statement is set-based: a constant number of them
   * for any number of rooms and messages. `> 0` is written as a literal so that both planners
   * match it to the partial index chat_messages_expiring (migration 0710; a bound parameter cannot
   * prove the index's condition in a generic plan).
   */
  async deleteExpired(now: number): Promise<number> {
    const expired = (eb: ExpressionBuilder<Database, 'chat_messages'>) => eb.and([eb('expires_at', '>', sql.lit(0)), eb('expires_at', '<=', now)]);
    return this.db.transaction().execute(async (trx) => {
      const rooms = (await trx.selectFrom('chat_messages').select('room_id').distinct().where(expired).execute()).map((r) => Number(r.room_id));
      if (rooms.length === 0) return 0;
      let deleted = 0;
      for (const part of chunks(rooms.sort((a, b) => a - b))) {
        // Row locks of the rooms first (a no-op write), in id order.
        await trx
          .updateTable('rooms')
          .set((eb) => ({ next_expiry: eb.ref('next_expiry') }))
          .where('id', 'in', part)
          .execute();
        // The expired counted rows, read once through the expires_at index (a materialised CTE,
        // so no per-row subquery walks a room's whole history).
        const ids = sql.join(part);
        const x = sql`with x as materialized (select m.room_id, m.id from chat_messages m where m.expires_at > 0 and m.expires_at <= ${now} and m.room_id in (${ids}) and m.message_type in (${sql.join(UNREAD_TYPES)}))`;
        await sql`${x} update attendees set read_count = read_count - (select count(*) from x where x.room_id = attendees.room_id and x.id <= attendees.last_read_message) where room_id in (${ids})`.execute(
          trx,
        );
        await sql`${x} update rooms set chat_count = chat_count - (select count(*) from x where x.room_id = rooms.id),
            next_expiry = coalesce((select min(m.expires_at) from chat_messages m where m.room_id = rooms.id and m.expires_at > ${now} and m.message_type in (${sql.join(UNREAD_TYPES)})), 0)
          where id in (${ids})`.execute(trx);
        // Shared items go with their messages (0714), by the same index as the messages below.
        await trx
          .deleteFrom('chat_shared_items')
          .where('message_id', 'in', trx.selectFrom('chat_messages').select('id').where(expired).where('room_id', 'in', part))
          .execute();
        const r = await trx.deleteFrom('chat_messages').where(expired).where('room_id', 'in', part).executeTakeFirst();
        deleted += Number(r.numDeletedRows);
        // An expired pinned message takes its pin along: the rooms' last pins fall back (0719).
        await repointLastPinned(trx, part);
      }
      return deleted;
    });
  }

  /** Messages with their user authors' current display names (one join, no query per row). */
  private withNames() {
    return messagesWithNames(this.db);
  }

  private visible(now: number) {
    return visibleMessages(this.db, now);
  }
}

/** Messages (as `m`) with their user authors' current display names (one join, no query per row). */
export function messagesWithNames(db: Kysely<Database>) {
  return db
    .selectFrom('chat_messages as m')
    .leftJoin('users as u', (j) => j.onRef('u.id', '=', 'm.actor_id').on('m.actor_type', '=', 'users'))
    .selectAll('m')
    .select('u.display_name as user_display_name');
}

/** `messagesWithNames` without the expired ones (docs/reference/chat.md#expiration: hidden from every read). */
export function visibleMessages(db: Kysely<Database>, now: number) {
  return messagesWithNames(db).where((eb) => eb.or([eb('m.expires_at', '=', 0), eb('m.expires_at', '>', now)]));
}
