/**
 * Writing chat messages (docs/reference/chat.md#sending, docs/reference/chat.md#system-messages): user messages and system messages, each
 * in one transaction with the room's lastMessage/lastActivity, the author's read marker and
 * the mention markers of the attendees it mentions. The reads (history, long-poll) and the
 * HTTP rules (who may post, limits) live in chat-api.ts, a room's chat state in
 * conversation-view.ts.
 *
 * Every post takes the room's row lock before its message gets an id (on PostgreSQL a user's
 * post in its one statement, ChatMessagesRepository.postAlone; a system message with
 * RoomsRepository.lockForMessage), so the messages of one room commit in id order and a
 * long-poll that has seen id n never misses a smaller id.
 */
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import { commitGroup, type CommitGroup } from '../../db/commit-group.js';
import type { Database } from '../../db/schema.js';
import { CHAT_MESSAGE_DEFAULTS, UNREAD_TYPES, type ChatMessageRow, type NewChatMessage } from '../../db/repositories/chat-messages.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { EventBus } from '../../events/bus.js';
import type { EventMap } from '../../events/event-map.js';
import { CLI_ACTOR, MessageType, SYSTEM_ACTOR, type ChatActor, type MentionNotice } from '../../domain/chat.js';
import { ActorType } from '../../domain/constants.js';
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { RequestContext } from '../platform/request-context.js';
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import { nowSeconds } from '../../domain/time.js';
import { notFound } from '../../domain/errors.js';
import { sharedItemTypeOf } from '../../domain/chat-shares.js';
import { chunks, rowsPerInsert } from '../../db/chunks.js';
import type { Repositories } from '../../db/repositories/index.js';

/** Who a message is from: an attendee's actor, or guests/system, guests/cli. */
// The shapes events carry live in domain/ (events/event-map.ts imports them from there, not from
// this service); re-exported for the services that take them from here.
export type { ChatActor, MentionNotice } from '../../domain/chat.js';

/**
 * The actor a change is recorded under (docs/reference/chat.md#system-messages "General"): the acting
 * participant, else the logged-in user, else guests/cli for the operator, else guests/system.
 */
export function chatActorOf(ctx: RequestContext, attendee?: AttendeeRow): ChatActor {
  if (attendee && attendee.id > 0) {
    const displayName = attendee.actor_type === ActorType.USERS && ctx.user?.id === attendee.actor_id ? ctx.user.display_name : attendee.display_name;
    return { type: attendee.actor_type, id: attendee.actor_id, displayName };
  }
  if (ctx.user) return { type: ActorType.USERS, id: ctx.user.id, displayName: ctx.user.display_name };
  if (ctx.isSystem) return { ...CLI_ACTOR };
  return { ...SYSTEM_ACTOR };
}

/** The wake-up channel (cache/wake.ts) of a room's chat. */
export const chatChannel = (roomId: number): string => `chat:${roomId}`;

/**
 * A user a message reaches by name, and how (Talk's Chat\Notifier reasons): the author of the
 * message replied to, a direct @mention, a member of a mentioned group (`sourceId` the group,
 * `sourceName` its name), or everybody through @all. Each user once, in that order of precedence.
 */

/** Attendee ids a message mentions: `direct` (@user, reply to their message) and `indirect` (@all, groups). */
export interface MentionedAttendees {
  direct: number[];
  indirect: number[];
  /** The users to notify after commit, with their reason. */
  notices: MentionNotice[];
}

export interface UserMessageInput {
  actor: ChatActor;
  /** The author's attendee row id (their read marker moves to the new message); 0 for none. */
  attendeeId: number;
  /** Text with mentions replaced by placeholders, and the placeholders' objects. */
  message: string;
  parameters: Record<string, unknown>;
  parentId: number | null;
  referenceId: string;
  silent: boolean;
  canMentionAll: boolean;
  /** The posting request's app config, passed on to `chat.message-posted` (none outside a request). */
  config?: AppConfigSnapshot;
  mentions: MentionedAttendees;
}

