/**
 * SQL for Talk sessions (table `sessions`): one row per join of an attendee (several per
 * attendee: tabs, devices). Sessions are removed with their attendee or conversation.
 *
 * Sections: lookups, deletes. The participants area adds join/ping/call methods here.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, SessionsTable } from '../schema.js';

export type SessionRow = Selectable<SessionsTable>;

export class SessionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  // ---- lookups ----

  /** Sessions with the given ids that belong to one of the attendees (one query). */
  async findForAttendees(attendeeIds: number[], sessionIds: string[]): Promise<SessionRow[]> {
    if (attendeeIds.length === 0 || sessionIds.length === 0) return [];
    return this.db
      .selectFrom('sessions')
      .selectAll()
      .where('attendee_id', 'in', attendeeIds)
      .where('session_id', 'in', sessionIds)
      .execute();
  }

  // ---- deletes ----

  /** Every session of every attendee of these rooms (conversation deletion). */
  async deleteForRooms(roomIds: number[]): Promise<void> {
    if (roomIds.length === 0) return;
    await this.db
      .deleteFrom('sessions')
      .where('attendee_id', 'in', (eb) => eb.selectFrom('attendees').select('attendees.id').where('attendees.room_id', 'in', roomIds))
      .execute();
  }
}
