/**
 * Calls (docs/reference/calls.md#the-call-api; contract fields hasCall, callFlag, callStartTime,
 * participantFlags, inCall, canStartCall, callPermissions): join, update, leave and end a call
 * on the caller's room session, ring an attendee, and end calls for the jobs and the session
 * cleanup. Every change of the call state runs in one transaction that starts by locking the
 * room row (see db/repositories/calls.ts), and is announced on the event bus: the `.trx`
 * events inside that transaction, the others after commit (events/event-map.ts).
 */
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { CallsRepository, CallPeerRow } from '../../db/repositories/calls.js';
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { SessionRow } from '../../db/repositories/sessions.js';
import { ActorType, InCallFlag, RoomType, SESSION_TIMEOUT, StartCalls } from '../../domain/constants.js';
import { badRequest, forbidden, lobbyActive, notFound } from '../../domain/errors.js';
import { recordingAvailable } from '../../domain/features.js';
import { canStartCall, lobbyStateAt, permissionsIn, serverDefaultPermissions } from '../../domain/permissions.js';
import { may } from '../../domain/abilities.js';
import { nowSeconds } from '../../domain/time.js';
import type { EventBus } from '../../events/bus.js';
import type { CallActor, CallEndReason, CallEnded } from '../../events/event-map.js';
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import type { RequestContext } from '../platform/request-context.js';
import type { CallerRoom, RoomsService } from '../conversations/rooms.js';
import type { UserStatusService } from '../accounts/user-status.js';
import type { Repositories } from '../../db/repositories/index.js';

export interface JoinCallInput {
  /** In-call flags; Talk's default is in call + audio + video. */
  flags: number;
  silent: boolean;
  recordingConsent: boolean;
  silentFor: string[];
}

/** GET /call/{token} entry (docs/reference/calls.md#the-call-api). */
export interface CallPeer {
  actorType: string;
  actorId: string;
  displayName: string;
  token: string;
  lastPing: number;
  sessionId: string;
}

export const DEFAULT_JOIN_FLAGS = InCallFlag.IN_CALL | InCallFlag.WITH_AUDIO | InCallFlag.WITH_VIDEO;
const MAX_FLAGS = 15;

/**
 * Room types without calls: join answers 400 `type` (docs/reference/calls.md#the-call-api). A former one-to-one
 * is not among them: Talk makes it read-only when it turns former, so its join answers 403
 * `readOnly` (requireNoLobbyReadWrite).
 */
const NO_CALL_TYPES: readonly number[] = [RoomType.CHANGELOG, RoomType.NOTE_TO_SELF];

const actorOf = (a: AttendeeRow): CallActor => ({ attendeeId: a.id, actorType: a.actor_type, actorId: a.actor_id, displayName: a.display_name });

type InCall = CallerRoom & { attendee: AttendeeRow; session: SessionRow };

export class CallService {
  private readonly repo: CallsRepository;

  constructor(
    private readonly db: Db,
    private readonly rooms: RoomsService,
    private readonly repos: Repositories,
    private readonly userStatus: UserStatusService,
    private readonly events: EventBus,
  ) {
    this.repo = repos.calls;
  }

  // ---- guards (Talk's controller attributes, in their order) ----

  /** RequireCallEnabled: `start_calls` = 3 disables calls → 403. */
  private requireCallsEnabled(cfg: AppConfigSnapshot): void {
    if (cfg.int('start_calls') === StartCalls.NOBODY) throw forbidden('call', 'Calls are disabled');
  }

  private effective(cfg: AppConfigSnapshot, room: RoomRow, attendee: AttendeeRow): number {
    return permissionsIn(room, attendee, serverDefaultPermissions(cfg.get('default_permissions')));
  }

  /**
   * RequireModeratorOrNoLobby (412) and RequireReadWriteConversation (403 `readOnly`). A former
   * one-to-one counts as read-only: Talk's Manager sets it read-only when the other user goes.
   */
  private requireNoLobbyReadWrite(cfg: AppConfigSnapshot, room: RoomRow, attendee: AttendeeRow, now: number): void {
    if (!may.passLobby(lobbyStateAt(room, now), attendee, this.effective(cfg, room, attendee))) throw lobbyActive();
    if (room.read_only !== 0 || room.type === RoomType.ONE_TO_ONE_FORMER) throw forbidden('readOnly', 'The conversation is read-only');
  }

  /** The caller's participant and session; 404 `session` without a session in this room. */
  private requireSession(found: CallerRoom & { attendee: AttendeeRow }): InCall {
    if (!found.session) throw notFound('session', 'You have no session in this conversation; join it first');
    return found as InCall;
  }

