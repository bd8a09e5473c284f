/**
 * Creating conversations (docs/reference/conversations.md#creation): POST /room (one-to-one,
 * group, public, invite-created from a group or team, breakout children), the caller's
 * note-to-self and the operator's conversation without an owner. Split from RoomsService,
 * whose transactions, lookups, attendee rows and announcements it uses.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { NewAttendee } from '../../db/repositories/attendees.js';
import type { NewRoom, RoomPatch, RoomRow } from '../../db/repositories/rooms.js';
import type { RoomAvatarRow } from '../../db/repositories/room-avatars.js';
import type { Repositories } from '../../db/repositories/index.js';
import { createOptionsPatch, isCreateOptionsProblem, type CreateOptions } from '../../domain/create-options.js';
import { emojiAvatarRow } from '../../domain/avatar-svg.js';
import { hashPassword } from '../../domain/passwords.js';
import { passwordPolicyViolation } from '../../domain/password-policy.js';
import type { TeamsService } from '../accounts/teams.js';
import { badRequest, forbidden, notFound } from '../../domain/errors.js';
import { may } from '../../domain/abilities.js';
import type { AppConfigSnapshot } from '../../app-config/snapshot.js';
import { sipConfigured } from '../../domain/sip.js';
import type { DirectoryService } from '../accounts/directory.js';
import type { RequestContext } from '../platform/request-context.js';
import { nowSeconds } from '../../domain/time.js';
import { forcedMessageExpiration, isGroupOrPublic } from '../../domain/room-settings.js';
import { requireRoomName } from '../../domain/room-name.js';
import { chatActorOf, type ChatActor } from '../chat/chat.js';
import { SYSTEM_ACTOR } from '../../domain/chat.js';
import { NOTE_TO_SELF } from '../../domain/note-to-self.js';
import { ActorType, BreakoutMode, BreakoutStatus, COLLECTIVE_ACTOR_TYPES, LobbyState, ParticipantType, RoomType } from '../../domain/constants.js';
import { oneToOneName, type CallerRoom, type RoomRepos, type RoomsService } from './rooms.js';

export interface CreateInput {
  roomType: number;
  invite: string;
  source: string;
  roomName: string;
  objectType: string;
  objectId: string;
  /** Talk's create-time settings (password, readOnly, listable, ...); all optional. */
  options?: CreateOptions;
}

/** Create-time options after validation: the room columns and an emoji avatar to store. */
interface CheckedCreateOptions {
  patch: RoomPatch;
  avatar?: { column: string; row: Omit<RoomAvatarRow, 'room_id' | 'updated_at'> };
}

const GROUP_NAME_MAX = 64;

/** Group display name as a room name: leading space dropped, cut to 64, trailing space dropped. */
function groupRoomName(displayName: string): string {
  return [...displayName.trimStart()].slice(0, GROUP_NAME_MAX).join('').trimEnd();
}

export class RoomCreation {
  constructor(
    private readonly rooms: RoomsService,
    private readonly repos: Repositories,
    private readonly directory: DirectoryService,
    private readonly teams: TeamsService,
  ) {}

