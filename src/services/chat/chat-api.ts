/**
 * The chat endpoints' rules (docs/reference/chat.md): who may read and write, parameters,
 * history, long-polling, context, edit, delete, clear history, read markers and mention
 * autocomplete. Writes go through ChatService; reads through the chat repository; the routes
 * format rows with presenters/chat-message.ts.
 *
 * Refusals in Talk's order (docs/reference/chat.md#common-rules "Check order"): 404 not a participant → 403 read-only →
 * 412 lobby → 403 permission → parameter errors (400/413).
 */
import { may } from '../../domain/abilities.js';
import { SameTurnReads } from '../../cache/same-turn-reads.js';
import { TurnBatch } from '../../cache/turn-batch.js';
import {
  proxiedContext,
  proxiedDelete,
  proxiedEdit,
  proxiedMentions,
  proxiedReadMarker,
  proxiedReceive,
  proxiedSend,
  type FederationProxy,
  type ProxiedAnswer,
} from './chat-proxied.js';
import type { ReceiveInput, SendInput } from './chat-inputs.js';
import type { ReceiveReadMarkers } from './receive-read-markers.js';
import { isCancelled, type WaitCancel } from '../../cache/wake.js';
import type { LobbyTimers } from '../conversations/lobby-timers.js';
import type { Db } from '../../db/database.js';
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import { NOT_PINNED, UNREAD_TYPES, type ChatMessagesRepository, type ChatMessageRead } from '../../db/repositories/chat-messages.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import {
  CHAT_MAX_LENGTH,
  EDIT_MAX_AGE,
  MessageType,
  UNREAD_FIRST_MESSAGE,
  isReplyable,
  messageLength,
  normalizeReferenceId,
  trimMessage,
} from '../../domain/chat.js';
import { sharedPollId } from '../../domain/chat-shares.js';
import { fileShareParameters, withCaptionMentions } from '../../domain/files/shares.js';
import type { FileShareTargets } from '../files/share-targets.js';
import { findMentions, mentionedUserIdsOf } from '../../domain/chat-mentions.js';
import { GUEST_MENTIONS_RATE } from '../../domain/rate-limits.js';
import { ActorType, RoomType } from '../../domain/constants.js';
import { ApiError, badRequest, forbidden, lobbyActive, notFound, payloadTooLarge, rateLimited } from '../../domain/errors.js';
import { lobbyTimerReached, isGuestType, isOneToOneKind, permissionsIn, serverDefaultPermissions } from '../../domain/permissions.js';
import { nowSeconds } from '../../domain/time.js';
import { chatChannel, type ChatActor, type ChatService } from './chat.js';
import type { ChatMentions } from './chat-mentions.js';
import type { CallerRoom, RoomsService } from '../conversations/rooms.js';
import type { RequestContext } from '../platform/request-context.js';
import type { Repositories } from '../../db/repositories/index.js';
import { anonymousSubject } from '../../db/repositories/user-rate-limits.js';

import { pageAccessOf, type ChatAccess, type MessagePage, type PageAccess, type ProxiedRead } from './chat-page.js';

export type { ChatAccess, MessagePage, ProxiedRead } from './chat-page.js';

export type { ReceiveInput, SendInput } from './chat-inputs.js';

const GUEST_NAME_MAX = 64;

export class ChatApiService {
  private readonly messages: ChatMessagesRepository;

  constructor(
    private readonly db: Db,
    private readonly rooms: RoomsService,
    private readonly repos: Repositories,
    private readonly chat: ChatService,
    private readonly mentions: ChatMentions,
    private readonly lobbyTimers: LobbyTimers,
    private readonly receiveReadMarkers: ReceiveReadMarkers,
    private readonly shareTargets?: FileShareTargets,
    private readonly proxy?: FederationProxy, // proxied conversations (chat-proxied.ts)
  ) {
    this.messages = repos.chatMessages;
  }

  private readonly sameTurn = new SameTurnReads();
  /**
   * Whether waiting attendees are still in their conversation, asked after their wait found
   * messages: one statement per room for the waiters a wake-up releases together (turn-batch.ts).
   */
  private readonly stillMembers = new TurnBatch<number, boolean>(async (roomId, ids) => {
    const present = await this.repos.attendees.stillIn(Number(roomId), ids);
    return new Map(ids.map((id) => [id, present.has(id)]));
  });

  // ---- access ----

