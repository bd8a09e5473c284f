/**
 * Shared objects in a chat (docs/reference/chat.md#endpoints, docs/reference/chat.md#shared-objects): share a rich object (a location, a
 * deck card, ...) as a message, and list a conversation's shared items by kind. Who may do what
 * is the chat's (ChatApiService.access): sharing is a post (participant, lobby, chat permission,
 * not read-only), listing is a read (participant, lobby).
 */
import type { ChatMessageRead } from '../../db/repositories/chat-messages.js';
import { normalizeReferenceId } from '../../domain/chat.js';
import { LISTED_ITEM_TYPES, PINNED_ITEMS, SHARED_ITEM_TYPES, buildSharedObject, isSharedItemType } from '../../domain/chat-shares.js';
import { badRequest } from '../../domain/errors.js';
import { nowSeconds } from '../../domain/time.js';
import { roomAvatarUrl } from '../../presenters/conversation.js';
import type { Db } from '../../db/database.js';
import type { Repositories } from '../../db/repositories/index.js';
import type { ChatApiService, MessagePage } from './chat-api.js';
import type { ChatService } from './chat.js';
import type { RoomsService } from '../conversations/rooms.js';
import type { RequestContext } from '../platform/request-context.js';

export interface ShareInput {
  objectType: string;
  objectId: string;
  /** A JSON object of the object's other keys (Talk's `metaData`). */
  metaData: string;
  actorDisplayName: string;
  referenceId: string;
}

export class ChatSharesService {
  constructor(
    private readonly db: Db,
    private readonly repos: Repositories,
    private readonly chatApi: ChatApiService,
    private readonly chat: ChatService,
    private readonly rooms: RoomsService,
    private readonly baseUrl: string,
  ) {}

  /** POST /chat/{token}/share: 201 with the message; 400 `object`/`link` for an object Talk refuses. */
  async share(ctx: RequestContext, token: unknown, input: ShareInput): Promise<MessagePage> {
    const acc = await this.chatApi.access(ctx, token, { write: true, chat: true });
    const built = buildSharedObject(input.objectType, input.objectId, input.metaData, roomAvatarUrl(this.baseUrl, acc.room), this.baseUrl);
    if ('refused' in built) {
      throw built.refused === 'link' ? badRequest('link', 'The link must point at this server') : badRequest('object', 'The object is not a valid rich object');
    }
    const actor = await this.chatApi.guestName(acc, input.actorDisplayName);
    await this.rooms.refillOneToOne(acc.room);
    const id = await this.db.kysely.transaction().execute((trx) =>
      this.chat.postSharedObject(trx, acc.room, actor, built.object, {
        referenceId: normalizeReferenceId(input.referenceId),
        authorAttendeeId: acc.attendee.id,
      }),
    );
    await this.chat.objectShared(acc.room, id, actor);
    const row = await this.repos.chatMessages.findInRoom(acc.room.id, id, nowSeconds());
    return this.chatApi.pageOf(acc, row ? [row] : []);
  }

  /**
   * GET /chat/{token}/share: up to `limit` items of one kind, newest first, below
   * `lastKnownMessageId`; the page's `lastGiven` is the lowest id returned (X-Chat-Last-Given).
   * Pinned messages come the one pinned last first, as Talk lists them.
   */
  async list(ctx: RequestContext, token: unknown, objectType: string, lastKnownMessageId: number, limit: number): Promise<MessagePage> {
    const acc = await this.chatApi.access(ctx, token, { lobby: true });
    const now = nowSeconds();
    const rows =
      objectType === PINNED_ITEMS
        ? await this.repos.chatMessages.pinned(acc.room.id, lastKnownMessageId, limit, now)
        : isSharedItemType(objectType)
          ? await this.repos.chatSharedItems.list(acc.room.id, objectType, lastKnownMessageId, limit, now)
          : [];
    const lastGiven = rows.length ? Math.min(...rows.map((r) => r.id)) : undefined;
    return { ...(await this.chatApi.pageOf(acc, rows)), lastGiven };
  }

  /** GET /chat/{token}/share/overview: the newest `limit` items of every kind (each kind a list, maybe empty). */
  async overview(ctx: RequestContext, token: unknown, limit: number): Promise<{ page: MessagePage; byType: Map<string, ChatMessageRead[]> }> {
    const acc = await this.chatApi.access(ctx, token, { lobby: true });
    const now = nowSeconds();
    const shared = await this.repos.chatSharedItems.overview(acc.room.id, SHARED_ITEM_TYPES, limit, now);
    const pinned = await this.repos.chatMessages.pinned(acc.room.id, 0, limit, now);
    const byType = new Map<string, ChatMessageRead[]>(LISTED_ITEM_TYPES.map((t) => [t, []]));
    for (const r of shared) byType.get(r.object_type)?.push(r);
    byType.set(PINNED_ITEMS, pinned);
    return { page: await this.chatApi.pageOf(acc, [...shared, ...pinned]), byType };
  }
}
