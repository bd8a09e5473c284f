/**
 * SQL of the participants area over `attendees` and `sessions`: the participant list (every
 * attendee with all its sessions, one query for any number of rooms), sessions by id, joins
 * through cookie sessions, membership sources (groups, teams) and the stale-session cleanup.
 * Every method is one statement (or one transaction) whatever the number of rows.
 */
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';
import type { Database } from '../schema.js';
import type { CookieLoginState } from '../../domain/cookie-login.js';
import type { AttendeeRow } from './attendees.js';
import type { SessionRow } from './sessions.js';
import { chunks } from '../chunks.js';
import { compiledStatement } from '../compiled-statement.js';
import { idIn } from '../id-lists.js';

/**
 * The attendee columns a participant record is built from (presenters/participant.ts), the only
 * ones the list reads: reading all 24 into objects cost about twice as much for 5,000 attendees.
 */
const LISTED_ATTENDEE_COLUMNS = [
  'id',
  'room_id',
  'actor_type',
  'actor_id',
  'display_name',
  'pin',
  'participant_type',
  'permissions',
  'invited_cloud_id',
  'phone_number',
  'call_id',
] as const;
export type ListedAttendee = Pick<AttendeeRow, (typeof LISTED_ATTENDEE_COLUMNS)[number]>;

/** An attendee from its packed row (values in LISTED_ATTENDEE_COLUMNS order). */
function listedAttendeeOf(v: unknown[]): ListedAttendee {
  return {
    id: Number(v[0]),
    room_id: Number(v[1]),
    actor_type: v[2] as string,
    actor_id: v[3] as string,
    display_name: v[4] as string,
    pin: v[5] as string | null,
    participant_type: v[6] as number,
    permissions: v[7] as number,
    invited_cloud_id: v[8] as string | null,
    phone_number: v[9] as string | null,
    call_id: v[10] as string | null,
  };
}

/** Session columns of the packed list read, in `SessionRow`'s order. */
const PACKED_SESSION_COLUMNS = ['id', 'attendee_id', 'session_id', 'in_call', 'last_ping', 'state'] as const;

/**
 * The rows of a JSON-aggregated subquery: SQLite returns the JSON text, pg parses a json column
 * itself; no rows aggregate to NULL on PostgreSQL (`[]` on SQLite).
 */
function packedRows(value: unknown): unknown[][] {
  if (value === null || value === undefined) return [];
  return (typeof value === 'string' ? JSON.parse(value) : value) as unknown[][];
}

/** One attendee with one of its sessions (session null when it has none). */
export interface AttendeeSessionRow {
  attendee: ListedAttendee;
  session: SessionRow | null;
}

/** Session columns selected next to an attendee's (`s_`-prefixed so they do not collide). */
const SESSION_COLS = ['s.id as s_id', 's.session_id as s_session_id', 's.in_call as s_in_call', 's.last_ping as s_last_ping', 's.state as s_state'] as const;

interface PrefixedSession {
  s_id: number | string;
  s_session_id: string;
  s_in_call: number;
  s_last_ping: number | string;
  s_state: number;
}

/** Splits a row of attendee columns plus SESSION_COLS into the two records (PostgreSQL bigints arrive as strings). */
function splitSessionRow<R extends PrefixedSession>(r: R): { session: SessionRow; rest: Omit<R, keyof PrefixedSession> } {
  const { s_id, s_session_id, s_in_call, s_last_ping, s_state, ...rest } = r;
  const attendeeId = Number((rest as unknown as { id: number }).id);
  return {
    session: { id: Number(s_id), attendee_id: attendeeId, session_id: s_session_id, in_call: s_in_call, last_ping: Number(s_last_ping), state: s_state },
    rest,
  };
}