  /**
   * The proxy of a conversation kept here for a host elsewhere (what the caller does there is
   * forwarded; docs/reference/federation.md#proxied-requests); undefined for this server's own.
   */
  proxyFor(room: RoomRow): FederationProxy | undefined {
    return room.remote_token !== '' ? this.proxy : undefined;
  }

  /**
   * The caller's access to `token`'s chat. `write`: refused in read-only rooms; `chat`: needs
   * the chat permission (128); `lobby`: refused while the caller waits in the lobby;
   * `authenticated`: plain cookie guests are refused like non-participants (404).
   */
  async access(ctx: RequestContext, token: unknown, need: { write?: boolean; chat?: boolean; lobby?: boolean; authenticated?: boolean }): Promise<ChatAccess> {
    const found = await this.rooms.requireParticipant(ctx, token);
    const { attendee } = found;
    let room = found.room;
    // Authenticated: logged-in users, and other servers' users in a proxied request (their server
    // forwards edits and read markers; docs/reference/federation.md#proxied-requests).
    if (need.authenticated && attendee.actor_type !== ActorType.USERS && attendee.actor_type !== ActorType.FEDERATED_USERS) throw notFound('room');
    if (need.write && !may.postIn(room)) throw forbidden('readOnly', 'The conversation is read-only');
    if (need.lobby !== false) {
      const now = nowSeconds();
      // The lobby timer is applied lazily (docs/reference/conversations.md#timers-and-jobs).
      if (lobbyTimerReached(room, now)) {
        const [lifted] = await this.lobbyTimers.lift([room.id], now);
        room = lifted ?? { ...room, lobby_state: 0, lobby_timer: 0 };
      }
    }
    const cfg = await ctx.config();
    const effective = permissionsIn(room, attendee, serverDefaultPermissions(cfg.raw('default_permissions')));
    if (need.lobby !== false && !may.passLobby(room.lobby_state, attendee, effective)) throw lobbyActive();
    if (need.chat && !may.chat(effective)) throw forbidden('permission', 'You are not allowed to chat in this conversation');
    const displayName = attendee.actor_type === ActorType.USERS ? (ctx.user?.display_name ?? attendee.display_name) : attendee.display_name;
    return { room, attendee, actor: { type: attendee.actor_type, id: attendee.actor_id, displayName } };
  }

  // ---- send ----

  /** POST /chat/{token} (docs/reference/chat.md#sending). Returns the new message as a page of one (with its parent). */
  async send(ctx: RequestContext, token: unknown, input: SendInput): Promise<MessagePage | ProxiedAnswer> {
    const acc = await this.access(ctx, token, { write: true, chat: true });
    if (acc.room.remote_token !== '' && this.proxy) return proxiedSend(this.proxy, ctx, acc.room, input);
    const text = trimMessage(input.message);
    if (text === '') throw badRequest('message', 'The message is empty');
    if (messageLength(text) > CHAT_MAX_LENGTH) throw payloadTooLarge('message', `The message is longer than ${CHAT_MAX_LENGTH} characters`);
    const now = nowSeconds();
    let parent: ChatMessageRead | undefined;
    if (input.replyTo > 0) {
      parent = await this.messages.findInRoom(acc.room.id, input.replyTo, now);
      if (!parent || !isReplyable(parent.message_type, parent.actor_type))
        throw badRequest('reply-to', 'The message to reply to does not exist or cannot be replied to');
    } else if (input.replyTo < 0) {
      throw badRequest('reply-to', 'replyTo must be a message id');
    }
    const actor = await this.guestName(acc, input.actorDisplayName);
    await this.rooms.refillOneToOne(acc.room);
    await this.limitGuestMentions(ctx, acc.attendee, text, now);
    // @all reaches everyone when mention permissions allow it or the author moderates (docs/reference/chat.md#the-message-object can_mention_all).
    const canMentionAll = may.mentionAll(acc.room, acc.attendee);
    const parsed = await this.mentions.resolve(acc.room, text, { author: acc.attendee, canMentionAll, replyTo: parent });
    const posted = await this.chat.postUserMessage(acc.room, {
      actor,
      attendeeId: acc.attendee.id,
      message: parsed.message,
      parameters: parsed.parameters,
      parentId: parent ? parent.id : null,
      referenceId: normalizeReferenceId(input.referenceId),
      silent: input.silent,
      canMentionAll,
      mentions: parsed.mentioned,
      config: await ctx.config(),
    });
    // The answer is built from the stored row (RETURNING) and the parent read above, not read
    // back: the author's current name is the one this request authenticated with.
    const row: ChatMessageRead = { ...posted, user_display_name: actor.type === ActorType.USERS ? (ctx.user?.display_name ?? null) : null };
    return this.page(acc, [row], undefined, false, parent ? [parent] : []);
  }

