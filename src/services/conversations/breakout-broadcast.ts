/**
 * Breakout broadcast (docs/reference/conversations.md#breakout-rooms, Talk's BreakoutRoomService::broadcastChatMessage):
 * a logged-in moderator of the parent posts one message into every breakout room, as
 * themselves (each post is the chat's ordinary post: mentions, read marker, wake-ups).
 * 400 `mode` without breakout rooms, 400 `message` empty, 413 `message` too long.
 */
import { ActorType, BreakoutMode } from '../../domain/constants.js';
import { CHAT_MAX_LENGTH, messageLength, trimMessage } from '../../domain/chat.js';
import { badRequest, payloadTooLarge } from '../../domain/errors.js';
import type { BreakoutRoomsService } from './breakout-rooms.js';
import type { ChatService } from '../chat/chat.js';
import type { ChatMentions } from '../chat/chat-mentions.js';
import type { RoomsService } from './rooms.js';
import type { ConversationView } from '../../presenters/conversation.js';
import type { RequestContext } from '../platform/request-context.js';
import type { Repositories } from '../../db/repositories/index.js';

export class BreakoutBroadcastService {
  constructor(
    private readonly rooms: RoomsService,
    private readonly repos: Pick<Repositories, 'attendees' | 'rooms'>,
    private readonly breakoutRooms: BreakoutRoomsService,
    private readonly chat: ChatService,
    private readonly mentions: ChatMentions,
  ) {}

  /** Posts `raw` into every breakout room of `token`; answers the caller's views of the breakout rooms. */
  async broadcast(ctx: RequestContext, token: unknown, raw: string): Promise<ConversationView[]> {
    const { room: parent, attendee } = await this.rooms.requireModerator(ctx, token, { loggedInOnly: true });
    if (parent.breakout_room_mode === BreakoutMode.NOT_CONFIGURED) throw badRequest('mode', 'The conversation has no breakout rooms configured');
    const text = trimMessage(raw);
    if (text === '') throw badRequest('message', 'The message is empty');
    if (messageLength(text) > CHAT_MAX_LENGTH) throw payloadTooLarge('message', `The message is longer than ${CHAT_MAX_LENGTH} characters`);
    const children = await this.repos.rooms.childrenOf(parent.token);
    const mine = await this.repos.attendees.actorsInRooms(
      children.map((r) => r.id),
      ActorType.USERS,
      [attendee.actor_id],
    );
    const byRoom = new Map(mine.map((a) => [a.room_id, a]));
    const actor = { type: attendee.actor_type, id: attendee.actor_id, displayName: ctx.user?.display_name ?? attendee.display_name };
    for (const child of children) {
      const own = byRoom.get(child.id);
      const parsed = await this.mentions.resolve(child, text, { author: own ?? attendee, canMentionAll: true });
      await this.chat.postUserMessage(child, {
        actor,
        attendeeId: own?.id ?? 0,
        message: parsed.message,
        parameters: parsed.parameters,
        parentId: null,
        referenceId: '',
        silent: false,
        canMentionAll: true,
        mentions: parsed.mentioned,
      });
    }
    return (await this.breakoutRooms.callerViews(ctx, parent)).filter((v) => v.room.id !== parent.id);
  }
}
