/**
 * SQL of the background jobs that keep conversations tidy (docs/reference/participants.md#sessions-and-calls, docs/reference/conversations.md#timers-and-jobs):
 * retention, inactivity lock, lobby timers and empty conversations (calls: calls.ts). Each method is one
 * statement over an index-friendly condition; the jobs call them with the cut-offs they compute.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { RoomRow } from './rooms.js';

export class HousekeepingRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Rooms of an object type whose last activity is at or before `cutoff` (retention). */
  expiringRooms(objectType: string, cutoff: number): Promise<RoomRow[]> {
    return this.db.selectFrom('rooms').selectAll().where('object_type', '=', objectType).where('last_activity', '<=', cutoff).orderBy('id').execute();
  }

  /**
   * Locks group and public rooms idle since `cutoff` that are not read-only yet: read-only,
   * optionally behind the lobby with its timer at `now` as Talk's LockInactiveRooms sets it (so
   * it lifts itself once that second has passed; docs/reference/conversations.md#timers-and-jobs);
   * the lock is activity (Talk posts a system message). Returns how many were locked.
   */
  async lockInactive(cutoff: number, withLobby: boolean, now: number): Promise<number> {
    const res = await this.db
      .updateTable('rooms')
      .set({ read_only: 1, last_activity: now, ...(withLobby ? { lobby_state: 1, lobby_timer: now } : {}) })
      .where('type', 'in', [2, 3])
      .where('read_only', '=', 0)
      .where('last_activity', '<=', cutoff)
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /**
   * Rooms nobody is in: no attendee besides groups and teams (circles). The changelog (type 4)
   * and file conversations are kept (docs/reference/conversations.md#timers-and-jobs, RemoveEmptyRooms).
   */
  emptyRooms(limit: number): Promise<RoomRow[]> {
    return this.db
      .selectFrom('rooms')
      .selectAll()
      .where('type', '!=', 4)
      .where('object_type', '!=', 'file')
      .where((eb) =>
        eb.not(
          eb.exists(
            eb.selectFrom('attendees as a').select('a.id').whereRef('a.room_id', '=', 'rooms.id').where('a.actor_type', 'not in', ['groups', 'circles']),
          ),
        ),
      )
      .orderBy('id')
      .limit(limit)
      .execute();
  }
}
