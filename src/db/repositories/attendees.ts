/**
 * SQL for attendees (table `attendees`): one row per actor and conversation, unique on
 * (room_id, actor_type, actor_id). Lookups by actor use `attendees_actor`; by room the unique
 * index (room_id first).
 *
 * Sections: lookups, inserts, updates, deletes. Keep new methods in the matching section.
 */
import type { Insertable, InsertObject, Kysely, Selectable, Updateable } from 'kysely';
import { PostgresAdapter, sql } from 'kysely';
import type { AttendeesTable, Database } from '../schema.js';
import { chunks, IN_LIST_CHUNK, rowsPerInsert } from '../chunks.js';
import { MODERATOR_TYPES } from '../../domain/permissions.js';
import { compiledStatement } from '../compiled-statement.js';
import { caseById } from '../id-lists.js';
import { UNREAD_TYPES } from './chat-messages.js';
import { mentionedIds } from '../../domain/chat.js';
import { COLLECTIVE_ACTOR_TYPES } from '../../domain/constants.js';

export type AttendeeRow = Selectable<AttendeesTable>;
export type NewAttendee = Insertable<AttendeesTable>;
export type AttendeePatch = Updateable<Omit<AttendeesTable, 'id'>>;

/**
 * The columns of the caller's attendee row a conversation record is built from
 * (presenters/conversation.ts) plus what GET /room filters on: what `ConversationView.attendee`
 * must carry, whichever statement read it.
 */
export type ConversationAttendeeRow = Pick<
  AttendeeRow,
  | 'id'
  | 'room_id'
  | 'actor_type'
  | 'actor_id'
  | 'pin'
  | 'participant_type'
  | 'favorite'
  | 'notification_level'
  | 'notification_calls'
  | 'last_read_message'
  | 'last_mention_message'
  | 'last_mention_direct'
  | 'read_privacy'
  | 'permissions'
  | 'phone_number'
  | 'call_id'
  | 'last_attendee_activity'
  | 'read_count'
  | 'archived'
  | 'important'
  | 'sensitive'
  | 'hidden_pinned_id'
  | 'has_scheduled_messages'
>;

/** Column values of a new attendee besides room, actor and participant type (the migration's defaults). */
export const ATTENDEE_DEFAULTS: Omit<NewAttendee, 'room_id' | 'actor_type' | 'actor_id' | 'participant_type'> = {
  display_name: '',
  pin: null,
  favorite: 0,
  notification_level: 0,
  notification_calls: 1,
  last_joined_call: 0,
  last_read_message: 0,
  last_mention_message: 0,
  last_mention_direct: 0,
  read_privacy: 0,
  permissions: 0,
  access_token: null,
  invited_cloud_id: null,
  phone_number: null,
  call_id: null,
  dialout_request: null,
  dialout_requested_at: 0,
  last_attendee_activity: 0,
  created_at: 0,
  read_count: 0,
  archived: 0,
  important: 0,
  sensitive: 0,
};

/** An attendee row's read_count for its current marker (migration 0706): see setReadMarker. */
function readCountAtMarker() {
  return sql<number>`case when last_read_message <= 0 then 0 else (select r.chat_count from rooms r where r.id = attendees.room_id) - (select count(*) from chat_messages m where m.room_id = attendees.room_id and m.id > attendees.last_read_message and m.message_type in (${sql.join(UNREAD_TYPES)})) end`;
}

