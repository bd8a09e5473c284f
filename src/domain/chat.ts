/**
 * Chat constants and pure rules (docs/reference/chat.md). No I/O.
 */
import { ActorType } from './constants.js';

/** config.chat.max-length: characters after trimming (docs/reference/chat.md#sending, docs/reference/capabilities-and-config.md#features). */
export const CHAT_MAX_LENGTH = 32000;
/** History and long-poll page size: default and cap (docs/reference/chat.md#receiving). */
export const CHAT_DEFAULT_LIMIT = 100;
export const CHAT_MAX_LIMIT = 200;
/** Long-poll wait: default and cap in seconds (the task asks for 60; Talk's code caps at 30, docs/reference/chat.md#where-talks-docs-and-code-differ #1). */
export const CHAT_DEFAULT_TIMEOUT = 30;
export const CHAT_MAX_TIMEOUT = 60;
/** Context endpoint: default and cap (docs/reference/chat.md#receiving). */
export const CONTEXT_DEFAULT_LIMIT = 50;
export const CONTEXT_MAX_LIMIT = 100;
/** Edits are allowed for 24 hours, except in note-to-self (docs/reference/chat.md#other-operations). */
export const EDIT_MAX_AGE = 24 * 3600;
/** referenceId is trimmed and cut to 64 characters (docs/reference/chat.md#sending). */
export const REFERENCE_ID_MAX = 64;
/** Read marker meaning "the first message is unread" (docs/reference/chat.md#read-markers read marker, 0 -> -2). */
export const UNREAD_FIRST_MESSAGE = -2;

/** The message types Parley stores (Talk's verbs, docs/reference/chat.md#the-message-object; `object_shared` is shown as a comment). */
export const MessageType = {
  COMMENT: 'comment',
  SYSTEM: 'system',
  COMMENT_DELETED: 'comment_deleted',
  OBJECT_SHARED: 'object_shared',
} as const;

/** The actor of messages nobody in particular wrote (automatic actions): guests/system. */
export const SYSTEM_ACTOR = { type: ActorType.GUESTS, id: 'system', displayName: '' } as const;
/** The command line's actor (operator commands): guests/cli. */
export const CLI_ACTOR = { type: ActorType.GUESTS, id: 'cli', displayName: '' } as const;
/**
 * The author of a deleted user's messages: Nextcloud rewrites the comments of a deleted account
 * to actor `deleted_users`/`deleted_users` (CommentsManager::deleteReferencesOfActor), shown with
 * an empty display name (docs/reference/constants.md#actor-types, docs/reference/chat.md#the-message-object actorId).
 */
export const DELETED_USERS = 'deleted_users';

/** Actor types whose messages can be replied to (docs/reference/chat.md#the-message-object isReplyable). */
const REPLYABLE_ACTORS = new Set<string>(['users', 'federated_users', 'guests', 'emails', 'bots']);

export function isReplyable(messageType: string, actorType: string): boolean {
  return messageType === MessageType.COMMENT && REPLYABLE_ACTORS.has(actorType);
}

/** Talk's trim + length rule: PHP trim() characters, length in code points (mb_strlen). */
export function trimMessage(raw: string): string {
  // PHP's trim() set includes NUL and vertical tab: matching control characters is the point.
  // eslint-disable-next-line no-control-regex
  return raw.replace(/^[ \t\n\r\0\x0B]+|[ \t\n\r\0\x0B]+$/g, '');
}

export function messageLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** referenceId as stored: trimmed, cut to 64 characters. */
export function normalizeReferenceId(raw: string): string {
  return [...raw.trim()].slice(0, REFERENCE_ID_MAX).join('');
}

/** The attendees a message marks: `direct` ones (also the direct flag) and `all` of them, each once. */
export function mentionedIds(mentioned: { direct: readonly number[]; indirect: readonly number[] }): { direct: number[]; all: number[] } {
  const direct = [...new Set(mentioned.direct)];
  return { direct, all: [...new Set([...direct, ...mentioned.indirect])] };
}

/** Who a chat message or change is recorded under (actor type, id and display name). */
export interface ChatActor {
  type: string;
  id: string;
  displayName: string;
}

/** A user to notify about a message after commit, and why (mention, reply, group, @all). */
export interface MentionNotice {
  userId: string;
  reason: 'reply' | 'direct' | 'group' | 'all';
  sourceId?: string;
  sourceName?: string;
}
