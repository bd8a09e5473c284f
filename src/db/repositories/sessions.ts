/**
 * SQL for Talk sessions (table `sessions`): one row per join of an attendee (several per
 * attendee: tabs, devices). Sessions are removed with their attendee or conversation.
 *
 * Join, ping and call state live in the participants repository; this one holds what the
 * conversation lifecycle needs.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, SessionsTable } from '../schema.js';

export type SessionRow = Selectable<SessionsTable>;

export class SessionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

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
