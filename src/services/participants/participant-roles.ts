/**
 * Participant roles (docs/reference/participants.md#moderators, docs/reference/participants.md#attendee-permissions):
 * promotion and demotion of moderators (on a breakout parent, in every child too) and attendee
 * permissions. Split from ParticipantsService (participants.ts), which lists, adds and removes.
 */
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { ParticipantsRepository } from '../../db/repositories/participants.js';
import type { Repositories } from '../../db/repositories/index.js';
import { ActorType, ParticipantType } from '../../domain/constants.js';
import { ApiError, badRequest, forbidden, notFound } from '../../domain/errors.js';
import { applyPermissionMethod, demotion, isFixedMembershipRoom, isPermissionMethod, lastModeratorWouldGo, promotion } from '../../domain/participants.js';
import { isModeratorType, isValidPermissionValue, serverDefaultPermissions } from '../../domain/permissions.js';
import { nowSeconds } from '../../domain/time.js';
import { formatParticipant, type ParticipantRecord } from '../../presenters/participant.js';
import { chatActorOf } from '../chat/chat.js';
import type { RoomsService } from '../conversations/rooms.js';
import type { RequestContext } from '../platform/request-context.js';
import { assertStillModerator, attendeeIn } from './attendee-checks.js';

export class ParticipantRolesService {
  constructor(
    private readonly rooms: RoomsService,
    private readonly repos: Pick<Repositories, 'attendees'>,
    private readonly repo: ParticipantsRepository,
  ) {}

  /** POST / DELETE moderators (contract state table). */
  async setModerator(ctx: RequestContext, token: unknown, attendeeId: number, promote: boolean): Promise<void> {
    const { room, attendee: caller } = await this.rooms.requireModerator(ctx, token);
    const target = await attendeeIn(this.repos, room, attendeeId);
    if (target.actor_type === caller.actor_type && target.actor_id === caller.actor_id) {
      throw forbidden('self', promote ? 'You cannot promote yourself' : 'You cannot demote yourself');
    }
    if (target.actor_type === ActorType.GROUPS || target.actor_type === ActorType.CIRCLES) {
      throw badRequest('type', 'Groups and teams cannot be moderators');
    }
    const now = nowSeconds();
    // Decided under the room lock on the roles as they are then: two moderators demoting each
    // other at once cannot both succeed, and the last logged-in moderator or owner stays.
    await this.rooms.lockedTransaction(room.id, async (repos, trx) => {
      const all = await repos.attendees.forRoom(room.id);
      assertStillModerator(ctx, all, caller);
      const current = all.find((a) => a.id === target.id);
      if (!current) throw notFound('participant', 'The participant does not exist in this conversation');
      const decided = promote ? promotion(current.participant_type) : demotion(current.participant_type);
      if (!decided.ok) throw new ApiError(decided.status, { error: decided.error, message: decided.message });
      if (!promote && lastModeratorWouldGo(all, { demoted: [current.id] })) {
        throw badRequest('last-moderator', 'No other moderators or owners would be left');
      }
      const patch = decided.type === ParticipantType.MODERATOR ? { participant_type: decided.type, permissions: 0 } : { participant_type: decided.type };
      await repos.attendees.update(current.id, { ...patch, last_attendee_activity: now });
      await this.rooms.announceTypeChange(trx, room, chatActorOf(ctx, caller), current, decided.type);
      // On a breakout parent, moderators are moderators of every child (docs/reference/participants.md#moderators):
      // in the same transaction, under the parent's lock that breakout changes take too.
      const children = await repos.rooms.childrenOf(room.token);
      if (children.length) {
        const inChildren = await repos.attendees.actorsInRooms(
          children.map((c) => c.id),
          target.actor_type,
          [target.actor_id],
        );
        if (promote) {
          await repos.participants.setParticipantType(
            inChildren.map((a) => a.id),
            decided.type,
            now,
          );
          const have = new Set(inChildren.map((a) => a.room_id));
          const spec = { actorType: target.actor_type, actorId: target.actor_id, displayName: target.display_name, participantType: decided.type };
          await repos.attendees.insertIgnoringDuplicates(children.filter((ch) => !have.has(ch.id)).map((ch) => this.rooms.attendeeRow(ch.id, now, spec)));
        } else {
          await repos.participants.deleteAttendeesInTransaction(inChildren.map((a) => a.id));
        }
      }
      return decided;
    });
    await this.rooms.touch([room.id], now);
    // The signaling server hears of a type change as an update and a participants change (docs/reference/signaling.md#notifications-to-the-signaling-server).
    await this.rooms.announceUpdated(room);
    await this.rooms.announceParticipantsChanged(room, [target.id]);
  }