export interface SystemMessageOptions {
  /** The message this one is about (message_deleted, message_edited, ...): shown as `parent`. */
  parentId?: number;
  /**
   * Bookkeeping messages (message_deleted, message_edited, ...) do not move the room's
   * lastMessage/lastActivity (docs/reference/chat.md#system-messages "skip-update").
   */
  skipRoomUpdate?: boolean;
  /** The change's own time (unix seconds), so the message and lastActivity agree with it. */
  at?: number;
  /** Stored with the silent flag (a silent call's `call_started`, docs/reference/chat.md#system-messages). */
  silent?: boolean;
}

export class ChatService {
  /** Users' posts of this process, committed together when they come together (db/commit-group.ts). */
  private readonly userPosts: CommitGroup;

  constructor(
    private readonly db: Db,
    private readonly repos: Repositories,
    private readonly events: EventBus,
  ) {
    this.userPosts = commitGroup(db.kysely, db.dialect);
  }

  /**
   * Posts a system message inside the caller's transaction (atomic with the change it
   * records). `parameters` are rich objects besides `actor` (added when read). Returns its id.
   */
  async postSystemMessage(
    trx: Kysely<Database>,
    room: RoomRow,
    actor: ChatActor,
    systemMessage: string,
    parameters: Record<string, unknown> = {},
    opts: SystemMessageOptions = {},
  ): Promise<number> {
    const fields = {
      message_type: MessageType.SYSTEM,
      system_message: systemMessage,
      message_parameters: JSON.stringify(parameters),
      parent_id: opts.parentId ?? null,
      ...(opts.silent ? { silent: 1 } : {}),
    };
    const id = await this.postInTransaction(trx, room, actor, opts.at ?? nowSeconds(), fields, !opts.skipRoomUpdate);
    // Of the messages that do not move lastActivity, edits and deletions are owed too: the other
    // server reads the message again (docs/reference/federation.md#keeping-the-conversation-current).
    if (!opts.skipRoomUpdate || systemMessage === 'message_edited' || systemMessage === 'message_deleted') await this.owedToFederation(trx, room, id);
    return id;
  }

  /**
   * Posts several system messages into one room, in this order, inside the caller's transaction
   * (an added group and its members, docs/reference/chat.md#system-messages): one multi-row insert (per chunk)
   * instead of a post per message; the room is locked, pointed at the last one and woken once,
   * and each is announced as `postSystemMessage` announces it.
   */
  async postSystemMessages(
    trx: Kysely<Database>,
    room: RoomRow,
    actor: ChatActor,
    messages: ReadonlyArray<{ systemMessage: string; parameters: Record<string, unknown> }>,
  ): Promise<void> {
    if (messages.length <= 1) {
      for (const m of messages) await this.postSystemMessage(trx, room, actor, m.systemMessage, m.parameters);
      return;
    }
    const now = nowSeconds();
    const rows = messages.map((m) => ({
      ...this.baseRow(room, actor, now),
      message_type: MessageType.SYSTEM,
      system_message: m.systemMessage,
      message_parameters: JSON.stringify(m.parameters),
    }));
    const tx = this.repos.withTransaction(trx);
    // The row lock that orders this room's posts (file comment), as `insert` takes it.
    if (!(await tx.rooms.lockForMessage(room.id, now))) throw notFound('room');
    const ids: number[] = [];
    // A multi-row insert numbers its rows in order, so the ids follow `messages`.
    for (const part of chunks(rows, rowsPerInsert(Object.keys(rows[0]).length))) ids.push(...(await tx.chatMessages.insertMany(part)).map((x) => x.id));
    ids.sort((a, b) => a - b);
    if (!(await tx.rooms.pointAtMessage(room.id, ids[ids.length - 1], room.last_activity < now ? now : 0))) throw notFound('room');
    await this.db.wake.notify([chatChannel(room.id)], trx);
    for (const id of ids) await this.events.emit('chat.posted-in-transaction', { trx, room, messageId: id });
    for (const id of ids) await this.owedToFederation(trx, room, id);
  }

