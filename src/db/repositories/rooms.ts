/**
 * SQL for conversations (table `rooms`). Token lookups use the unique token index; a user's
 * list is two indexed queries (attendees by actor, then rooms by primary key), whatever the
 * total number of rooms.
 */
import type { Kysely, SelectQueryBuilder, SqlBool } from 'kysely';
import { PostgresAdapter, sql } from 'kysely';
import { ReadOnlyState, RoomType } from '../../domain/constants.js';
import { anyColumnContains } from '../search.js';
import type { Database } from '../schema.js';
import { ROOM_DEFAULTS, type NewRoom, type RoomPatch, type RoomRow } from './room-rows.js';
import type { Dialect } from '../database.js';
import type { AttendeeRow } from './attendees.js';
import { compiledStatement, type CompiledStatement, type Placeholder } from '../compiled-statement.js';
import { caseById, idIn } from '../id-lists.js';
import { lastMessageOf, packedLastMessage, type ChatMessageRead } from './chat-messages.js';
import { chunks } from '../chunks.js';
import { repointLastPinned } from './last-pinned.js';

export { ROOM_DEFAULTS, type NewRoom, type RoomPatch, type RoomRow } from './room-rows.js';

/** Every attendee column (a Record so that a column added to the table must be added here). */
const ATTENDEE_COLUMN_SET: Record<keyof AttendeeRow, true> = {
  id: true,
  room_id: true,
  actor_type: true,
  actor_id: true,
  display_name: true,
  pin: true,
  participant_type: true,
  favorite: true,
  notification_level: true,
  notification_calls: true,
  last_joined_call: true,
  last_read_message: true,
  last_mention_message: true,
  last_mention_direct: true,
  read_privacy: true,
  permissions: true,
  access_token: true,
  invited_cloud_id: true,
  phone_number: true,
  call_id: true,
  dialout_request: true,
  dialout_requested_at: true,
  last_attendee_activity: true,
  created_at: true,
  read_count: true,
  archived: true,
  important: true,
  sensitive: true,
  rev: true,
  hidden_pinned_id: true,
  has_scheduled_messages: true,
};
const ATTENDEE_COLUMNS = Object.keys(ATTENDEE_COLUMN_SET) as Array<keyof AttendeeRow>;
/** The attendee's columns selected beside the room's, `a_`-prefixed so they do not collide. */
const PREFIXES = ATTENDEE_COLUMNS.map((c) => `a_${c}`);
const PREFIXED_ATTENDEE_COLUMNS = ATTENDEE_COLUMNS.map((c, i) => `a.${c} as ${PREFIXES[i]}`);

// The hot statements of every room request and chat post, compiled once (compiled-statement.ts).
/**
 * Joins a query on `rooms as r` with its chat state (RoomChatPreload): the last message (`lm`,
 * unless expired at `now`) with its user author's name (`lu`), and the common read marker as a
 * subquery. Reading them with the rooms saves the two statements that loaded them after.
 */
function withChat(q: SelectQueryBuilder<any, any, object>, now: number, postgres: boolean): SelectQueryBuilder<any, any, object> {
  return q
    .leftJoin('chat_messages as lm', (j) =>
      j
        .onRef('lm.id', '=', 'r.last_message')
        .onRef('lm.room_id', '=', 'r.id')
        .on((eb) => eb.or([eb('lm.expires_at', '=', 0), eb('lm.expires_at', '>', now)])),
    )
    .leftJoin('users as lu', (j) => j.onRef('lu.id', '=', 'lm.actor_id').on('lm.actor_type', '=', 'users'))
    .select(packedLastMessage(postgres))
    .select(
      sql<number | null>`(select min(ca.last_read_message) from attendees ca where ca.room_id = r.id and ca.actor_type = 'users' and ca.read_privacy = 0)`.as(
        'common_read',
      ),
    );
}

type MemberArgs = { token: string; actorType: string; actorId: string };
const roomWithMember = (db: Kysely<Database>, p: Placeholder) =>
  db
    .selectFrom('rooms as r')
    .leftJoin('attendees as a', (j) => j.onRef('a.room_id', '=', 'r.id').on('a.actor_type', '=', p('actorType')).on('a.actor_id', '=', p('actorId')))
    .selectAll('r')
    .select(PREFIXED_ATTENDEE_COLUMNS as unknown as ['a.id as a_id'])
    .where('r.token', '=', p('token'));
