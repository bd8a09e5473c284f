/**
 * Pinned messages (docs/reference/chat.md#pinned-messages, docs/reference/chat.md#the-message-object `metaData`, docs/reference/chat.md#system-messages `message_pinned` /
 * `message_unpinned`; docs/reference/conversations.md#the-conversation-record `lastPinnedId`, `hiddenPinnedId`; capability
 * `pinned-messages`), as Talk's ChatController and ChatManager pin them:
 * - moderators (guest moderators too) pin a text message or a shared object, until a time or
 *   for good; the pin posts `message_pinned` (which moves lastMessage) with the message as
 *   parent, and the message is the conversation's `lastPinnedId`. A pin never outlives the
 *   conversation's message expiration: its end is capped at what the new system message's is.
 * - moderators unpin; the unpin posts `message_unpinned` silently without moving lastMessage,
 *   and `lastPinnedId` falls back to the message pinned last among those still pinned. The
 *   unpin job does the same, as the system, for pins whose time ran out.
 * - any participant may hide a pin for themselves (`hiddenPinnedId`); pinning that message
 *   again shows it to everyone again.
 *
 * Refusals in Talk's order: 404 not a participant, 403 not a moderator (pin and unpin; Talk's
 * RequireModeratorParticipant, without a read-only or lobby check), 412 lobby (hide), then 404
 * `message`, 400 `message` (not a text message or share), 400 `until` (a past end). Pinning
 * a pinned message and unpinning one that is not pinned answer 200 with `null`.
 */
import { may } from '../../domain/abilities.js';
import type { Db } from '../../db/database.js';
import type { Repositories } from '../../db/repositories/index.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import { MessageType, SYSTEM_ACTOR } from '../../domain/chat.js';
import { badRequest, forbidden, notFound } from '../../domain/errors.js';
import { nowSeconds } from '../../domain/time.js';
import type { ChatAccess, ChatApiService, MessagePage } from './chat-api.js';
import type { ChatActor, ChatService } from './chat.js';
import type { RequestContext } from '../platform/request-context.js';

/** Messages that can be pinned: Talk's VERB_MESSAGE and VERB_OBJECT_SHARED. */
const PINNABLE: readonly string[] = [MessageType.COMMENT, MessageType.OBJECT_SHARED];
/** Ended pins unpinned per pass of the job. */
const ENDED_BATCH = 200;

export class ChatPinsService {
  constructor(
    private readonly db: Db,
    private readonly repos: Repositories,
    private readonly chatApi: ChatApiService,
    private readonly chat: ChatService,
  ) {}

  /** POST /chat/{token}/{messageId}/pin: the `message_pinned` message, or no message when it was pinned already. */
  async pin(ctx: RequestContext, token: unknown, messageId: number, pinUntil: number): Promise<MessagePage> {
    const acc = await this.moderator(ctx, token);
    const now = nowSeconds();
    const target = messageId > 0 ? await this.repos.chatMessages.findInRoom(acc.room.id, messageId, now) : undefined;
    if (!target) throw notFound('message', 'The message does not exist');
    if (!PINNABLE.includes(target.message_type)) throw badRequest('message', 'Only chat messages and shared objects can be pinned');
    if (pinUntil !== 0 && pinUntil < now) throw badRequest('until', 'pinUntil is in the past');
    // The pin's end is capped at the system message's own expiration (Talk's ChatManager::pinMessage).
    const expiry = acc.room.message_expiration > 0 ? now + acc.room.message_expiration : 0;
    const until = pinUntil === 0 ? expiry : expiry > 0 ? Math.min(pinUntil, expiry) : pinUntil;
    const id = await this.db.kysely.transaction().execute(async (trx) => {
      const tx = this.repos.withTransaction(trx);
      // The room's row lock first (as a post takes it): of two pins of one message at once, the
      // second waits here and then finds it pinned.
      if (!(await tx.rooms.lockForMessage(acc.room.id, 0))) throw notFound('room');
      const current = await tx.chatMessages.findInRoom(acc.room.id, target.id, now);
      if (!current || current.pinned_id > 0) return 0;
      const systemId = await this.chat.postSystemMessage(trx, acc.room, acc.actor, 'message_pinned', { message: target.id }, { parentId: target.id, at: now });
      await tx.chatMessages.pin(target.id, {
        pinned_id: systemId,
        pinned_by_type: acc.actor.type,
        pinned_by_id: acc.actor.id,
        pinned_by_name: acc.actor.displayName,
        pinned_at: now,
        pinned_until: until,
      });
      await tx.attendees.unhidePinned(acc.room.id, target.id);
      await tx.rooms.setLastPinned(acc.room.id, target.id);
      return systemId;
    });
    return this.answer(acc, id, now);
  }

