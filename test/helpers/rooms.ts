/**
 * Conversation test helpers: create conversations over HTTP, seed attendees and room columns
 * directly through the service layer (until the participants endpoints exist), read rows back.
 */
import assert from 'node:assert/strict';
import type { RoomPatch, RoomRow } from '../../src/db/repositories/rooms.js';
import type { AttendeeRow } from '../../src/db/repositories/attendees.js';
import type { NewAttendeeSpec } from '../../src/services/conversations/rooms.js';
import { ParticipantType } from '../../src/domain/constants.js';
import { as, call, type Caller, type Parley } from './parley.js';

export const V4 = '/apps/spreed/api/v4';

/** Env for suites that provoke many 404s: no brute-force delay, no 429. */
export const NO_THROTTLE = { BRUTE_FORCE_DELAY_MS: '0', BRUTE_FORCE_MAX_ATTEMPTS: '1000' };

/** POST /room as `user`; asserts 201 and returns the record. */
export async function createRoom(p: Parley, user: string, body: Record<string, unknown>): Promise<any> {
  const r = await call(p, 'POST', `${V4}/room`, { as: as(user), body });
  assert.equal(r.status, 201, r.text);
  return r.data;
}

export async function roomRow(p: Parley, token: string): Promise<RoomRow | undefined> {
  return p.services.repos.rooms.findByToken(token);
}

/** How many conversations exist: proves a refused create stored nothing. */
export async function roomCount(p: Parley): Promise<number> {
  const r = await p.services.db.kysely
    .selectFrom('rooms')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function setRoom(p: Parley, token: string, patch: RoomPatch): Promise<void> {
  const row = await roomRow(p, token);
  assert.ok(row, `room ${token} exists`);
  await p.services.repos.rooms.update(row.id, patch);
}

/** Adds an attendee directly (no endpoint yet). */
export async function seedAttendee(p: Parley, token: string, spec: NewAttendeeSpec): Promise<AttendeeRow> {
  const row = await roomRow(p, token);
  assert.ok(row, `room ${token} exists`);
  return p.services.rooms.addAttendee(row.id, spec);
}

/** Adds a user attendee (default ParticipantType.USER). */
export function seedUser(p: Parley, token: string, userId: string, participantType: number = ParticipantType.USER): Promise<AttendeeRow> {
  return seedAttendee(p, token, { actorType: 'users', actorId: userId, displayName: userId, participantType });
}

export async function attendeesOf(p: Parley, token: string): Promise<AttendeeRow[]> {
  const row = await roomRow(p, token);
  return row ? p.services.repos.attendees.forRoom(row.id) : [];
}

/** The parley_session cookie a response sets, as a Cookie header value (asserts that it is set). */
export function cookieOf(r: { headers: Headers }): string {
  const m = /parley_session=([^;]+)/.exec(r.headers.get('set-cookie') ?? '');
  assert.ok(m, 'a cookie session is set');
  return `parley_session=${m[1]}`;
}

/**
 * Joins a public conversation as an anonymous guest (POST participants/active); a type other
 * than GUEST (e.g. GUEST_MODERATOR) is then set on the attendee row. Returns the caller (its
 * session cookie) and the attendee id.
 */
export async function joinGuest(p: Parley, token: string, participantType: number = ParticipantType.GUEST): Promise<{ caller: Caller; attendeeId: number }> {
  const r = await call(p, 'POST', `${V4}/room/${token}/participants/active`, {});
  assert.equal(r.status, 200, r.text);
  if (participantType !== ParticipantType.GUEST) await p.services.repos.attendees.update(r.data.attendeeId, { participant_type: participantType });
  return { caller: { headers: { Cookie: cookieOf(r) } }, attendeeId: r.data.attendeeId };
}

/** Counts SQL statements run by `fn` (hot-endpoint query budgets). */
export async function countQueries(p: Parley, fn: () => Promise<unknown>): Promise<number> {
  // The checks of reused conversation records and answers (VERIFY_KEPT_RECORDS) read them again: not counted.
  const { conversationList, renderedAnswers } = p.services;
  const verify = [conversationList.verify, renderedAnswers.verify];
  conversationList.verify = renderedAnswers.verify = false;
  try {
    const before = p.services.db.stats.queries;
    await fn();
    return p.services.db.stats.queries - before;
  } finally {
    [conversationList.verify, renderedAnswers.verify] = verify;
  }
}

/** Joins `user` to the conversation (a room session) and returns the caller with its session cookie. */
export async function enterRoom(p: Parley, user: string, token: string): Promise<Caller> {
  const j = await call(p, 'POST', `${V4}/room/${token}/participants/active`, { as: as(user) });
  assert.equal(j.status, 200, j.text);
  return { ...as(user), headers: { Cookie: cookieOf(j) } };
}
