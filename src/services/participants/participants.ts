/**
 * Participants (contract "Participants"; docs/reference/participants.md#listing-participants): the participant list, adding
 * users, groups, teams and e-mail guests, removing attendees and oneself, invitation mails and
 * guest names. Promotion, demotion and attendee permissions live in participant-roles.ts;
 * sessions (join, leave, state) in sessions.ts; the pure rules in domain/participants.ts.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AttendeeRow } from '../../db/repositories/attendees.js';
import type { ListedAttendee, ParticipantsRepository } from '../../db/repositories/participants.js';
import type { RoomRow } from '../../db/repositories/rooms.js';
import { displayNameProblem, emailProblem } from '../../domain/accounts.js';
import { ActorType, ParticipantType, RoomType, SESSION_TIMEOUT_KILL } from '../../domain/constants.js';
import { badRequest, forbidden, lobbyActive, notFound } from '../../domain/errors.js';
import { invitationMail } from '../../domain/invitation-mail.js';
import { isFixedMembershipRoom, lastModeratorWouldGo, leaveOutcome, memberCount } from '../../domain/participants.js';
import { randomString, sha256Hex } from '../../domain/passwords.js';
import { participantListTopics } from '../../cache/answer-topics.js';
import { permissionsIn, lobbyStateAt, isGuestType, isModeratorType, isOneToOneKind, serverDefaultPermissions } from '../../domain/permissions.js';
import { may } from '../../domain/abilities.js';
import { dialOutEnabled, roomUsesPins, sipConfigured } from '../../domain/sip.js';
import { newAttendeePin } from '../../domain/tokens.js';
import { formatParticipant, mergeAttendees, pinsNeeded, type ParticipantRecord } from '../../presenters/participant.js';
import type { DirectoryService } from '../accounts/directory.js';
import type { MailService } from '../notifications/mail.js';
import { chatActorOf, type ChatActor } from '../chat/chat.js';
import { CLI_ACTOR } from '../../domain/chat.js';
import type { RequestContext } from '../platform/request-context.js';
import { type NewAttendeeSpec, type RoomsService } from '../conversations/rooms.js';
import type { SessionService } from './sessions.js';
import type { TeamsService } from '../accounts/teams.js';
import type { UserStatusService } from '../accounts/user-status.js';
import type { NotificationService } from '../notifications/notifications.js';
import { nowSeconds } from '../../domain/time.js';
import { requireBreakoutListable, seesAllBreakoutRooms } from '../../domain/breakout.js';
import type { Repositories } from '../../db/repositories/index.js';
import { assertStillModerator, attendeeIn } from './attendee-checks.js';

/** Contract Limits: statuses only below this many participant rows. */
export const STATUS_ROW_LIMIT = 100;

export interface ListResult {
  records: ParticipantRecord[];
  /** Statuses were loaded (header X-Nextcloud-Has-User-Statuses). */
  withStatuses: boolean;
  /**
   * The last second (epoch) at which the list stays as returned unless the database changes
   * (a session dying, a lobby timer passing, a status expiring change it by themselves).
   */
  until: number;
  /**
   * The change-feed topics the list was made from (cache/change-feed.ts): the conversation and,
   * with statuses, each listed user's own rows. Undefined with breakout rooms (which children
   * there are is not a topic of the parent): kept only while nothing is written at all.
   */
  topics: string[] | undefined;
}

export const SOURCES = ['users', 'groups', 'circles', 'teams', 'emails', 'phones', 'federated_users'] as const;

/** Invites a federated user (FederationHost: Talk's 501 / 400 statuses, docs/reference/federation.md#switches). */
export interface FederatedInviter {
  invite(ctx: RequestContext, room: RoomRow, actor: ChatActor, newParticipant: string): Promise<void>;
  /** Leaving a conversation kept here for a host elsewhere (docs/reference/federation.md#proxied-requests). */
  leaveProxied(ctx: RequestContext, room: RoomRow): Promise<void>;
  /** The host's participant list of a conversation kept here for it, mapped for this server. */
  listProxied(ctx: RequestContext, room: RoomRow): Promise<Array<Record<string, unknown>>>;
}