  /**
   * POST /room. Returns the caller's view and whether it was created (201) or existed (200).
   * Group invites (`invite` with roomType 2) come from a team when `source=circles` and from a
   * group for every other source (Talk's legacy form). `objectType=room` makes a breakout child
   * of any group or public parent the caller moderates; its type is the parent's (contract state
   * table). Talk's create-time options (domain/create-options.ts) apply to every kind but
   * one-to-one and are written in the creating transaction.
   */
  async create(ctx: RequestContext, input: CreateInput): Promise<{ caller: CallerRoom; created: boolean }> {
    const user = ctx.user;
    if (!user) throw notFound('invite');
    const cfg = await ctx.config();
    if (input.roomType === RoomType.ONE_TO_ONE) return this.createOneToOne(ctx, cfg, input.invite);
    if (!isGroupOrPublic(input.roomType)) {
      throw badRequest('type', 'roomType must be 1 (one-to-one), 2 (group) or 3 (public)');
    }
    if (!(await ctx.inGroupList(cfg.list('start_conversations')))) {
      throw forbidden('permissions', 'You are not allowed to create conversations');
    }
    if (input.roomType === RoomType.GROUP && input.invite !== '') {
      return input.source === 'circles' ? this.createTeamInvite(ctx, cfg, input) : this.createGroupInvite(ctx, cfg, input);
    }

    let type: number = input.roomType;
    let parent: CallerRoom | undefined;
    if (input.objectType !== '' && input.objectType !== 'room') throw badRequest('object', 'objectType must be empty or "room"');
    if (input.objectType === '' && input.objectId !== '') throw badRequest('object', 'objectId needs objectType "room"');
    if (input.objectType === 'room') {
      parent = await this.breakoutParent(ctx, input.objectId);
      type = parent.room.type;
    }
    const name = requireRoomName(input.roomName);
    const options = await this.createOptions(ctx, cfg, type, input);

    const now = nowSeconds();
    const room = await this.insertRoom(
      chatActorOf(ctx),
      cfg,
      { name, type },
      options,
      async (id, repos) => {
        const members: NewAttendee[] = [this.rooms.ownerRow(id, now, user)];
        if (parent) {
          // Every other moderator of the parent joins the child with their parent participant type.
          for (const m of await repos.attendees.moderatorsOf(parent.room.id)) {
            if (m.actor_type === ActorType.USERS && m.actor_id === user.id) continue;
            members.push(
              this.rooms.attendeeRow(id, now, {
                actorType: m.actor_type,
                actorId: m.actor_id,
                displayName: m.display_name,
                participantType: m.participant_type,
              }),
            );
          }
        }
        return members;
      },
      parent && {
        object_type: 'room',
        object_id: parent.room.token,
        // Children of stopped breakout rooms start behind the lobby (contract state table).
        ...(parent.room.breakout_room_status === BreakoutStatus.STOPPED ? { lobby_state: LobbyState.NON_MODERATORS } : {}),
      },
    );
    return { caller: await this.callerView(ctx, room), created: true };
  }

  /**
   * The parent of a breakout child being created. A missing parent and one the caller is not in
   * answer the same throttled 400 `room`, so POST /room cannot tell existing tokens from missing
   * ones (the same rule as every other token miss); only a participant learns `permissions`.
   */
  private async breakoutParent(ctx: RequestContext, token: string): Promise<CallerRoom> {
    const parent = await this.rooms.lookup(ctx, token);
    if (!parent?.attendee) {
      await this.rooms.throttleMiss(ctx);
      throw badRequest('room', 'The parent conversation does not exist');
    }
    if (!may.moderate(parent.attendee)) {
      throw badRequest('permissions', 'Only moderators of the parent conversation can create breakout rooms');
    }
    if (parent.room.breakout_room_mode === BreakoutMode.NOT_CONFIGURED) {
      throw badRequest('mode', 'The parent conversation has no breakout rooms configured');
    }
    return parent;
  }

  /** Talk's create-time options for a conversation of `type`: validated, password hashed. */
  private async createOptions(ctx: RequestContext, cfg: AppConfigSnapshot, type: number, input: CreateInput): Promise<CheckedCreateOptions> {
    const rights = {
      sipConfigured: sipConfigured(cfg),
      // Only read when asked for, so a plain create costs no group lookup.
      sipGroupMember: !input.options?.sipEnabled || (await ctx.inGroupList(cfg.list('sip_bridge_groups'))),
      forcePasswords: cfg.bool('force_passwords'),
      forcedMessageExpiration: forcedMessageExpiration(cfg),
    };
    const checked = createOptionsPatch(type, input.options ?? {}, rights);
    if (isCreateOptionsProblem(checked)) throw (checked.status === 403 ? forbidden : badRequest)(checked.error, checked.message);
    let patch: RoomPatch = checked.patch;
    if (checked.password !== '') {
      const violation = passwordPolicyViolation(checked.password, cfg.int('password_policy_min_length'));
      if (violation) throw badRequest('password', violation);
      patch = { ...patch, password: await hashPassword(checked.password) };
    }
    return { patch, avatar: checked.avatar && emojiAvatarRow(checked.avatar.emoji, checked.avatar.color) };
  }