  private static checkFlags(flags: number): void {
    if (!Number.isInteger(flags) || flags < 0 || flags > MAX_FLAGS) throw badRequest('flags', 'flags must be an integer from 0 to 15');
    if ((flags & InCallFlag.IN_CALL) === 0) throw badRequest('flags', 'flags must include 1 (in call)');
  }

  /** Audio and video bits are dropped without the publishing permissions (docs/reference/participants.md#effective-permissions-and-call-start). */
  private static maskFlags(flags: number, effective: number): number {
    let out = flags;
    if (!may.publish(effective, 'audio')) out &= ~InCallFlag.WITH_AUDIO;
    if (!may.publish(effective, 'video')) out &= ~InCallFlag.WITH_VIDEO;
    return out;
  }

  // ---- GET /call/{token} ----

  async peers(ctx: RequestContext, token: unknown): Promise<CallPeer[]> {
    const cfg = await ctx.config();
    this.requireCallsEnabled(cfg);
    const found = await this.rooms.requireParticipant(ctx, token);
    const now = nowSeconds();
    this.requireNoLobbyReadWrite(cfg, found.room, found.attendee, now);
    const rows = await this.repo.peers(found.room.id, now - SESSION_TIMEOUT);
    return rows.map((r: CallPeerRow) => ({
      actorType: r.actor_type,
      actorId: r.actor_id,
      displayName: r.display_name,
      token: found.room.token,
      lastPing: r.last_ping,
      sessionId: r.session_id,
    }));
  }

  // ---- POST /call/{token} ----

  async join(ctx: RequestContext, token: unknown, input: JoinCallInput): Promise<void> {
    const cfg = await ctx.config();
    this.requireCallsEnabled(cfg);
    const found = await this.rooms.requireParticipant(ctx, token);
    const { room, attendee } = found;
    const now = nowSeconds();
    this.requireNoLobbyReadWrite(cfg, room, attendee, now);
    const consentRequired = this.consentRequired(cfg, room);
    if (!input.recordingConsent && consentRequired) throw badRequest('consent', 'Recording consent is required to join this call');
    // The other user of a one-to-one who left is added back, so the call can ring them (Talk's
    // CallController::joinCall calls ensureOneToOneRoomIsFilled here, as a chat message does).
    await this.rooms.refillOneToOne(room);
    const mine = this.requireSession(found);
    if (NO_CALL_TYPES.includes(room.type)) throw badRequest('type', 'This conversation cannot have calls');
    CallService.checkFlags(input.flags);
    const effective = this.effective(cfg, room, attendee);
    const flags = CallService.maskFlags(input.flags, effective);
    // Start permission counts only when nobody else is in the call (docs/reference/calls.md#joining-a-call step 3);
    // the group list is read before the transaction so it holds no lock while waiting.
    const mayStart =
      room.object_type === 'share:password' ||
      canStartCall({
        roomType: room.type,
        participantType: attendee.participant_type,
        actorType: attendee.actor_type,
        effectivePermissions: effective,
        startCalls: cfg.int('start_calls'),
        startCallsGroups: cfg.list('start_calls_groups'),
        inStartCallsGroups: await ctx.inGroupList(cfg.list('start_calls_groups')),
      });

    const base = { room, actor: actorOf(attendee), sessionId: mine.session.session_id, flags };
    const outcome = await this.db.kysely.transaction().execute(async (trx) => {
      const repo = this.repos.withTransaction(trx).calls;
      const locked = await repo.lockRoom(room.id);
      if (!locked) throw notFound('room');
      // Again under the lock: a lobby or read-only switch committed since the room was read has
      // already taken everyone out of the call; this join must not start a new one (412 / 403).
      this.requireNoLobbyReadWrite(
        cfg,
        { ...room, lobby_state: locked.lobby_state, lobby_timer: locked.lobby_timer, read_only: locked.read_only },
        attendee,
        now,
      );
      if (!mayStart && !(await repo.othersInCall(room.id, mine.session.id, now - SESSION_TIMEOUT))) {
        throw forbidden('permissions', 'You are not allowed to start a call');
      }
      const started = await repo.startOrJoin(room.id, flags, now);
      const entered = await repo.setInCall(mine.session.id, flags, 'out');
      if (!entered && !(await repo.setInCall(mine.session.id, flags, 'any'))) throw notFound('session', 'Your session ended');
      await repo.touchLastJoinedCall(attendee.id, now);
      // Given consent is stored when the call asked for it (docs/reference/calls.md#joining-a-call step 1).
      if (consentRequired) await repo.storeConsent(room.id, attendee.actor_type, attendee.actor_id, now);
      const callStartTime = started ? now : (locked.active_since ?? now);
      const change = { ...base, callStartTime };
      if (started) await this.events.emit('call.started.trx', { ...change, silent: input.silent, silentFor: input.silentFor, trx });
      if (entered) await this.events.emit('call.joined.trx', { ...change, started, silent: input.silent, trx });
      return { started, entered, callStartTime };
    });
    const change = { ...base, callStartTime: outcome.callStartTime };
    if (outcome.started) await this.events.emit('call.started', { ...change, silent: input.silent, silentFor: input.silentFor });
    if (outcome.entered) await this.events.emit('call.joined', { ...change, started: outcome.started, silent: input.silent });
    else await this.events.emit('call.flags-updated', change);
  }

