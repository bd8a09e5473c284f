/**
 * SQL for Talk sessions (table `sessions`): one row per join of an attendee (several per
 * attendee: tabs, devices). Sessions are removed with their attendee or conversation.
 *
 * Join, ping and call state live in the participants repository; this one holds what the
 * conversation lifecycle needs.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, SessionsTable } from '../schema.js';
import { chunks } from '../chunks.js';

export type SessionRow = Selectable<SessionsTable>;

export class SessionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  // ---- deletes ----

  /**
   * The sessions of these attendees, deleted after them (conversation deletion, removal): a
   * join's session insert holds its attendee row (ParticipantsRepository.insertSession), so a
   * session inserted before the attendees' deletion is committed and goes here, and one after
   * it finds no attendee.
   */
  async deleteForAttendees(attendeeIds: number[]): Promise<string[]> {
    const gone: string[] = [];
    for (const part of chunks(attendeeIds)) {
      const rows = await this.db.deleteFrom('sessions').where('attendee_id', 'in', part).returning('session_id').execute();
      gone.push(...rows.map((r) => r.session_id));
    }
    return gone;
  }
}
