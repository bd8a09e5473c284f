/**
 * The operator's conversation commands (docs/operators.md "Talk commands"):
 * `parley talk:room:create|update|delete|add|remove|promote|demote` and `talk:user:remove`,
 * shaped as Talk's occ commands (lib/Command/Room/*.php, lib/Command/User/Remove.php). Every
 * change goes through the API's own service operations (RoomsService, RoomSettingsService,
 * ParticipantsService) acting as the operator (SystemContext: sees every conversation, passes
 * every moderator check).
 *
 * A refused command changes nothing: each command first checks all of its input with the same
 * domain rules those services apply (domain/room-settings.ts, domain/participants.ts, the password
 * policy), then writes. `create` also deletes its new conversation when a later step is refused
 * anyway, as occ does.
 */
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { GroupRow } from '../../db/repositories/groups.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import type { UserRow } from '../../db/repositories/users.js';
import { ActorType, ListableScope, ParticipantType, RoomType } from '../../domain/constants.js';
import { badRequest, notFound } from '../../domain/errors.js';
import { passwordPolicyViolation } from '../../domain/password-policy.js';
import { demotion, promotion } from '../../domain/participants.js';
import { isOneToOneKind } from '../../domain/permissions.js';
import {
  descriptionProblem,
  isBreakoutChild,
  isGroupOrPublic,
  listableProblem,
  messageExpirationProblem,
  publicToggleProblem,
  readOnlyProblem,
  type RoomFacts,
} from '../../domain/room-settings.js';
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import type { AppConfigService } from '../platform/app-config.js';
import type { DirectoryService } from '../accounts/directory.js';
import type { ParticipantsService } from '../participants/participants.js';
import { RequestContext, SystemContext, listableScopesFor } from '../platform/request-context.js';
import type { RoomSettingsService } from './room-settings.js';
import type { RoomsService } from './rooms.js';
import type { RoomCreation } from './room-creation.js';
import type { ParticipantRolesService } from '../participants/participant-roles.js';
import { requireRoomName } from '../../domain/room-name.js';
import { nowSeconds } from '../../domain/time.js';
import { CLI_ACTOR } from '../../domain/chat.js';
import type { Repositories } from '../../db/repositories/index.js';

/** `talk:room:create <name>` options. */
export interface CreateRoomInput {
  name: string;
  description?: string;
  users: string[];
  groups: string[];
  public: boolean;
  readOnly: boolean;
  listable?: number;
  password?: string;
  owner?: string;
  moderators: string[];
  messageExpiration?: number;
}

/** `talk:room:update <token>` options; undefined leaves a setting alone. */
export interface UpdateRoomInput {
  name?: string;
  description?: string;
  public?: boolean;
  readOnly?: boolean;
  listable?: number;
  /** '' removes the password. */
  password?: string;
  /** '' leaves the conversation without an owner. */
  owner?: string;
  messageExpiration?: number;
}

/** Room columns the checks look at, as the room will be after the earlier steps of a command. */
type Projected = RoomFacts & { password: string; listable: number; read_only: number };

const VALUE_HINTS = {
  description: 'can be at most 2000 characters',
  readonly: 'must be 0 (read-write) or 1 (read-only)',
  listable: 'must be 0 (participants only), 1 (regular users) or 2 (everyone)',
  'message-expiration': 'must be 0 (off) or a number of seconds up to 2147483647',
} as const;

const REASONS: Record<string, string> = {
  type: 'is not possible for this kind of conversation',
  'breakout-room': 'is not possible for breakout rooms and their parents',
  event: 'is not possible for event conversations',
};

/** Turns a domain rule's reason into a refusal naming the option. */
function check(option: keyof typeof VALUE_HINTS | 'public' | 'password', problem: string | null): void {
  if (!problem) return;
  const hint = problem === 'value' && option in VALUE_HINTS ? VALUE_HINTS[option as keyof typeof VALUE_HINTS] : (REASONS[problem] ?? `is refused (${problem})`);
  throw badRequest(problem, `--${option} ${hint}`);
}

const unique = (ids: string[]) => [...new Set(ids)];

export class RoomOperatorService {
  constructor(
    private readonly rooms: RoomsService,
    private readonly creation: RoomCreation,
    private readonly repos: Pick<Repositories, 'attendees' | 'rooms'>,
    private readonly settings: RoomSettingsService,
    private readonly participants: ParticipantsService,
    private readonly roles: ParticipantRolesService,
    private readonly directory: DirectoryService,
    private readonly appConfig: AppConfigService,
  ) {}