// Statements of every chat post and chat answer, compiled once (compiled-statement.ts).
const ADVANCE_READ_MARKER = compiledStatement<unknown, { id: number; messageId: number; now: number }>((db, p) =>
  db
    .updateTable('attendees')
    .set({
      last_read_message: p('messageId'),
      last_attendee_activity: p('now'),
      read_count: sql<number>`(select r.chat_count from rooms r where r.id = attendees.room_id)`,
    })
    .where('id', '=', p('id'))
    .where('last_read_message', '<', p('messageId')),
);
/** The users to tell of a message (NotificationService.messagePosted): levels `a` and `b` (the same when only one). */
const USERS_TO_NOTIFY_OF_MESSAGES = compiledStatement<{ actor_id: string }, { roomId: number; a: number; b: number; onlineSince: number }>((db, p) =>
  db
    .selectFrom('attendees as a')
    .select('a.actor_id')
    .where('a.room_id', '=', p('roomId'))
    .where('a.notification_level', 'in', [p('a'), p('b')])
    .where('a.actor_type', '=', 'users')
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('sessions as s').select('s.id').whereRef('s.attendee_id', '=', 'a.id').where('s.last_ping', '>=', p('onlineSince')))),
    ),
);
const COMMON_READ_OF_ROOM = compiledStatement<{ common: number | null }, { roomId: number }>((db, p) =>
  db
    .selectFrom('attendees')
    .select((eb) => eb.fn.min<number>('last_read_message').as('common'))
    .where('room_id', '=', p('roomId'))
    .where('actor_type', '=', 'users')
    .where('read_privacy', '=', 0),
);

/**
 * What decides whether a conversation record rendered earlier is still current, for each of a
 * user's conversations (services/conversations/conversation-list.ts): the revisions of the attendee row, the
 * room row and the room's last message (migration 0711-record-revisions), the last message's
 * user author's current name and expiry, the common read marker (one index seek), and what
 * GET /room's modifiedSince filters on. Narrow on purpose: no wide row is read for a record
 * that is reused.
 */
export interface ConversationRevision {
  attendee_id: number;
  room_id: number;
  attendee_rev: number;
  last_attendee_activity: number;
  room_rev: number;
  token: string;
  type: number;
  /** One-to-one kinds only (the two users' ids), else null. */
  one_to_one_name: string | null;
  last_activity: number;
  call_flag: number;
  message_rev: number | null;
  message_expires_at: number | null;
  author_name: string | null;
  common_read: number | null;
}

const CONVERSATION_REVISIONS = compiledStatement<ConversationRevision, { actorType: string; actorId: string }>((db, p) => {
  const columns = [
    'a.id as attendee_id',
    'a.room_id',
    'a.rev as attendee_rev',
    'a.last_attendee_activity',
    'r.rev as room_rev',
    'r.token',
    'r.type',
    'r.last_activity',
    'r.call_flag',
    'lm.rev as message_rev',
    'lm.expires_at as message_expires_at',
    'lu.display_name as author_name',
  ] as const;
  const oneToOneName = sql<string | null>`case when r.type in (1, 5) then r.name end`.as('one_to_one_name');
  const common = sql<
    number | null
  >`(select min(ca.last_read_message) from attendees ca where ca.room_id = a.room_id and ca.actor_type = 'users' and ca.read_privacy = 0)`.as('common_read');
  const mine = db.selectFrom('attendees as a').where('a.actor_type', '=', p('actorType')).where('a.actor_id', '=', p('actorId'));
  // PostgreSQL plans a plain join of the user's rows with rooms as a hash join over a scan of
  // every room (EXPLAIN ANALYZE at 10k rooms: 2.7 ms of 4.1), and pulls a plain lateral subquery
  // up into that same join; `limit 1` keeps it a lookup by primary key per attendee row, so the
  // cost follows the user's rooms, not the table (SQLite loops that way anyway).
  const withRooms =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? mine.innerJoinLateral(
          (eb) => eb.selectFrom('rooms').selectAll().whereRef('rooms.id', '=', 'a.room_id').limit(1).as('r'),
          (j) => j.onTrue(),
        )
      : mine.innerJoin('rooms as r', 'r.id', 'a.room_id');
  return withRooms
    .leftJoin('chat_messages as lm', (j) => j.onRef('lm.id', '=', 'r.last_message').onRef('lm.room_id', '=', 'r.id'))
    .leftJoin('users as lu', (j) => j.onRef('lu.id', '=', 'lm.actor_id').on('lm.actor_type', '=', 'users'))
    .select(columns)
    .select(oneToOneName)
    .select(common)
    .orderBy('a.room_id');
});

