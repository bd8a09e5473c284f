/**
 * Reactions (docs/reference/chat.md#reactions): add, remove and list the reactions of a message.
 * Storage as Talk: a `reaction` chat row per actor and emoji (unique index, migration 0703),
 * turned into `reaction_deleted` on removal, which posts `reaction_revoked`; the reacted
 * message's emoji → count map is recomputed in the same transaction under the room's row lock.
 *
 * Permission: reacting needs the chat permission (128), as in Talk before 24; the react bit 256
 * is stored but not required, because the contract's default permissions (246) lack it
 * (docs/reference/participants.md#the-react-bit-talk-24); `react-permission` is not advertised.
 */
import type { Db } from '../../db/database.js';
import { CHAT_MESSAGE_DEFAULTS, UNREAD_TYPES, type ChatMessagesRepository, type ChatMessageRead } from '../../db/repositories/chat-messages.js';
import { type ChatReactionsRepository, REACTION, type ReactionRead } from '../../db/repositories/chat-reactions.js';
import { isSingleEmoji } from '../../domain/emoji.js';
import { ActorType } from '../../domain/constants.js';
import { badRequest, notFound } from '../../domain/errors.js';
import { nowSeconds } from '../../domain/time.js';
import type { ChatAccess, ChatApiService } from './chat-api.js';
import { proxiedReactions, type ProxiedAnswer } from './chat-proxied.js';
import { chatChannel, type ChatService } from './chat.js';
import type { RequestContext } from '../platform/request-context.js';
import type { Repositories } from '../../db/repositories/index.js';

/**
 * Messages that take reactions: text, shared objects (polls) and voice/recordings (docs/reference/chat.md#reactions
 * "Reactable"), the same verbs Talk counts as unread chat, so the one list serves both.
 */
const REACTABLE_TYPES = new Set(UNREAD_TYPES);

/** `{emoji: [{actorType, actorId, actorDisplayName, timestamp}]}` (docs/reference/chat.md#reactions "Map format"). */
export type ReactionsMap = Record<string, { actorType: string; actorId: string; actorDisplayName: string; timestamp: number }[]>;

export class ChatReactionsService {
  private readonly messages: ChatMessagesRepository;
  private readonly reactions: ChatReactionsRepository;

  constructor(
    private readonly db: Db,
    private readonly repos: Repositories,
    private readonly chatApi: ChatApiService,
    private readonly chat: ChatService,
  ) {
    this.messages = repos.chatMessages;
    this.reactions = repos.chatReactions;
  }

  /** POST: `created` false when the actor had already reacted so (Talk answers 200 then). */
  async add(ctx: RequestContext, token: unknown, messageId: number, emoji: string): Promise<{ created: boolean; reactions: ReactionsMap } | ProxiedAnswer> {
    const acc = await this.chatApi.access(ctx, token, { write: true, chat: true });
    const proxy = this.chatApi.proxyFor(acc.room);
    if (proxy) return proxiedReactions(proxy, ctx, acc.room, 'POST', messageId, emoji);
    const target = await this.reactable(acc, messageId, 400);
    if (!isSingleEmoji(emoji)) throw badRequest('reaction', 'A reaction is exactly one emoji');
    const now = nowSeconds();
    const reactionId = await this.db.kysely.transaction().execute(async (trx) => {
      // The room lock orders this with the room's other posts (ChatService) and the count refresh.
      const tx = this.repos.withTransaction(trx);
      if (!(await tx.rooms.lockForMessage(acc.room.id, 0))) throw notFound('room');
      // Read again under the lock that deletions and history clears take: a message deleted
      // since it was read gets no reaction.
      await this.reactable(acc, target.id, 400, tx.chatMessages);
      const repo = tx.chatReactions;
      const id = await repo.insertOnce({
        ...CHAT_MESSAGE_DEFAULTS,
        room_id: acc.room.id,
        actor_type: acc.actor.type,
        actor_id: acc.actor.id,
        actor_display_name: acc.actor.displayName,
        message: emoji,
        message_type: REACTION,
        parent_id: target.id,
        created_at: now,
        // A reaction expires with its message (docs/reference/chat.md#reactions "Storage").
        expires_at: target.expires_at,
      });
      if (id === 0) return 0;
      await repo.refreshCounts(target.id);
      await this.db.wake.notify([chatChannel(acc.room.id)], trx);
      return id;
    });
    if (reactionId > 0) await this.chat.announceReaction(acc.room, reactionId, target.id);
    return { created: reactionId > 0, reactions: await this.map(target.id) };
  }

