/**
 * The chat relay of the signaling server's `message` notification (docs/reference/signaling.md#notifications-to-the-signaling-server,
 * Talk 22+): `{type:"chat", chat:{refresh:true, comment}}` where `comment` is the message as
 * the chat API shows it (docs/reference/chat.md#the-message-object, with `parent`) plus `lastCommonRead`. Sent for users' messages,
 * shared objects, reactions and the system messages Talk relays; other system messages carry
 * only `refresh:true`, so clients fetch the chat themselves.
 */
import type { Repositories } from '../../db/repositories/index.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { ChatMessageRead } from '../../db/repositories/chat-messages.js';
import { formatChatMessage, type ChatMessageRecord } from '../../presenters/chat-message.js';
import { MessageType } from '../../domain/chat.js';
import { nowSeconds } from '../../domain/time.js';

/** System messages whose full comment Talk relays (docs/reference/signaling.md#notifications-to-the-signaling-server); prefixes end with `_`. */
const RELAYED_SYSTEM_MESSAGES = [
  'call_started',
  'call_joined',
  'call_left',
  'call_ended',
  'call_ended_everyone',
  'thread_created',
  'thread_renamed',
  'message_deleted',
  'message_edited',
  'owner_',
  'moderator_',
  'guest_moderator_',
  'file_shared',
  'object_shared',
  'history_cleared',
  'poll_voted',
  'poll_closed',
  'recording_started',
  'recording_stopped',
  // Reactions: the synthetic comment with the updated parent.
  'reaction',
  'reaction_revoked',
];

/** Whether a stored row's comment is relayed in full (user messages, shares, reactions, listed system messages). */
export function relaysComment(row: Pick<ChatMessageRead, 'message_type' | 'system_message'>): boolean {
  if (row.message_type !== MessageType.SYSTEM) return true;
  return RELAYED_SYSTEM_MESSAGES.some((id) => (id.endsWith('_') ? row.system_message.startsWith(id) : row.system_message === id));
}

export class SignalingChatRelay {
  constructor(private readonly repos: Pick<Repositories, 'chatMessages' | 'attendees'>) {}

  /**
   * The `message` notification's data for message `messageId` of `room`; undefined when the
   * message is not there (its transaction rolled back), so nothing is sent.
   */
  async data(room: RoomRow, messageId: number): Promise<Record<string, unknown> | undefined> {
    const now = nowSeconds();
    const row = await this.repos.chatMessages.findInRoom(room.id, messageId, now);
    if (!row) return undefined;
    if (!relaysComment(row)) return { type: 'chat', chat: { refresh: true } };
    return { type: 'chat', chat: { refresh: true, comment: await this.comment(room, row, now) } };
  }

  private async comment(room: RoomRow, row: ChatMessageRead, now: number): Promise<ChatMessageRecord> {
    const parent = row.parent_id !== null ? (await this.repos.chatMessages.findByIds([row.parent_id], now))[0] : undefined;
    const parents = new Map(parent ? [[parent.id, parent]] : []);
    const comment = formatChatMessage(row, { token: room.token, roomType: room.type, parents });
    comment.lastCommonRead = (await this.repos.attendees.commonReadMessages([room.id])).get(room.id) ?? 0;
    // Call messages say whether the call was silent (docs/reference/signaling.md#notifications-to-the-signaling-server `comment.call.silent`).
    if (row.message_type === MessageType.SYSTEM && row.system_message.startsWith('call_')) comment.call = { silent: row.silent === 1 };
    return comment;
  }
}
