/** SQL for groups and group membership. */
import type { Kysely } from 'kysely';
import type { Database, GroupsTable } from '../schema.js';

export type GroupRow = GroupsTable;

export class GroupsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  find(id: string): Promise<GroupRow | undefined> {
    return this.db.selectFrom('groups').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async existing(ids: string[]): Promise<GroupRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom('groups').selectAll().where('id', 'in', ids).execute();
  }

  list(search: string, limit: number | undefined, offset: number): Promise<GroupRow[]> {
    let q = this.db.selectFrom('groups').selectAll().orderBy('id');
    if (search) {
      const like = `%${search.toLowerCase()}%`;
      q = q.where((eb) => eb.or([eb(eb.fn('lower', ['id']), 'like', like), eb(eb.fn('lower', ['display_name']), 'like', like)]));
    }
    if (limit !== undefined) q = q.limit(limit);
    if (offset) q = q.offset(offset).$if(limit === undefined, (qq) => qq.limit(1_000_000));
    return q.execute();
  }

  async insert(row: GroupRow): Promise<void> {
    await this.db.insertInto('groups').values(row).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('group_members').where('group_id', '=', id).execute();
    await this.db.deleteFrom('groups').where('id', '=', id).execute();
  }

  async groupsOf(userId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('group_members').select('group_id').where('user_id', '=', userId).orderBy('group_id').execute();
    return rows.map((r) => r.group_id);
  }

  async membersOf(groupId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('group_members').select('user_id').where('group_id', '=', groupId).orderBy('user_id').execute();
    return rows.map((r) => r.user_id);
  }

  async addMember(groupId: string, userId: string): Promise<boolean> {
    const exists = await this.db
      .selectFrom('group_members')
      .select('user_id')
      .where('group_id', '=', groupId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (exists) return false;
    await this.db.insertInto('group_members').values({ group_id: groupId, user_id: userId }).execute();
    return true;
  }

  async removeMember(groupId: string, userId: string): Promise<boolean> {
    const res = await this.db.deleteFrom('group_members').where('group_id', '=', groupId).where('user_id', '=', userId).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  async removeUserEverywhere(userId: string): Promise<void> {
    await this.db.deleteFrom('group_members').where('user_id', '=', userId).execute();
  }
}
