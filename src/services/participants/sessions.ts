/**
 * Sessions (contract "Participants": join, leave, session state; docs/reference/participants.md#leaving-a-conversation, docs/reference/participants.md#sessions-and-calls):
 * a participant's presence in a conversation, one row per join. Sessions live in the database
 * and are found through the caller's cookie session, so any Parley process serves any request.
 * How a caller is recognised by its cookie session lives in caller-sessions.ts.
 */
import { createHash } from 'node:crypto';
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { ParticipantsRepository } from '../../db/repositories/participants.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { SessionRow } from '../../db/repositories/sessions.js';
import { ActorType, ListableScope, ParticipantType, RoomType, SESSION_TIMEOUT_KILL, SessionState } from '../../domain/constants.js';
import { badRequest, conflict, forbidden, notFound } from '../../domain/errors.js';
import { isSessionAlive, mayReplaceWithoutAsking, newSessionId } from '../../domain/participants.js';
import { verifyPassword } from '../../domain/passwords.js';
import { listableScopesFor } from '../platform/request-context.js';
import type { BruteForceService } from '../accounts/brute-force.js';
import type { CallService } from '../calls/calls.js';
import { cookieLoginHolds } from '../../domain/cookie-login.js';
import { tabIdOf, type ClientSessionService } from './client-sessions.js';
import type { RequestContext } from '../platform/request-context.js';
import { type CallerRoom, type RoomsService } from '../conversations/rooms.js';
import { nowSeconds } from '../../domain/time.js';
import { isGroupOrPublic } from '../../domain/room-settings.js';
import type { Repositories } from '../../db/repositories/index.js';
import { chatActorOf } from '../chat/chat.js';

export interface JoinInput {
  password: string;
  force: boolean;
}

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

export class SessionService {
  constructor(
    private readonly rooms: RoomsService,
    private readonly repos: Pick<Repositories, 'attendees' | 'rooms'>,
    private readonly repo: ParticipantsRepository,
    private readonly cookies: ClientSessionService,
    private readonly bruteForce: BruteForceService,
    private readonly calls: CallService,
  ) {}

  // ---- join (docs/reference/participants.md#joining-and-leaving, POST participants/active) ----

  async join(ctx: RequestContext, token: unknown, input: JoinInput): Promise<CallerRoom & { attendee: AttendeeRow; session: SessionRow }> {
    // The previous session is read before the lookup, which counts requests of the holder as pings.
    const entry = typeof token === 'string' ? await this.cookies.entry(ctx, token) : undefined;
    const prior = entry?.sessionId ? await this.repo.sessionInRoom(undefined, entry.sessionId) : undefined;
    const found = await this.rooms.getRoomForCaller(ctx, token);
    const room = found.room;
    const now = nowSeconds();
    const previous = prior && prior.attendee.room_id === room.id ? prior : undefined;
    const prevLive = previous && isSessionAlive(previous.session.last_ping, now) ? previous.session : undefined;
    if (prevLive && !input.force && !mayReplaceWithoutAsking(prevLive.last_ping, prevLive.in_call, now)) {
      throw conflict({ sessionId: prevLive.session_id, inCall: prevLive.in_call, lastPing: prevLive.last_ping });
    }

    const sessionId = newSessionId(tabIdOf(ctx));
    let attendee: AttendeeRow;
    let createdAttendee = false;
    if (ctx.user) {
      if (found.attendee) {
        attendee = found.attendee;
      } else {
        const listable = room.listable !== ListableScope.NONE && (await listableScopesFor(ctx)).includes(room.listable);
        if (!listable) await this.checkPassword(ctx, room, input.password);
        let type: number;
        if (isGroupOrPublic(room.type) && listable) type = ParticipantType.USER;
        else if (room.type === RoomType.PUBLIC) type = ParticipantType.USER_SELF_JOINED;
        else throw notFound('room');
        // A listed room joined as a permanent member is recorded as the user's own `user_added`
        // ("{actor} joined the conversation", Talk's addSystemMessageUserAdded), which also
        // moves lastActivity (docs/reference/conversations.md#last-activity); a self-joined public room (type 5) is not.
        attendee = await this.rooms.addAttendee(
          room.id,
          { actorType: ActorType.USERS, actorId: ctx.user.id, displayName: ctx.user.display_name, participantType: type },
          type === ParticipantType.USER ? chatActorOf(ctx) : undefined,
        );
        createdAttendee = true;
      }
    } else {
      const reused = entry?.guestActorId ? await this.repos.attendees.find(room.id, ActorType.GUESTS, entry.guestActorId) : undefined;
      if (found.attendee) attendee = found.attendee;
      else if (reused) attendee = reused;
      else {
        if (room.type !== RoomType.PUBLIC) throw notFound('room');
        await this.checkPassword(ctx, room, input.password);
        attendee = await this.rooms.addAttendee(room.id, {
          actorType: ActorType.GUESTS,
          actorId: sha1(sessionId),
          participantType: ParticipantType.GUEST,
        });
        createdAttendee = true;
      }
    }

    const session = await this.repo.insertSession(attendee.id, sessionId, now);
    // The attendee (or the conversation) was removed since the lookup: nothing was inserted.
    if (!session) throw notFound('room');
    const guestActorId = attendee.actor_type === ActorType.GUESTS ? attendee.actor_id : null;
    const won = await this.cookies.claim(ctx, room.token, entry?.sessionId ?? null, sessionId, guestActorId);
    if (!won) {
      // Another join on this cookie session got there first.
      const winner = await this.cookies.entry(ctx, room.token);
      const other = winner?.sessionId ? await this.repo.sessionInRoom(room.id, winner.sessionId) : undefined;
      if (!input.force && other) {
        await this.repo.deleteSessions([session.id]);
        if (createdAttendee && attendee.actor_type === ActorType.GUESTS) await this.repo.deleteAttendees([attendee.id]);
        throw conflict({ sessionId: other.session.session_id, inCall: other.session.in_call, lastPing: other.session.last_ping });
      }
      await this.cookies.remember(ctx, room.token, sessionId, guestActorId);
      if (other) await this.repo.deleteSessions([other.session.id]);
    }
    // The session this cookie had before is replaced ("leave as duplicate"), leaving its call first;
    // the record then shows the room as that left it.
    let shown = room;
    if (previous) {
      if (previous.session.in_call !== 0) {
        await this.calls.leaveSession(room, previous.attendee, previous.session, 'room');
        shown = (await this.repos.rooms.findById(room.id)) ?? room;
      }
      await this.repo.deleteSessions([previous.session.id]);
    }
    await this.rooms.announceJoined(room, attendee);
    return { room: shown, attendee, session };
  }