/** Adds a phone attendee for dial-out (the SIP service: 501 `sip`, 400 `phone`). */
export interface PhoneAdder {
  addPhoneParticipant(ctx: RequestContext, room: RoomRow, number: string): Promise<unknown>;
}

export class ParticipantsService {
  constructor(
    private readonly rooms: RoomsService,
    private readonly repos: Pick<Repositories, 'attendees' | 'rooms'>,
    private readonly repo: ParticipantsRepository,
    private readonly sessions: SessionService,
    private readonly directory: DirectoryService,
    private readonly teams: TeamsService,
    private readonly userStatus: UserStatusService,
    private readonly mail: MailService,
    private readonly baseUrl: string,
    private readonly notifications: NotificationService,
    /** `source=phones` (dial-out). */
    private readonly phones: PhoneAdder,
    /** `source=federated_users`. */
    private readonly federated: FederatedInviter,
  ) {}

  // ---- list (GET participants, GET breakout-rooms/participants) ----

  /**
   * The participants of a conversation (or of a breakout parent and its visible children) in a
   * constant number of queries. 412 in the lobby, 403 for plain guests (contract).
   */
  async list(ctx: RequestContext, token: unknown, opts: { includeStatus: boolean; breakout: boolean }): Promise<ListResult> {
    const found = await this.rooms.requireParticipant(ctx, token);
    const { room, attendee: viewer } = found;
    // Asked of the host each time: kept by nobody here (until 0).
    if (room.remote_token !== '')
      return { records: (await this.federated.listProxied(ctx, room)) as unknown as ParticipantRecord[], withStatuses: false, until: 0, topics: undefined };
    const cfg = await ctx.config();
    const now = nowSeconds();
    const serverDefault = serverDefaultPermissions(cfg.get('default_permissions'));
    const guestCheck = () => {
      if (viewer.participant_type === ParticipantType.GUEST) throw forbidden('participant', 'Guests cannot list the participants');
    };
    if (opts.breakout) guestCheck();
    if (!may.passLobby(lobbyStateAt(room, now), viewer, permissionsIn(room, viewer, serverDefault))) throw lobbyActive();
    guestCheck();

    const roomList: RoomRow[] = [room];
    if (opts.breakout) roomList.push(...(await this.visibleBreakoutRooms(room, viewer)));
    const roomsById = new Map(roomList.map((r) => [r.id, r]));
    const rows = await this.repo.withSessions([...roomsById.keys()]);
    const userIds = [...new Set(rows.filter((r) => r.attendee.actor_type === ActorType.USERS).map((r) => r.attendee.actor_id))];
    const users = new Map((await this.directory.users.existing(userIds)).map((u) => [u.id, u.display_name]));
    const merged = mergeAttendees(rows, now, (id) => users.has(id));

    // Stale sessions and guests that are gone are cleaned up on the way (docs/reference/participants.md#joining-and-leaving).
    if (merged.staleSessionIds.length) {
      const stale = new Set(merged.staleSessionIds);
      const staleAttendees = rows.filter((r) => r.session && stale.has(r.session.id)).map((r) => r.attendee.id);
      await this.sessions.endSessions({
        sessionIds: merged.staleSessionIds,
        attendeeIds: staleAttendees,
        roomIds: [...roomsById.keys()],
        pingedBefore: now - SESSION_TIMEOUT_KILL,
      });
    }
    if (merged.goneGuestIds.length) {
      await this.repo.deleteAttendees(merged.goneGuestIds);
      for (const r of roomList) await this.rooms.announceParticipantsChanged(r, [], 'guests-cleaned');
    }

    const viewers = new Map<number, ListedAttendee>(roomList.map((r) => [r.id, viewer]));
    for (const e of merged.entries) {
      const a = e.attendee;
      if (a.actor_type === viewer.actor_type && a.actor_id === viewer.actor_id) viewers.set(a.room_id, a);
    }
    const sip = sipConfigured(cfg);
    const needPins = pinsNeeded(merged.entries, { rooms: roomsById, viewers, sipConfigured: sip });
    const newPins = new Map(needPins.map((a) => [a.id, newAttendeePin()]));
    if (newPins.size) await this.repos.attendees.setPins(newPins, now);

    const withStatuses = ctx.user !== undefined && opts.includeStatus && rows.length < STATUS_ROW_LIMIT;
    const listedUsers = withStatuses ? merged.entries.filter((e) => e.attendee.actor_type === ActorType.USERS).map((e) => e.attendee.actor_id) : [];
    const statuses = withStatuses ? await this.userStatus.forUsers(listedUsers) : undefined;
    const env = {
      rooms: roomsById,
      viewers,
      serverDefault,
      sipConfigured: sip,
      dialOutEnabled: dialOutEnabled(cfg),
      inSipBridgeGroups: sip && (await ctx.inGroupList(cfg.list('sip_bridge_groups'))),
      userNames: users,
      newPins,
      statuses,
    };
    let until = room.lobby_timer >= now ? room.lobby_timer : Infinity;
    for (const e of merged.entries) for (const s of e.sessions) until = Math.min(until, s.last_ping + SESSION_TIMEOUT_KILL - 1);
    for (const st of statuses?.values() ?? []) until = Math.min(until, st.stableUntil);
    const topics = opts.breakout ? undefined : participantListTopics(room.id, listedUsers);
    return { records: merged.entries.map((e) => formatParticipant(e, env)), withStatuses, until, topics };
  }