  /**
   * Guests (and guest moderators: e-mail guests too) who mention anybody may send at most 50
   * such messages a day from one address (GUEST_MENTIONS_RATE), as
   * Talk's ChatManager::sendMessage limits them (docs/reference/chat.md#common-rules "Guests"); past it 429 `mentions` and
   * nothing is stored. Any mention as written counts, resolved or not (Nextcloud's
   * Comment::getMentions). Counted and recorded in one locked step, in any number of processes
   * (UserRateLimitsRepository.take).
   */
  private async limitGuestMentions(ctx: RequestContext, attendee: AttendeeRow, text: string, now: number): Promise<void> {
    if (!isGuestType(attendee.participant_type) || findMentions(text).length === 0) return;
    if (!(await this.repos.userRateLimits.take(anonymousSubject(ctx.ip), GUEST_MENTIONS_RATE, now)))
      throw rateLimited('mentions', `Guests may send at most ${GUEST_MENTIONS_RATE.limit} messages with mentions a day`);
  }

  /**
   * The author of a post: a guest's `actorDisplayName` (when not blank) updates their stored
   * name first (docs/reference/chat.md#common-rules "Guests"); anyone else's is ignored.
   */
  async guestName(acc: ChatAccess, actorDisplayName: string): Promise<ChatActor> {
    const actor = { ...acc.actor };
    if ((acc.attendee.actor_type === ActorType.GUESTS || acc.attendee.actor_type === ActorType.EMAILS) && actorDisplayName.trim() !== '') {
      actor.displayName = [...actorDisplayName.trim()].slice(0, GUEST_NAME_MAX).join('');
      if (actor.displayName !== acc.attendee.display_name) {
        await this.repos.attendees.update(acc.attendee.id, { display_name: actor.displayName });
        await this.rooms.announceParticipantsChanged(acc.room, [acc.attendee.id], 'guest-name');
      }
    }
    return actor;
  }

  // ---- receive ----

  /**
   * GET /chat/{token} (docs/reference/chat.md#receiving): history (newest first) or, with lookIntoFuture, the messages after
   * the offset (oldest first), waiting up to `timeout` for the first one. The wait sleeps on
   * the room's wake-up channel (no polling); `cancel` (the client's connection) ends it when the
   * client goes away.
   */
  async receive(ctx: RequestContext, token: unknown, q: ReceiveInput, cancel?: WaitCancel): Promise<MessagePage | ProxiedAnswer> {
    const acc = await this.access(ctx, token, { lobby: true });
    if (acc.room.remote_token !== '' && this.proxy) return proxiedReceive(this.proxy, ctx, acc, q);
    const roomId = acc.room.id;
    // A long-poll whose client has gone (it waited for a database connection behind a burst)
    // stops here instead of queueing more statements; nobody reads its answer.
    if (q.lookIntoFuture && isCancelled(cancel)) return this.page(pageAccessOf(acc), [], undefined, true);
    let offset = q.lastKnownMessageId;
    // An offset that is not a message of this room is ignored (docs/reference/chat.md#receiving "Behaviour"). The room's
    // polls arriving together ask the same (same-turn-reads.ts).
    if (offset > 0 && !(await this.sameTurn.read(`exists:${roomId}:${offset}`, () => this.messages.existsInRoom(roomId, offset)))) offset = 0;
    if (!q.lookIntoFuture) {
      const fetched = await this.messages.history(roomId, offset, q.includeLastKnown && offset > 0, q.limit);
      return this.page(acc, fetched, q.lastCommonReadId, true);
    }
    if (q.setReadMarker && offset > acc.attendee.last_read_message && acc.attendee.actor_type === ActorType.USERS) {
      // With the other polls of this turn: one transaction for all of them (receive-read-markers.ts).
      await this.receiveReadMarkers.move(acc.room, acc.attendee.id, acc.attendee.actor_id, offset, q.markNotificationsAsRead);
    }
    return this.waitForFuture(pageAccessOf(acc), offset, q, cancel);
  }