  /**
   * Inserts a conversation with its options, its attendees (built by `members` from the new id)
   * and an emoji avatar, in one transaction with its `conversation_created` announcement.
   */
  private async insertRoom(
    actor: ChatActor,
    cfg: AppConfigSnapshot,
    base: { name: string; type: number },
    options: CheckedCreateOptions,
    members: (id: number, repos: RoomRepos) => Promise<NewAttendee[]>,
    extra: Partial<NewRoom> = {},
    recordInvited = false,
  ): Promise<RoomRow> {
    const now = nowSeconds();
    return this.rooms.transaction(async (repos, trx) => {
      const row: NewRoom = { ...this.rooms.roomDefaults(cfg, now), ...options.patch, ...extra, token: await this.rooms.newToken(cfg, repos), ...base };
      if (options.avatar) row.avatar = options.avatar.column;
      const id = await repos.rooms.insert(row);
      return this.completeNewRoom(repos, trx, id, now, {
        actor,
        members: await members(id, repos),
        avatar: options.avatar,
        announceAvatar: true,
        recordInvited,
      });
    });
  }

  /**
   * The rest of a new conversation, in the transaction that inserted its row `id`: its avatar,
   * its announcement and its attendees, in Talk's order (createConversation, then addUsers): the
   * attendees come after `conversation_created`, so each has read up to it (a new attendee's
   * marker is the last message, AttendeesRepository.insertIgnoringDuplicates); with
   * `recordInvited`, an invited group or team is recorded next and its members come after that,
   * as ParticipantService::addGroup adds them. Answers the row read again.
   */
  private async completeNewRoom(
    repos: Repositories,
    trx: Kysely<Database>,
    id: number,
    now: number,
    what: { actor: ChatActor; members: NewAttendee[]; avatar?: CheckedCreateOptions['avatar']; announceAvatar?: boolean; recordInvited?: boolean },
  ): Promise<RoomRow> {
    if (what.avatar) await repos.roomAvatars.insert(id, { ...what.avatar.row, updated_at: now });
    const invited = what.recordInvited ? what.members.filter((m) => m.actor_type === ActorType.USERS && m.participant_type !== ParticipantType.OWNER) : [];
    let created = await this.announceCreated(repos, trx, id, what.actor);
    if (what.avatar && what.announceAvatar) {
      // Talk sets a create-time emoji avatar after creating the room, and that change is announced
      // like any other (avatar_set after conversation_created, docs/reference/conversations.md#creation).
      await this.rooms.announceChange(trx, created, what.actor, { kind: 'avatar', set: true });
      created = (await repos.rooms.findById(id))!;
    }
    await repos.attendees.insertIgnoringDuplicates(what.members.filter((m) => !invited.includes(m)));
    if (what.recordInvited) {
      // The invited group or team (group_added / circle_added), then its members (user_added).
      const sources = (await repos.attendees.forRoom(id)).filter((a) => COLLECTIVE_ACTOR_TYPES.includes(a.actor_type));
      await this.rooms.announceAttendeesAddedIn(trx, created, what.actor, sources);
      await repos.attendees.insertIgnoringDuplicates(invited);
      const members = (await repos.attendees.forRoom(id)).filter((a) => a.actor_type === ActorType.USERS && a.participant_type !== ParticipantType.OWNER);
      await this.rooms.announceAttendeesAddedIn(trx, created, what.actor, members);
    }
    return (await repos.rooms.findById(id))!;
  }

  /**
   * Records a conversation just inserted in this transaction (`conversation_created`) and returns
   * its row read again: the announcement's message is now its last message.
   */
  private async announceCreated(repos: RoomRepos, trx: Kysely<Database>, id: number, actor: ChatActor): Promise<RoomRow> {
    const created = (await repos.rooms.findById(id))!;
    await this.rooms.announceChange(trx, created, actor, { kind: 'created' });
    return (await repos.rooms.findById(id))!;
  }

  /** A name for an invite-created conversation: `roomName` when given, else the group's or team's. */
  private inviteName(roomName: string, displayName: string, id: string): string {
    if (roomName.trim() === '') return groupRoomName(displayName || id) || id;
    return requireRoomName(roomName);
  }