  /** Breakout children the caller may see (Talk's BreakoutRoomService::getBreakoutRooms). */
  private async visibleBreakoutRooms(parent: RoomRow, viewer: AttendeeRow): Promise<RoomRow[]> {
    const rule = { mode: parent.breakout_room_mode, status: parent.breakout_room_status, participantType: viewer.participant_type };
    requireBreakoutListable(rule);
    const children = await this.repos.rooms.childrenOf(parent.token);
    if (seesAllBreakoutRooms(rule)) return children;
    const mine = new Set(
      (
        await this.repos.attendees.actorsInRooms(
          children.map((c) => c.id),
          viewer.actor_type,
          [viewer.actor_id],
        )
      ).map((a) => a.room_id),
    );
    return children.filter((c) => mine.has(c.id));
  }

  // ---- add (POST participants) ----

  /** Returns `{type}` when adding an e-mail guest made the conversation public, else `[]`. */
  async add(ctx: RequestContext, token: unknown, newParticipant: string, source: string): Promise<{ type: number } | []> {
    // Contract: 404 for anyone the conversation is not found for (anonymous callers included),
    // 403 for participants who are not logged-in moderators (guests and guest moderators too).
    const { room, attendee: caller } = await this.rooms.requireModerator(ctx, token, { loggedInOnly: true });
    if (isFixedMembershipRoom(room.type) || room.object_type === 'share:password') {
      throw badRequest('room-type', 'Participants cannot be added to this kind of conversation');
    }
    if (!(SOURCES as readonly string[]).includes(source))
      throw badRequest('source', 'source must be users, groups, circles, emails, phones or federated_users');
    const isBreakoutChild = room.object_type === 'room';
    if (isBreakoutChild && source !== 'users') throw badRequest('source', 'Only users can be added to a breakout room');
    const now = nowSeconds();
    const actor = chatActorOf(ctx, caller);
    switch (source) {
      case 'users':
        await this.addUser(room, actor, newParticipant, isBreakoutChild, now, ctx.userId);
        return [];
      case 'groups':
        await this.addGroup(room, actor, newParticipant, now, ctx.userId);
        return [];
      case 'circles':
      case 'teams':
        await this.addTeam(ctx, room, actor, newParticipant, now);
        return [];
      case 'federated_users':
        await this.federated.invite(ctx, room, actor, newParticipant);
        return [];
      case 'phones':
        await this.phones.addPhoneParticipant(ctx, room, newParticipant);
        await this.rooms.touch([room.id], now);
        return [];
      default: {
        const changed = await this.addEmail(ctx, room, caller, newParticipant, now);
        return changed ? { type: RoomType.PUBLIC } : [];
      }
    }
  }