  /** Effective recording consent (docs/reference/calls.md#joining-a-call step 1): 0 when recording is unusable. */
  private consentRequired(cfg: AppConfigSnapshot, room: RoomRow): boolean {
    const mode = recordingAvailable(cfg) ? cfg.int('recording_consent') : 0;
    return mode === 1 || (mode === 2 && room.recording_consent === 1);
  }

  // ---- PUT /call/{token} ----

  async updateFlags(ctx: RequestContext, token: unknown, flags: number): Promise<void> {
    const cfg = await ctx.config();
    const found = await this.rooms.requireParticipant(ctx, token);
    const mine = this.requireSession(found);
    CallService.checkFlags(flags);
    const masked = CallService.maskFlags(flags, this.effective(cfg, found.room, found.attendee));
    // Only a session in the call can change its flags; the room's call_flag is left as it is
    // (Talk's known behaviour, docs/reference/calls.md#the-call-flag).
    if (!(await this.repo.setInCall(mine.session.id, masked, 'in'))) throw badRequest('in-call', 'You are not in the call');
    await this.events.emit('call.flags-updated', {
      room: found.room,
      actor: actorOf(found.attendee),
      sessionId: mine.session.session_id,
      flags: masked,
      callStartTime: found.room.active_since ?? 0,
    });
  }

  // ---- DELETE /call/{token} ----

  async leave(ctx: RequestContext, token: unknown, all: boolean): Promise<void> {
    const found = await this.rooms.requireParticipant(ctx, token);
    const mine = this.requireSession(found);
    await this.leaveSession(found.room, found.attendee, mine.session, all && may.endCallForEveryone(found.attendee) ? 'everyone' : 'call');
  }

  /**
   * A session leaves the call: `call.left`, then `call.ended` when nobody live is left. `how`:
   * it left the call (the call API; a call it was the last one in ends in its name, as Talk's
   * CallController::leaveCall ends it), a moderator ends the call for all (`everyone`), or its
   * holder left the conversation or was replaced by a new join (`room`: a call that empties
   * then ends as the system's, as Talk's ParticipantService::leaveRoomAsSession ends it).
   */
  async leaveSession(room: RoomRow, attendee: AttendeeRow, session: SessionRow, how: 'call' | 'everyone' | 'room'): Promise<void> {
    const now = nowSeconds();
    const actor = actorOf(attendee);
    const everyone = how === 'everyone';
    const outcome = await this.db.kysely.transaction().execute(async (trx) => {
      const repo = this.repos.withTransaction(trx).calls;
      const locked = await repo.lockRoom(room.id);
      if (!locked) return { left: false, end: undefined, callStartTime: 0 };
      const callStartTime = locked.active_since ?? 0;
      let left: boolean;
      let ended: boolean;
      if (everyone) {
        ended = (await repo.endForEveryone([room.id], now, false)).length === 1;
        // Another request ended it first: this one only takes its own session out.
        left = ended ? false : await repo.setInCall(session.id, 0, 'in');
      } else {
        left = await repo.setInCall(session.id, 0, 'in');
        ended = left && (await repo.endEmpty([room.id], now - SESSION_TIMEOUT)).length === 1;
      }
      const end: CallEnded | undefined = ended
        ? {
            room,
            actor: how === 'room' ? null : actor,
            everyone,
            reason: everyone ? 'moderator' : 'last-left',
            callStartTime,
            duration: callStartTime ? now - callStartTime : 0,
          }
        : undefined;
      if (left) await this.events.emit('call.left.trx', { room, actor, sessionId: session.session_id, flags: 0, callStartTime, trx });
      if (end) await this.events.emit('call.ended.trx', { ...end, trx });
      return { left, end, callStartTime };
    });
    if (outcome.left) await this.events.emit('call.left', { room, actor, sessionId: session.session_id, flags: 0, callStartTime: outcome.callStartTime });
    if (outcome.end) await this.events.emit('call.ended', outcome.end);
  }

  // ---- POST /call/{token}/ring/{attendeeId} ----