  /** A fresh operator context per command (its config snapshot is read once). */
  private system(): SystemContext {
    return new SystemContext(this.directory, this.appConfig);
  }

  // ---- lookups (occ's messages) ----

  /** The conversation when it is a group or public one, as every occ room command requires. */
  private async groupCall(ctx: SystemContext, token: string): Promise<RoomRow> {
    const found = await this.rooms.lookup(ctx, token);
    if (!found) throw notFound('room', 'Room not found.');
    if (!isGroupOrPublic(found.room.type)) throw badRequest('type', 'Room is no group call.');
    return found.room;
  }

  /** Each of `ids` looked up with `find` (occ: "User 'x' not found."), duplicates once. */
  private async requireAll<T>(ids: string[], find: (id: string) => Promise<T | undefined>, kind: 'User' | 'Group'): Promise<T[]> {
    const out: T[] = [];
    for (const id of unique(ids)) {
      const found = await find(id);
      if (!found) throw notFound(kind.toLowerCase(), `${kind} '${id}' not found.`);
      out.push(found);
    }
    return out;
  }

  private requireUsers(ids: string[]): Promise<UserRow[]> {
    return this.requireAll(ids, (id) => this.directory.users.find(id), 'User');
  }

  private requireGroups(ids: string[]): Promise<GroupRow[]> {
    return this.requireAll(ids, (id) => this.directory.groups.find(id), 'Group');
  }

  /** The user attendees of `room` named by `userIds`. */
  private async requireParticipants(room: RoomRow, userIds: string[]): Promise<AttendeeRow[]> {
    const out: AttendeeRow[] = [];
    for (const id of unique(userIds)) {
      const attendee = await this.repos.attendees.find(room.id, ActorType.USERS, id);
      if (!attendee) throw badRequest('participant', `User '${id}' is no participant.`);
      out.push(attendee);
    }
    return out;
  }

  // ---- checks shared by create and update ----

  private checkDescription(room: Projected, description: string | undefined): void {
    if (description !== undefined) check('description', descriptionProblem(room, description.trim()));
  }

  // Unchanged read-only state and listable scope are no-ops in the service, whatever the room.
  private checkReadOnly(room: Projected, readOnly: boolean | undefined): void {
    const state = readOnly ? 1 : 0;
    if (readOnly !== undefined && state !== room.read_only) check('readonly', readOnlyProblem(room, state));
  }

  private checkListable(room: Projected, listable: number | undefined): void {
    if (listable !== undefined && listable !== room.listable) check('listable', listableProblem(room, listable));
  }

  private checkMessageExpiration(room: Projected, seconds: number | undefined): void {
    if (seconds !== undefined) check('message-expiration', messageExpirationProblem(room, seconds));
  }

  /** PUT password's rules: public conversations only, not breakout rooms; '' needs force_passwords off; the policy. */
  private checkPassword(room: Projected, password: string, cfg: AppConfigSnapshot): void {
    if (room.type !== RoomType.PUBLIC) {
      throw badRequest('type', password === '' ? 'Only public conversations have a password' : 'Unable to add password protection to private room.');
    }
    if (isBreakoutChild(room)) check('password', 'breakout-room');
    if (password === '') {
      if (cfg.bool('force_passwords')) throw badRequest('value', 'Password needs to be set (force_passwords is on)');
      return;
    }
    const violation = passwordPolicyViolation(password, cfg.int('password_policy_min_length'));
    if (violation) throw badRequest('password', violation);
  }

  // ---- talk:room:create ----