  /**
   * Posts one system message into each of several rooms in a constant number of statements,
   * inside the caller's transaction, which must already hold the rooms' row locks (it updated
   * them) and moved their lastActivity to `now`: used for changes made to many rooms by one
   * statement (lobby timers reached).
   */
  async postSystemMessagesToLocked(trx: Kysely<Database>, rooms: RoomRow[], actor: ChatActor, systemMessage: string, now: number): Promise<void> {
    if (rooms.length === 0) return;
    const rows = rooms.map((room) => ({
      ...this.baseRow(room, actor, now),
      message_type: MessageType.SYSTEM,
      system_message: systemMessage,
      message_parameters: '{}',
    }));
    const { chatMessages, rooms: roomsRepo } = this.repos.withTransaction(trx);
    const ids = await chatMessages.insertMany(rows);
    await roomsRepo.setLastMessages(new Map(ids.map((x) => [x.roomId, x.id])));
    await this.db.wake.notify(
      rooms.map((r) => chatChannel(r.id)),
      trx,
    );
  }

  /**
   * Posts a shared object (a poll, a location, ...) as the actor's chat message inside the
   * caller's transaction: stored `object_shared`, shown as a comment `{object}` (docs/reference/chat.md#the-message-object, docs/reference/chat.md#shared-objects, docs/reference/chat.md#polls; the `actor` parameter is rendered when read), and listed among the room's
   * shared items by the kind its type makes it (docs/reference/chat.md#shared-items). With `authorAttendeeId` the
   * author's read marker moves to it, as after a post. Returns its id.
   */
  async postSharedObject(
    trx: Kysely<Database>,
    room: RoomRow,
    actor: ChatActor,
    object: { type: string } & Record<string, unknown>,
    opts: { referenceId?: string; authorAttendeeId?: number } = {},
  ): Promise<number> {
    const now = nowSeconds();
    const fields = {
      message: '{object}',
      message_type: MessageType.OBJECT_SHARED,
      message_parameters: JSON.stringify({ object }),
      reference_id: opts.referenceId ?? '',
    };
    const id = await this.postInTransaction(trx, room, actor, now, fields, true);
    const tx = this.repos.withTransaction(trx);
    await tx.chatSharedItems.add(id, room.id, sharedItemTypeOf(object.type));
    if (opts.authorAttendeeId) await tx.attendees.advanceReadMarker(opts.authorAttendeeId, id, now);
    await this.owedToFederation(trx, room, id);
    return id;
  }

  /**
   * Posts a file shared into the conversation as the actor's message inside the caller's
   * transaction (docs/reference/files.md#what-a-share-posts): stored `object_shared` with the
   * share and its file, the caption (or `{file}`) as the text, a reply and the silent flag as a
   * post has them; listed among the shared items by `itemType`. Returns its id.
   */
  async postFileShare(
    trx: Kysely<Database>,
    room: RoomRow,
    actor: ChatActor,
    parameters: Record<string, unknown>,
    opts: {
      message: string;
      referenceId: string;
      parentId: number | null;
      silent: boolean;
      itemType: string;
      authorAttendeeId: number;
      canMentionAll: boolean;
      mentions: MentionedAttendees;
    },
  ): Promise<number> {
    const now = nowSeconds();
    const fields = {
      message: opts.message,
      message_type: MessageType.OBJECT_SHARED,
      message_parameters: JSON.stringify(parameters),
      reference_id: opts.referenceId,
      parent_id: opts.parentId,
      silent: opts.silent ? 1 : 0,
      can_mention_all: opts.canMentionAll ? 1 : 0,
    };
    const id = await this.postInTransaction(trx, room, actor, now, fields, true);
    const tx = this.repos.withTransaction(trx);
    await tx.chatSharedItems.add(id, room.id, opts.itemType);
    if (opts.authorAttendeeId > 0) await tx.attendees.advanceReadMarker(opts.authorAttendeeId, id, now);
    // The caption's mentions count as a message's (docs/reference/files.md#talkmetadata).
    await tx.attendees.markMentioned(room.id, opts.mentions, id);
    await this.owedToFederation(trx, room, id);
    return id;
  }

