/**
 * Conversation settings (contract "Conversations": description, public, read-only, password,
 * permissions, favorites, notification levels, message expiration, listable; plus the lobby,
 * whose state is a record field). Every mutator starts with the core's lookup
 * (`RoomsService.requireModerator` / `requireParticipant`: 404, then 403), then applies the
 * rules of domain/room-settings.ts in docs/reference/conversations.md#endpoint-rules order, writes, and returns the
 * caller's view for the presenter (LATEST Talk answers the updated record).
 *
 * lastActivity moves for the changes docs/reference/conversations.md#last-activity lists (Talk posts a system message
 * for them); favorites and notification levels move the caller's `last_attendee_activity`, so
 * `GET /room?modifiedSince` returns the conversation to them. An unchanged value is a no-op.
 */
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { RoomSettingsRepository, CallDisconnect } from '../../db/repositories/room-settings.js';
import type { RoomPatch } from '../../db/repositories/rooms.js';
import { ActorType, LobbyState, ReadOnlyState, RoomType, SESSION_TIMEOUT } from '../../domain/constants.js';
import { badRequest, forbidden, unauthorized } from '../../domain/errors.js';
import { hashPassword } from '../../domain/passwords.js';
import { passwordPolicyViolation } from '../../domain/password-policy.js';
import { isModeratorType, withCustomBit } from '../../domain/permissions.js';
import {
  PERMISSION_MODES,
  descriptionProblem,
  isBreakoutChild,
  isValidCallNotificationLevel,
  isValidNotificationLevel,
  listableProblem,
  lobbyProblem,
  mentionPermissionsProblem,
  messageExpirationProblem,
  permissionsProblem,
  publicToggleProblem,
  readOnlyProblem,
  type PermissionMode,
} from '../../domain/room-settings.js';
import type { CallService } from '../calls/calls.js';
import type { RequestContext } from '../platform/request-context.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { RoomChange } from '../../events/event-map.js';
import { chatActorOf } from '../chat/chat.js';
import { type CallerRoom, type RoomsService } from './rooms.js';
import { nowSeconds } from '../../domain/time.js';
import type { Repositories } from '../../db/repositories/index.js';

type Participating = CallerRoom & { attendee: AttendeeRow };

/** The caller's own marks on a conversation (the record's isFavorite, isArchived, isImportant, isSensitive). */
export type ConversationMark = 'favorite' | 'archived' | 'important' | 'sensitive';

/** Human messages for the 400 reasons (data.message), so a person can tell what to fix. */
const MESSAGES: Record<string, string> = {
  event: 'Event conversations cannot be changed this way',
  type: 'This conversation type does not support this setting',
  'breakout-room': 'Breakout rooms and their parents do not support this setting',
  object: 'This conversation kind cannot have a lobby',
  mode: 'mode must be "default" or "call"',
};

function refuse(reason: string, valueMessage: string): never {
  throw badRequest(reason, reason === 'value' ? valueMessage : MESSAGES[reason]);
}

export class RoomSettingsService {
  constructor(
    private readonly rooms: RoomsService,
    private readonly repos: Pick<Repositories, 'attendees' | 'rooms'>,
    private readonly repo: RoomSettingsRepository,
    private readonly calls: CallService,
  ) {}

  // ---- helpers ----

  /**
   * Writes a room patch (with lastActivity = now when `activity`) and returns the new view; with
   * a `change`, announces it in the same transaction (the chat's system message).
   */
  private async save<T extends CallerRoom>(found: T, patch: RoomPatch, activity: boolean, ctx?: RequestContext, change?: RoomChange): Promise<T> {
    const full: RoomPatch = activity ? { ...patch, last_activity: Math.max(nowSeconds(), found.room.last_activity) } : patch;
    const room = { ...found.room, ...full };
    await this.rooms.transaction(async (repos, trx) => {
      await repos.rooms.update(found.room.id, full);
      if (ctx && change) await this.rooms.announceChange(trx, room, chatActorOf(ctx, found.attendee), change);
    });
    await this.rooms.announceUpdated(room);
    return change ? this.rooms.reread(found, room) : { ...found, room };
  }