  /**
   * The long-poll's wait (docs/reference/chat.md#receiving lookIntoFuture=1). It keeps only what the answer needs
   * (PageAccess), not the request's room and attendee rows: thousands of polls wait at once.
   */
  private async waitForFuture(acc: PageAccess, offset: number, q: ReceiveInput, cancel: WaitCancel | undefined): Promise<MessagePage> {
    const roomId = acc.room.id;
    // Subscribe before reading: a message committed after the read still wakes us.
    const waiter = await this.db.wake.listen(chatChannel(roomId));
    try {
      const deadline = Date.now() + q.timeoutSeconds * 1000;
      const inclusive = q.includeLastKnown && offset > 0;
      for (;;) {
        // The room's other waiters woken by the same wake-up share this read (same-turn-reads.ts).
        const fetched = await this.sameTurn.read(`future:${roomId}:${offset}:${inclusive}:${q.limit}`, () =>
          this.messages.future(roomId, offset, inclusive, q.limit),
        );
        if (fetched.length > 0) {
          // A participant removed while it waited gets what a non-participant gets (404), not
          // the messages posted after its removal: membership is read after the messages, so a
          // removal committed before any of them is seen here.
          if (!(await this.stillMembers.get(String(roomId), acc.attendee.id))) throw notFound('room');
          return this.page(acc, fetched, q.lastCommonReadId, true);
        }
        const left = deadline - Date.now();
        if (left <= 0 || !(await waiter.wait(left, cancel))) return this.page(acc, [], q.lastCommonReadId, true);
      }
    } finally {
      waiter.close();
    }
  }

  /** GET /chat/{token}/{messageId}/context (docs/reference/chat.md#receiving): up to `limit` older (with the message) and newer, ascending. */
  async context(ctx: RequestContext, token: unknown, messageId: number, limit: number): Promise<MessagePage | ProxiedAnswer> {
    const acc = await this.access(ctx, token, { lobby: true });
    const proxy = this.proxyFor(acc.room);
    if (proxy) return proxiedContext(proxy, ctx, acc.room, messageId, limit);
    if (messageId <= 0 || !(await this.messages.existsInRoom(acc.room.id, messageId))) return this.page(acc, [], undefined, true);
    // Up to `limit` older, the message itself, up to `limit` newer (2·limit+1, docs/reference/chat.md#other-operations).
    const older = await this.messages.history(acc.room.id, messageId, true, limit + 1);
    const newer = limit > 0 ? await this.messages.future(acc.room.id, messageId, false, limit) : [];
    const rows = [...older.reverse(), ...newer];
    const page = await this.page(acc, rows, undefined, true);
    return { ...page, lastGiven: rows.length ? rows[rows.length - 1].id : undefined };
  }

  // ---- edit, delete, clear ----

  /** PUT /chat/{token}/{messageId} (docs/reference/chat.md#deleting-and-editing Edit): answers the message_edited system message. */
  async edit(ctx: RequestContext, token: unknown, messageId: number, raw: string): Promise<MessagePage | ProxiedAnswer> {
    const acc = await this.access(ctx, token, { write: true, chat: true, authenticated: true });
    const proxy = this.proxyFor(acc.room);
    if (proxy) return proxiedEdit(proxy, ctx, acc.room, messageId, raw);
    // Text messages, and the caption of a shared file (docs/reference/chat.md#other-operations Edit); other shared objects 405.
    const target = await this.ownOrModerated(acc, messageId, [MessageType.COMMENT, MessageType.OBJECT_SHARED]);
    const fileShare =
      target.message_type === MessageType.OBJECT_SHARED ? fileShareParameters(JSON.parse(target.message_parameters) as Record<string, unknown>) : undefined;
    if (target.message_type === MessageType.OBJECT_SHARED && !fileShare) throw notChangeable();
    const now = nowSeconds();
    if (acc.room.type !== RoomType.NOTE_TO_SELF && target.created_at < now - EDIT_MAX_AGE) throw badRequest('age', 'Messages can only be edited for 24 hours');
    const text = trimMessage(raw);
    if (text === '') throw badRequest('message', 'The message is empty');
    if (messageLength(text) > CHAT_MAX_LENGTH) throw payloadTooLarge('message', `The message is longer than ${CHAT_MAX_LENGTH} characters`);
    const parsed = await this.mentions.resolve(acc.room, text, { author: acc.attendee, canMentionAll: target.can_mention_all === 1 });
    const id = await this.db.kysely.transaction().execute(async (trx) => {
      const tx = this.repos.withTransaction(trx);
      // Conditional on the kind read above: a deletion that committed since then wins, and the
      // edit changes nothing (the same answer as arriving after it).
      const changed = await tx.chatMessages.update(
        target.id,
        {
          // A caption is the shared file's text: its stored share stays, its mentions are the new ones.
          message: parsed.message,
          message_parameters: JSON.stringify(
            fileShare ? withCaptionMentions(JSON.parse(target.message_parameters) as Record<string, unknown>, parsed.parameters) : parsed.parameters,
          ),
          last_edit_actor_type: acc.actor.type,
          last_edit_actor_id: acc.actor.id,
          last_edit_actor_display_name: acc.actor.displayName,
          last_edit_at: now,
        },
        target.message_type,
      );
      if (!changed) throw notChangeable();
      // Added mentions count from the edit on (removed ones simply stop mattering once read).
      await tx.attendees.markMentioned(acc.room.id, parsed.mentioned, target.id);
      return this.chat.postSystemMessage(trx, acc.room, acc.actor, 'message_edited', { message: target.id }, { parentId: target.id, skipRoomUpdate: true });
    });
    // Mention notifications follow the users mentioned directly (Talk's editMessage compares the
    // mentioned users before and after); the author stays the message's.
    const before = mentionedUserIdsOf(target.message_parameters);
    const after = parsed.mentioned.notices.filter((n) => n.reason === 'direct');
    await this.chat.messageEdited({
      room: acc.room,
      messageId: target.id,
      author: { type: target.actor_type, id: target.actor_id, displayName: target.actor_display_name },
      added: after.filter((n) => !before.has(n.userId)),
      removedUserIds: [...before].filter((u) => !after.some((n) => n.userId === u)),
      silent: target.silent === 1,
    });
    return this.systemAnswer(acc, id, now);
  }

