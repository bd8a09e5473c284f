/**
 * Every event Parley announces, with its payload. Add an event here, emit it from the service
 * that owns the change, and subscribe to it in `subscribers.ts`.
 *
 * Payloads with `trx` are emitted inside the emitter's transaction (see bus.ts); the others after
 * the change has committed.
 */
import type { RoomRow } from '../db/repositories/rooms.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { AttendeeRow } from '../db/repositories/attendees.js';
import type { ChatActor } from '../services/chat.js';

/** What changed about a conversation (each becomes a system message in its chat, talk-chat-calls.md §2). */
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

export interface EventMap {
  /** A password changed, the user was disabled or deleted: cached credentials must go. */
  'user.credentials-changed': { userId: string };
  /** A user is about to be deleted: areas remove what belongs to them before the account row goes. */
  'user.deleting': { userId: string };
  /** A user became a member of a group (also when created with groups). */
  'group.member-added': { groupId: string; userId: string };
  'group.member-removed': { groupId: string; userId: string };
  /** A group was deleted; `members` are the users it had. */
  'group.deleted': { groupId: string; members: string[] };
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
  /** An attendee's participant type changed (inside the change's transaction). */
  'attendee.type-changed': { trx: Kysely<Database>; room: RoomRow; actor: ChatActor; attendee: AttendeeRow; from: number; to: number };
  'chat.message-posted': { room: RoomRow; messageId: number; actor: ChatActor; mentionedUserIds: string[]; silent: boolean };
}
