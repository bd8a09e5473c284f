/**
 * Every event Parley announces, with its payload. Add an event here, emit it from the service
 * that owns the change, and subscribe to it in `subscribers.ts`.
 *
 * Payloads with `trx` are emitted inside the emitter's transaction (see bus.ts); the others after
 * the change has committed.
 */
import type { RoomRow } from '../db/repositories/rooms.js';

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
  /** A conversation's properties changed (name, description, lobby, read-only, listable, type, ...): the row as it is now, after commit. */
  'room.updated': { room: RoomRow };
  /** Users became attendees of a conversation, after commit. */
  'room.attendees-added': { room: RoomRow; userIds: string[] };
  /** Attendees left or were removed, after commit: their user ids and the Talk session ids they had. */
  'room.attendees-removed': { room: RoomRow; userIds: string[]; sessionIds: string[] };
}
