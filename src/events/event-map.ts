/**
 * Every event Parley announces, with its payload. Add an event here, emit it from the service
 * that owns the change, and subscribe to it in `services/subscribers.ts`.
 *
 * Payloads with `trx` are emitted inside the emitter's transaction (see bus.ts); the others after
 * the change has committed.
 */
import type { Kysely } from 'kysely';
import type { RoomRow } from '../db/repositories/rooms.js';
import type { Database } from '../db/schema.js';
import type { AttendeeRow } from '../db/repositories/attendees.js';
import type { ChatActor, MentionNotice } from '../domain/chat.js';
import type { AppConfigSnapshot } from '../app-config/snapshot.js';

/** What changed about a conversation (each becomes a system message in its chat, docs/reference/chat.md#system-messages). */
export type RoomChange =
  | { kind: 'created' }
  | { kind: 'renamed'; oldName: string; newName: string }
  | { kind: 'description'; description: string }
  | { kind: 'read-only'; state: number }
  | { kind: 'listable'; scope: number }
  | { kind: 'lobby'; state: number }
  | { kind: 'password'; set: boolean }
  | { kind: 'type'; from: number; to: number }
  | { kind: 'message-expiration'; seconds: number }
  | { kind: 'avatar'; set: boolean };

/** Who did something in a call: the attendee behind the session. */
export interface CallActor {
  attendeeId: number;
  /** `users`, `guests`, `emails`, `federated_users`, `phones`. */
  actorType: string;
  actorId: string;
  displayName: string;
}

/** A session entering or leaving a call, or changing its flags. */
export interface CallSessionChange {
  /** The room as read before the change (its call columns may be stale; use the fields below). */
  room: RoomRow;
  actor: CallActor;
  /** The 512-character Talk session id. */
  sessionId: string;
  /** The session's in-call flags after the change (0 when it left). */
  flags: number;
  /** Unix time the call started (the one it joined, or left). */
  callStartTime: number;
}

/**
 * Why a call ended (docs/reference/chat.md#system-messages call_ended / call_ended_everyone, docs/reference/calls.md#the-call-api): the last session
 * left, a moderator ended it for everyone, max_call_duration, stale sessions or the abandoned-call
 * job, or the lobby / read-only switch took everyone out (`disconnected`, no `.trx` variant).
 */
export type CallEndReason = 'last-left' | 'moderator' | 'max-duration' | 'stale' | 'disconnected';

export interface CallEnded {
  room: RoomRow;
  /** The moderator who ended it for everyone, or the last session that left the call; null for the system (jobs, a last session that left the conversation). */
  actor: CallActor | null;
  /** true: ended for everyone (`call_ended_everyone`); false: the last one left (`call_ended`). */
  everyone: boolean;
  reason: CallEndReason;
  /** Unix time the call had started (0 when unknown) and its duration in seconds. */
  callStartTime: number;
  duration: number;
}