/** The sessions a cookie session (`keyHash`, in tab `tabId`) remembers, with their attendees and tokens. */
function cookieSessions(db: Kysely<Database>, keyHash: string, tabId: string) {
  return (
    db
      .selectFrom('client_sessions as c')
      .innerJoin('client_room_sessions as r', 'r.client_session_id', 'c.id')
      .innerJoin('sessions as s', 's.session_id', 'r.session_id')
      .innerJoin('attendees as a', 'a.id', 's.attendee_id')
      // The login the cookie session was opened with, and what is left of it (domain/cookie-login.ts):
      // read in the same statement, so checking it on every request costs no query.
      .leftJoin('users as u', 'u.id', 'c.user_id')
      .leftJoin('app_passwords as ap', (j) => j.onRef('ap.id', '=', 'c.app_password_id').onRef('ap.user_id', '=', 'c.user_id'))
      .leftJoin('login_sessions as ls', (j) => j.onRef('ls.token_hash', '=', 'c.login_token_hash').onRef('ls.user_id', '=', 'c.user_id'))
      .selectAll('a')
      .select(['r.token as r_token', ...SESSION_COLS, ...LOGIN_STATE_COLS])
      .where('c.key_hash', '=', keyHash)
      .where('r.tab_id', '=', tabId)
  );
}

const LOGIN_STATE_COLS = [
  'c.user_id as b_user_id',
  'c.app_password_id as b_app_password_id',
  'c.login_token_hash as b_login_token_hash',
  'c.password_stamp as b_password_stamp',
  'u.enabled as u_enabled',
  'u.password_hash as u_password_hash',
  'ap.id as ap_id',
  'ls.expires_at as ls_expires_at',
] as const;

/** Splits LOGIN_STATE_COLS off a row. */
function splitLogin<R extends CookieLoginState>(r: R): { login: CookieLoginState; rest: Omit<R, keyof CookieLoginState> } {
  const { b_user_id, b_app_password_id, b_login_token_hash, b_password_stamp, u_enabled, u_password_hash, ap_id, ls_expires_at, ...rest } = r;
  return { login: { b_user_id, b_app_password_id, b_login_token_hash, b_password_stamp, u_enabled, u_password_hash, ap_id, ls_expires_at }, rest };
}

type SessionByCookieRow = AttendeeRow & PrefixedSession & CookieLoginState & { r_token: string };
/** The caller's session and attendee in one conversation through their cookie session (a conversation's lookup with a cookie), compiled once. */
const SESSION_BY_COOKIE = compiledStatement<SessionByCookieRow, { keyHash: string; tabId: string; token: string }>((db, p) =>
  cookieSessions(db, p('keyHash'), p('tabId')).where('r.token', '=', p('token')),
);
/**
 * All sessions of a cookie session's tab (a handful: one per conversation the tab joined),
 * compiled once: for many conversations (GET /room's 200) picking them out of these is cheaper
 * than a statement naming every token, and its text does not change with their number.
 */
const SESSIONS_BY_COOKIE = compiledStatement<SessionByCookieRow, { keyHash: string; tabId: string }>((db, p) => cookieSessions(db, p('keyHash'), p('tabId')));