  /** Creates a group (or public) conversation with its settings and participants; returns it. */
  async create(input: CreateRoomInput): Promise<RoomRow> {
    const ctx = this.system();
    const cfg = await ctx.config();
    const type = input.public ? RoomType.PUBLIC : RoomType.GROUP;
    requireRoomName(input.name);
    const projected: Projected = { type, description: '', object_type: '', breakout_room_mode: 0, password: '', listable: 0, read_only: 0 };
    this.checkDescription(projected, input.description);
    this.checkReadOnly(projected, input.readOnly);
    this.checkListable(projected, input.listable);
    this.checkMessageExpiration(projected, input.messageExpiration);
    // As occ: an empty password on a new conversation is nothing to do.
    if (input.password !== undefined && input.password !== '') this.checkPassword(projected, input.password, cfg);
    const users = await this.requireUsers(input.users);
    const groups = await this.requireGroups(input.groups);
    // Moderators and the owner must be among the participants the command adds.
    const members = new Set(users.map((u) => u.id));
    for (const g of groups) for (const u of await this.directory.users.existing(await this.directory.groups.membersOf(g.id))) members.add(u.id);
    for (const id of [...input.moderators, ...(input.owner !== undefined ? [input.owner] : [])]) {
      if (!members.has(id)) throw badRequest('participant', `User '${id}' is no participant.`);
    }

    const room = await this.creation.createWithoutOwner(ctx, type, input.name);
    try {
      const token = room.token;
      if (input.description !== undefined) await this.settings.setDescription(ctx, token, input.description);
      if (input.readOnly) await this.settings.setReadOnly(ctx, token, 1);
      if (input.listable !== undefined) await this.settings.setListable(ctx, token, input.listable);
      if (input.password !== undefined && input.password !== '') await this.settings.setPassword(ctx, token, input.password);
      for (const u of users) await this.participants.add(ctx, token, u.id, 'users');
      for (const g of groups) await this.participants.add(ctx, token, g.id, 'groups');
      for (const a of await this.requireParticipants(room, input.moderators)) {
        if (a.participant_type !== ParticipantType.MODERATOR) await this.roles.setModerator(ctx, token, a.id, true);
      }
      if (input.owner !== undefined) await this.setOwner(room, (await this.requireParticipants(room, [input.owner]))[0]);
      if (input.messageExpiration !== undefined) await this.settings.setMessageExpiration(ctx, token, input.messageExpiration);
    } catch (e) {
      await this.rooms.deleteRooms([room]);
      throw e;
    }
    return (await this.repos.rooms.findById(room.id)) ?? room;
  }

  // ---- talk:room:update ----

  /** Changes the settings given, in occ's order, after checking all of them. */
  async update(token: string, input: UpdateRoomInput): Promise<void> {
    const ctx = this.system();
    const cfg = await ctx.config();
    const room = await this.groupCall(ctx, token);
    const projected: Projected = { ...room };

    if (input.name !== undefined && input.name.trim() !== room.name) requireRoomName(input.name);
    this.checkDescription(projected, input.description);
    const toPublic = input.public === true && room.type !== RoomType.PUBLIC;
    const toGroup = input.public === false && room.type !== RoomType.GROUP;
    if (toPublic || toGroup) {
      check('public', publicToggleProblem(room));
      projected.type = toPublic ? RoomType.PUBLIC : RoomType.GROUP;
    }
    this.checkReadOnly(projected, input.readOnly);
    this.checkListable(projected, input.listable);

    // Going public with a new password is one step (POST public takes the password).
    const password = input.password;
    const passwordWithPublic = toPublic && password !== undefined && password !== '';
    if (toPublic && !passwordWithPublic && room.password === '' && cfg.bool('force_passwords')) {
      throw badRequest('password', 'Password needs to be set (force_passwords is on): give --password');
    }
    // As occ: removing a password that is not set is nothing to do.
    const passwordStep = password !== undefined && !passwordWithPublic && !(password === '' && room.password === '');
    // A password is removed while the conversation is still public (a group one cannot change it).
    const removeBeforeGroup = toGroup && passwordStep && password === '';
    if (passwordWithPublic || passwordStep) this.checkPassword(removeBeforeGroup ? { ...projected, type: room.type } : projected, password!, cfg);
    const owner = input.owner ? (await this.requireParticipants(room, [input.owner]))[0] : undefined;
    this.checkMessageExpiration(projected, input.messageExpiration);

    if (input.name !== undefined) await this.rooms.rename(ctx, token, input.name);
    if (input.description !== undefined) await this.settings.setDescription(ctx, token, input.description);
    if (toPublic) await this.settings.makePublic(ctx, token, passwordWithPublic ? password : '');
    if (removeBeforeGroup) await this.settings.setPassword(ctx, token, '');
    if (toGroup) await this.settings.makeGroup(ctx, token);
    if (input.readOnly !== undefined) await this.settings.setReadOnly(ctx, token, input.readOnly ? 1 : 0);
    if (input.listable !== undefined) await this.settings.setListable(ctx, token, input.listable);
    if (passwordStep && !removeBeforeGroup) await this.settings.setPassword(ctx, token, password);
    if (input.owner !== undefined) await this.setOwner(room, owner);
    if (input.messageExpiration !== undefined) await this.settings.setMessageExpiration(ctx, token, input.messageExpiration);
  }

