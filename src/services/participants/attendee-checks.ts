/**
 * Checks on a conversation's attendees that ParticipantsService and ParticipantRolesService
 * both start from: the target attendee exists in this conversation, and the caller is still a
 * moderator under the conversation's lock.
 */
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { Repositories } from '../../db/repositories/index.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import { forbidden, notFound } from '../../domain/errors.js';
import { may } from '../../domain/abilities.js';
import type { RequestContext } from '../platform/request-context.js';

/** The attendee `attendeeId` of `room`: 404 `participant` when it is not there. */
export async function attendeeIn(repos: Pick<Repositories, 'attendees'>, room: RoomRow, attendeeId: number): Promise<AttendeeRow> {
  const target = await repos.attendees.findById(attendeeId);
  if (!target || target.room_id !== room.id) throw notFound('participant', 'The participant does not exist in this conversation');
  return target;
}

/** 403 `moderator` when the caller (read under the lock) is no longer a moderator; the operator always is. */
export function assertStillModerator(ctx: RequestContext, all: AttendeeRow[], caller: AttendeeRow): void {
  if (ctx.isSystem) return;
  const me = all.find((a) => a.id === caller.id);
  if (!me || !may.moderate(me)) throw forbidden('moderator', 'Only moderators can do this');
}