  /** Password gate: 403 `password`, throttled (talkRoomPassword); 429 past the cap. */
  private async checkPassword(ctx: RequestContext, room: RoomRow, password: string): Promise<void> {
    if (room.password === '') return;
    // One counted attempt whose count and decision are atomic (brute-force.ts); a match clears it.
    if (await this.bruteForce.guard(ctx.ip, 'talkRoomPassword', async () => password !== '' && verifyPassword(room.password, password))) return;
    throw forbidden('password', 'The password is wrong');
  }

  // ---- leave, state ----

  /**
   * DELETE participants/active: the session the cookie remembers leaves. 404 only when the
   * conversation is not found for the caller (contract); without a session nothing happens.
   */
  async leave(ctx: RequestContext, token: unknown): Promise<void> {
    const found = await this.rooms.getRoomForCaller(ctx, token);
    const entry = await this.cookies.entry(ctx, found.room.token);
    if (!entry?.sessionId) return;
    const hit = await this.repo.sessionInRoom(found.room.id, entry.sessionId);
    await this.cookies.forget(ctx, found.room.token);
    if (!hit) return;
    // Leaving the conversation leaves its call first (docs/reference/participants.md#leaving-a-conversation: "disconnect from the call").
    if (hit.session.in_call !== 0) await this.calls.leaveSession(found.room, hit.attendee, hit.session, 'room');
    await this.endSessions({ sessionIds: [hit.session.id], attendeeIds: [hit.attendee.id], roomIds: [found.room.id] });
  }

  /**
   * Removes sessions (with `pingedBefore`, only those still stale: a ping since keeps one), then
   * the attendees that existed only for them (self-joined users, nameless plain guests), and ends
   * the calls of `roomIds` that nobody is left in.
   */
  async endSessions(end: { sessionIds: number[]; attendeeIds: number[]; roomIds: number[]; pingedBefore?: number }): Promise<void> {
    await this.repo.deleteSessions(end.sessionIds, end.pingedBefore);
    await this.repo.deleteSessionlessTransients(end.attendeeIds);
    await this.calls.endEmptyCalls(end.roomIds, end.pingedBefore === undefined ? 'last-left' : 'stale');
  }

  /**
   * A user's credentials changed (password, app password revoked, account disabled or deleted):
   * the sessions opened with a login that no longer holds end, all of them when the account is
   * disabled or gone, each as its holder's leave would end it (its call first, with the
   * signaling server told, then the session). Sessions opened with another, still valid
   * credential of the user stay.
   */
  async endRevoked(userId: string): Promise<void> {
    const now = nowSeconds();
    const rows = await this.repo.sessionsOfUserWithLogin(userId);
    const ended = rows.filter(
      (r) => Number(r.login.u_enabled) !== 1 || r.login.u_password_hash === null || (r.login.b_user_id === userId && !cookieLoginHolds(userId, r.login, now)),
    );
    if (ended.length === 0) return;
    const rooms = new Map((await this.repos.rooms.findByIds([...new Set(ended.map((r) => r.attendee.room_id))])).map((room) => [room.id, room]));
    for (const r of ended) {
      const room = rooms.get(r.attendee.room_id);
      if (room && r.session.in_call !== 0) await this.calls.leaveSession(room, r.attendee, r.session, 'room');
    }
    await this.endSessions({
      sessionIds: ended.map((r) => r.session.id),
      attendeeIds: ended.map((r) => r.attendee.id),
      roomIds: [...rooms.keys()],
    });
  }

  /** PUT participants/state: 404 without a session of the caller; 400 for a state other than 0/1. */
  async setState(ctx: RequestContext, token: unknown, state: number): Promise<CallerRoom> {
    const found = await this.rooms.getRoomForCaller(ctx, token);
    if (!found.attendee || !found.session) throw notFound('participant', 'You have no session in this conversation');
    if (state !== SessionState.INACTIVE && state !== SessionState.ACTIVE) throw badRequest('state', 'state must be 0 (inactive) or 1 (active)');
    await this.repo.setSessionState(found.session.id, state);
    return { ...found, session: { ...found.session, state } };
  }

  // ---- cleanup job ----

  /**
   * Removes sessions not pinged for SESSION_TIMEOUT_KILL seconds, the attendees that existed only
   * for them, and ends calls nobody is in any more. Idempotent: several processes may run it.
   */
  async cleanupStale(now = nowSeconds(), batch = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const before = now - SESSION_TIMEOUT_KILL;
      const stale = await this.repo.staleSessions(before, batch);
      if (stale.length === 0) break;
      await this.endSessions({
        sessionIds: stale.map((s) => s.id),
        attendeeIds: stale.map((s) => s.attendee_id),
        roomIds: stale.map((s) => s.room_id),
        pingedBefore: before,
      });
      total += stale.length;
      if (stale.length < batch) break;
    }
    return total;
  }
}