  /** Returns the users newly added (for invitation notifications). */
  private async addUser(
    room: RoomRow,
    actor: ChatActor,
    userId: string,
    isBreakoutChild: boolean,
    now: number,
    invitedBy: string | undefined,
  ): Promise<string[]> {
    const user = userId === '' ? undefined : await this.directory.users.find(userId);
    if (!user) throw notFound('new-participant', 'The user to add does not exist');
    if (isBreakoutChild) {
      const parent = await this.repos.rooms.findByToken(room.object_id);
      if (parent) {
        // Into the parent, out of the sibling rooms and into this one in one transaction under
        // the parent's lock (then this room's), as breakout changes and a participant's own
        // switch take it: the user ends in one breakout room whatever runs at the same moment.
        const { toParent, toRoom } = await this.rooms.lockedTransaction(parent.id, async (repos, trx) => {
          const siblings = (await repos.rooms.childrenOf(parent.token)).filter((c) => c.id !== room.id);
          const inSiblings = await repos.attendees.actorsInRooms(
            siblings.map((s) => s.id),
            ActorType.USERS,
            [user.id],
          );
          if (inSiblings.some((a) => !may.joinOneBreakoutRoom(a))) {
            throw badRequest('moderator', 'A moderator cannot be moved between breakout rooms');
          }
          if (!(await repos.rooms.lockRow(room.id))) throw notFound('room');
          const toParent = await this.addUsersIn(repos, trx, parent, actor, [user], now);
          await repos.participants.deleteAttendeesInTransaction(inSiblings.map((a) => a.id));
          return { toParent, toRoom: await this.addUsersIn(repos, trx, room, actor, [user], now) };
        });
        await this.rooms.announceAttendeesAdded(parent, toParent);
        await this.rooms.announceAttendeesAdded(room, toRoom, invitedBy);
        return toRoom;
      }
    }
    return this.addUsers(room, actor, [user], now, [], invitedBy);
  }

  /**
   * Adds users as normal participants (type 3); self-joined members (5) become permanent (3);
   * existing members keep their role. Bumps lastActivity when anybody was added or changed.
   * Decided and written under the room lock, with the chat's user_added / group_added /
   * circle_added messages in the same transaction (docs/reference/chat.md#system-messages). Returns the ids of
   * the users who were not members before. `invitedBy`: the user who added them (their
   * invitation notifications name them; none without).
   */
  private async addUsers(
    room: RoomRow,
    actor: ChatActor,
    users: Array<{ id: string; display_name: string }>,
    now: number,
    extra: NewAttendeeSpec[] = [],
    invitedBy?: string,
  ): Promise<string[]> {
    const fresh = await this.rooms.lockedTransaction(room.id, (repos, trx) => this.addUsersIn(repos, trx, room, actor, users, now, extra));
    await this.rooms.announceAttendeesAdded(room, fresh, invitedBy);
    return fresh;
  }