  /**
   * Announces a shared object posted by `postSharedObject` once its transaction committed
   * (`chat.object-shared`): Talk notifies shares as messages (docs/reference/chat.md#shared-objects). Not
   * `chat.message-posted`: the signaling server already had it from the transaction.
   */
  async objectShared(room: RoomRow, messageId: number, actor: ChatActor, mentioned?: MentionNotice[]): Promise<void> {
    await this.events.emit('chat.object-shared', { room, messageId, actor, mentioned });
  }

  /** Announces an edit once committed (`chat.message-edited`): its mention notifications follow it. */
  async messageEdited(event: EventMap['chat.message-edited']): Promise<void> {
    await this.events.emit('chat.message-edited', event);
  }

  /** Announces a user's deletion of a message once its transaction committed. */
  async messageDeleted(event: EventMap['chat.message-deleted']): Promise<void> {
    await this.events.emit('chat.message-deleted', event);
  }

  /**
   * Posts a user's message (checks done by the caller) in its own short transaction, then
   * announces `chat.message-posted` once it is committed. Returns the stored row (the send
   * answers with it, docs/reference/chat.md#sending). On SQLite the transaction may be committed together with concurrent
   * posts (db/commit-group.ts): insert, room, the author's read marker, and one for the
   * mentioned attendees when there are any. On PostgreSQL it is one statement (the room's row
   * lock first, ChatMessagesRepository.postAlone).
   */
  async postUserMessage(room: RoomRow, input: UserMessageInput): Promise<ChatMessageRow> {
    const now = nowSeconds();
    const row: NewChatMessage = {
      ...this.baseRow(room, input.actor, now),
      message: input.message,
      message_type: MessageType.COMMENT,
      message_parameters: JSON.stringify(input.parameters),
      reference_id: input.referenceId,
      parent_id: input.parentId,
      silent: input.silent ? 1 : 0,
      can_mention_all: input.canMentionAll ? 1 : 0,
    };
    const channel = this.db.wake.channel;
    const posted =
      // A conversation with federated attendees owes them the message in its transaction
      // (docs/federation.md "Keeping the conversation current"): the transaction path.
      channel !== undefined && !room.has_federation
        ? // PostgreSQL: the same writes as one statement (a transaction of them held the room's
          // row lock across five round trips).
          await this.repos.chatMessages.postAlone(row, {
            authorAttendeeId: input.attendeeId,
            mentions: input.mentions,
            wake: { channel, payload: chatChannel(room.id) },
          })
        : await this.userPosts.run(async (trx) => {
            const tx = this.repos.withTransaction(trx);
            const message = await this.insert(tx, trx, room, now, row, { bump: true });
            if (input.attendeeId > 0) await tx.attendees.advanceReadMarker(input.attendeeId, message.id, now);
            await tx.attendees.markMentioned(room.id, input.mentions, message.id);
            await this.owedToFederation(trx, room, message.id);
            return message;
          });
    // The one-statement post found no room: deleted since the caller read it, nothing written.
    if (!posted) throw notFound('room');
    await this.events.emit('chat.message-posted', {
      room,
      messageId: posted.id,
      actor: input.actor,
      mentioned: input.mentions.notices,
      silent: input.silent,
      config: input.config,
    });
    return posted;
  }

  /** A reaction was added (after commit): the signaling server relays it (docs/reference/signaling.md#notifications-to-the-signaling-server). */
  async announceReaction(room: RoomRow, reactionId: number, messageId: number): Promise<void> {
    await this.events.emit('chat.reaction-added', { room, reactionId, messageId });
  }