const ROOM_WITH_MEMBER = compiledStatement<Record<string, unknown>, MemberArgs>(roomWithMember);
/**
 * The same lookup for several actors of one type at once (a row per attendee found, or one row
 * without an attendee): `actorIds` is an array on PostgreSQL (`= any`), a JSON array on SQLite
 * (`json_each`), so the text is one whatever the number of actors.
 */
type MembersArgs = { token: string; actorType: string; actorIds: string[] | string };
const ROOM_WITH_MEMBERS = compiledStatement<Record<string, unknown>, MembersArgs>((db, p) =>
  db
    .selectFrom('rooms as r')
    .leftJoin('attendees as a', (j) =>
      j
        .onRef('a.room_id', '=', 'r.id')
        .on('a.actor_type', '=', p('actorType'))
        .on(
          db.getExecutor().adapter instanceof PostgresAdapter
            ? sql<SqlBool>`a.actor_id = any(${p('actorIds')})`
            : sql<SqlBool>`a.actor_id in (select value from json_each(${p('actorIds')}))`,
        ),
    )
    .selectAll('r')
    .select(PREFIXED_ATTENDEE_COLUMNS as unknown as ['a.id as a_id'])
    .where('r.token', '=', p('token')),
);
// GET /room/{token}: the same lookup with the record's chat state. Built per request it cost
// about a tenth of the request's CPU on PostgreSQL (Kysely's builder and compiler), more than
// the statement's own driver work.
const ROOM_WITH_MEMBER_AND_CHAT = compiledStatement<Record<string, unknown>, MemberArgs & { now: number }>((db, p) =>
  withChat(roomWithMember(db, p), p('now'), db.getExecutor().adapter instanceof PostgresAdapter),
);
type PostArgs = { id: number; messageId: number; now: number; expiresAt: number };
const POINT_AT_MESSAGE = compiledStatement<unknown, PostArgs>((db, p) =>
  db
    .updateTable('rooms')
    .set({ last_message: p('messageId') })
    .where('id', '=', p('id'))
    .where('last_message', '<', p('messageId')),
);

/** What a post's room statement moves (each shape compiled once). */
interface PostShape {
  message: boolean;
  activity: boolean;
  counted: boolean;
  expiring: boolean;
}
const POST_UPDATES = new Map<string, CompiledStatement<{ id: number }, PostArgs>>();

/** The room statement of a message post that moves the columns of `shape` (never backwards). */
function postUpdate(shape: PostShape): CompiledStatement<{ id: number }, PostArgs> {
  const key = `${+shape.message}${+shape.activity}${+shape.counted}${+shape.expiring}`;
  let statement = POST_UPDATES.get(key);
  if (statement === undefined) {
    // RETURNING: a room deleted since the post read it updates nothing, and the post stops.
    statement = compiledStatement<{ id: number }, PostArgs>((db, p) =>
      db
        .updateTable('rooms')
        .set({
          ...(shape.message ? { last_message: sql<number>`case when last_message < ${p('messageId')} then ${p('messageId')} else last_message end` } : {}),
          ...(shape.activity ? { last_activity: sql<number>`case when last_activity < ${p('now')} then ${p('now')} else last_activity end` } : {}),
          ...(shape.counted ? { chat_count: sql<number>`chat_count + 1` } : {}),
          ...(shape.expiring
            ? { next_expiry: sql<number>`case when next_expiry = 0 or next_expiry > ${p('expiresAt')} then ${p('expiresAt')} else next_expiry end` }
            : {}),
        })
        .where('id', '=', p('id'))
        .returning('id'),
    );
    POST_UPDATES.set(key, statement);
  }
  return statement;
}

/** Every room column: the id, the three a creator chooses, and those with defaults. */
const ROOM_COLUMNS: Array<keyof RoomRow> = ['id', 'token', 'name', 'type', ...(Object.keys(ROOM_DEFAULTS) as Array<keyof RoomRow>), 'rev'];

/** The room of a row that also carries PREFIXED_ATTENDEE_COLUMNS (a plain object of one shape). */
function roomOf(row: Record<string, unknown>): RoomRow {
  const room: Record<string, unknown> = {};
  for (const c of ROOM_COLUMNS) room[c] = row[c];
  return room as unknown as RoomRow;
}

