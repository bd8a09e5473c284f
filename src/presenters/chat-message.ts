/**
 * The chat message object exactly as Talk sends it (docs/reference/chat.md#the-message-object, Talk
 * `Message::toArray`), from loaded rows. Pure: the rows (with authors' current names) and the
 * parents are loaded by the chat service beforehand.
 */
import type { ChatMessageRead } from '../db/repositories/chat-messages.js';
import { ActorType, RoomType } from '../domain/constants.js';
import { CLI_ACTOR, isReplyable, MessageType, SYSTEM_ACTOR } from '../domain/chat.js';
import { actorObject } from '../domain/chat-rich-objects.js';
import { namedCallUsers, systemMessageText, type Viewpoint } from '../domain/system-messages.js';
import { captionMentions, fileRichObject, fileShareParameters, type FileReader, type FileShareParameters } from '../domain/files/shares.js';

export type ChatMessageRecord = Record<string, unknown>;

const FILE_MESSAGE_TYPES = new Set(['voice-message', 'record-audio', 'record-video']);

export interface MessageEnv {
  token: string;
  /** The conversation's type: one-to-one calls read "Incoming/Outgoing call" (docs/reference/chat.md#system-messages call_started). */
  roomType?: number;
  /** The viewer's actor (texts of system messages say "You" to their actor); absent for none. */
  viewer?: { type: string; id: string };
  /** Parents by id (replies, and the messages that message_deleted/edited are about). */
  parents?: ReadonlyMap<number, ChatMessageRead>;
  /** The viewer's own reactions by message id (`reactionsSelf`, docs/reference/chat.md#the-message-object: only when they reacted). */
  reactionsSelf?: ReadonlyMap<number, string[]>;
  /**
   * Files shared into the conversation, for this reader (docs/reference/files.md#the-file-rich-object):
   * the path of each share in the reader's tree, and the shares that are gone (unshared). Without
   * it a user reader sees the file's name as its path, as Talk's inaccurate rendering does.
   */
  files?: { targets: ReadonlyMap<number, string>; gone: ReadonlySet<number> };
  /** Current names of users who deleted others' messages, by user id (absent: the name stored with the deletion). */
  deleterNames?: ReadonlyMap<string, string>;
}