  /** addUsers' writes, in a transaction that holds `room`'s lock; returns the users newly added. */
  private async addUsersIn(
    repos: Repositories,
    trx: Kysely<Database>,
    room: RoomRow,
    actor: ChatActor,
    users: Array<{ id: string; display_name: string }>,
    now: number,
    extra: NewAttendeeSpec[] = [],
  ): Promise<string[]> {
    const existing = await repos.attendees.actorsInRooms(
      [room.id],
      ActorType.USERS,
      users.map((u) => u.id),
    );
    const have = new Set(existing.map((a) => a.actor_id));
    const selfJoined = existing.filter((a) => a.participant_type === ParticipantType.USER_SELF_JOINED);
    const fresh = users.filter((u) => !have.has(u.id));
    // read_privacy comes from each user's preference as the rows are inserted (AttendeesRepository).
    const userSpecs: NewAttendeeSpec[] = fresh.map((u) => ({
      actorType: ActorType.USERS,
      actorId: u.id,
      displayName: u.display_name,
      participantType: ParticipantType.USER,
    }));
    const sources = extra.length ? await this.rooms.addAttendees(room.id, extra, repos) : [];
    await repos.participants.setParticipantType(
      selfJoined.map((a) => a.id),
      ParticipantType.USER,
      now,
    );
    if (extra.length || userSpecs.length || selfJoined.length) await repos.rooms.touch([room.id], now);
    // As Talk's ParticipantService::addGroup / addCircle: self-joined members made permanent,
    // then the group or team itself, then its new members, added after its message so that
    // they have read up to it (a new attendee's marker is the last message).
    await this.rooms.announceAttendeesAddedIn(trx, room, actor, [...selfJoined, ...sources]);
    const members = userSpecs.length ? await this.rooms.addAttendees(room.id, userSpecs, repos) : [];
    await this.rooms.announceAttendeesAddedIn(trx, room, actor, members);
    return fresh.map((u) => u.id);
  }

  private async addGroup(room: RoomRow, actor: ChatActor, groupId: string, now: number, invitedBy: string | undefined): Promise<string[]> {
    const group = groupId === '' ? undefined : await this.directory.groups.find(groupId);
    if (!group) throw notFound('new-participant', 'The group to add does not exist');
    const members = await this.directory.users.existing(await this.directory.groups.membersOf(group.id));
    const groupSpec = { actorType: ActorType.GROUPS, actorId: group.id, displayName: group.display_name || group.id, participantType: ParticipantType.USER };
    return this.addUsers(room, actor, members, now, [groupSpec], invitedBy);
  }

  private async addTeam(ctx: RequestContext, room: RoomRow, actor: ChatActor, teamId: string, now: number): Promise<string[]> {
    const team = teamId === '' ? undefined : await this.teams.find(teamId);
    const memberIds = team ? await this.teams.membersOf(team.id) : [];
    // Like Nextcloud's circles: only members may add a team.
    if (!team || !memberIds.includes(ctx.userId!)) throw notFound('new-participant', 'The team to add does not exist');
    const members = await this.directory.users.existing(memberIds);
    const teamSpec = { actorType: ActorType.CIRCLES, actorId: team.id, displayName: team.display_name || team.id, participantType: ParticipantType.USER };
    return this.addUsers(room, actor, members, now, [teamSpec], ctx.userId);
  }

  /** E-mail guest: the conversation becomes public; an invitation mail goes out. True when the type changed. */
  private async addEmail(ctx: RequestContext, room: RoomRow, caller: AttendeeRow, address: string, now: number): Promise<boolean> {
    const email = address.trim();
    if (email === '' || emailProblem(email)) throw badRequest('email', 'newParticipant must be a valid e-mail address');
    const cfg = await ctx.config();
    const actorId = sha256Hex(email.toLowerCase());
    // One transaction under the conversation's lock: a conversation deleted since the lookup is
    // 404 `room` and gets neither the type change nor the guest.
    const added = await this.rooms.lockedTransaction(room.id, async (repos) => {
      let changed = false;
      let current = room;
      if (current.type === RoomType.GROUP) {
        await repos.rooms.update(current.id, { type: RoomType.PUBLIC, last_activity: Math.max(now, current.last_activity) });
        current = { ...current, type: RoomType.PUBLIC };
        changed = true;
      }
      if (await repos.attendees.find(current.id, ActorType.EMAILS, actorId)) return { changed, room: current };
      const withPin = roomUsesPins(sipConfigured(cfg), current);
      const [attendee] = await this.rooms.addAttendees(
        current.id,
        [{ actorType: ActorType.EMAILS, actorId, displayName: email, participantType: ParticipantType.GUEST }],
        repos,
      );
      const patch = { invited_cloud_id: email, access_token: randomString(32), ...(withPin ? { pin: newAttendeePin() } : {}) };
      await repos.attendees.update(attendee.id, patch);
      return { changed, room: current, guest: { ...attendee, ...patch } };
    });
    if (added.guest) await this.sendInvitation(ctx, added.room, caller, added.guest);
    return added.changed;
  }

