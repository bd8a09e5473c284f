/**
 * SQL of the signaling area: internal signaling messages (stored per recipient, taken by the
 * recipient's poll), the sessions in a room (usersInRoom, backend pings) and the users of a
 * room (who a signaling-server notification concerns). One statement per call.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { RoomRow } from './rooms.js';
import { chunks, rowsPerInsert } from '../chunks.js';
import type { Dialect } from '../database.js';

export interface RoomSessionRow {
  session_id: string;
  in_call: number;
  last_ping: number;
  attendee_id: number;
  actor_type: string;
  actor_id: string;
  display_name: string;
  participant_type: number;
  permissions: number;
}

export class SignalingRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect = 'sqlite',
  ) {}

  /**
   * Resolves once no transaction that posted into the room's chat is still open: every chat
   * post locks the room row (ChatService), and FOR SHARE waits for that lock. On SQLite the one
   * connection already waits for the writer's commit.
   */
  async roomWritersSettled(roomId: number): Promise<void> {
    if (this.dialect !== 'postgres') return;
    await this.db.selectFrom('rooms').select('id').where('id', '=', roomId).forShare().execute();
  }

  async insertMessages(rows: Array<{ room_id: number; recipient: string; data: string; created_at: number }>): Promise<void> {
    for (const part of chunks(rows, rowsPerInsert(4))) await this.db.insertInto('signaling_messages').values(part).execute();
  }

  /** Removes and returns the messages waiting for `recipient`, oldest first (one poll gets each once). */
  async takeMessages(recipient: string): Promise<string[]> {
    const rows = await this.db.deleteFrom('signaling_messages').where('recipient', '=', recipient).returning(['id', 'data']).execute();
    return rows.sort((a, b) => Number(a.id) - Number(b.id)).map((r) => r.data);
  }

  /** Messages nobody fetched (the recipient went away) are dropped after a while. */
  async deleteOlderThan(before: number): Promise<void> {
    await this.db.deleteFrom('signaling_messages').where('created_at', '<', before).execute();
  }

  /** Sessions in a room pinged at or after `since`. */
  async roomSessions(roomId: number, since: number): Promise<RoomSessionRow[]> {
    const rows = await this.db
      .selectFrom('sessions as s')
      .innerJoin('attendees as a', 'a.id', 's.attendee_id')
      .select([
        's.session_id',
        's.in_call',
        's.last_ping',
        'a.id as attendee_id',
        'a.actor_type',
        'a.actor_id',
        'a.display_name',
        'a.participant_type',
        'a.permissions',
      ])
      .where('a.room_id', '=', roomId)
      .where('s.last_ping', '>=', since)
      .orderBy('s.id')
      .execute();
    return rows.map((r) => ({ ...r, last_ping: Number(r.last_ping), attendee_id: Number(r.attendee_id) }));
  }

  /**
   * The users and guests of a room without any session, as session-like rows with session id
   * `"0"`, not in the call and never pinged (the `sessionId: "0"` entries of Talk's
   * `participants` notification, docs/reference/signaling.md#notifications-to-the-signaling-server).
   */
  async attendeesWithoutSession(roomId: number): Promise<RoomSessionRow[]> {
    const rows = await this.db
      .selectFrom('attendees as a')
      .leftJoin('sessions as s', 's.attendee_id', 'a.id')
      .select(['a.id as attendee_id', 'a.actor_type', 'a.actor_id', 'a.display_name', 'a.participant_type', 'a.permissions'])
      .where('a.room_id', '=', roomId)
      .where('a.actor_type', 'in', ['users', 'guests'])
      .where('s.id', 'is', null)
      .orderBy('a.id')
      .execute();
    return rows.map((r) => ({ ...r, attendee_id: Number(r.attendee_id), session_id: '0', in_call: 0, last_ping: 0 }));
  }

  /** The backend ping (docs/reference/signaling.md#backend-api): every listed session of the room is alive now, in one statement. */
  async pingSessions(roomId: number, sessionIds: string[], now: number): Promise<void> {
    for (const part of chunks(sessionIds)) {
      await this.db
        .updateTable('sessions')
        .set({ last_ping: now })
        .where('session_id', 'in', part)
        .where('attendee_id', 'in', (eb) => eb.selectFrom('attendees').select('id').where('room_id', '=', roomId))
        .execute();
    }
  }

  /** User ids of the users attending a room. */
  async userIdsOf(roomId: number): Promise<string[]> {
    const rows = await this.db.selectFrom('attendees').select('actor_id').where('room_id', '=', roomId).where('actor_type', '=', 'users').execute();
    return rows.map((r) => r.actor_id);
  }

  /** The room as it is now (notifications built after commit read the committed permissions). */
  async room(roomId: number): Promise<RoomRow | undefined> {
    return (await this.db.selectFrom('rooms').selectAll().where('id', '=', roomId).executeTakeFirst()) as RoomRow | undefined;
  }
}