  /** DELETE /chat/{token}/{messageId} (docs/reference/chat.md#deleting-and-editing Delete): no age limit; answers message_deleted. */
  async delete(ctx: RequestContext, token: unknown, messageId: number): Promise<MessagePage | ProxiedAnswer> {
    const acc = await this.access(ctx, token, { write: true, chat: true, authenticated: true });
    const proxy = this.proxyFor(acc.room);
    if (proxy) return proxiedDelete(proxy, ctx, acc.room, messageId);
    // Text messages and shared objects can be deleted (docs/reference/chat.md#deleting-and-editing Delete, capability rich-object-delete).
    const target = await this.ownOrModerated(acc, messageId, [MessageType.COMMENT, MessageType.OBJECT_SHARED]);
    const now = nowSeconds();
    const id = await this.db.kysely.transaction().execute(async (trx) => {
      const tx = this.repos.withTransaction(trx);
      // The room's row lock first (as a post takes it): a concurrent deletion of the same message
      // waits, then finds it deleted and counts nothing twice.
      if (!(await tx.rooms.lockForMessage(acc.room.id, 0))) throw notFound('room');
      const changed = await tx.chatMessages.update(
        target.id,
        {
          message_type: MessageType.COMMENT_DELETED,
          message: '',
          message_parameters: '{}',
          deleted_by_type: acc.actor.type,
          deleted_by_id: acc.actor.id,
          deleted_by_name: acc.actor.displayName,
          deleted_at: now,
          last_edit_actor_type: '',
          last_edit_actor_id: '',
          last_edit_actor_display_name: '',
          last_edit_at: 0,
          reactions: '{}',
          // A deleted message is no longer pinned; the room's last pin falls back (below).
          ...NOT_PINNED,
        },
        target.message_type,
      );
      // Under the room's lock a concurrent deletion of the same message has committed: this one
      // is refused as if it had come after it, and posts no second message_deleted.
      if (!changed) throw notChangeable();
      if (target.pinned_id > 0) await tx.rooms.repointLastPinned([acc.room.id], target.id);
      // A counted message stops counting as unread (migration 0706): the room's counter and those
      // of the attendees who had read it.
      if (UNREAD_TYPES.includes(target.message_type)) {
        await tx.rooms.uncountMessage(acc.room.id);
        await tx.attendees.uncountReadMessage(acc.room.id, target.id);
      }
      // A deleted share leaves the shared items; a deleted poll goes with its votes and its
      // `poll_closed` message (docs/reference/chat.md#deleting-and-editing Delete), but only when its author or a moderator deletes it
      // (Talk's removePollOnMessageDelete): anybody can share an object naming any poll id.
      if (target.message_type === MessageType.OBJECT_SHARED) {
        await tx.chatSharedItems.remove(target.id);
        // A shared file is unshared with its message (docs/reference/files.md#when-a-share-goes).
        await tx.fileShares.deleteIds(await tx.fileShares.idsOfMessage(acc.room.id, target.id));
        const pollId = sharedPollId(target.message_parameters);
        const poll = pollId !== undefined ? await tx.polls.findInRoom(acc.room.id, pollId) : undefined;
        const pollAuthor = poll !== undefined && poll.actor_type === acc.actor.type && poll.actor_id === acc.actor.id;
        if (poll && may.deletePoll(acc.attendee, pollAuthor)) {
          await tx.polls.deleteInRoom(acc.room.id, poll.id);
          await tx.chatMessages.deletePollClosed(acc.room.id, poll.id);
        }
      }
      return this.chat.postSystemMessage(trx, acc.room, acc.actor, 'message_deleted', { message: target.id }, { parentId: target.id, skipRoomUpdate: true });
    });
    await this.chat.messageDeleted({ room: acc.room, messageId: target.id });
    return this.systemAnswer(acc, id, now);
  }