  private async sendInvitation(ctx: RequestContext, room: RoomRow, inviter: AttendeeRow, guest: AttendeeRow): Promise<void> {
    const cfg = await ctx.config();
    const sip = roomUsesPins(sipConfigured(cfg), room);
    const mail = invitationMail({
      baseUrl: this.baseUrl,
      token: room.token,
      roomName: room.name,
      inviterName: ctx.user?.display_name || inviter.display_name || inviter.actor_id,
      pin: sip ? (guest.pin ?? undefined) : undefined,
      dialInInfo: sip ? cfg.get('sip_bridge_dialin_info') : undefined,
    });
    await this.mail.send({ to: guest.invited_cloud_id ?? '', ...mail });
  }

  /** POST participants/resend-invitations: every e-mail guest, or the one given (404 when not here). */
  async resendInvitations(ctx: RequestContext, token: unknown, attendeeId: number | null): Promise<void> {
    const { room, attendee: caller } = await this.rooms.requireModerator(ctx, token, { loggedInOnly: true });
    let targets: AttendeeRow[];
    if (attendeeId !== null) {
      const target = await attendeeIn(this.repos, room, attendeeId);
      targets = [target];
    } else {
      targets = await this.repos.attendees.forRoom(room.id);
    }
    const cfg = await ctx.config();
    const sip = roomUsesPins(sipConfigured(cfg), room);
    for (const t of targets.filter((a) => a.actor_type === ActorType.EMAILS && a.invited_cloud_id)) {
      let guest = t;
      if (sip && t.pin === null) {
        const pin = newAttendeePin();
        await this.repos.attendees.update(t.id, { pin });
        guest = { ...t, pin };
      }
      await this.sendInvitation(ctx, room, caller, guest);
    }
  }

  // ---- removal ----

  /**
   * DELETE attendees: moderators (guest moderators too). The contract protects moderators (400)
   * and owners (403); removing oneself follows the leave rules.
   */
  async removeAttendee(ctx: RequestContext, token: unknown, attendeeId: number): Promise<void> {
    const found = await this.rooms.requireModerator(ctx, token);
    const { room, attendee: caller } = found;
    const target = await attendeeIn(this.repos, room, attendeeId);
    if (isFixedMembershipRoom(room.type)) {
      throw badRequest('room-type', 'Participants cannot be removed from this kind of conversation');
    }
    if (target.id === caller.id) return this.leave(ctx, room, caller);
    const members = await this.membersOnlyThrough(room, target);
    // Checked again under the room lock: roles may have changed since they were read.
    const removed = await this.rooms.lockedTransaction(room.id, async (repos, trx) => {
      const all = await repos.attendees.forRoom(room.id);
      assertStillModerator(ctx, all, caller);
      const current = all.find((a) => a.id === target.id);
      if (!current) return [];
      if (current.participant_type === ParticipantType.OWNER) throw forbidden('owner', 'The owner cannot be removed');
      if (isModeratorType(current.participant_type)) throw badRequest('moderator', 'Moderators cannot be removed; demote them first');
      const rows = [current, ...stillPlainMembers(all, members)];
      await repos.attendees.deleteByIds(rows.map((a) => a.id));
      await this.rooms.announceAttendeesRemovedIn(trx, room, chatActorOf(ctx, caller), rows);
      return rows;
    });
    if (removed.length) await this.removeAttendees(room, removed);
  }