  async ring(ctx: RequestContext, token: unknown, attendeeId: number): Promise<void> {
    const cfg = await ctx.config();
    this.requireCallsEnabled(cfg);
    const found = await this.rooms.requireParticipant(ctx, token);
    const { room, attendee } = found;
    if (!may.callOthers(this.effective(cfg, room, attendee))) throw forbidden('permissions', 'You are not allowed to start a call');
    if (room.call_flag === 0 || (found.session && found.session.in_call === 0)) throw badRequest('in-call', 'Ringing needs an active call you are in');
    const target = await this.repos.attendees.findById(attendeeId);
    if (!target || target.room_id !== room.id) throw notFound('attendee', 'The attendee is not in this conversation');
    if (target.actor_type !== ActorType.USERS && target.actor_type !== ActorType.FEDERATED_USERS) throw badRequest('actor-type', 'Only users can be rung');
    if (target.actor_type === ActorType.USERS) {
      const status = (await this.userStatus.forUsers([target.actor_id])).get(target.actor_id);
      if (status?.status === 'dnd') throw badRequest('status', 'The user does not want to be disturbed');
    }
    await this.events.emit('call.ring', { room, actor: actorOf(attendee), target: actorOf(target) });
  }

  // ---- ending calls from jobs and the session cleanup ----

  /**
   * Ends the calls of `roomIds` that nobody live is in any more (sessions left the room, stale
   * sessions, abandoned calls). Returns how many ended.
   */
  async endEmptyCalls(roomIds: number[], reason: CallEndReason, now = nowSeconds()): Promise<number> {
    const unique = [...new Set(roomIds)];
    if (unique.length === 0) return 0;
    return this.endMany(unique, reason, now, (repo, ids) => repo.endEmpty(ids, now - SESSION_TIMEOUT));
  }

  /** Calls with nobody live in them any more (stale in-call sessions, the call-duration job). */
  async endAbandonedCalls(now = nowSeconds()): Promise<number> {
    const ids = (await this.repo.withCallState()).map((r) => r.id);
    return this.endEmptyCalls(ids, 'stale', now);
  }

  /** max_call_duration (Talk's MaximumCallDuration job): calls running `max` seconds or more end for everyone. */
  async endOverlongCalls(max: number, now = nowSeconds()): Promise<number> {
    if (max <= 0) return 0;
    const ids = await this.repo.startedBefore(now - max);
    if (ids.length === 0) return 0;
    return this.endMany(ids, 'max-duration', now, (repo, idList) => repo.endForEveryone(idList, now, true));
  }

  private async endMany(
    roomIds: number[],
    reason: CallEndReason,
    now: number,
    end: (repo: CallsRepository, ids: number[]) => Promise<number[]>,
  ): Promise<number> {
    const before = await this.repo.withCallState(roomIds);
    if (before.length === 0) return 0;
    const rooms = new Map((await this.repos.rooms.findByIds(before.map((r) => r.id))).map((r) => [r.id, r]));
    const ended = await this.db.kysely.transaction().execute(async (trx: Kysely<Database>) => {
      const ids = await end(
        this.repos.withTransaction(trx).calls,
        before.map((r) => r.id),
      );
      const out: CallEnded[] = [];
      for (const id of ids) {
        const room = rooms.get(id);
        if (!room) continue;
        const start = room.active_since ?? 0;
        out.push({ room, actor: null, everyone: reason === 'max-duration', reason, callStartTime: start, duration: start ? now - start : 0 });
      }
      for (const e of out) await this.events.emit('call.ended.trx', { ...e, trx });
      return out;
    });
    for (const e of ended) await this.events.emit('call.ended', e);
    return ended.length;
  }

  /**
   * A call another area's transaction ended (the lobby or read-only switch took everyone out,
   * conversation settings): announced after commit; no `.trx` variant.
   */
  async announceEnded(room: RoomRow, reason: CallEndReason, now = nowSeconds()): Promise<void> {
    const start = room.active_since ?? 0;
    await this.events.emit('call.ended', { room, actor: null, everyone: true, reason, callStartTime: start, duration: start ? now - start : 0 });
  }

  // ---- recording consent ----

  /** Deleted conversations take their consents along (subscribed to `rooms.deleted`). */
  async forgetRooms(rooms: RoomRow[]): Promise<void> {
    await this.repo.deleteConsents(rooms.map((r) => r.id));
  }

  // ---- operator (talk:active-calls, talk:monitor:calls) ----

  /** Talk's talk:active-calls: calls with a start time, and in-call sessions pinged within 60 s. */
  async activeCalls(now = nowSeconds()): Promise<{ calls: number; participants: number }> {
    const calls = (await this.repo.withCallState()).filter((r) => r.active_since !== null).length;
    return { calls, participants: calls ? await this.repo.inCallSessionCount(now - 60) : 0 };
  }

  /** Talk's talk:monitor:calls: token → attendees in the call (sessions pinged within 60 s). */
  callSizes(now = nowSeconds()): Promise<Array<{ token: string; participants: number }>> {
    return this.repo.activeCallSizes(now - 60);
  }
}