  /**
   * DELETE /chat/{token} (docs/reference/chat.md#clearing-history Clear history): logged-in moderators; not in one-to-one rooms
   * unless `delete_one_to_one_conversations`. Every message goes, every attendee's chat state
   * starts over, and `history_cleared` is the room's only message.
   */
  async clearHistory(ctx: RequestContext, token: unknown): Promise<MessagePage> {
    const acc = await this.access(ctx, token, { write: true, lobby: false });
    if (!may.clearHistory(acc.attendee)) throw forbidden('moderator', 'Only moderators can clear the history');
    const cfg = await ctx.config();
    if (isOneToOneKind(acc.room.type) && !cfg.bool('delete_one_to_one_conversations'))
      throw forbidden('type', 'The history of one-to-one conversations cannot be cleared');
    const now = nowSeconds();
    const id = await this.db.kysely.transaction().execute(async (trx) => {
      const tx = this.repos.withTransaction(trx);
      // The room's row lock first (as a post takes it), then messages and counters go.
      await tx.rooms.clearChat(acc.room.id);
      await tx.chatMessages.deleteForRooms([acc.room.id]);
      // Shared files go with their messages (docs/reference/files.md#when-a-share-goes).
      await tx.fileShares.deleteIds(await tx.fileShares.idsOfRooms([acc.room.id]));
      // Polls are messages too (docs/reference/chat.md#clearing-history Clear history).
      await tx.polls.deleteForRooms([acc.room.id]);
      // Every marker at "the first message is unread", as Talk's resetChatDetails sets them.
      await tx.attendees.resetChatState(acc.room.id, UNREAD_FIRST_MESSAGE, now);
      return this.chat.postSystemMessage(trx, acc.room, acc.actor, 'history_cleared');
    });
    return this.systemAnswer(acc, id, now);
  }

  // ---- read markers ----

  /** POST /chat/{token}/read (docs/reference/chat.md#read-markers): null = the last message, 0 = -2 (first message unread). */
  async setReadMarker(ctx: RequestContext, token: unknown, lastRead: number | null): Promise<CallerRoom | ProxiedRead> {
    const acc = await this.access(ctx, token, { lobby: false, authenticated: true });
    const proxy = this.proxyFor(acc.room);
    if (proxy) return { room: acc.room, attendee: acc.attendee, proxied: await proxiedReadMarker(proxy, ctx, acc, { lastReadMessage: lastRead }) };
    const marker = lastRead === null ? acc.room.last_message : lastRead === 0 ? UNREAD_FIRST_MESSAGE : lastRead;
    if (marker < UNREAD_FIRST_MESSAGE) throw badRequest('lastReadMessage', 'lastReadMessage must be -2 or more');
    const counts = await this.moveReadMarker(acc.attendee.id, marker, nowSeconds());
    if (acc.attendee.actor_type === ActorType.USERS) await this.chat.announceRead(acc.room, [acc.attendee.actor_id], marker);
    return withReadMarker(acc, marker, counts);
  }

