/**
 * A small teams ("circles") directory (docs/api.md "Participants and sessions"): enough for
 * `source=circles` when adding participants or creating conversations, and for the
 * `circles-support` feature. Managed with `parley team:*`. Membership changes are announced on the
 * event bus so conversations that contain a team follow it, as they follow groups.
 */
import type { TeamsRepository, TeamRow } from '../../db/repositories/teams.js';
import { displayNameProblem, groupIdProblem } from '../../domain/accounts.js';
import { badRequest, notFound } from '../../domain/errors.js';
import type { DirectoryService } from './directory.js';
import type { EventBus } from '../../events/bus.js';
import { nowSeconds } from '../../domain/time.js';

export class TeamsService {
  constructor(
    private readonly repo: TeamsRepository,
    private readonly directory: DirectoryService,
    private readonly events: EventBus,
  ) {}

  /** A deleted user leaves every team (subscribed to `user.deleting`). */
  removeUserEverywhere(userId: string): Promise<void> {
    return this.repo.removeUserEverywhere(userId);
  }

  find(id: string): Promise<TeamRow | undefined> {
    return this.repo.find(id);
  }

  async require(id: string): Promise<TeamRow> {
    const t = await this.repo.find(id);
    if (!t) throw notFound('team', `Team ${id} does not exist`);
    return t;
  }

  list(): Promise<TeamRow[]> {
    return this.repo.list();
  }

  memberCounts(): Promise<Map<string, number>> {
    return this.repo.memberCounts();
  }

  membersOf(id: string): Promise<string[]> {
    return this.repo.membersOf(id);
  }

  teamsOf(userId: string): Promise<string[]> {
    return this.repo.teamsOf(userId);
  }

  async create(id: string, displayName?: string): Promise<TeamRow> {
    const idProblem = groupIdProblem(id);
    if (idProblem) throw badRequest('team', idProblem.replace('Group name', 'Team id').replace('group name', 'team id'));
    const name = displayName ?? id;
    const nameProblem = displayNameProblem(name);
    if (nameProblem) throw badRequest('displayName', nameProblem);
    if (await this.repo.find(id)) throw badRequest('team', `Team ${id} already exists`);
    const row = { id, display_name: name, created_at: nowSeconds() };
    try {
      await this.repo.insert(row);
    } catch {
      throw badRequest('team', `Team ${id} already exists`);
    }
    return row;
  }

  async delete(id: string): Promise<void> {
    await this.require(id);
    const members = await this.repo.membersOf(id);
    await this.repo.delete(id);
    await this.events.emit('team.deleted', { teamId: id, members });
  }

  async addMember(teamId: string, userId: string): Promise<boolean> {
    await this.require(teamId);
    await this.directory.requireUser(userId);
    const added = await this.repo.addMember(teamId, userId);
    if (added) await this.events.emit('team.member-added', { teamId, userId });
    return added;
  }

  async removeMember(teamId: string, userId: string): Promise<boolean> {
    await this.require(teamId);
    const removed = await this.repo.removeMember(teamId, userId);
    if (removed) await this.events.emit('team.member-removed', { teamId, userId });
    return removed;
  }
}
