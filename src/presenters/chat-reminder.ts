/**
 * Reminders as Talk answers them (docs/reference/chat.md#reminders; Talk's Reminder::jsonSerialize and
 * ChatController::getUpcomingReminders). Pure.
 */
import type { ChatMessageRead } from '../db/repositories/chat-messages.js';
import type { ReminderRow } from '../db/repositories/chat-reminders.js';
import type { RoomRow } from '../db/repositories/rooms.js';
import { ActorType } from '../domain/constants.js';
import { formatChatMessage, type MessageEnv } from './chat-message.js';

/** A reminder with its conversation's token (the answer of POST and GET). */
export interface Reminder {
  userId: string;
  token: string;
  messageId: number;
  timestamp: number;
}

/** An upcoming reminder with its conversation and the message it is about. */
export interface UpcomingReminder {
  reminder: ReminderRow;
  room: RoomRow;
  message: ChatMessageRead;
  /** Its user marked the conversation sensitive: the message is left out. */
  sensitive: boolean;
}

/** A message as user `userId` reads it: system texts say "You" to them. */
export function readerEnv(room: Pick<RoomRow, 'token' | 'type'>, userId: string): MessageEnv {
  return { token: room.token, roomType: room.type, viewer: { type: ActorType.USERS, id: userId } };
}

/** `{userId, token, messageId, timestamp}` (TalkChatReminder). */
export function presentReminder(r: Reminder): Record<string, unknown> {
  return { userId: r.userId, token: r.token, messageId: r.messageId, timestamp: r.timestamp };
}

/**
 * An upcoming reminder (TalkChatReminderUpcoming): the reminder and the message as its user reads
 * it; in a conversation its user marked sensitive, the author without the message (Talk blanks
 * `message` and `messageParameters`).
 */
export function presentUpcomingReminder(u: UpcomingReminder): Record<string, unknown> {
  const m = formatChatMessage(u.message, readerEnv(u.room, u.reminder.user_id), false);
  return {
    reminderTimestamp: Number(u.reminder.remind_at),
    roomToken: u.room.token,
    messageId: Number(u.reminder.message_id),
    actorType: m.actorType,
    actorId: m.actorId,
    actorDisplayName: m.actorDisplayName,
    message: u.sensitive ? '' : m.message,
    messageParameters: u.sensitive ? [] : m.messageParameters,
  };
}
