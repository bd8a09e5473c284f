/**
 * Conversations follow the directory: when a user joins or leaves a group (or a
 * team) that is an attendee of conversations, they are added to or removed from those
 * conversations; a deleted group or team leaves with the members it brought; a deleted user
 * leaves every conversation (one-to-one conversations become "former one-to-one").
 */
import type { ParticipantsRepository } from '../../db/repositories/participants.js';
import { ActorType, ParticipantType, ReadOnlyState, RoomType } from '../../domain/constants.js';
import { isOneToOneKind } from '../../domain/permissions.js';
import type { DirectoryService } from '../accounts/directory.js';
import { oneToOneNamePart, oneToOnePair, RoomsService } from '../conversations/rooms.js';
import type { TeamsService } from '../accounts/teams.js';
import { nowSeconds } from '../../domain/time.js';
import type { Repositories } from '../../db/repositories/index.js';
import { CLI_ACTOR } from '../../domain/chat.js';
import type { ChatActor } from '../chat/chat.js';

type SourceType = typeof ActorType.GROUPS | typeof ActorType.CIRCLES;

export class MembershipSync {
  constructor(
    private readonly rooms: RoomsService,
    private readonly repos: Pick<Repositories, 'attendees' | 'rooms'>,
    private readonly repo: ParticipantsRepository,
    private readonly directory: DirectoryService,
    private readonly teams: TeamsService,
  ) {}

  /**
   * Who the chat names for a membership change (docs/reference/chat.md#system-messages actor rule; Talk's
   * Group/CircleMembershipListener): the logged-in user who made it, else the command line.
   */
  private async actorOf(by: string | undefined): Promise<ChatActor> {
    const user = by ? await this.directory.users.find(by) : undefined;
    return user ? { type: ActorType.USERS, id: user.id, displayName: user.display_name } : { ...CLI_ACTOR };
  }

  /**
   * A new member joins the conversations of the group or team (Talk's addUsers, or a
   * self-joined member made permanent): per conversation under its row lock, with `user_added`
   * in the same transaction; then invited in the name of `by` and told to the signaling server.
   */
  async memberAdded(type: SourceType, sourceId: string, userId: string, by?: string): Promise<void> {
    const roomIds = await this.repo.roomsWithActor(type, sourceId);
    if (roomIds.length === 0) return;
    const user = await this.directory.users.find(userId);
    if (!user) return;
    const actor = await this.actorOf(by);
    const spec = { actorType: ActorType.USERS, actorId: user.id, displayName: user.display_name, participantType: ParticipantType.USER };
    for (const room of await this.repos.rooms.findByIds(roomIds)) {
      const added = await this.rooms.lockedIfExists(room.id, async (repos, trx) => {
        const now = nowSeconds();
        const [existing] = await repos.attendees.actorsInRooms([room.id], ActorType.USERS, [user.id]);
        if (existing && existing.participant_type !== ParticipantType.USER_SELF_JOINED) return false;
        if (existing) await repos.participants.setParticipantType([existing.id], ParticipantType.USER, now);
        const rows = existing ? [existing] : await this.rooms.addAttendees(room.id, [spec], repos);
        await repos.rooms.touch([room.id], now);
        await this.rooms.announceAttendeesAddedIn(trx, room, actor, rows);
        return !existing;
      });
      if (added) await this.rooms.announceAttendeesAdded(room, [user.id], by);
    }
  }

  /** A member leaves the conversations the source brought them into, unless another group/team keeps them. */
  async memberRemoved(type: SourceType, sourceId: string, userId: string, by?: string): Promise<void> {
    const roomIds = await this.repo.roomsWithActor(type, sourceId);
    await this.leave(type, sourceId, [userId], roomIds, await this.actorOf(by), false);
  }

  /** A deleted group or team leaves its conversations with the members only it kept there. */
  async sourceDeleted(type: SourceType, sourceId: string, members: string[], by?: string): Promise<void> {
    const roomIds = await this.repo.roomsWithActor(type, sourceId);
    await this.leave(type, sourceId, members, roomIds, await this.actorOf(by), true);
  }