export class ParticipantsRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect = 'sqlite',
  ) {}

  // ---- the participant list ----

  /**
   * Every attendee of the rooms with all its sessions (one row per session, or one with a null
   * session), in attendee id order, in one statement: two scalar subqueries, the attendees and
   * their sessions (an inner join from the attendees, so one sessions-index probe per attendee),
   * each aggregated into one JSON array of row arrays. The
   * driver then hands over two values instead of 5,000 rows of 11 cells: building the cells cost
   * most of the read (5,000 attendees: 6.9 ms of CPU as cells on SQLite, 4.4 ms aggregated and
   * parsed; on PostgreSQL pg's per-field parsing, about 10 ms, against about 5), and PostgreSQL
   * takes one round trip instead of two.
   */
  async withSessions(roomIds: number[]): Promise<AttendeeSessionRow[]> {
    if (roomIds.length === 0) return [];
    const pg = this.dialect === 'postgres';
    const agg = pg ? sql.raw('json_agg(json_build_array') : sql.raw('json_group_array(json_array');
    const attendeeCols = sql.join(LISTED_ATTENDEE_COLUMNS.map((c) => sql.ref(c)));
    const sessionCols = sql.join(PACKED_SESSION_COLUMNS.map((c) => sql.ref(`s.${c}`)));
    // The sessions are reached from the rooms' attendees through the sessions' attendee index, so
    // the cost follows the rooms' attendees, never the whole sessions table (which grows with every
    // other conversation's sessions). SQLite's CROSS JOIN keeps that order (its planner otherwise
    // scanned every session and probed attendees by key); PostgreSQL plans it from statistics.
    const join = sql.raw(pg ? 'inner join' : 'cross join');
    const { rows } = await sql<{ a: unknown; s: unknown }>`select
      (select ${agg}(${attendeeCols}) order by id) from attendees where ${idIn(this.dialect, 'room_id', roomIds)}) as a,
      (select ${agg}(${sessionCols}) order by s.id) from attendees a ${join} sessions s on s.attendee_id = a.id where ${idIn(this.dialect, 'a.room_id', roomIds)}) as s`.execute(
      this.db,
    );
    const byAttendee = new Map<number, SessionRow[]>();
    for (const v of packedRows(rows[0]?.s)) {
      const session: SessionRow = {
        id: Number(v[0]),
        attendee_id: Number(v[1]),
        session_id: v[2] as string,
        in_call: v[3] as number,
        last_ping: Number(v[4]),
        state: v[5] as number,
      };
      const list = byAttendee.get(session.attendee_id);
      if (list) list.push(session);
      else byAttendee.set(session.attendee_id, [session]);
    }
    const out: AttendeeSessionRow[] = [];
    for (const v of packedRows(rows[0]?.a)) {
      const attendee = listedAttendeeOf(v);
      const list = byAttendee.get(attendee.id);
      if (!list) out.push({ attendee, session: null });
      else for (const session of list) out.push({ attendee, session });
    }
    return out;
  }

  // ---- sessions ----

  /**
   * Inserts a session for the attendee, or nothing (undefined) when the attendee is gone: the
   * insert reads the attendee row, on PostgreSQL under FOR KEY SHARE, so it waits for a
   * deletion of that attendee in progress and then finds nothing; a deletion that comes after
   * it deletes the attendee first and then its sessions, this one included.
   */
  async insertSession(attendeeId: number, sessionId: string, now: number): Promise<SessionRow | undefined> {
    const row = { attendee_id: attendeeId, session_id: sessionId, in_call: 0, last_ping: now, state: 1 };
    const r = await this.db
      .insertInto('sessions')
      .columns(['attendee_id', 'session_id', 'in_call', 'last_ping', 'state'])
      .expression((eb) =>
        eb
          .selectFrom('attendees')
          .select(['attendees.id', eb.val(sessionId).as('session_id'), eb.val(0).as('in_call'), eb.val(now).as('last_ping'), eb.val(1).as('state')])
          .where('attendees.id', '=', attendeeId)
          .$if(this.dialect === 'postgres', (q) => q.forKeyShare()),
      )
      .returning('id')
      .executeTakeFirst();
    return r ? { id: Number(r.id), ...row } : undefined;
  }

  /** A session with its attendee, when the attendee is in `roomId` (any room when undefined). */
  async sessionInRoom(roomId: number | undefined, sessionId: string): Promise<{ session: SessionRow; attendee: AttendeeRow } | undefined> {
    const r = await this.db
      .selectFrom('sessions as s')
      .innerJoin('attendees as a', 'a.id', 's.attendee_id')
      .selectAll('a')
      .select(SESSION_COLS)
      .where('s.session_id', '=', sessionId)
      .$if(roomId !== undefined, (q) => q.where('a.room_id', '=', roomId!))
      .executeTakeFirst();
    if (!r) return undefined;
    const { session, rest } = splitSessionRow(r);
    return { attendee: rest as AttendeeRow, session };
  }

  /**
   * The caller's sessions through their cookie session: for each token, the session the cookie
   * remembers, with its attendee (one query for any number of conversations).
   */
  async sessionsByCookie(
    keyHash: string,
    tabId: string,
    tokens: string[],
  ): Promise<Array<{ token: string; session: SessionRow; attendee: AttendeeRow; login: CookieLoginState }>> {
    if (tokens.length === 0) return [];
    // One conversation (the lookup of a conversation by a caller with a cookie): compiled once;
    // built per request it was about a twentieth of GET /room/{token}'s CPU on PostgreSQL.
    let rows: SessionByCookieRow[];
    if (tokens.length === 1) rows = await SESSION_BY_COOKIE(this.db, { keyHash, tabId, token: tokens[0] });
    else {
      const wanted = new Set(tokens);
      rows = (await SESSIONS_BY_COOKIE(this.db, { keyHash, tabId })).filter((r) => wanted.has(r.r_token));
    }
    return rows.map((r) => {
      const { session, rest } = splitSessionRow(r);
      const { login, rest: withToken } = splitLogin(rest);
      const { r_token, ...attendee } = withToken;
      return { token: r_token, attendee: attendee as AttendeeRow, session, login };
    });
  }

  /**
   * A user's sessions in every conversation, each with the login its cookie session was opened
   * with and what is left of it (domain/cookie-login.ts; the account read by the attendee's
   * user, so a session without a cookie binding still tells whether the account is enabled).
   */
  async sessionsOfUserWithLogin(userId: string): Promise<Array<{ session: SessionRow; attendee: AttendeeRow; login: CookieLoginState }>> {
    const rows = await this.db
      .selectFrom('attendees as a')
      .innerJoin('sessions as s', 's.attendee_id', 'a.id')
      .leftJoin('client_room_sessions as r', 'r.session_id', 's.session_id')
      .leftJoin('client_sessions as c', 'c.id', 'r.client_session_id')
      .leftJoin('users as u', 'u.id', 'a.actor_id')
      .leftJoin('app_passwords as ap', (j) => j.onRef('ap.id', '=', 'c.app_password_id').onRef('ap.user_id', '=', 'c.user_id'))
      .leftJoin('login_sessions as ls', (j) => j.onRef('ls.token_hash', '=', 'c.login_token_hash').onRef('ls.user_id', '=', 'c.user_id'))
      .selectAll('a')
      .select([...SESSION_COLS, ...LOGIN_STATE_COLS])
      .where('a.actor_type', '=', 'users')
      .where('a.actor_id', '=', userId)
      .execute();
    return rows.map((r) => {
      const { session, rest } = splitSessionRow(r);
      const { login, rest: attendee } = splitLogin(rest);
      return { attendee: attendee as AttendeeRow, session, login };
    });
  }

  /** Counts a session as pinged (sessions touched by their holder's requests stay alive). */
  async pingSessions(ids: number[], now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('sessions').set({ last_ping: now }).where('id', 'in', ids).where('last_ping', '<', now).execute();
  }

  async setSessionState(id: number, state: number): Promise<void> {
    await this.db.updateTable('sessions').set({ state }).where('id', '=', id).execute();
  }

  /** Deletes sessions; with `pingedBefore`, only those still not pinged since then (cleanup of stale ones). */
  async deleteSessions(ids: number[], pingedBefore?: number): Promise<void> {
    for (const part of chunks(ids)) {
      let q = this.db.deleteFrom('sessions').where('id', 'in', part);
      if (pingedBefore !== undefined) q = q.where('last_ping', '<=', pingedBefore);
      await q.execute();
    }
  }

  // ---- attendees ----

  /** Deletes attendees with their sessions (one transaction); returns the Talk session ids that went. */
  async deleteAttendees(ids: number[]): Promise<string[]> {
    if (ids.length === 0) return [];
    return this.db.transaction().execute((trx) => new ParticipantsRepository(trx, this.dialect).deleteAttendeesInTransaction(ids));
  }

  /** `deleteAttendees` inside a transaction the caller holds (a repository of `withTransaction`). */
  async deleteAttendeesInTransaction(ids: number[]): Promise<string[]> {
    const gone: string[] = [];
    // Attendees before their sessions (see insertSession).
    for (const part of chunks(ids)) {
      await this.db.deleteFrom('attendees').where('id', 'in', part).execute();
      const rows = await this.db.deleteFrom('sessions').where('attendee_id', 'in', part).returning('session_id').execute();
      gone.push(...rows.map((r) => r.session_id));
    }
    return gone;
  }

  /** Number of `users` attendees per room (rooms without any are missing from the map). */
  async userCounts(roomIds: number[]): Promise<Map<number, number>> {
    if (roomIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('attendees')
      .select(['room_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('room_id', 'in', roomIds)
      .where('actor_type', '=', 'users')
      .groupBy('room_id')
      .execute();
    return new Map(rows.map((r) => [Number(r.room_id), Number(r.n)]));
  }

  /** Room ids where an actor (a group, a team) is an attendee. */
  async roomsWithActor(actorType: string, actorId: string): Promise<number[]> {
    const rows = await this.db.selectFrom('attendees').select('room_id').where('actor_type', '=', actorType).where('actor_id', '=', actorId).execute();
    return rows.map((r) => Number(r.room_id));
  }

  /**
   * Among `roomIds`, those where one of the given groups or teams is an attendee (the user still
   * has another membership source there).
   */
  async roomsWithAnySource(roomIds: number[], groupIds: string[], teamIds: string[]): Promise<Set<number>> {
    if (roomIds.length === 0 || (groupIds.length === 0 && teamIds.length === 0)) return new Set();
    const rows = await this.db
      .selectFrom('attendees')
      .select('room_id')
      .where('room_id', 'in', roomIds)
      .where((eb) => {
        const ors = [];
        if (groupIds.length) ors.push(eb.and([eb('actor_type', '=', 'groups'), eb('actor_id', 'in', groupIds)]));
        if (teamIds.length) ors.push(eb.and([eb('actor_type', '=', 'circles'), eb('actor_id', 'in', teamIds)]));
        return eb.or(ors);
      })
      .execute();
    return new Set(rows.map((r) => Number(r.room_id)));
  }

  /** Sets the type of several attendees at once (self-joined members becoming permanent). */
  async setParticipantType(ids: number[], type: number, now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.updateTable('attendees').set({ participant_type: type, last_attendee_activity: now }).where('id', 'in', ids).execute();
  }

  /** Guest display name on every attendee row of that guest (docs/reference/participants.md). */
  async renameActor(actorType: string, actorId: string, displayName: string): Promise<void> {
    await this.db.updateTable('attendees').set({ display_name: displayName }).where('actor_type', '=', actorType).where('actor_id', '=', actorId).execute();
  }

  // ---- cleanup ----

  /** Sessions not pinged since `before`, with their attendee's actor type, type and room. */
  staleSessions(
    before: number,
    limit: number,
  ): Promise<Array<{ id: number; attendee_id: number; actor_type: string; participant_type: number; room_id: number }>> {
    return this.db
      .selectFrom('sessions as s')
      .innerJoin('attendees as a', 'a.id', 's.attendee_id')
      .select(['s.id as id', 's.attendee_id as attendee_id', 'a.actor_type as actor_type', 'a.participant_type as participant_type', 'a.room_id as room_id'])
      .where('s.last_ping', '<=', before)
      .limit(limit)
      .execute();
  }

  /**
   * Deletes the attendees that exist only while they have a session: self-joined users (type 5)
   * and nameless guests (type 4) without custom permissions, among `attendeeIds`, that have no
   * session left. One statement, so a session created meanwhile (a join) keeps its attendee.
   */
  async deleteSessionlessTransients(attendeeIds: number[]): Promise<void> {
    for (const part of chunks([...new Set(attendeeIds)])) {
      await this.db
        .deleteFrom('attendees')
        .where('id', 'in', part)
        .where((eb) =>
          eb.or([
            eb('participant_type', '=', 5),
            eb.and([eb('participant_type', '=', 4), eb('actor_type', '=', 'guests'), eb('display_name', '=', ''), eb('permissions', 'in', [0, 1])]),
          ]),
        )
        .where((eb) => eb.not(eb.exists(eb.selectFrom('sessions').select('sessions.id').whereRef('sessions.attendee_id', '=', 'attendees.id'))))
        .execute();
    }
  }
}
