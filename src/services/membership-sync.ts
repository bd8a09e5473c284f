/**
 * Conversations follow the directory (issue 4 item 3): when a user joins or leaves a group (or a
 * team) that is an attendee of conversations, they are added to or removed from those
 * conversations; a deleted group or team leaves with the members it brought; a deleted user
 * leaves every conversation (one-to-one conversations become "former one-to-one").
 */
import type { ParticipantsRepository } from '../db/repositories/participants.js';
import { ActorType, ParticipantType } from '../domain/constants.js';
import { isOneToOneKind } from '../domain/permissions.js';
import type { DirectoryService } from './directory.js';
import { type RoomsService } from './rooms.js';
import type { TeamsService } from './teams.js';
import { nowSeconds } from '../domain/time.js';
import type { Repositories } from '../db/repositories/index.js';

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
   * A new member joins the conversations of the group or team. Those who were not in them yet
   * are announced as added (Talk's addUsers → AttendeesAddedEvent): invited in the name of `by`,
   * the user who changed the membership, and told to the signaling server.
   */
  async memberAdded(type: SourceType, sourceId: string, userId: string, by?: string): Promise<void> {
    const roomIds = await this.repo.roomsWithActor(type, sourceId);
    if (roomIds.length === 0) return;
    const user = await this.directory.users.find(userId);
    if (!user) return;
    const now = nowSeconds();
    const existing = await this.repos.attendees.actorsInRooms(roomIds, ActorType.USERS, [userId]);
    await this.repo.setParticipantType(
      existing.filter((a) => a.participant_type === ParticipantType.USER_SELF_JOINED).map((a) => a.id),
      ParticipantType.USER,
      now,
    );
    const have = new Set(existing.map((a) => a.room_id));
    const spec = { actorType: ActorType.USERS, actorId: user.id, displayName: user.display_name, participantType: ParticipantType.USER };
    const newRoomIds = roomIds.filter((id) => !have.has(id));
    await this.repos.attendees.insertIgnoringDuplicates(newRoomIds.map((id) => this.rooms.attendeeRow(id, now, spec)));
    await this.rooms.touch(roomIds, now);
    if (newRoomIds.length === 0) return;
    for (const room of await this.repos.rooms.findByIds(newRoomIds)) await this.rooms.announceAttendeesAdded(room, [user.id], by);
  }

  /** Members leave the conversations the source brought them into, unless another group/team keeps them. */
  async memberRemoved(type: SourceType, sourceId: string, userIds: string[], roomIds?: number[]): Promise<void> {
    const rooms = roomIds ?? (await this.repo.roomsWithActor(type, sourceId));
    if (rooms.length === 0) return;
    for (const userId of userIds) {
      const groups = (await this.directory.groups.groupsOf(userId)).filter((g) => !(type === ActorType.GROUPS && g === sourceId));
      const teams = (await this.teams.teamsOf(userId)).filter((t) => !(type === ActorType.CIRCLES && t === sourceId));
      const kept = await this.repo.roomsWithAnySource(rooms, groups, teams);
      const leaving = (
        await this.repos.attendees.actorsInRooms(
          rooms.filter((r) => !kept.has(r)),
          ActorType.USERS,
          [userId],
        )
      ).filter((a) => a.participant_type === ParticipantType.USER);
      await this.repo.deleteAttendees(leaving.map((a) => a.id));
    }
    await this.rooms.touch(rooms);
  }

  async sourceDeleted(type: SourceType, sourceId: string, members: string[]): Promise<void> {
    const roomIds = await this.repo.roomsWithActor(type, sourceId);
    if (roomIds.length === 0) return;
    const sourceRows = await this.repos.attendees.actorsInRooms(roomIds, type, [sourceId]);
    await this.repo.deleteAttendees(sourceRows.map((a) => a.id));
    await this.memberRemoved(type, sourceId, members, roomIds);
  }

  /**
   * A deleted user leaves every conversation as Talk's Manager::removeUserFromAllRooms does (and
   * `talk:user:remove`): a group or public conversation where they were the last user is
   * deleted (with its breakout rooms); a one-to-one becomes a former one. Constant queries.
   */
  async userDeleted(userId: string): Promise<void> {
    const rows = await this.repos.attendees.forActor(ActorType.USERS, userId);
    if (rows.length === 0) return;
    const roomIds = rows.map((a) => a.room_id);
    const userCounts = await this.repo.userCounts(roomIds);
    const rooms = await this.repos.rooms.findByIds(roomIds);
    const orphaned = rooms.filter((r) => !isOneToOneKind(r.type) && (userCounts.get(r.id) ?? 0) <= 1);
    await this.repo.deleteAttendees(rows.map((a) => a.id));
    await this.repos.rooms.markFormerOneToOne(roomIds);
    await this.rooms.deleteRooms(orphaned);
  }
}