  /** roomType 2 with a group `invite`: the group attendee and every member (docs/reference/conversations.md#creation). */
  private async createGroupInvite(ctx: RequestContext, cfg: AppConfigSnapshot, input: CreateInput): Promise<{ caller: CallerRoom; created: boolean }> {
    const user = ctx.user!;
    const group = await this.directory.groups.find(input.invite);
    if (!group) throw notFound('invite', 'The group to invite does not exist');
    const name = this.inviteName(input.roomName, group.display_name, group.id);
    const options = await this.createOptions(ctx, cfg, RoomType.GROUP, input);
    const memberIds = (await this.directory.groups.membersOf(group.id)).filter((id) => id !== user.id);
    const members = await this.directory.users.existing(memberIds);
    const actor = { actorType: ActorType.GROUPS, actorId: group.id, displayName: group.display_name };
    return this.insertInvited(ctx, cfg, name, options, actor, members);
  }

  /**
   * roomType 2 with `source=circles`: a team the caller belongs to (else 404 `invite`, as
   * Talk's "circle not found or not a member"); the team attendee and its members join.
   */
  private async createTeamInvite(ctx: RequestContext, cfg: AppConfigSnapshot, input: CreateInput): Promise<{ caller: CallerRoom; created: boolean }> {
    const user = ctx.user!;
    const team = await this.teams.find(input.invite);
    const memberIds = team ? await this.teams.membersOf(team.id) : [];
    if (!team || !memberIds.includes(user.id)) throw notFound('invite', 'The team to invite does not exist');
    const name = this.inviteName(input.roomName, team.display_name, team.id);
    const options = await this.createOptions(ctx, cfg, RoomType.GROUP, input);
    const members = await this.directory.users.existing(memberIds.filter((id) => id !== user.id));
    const actor = { actorType: ActorType.CIRCLES, actorId: team.id, displayName: team.display_name };
    return this.insertInvited(ctx, cfg, name, options, actor, members);
  }

  /**
   * Inserts an invite-created conversation (owner, group or team, members) with its messages,
   * then invites the members in the creator's name.
   */
  private async insertInvited(
    ctx: RequestContext,
    cfg: AppConfigSnapshot,
    name: string,
    options: CheckedCreateOptions,
    actor: { actorType: string; actorId: string; displayName: string },
    members: Array<{ id: string; display_name: string }>,
  ): Promise<{ caller: CallerRoom; created: boolean }> {
    const user = ctx.user!;
    const rows = (id: number) => Promise.resolve(this.inviteRows(id, user, actor, members));
    const room = await this.insertRoom(chatActorOf(ctx), cfg, { name, type: RoomType.GROUP }, options, rows, {}, true);
    await this.rooms.announceAttendeesAdded(
      room,
      members.map((m) => m.id),
      user.id,
    );
    return { caller: await this.callerView(ctx, room), created: true };
  }

  /** Owner, the group or team attendee (read privacy private, as Talk) and its members. */
  private inviteRows(
    id: number,
    user: { id: string; display_name: string },
    actor: { actorType: string; actorId: string; displayName: string },
    members: Array<{ id: string; display_name: string }>,
  ): NewAttendee[] {
    const now = nowSeconds();
    return [
      this.rooms.ownerRow(id, now, user),
      this.rooms.attendeeRow(id, now, { ...actor, participantType: ParticipantType.USER, readPrivacy: 1 }),
      ...members.map((m) =>
        this.rooms.attendeeRow(id, now, { actorType: ActorType.USERS, actorId: m.id, displayName: m.display_name, participantType: ParticipantType.USER }),
      ),
    ];
  }

  private async createOneToOne(ctx: RequestContext, cfg: AppConfigSnapshot, invite: string): Promise<{ caller: CallerRoom; created: boolean }> {
    const user = ctx.user!;
    const target = invite === '' ? undefined : await this.directory.users.find(invite);
    if (!target) throw notFound('invite', 'The user to invite does not exist');
    const name = oneToOneName(user.id, target.id);
    const now = nowSeconds();
    const existing = await this.repos.rooms.findOneToOne(name);
    if (existing) return { caller: await this.rejoinOwnRoom(ctx, existing, now), created: false };
    if (target.id === user.id) throw forbidden('invite', 'You cannot start a conversation with yourself');
    const room = await this.rooms.transaction(async (repos, trx) => {
      // Insert-or-get: the unique index on the pair name lets one simultaneous request win.
      const id = await repos.rooms.insertOneToOne({
        ...this.rooms.roomDefaults(cfg, now),
        token: await this.rooms.newToken(cfg, repos),
        name,
        type: RoomType.ONE_TO_ONE,
      });
      if (id === undefined) return undefined;
      // Both users are owners of a one-to-one conversation (T17 behaviour: it shows up for both).
      return this.completeNewRoom(repos, trx, id, now, {
        actor: chatActorOf(ctx),
        members: [this.rooms.ownerRow(id, now, user), this.rooms.ownerRow(id, now, target)],
      });
    });
    if (room) return { caller: await this.callerView(ctx, room), created: true };
    const winner = await this.repos.rooms.findOneToOne(name);
    if (!winner) throw new Error('one-to-one insert conflicted but no conversation of the pair exists');
    return { caller: await this.rejoinOwnRoom(ctx, winner, now), created: false };
  }