export interface EventMap {
  /** A password changed, the user was disabled or deleted: cached credentials must go. */
  'user.credentials-changed': { userId: string };
  /** One of a user's app passwords was revoked or a browser login session ended (after commit): what was opened with it ends. */
  'user.credential-revoked': { userId: string };
  /** A user is about to be deleted: areas remove what belongs to them before the account row goes. */
  'user.deleting': { userId: string; by?: string };
  /**
   * A user became a member of a group (also when created with groups); `by`: the logged-in user
   * who made the change (absent for the operator's command line).
   */
  'group.member-added': { groupId: string; userId: string; by?: string };
  'group.member-removed': { groupId: string; userId: string; by?: string };
  /** A group was deleted; `members` are the users it had. */
  'group.deleted': { groupId: string; members: string[]; by?: string };
  'team.member-added': { teamId: string; userId: string };
  'team.member-removed': { teamId: string; userId: string };
  /** A team was deleted; `members` are the users it had. */
  'team.deleted': { teamId: string; members: string[] };
  /** Conversations were deleted (the rows as they were), after commit. */
  'rooms.deleted': { rooms: RoomRow[] };
  /**
   * A user's chat message was committed (notifications and the signaling server follow it):
   * the room as it was before the post, the new id, its author and the users it mentions.
   */
  /** A conversation changed (inside the change's transaction): `room` as it is after the change. */
  'room.changed': { trx: Kysely<Database>; room: RoomRow; actor: ChatActor; change: RoomChange };
  /**
   * An attendee's own permissions were set (inside the change's transaction): `attendee` as it was
   * before, `permissions` the new value.
   */
  'attendee.permissions-changed': { trx: Kysely<Database>; room: RoomRow; attendee: AttendeeRow; permissions: number };
  /** An attendee's participant type changed (inside the change's transaction). */
  'attendee.type-changed': { trx: Kysely<Database>; room: RoomRow; actor: ChatActor; attendee: AttendeeRow; from: number; to: number };
  /**
   * Attendees were added to or removed from a conversation (inside the change's transaction):
   * the rows as stored (self-joined users made permanent members count as added).
   */
  'room.attendees-added.trx': { trx: Kysely<Database>; room: RoomRow; actor: ChatActor; attendees: AttendeeRow[] };
  /** `userDeleted`: the attendees left because their account was deleted (the chat names a deleted user). */
  'room.attendees-removed.trx': { trx: Kysely<Database>; room: RoomRow; actor: ChatActor; attendees: AttendeeRow[]; userDeleted?: boolean };
  /** Lobby timers passed and these rooms' lobbies were lifted by one statement (inside its transaction). */
  'rooms.lobby-timer-reached.trx': { trx: Kysely<Database>; rooms: RoomRow[]; now: number };
  /** Users' read markers moved to `messageId` (their mention notifications up to it are read). */
  'chat.read': { room: RoomRow; userIds: string[]; messageId: number };
  /**
   * A user's message was committed. `config`: the app config the posting request read at its
   * start, when there was a request (lets subscribers skip work the config rules out without
   * reading it again).
   */
  'chat.message-posted': {
    room: RoomRow;
    messageId: number;
    actor: ChatActor;
    /** The users it reaches by name (reply, @mention, group, @all), for notifications. */
    mentioned: MentionNotice[];
    silent: boolean;
    config?: AppConfigSnapshot;
  };
  /**
   * A system message or shared object was written inside the change's still open transaction
   * (handlers may only queue work that waits for that transaction, see SignalingNotifier).
   */
  'chat.posted-in-transaction': { trx: Kysely<Database>; room: RoomRow; messageId: number };
  /**
   * A message that moves lastMessage (or an edit's or deletion's system message) was written in a conversation with federated attendees
   * (`rooms.has_federation`), inside its transaction after its read and mention markers moved:
   * their servers are owed a MESSAGE_POSTED (docs/federation.md "Keeping the conversation current").
   */
  'chat.federated-post.trx': { trx: Kysely<Database>; room: RoomRow; messageId: number };
  /** A shared object (a location, a poll, ...) was posted (after commit): notified as a message (docs/reference/chat.md#shared-objects). */
  'chat.object-shared': { room: RoomRow; messageId: number; actor: ChatActor; mentioned?: MentionNotice[] };
  /**
   * A message was edited (after commit): the users it now mentions directly and did not before
   * (`added`), and those it no longer mentions (`removedUserIds`); `author` is its author.
   */
  'chat.message-edited': { room: RoomRow; messageId: number; author: ChatActor; added: MentionNotice[]; removedUserIds: string[]; silent: boolean };
  /** A message was deleted by a user (after commit): notifications about it go (Talk's removePendingNotificationsForMessage). */
  'chat.message-deleted': { room: RoomRow; messageId: number };
  /** A reaction was added (after commit): its row id and the message it is on. */
  'chat.reaction-added': { room: RoomRow; reactionId: number; messageId: number };

  // ---- calls (docs/reference/calls.md#the-call-api; emitted by CallService) ----
  // The `.trx` variants are emitted inside the transaction that changes the call state, with
  // the same payload plus `trx` (write system messages through it); the plain ones after commit.
  // A join emits `call.started` first when it started the call, then always `call.joined`.

  /** A session started a call. `silent`: no call notifications; `silentFor`: actor ids not to notify. */
  'call.started': CallSessionChange & { silent: boolean; silentFor: string[] };
  'call.started.trx': CallSessionChange & { silent: boolean; silentFor: string[]; trx: Kysely<Database> };
  /** A session joined the call (`started`: it was the one that started it). */
  'call.joined': CallSessionChange & { started: boolean; silent: boolean };
  'call.joined.trx': CallSessionChange & { started: boolean; silent: boolean; trx: Kysely<Database> };
  /** A session in the call changed its flags (PUT /call). */
  'call.flags-updated': CallSessionChange;
  /** A session left the call (not emitted for sessions taken out by an end for everyone). */
  'call.left': CallSessionChange;
  'call.left.trx': CallSessionChange & { trx: Kysely<Database> };
  /** A call ended; emitted after `call.left` when the last session left (see CallEndReason). */
  'call.ended': CallEnded;
  'call.ended.trx': CallEnded & { trx: Kysely<Database> };
  /** A participant in the call asked to ring an attendee (POST /call/{token}/ring/{attendeeId}). */
  'call.ring': { room: RoomRow; actor: CallActor; target: CallActor };
  /** A conversation's properties changed (name, description, lobby, read-only, listable, type, ...): the row as it is now, after commit. */
  'room.updated': { room: RoomRow };
  /**
   * Attendees' participant type or permissions changed, after commit (`all`: the conversation's
   * default or call permissions, which every attendee's effective permissions follow).
   */
  'room.participants-changed': { room: RoomRow; attendeeIds: number[] | 'all'; reason?: 'guest-name' | 'guests-cleaned' };
  /** Breakout rooms of `parent` were started or stopped (after commit); `children`: its breakout rooms. */
  'breakout.switched': { parent: RoomRow; children: RoomRow[]; started: boolean };
  /** An attendee joined a conversation (opened a session), after commit. */
  'room.joined': { room: RoomRow; actorType: string; actorId: string };
  /** Users became attendees of a conversation, after commit; `invitedBy`: the user who added them. */
  'room.attendees-added': { room: RoomRow; userIds: string[]; invitedBy?: string };
  /** Attendees left or were removed, after commit: their user ids and the Talk session ids they had. */
  'room.attendees-removed': { room: RoomRow; userIds: string[]; sessionIds: string[] };
}