/** The attendee of such a row; undefined when an outer join found none. */
function attendeeOf(row: Record<string, unknown>): AttendeeRow | undefined {
  if (row.a_id === null || row.a_id === undefined) return undefined;
  const attendee: Record<string, unknown> = {};
  for (let i = 0; i < ATTENDEE_COLUMNS.length; i++) attendee[ATTENDEE_COLUMNS[i]] = row[PREFIXES[i]];
  return attendee as unknown as AttendeeRow;
}

/**
 * A room's chat state read with its row (GET /room, GET /room/{token}), so the record needs no
 * further statement for it (services/conversations/conversation-view.ts).
 */
export interface RoomChatPreload {
  /** The room's last_message when read: a repair that posts later (lobby timer) makes this stale. */
  lastMessageId: number;
  /** That message, unless it has expired. */
  lastMessage: ChatMessageRead | undefined;
  /** lastCommonReadMessage: MIN(last_read_message) of the room's users with public read privacy, 0 when none. */
  commonRead: number;
}

function chatOf(room: RoomRow, row: Record<string, unknown>): RoomChatPreload {
  return { lastMessageId: room.last_message, lastMessage: lastMessageOf(row), commonRead: Number(row.common_read ?? 0) };
}

export class RoomsRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  findByToken(token: string): Promise<RoomRow | undefined> {
    return this.db.selectFrom('rooms').selectAll().where('token', '=', token).executeTakeFirst();
  }

  findById(id: number): Promise<RoomRow | undefined> {
    return this.db.selectFrom('rooms').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async tokenExists(token: string): Promise<boolean> {
    const r = await this.db.selectFrom('rooms').select('id').where('token', '=', token).executeTakeFirst();
    return r !== undefined;
  }

  /**
   * The room `token` with the actor's attendee row there (undefined when not an attendee): the
   * lookup every request on a conversation starts with, in one statement instead of two.
   */
  async findByTokenWithMember(
    token: string,
    actorType: string,
    actorId: string,
    chatAt?: number,
  ): Promise<{ room: RoomRow; attendee: AttendeeRow | undefined; chat?: RoomChatPreload } | undefined> {
    if (chatAt === undefined) {
      // The lookup of every conversation request: compiled once (compiled-statement.ts).
      const [found] = (await ROOM_WITH_MEMBER(this.db, { token, actorType, actorId })) as Array<Record<string, unknown>>;
      return found && { room: roomOf(found), attendee: attendeeOf(found) };
    }
    // With `chatAt` (now): the record's chat state in the same statement (GET /room/{token}).
    const [row] = (await ROOM_WITH_MEMBER_AND_CHAT(this.db, { token, actorType, actorId, now: chatAt })) as Array<Record<string, unknown>>;
    if (!row) return undefined;
    const room = roomOf(row);
    return { room, attendee: attendeeOf(row), chat: chatOf(room, row) };
  }

  /**
   * The room `token` with the attendee rows of `actorIds` (of `actorType`) there, in one
   * statement: the lookups of a burst of requests on one conversation (services/conversations/rooms.ts).
   * An actor without an attendee row is missing from `attendees`.
   */
  async findByTokenWithMembers(
    token: string,
    actorType: string,
    actorIds: string[],
  ): Promise<{ room: RoomRow; attendees: Map<string, AttendeeRow> } | undefined> {
    const rows = (await ROOM_WITH_MEMBERS(this.db, {
      token,
      actorType,
      actorIds: this.dialect === 'postgres' ? actorIds : JSON.stringify(actorIds),
    })) as Array<Record<string, unknown>>;
    if (rows.length === 0) return undefined;
    const attendees = new Map<string, AttendeeRow>();
    for (const row of rows) {
      const attendee = attendeeOf(row);
      if (attendee) attendees.set(attendee.actor_id, attendee);
    }
    return { room: roomOf(rows[0]), attendees };
  }

  /**
   * Attendee rows by id with their rooms and the rooms' chat state, one statement: the records
   * of GET /room that are rendered anew (services/conversations/conversation-list.ts). Order: room id.
   */
  async findByAttendeeIdsWithChat(attendeeIds: number[], now: number): Promise<Array<{ room: RoomRow; attendee: AttendeeRow; chat: RoomChatPreload }>> {
    if (attendeeIds.length === 0) return [];
    const q = this.db
      .selectFrom('attendees as a')
      .innerJoin('rooms as r', 'r.id', 'a.room_id')
      .selectAll('r')
      .select(PREFIXED_ATTENDEE_COLUMNS as unknown as ['a.id as a_id'])
      .where(idIn(this.dialect, 'a.id', attendeeIds));
    const rows = (await withChat(q, now, this.dialect === 'postgres')
      .orderBy('r.id')
      .execute()) as Array<Record<string, unknown>>;
    return rows.map((row) => {
      const room = roomOf(row);
      return { room, attendee: attendeeOf(row)!, chat: chatOf(room, row) };
    });
  }

  /** Rooms by id (one query). Order: id ascending. */
  async findByIds(ids: number[]): Promise<RoomRow[]> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('rooms')
      .selectAll()
      .where(idIn(this.dialect, 'id', ids))
      .orderBy('id')
      .execute();
  }

  async insert(row: NewRoom): Promise<number> {
    const r = await this.db.insertInto('rooms').values(row).returning('id').executeTakeFirstOrThrow();
    return Number(r.id);
  }

  /**
   * Locks the conversation's row until the transaction ends: a no-op write, which takes the row
   * lock on PostgreSQL (other lockers wait, then read what the holder committed) and, inside an
   * IMMEDIATE transaction, changes nothing on SQLite, where the transaction already holds the
   * database write lock. Used where an invariant spans several attendee rows.
   */
  async lockRow(id: number): Promise<boolean> {
    const r = await this.db
      .updateTable('rooms')
      .set((eb) => ({ id: eb.ref('id') }))
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /**
   * Locks several conversations' rows, one at a time in id order so that two lockers of
   * overlapping sets cannot deadlock: the ids that still exist (the others were deleted).
   */
  async lockRows(ids: number[]): Promise<Set<number>> {
    const locked = new Set<number>();
    for (const id of [...new Set(ids)].sort((x, y) => x - y)) if (await this.lockRow(id)) locked.add(id);
    return locked;
  }

  /**
   * Inserts a one-to-one unless the pair already has one (unique index rooms_one_to_one_pair):
   * the id, or undefined when another request created the pair's conversation first.
   */
  insertOneToOne(row: NewRoom): Promise<number | undefined> {
    return this.insertUnlessTaken(row, 'name', RoomType.ONE_TO_ONE);
  }

  /**
   * Inserts a user's note-to-self (type 6, `object_id` the user), or nothing when they already
   * have one (unique index rooms_note_to_self): the id, or undefined when another request won.
   */
  insertNoteToSelf(row: NewRoom): Promise<number | undefined> {
    return this.insertUnlessTaken(row, 'object_id', RoomType.NOTE_TO_SELF);
  }

  /**
   * The insert of a room that a partial unique index allows once per `column` among rooms of
   * `type`: nothing (undefined) when the value is taken. The conflict target repeats the index's
   * condition as a literal, which both databases need to match it.
   */
  private async insertUnlessTaken(row: NewRoom, column: 'name' | 'object_id', type: number): Promise<number | undefined> {
    const r = await this.db
      .insertInto('rooms')
      .values(row)
      .onConflict((oc) =>
        oc
          .column(column)
          .where(sql<boolean>`type = ${sql.lit(type)}`)
          .doNothing(),
      )
      .returning('id')
      .executeTakeFirst();
    return r === undefined ? undefined : Number(r.id);
  }

  async update(id: number, patch: RoomPatch): Promise<void> {
    await this.db.updateTable('rooms').set(patch).where('id', '=', id).execute();
  }

  /**
   * One-to-one conversations among `ids` become former one-to-ones (a participant is gone),
   * read-only and named `name` (the gone user's display name), as Talk's Manager makes them: no
   * new messages, no calls, and no pair of user ids a new account could reopen.
   */
  async markFormerOneToOne(ids: number[], name: string): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .updateTable('rooms')
      .set({ type: RoomType.ONE_TO_ONE_FORMER, read_only: ReadOnlyState.READ_ONLY, name })
      .where('id', 'in', ids)
      .where('type', '=', RoomType.ONE_TO_ONE)
      .execute();
  }

  /**
   * An update that changes no value: the row's `rev` moves and its change-feed topic fires, so
   * answers kept for it go stale after a write to a table outside the feed (federation_unread).
   */
  async touchRow(id: number): Promise<void> {
    await this.db
      .updateTable('rooms')
      .set((eb) => ({ last_activity: eb.ref('last_activity') }))
      .where('id', '=', id)
      .execute();
  }

  /** Sets last_activity to `now` (never moves it backwards). */
  async touch(ids: number[], now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('rooms').set({ last_activity: now }).where('id', 'in', ids).where('last_activity', '<', now).execute();
  }

  /**
   * Lifts the lobby of rooms whose timer has passed (docs/reference/conversations.md#timers-and-jobs), in one statement.
   * Only rows still carrying an expired timer are touched, so concurrent readers agree.
   * Returns the rooms lifted by this statement, as they are now.
   */
  async liftExpiredLobbies(ids: number[] | 'all', now: number): Promise<RoomRow[]> {
    if (ids !== 'all' && ids.length === 0) return [];
    let q = this.db
      .updateTable('rooms')
      .set({ lobby_state: 0, lobby_timer: 0, last_activity: now })
      .where('lobby_timer', '>', 0)
      .where('lobby_timer', '<', now);
    if (ids !== 'all') q = q.where('id', 'in', ids);
    return q.returningAll().execute();
  }

  /** Saves computed default names (room id → name) in one statement, except where someone named the room meanwhile. */
  async setNamesIfEmpty(names: ReadonlyMap<number, string>): Promise<void> {
    if (names.size === 0) return;
    await this.db
      .updateTable('rooms')
      .set({ name: caseById(names) })
      .where('id', 'in', [...names.keys()])
      .where('name', '=', '')
      .execute();
  }

  /** A user's note-to-self conversation, if they have one. */
  findNoteToSelf(userId: string): Promise<RoomRow | undefined> {
    return this.db.selectFrom('rooms').selectAll().where('type', '=', RoomType.NOTE_TO_SELF).where('object_id', '=', userId).executeTakeFirst();
  }

  /** One-to-one room between two users: Talk dedupes on the JSON name. */
  findOneToOne(name: string): Promise<RoomRow | undefined> {
    return this.db.selectFrom('rooms').selectAll().where('type', '=', 1).where('name', '=', name).orderBy('id').executeTakeFirst();
  }

  /**
   * One-to-ones whose name (the pair's JSON, `oneToOneName`) contains `quotedId` (the user id as
   * that JSON writes it, quotes included), as Talk's Manager::getLeftOneToOneRoomsForUser finds
   * them; the caller checks the pair itself, since a LIKE on JSON text can match a longer id.
   */
  oneToOnesNaming(quotedId: string): Promise<RoomRow[]> {
    const pattern = `%${quotedId.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.db
      .selectFrom('rooms')
      .selectAll()
      .where('type', '=', RoomType.ONE_TO_ONE)
      .where(sql<boolean>`name LIKE ${pattern} ESCAPE '\\'`)
      .orderBy('id')
      .execute();
  }

  /** Breakout children of a parent (objectType `room`, objectId = parent token). */
  childrenOf(parentToken: string): Promise<RoomRow[]> {
    return this.childrenOfAll([parentToken]);
  }

  /** The breakout rooms of any of these parents (one statement per chunk), ordered by id. */
  async childrenOfAll(parentTokens: string[]): Promise<RoomRow[]> {
    const out: RoomRow[] = [];
    for (const part of chunks([...new Set(parentTokens)])) {
      out.push(...(await this.db.selectFrom('rooms').selectAll().where('object_type', '=', 'room').where('object_id', 'in', part).orderBy('id').execute()));
    }
    return out;
  }

  /**
   * Listed rooms (GET /listed-room): type 2 or 3, listable scope in `scopes`, the user is not an
   * attendee, name containing `term` (case-insensitive). Ordered by id.
   */
  listed(userId: string, scopes: number[], term: string): Promise<RoomRow[]> {
    let q = this.db
      .selectFrom('rooms')
      .selectAll()
      .where('type', 'in', [2, 3])
      .where('listable', 'in', scopes)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('attendees')
              .select('attendees.id')
              .whereRef('attendees.room_id', '=', 'rooms.id')
              .where('attendees.actor_type', '=', 'users')
              .where('attendees.actor_id', '=', userId),
          ),
        ),
      );
    if (term !== '') q = q.where(anyColumnContains(['name'], term));
    return q.orderBy('id').execute();
  }

  async deleteByIds(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.deleteFrom('rooms').where('id', 'in', ids).execute();
  }

  // ---- chat (docs/reference/chat.md#sending side effects) ----

  /**
   * The first statement of a message post on PostgreSQL: takes the room's row lock and moves
   * lastActivity, so posts into one room are serialised and commit in id order (a long-poll that
   * saw id n can never miss a smaller id committed later). A post of a counted message
   * (`counted`, chat-messages.ts UNREAD_TYPES) also counts it in chat_count and, when it
   * expires, in next_expiry: the same statement, so counting adds no statement and concurrent
   * posts add one each (migration 0706-chat-unread-counters).
   *
   * Nothing on SQLite: every transaction begins IMMEDIATE (database.ts), so it already holds the
   * database's only write lock and ids commit in order; the room's columns move after the
   * insert, in `pointAtMessage`'s one statement.
   *
   * False when the room is gone (deleted since the caller read it): the caller answers 404
   * rather than write into it. Always true on SQLite, where `pointAtMessage` tells.
   */
  async lockForMessage(id: number, now: number, counted?: { expiresAt: number }): Promise<boolean> {
    if (this.dialect === 'sqlite') return true;
    const expiresAt = counted?.expiresAt ?? 0;
    const rows = await postUpdate({ message: false, activity: true, counted: counted !== undefined, expiring: expiresAt > 0 })(this.db, {
      id,
      messageId: 0,
      now,
      expiresAt,
    });
    return rows.length > 0;
  }

  /**
   * After a message post's insert: points the room at its newest message (never backwards;
   * `messageId` 0: a post that does not move lastMessage). On SQLite the same statement moves
   * what `lockForMessage` left alone: lastActivity (`now` 0 leaves it as it is; then the
   * statement does not name the column and SQLite leaves its index rooms_last_activity alone,
   * one page fewer for the commit to write) and the counters of a counted message.
   *
   * False when SQLite's statement found no room (deleted since the caller read it); always true
   * on PostgreSQL, where `lockForMessage` tells.
   */
  async pointAtMessage(id: number, messageId: number, now: number, counted?: { expiresAt: number }): Promise<boolean> {
    if (this.dialect !== 'sqlite') {
      if (messageId > 0) await POINT_AT_MESSAGE(this.db, { id, messageId, now: 0, expiresAt: 0 });
      return true;
    }
    const expiresAt = counted?.expiresAt ?? 0;
    const shape = { message: messageId > 0, activity: now > 0, counted: counted !== undefined, expiring: expiresAt > 0 };
    if (!(shape.message || shape.activity || shape.counted)) return true;
    return (await postUpdate(shape)(this.db, { id, messageId, now, expiresAt })).length > 0;
  }

  /** A counted message of the room was deleted (inside the deletion's transaction; takes the row lock). */
  async uncountMessage(id: number): Promise<void> {
    await this.db
      .updateTable('rooms')
      .set({ chat_count: sql<number>`chat_count - 1` })
      .where('id', '=', id)
      .execute();
  }

  /** History cleared: no last message, nothing counted (the first statement of the clear: takes the row lock). */
  async clearChat(id: number): Promise<void> {
    await this.db.updateTable('rooms').set({ last_message: 0, chat_count: 0, next_expiry: 0, last_pinned_id: 0 }).where('id', '=', id).execute();
  }

  /** A message was pinned: it is the room's last pin (docs/reference/conversations.md#the-conversation-record `lastPinnedId`). */
  async setLastPinned(id: number, messageId: number): Promise<void> {
    await this.db.updateTable('rooms').set({ last_pinned_id: messageId }).where('id', '=', id).execute();
  }

  /** A pin of the rooms ended (unpinned, deleted): their last pin falls back (last-pinned.ts). */
  repointLastPinned(ids: readonly number[], ifLastPinned?: number): Promise<void> {
    return repointLastPinned(this.db, ids, ifLastPinned);
  }

  /** Points several rooms at their newest message in one statement (room id → message id; never backwards). */
  async setLastMessages(latest: ReadonlyMap<number, number>): Promise<void> {
    if (latest.size === 0) return;
    await this.db
      .updateTable('rooms')
      .set({ last_message: caseById(latest, sql.ref('last_message')) })
      .where('id', 'in', [...latest.keys()])
      .execute();
  }
}