  /** The `within` hook that announces `change` inside a repository's transaction. */
  private announcing(ctx: RequestContext, found: CallerRoom, patch: RoomPatch, change: RoomChange) {
    return (trx: Kysely<Database>) => this.rooms.announceChange(trx, { ...found.room, ...patch }, chatActorOf(ctx, found.attendee), change);
  }

  /** Writes a room patch and takes `who` out of the call; the room is read back (the call may have ended). */
  private async saveDisconnecting<T extends Participating>(
    found: T,
    patch: RoomPatch,
    who: CallDisconnect,
    ctx?: RequestContext,
    change?: RoomChange,
  ): Promise<T> {
    const now = nowSeconds();
    const within = ctx && change ? this.announcing(ctx, found, patch, change) : undefined;
    const ended = await this.repo.updateAndDisconnect(
      found.room.id,
      { ...patch, last_activity: Math.max(now, found.room.last_activity) },
      who,
      now - SESSION_TIMEOUT,
      within,
    );
    if (ended) await this.calls.announceEnded(found.room, 'disconnected', now);
    const room = (await this.repos.rooms.findById(found.room.id)) ?? found.room;
    await this.rooms.announceUpdated(room);
    const session =
      found.session && (who === 'everyone' || !isModeratorType(found.attendee.participant_type)) ? { ...found.session, in_call: 0 } : found.session;
    return { ...found, room, session };
  }

  /** A logged-in participant (favorites, notification levels): guests get 401 `guest`. */
  private async requireUserParticipant(ctx: RequestContext, token: unknown): Promise<Participating> {
    const found = await this.rooms.requireParticipant(ctx, token);
    if (!ctx.user || found.attendee.actor_type !== ActorType.USERS) throw unauthorized('guest');
    return found;
  }

  /** Updates the caller's own attendee row and moves its last_attendee_activity. */
  private async saveAttendee(
    found: Participating,
    patch: Partial<Pick<AttendeeRow, 'notification_level' | 'notification_calls' | ConversationMark>>,
  ): Promise<Participating> {
    const full = { ...patch, last_attendee_activity: Math.max(nowSeconds(), found.attendee.last_attendee_activity) };
    await this.repos.attendees.update(found.attendee.id, full);
    return { ...found, attendee: { ...found.attendee, ...full } };
  }

  // ---- room settings ----

  /** PUT description (moderators, guest moderators too): trimmed, at most 2000 characters. */
  async setDescription(ctx: RequestContext, token: unknown, description: string): Promise<CallerRoom> {
    const found = await this.rooms.requireModerator(ctx, token);
    const trimmed = description.trim();
    const problem = descriptionProblem(found.room, trimmed);
    if (problem) refuse(problem, 'description can be at most 2000 characters');
    if (trimmed === found.room.description) return found;
    return this.save(found, { description: trimmed }, true, ctx, { kind: 'description', description: trimmed });
  }

  /**
   * POST public (logged-in moderators): group to public, optionally with a password (policy
   * checked first); `force_passwords` needs one. Already public is a no-op (the password too,
   * as in Talk: PUT password changes it).
   */
  async makePublic(ctx: RequestContext, token: unknown, password: string): Promise<CallerRoom> {
    const found = await this.rooms.requireModerator(ctx, token, { loggedInOnly: true });
    const room = found.room;
    const cfg = await ctx.config();
    // A given password is input: refused by the policy even when the call is otherwise a no-op.
    const violation = password === '' ? undefined : passwordPolicyViolation(password, cfg.int('password_policy_min_length'));
    if (violation) throw badRequest('password', violation);
    // Contract: "400 conversation is not a group conversation" (already public included).
    if (room.type !== RoomType.GROUP) refuse('type', '');
    const problem = publicToggleProblem(room);
    if (problem) refuse(problem, '');
    const patch: RoomPatch = { type: RoomType.PUBLIC };
    if (password !== '') patch.password = await hashPassword(password);
    else if (room.password === '' && cfg.bool('force_passwords')) throw badRequest('password', 'Password needs to be set');
    return this.save(found, patch, true, ctx, { kind: 'type', from: room.type, to: RoomType.PUBLIC });
  }

