/**
 * SQL of the conversation settings endpoints that touch more than the room row (docs/reference/conversations.md#endpoint-rules): leaving public removes guests and self-joined users, new conversation permissions reset
 * the attendees' own ones, read-only and the lobby push people out of the call. Each method is one
 * transaction, so a reader never sees half of a change. Single-row updates use RoomsRepository /
 * AttendeesRepository.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { CallsRepository } from './calls.js';
import type { RoomPatch } from './rooms.js';
import { MODERATOR_TYPES, PUBLIC_ONLY_TYPES } from '../../domain/permissions.js';
import { COLLECTIVE_ACTOR_TYPES } from '../../domain/constants.js';

export type CallDisconnect = 'everyone' | 'non-moderators';

export class RoomSettingsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Public to group: applies `patch` (type 2 and lastActivity) and deletes the guests, guest
   * moderators and self-joined users with their sessions. Returns how many attendees went.
   */
  async makeGroup(roomId: number, patch: RoomPatch, within?: (trx: Kysely<Database>) => Promise<void>): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await within?.(trx);
      await trx.updateTable('rooms').set(patch).where('id', '=', roomId).execute();
      const gone = trx.selectFrom('attendees').select('attendees.id').where('room_id', '=', roomId).where('participant_type', 'in', PUBLIC_ONLY_TYPES);
      await trx.deleteFrom('sessions').where('attendee_id', 'in', gone).execute();
      const r = await trx.deleteFrom('attendees').where('room_id', '=', roomId).where('participant_type', 'in', PUBLIC_ONLY_TYPES).executeTakeFirst();
      return Number(r.numDeletedRows);
    });
  }

  /**
   * New default or call permissions: applies `patch` and resets every attendee's own permissions
   * to 0 ("take the conversation's"), except groups and circles rows. Each attendee's
   * last_attendee_activity moves to `now` so `GET /room?modifiedSince` returns the conversation
   * to everyone whose effective permissions may have changed.
   */
  async setRoomPermissions(roomId: number, patch: RoomPatch, now: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('rooms').set(patch).where('id', '=', roomId).execute();
      await trx
        .updateTable('attendees')
        .set({ permissions: 0 })
        .where('room_id', '=', roomId)
        .where('actor_type', 'not in', COLLECTIVE_ACTOR_TYPES)
        .where('permissions', '!=', 0)
        .execute();
      await trx.updateTable('attendees').set({ last_attendee_activity: now }).where('room_id', '=', roomId).where('last_attendee_activity', '<', now).execute();
    });
  }

  /**
   * Applies `patch` and takes sessions out of the call (in_call = 0): everyone's (read-only) or
   * only non-moderators' (lobby). When no live session (last ping at or after `aliveSince`)
   * is left in the call, the call ends as everywhere else (CallsRepository.endEmpty:
   * no start time, no call flag, call permissions back to 0; docs/reference/participants.md#sessions-and-calls). Returns
   * whether the call ended.
   */
  async updateAndDisconnect(
    roomId: number,
    patch: RoomPatch,
    who: CallDisconnect,
    aliveSince: number,
    within?: (trx: Kysely<Database>) => Promise<void>,
  ): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      await within?.(trx);
      await trx.updateTable('rooms').set(patch).where('id', '=', roomId).execute();
      let attendees = trx.selectFrom('attendees').select('attendees.id').where('room_id', '=', roomId);
      // Moderators stay in the call when the lobby closes.
      if (who === 'non-moderators') attendees = attendees.where('participant_type', 'not in', MODERATOR_TYPES);
      await trx.updateTable('sessions').set({ in_call: 0 }).where('in_call', '!=', 0).where('attendee_id', 'in', attendees).execute();
      return (await new CallsRepository(trx).endEmpty([roomId], aliveSince)).length === 1;
    });
  }
}