  /** DELETE: 404 when the actor has no such reaction; posts `reaction_revoked` (skip-update, docs/reference/chat.md#system-messages). */
  async remove(ctx: RequestContext, token: unknown, messageId: number, emoji: string): Promise<ReactionsMap | ProxiedAnswer> {
    const acc = await this.chatApi.access(ctx, token, { write: true, chat: true });
    const proxy = this.chatApi.proxyFor(acc.room);
    if (proxy) return proxiedReactions(proxy, ctx, acc.room, 'DELETE', messageId, emoji);
    const target = await this.reactable(acc, messageId, 404);
    const removed = await this.db.kysely.transaction().execute(async (trx) => {
      const tx = this.repos.withTransaction(trx);
      if (!(await tx.rooms.lockForMessage(acc.room.id, 0))) throw notFound('room');
      const repo = tx.chatReactions;
      // Under the room lock: of two concurrent removals only one finds the row.
      const reactionId = await repo.findOne(target.id, acc.actor.type, acc.actor.id, emoji);
      if (reactionId === 0) return false;
      await repo.markDeleted(reactionId);
      await repo.refreshCounts(target.id);
      await this.chat.postSystemMessage(trx, acc.room, acc.actor, 'reaction_revoked', { message: reactionId }, { parentId: target.id, skipRoomUpdate: true });
      return true;
    });
    if (!removed) throw notFound('reaction', 'The reaction does not exist');
    return this.map(target.id);
  }

  /** GET: all reactions of the message, or those of one emoji. */
  async list(ctx: RequestContext, token: unknown, messageId: number, emoji: string | undefined): Promise<ReactionsMap | ProxiedAnswer> {
    const acc = await this.chatApi.access(ctx, token, { lobby: true });
    const proxy = this.chatApi.proxyFor(acc.room);
    if (proxy) return proxiedReactions(proxy, ctx, acc.room, 'GET', messageId, emoji);
    const target = await this.reactable(acc, messageId, 404);
    return this.map(target.id, emoji);
  }

  /** The message to react to: 404 when missing; not reactable → `statusIfNot` (400 on add, 404 otherwise). */
  private async reactable(acc: ChatAccess, messageId: number, statusIfNot: 400 | 404, messages = this.messages): Promise<ChatMessageRead> {
    const target = messageId > 0 ? await messages.findInRoom(acc.room.id, messageId, nowSeconds()) : undefined;
    if (!target) throw notFound('message', 'The message does not exist');
    if (!REACTABLE_TYPES.has(target.message_type)) {
      throw statusIfNot === 400 ? badRequest('message', 'This message cannot be reacted to') : notFound('message', 'This message cannot be reacted to');
    }
    return target;
  }

  private async map(messageId: number, emoji?: string): Promise<ReactionsMap> {
    const out: ReactionsMap = {};
    for (const r of await this.reactions.list(messageId, emoji)) (out[r.message] ??= []).push(reactionActor(r));
    return out;
  }
}

function reactionActor(r: ReactionRead) {
  const name = r.actor_type === ActorType.USERS ? r.user_display_name || r.actor_display_name || r.actor_id : r.actor_display_name;
  return { actorType: r.actor_type, actorId: r.actor_id, actorDisplayName: name, timestamp: r.created_at };
}