  /**
   * DELETE public (logged-in moderators): public to group; guests, guest moderators and
   * self-joined users are removed with their sessions. Already group is a no-op.
   */
  async makeGroup(ctx: RequestContext, token: unknown): Promise<CallerRoom> {
    const found = await this.rooms.requireModerator(ctx, token, { loggedInOnly: true });
    const room = found.room;
    // Contract: "400 conversation is not a public conversation" (already group included).
    if (room.type !== RoomType.PUBLIC) refuse('type', '');
    const problem = publicToggleProblem(room);
    if (problem) refuse(problem, '');
    const patch: RoomPatch = { type: RoomType.GROUP, last_activity: Math.max(nowSeconds(), room.last_activity) };
    await this.repo.makeGroup(room.id, patch, this.announcing(ctx, found, patch, { kind: 'type', from: room.type, to: RoomType.GROUP }));
    return this.rooms.reread(found, { ...room, ...patch });
  }

  /** PUT read-only (logged-in moderators): 0/1; read-only also ends everyone's call participation. */
  async setReadOnly(ctx: RequestContext, token: unknown, state: number): Promise<CallerRoom> {
    const found = await this.rooms.requireModerator(ctx, token, { loggedInOnly: true });
    const problem = readOnlyProblem(found.room, state);
    if (state === found.room.read_only) return found;
    if (problem) refuse(problem, 'state must be 0 (read-write) or 1 (read-only)');
    const change: RoomChange = { kind: 'read-only', state };
    if (state === ReadOnlyState.READ_ONLY) return this.saveDisconnecting(found, { read_only: state }, 'everyone', ctx, change);
    return this.save(found, { read_only: state }, true, ctx, change);
  }

  /**
   * PUT password (moderators, guest moderators too): public conversations only (403 `type`, as
   * the contract says), not breakout rooms; '' removes it unless `force_passwords`; otherwise
   * the policy applies and an argon2id hash is stored.
   */
  async setPassword(ctx: RequestContext, token: unknown, password: string): Promise<CallerRoom> {
    const found = await this.rooms.requireModerator(ctx, token);
    const room = found.room;
    if (room.type !== RoomType.PUBLIC) throw forbidden('type', 'Only public conversations can have a password');
    if (isBreakoutChild(room)) refuse('breakout-room', '');
    const cfg = await ctx.config();
    if (password === '') {
      if (cfg.bool('force_passwords')) throw badRequest('value', 'Password needs to be set');
      if (room.password === '') return found;
      return this.save(found, { password: '' }, true, ctx, { kind: 'password', set: false });
    }
    const violation = passwordPolicyViolation(password, cfg.int('password_policy_min_length'));
    if (violation) throw badRequest('value', violation);
    return this.save(found, { password: await hashPassword(password) }, true, ctx, { kind: 'password', set: true });
  }

  /**
   * PUT permissions/{mode} (moderators, guest moderators too): `default` or `call` (the contract
   * keeps call permissions; they go back to 0 when the call ends). Non-zero values get the Custom
   * bit; attendees' own permissions are reset (groups and circles rows excepted).
   */
  async setPermissions(ctx: RequestContext, token: unknown, mode: string, permissions: number): Promise<CallerRoom> {
    const found = await this.rooms.requireModerator(ctx, token);
    const problem = permissionsProblem(found.room, mode, permissions);
    if (problem) refuse(problem, 'permissions must be 0 to 511');
    const column = PERMISSION_MODES[mode as PermissionMode];
    const patch: RoomPatch = { [column]: withCustomBit(permissions) };
    const now = nowSeconds();
    await this.repo.setRoomPermissions(found.room.id, patch, now);
    await this.rooms.announceParticipantsChanged({ ...found.room, ...patch }, 'all');
    const attendee = { ...found.attendee, permissions: 0, last_attendee_activity: Math.max(now, found.attendee.last_attendee_activity) };
    return { ...found, room: { ...found.room, ...patch }, attendee };
  }

  /** POST message-expiration (moderators, guest moderators too): seconds >= 0, 0 = off. */
  async setMessageExpiration(ctx: RequestContext, token: unknown, seconds: number): Promise<CallerRoom> {
    const found = await this.rooms.requireModerator(ctx, token);
    const problem = messageExpirationProblem(found.room, seconds);
    if (problem) refuse(problem, 'seconds must be 0 (off) or a positive number of seconds');
    if (seconds === found.room.message_expiration) return found;
    return this.save(found, { message_expiration: seconds }, true, ctx, { kind: 'message-expiration', seconds });
  }