  /**
   * Operator removal (occ talk:room:remove): any role, but never the last logged-in moderator or
   * owner while other users stay; decided and written under the room lock.
   */
  async removeAsOperator(room: RoomRow, targets: AttendeeRow[]): Promise<void> {
    const ids = targets.map((t) => t.id);
    const members: AttendeeRow[] = [];
    for (const t of targets) members.push(...(await this.membersOnlyThrough(room, t)));
    const removed = await this.rooms.lockedTransaction(room.id, async (repos, trx) => {
      const all = await repos.attendees.forRoom(room.id);
      if (lastModeratorWouldGo(all, { removed: ids })) {
        throw badRequest('last-moderator', 'No other moderators or owners would be left');
      }
      const rows = [...targets, ...stillPlainMembers(all, members).filter((m) => !ids.includes(m.id))];
      await repos.attendees.deleteByIds(rows.map((a) => a.id));
      await this.rooms.announceAttendeesRemovedIn(trx, room, { ...CLI_ACTOR }, rows);
      return rows;
    });
    await this.removeAttendees(room, removed);
  }

  /** DELETE participants/self. */
  async removeSelf(ctx: RequestContext, token: unknown): Promise<void> {
    const { room, attendee } = await this.rooms.requireParticipant(ctx, token);
    if (room.remote_token !== '') return this.federated.leaveProxied(ctx, room);
    await this.leave(ctx, room, attendee);
  }

  private async leave(ctx: RequestContext, room: RoomRow, me: AttendeeRow): Promise<void> {
    const cfg = await ctx.config();
    // Decided on the rows as they are under the room lock, and the attendee row deleted in the
    // same step, so two moderators leaving at once cannot both pass the last-moderator rule.
    const outcome = await this.rooms.lockedTransaction(room.id, async (repos, trx) => {
      const all = await repos.attendees.forRoom(room.id);
      const mine = all.find((a) => a.id === me.id);
      if (!mine) return 'gone' as const;
      const decided = leaveOutcome({
        participantType: mine.participant_type,
        roomType: room.type,
        objectType: room.object_type,
        counts: memberCount(all),
        deleteOneToOne: cfg.bool('delete_one_to_one_conversations'),
      });
      if (decided === 'remove') {
        await repos.attendees.deleteByIds([mine.id]);
        // A self-joined user leaving is not recorded (docs/reference/chat.md#system-messages user_removed).
        if (mine.participant_type !== ParticipantType.USER_SELF_JOINED) await this.rooms.announceAttendeesRemovedIn(trx, room, chatActorOf(ctx, mine), [mine]);
      }
      return decided;
    });
    if (outcome === 'gone') return;
    if (outcome === 'last-moderator') throw badRequest('last-moderator', 'You are the only moderator; promote somebody else first');
    if (outcome === 'delete-room') return this.rooms.deleteRooms([room]);
    await this.removeAttendees(room, [me], { selfJoinedLeaving: me.participant_type === ParticipantType.USER_SELF_JOINED });
  }