  /**
   * DELETE /chat/{token}/read (docs/reference/chat.md#read-markers Mark unread), as Talk's ChatController::markUnread: the marker
   * goes before the last chat message (a comment or shared object). When the newest message is
   * not one, Talk takes the two chat messages before it and keeps the older, so the newest chat
   * message is unread; with only one, that one. No chat message: the message before the last of
   * any kind; none either: -2 (the first message is unread).
   */
  async markUnread(ctx: RequestContext, token: unknown): Promise<CallerRoom | ProxiedRead> {
    const acc = await this.access(ctx, token, { lobby: false, authenticated: true });
    const proxy = this.proxyFor(acc.room);
    if (proxy) return { room: acc.room, attendee: acc.attendee, proxied: await proxiedReadMarker(proxy, ctx, acc, 'unread') };
    const now = nowSeconds();
    const last = acc.room.last_message;
    const chatIds = last > 0 ? await this.messages.previousIds(acc.room.id, last, true, now, 3, UNREAD_TYPES) : [];
    // The last message itself is a chat message: the one before it; else the older of the two before.
    const before = chatIds[0] === last ? chatIds.slice(1, 2) : chatIds.slice(0, 2);
    let marker = before.length ? before[before.length - 1] : 0;
    if (marker === 0 && last > 0) marker = (await this.messages.previousIds(acc.room.id, last, false, now, 1))[0] ?? 0;
    if (marker === 0) marker = UNREAD_FIRST_MESSAGE;
    const counts = await this.moveReadMarker(acc.attendee.id, marker, now);
    return withReadMarker(acc, marker, counts);
  }

  /**
   * GET /chat/{token}/mentions (docs/reference/chat.md#mentions): the suggestions for `search`, or
   * the host's for a conversation kept here for a host elsewhere.
   */
  async mentionSuggestions(
    ctx: RequestContext,
    token: unknown,
    q: { search: string; limit: number; includeStatus: boolean },
  ): Promise<Awaited<ReturnType<ChatMentions['autocomplete']>> | ProxiedAnswer> {
    const acc = await this.access(ctx, token, { write: true, chat: true });
    const proxy = this.proxyFor(acc.room);
    if (proxy) return proxiedMentions(proxy, ctx, acc.room, q);
    return this.mentions.autocomplete(acc.room, acc.attendee, q.search, q.limit);
  }

  /** Sets a read marker and its counter (two statements, one transaction: AttendeesRepository.setReadMarker). */
  private moveReadMarker(attendeeId: number, marker: number, now: number): Promise<{ readCount: number; chatCount: number }> {
    return this.db.kysely.transaction().execute((trx) => this.repos.withTransaction(trx).attendees.setReadMarker(attendeeId, marker, now));
  }

  /** X-Chat-Last-Common-Read for a reader (undefined when their read privacy is private). */
  async commonReadFor(view: { room: Pick<RoomRow, 'id'>; attendee?: Pick<AttendeeRow, 'read_privacy'> }): Promise<number | undefined> {
    if (!view.attendee || view.attendee.read_privacy !== 0) return undefined;
    const roomId = view.room.id;
    const common = await this.sameTurn.read(`common:${roomId}`, () => this.repos.attendees.commonReadMessages([roomId]));
    return common.get(roomId) ?? 0;
  }

  // ---- helpers ----

  /**
   * The message to edit or delete: 404 missing, 403 neither author nor moderator (not in
   * one-to-one), 405 not of `types` (by default only text messages).
   */
  private async ownOrModerated(acc: ChatAccess, messageId: number, types: readonly string[] = [MessageType.COMMENT]): Promise<ChatMessageRead> {
    const target = messageId > 0 ? await this.messages.findInRoom(acc.room.id, messageId, nowSeconds()) : undefined;
    if (!target) throw notFound('message', 'The message does not exist');
    const own = target.actor_type === acc.actor.type && target.actor_id === acc.actor.id;
    const moderator = may.changeOthersMessages(acc.room, acc.attendee);
    if (!own && !moderator) throw forbidden('permission', 'You may only change your own messages');
    if (!types.includes(target.message_type)) throw notChangeable();
    return target;
  }

  private async systemAnswer(acc: ChatAccess, id: number, now: number): Promise<MessagePage> {
    const row = await this.messages.findInRoom(acc.room.id, id, now);
    return this.page(acc, row ? [row] : [], undefined, false);
  }

  /** Rows read by another chat endpoint (shared items), formatted as a page is: never a 304, no X-Chat-Last-Given. */
  async pageOf(acc: ChatAccess, rows: ChatMessageRead[]): Promise<MessagePage> {
    return { ...(await this.page(acc, rows, undefined, false)), lastGiven: undefined };
  }