  /** `target` when its permissions may be set: 400 `room-type` / `type`, 403 `moderator`. */
  private permissionsTarget(room: RoomRow, target: AttendeeRow): AttendeeRow {
    if (isFixedMembershipRoom(room.type)) throw badRequest('room-type', 'This kind of conversation has no publishing permissions');
    // Moderators, owners and guest moderators always have every permission (docs/reference/participants.md#attendee-permissions).
    if (isModeratorType(target.participant_type)) throw forbidden('moderator', 'Permissions of moderators cannot be changed');
    if (target.actor_type === ActorType.GROUPS || target.actor_type === ActorType.CIRCLES) {
      throw badRequest('type', 'Permissions of groups and teams cannot be set');
    }
    return target;
  }

  /** PUT attendees/permissions; returns the target's record. */
  async setPermissions(ctx: RequestContext, token: unknown, attendeeId: number, method: string, permissions: number): Promise<ParticipantRecord[]> {
    const { room } = await this.rooms.requireModerator(ctx, token);
    const checked = this.permissionsTarget(room, await attendeeIn(this.repos, room, attendeeId));
    if (!isPermissionMethod(method)) throw badRequest('method', 'method must be set, add or remove');
    if (!isValidPermissionValue(permissions)) throw badRequest('permissions', 'permissions must be between 0 and 511');
    const now = nowSeconds();
    // Decided and written under the conversation's lock on the attendee as it is then: a
    // promotion at the same moment comes before (403 `moderator`) or after, never lost to a
    // write of the type read before it.
    const { target, value, type } = await this.rooms.lockedTransaction(room.id, async (repos, trx) => {
      const fresh = await repos.attendees.findById(checked.id);
      if (!fresh) throw notFound('participant', 'The participant does not exist in this conversation');
      const target = this.permissionsTarget(room, fresh);
      const value = applyPermissionMethod(method, permissions, {
        attendee: target.permissions,
        call: room.call_permissions,
        conversationDefault: room.default_permissions,
        moderator: isModeratorType(target.participant_type),
      });
      // Custom permissions make a self-joined user a permanent member (contract state table).
      const type = target.participant_type === ParticipantType.USER_SELF_JOINED && value !== 0 ? ParticipantType.USER : target.participant_type;
      await repos.attendees.update(target.id, { permissions: value, participant_type: type, last_attendee_activity: now });
      await repos.rooms.touch([room.id], now);
      if (value !== target.permissions) await this.rooms.announcePermissionsChange(trx, room, target, value);
      return { target, value, type };
    });
    await this.rooms.announceParticipantsChanged(room, [target.id]);
    const cfg = await ctx.config();
    const updated = { ...target, permissions: value, participant_type: type };
    const sessions = (await this.repo.withSessions([room.id])).filter((r) => r.attendee.id === target.id && r.session).map((r) => r.session!);
    return [
      formatParticipant(
        { attendee: updated, sessions },
        {
          rooms: new Map([[room.id, room]]),
          viewers: new Map(),
          serverDefault: serverDefaultPermissions(cfg.get('default_permissions')),
          sipConfigured: false,
          dialOutEnabled: false,
          inSipBridgeGroups: false,
          userNames: new Map(),
          newPins: new Map(),
        },
      ),
    ];
  }

  /** PUT attendees/permissions/all: deprecated, validates and does nothing (contract). */
  async setAllPermissions(ctx: RequestContext, token: unknown, method: string, permissions: number): Promise<void> {
    const { room } = await this.rooms.requireModerator(ctx, token);
    if (isFixedMembershipRoom(room.type)) throw badRequest('room-type', 'This kind of conversation has no publishing permissions');
    if (!isPermissionMethod(method)) throw badRequest('method', 'method must be set, add or remove');
    if (!isValidPermissionValue(permissions)) throw badRequest('permissions', 'permissions must be between 0 and 511');
  }
}