  /** Users' read markers moved (after commit): their notifications up to it are read. */
  async announceRead(room: RoomRow, userIds: string[], messageId: number): Promise<void> {
    await this.events.emit('chat.read', { room, userIds, messageId });
  }

  /** A deleted user's messages stay, authored by "deleted_users" (subscribed to `user.deleting`). */
  async authorDeleted(userId: string): Promise<void> {
    await this.repos.chatMessages.reassignToDeletedUser(userId);
  }

  /** Deleted conversations take their messages along (after commit; room ids are never reused). */
  async forgetRooms(rooms: RoomRow[]): Promise<void> {
    await this.repos.chatMessages.deleteForRooms(rooms.map((r) => r.id));
  }

  /** Wakes the long-polls of a room (after a change that is not a new message: edits, clears). */
  wake(roomId: number, via?: Kysely<Database>): Promise<void> {
    return this.db.wake.notify([chatChannel(roomId)], via);
  }

  /** A conversation with federated attendees owes its servers the message (`chat.federated-post.trx`). */
  private async owedToFederation(trx: Kysely<Database>, room: RoomRow, messageId: number): Promise<void> {
    if (room.has_federation) await this.events.emit('chat.federated-post.trx', { trx, room, messageId });
  }

  private baseRow(room: RoomRow, actor: ChatActor, now: number): NewChatMessage {
    return {
      ...CHAT_MESSAGE_DEFAULTS,
      room_id: room.id,
      actor_type: actor.type,
      actor_id: actor.id,
      actor_display_name: actor.displayName,
      message: '',
      message_type: MessageType.COMMENT,
      created_at: now,
      // The room's message expiration applies to every new message (docs/reference/chat.md#expiration).
      expires_at: room.message_expiration > 0 ? now + room.message_expiration : 0,
    };
  }

  /**
   * A message posted inside the caller's transaction (system messages, shared objects): the
   * actor's row with `fields`, inserted as `insert` does, then announced in that transaction
   * (`chat.posted-in-transaction`: the signaling relay sends it once the room's writers have
   * settled). Returns its id.
   */
  private async postInTransaction(
    trx: Kysely<Database>,
    room: RoomRow,
    actor: ChatActor,
    now: number,
    fields: Partial<NewChatMessage>,
    bump: boolean,
  ): Promise<number> {
    const row = { ...this.baseRow(room, actor, now), ...fields };
    const { id } = await this.insert(this.repos.withTransaction(trx), trx, room, now, row, { bump });
    await this.events.emit('chat.posted-in-transaction', { trx, room, messageId: id });
    return id;
  }

  /**
   * Lock the room (PostgreSQL), insert, point the room at the message (and move lastActivity and
   * the unread counters), wake the room's long-polls at commit. `tx` is the repositories bundle
   * bound to `trx`.
   */
  private async insert(
    tx: Repositories,
    trx: Kysely<Database>,
    room: RoomRow,
    now: number,
    row: NewChatMessage,
    opts: { bump: boolean },
  ): Promise<ChatMessageRow> {
    // A counted message moves the room's unread counter in the room statement (migration
    // 0706-chat-unread-counters): PostgreSQL's row lock before the insert, SQLite's one room
    // statement after it.
    const counted = UNREAD_TYPES.includes(row.message_type) ? { expiresAt: row.expires_at ?? 0 } : undefined;
    // Also the row lock that orders this room's posts (file comment).
    // A room deleted since the caller read it takes no message: 404 `room`, nothing written.
    if (!(await tx.rooms.lockForMessage(room.id, opts.bump ? now : 0, counted))) throw notFound('room');
    const message = await tx.chatMessages.insert(row);
    // lastActivity only moves forward; a room already at `now` (read at the request's start, so
    // at most as new as the stored value) needs no activity write.
    const bumped = opts.bump && room.last_activity < now ? now : 0;
    if (!(await tx.rooms.pointAtMessage(room.id, opts.bump ? message.id : 0, bumped, counted))) throw notFound('room');
    await this.db.wake.notify([chatChannel(room.id)], trx);
    return message;
  }
}