  /**
   * Removes, per conversation under its row lock, the source itself (`withSource`) and the plain
   * members (type 3) of `userIds` whom no other group or team of theirs keeps there, with
   * `group_removed` / `circle_removed` then `user_removed` in the same transaction (Talk's
   * removeAttendee then removeGroupMembers / removeCircleMembers); sessions end after commit.
   */
  private async leave(type: SourceType, sourceId: string, userIds: string[], roomIds: number[], actor: ChatActor, withSource: boolean): Promise<void> {
    if (roomIds.length === 0) return;
    const leaving = new Map<number, string[]>();
    for (const userId of userIds) {
      const groups = (await this.directory.groups.groupsOf(userId)).filter((g) => !(type === ActorType.GROUPS && g === sourceId));
      const teams = (await this.teams.teamsOf(userId)).filter((t) => !(type === ActorType.CIRCLES && t === sourceId));
      const kept = await this.repo.roomsWithAnySource(roomIds, groups, teams);
      for (const id of roomIds) if (!kept.has(id)) leaving.set(id, [...(leaving.get(id) ?? []), userId]);
    }
    for (const room of await this.repos.rooms.findByIds(roomIds)) {
      const users = leaving.get(room.id) ?? [];
      if (!withSource && users.length === 0) continue;
      const gone = await this.rooms.lockedIfExists(room.id, async (repos, trx) => {
        const sources = withSource ? await repos.attendees.actorsInRooms([room.id], type, [sourceId]) : [];
        const members = (await repos.attendees.actorsInRooms([room.id], ActorType.USERS, users)).filter((a) => a.participant_type === ParticipantType.USER);
        const rows = [...sources, ...members];
        if (rows.length === 0) return [];
        await repos.attendees.deleteByIds(rows.map((a) => a.id));
        await repos.rooms.touch([room.id], nowSeconds());
        await this.rooms.announceAttendeesRemovedIn(trx, room, actor, rows);
        return rows;
      });
      if (!gone || gone.length === 0) continue;
      const sessionIds = await this.repo.deleteAttendees(gone.map((a) => a.id));
      const goneUsers = gone.filter((a) => a.actor_type === ActorType.USERS).map((a) => a.actor_id);
      await this.rooms.announceAttendeesRemoved(room, goneUsers, sessionIds);
    }
  }

  /**
   * A deleted user leaves every conversation as Talk's Manager::removeUserFromAllRooms does (and
   * `talk:user:remove`): a group or public conversation where they were the last user is
   * deleted (with its breakout rooms); a one-to-one becomes a former one (type 5, no message:
   * docs/reference/chat.md#system-messages skips one-to-ones); elsewhere `user_removed` naming the deleted user is written in the
   * transaction that removes them, by `by` (the admin deleting the account) or the command line.
   */
  async userDeleted(userId: string, by?: string): Promise<void> {
    const rows = await this.repos.attendees.forActor(ActorType.USERS, userId);
    // A former one-to-one is named after the user, as they were called (docs/reference/conversations.md#former-one-to-one-conversations).
    const gone = await this.directory.users.find(userId);
    const formerName = gone?.display_name || userId;
    await this.leftOneToOnesBecomeFormer(userId, formerName);
    if (rows.length === 0) return;
    const actor = await this.actorOf(by);
    for (const room of await this.repos.rooms.findByIds(rows.map((a) => a.room_id))) {
      // Decided under the conversation's lock: whether they are its last user is read there, so
      // another user leaving at the same moment cannot leave it without users; one deleted
      // since it was listed is skipped.
      const outcome = await this.rooms.lockedIfExists(room.id, async (repos, trx) => {
        const mine = await repos.attendees.actorsInRooms([room.id], ActorType.USERS, [userId]);
        if (mine.length === 0) return undefined;
        const users = (await repos.participants.userCounts([room.id])).get(room.id) ?? 0;
        if (!isOneToOneKind(room.type) && users <= mine.length) return { deleted: await RoomsService.purgeLocked(repos, [room]) };
        await repos.attendees.deleteByIds(mine.map((a) => a.id));
        if (isOneToOneKind(room.type)) {
          await repos.rooms.markFormerOneToOne([room.id], formerName);
        } else {
          await repos.rooms.touch([room.id], nowSeconds());
          await this.rooms.announceAttendeesRemovedIn(trx, room, actor, mine, true);
        }
        return { gone: mine, sessionIds: await repos.sessions.deleteForAttendees(mine.map((a) => a.id)) };
      });
      if (outcome?.deleted) await this.rooms.announceDeleted(outcome.deleted);
      else if (outcome?.gone) await this.rooms.announceAttendeesRemoved(room, [userId], outcome.sessionIds);
    }
  }

  /**
   * One-to-ones the deleted user had already left still carry their id in the pair name: they
   * become former one-to-ones too (read-only, named after the user), so that a new account with
   * the same id cannot reopen the other person's conversation (Talk's
   * Manager::removeUserFromAllRooms with getLeftOneToOneRoomsForUser;
   * docs/reference/conversations.md#former-one-to-one-conversations).
   */
  private async leftOneToOnesBecomeFormer(userId: string, formerName: string): Promise<void> {
    const left = (await this.repos.rooms.oneToOnesNaming(oneToOneNamePart(userId))).filter((room) => oneToOnePair(room.name).includes(userId));
    for (const room of left) {
      const changed = await this.rooms.lockedIfExists(room.id, async (repos) => {
        const mine = await repos.attendees.actorsInRooms([room.id], ActorType.USERS, [userId]);
        // Still an attendee: the walk over their attendee rows turns it (same outcome, one place).
        if (mine.length > 0) return false;
        await repos.rooms.markFormerOneToOne([room.id], formerName);
        return true;
      });
      if (changed) await this.rooms.announceUpdated({ ...room, type: RoomType.ONE_TO_ONE_FORMER, read_only: ReadOnlyState.READ_ONLY, name: formerName });
    }
  }
}