  /** PUT listable (logged-in moderators): scope 0 participants only, 1 regular users, 2 everyone. */
  async setListable(ctx: RequestContext, token: unknown, scope: number): Promise<CallerRoom> {
    const found = await this.rooms.requireModerator(ctx, token, { loggedInOnly: true });
    const problem = listableProblem(found.room, scope);
    if (scope === found.room.listable) return found;
    if (problem) refuse(problem, 'scope must be 0, 1 or 2');
    return this.save(found, { listable: scope }, true, ctx, { kind: 'listable', scope });
  }

  /**
   * PUT mention-permissions (logged-in moderators, as Talk's RoomController): 0 everyone may
   * mention @all, 1 moderators only. Talk posts no system message and leaves lastActivity alone.
   */
  async setMentionPermissions(ctx: RequestContext, token: unknown, value: number): Promise<CallerRoom> {
    const found = await this.rooms.requireModerator(ctx, token, { loggedInOnly: true });
    const problem = mentionPermissionsProblem(found.room, value);
    if (problem) refuse(problem, 'mentionPermissions must be 0 (everyone) or 1 (moderators only)');
    if (value === found.room.mention_permissions) return found;
    return this.save(found, { mention_permissions: value }, false);
  }

  /**
   * PUT webinar/lobby (logged-in moderators): state 0/1 and an optional timer (unix seconds,
   * null or 0 = none) after which the lobby lifts itself. Closing the lobby takes
   * non-moderators out of the call.
   */
  async setLobby(ctx: RequestContext, token: unknown, state: number, timer: number | null): Promise<CallerRoom> {
    const found = await this.rooms.requireModerator(ctx, token, { loggedInOnly: true });
    const problem = lobbyProblem(found.room, state);
    if (problem) refuse(problem, 'state must be 0 (no lobby) or 1 (lobby for non-moderators)');
    const lobbyTimer = timer !== null && timer > 0 ? timer : 0;
    if (state === found.room.lobby_state && lobbyTimer === found.room.lobby_timer) return found;
    const patch: RoomPatch = { lobby_state: state, lobby_timer: lobbyTimer };
    // Only a change of state is recorded (a new timer alone is not, docs/reference/chat.md#system-messages).
    const change: RoomChange | undefined = state !== found.room.lobby_state ? { kind: 'lobby', state } : undefined;
    if (state === LobbyState.NON_MODERATORS) return this.saveDisconnecting(found, patch, 'non-moderators', ctx, change);
    return this.save(found, patch, true, ctx, change);
  }

  // ---- the caller's own settings ----

  /**
   * POST/DELETE favorite, archive, important, sensitive (logged-in participants): the caller's
   * own mark on the conversation, as Talk's ParticipantService keeps them (each moves
   * last_attendee_activity).
   */
  async setMark(ctx: RequestContext, token: unknown, mark: ConversationMark, on: boolean): Promise<CallerRoom> {
    const found = await this.requireUserParticipant(ctx, token);
    const value = on ? 1 : 0;
    if (found.attendee[mark] === value) return found;
    return this.saveAttendee(found, { [mark]: value });
  }

  /** POST notify (logged-in participants): 1 always, 2 mentions, 3 never; else 400 `level`. */
  async setNotificationLevel(ctx: RequestContext, token: unknown, level: number): Promise<CallerRoom> {
    const found = await this.requireUserParticipant(ctx, token);
    if (!isValidNotificationLevel(level)) throw badRequest('level', 'level must be 1 (always), 2 (mentions) or 3 (never)');
    if (found.attendee.notification_level === level) return found;
    return this.saveAttendee(found, { notification_level: level });
  }

  /** POST notify-calls (logged-in participants): 0 off, 1 on; else 400 `level`. */
  async setCallNotificationLevel(ctx: RequestContext, token: unknown, level: number): Promise<CallerRoom> {
    const found = await this.requireUserParticipant(ctx, token);
    if (!isValidCallNotificationLevel(level)) throw badRequest('level', 'level must be 0 (off) or 1 (on)');
    if (found.attendee.notification_calls === level) return found;
    return this.saveAttendee(found, { notification_calls: level });
  }
}
