/**
 * SQL of calls (docs/reference/calls.md#the-call-api; docs/reference/participants.md#sessions-and-calls): the call state lives in
 * `rooms.active_since` / `call_flag` / `call_permissions` and `sessions.in_call`.
 *
 * Concurrency (RULES "Concurrency invariants"): the methods that change the call state run
 * inside the caller's transaction and start with `lockRoom`, which takes the room row's write
 * lock. Under PostgreSQL READ COMMITTED every later statement of that transaction then reads a
 * snapshot that includes every call change committed before the lock was granted, so the
 * decisions — "this join starts the call" (active_since IS NULL) and "this leave ends it" (no
 * live in-call session left) — are single conditional statements evaluated under the lock:
 * two joins at once start one call, two leaves at once end it exactly once. On SQLite the
 * first write takes the database write lock, with the same effect.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** One live in-call session with its attendee (GET /call). */
export interface CallPeerRow {
  actor_type: string;
  actor_id: string;
  display_name: string;
  last_ping: number;
  session_id: string;
}

/** A room with a call that ended, as it was just before. */
export interface EndedCallRow {
  id: number;
  active_since: number | null;
}

/** A room's call-related state as read under its row lock (lockRoom). */
export interface LockedCallRoom {
  active_since: number | null;
  lobby_state: number;
  lobby_timer: number;
  read_only: number;
}