function parseObject(json: string): Record<string, unknown> {
  try {
    const v = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

/** PHP's empty array is JSON `[]`: messageParameters without entries (docs/reference/chat.md#the-message-object). */
function phpMap(obj: Record<string, unknown>): Record<string, unknown> | unknown[] {
  return Object.keys(obj).length === 0 ? [] : obj;
}

function displayNameOf(row: { actor_type: string; actor_id: string; actor_display_name: string; user_display_name?: string | null }): string {
  // A user without a display name is shown by id, as Nextcloud does.
  if (row.actor_type === ActorType.USERS) return row.user_display_name || row.actor_display_name || row.actor_id;
  return row.actor_display_name;
}

const isCaller = (p: Record<string, unknown>, env: MessageEnv): boolean =>
  env.viewer?.type === ActorType.USERS && Array.isArray(p.users) && p.users[0] === env.viewer.id;

const isOneToOne = (env: MessageEnv): boolean => env.roomType === RoomType.ONE_TO_ONE || env.roomType === RoomType.ONE_TO_ONE_FORMER;

/**
 * Which text a call message takes (docs/reference/chat.md#system-messages call_*): one-to-one wording first (an
 * outgoing or incoming call as the viewer started it or not; any end a plain "Call ended", as
 * Talk's parseCall answers one-to-ones before anything else), then the end by the
 * max_call_duration job and the caller's unanswered call.
 */
function callTextId(row: ChatMessageRead, p: Record<string, unknown>, env: MessageEnv, isViewer: boolean): string {
  if (isOneToOne(env) && row.system_message === 'call_started') return isViewer ? 'call_started_outgoing' : 'call_started_incoming';
  if (isOneToOne(env) && (row.system_message === 'call_ended' || row.system_message === 'call_ended_everyone')) return 'call_ended_one_to_one';
  if (row.system_message === 'call_ended_everyone' && row.actor_type === SYSTEM_ACTOR.type && row.actor_id === SYSTEM_ACTOR.id)
    return 'call_ended_max_duration';
  if (row.system_message === 'call_missed' && isCaller(p, env)) return 'call_tried';
  return row.system_message;
}

const isRichObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The rich objects a system message shows besides its actor, as Talk's SystemMessage parser
 * builds them: only objects, never what the text is computed from (a call stores `users`,
 * `cloudIds`, `guests` and `duration`). A missed call shows only `user`: the caller to the one
 * who missed it, the other party (stored as `other`) to the caller (parseMissedCall, without
 * `actor`); an ended call the users its text names (`user1`…, none in a one-to-one: parseCall).
 */
function systemObjects(row: ChatMessageRead, p: Record<string, unknown>, env: MessageEnv, tried: boolean): Record<string, unknown> {
  const objects: Record<string, unknown> = {};
  if (row.system_message === 'call_missed') {
    const who = tried ? p.other : p.user1;
    if (isRichObject(who)) objects.user = who;
    return objects;
  }
  const call = row.system_message === 'call_ended' || row.system_message === 'call_ended_everyone';
  const named = call && !isOneToOne(env) ? namedCallUsers(p) : 0;
  for (const [k, v] of Object.entries(p)) {
    if (!isRichObject(v)) continue;
    const user = /^user(\d)$/.exec(k);
    if (call && user && Number(user[1]) > named) continue;
    objects[k] = v;
  }
  return objects;
}

/**
 * How the viewer stands to a system message (docs/reference/chat.md#system-messages texts vary by viewer): the
 * actor, the user it names (Talk's isCurrentParticipantChangedUser, users only), the command
 * line or the system as actor, and an actor naming themselves (joined / left).
 */
function viewpoint(row: ChatMessageRead, p: Record<string, unknown>, env: MessageEnv, you: boolean): Viewpoint {
  const user = p.user as { id?: string; type?: string } | undefined;
  const youAreUser = env.viewer?.type === ActorType.USERS && user?.type === 'user' && user.id === env.viewer.id;
  const guestActor = row.actor_type === ActorType.GUESTS;
  const self = row.actor_type === ActorType.USERS && user?.type === 'user' && user.id === row.actor_id;
  return { you, youAreUser, cli: guestActor && row.actor_id === CLI_ACTOR.id, system: guestActor && row.actor_id === SYSTEM_ACTOR.id, self };
}

/** Who reads a shared file: its owner, another user (with their path), or anybody else. */
function fileReader(shared: FileShareParameters, env: MessageEnv): FileReader {
  if (env.viewer?.type !== ActorType.USERS) return { kind: 'other' };
  if (env.viewer.id === shared.file.owner) return { kind: 'owner' };
  return { kind: 'user', path: env.files?.targets.get(shared.share) };
}

/**
 * One message. `withParent`: add `parent` (full parent, or `{id, deleted: true}` when it is gone
 * or expired) — never for lastMessage and never nested deeper than one level.
 */
export function formatChatMessage(row: ChatMessageRead, env: MessageEnv, withParent = true): ChatMessageRecord {
  const actorDisplayName = displayNameOf(row);
  const isViewer = env.viewer !== undefined && env.viewer.type === row.actor_type && env.viewer.id === row.actor_id;
  let message = row.message;
  let parameters: Record<string, unknown> = parseObject(row.message_parameters);
  let systemMessage = '';
  let messageType = row.message_type;
  let reactions = parseObject(row.reactions);

  if (row.message_type === MessageType.SYSTEM) {
    systemMessage = row.system_message;
    message = systemMessageText(
      callTextId(row, parameters, env, isViewer),
      { ...parameters, silent: row.silent === 1 },
      viewpoint(row, parameters, env, isViewer),
    );
    // The caller of a missed one-to-one call sees it as their unanswered call (docs/reference/chat.md#system-messages call_missed).
    const tried = row.system_message === 'call_missed' && isCaller(parameters, env);
    if (tried) systemMessage = 'call_tried';
    // Rendered values that are not rich objects (names inlined in the text) are not parameters.
    const objects = systemObjects(row, parameters, env, tried);
    // poll_voted is anonymous (docs/reference/chat.md#system-messages); a missed call names only `user`.
    const withActor = row.system_message !== 'call_missed' && row.system_message !== 'poll_voted';
    parameters = withActor ? { actor: actorObject(row.actor_type, row.actor_id, actorDisplayName), ...objects } : objects;
  } else if (row.message_type === 'reaction' || row.message_type === 'reaction_deleted') {
    // Reaction rows are system messages whose text is the emoji (docs/reference/chat.md#the-message-object "Stored verbs").
    systemMessage = row.message_type;
    messageType = MessageType.SYSTEM;
    message = row.message_type === 'reaction' ? row.message : 'Reaction deleted by author';
    parameters = { actor: actorObject(row.actor_type, row.actor_id, actorDisplayName) };
  } else if (row.message_type === MessageType.OBJECT_SHARED && fileShareParameters(parameters)) {
    const shared = fileShareParameters(parameters)!;
    const actor = actorObject(row.actor_type, row.actor_id, actorDisplayName);
    if (env.files?.gone.has(shared.share)) {
      // An unshared file (docs/reference/chat.md#system-messages file_shared "missing file").
      messageType = MessageType.SYSTEM;
      systemMessage = 'file_shared';
      message = '{actor} shared a file which is no longer available';
      parameters = { actor };
    } else {
      // A file share is a comment, a voice message or a recording, its caption the text (docs/reference/chat.md#the-message-object "Stored verbs").
      messageType = shared.metaData.messageType;
      message = row.message;
      parameters = { actor, file: fileRichObject(shared.file, fileReader(shared, env)), ...captionMentions(parameters) };
    }
  } else if (row.message_type === MessageType.OBJECT_SHARED) {
    // Shared objects (polls, locations, ...) are comments to clients (docs/reference/chat.md#the-message-object "Stored verbs"); the
    // actor is rendered when read, as for system messages (a user's current name).
    messageType = MessageType.COMMENT;
    parameters = { actor: actorObject(row.actor_type, row.actor_id, actorDisplayName), object: parameters.object };
  } else if (row.message_type === MessageType.COMMENT_DELETED) {
    const byAuthor = row.deleted_by_type === row.actor_type && row.deleted_by_id === row.actor_id;
    const byViewer = env.viewer !== undefined && env.viewer.type === row.deleted_by_type && env.viewer.id === row.deleted_by_id;
    message = byViewer ? 'Message deleted by you' : byAuthor ? 'Message deleted by author' : 'Message deleted by {actor}';
    // The deleter as Talk's parseDeletedMessage names them: by their current name (docs/reference/chat.md#deleting-and-editing); the name stored with the deletion only when none is known (a guest, a deleted account).
    const live = row.deleted_by_type === ActorType.USERS ? env.deleterNames?.get(row.deleted_by_id) : undefined;
    const deleterName = byAuthor ? actorDisplayName : (live ?? row.deleted_by_name);
    parameters = { actor: actorObject(row.deleted_by_type, row.deleted_by_id, deleterName) };
    reactions = {};
  }

  const out: ChatMessageRecord = {
    id: row.id,
    token: env.token,
    actorType: row.actor_type,
    actorId: row.actor_id,
    actorDisplayName,
    timestamp: row.created_at,
    message,
    messageParameters: phpMap(parameters),
    systemMessage,
    messageType,
    // Voice messages and recordings are comments to Talk's reply rule.
    isReplyable: isReplyable(FILE_MESSAGE_TYPES.has(messageType) ? MessageType.COMMENT : messageType, row.actor_type),
    referenceId: row.reference_id,
    reactions,
    expirationTimestamp: row.expires_at,
    markdown: messageType !== MessageType.SYSTEM,
  };
  if (row.last_edit_at > 0) {
    out.lastEditActorType = row.last_edit_actor_type;
    out.lastEditActorId = row.last_edit_actor_id;
    out.lastEditActorDisplayName = row.last_edit_actor_display_name;
    out.lastEditTimestamp = row.last_edit_at;
  }
  const own = env.reactionsSelf?.get(row.id);
  if (own && messageType !== MessageType.COMMENT_DELETED) out.reactionsSelf = own;
  if (messageType === MessageType.COMMENT_DELETED) out.deleted = true;
  if (row.silent) out.silent = true;
  // A pinned message's metaData (docs/reference/chat.md#the-message-object, Talk's Message::EXPOSED_METADATA_KEYS); pinnedUntil only when the pin ends.
  if (row.pinned_id > 0) {
    const metaData: Record<string, unknown> = {
      pinnedActorType: row.pinned_by_type,
      pinnedActorId: row.pinned_by_id,
      pinnedActorDisplayName: row.pinned_by_name,
      pinnedAt: row.pinned_at,
    };
    if (row.pinned_until > 0) metaData.pinnedUntil = row.pinned_until;
    out.metaData = metaData;
  }
  if (withParent && row.parent_id !== null) {
    const parent = env.parents?.get(row.parent_id);
    out.parent = parent ? formatChatMessage(parent, env, false) : { id: row.parent_id, deleted: true };
  }
  return out;
}

/** Messages in the given order. */
export function formatChatMessages(rows: ChatMessageRead[], env: MessageEnv): ChatMessageRecord[] {
  return rows.map((r) => formatChatMessage(r, env));
}