  /** DELETE /chat/{token}/{messageId}/pin: the `message_unpinned` message, or no message when it was not pinned. */
  async unpin(ctx: RequestContext, token: unknown, messageId: number): Promise<MessagePage> {
    const acc = await this.moderator(ctx, token);
    const now = nowSeconds();
    const target = messageId > 0 ? await this.repos.chatMessages.findInRoom(acc.room.id, messageId, now) : undefined;
    if (!target) throw notFound('message', 'The message does not exist');
    const id = await this.unpinOne(acc.room, target.id, 0, acc.actor, now);
    return this.answer(acc, id, now);
  }

  /** DELETE /chat/{token}/{messageId}/pin/self: hides the pin for the caller (Talk checks no message). */
  async hide(ctx: RequestContext, token: unknown, messageId: number): Promise<void> {
    const acc = await this.chatApi.access(ctx, token, { lobby: true });
    await this.repos.attendees.hidePinned(acc.attendee.id, messageId, nowSeconds());
  }

  /**
   * The unpin job (Talk's UnpinMessage, at each pin's end): every pin whose time ran out before
   * `now` is unpinned by the system. Each unpin is one conditional update, so a second process,
   * or a moderator unpinning meanwhile, finds it done and posts nothing.
   */
  async unpinEnded(now: number): Promise<number> {
    let unpinned = 0;
    for (;;) {
      const ended = await this.repos.chatMessages.pinsEnded(now, ENDED_BATCH);
      const rooms = new Map((await this.repos.rooms.findByIds([...new Set(ended.map((p) => p.room_id))])).map((r) => [Number(r.id), r]));
      let done = 0;
      for (const p of ended) {
        const room = rooms.get(p.room_id);
        if (room && (await this.unpinOne(room, p.id, p.pinned_id, SYSTEM_ACTOR, now)) > 0) done++;
      }
      unpinned += done;
      // A full batch of which none could be unpinned would be read again: stop there.
      if (ended.length < ENDED_BATCH || done === 0) return unpinned;
    }
  }

  /**
   * Unpins message `messageId` (pinned by `pinnedId`; 0: whatever pinned it) and posts
   * `message_unpinned`, silently and without moving lastMessage (docs/reference/capabilities-and-config.md#the-capabilities-document); the room's last pin falls
   * back when it was this one. Answers the system message's id, 0 when nothing was pinned.
   */
  private async unpinOne(room: RoomRow, messageId: number, pinnedId: number, actor: ChatActor, now: number): Promise<number> {
    return this.db.kysely.transaction().execute(async (trx) => {
      const tx = this.repos.withTransaction(trx);
      if (!(await tx.rooms.lockForMessage(room.id, 0))) throw notFound('room');
      if (!(await tx.chatMessages.unpin(messageId, pinnedId))) return 0;
      await tx.rooms.repointLastPinned([room.id], messageId);
      return this.chat.postSystemMessage(
        trx,
        room,
        actor,
        'message_unpinned',
        { message: messageId },
        { parentId: messageId, skipRoomUpdate: true, silent: true, at: now },
      );
    });
  }

  /** A moderator's access (Talk's RequireModeratorParticipant: no read-only, lobby or chat permission check). */
  private async moderator(ctx: RequestContext, token: unknown): Promise<ChatAccess> {
    const acc = await this.chatApi.access(ctx, token, { lobby: false });
    if (!may.pinMessages(acc.attendee)) throw forbidden('moderator', 'Only moderators can pin and unpin messages');
    return acc;
  }

  /** The system message `id` with its parent, or no message (data null) when `id` is 0. */
  private async answer(acc: ChatAccess, id: number, now: number): Promise<MessagePage> {
    const row = id > 0 ? await this.repos.chatMessages.findInRoom(acc.room.id, id, now) : undefined;
    return this.chatApi.pageOf(acc, row ? [row] : []);
  }
}
