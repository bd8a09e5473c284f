/**
 * The shapes the chat API service answers with: a participant's access to a conversation's
 * chat, a page of messages with its chat headers, and a read marker set on a federated host.
 */
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { ChatMessageRead } from '../../db/repositories/chat-messages.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { MessageEnv } from '../../presenters/chat-message.js';
import type { CallerRoom } from '../conversations/rooms.js';
import type { ChatActor } from './chat.js';
import type { ProxiedAnswer } from './chat-proxied.js';

/** A participant's access to a room's chat, resolved once per request. */
export interface ChatAccess {
  room: RoomRow;
  attendee: AttendeeRow;
  actor: ChatActor;
}

/** What a page of messages is formatted for (ChatAccess, or the slim copy a long-poll keeps while it waits). */
export interface PageAccess {
  room: Pick<RoomRow, 'id' | 'token' | 'type'>;
  attendee: Pick<AttendeeRow, 'id' | 'read_privacy'>;
  actor: ChatActor;
}

export function pageAccessOf(acc: ChatAccess): PageAccess {
  return {
    room: { id: acc.room.id, token: acc.room.token, type: acc.room.type },
    attendee: { id: acc.attendee.id, read_privacy: acc.attendee.read_privacy },
    actor: acc.actor,
  };
}

/** Rows to answer with, the lookups to format them, and the chat headers. */
export interface MessagePage {
  rows: ChatMessageRead[];
  env: MessageEnv;
  /** X-Chat-Last-Given: the last row fetched (also when it was not returned); undefined when none. */
  lastGiven?: number;
  /** X-Chat-Last-Common-Read, only for readers with public read privacy. */
  commonRead?: number;
  /** Nothing to answer (304), unless `commonRead` changed (then 200 []). */
  notModified: boolean;
}

/** A read marker set on the host of a conversation kept here: the local conversation and the host's answer. */
export interface ProxiedRead extends CallerRoom {
  proxied: ProxiedAnswer;
}