  /**
   * Finishes removing attendees: their rows and sessions go; on a breakout parent the same actors
   * leave every child. lastActivity moves unless it is a one-to-one or a self-joined user leaving
   * (docs/reference/conversations.md#timers-and-jobs). A removed group or team must arrive with the members it takes along
   * (`membersOnlyThrough`), as `remove` and `removeAsOperator` decide them under the room lock.
   */
  async removeAttendees(room: RoomRow, targets: AttendeeRow[], opts: { selfJoinedLeaving?: boolean } = {}): Promise<void> {
    const ids = new Set(targets.map((t) => t.id));
    const leavingUsers = new Set(targets.filter((t) => t.actor_type === ActorType.USERS).map((t) => t.actor_id));
    const children = await this.repos.rooms.childrenOf(room.token);
    const childIds = children.map((ch) => ch.id);
    // One statement per actor type, not one per target: a removed group brings its members along.
    for (const type of new Set(targets.map((t) => t.actor_type))) {
      const actorIds = targets.filter((t) => t.actor_type === type).map((t) => t.actor_id);
      for (const c of await this.repos.attendees.actorsInRooms(childIds, type, actorIds)) ids.add(c.id);
    }
    const sessionIds = await this.repo.deleteAttendees([...ids]);
    await this.notifications.removedFromRoom([room.id, ...children.map((c) => c.id)], [...leavingUsers]);
    await this.sessions.endSessions({ sessionIds: [], attendeeIds: [], roomIds: [room.id, ...children.map((c) => c.id)] });
    if (!isOneToOneKind(room.type) && !opts.selfJoinedLeaving) await this.rooms.touch([room.id]);
    await this.rooms.announceAttendeesRemoved(room, [...leavingUsers], sessionIds);
  }

  /**
   * Plain members (type 3) of a group/team attendee that no other group or team of the room
   * covers; none for other attendees. They leave with it, each recorded as `user_removed`
   * after the source's `group_removed` / `circle_removed` (Talk's removeAttendee, then
   * removeGroupMembers / removeCircleMembers).
   */
  private async membersOnlyThrough(room: RoomRow, source: AttendeeRow): Promise<AttendeeRow[]> {
    if (source.actor_type !== ActorType.GROUPS && source.actor_type !== ActorType.CIRCLES) return [];
    const memberIds =
      source.actor_type === ActorType.GROUPS ? await this.directory.groups.membersOf(source.actor_id) : await this.teams.membersOf(source.actor_id);
    const rows = (await this.repos.attendees.actorsInRooms([room.id], ActorType.USERS, memberIds)).filter((a) => a.participant_type === ParticipantType.USER);
    if (rows.length === 0) return [];
    const others = (await this.repos.attendees.forRoom(room.id)).filter(
      (a) => (a.actor_type === ActorType.GROUPS || a.actor_type === ActorType.CIRCLES) && a.id !== source.id,
    );
    const covered = new Set<string>();
    for (const o of others) {
      const ids = o.actor_type === ActorType.GROUPS ? await this.directory.groups.membersOf(o.actor_id) : await this.teams.membersOf(o.actor_id);
      ids.forEach((id) => covered.add(id));
    }
    return rows.filter((a) => !covered.has(a.actor_id));
  }

  // ---- guests ----

  /** POST api/v1/guest/{token}/name: 403 for non-guests, 404 for non-participants. */
  async setGuestName(ctx: RequestContext, token: unknown, displayName: string): Promise<void> {
    const found = await this.rooms.getRoomForCaller(ctx, token);
    if (!found.attendee) throw notFound('room');
    if (!isGuestType(found.attendee.participant_type) || ctx.user) throw forbidden('guest', 'Only guests can set a guest name');
    const problem = displayNameProblem(displayName);
    if (problem) throw badRequest('displayName', problem);
    if (displayName === found.attendee.display_name) return;
    await this.repo.renameActor(found.attendee.actor_type, found.attendee.actor_id, displayName);
    await this.rooms.announceParticipantsChanged(found.room, [found.attendee.id], 'guest-name');
  }
}

/** Of `members` read before the room lock, those still plain members (type 3) in `all`, read under it. */
function stillPlainMembers(all: AttendeeRow[], members: AttendeeRow[]): AttendeeRow[] {
  const ids = new Set(members.map((m) => m.id));
  return all.filter((a) => ids.has(a.id) && a.participant_type === ParticipantType.USER);
}