export class CallsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Live in-call sessions of a room (in_call ≠ 0, pinged at or after `aliveSince`). */
  async peers(roomId: number, aliveSince: number): Promise<CallPeerRow[]> {
    const rows = await this.db
      .selectFrom('sessions as s')
      .innerJoin('attendees as a', 'a.id', 's.attendee_id')
      .select(['a.actor_type', 'a.actor_id', 'a.display_name', 's.last_ping', 's.session_id'])
      .where('a.room_id', '=', roomId)
      .where('s.in_call', '!=', 0)
      .where('s.last_ping', '>=', aliveSince)
      .orderBy('s.id')
      .execute();
    return rows.map((r) => ({ ...r, last_ping: Number(r.last_ping) }));
  }

  /**
   * Takes the room row's write lock for the rest of the transaction (a no-op update) and returns
   * the call start, lobby and read-only state as they are under that lock (undefined: the room
   * is gone): a join checks them again there, since a lobby or read-only switch that committed
   * since the request read the room has already taken everyone out of the call.
   */
  async lockRoom(roomId: number): Promise<LockedCallRoom | undefined> {
    const r = await this.db
      .updateTable('rooms')
      .set({ call_flag: sql`call_flag` })
      .where('id', '=', roomId)
      .returning(['active_since', 'lobby_state', 'lobby_timer', 'read_only'])
      .executeTakeFirst();
    if (!r) return undefined;
    return {
      active_since: r.active_since === null ? null : Number(r.active_since),
      lobby_state: Number(r.lobby_state),
      lobby_timer: Number(r.lobby_timer),
      read_only: Number(r.read_only),
    };
  }

  /** Whether another live session than `sessionRowId` is in the room's call. */
  async othersInCall(roomId: number, sessionRowId: number, aliveSince: number): Promise<boolean> {
    const r = await this.db
      .selectFrom('sessions as s')
      .innerJoin('attendees as a', 'a.id', 's.attendee_id')
      .select('s.id')
      .where('a.room_id', '=', roomId)
      .where('s.id', '!=', sessionRowId)
      .where('s.in_call', '!=', 0)
      .where('s.last_ping', '>=', aliveSince)
      .limit(1)
      .executeTakeFirst();
    return r !== undefined;
  }

  /**
   * A session joins the call with `flags`: the room's call_flag ORs them in (it never decreases
   * while the call runs, docs/reference/calls.md#the-call-flag) and the call starts when none runs.
   * Returns whether this join started the call (one conditional statement, under lockRoom).
   */
  async startOrJoin(roomId: number, flags: number, now: number): Promise<boolean> {
    await this.db
      .updateTable('rooms')
      .set({ call_flag: sql`call_flag | ${flags}` })
      .where('id', '=', roomId)
      .execute();
    const started = await this.db.updateTable('rooms').set({ active_since: now }).where('id', '=', roomId).where('active_since', 'is', null).executeTakeFirst();
    return Number(started.numUpdatedRows) === 1;
  }

  /**
   * Sets a session's in-call flags. `from`: 'out' only when it is not in the call, 'in' only
   * when it is, 'any' either way. Returns whether the row changed.
   */
  async setInCall(sessionRowId: number, flags: number, from: 'out' | 'in' | 'any'): Promise<boolean> {
    let q = this.db.updateTable('sessions').set({ in_call: flags }).where('id', '=', sessionRowId);
    if (from === 'out') q = q.where('in_call', '=', 0);
    if (from === 'in') q = q.where('in_call', '!=', 0);
    return Number((await q.executeTakeFirst()).numUpdatedRows) === 1;
  }

  async touchLastJoinedCall(attendeeId: number, now: number): Promise<void> {
    await this.db.updateTable('attendees').set({ last_joined_call: now }).where('id', '=', attendeeId).execute();
  }

  /**
   * Ends the calls of `roomIds` that no live in-call session is left in (docs/reference/participants.md#sessions-and-calls):
   * no start time, no flags, call permissions back to 0. One statement; returns the ended ids.
   */
  async endEmpty(roomIds: number[], aliveSince: number): Promise<number[]> {
    if (roomIds.length === 0) return [];
    const rows = await this.db
      .updateTable('rooms')
      .set({ active_since: null, call_flag: 0, call_permissions: 0 })
      .where('id', 'in', roomIds)
      .where((eb) => eb.or([eb('active_since', 'is not', null), eb('call_flag', '!=', 0)]))
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('sessions as s')
              .innerJoin('attendees as a', 'a.id', 's.attendee_id')
              .select('s.id')
              .whereRef('a.room_id', '=', 'rooms.id')
              .where('s.in_call', '!=', 0)
              .where('s.last_ping', '>=', aliveSince),
          ),
        ),
      )
      .returning('id')
      .execute();
    return rows.map((r) => Number(r.id));
  }

  /**
   * Ends the calls of `roomIds` for everyone (moderator `all=true`, max_call_duration): the
   * rooms that still had one lose start time, flags and call permissions, and every session of
   * them leaves the call. Returns the ids that were ended by this statement.
   */
  async endForEveryone(roomIds: number[], now: number, touch: boolean): Promise<number[]> {
    if (roomIds.length === 0) return [];
    const rows = await this.db
      .updateTable('rooms')
      .set({ active_since: null, call_flag: 0, call_permissions: 0, ...(touch ? { last_activity: now } : {}) })
      .where('id', 'in', roomIds)
      .where((eb) => eb.or([eb('active_since', 'is not', null), eb('call_flag', '!=', 0)]))
      .returning('id')
      .execute();
    const ended = rows.map((r) => Number(r.id));
    if (ended.length) {
      await this.db
        .updateTable('sessions')
        .set({ in_call: 0 })
        .where('in_call', '!=', 0)
        .where('attendee_id', 'in', (eb) => eb.selectFrom('attendees').select('attendees.id').where('attendees.room_id', 'in', ended))
        .execute();
    }
    return ended;
  }

  /** Rooms among `roomIds` (any when undefined) with call state, as they are now. */
  async withCallState(roomIds?: number[]): Promise<Array<{ id: number; token: string; active_since: number | null }>> {
    if (roomIds && roomIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('rooms')
      .select(['id', 'token', 'active_since'])
      .where((eb) => eb.or([eb('active_since', 'is not', null), eb('call_flag', '!=', 0)]))
      .$if(roomIds !== undefined, (q) => q.where('id', 'in', roomIds!))
      .orderBy('id')
      .execute();
    return rows.map((r) => ({ id: Number(r.id), token: r.token, active_since: r.active_since === null ? null : Number(r.active_since) }));
  }

  /** Rooms whose call started at or before `cutoff` (max_call_duration). */
  async startedBefore(cutoff: number): Promise<number[]> {
    const rows = await this.db.selectFrom('rooms').select('id').where('active_since', 'is not', null).where('active_since', '<=', cutoff).execute();
    return rows.map((r) => Number(r.id));
  }

  /**
   * Per room: the number of attendees with a live in-call session (talk:monitor:calls, which
   * in Talk counts sessions pinged within 60 s). One grouped query.
   */
  async activeCallSizes(aliveSince: number): Promise<Array<{ token: string; participants: number }>> {
    const rows = await this.db
      .selectFrom('sessions as s')
      .innerJoin('attendees as a', 'a.id', 's.attendee_id')
      .innerJoin('rooms as r', 'r.id', 'a.room_id')
      .select(['r.token', sql<number>`count(distinct a.id)`.as('n')])
      .where('s.in_call', '!=', 0)
      .where('s.last_ping', '>=', aliveSince)
      .groupBy('r.token')
      .orderBy('r.token')
      .execute();
    return rows.map((r) => ({ token: r.token, participants: Number(r.n) }));
  }

  /** Live in-call sessions in all rooms (talk:active-calls). */
  async inCallSessionCount(aliveSince: number): Promise<number> {
    const r = await this.db
      .selectFrom('sessions')
      .select(sql<number>`count(*)`.as('n'))
      .where('in_call', '!=', 0)
      .where('last_ping', '>=', aliveSince)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  }

  /** A recording consent given on joining (Talk's ConsentService::storeConsent: one row per join). */
  async storeConsent(roomId: number, actorType: string, actorId: string, now: number): Promise<void> {
    await this.db.insertInto('recording_consents').values({ room_id: roomId, actor_type: actorType, actor_id: actorId, created_at: now }).execute();
  }

  /** Deleted conversations take their consents along. */
  async deleteConsents(roomIds: number[]): Promise<void> {
    if (roomIds.length) await this.db.deleteFrom('recording_consents').where('room_id', 'in', roomIds).execute();
  }
}
