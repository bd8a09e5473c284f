/** SQL for teams (circles) and their members. */
import type { Kysely } from 'kysely';
import { anyColumnContains, page } from '../search.js';
import type { Database, TeamsTable } from '../schema.js';

export type TeamRow = TeamsTable;

export class TeamsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  find(id: string): Promise<TeamRow | undefined> {
    return this.db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
  }

  list(): Promise<TeamRow[]> {
    return this.db.selectFrom('teams').selectAll().orderBy('id').execute();
  }

  async insert(row: TeamRow): Promise<void> {
    await this.db.insertInto('teams').values(row).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('team_members').where('team_id', '=', id).execute();
      await trx.deleteFrom('teams').where('id', '=', id).execute();
    });
  }

  async membersOf(teamId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('team_members').select('user_id').where('team_id', '=', teamId).orderBy('user_id').execute();
    return rows.map((r) => r.user_id);
  }

  /** Teams `userId` is a member of whose id or name contains `search`, ordered by id. */
  searchForMember(userId: string, search: string, limit: number, offset: number): Promise<TeamRow[]> {
    let q = this.db
      .selectFrom('teams')
      .innerJoin('team_members', 'team_members.team_id', 'teams.id')
      .selectAll('teams')
      .where('team_members.user_id', '=', userId)
      .orderBy('teams.id');
    if (search) q = q.where(anyColumnContains(['teams.id', 'teams.display_name'], search));
    return page(q, limit, offset).execute();
  }

  async teamsOf(userId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('team_members').select('team_id').where('user_id', '=', userId).orderBy('team_id').execute();
    return rows.map((r) => r.team_id);
  }

  /** Member counts of all teams (one query). */
  async memberCounts(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('team_members')
      .select(['team_id', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('team_id')
      .execute();
    return new Map(rows.map((r) => [r.team_id, Number(r.n)]));
  }

  /** Adds a member; false when already a member. */
  async addMember(teamId: string, userId: string): Promise<boolean> {
    const res = await this.db
      .insertInto('team_members')
      .values({ team_id: teamId, user_id: userId })
      .onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async removeMember(teamId: string, userId: string): Promise<boolean> {
    const res = await this.db.deleteFrom('team_members').where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  async removeUserEverywhere(userId: string): Promise<void> {
    await this.db.deleteFrom('team_members').where('user_id', '=', userId).execute();
  }
}