export class AttendeesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  // ---- lookups ----

  find(roomId: number, actorType: string, actorId: string): Promise<AttendeeRow | undefined> {
    return this.db
      .selectFrom('attendees')
      .selectAll()
      .where('room_id', '=', roomId)
      .where('actor_type', '=', actorType)
      .where('actor_id', '=', actorId)
      .executeTakeFirst();
  }

  /** Which of these attendee ids are still attendees of the room (one statement). */
  async stillIn(roomId: number, ids: number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('attendees').select('id').where('room_id', '=', roomId).where('id', 'in', ids).execute();
    return new Set(rows.map((r) => Number(r.id)));
  }

  /** The attendee rows of these actors in one room (one statement; the actors a chat message names). */
  async actorsOf(roomId: number, actors: ReadonlyArray<{ type: string; id: string }>): Promise<AttendeeRow[]> {
    const byType = new Map<string, string[]>();
    for (const a of actors) byType.set(a.type, [...(byType.get(a.type) ?? []), a.id]);
    if (byType.size === 0) return [];
    return this.db
      .selectFrom('attendees')
      .selectAll()
      .where('room_id', '=', roomId)
      .where((eb) => eb.or([...byType].map(([type, ids]) => eb.and([eb('actor_type', '=', type), eb('actor_id', 'in', [...new Set(ids)])]))))
      .execute();
  }

  /**
   * The users of a room at one of `levels` of notification (Talk's
   * getParticipantsByNotificationLevel) who have no session pinged since `onlineSince`: those
   * reading the conversation right now are not notified of its messages.
   */
  async usersToNotifyOfMessages(roomId: number, levels: [number] | [number, number], onlineSince: number): Promise<string[]> {
    const rows = await USERS_TO_NOTIFY_OF_MESSAGES(this.db, { roomId, a: levels[0], b: levels[1] ?? levels[0], onlineSince });
    return rows.map((r) => r.actor_id);
  }

  /** Attendee rows of the given actors in the given rooms (one query per 5,000 actors). */
  async actorsInRooms(roomIds: number[], actorType: string, actorIds: string[]): Promise<AttendeeRow[]> {
    if (roomIds.length === 0 || actorIds.length === 0) return [];
    const out: AttendeeRow[] = [];
    for (const part of chunks([...new Set(actorIds)])) {
      out.push(
        ...(await this.db
          .selectFrom('attendees')
          .selectAll()
          .where('room_id', 'in', roomIds)
          .where('actor_type', '=', actorType)
          .where('actor_id', 'in', part)
          .execute()),
      );
    }
    return out;
  }

  findById(id: number): Promise<AttendeeRow | undefined> {
    return this.db.selectFrom('attendees').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** Dial-outs started at or after `since` that the bridge has not taken yet, oldest first. */
  pendingDialOuts(since: number, limit: number): Promise<Array<{ token: string; call_id: string | null; dialout_request: string | null }>> {
    return this.db
      .selectFrom('attendees as a')
      .innerJoin('rooms as r', 'r.id', 'a.room_id')
      .select(['r.token', 'a.call_id', 'a.dialout_request'])
      .where('a.dialout_requested_at', '>=', since)
      .where('a.dialout_request', 'is not', null)
      .orderBy('a.dialout_requested_at')
      .orderBy('a.id')
      .limit(limit)
      .execute();
  }

  /** The first attendee of a room with this dial-in PIN (Talk does not keep PINs unique). */
  findByPin(roomId: number, pin: string): Promise<AttendeeRow | undefined> {
    return this.db.selectFrom('attendees').selectAll().where('room_id', '=', roomId).where('pin', '=', pin).orderBy('id').executeTakeFirst();
  }

  /** Every attendee row of one actor (a user's conversation list), one indexed query. */
  forActor(actorType: string, actorId: string): Promise<AttendeeRow[]> {
    return this.db.selectFrom('attendees').selectAll().where('actor_type', '=', actorType).where('actor_id', '=', actorId).execute();
  }

  /** See ConversationRevision: one narrow statement for all of an actor's conversations, ordered by room id. */
  conversationRevisionsOf(actorType: string, actorId: string): Promise<ConversationRevision[]> {
    return CONVERSATION_REVISIONS(this.db, { actorType, actorId });
  }

  forRoom(roomId: number): Promise<AttendeeRow[]> {
    return this.db.selectFrom('attendees').selectAll().where('room_id', '=', roomId).orderBy('id').execute();
  }

  /** Owners, moderators and guest moderators of a room. */
  moderatorsOf(roomId: number): Promise<AttendeeRow[]> {
    return this.db.selectFrom('attendees').selectAll().where('room_id', '=', roomId).where('participant_type', 'in', MODERATOR_TYPES).orderBy('id').execute();
  }

  /** Per room, its users' display names (the account's, else the user id) in the order they joined. */
  async userDisplayNames(roomIds: number[]): Promise<Map<number, string[]>> {
    const out = new Map<number, string[]>();
    if (roomIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('attendees as a')
      .leftJoin('users as u', 'u.id', 'a.actor_id')
      .select(['a.room_id', 'a.actor_id', 'u.display_name'])
      .where('a.room_id', 'in', roomIds)
      .where('a.actor_type', '=', 'users')
      .orderBy('a.room_id')
      .orderBy('a.id')
      .execute();
    for (const r of rows) {
      const list = out.get(r.room_id) ?? [];
      list.push(r.display_name || r.actor_id);
      out.set(r.room_id, list);
    }
    return out;
  }

  /**
   * lastCommonReadMessage per room: the lowest `last_read_message` of the `users` attendees whose
   * read privacy is public (docs/reference/conversations.md#the-conversation-record), for several rooms in one query.
   */
  async commonReadMessages(roomIds: number[]): Promise<Map<number, number>> {
    if (roomIds.length === 0) return new Map();
    if (roomIds.length === 1) {
      // One room (every chat answer's X-Chat-Last-Common-Read): the statement compiled once.
      const [one] = await COMMON_READ_OF_ROOM(this.db, { roomId: roomIds[0] });
      return new Map(one && one.common !== null ? [[roomIds[0], Number(one.common)]] : []);
    }
    const rows = await this.db
      .selectFrom('attendees')
      .select(['room_id', (eb) => eb.fn.min<number>('last_read_message').as('common')])
      .where('room_id', 'in', roomIds)
      .where('actor_type', '=', 'users')
      .where('read_privacy', '=', 0)
      .groupBy('room_id')
      .execute();
    return new Map(rows.map((r) => [Number(r.room_id), Number(r.common)]));
  }

  // ---- inserts ----

  /**
   * Inserts attendees; a row that already exists for (room, actorType, actorId) is silently kept
   * as it is (Talk ignores duplicate inserts). New `users` rows take the user's
   * `read_status_privacy` preference as read_privacy (docs/reference/capabilities-and-config.md#user-settings), whatever path adds
   * them (creation, invitations, groups, teams): one more query for any number of rows.
   *
   * Every new attendee but a group or team has read the conversation up to its last message
   * (Talk's ParticipantService::addUsers and joinRoomAsNewGuest): its marker and the counter
   * that goes with it (migration 0706) are read from the room by the insert itself, so the two
   * agree with each other and with the room's chat_count whatever commits meanwhile.
   */
  async insertIgnoringDuplicates(rows: NewAttendee[]): Promise<void> {
    if (rows.length === 0) return;
    const userIds = [...new Set(rows.filter((r) => r.actor_type === 'users').map((r) => r.actor_id))];
    if (userIds.length) {
      const privateReaders = new Set<string>();
      for (const part of chunks(userIds, IN_LIST_CHUNK)) {
        const found = await this.db
          .selectFrom('user_preferences')
          .select('user_id')
          .where('key', '=', 'read_status_privacy')
          .where('value', '=', '1')
          .where('user_id', 'in', part)
          .execute();
        for (const f of found) privateReaders.add(f.user_id);
      }
      rows = rows.map((r) => (r.actor_type === 'users' ? { ...r, read_privacy: privateReaders.has(r.actor_id) ? 1 : 0 } : r));
    }
    const values: Array<InsertObject<Database, 'attendees'>> = rows.map((r) =>
      COLLECTIVE_ACTOR_TYPES.includes(r.actor_type)
        ? r
        : {
            ...r,
            last_read_message: sql<number>`(select r.last_message from rooms r where r.id = ${r.room_id})`,
            read_count: sql<number>`(select r.chat_count from rooms r where r.id = ${r.room_id})`,
          },
    );
    // One statement per slice: a large group or team would exceed SQLite's parameter cap.
    for (const part of chunks(values, rowsPerInsert(Object.keys(rows[0]).length))) {
      await this.db
        .insertInto('attendees')
        .values(part)
        .onConflict((oc) => oc.columns(['room_id', 'actor_type', 'actor_id']).doNothing())
        .execute();
    }
  }

  // ---- updates ----

  async update(id: number, patch: AttendeePatch): Promise<void> {
    await this.db.updateTable('attendees').set(patch).where('id', '=', id).execute();
  }

  /** Stores dial-in PINs for several attendees in one statement (lazy PIN generation). */
  async setPins(pins: Map<number, string>, now: number): Promise<void> {
    if (pins.size === 0) return;
    await this.db
      .updateTable('attendees')
      .set({ pin: caseById(pins), last_attendee_activity: now })
      .where('id', 'in', [...pins.keys()])
      .where('pin', 'is', null)
      .execute();
  }

  // ---- chat read markers and mentions (docs/reference/chat.md#sending, docs/reference/chat.md#other-operations) ----

  /**
   * Sets an attendee's read marker (any value >= -2) and its counter `read_count` (the counted
   * messages up to the marker, migration 0706); bumps its activity for modifiedSince. Returns
   * the new read_count and the room's chat_count read with it (unread = their difference).
   *
   * Two statements, and the caller runs them in a transaction: the first takes the attendee's
   * row lock, the second counts in a snapshot taken after it. A message deletion or the
   * expiration job adjusts every attendee row of its room under those row locks, so it either
   * finished before the count (which then sees it) or waits and adjusts the new marker; a
   * one-statement version could count in a snapshot older than an adjustment it then overwrites.
   * The count walks the (room_id, id) index from the marker: nothing when the marker is the
   * last message, and a marker at or below 0 counts nothing.
   */
  async setReadMarker(id: number, messageId: number, now: number): Promise<{ readCount: number; chatCount: number }> {
    await this.db.updateTable('attendees').set({ last_read_message: messageId, last_attendee_activity: now }).where('id', '=', id).execute();
    const r = await this.db
      .updateTable('attendees')
      .set({ read_count: readCountAtMarker() })
      .where('id', '=', id)
      .returning(['read_count', sql<number>`(select r.chat_count from rooms r where r.id = attendees.room_id)`.as('chat_count')])
      .executeTakeFirst();
    return { readCount: Number(r?.read_count ?? 0), chatCount: Number(r?.chat_count ?? 0) };
  }

  /**
   * setReadMarker for several attendees moving to the same message (a turn's long-polls,
   * services/chat/receive-read-markers.ts): the same two statements for all of them (per chunk), in
   * the caller's transaction, with the same locking argument. Ids in ascending order, so two
   * such batches lock shared rows in the same order.
   */
  async setReadMarkers(ids: number[], messageId: number, now: number): Promise<void> {
    for (const part of chunks([...new Set(ids)].sort((a, b) => a - b))) {
      await this.db.updateTable('attendees').set({ last_read_message: messageId, last_attendee_activity: now }).where('id', 'in', part).execute();
      await this.db.updateTable('attendees').set({ read_count: readCountAtMarker() }).where('id', 'in', part).execute();
    }
  }

  /**
   * The author's marker moves to their own new message (never backwards). Inside the post's
   * transaction, under the room's row lock: every counted message is at or below it, so
   * read_count is the room's chat_count.
   */
  async advanceReadMarker(id: number, messageId: number, now: number): Promise<void> {
    await ADVANCE_READ_MARKER(this.db, { id, messageId, now });
  }

  /**
   * A counted message of the room stopped counting (deleted): attendees who had read it have one
   * read counted message less. One statement that touches every attendee row of the room, so it
   * serialises with concurrent marker moves on their row locks (see setReadMarker). Inside the
   * deletion's transaction, after the room's row lock.
   */
  async uncountReadMessage(roomId: number, messageId: number): Promise<void> {
    await this.db
      .updateTable('attendees')
      .set({ read_count: sql<number>`read_count - case when last_read_message >= ${messageId} then 1 else 0 end` })
      .where('room_id', '=', roomId)
      .execute();
  }

  /**
   * Marks attendees of a room as mentioned by message `messageId`, in one statement for both
   * kinds: `direct` (an @user mention or a reply) also sets the direct flag, `indirect` (@all,
   * a group) only the mention (docs/reference/chat.md#the-message-object unreadMention/unreadMentionDirect).
   */
  async markMentioned(roomId: number, mentioned: { direct: readonly number[]; indirect: readonly number[] }, messageId: number): Promise<void> {
    const { direct, all } = mentionedIds(mentioned);
    if (all.length === 0) return;
    const directSet = new Set(direct);
    for (const part of chunks(all)) {
      const directHere = part.filter((id) => directSet.has(id));
      await this.db
        .updateTable('attendees')
        .set(
          directHere.length === part.length
            ? { last_mention_message: messageId, last_mention_direct: messageId }
            : directHere.length === 0
              ? { last_mention_message: messageId }
              : {
                  last_mention_message: messageId,
                  last_mention_direct: sql<number>`case when id in (${sql.join(directHere)}) then ${messageId} else last_mention_direct end`,
                },
        )
        .where('room_id', '=', roomId)
        .where('id', 'in', part)
        .execute();
    }
  }

  /** History cleared: every attendee's chat fields start over, the read marker at `marker` (at most 0: nothing read). */
  async resetChatState(roomId: number, marker: number, now: number): Promise<void> {
    await this.db
      .updateTable('attendees')
      .set({ last_read_message: marker, last_mention_message: 0, last_mention_direct: 0, read_count: 0, hidden_pinned_id: 0, last_attendee_activity: now })
      .where('room_id', '=', roomId)
      .execute();
  }

  /** The attendee hides a pinned message for themselves (one at a time, docs/reference/conversations.md#the-conversation-record `hiddenPinnedId`). */
  async hidePinned(id: number, messageId: number, now: number): Promise<void> {
    await this.db.updateTable('attendees').set({ hidden_pinned_id: messageId, last_attendee_activity: now }).where('id', '=', id).execute();
  }

  /** A message pinned again shows again to everyone who had hidden it. */
  async unhidePinned(roomId: number, messageId: number): Promise<void> {
    await this.db.updateTable('attendees').set({ hidden_pinned_id: 0 }).where('room_id', '=', roomId).where('hidden_pinned_id', '=', messageId).execute();
  }

  // ---- deletes ----

  /** Attendee rows only (their sessions and breakout copies are the caller's next step). */
  async deleteByIds(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.deleteFrom('attendees').where('id', 'in', ids).execute();
  }

  /**
   * Deletes the attendees of these rooms; returns their ids (their sessions go next) and the
   * federated ones (their servers are owed SHARE_UNSHARED), from the same statement.
   */
  async deleteForRooms(roomIds: number[]): Promise<{ ids: number[]; federated: Array<{ id: number; actor_id: string; access_token: string | null }> }> {
    if (roomIds.length === 0) return { ids: [], federated: [] };
    const rows = await this.db.deleteFrom('attendees').where('room_id', 'in', roomIds).returning(['id', 'actor_type', 'actor_id', 'access_token']).execute();
    return {
      ids: rows.map((r) => Number(r.id)),
      federated: rows.filter((r) => r.actor_type === 'federated_users').map((r) => ({ id: Number(r.id), actor_id: r.actor_id, access_token: r.access_token })),
    };
  }
}