  /**
   * GET /room/note-to-self (docs/reference/conversations.md#note-to-self): the caller's note-to-self
   * conversation, created on first demand as Talk's NoteToSelfService creates it: type 6, named
   * "Note to self", objectType `note_to_self` with the user's id, Talk's description, the 📝
   * emoji avatar, the user its owner with it in their favorites, announced by the system
   * (`conversation_created` by guests/system; no description or avatar message). One per user
   * (unique index rooms_note_to_self): of two first requests at once, one inserts and the other
   * answers the winner's.
   */
  async noteToSelf(ctx: RequestContext): Promise<CallerRoom> {
    const user = ctx.user!;
    const existing = await this.repos.rooms.findNoteToSelf(user.id);
    if (existing) return this.rejoinOwnRoom(ctx, existing);
    const cfg = await ctx.config();
    const now = nowSeconds();
    const avatar = emojiAvatarRow(NOTE_TO_SELF.emoji, '');
    const room = await this.rooms.transaction(async (repos, trx) => {
      const id = await repos.rooms.insertNoteToSelf({
        ...this.rooms.roomDefaults(cfg, now),
        token: await this.rooms.newToken(cfg, repos),
        name: NOTE_TO_SELF.name,
        description: NOTE_TO_SELF.description,
        type: RoomType.NOTE_TO_SELF,
        object_type: NOTE_TO_SELF.objectType,
        object_id: user.id,
        avatar: avatar.column,
      });
      if (id === undefined) return undefined;
      return this.completeNewRoom(repos, trx, id, now, {
        actor: { ...SYSTEM_ACTOR },
        members: [{ ...this.rooms.ownerRow(id, now, user), favorite: 1 }],
        avatar,
      });
    });
    if (room) return this.callerView(ctx, room);
    const winner = await this.repos.rooms.findNoteToSelf(user.id);
    if (!winner) throw new Error('note-to-self insert conflicted but the user has none');
    return this.rejoinOwnRoom(ctx, winner);
  }

  /**
   * A room that is the caller's own (their one-to-one, their note-to-self): the caller may have
   * left, so they are added back as owner (a no-op while they are there).
   */
  private async rejoinOwnRoom(ctx: RequestContext, room: RoomRow, now = nowSeconds()): Promise<CallerRoom> {
    await this.repos.attendees.insertIgnoringDuplicates([this.rooms.ownerRow(room.id, now, ctx.user!)]);
    return this.callerView(ctx, room);
  }

  /**
   * A group or public conversation without attendees, for the operator (`talk:room:create`, as
   * Talk's RoomService::createConversation); participants are added through ParticipantsService.
   */
  async createWithoutOwner(ctx: RequestContext, type: number, rawName: string): Promise<RoomRow> {
    if (!ctx.isSystem) throw forbidden('permissions', 'Only the operator can create conversations without an owner');
    if (!isGroupOrPublic(type)) throw badRequest('type', 'Only group and public conversations can be created this way');
    const name = requireRoomName(rawName);
    const cfg = await ctx.config();
    const now = nowSeconds();
    return this.rooms.transaction(async (repos, trx) => {
      const id = await repos.rooms.insert({ ...this.rooms.roomDefaults(cfg, now), token: await this.rooms.newToken(cfg, repos), name, type });
      return this.announceCreated(repos, trx, id, chatActorOf(ctx));
    });
  }

  /** The caller's view of a room they are expected to be in (after create). */
  private async callerView(ctx: RequestContext, room: RoomRow): Promise<CallerRoom> {
    const attendee = ctx.userId !== undefined ? await this.repos.attendees.find(room.id, ActorType.USERS, ctx.userId) : undefined;
    return { room, attendee };
  }
}