  /**
   * The current names of users who deleted others' messages on the page, read as Talk's
   * parseDeletedMessage reads them (docs/reference/chat.md#deleting-and-editing); no
   * query when the page has no such message.
   */
  private async deleterNames(rows: readonly ChatMessageRead[]): Promise<Map<string, string> | undefined> {
    const ids = otherDeleters(rows);
    if (ids.length === 0) return undefined;
    return new Map((await this.repos.users.existing(ids)).map((u) => [u.id, u.display_name || u.id]));
  }

  /** Drops expired rows, loads parents (those not in `knownParents`), computes the headers. */
  private async page(
    acc: PageAccess,
    fetched: ChatMessageRead[],
    lastCommonReadId: number | undefined,
    emptyIs304: boolean,
    knownParents: readonly ChatMessageRead[] = [],
  ): Promise<MessagePage> {
    const now = nowSeconds();
    const rows = fetched.filter((r) => r.expires_at === 0 || r.expires_at > now);
    const lastGiven = fetched.length ? fetched[fetched.length - 1].id : undefined;
    const parents = new Map<number, ChatMessageRead>();
    for (const p of knownParents) if (p.expires_at === 0 || p.expires_at > now) parents.set(p.id, p);
    const parentIds = rows.flatMap((r) => (r.parent_id !== null && !parents.has(r.parent_id) ? [r.parent_id] : []));
    if (parentIds.length) for (const p of await this.messages.findByIds(parentIds, now)) if (p.room_id === acc.room.id) parents.set(p.id, p);
    const commonRead = await this.commonReadFor({ room: acc.room, attendee: acc.attendee });
    // reactionsSelf for the whole page in one statement (docs/reference/chat.md#the-message-object).
    const reactedIds = rows.flatMap((r) => (r.reactions !== '{}' ? [r.id] : []));
    const reactionsSelf = reactedIds.length ? await this.repos.chatReactions.ownOn(reactedIds, acc.actor.type, acc.actor.id) : undefined;
    const deleterNames = await this.deleterNames([...rows, ...parents.values()]);
    let notModified = emptyIs304 && fetched.length === 0;
    // 200 [] instead of 304 when only the common read moved (docs/reference/chat.md#receiving lastCommonReadId).
    if (notModified && lastCommonReadId !== undefined && lastCommonReadId > 0 && commonRead !== undefined && commonRead !== lastCommonReadId)
      notModified = false;
    // Files shared into the conversation, as this reader sees them (docs/reference/files.md#the-file-rich-object).
    const shareIds = [...rows, ...parents.values()].flatMap((r) => (r.message_type === MessageType.OBJECT_SHARED ? fileShareIdOf(r.message_parameters) : []));
    const files = shareIds.length && this.shareTargets ? await this.shareTargets.forReader(acc.actor, shareIds) : undefined;
    return {
      rows,
      env: { token: acc.room.token, roomType: acc.room.type, viewer: { type: acc.actor.type, id: acc.actor.id }, parents, reactionsSelf, files, deleterNames },
      lastGiven,
      commonRead,
      notModified,
    };
  }
}

/** The user ids of those who deleted someone else's message among `rows` (their names are read live). */
function otherDeleters(rows: readonly ChatMessageRead[]): string[] {
  const ids = new Set<string>();
  for (const r of rows) {
    if (r.message_type !== MessageType.COMMENT_DELETED || r.deleted_by_type !== ActorType.USERS) continue;
    if (r.actor_type === ActorType.USERS && r.actor_id === r.deleted_by_id) continue;
    ids.add(r.deleted_by_id);
  }
  return [...ids];
}

/** The caller's view after a marker move: the counters read with it, so unreadMessages matches the marker. */
function withReadMarker(acc: ChatAccess, marker: number, counts: { readCount: number; chatCount: number }): CallerRoom {
  return {
    room: { ...acc.room, chat_count: counts.chatCount },
    attendee: { ...acc.attendee, last_read_message: marker, read_count: counts.readCount },
  };
}

/** The share a file share message announced (none for other shared objects). */
function fileShareIdOf(parameters: string): number[] {
  try {
    const shared = fileShareParameters(JSON.parse(parameters) as Record<string, unknown>);
    return shared ? [shared.share] : [];
  } catch {
    return [];
  }
}

/** 405 `message` (docs/reference/chat.md#endpoints): the message is not of a kind that can be edited or deleted (any more). */
function notChangeable(): ApiError {
  return new ApiError(405, { error: 'message', message: 'This kind of message cannot be changed' });
}