  /**
   * Makes `owner` the only owner (occ `--owner`); without one, every owner becomes a normal
   * user. There is no API endpoint for this: only the operator hands over ownership.
   */
  private async setOwner(room: RoomRow, owner: AttendeeRow | undefined): Promise<void> {
    const now = nowSeconds();
    const attendees = this.repos.attendees;
    for (const a of await attendees.moderatorsOf(room.id)) {
      if (a.participant_type === ParticipantType.OWNER && a.id !== owner?.id) {
        await attendees.update(a.id, { participant_type: ParticipantType.USER, last_attendee_activity: now });
      }
    }
    if (owner && owner.participant_type !== ParticipantType.OWNER) {
      await attendees.update(owner.id, { participant_type: ParticipantType.OWNER, permissions: 0, last_attendee_activity: now });
    }
    await this.rooms.touch([room.id], now);
  }

  // ---- talk:room:delete ----

  async delete(token: string): Promise<void> {
    const ctx = this.system();
    await this.groupCall(ctx, token);
    await this.rooms.deleteConversation(ctx, token);
  }

  // ---- talk:room:add / remove / promote / demote ----

  /** Adds users and the members of groups (existing participants keep their role). */
  async add(token: string, userIds: string[], groupIds: string[]): Promise<void> {
    const ctx = this.system();
    await this.groupCall(ctx, token);
    const users = await this.requireUsers(userIds);
    const groups = await this.requireGroups(groupIds);
    // Groups first: a conversation that refuses groups (a breakout room) refuses the first call,
    // before anything was added. Every other refusal of `add` is about the conversation, so it
    // also comes with the first call.
    for (const g of groups) await this.participants.add(ctx, token, g.id, 'groups');
    for (const u of users) await this.participants.add(ctx, token, u.id, 'users');
  }

  /** Removes users whatever their role (occ does; the API protects moderators from moderators). */
  async remove(token: string, userIds: string[]): Promise<void> {
    const ctx = this.system();
    const room = await this.groupCall(ctx, token);
    const targets = await this.requireParticipants(room, userIds);
    await this.participants.removeAsOperator(room, targets);
  }

  /** Promotes (or demotes) users, each by the API's rules, all checked before the first change. */
  async setModerators(token: string, userIds: string[], promote: boolean): Promise<void> {
    const ctx = this.system();
    const room = await this.groupCall(ctx, token);
    const targets = await this.requireParticipants(room, userIds);
    for (const t of targets) {
      const change = promote ? promotion(t.participant_type) : demotion(t.participant_type);
      if (!change.ok) throw badRequest(change.error, `${t.actor_id}: ${change.message}`);
    }
    for (const t of targets) await this.roles.setModerator(ctx, token, t.id, promote);
  }

  // ---- talk:user:remove ----

  /**
   * Takes users out of all their conversations (Talk's Manager::removeUserFromAllRooms): a
   * conversation where they are the only user is deleted; a one-to-one becomes a former one so a
   * new account with the same id cannot reopen it. `privateOnly` keeps one-to-ones, public
   * conversations and those listed for the user.
   */
  async removeUserFromAllRooms(userIds: string[], privateOnly: boolean): Promise<void> {
    const users = await this.requireUsers(userIds);
    for (const user of users) {
      const scopes = privateOnly ? await listableScopesFor(new RequestContext(this.directory, this.appConfig, user, 'system')) : [];
      const rows = await this.repos.attendees.forActor(ActorType.USERS, user.id);
      for (const room of await this.repos.rooms.findByIds(rows.map((a) => a.room_id))) {
        if (privateOnly && (isOneToOneKind(room.type) || room.type === RoomType.PUBLIC)) continue;
        if (privateOnly && room.listable !== ListableScope.NONE && scopes.includes(room.listable)) continue;
        // Read again: leaving a breakout parent already took the user out of its children.
        const attendees = await this.repos.attendees.forRoom(room.id);
        const mine = attendees.find((a) => a.actor_type === ActorType.USERS && a.actor_id === user.id);
        if (!mine) continue;
        if (attendees.filter((a) => a.actor_type === ActorType.USERS).length === 1) {
          await this.rooms.deleteRooms([room]);
          continue;
        }
        // Removed under the room lock with `user_removed` by the command line in the same
        // transaction (docs/reference/chat.md#system-messages; none in one-to-ones, which become former ones).
        await this.rooms.lockedTransaction(room.id, async (repos, trx) => {
          await repos.attendees.deleteByIds([mine.id]);
          if (isOneToOneKind(room.type)) await repos.rooms.markFormerOneToOne([room.id], user.display_name || user.id);
          else await this.rooms.announceAttendeesRemovedIn(trx, room, { ...CLI_ACTOR }, [mine]);
        });
        await this.participants.removeAttendees(room, [mine]);
      }
    }
  }
}
