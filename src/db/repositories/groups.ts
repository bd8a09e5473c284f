/** SQL for groups and group membership. */
import type { Kysely } from 'kysely';
import { anyColumnContains, page } from '../search.js';
import type { Database, GroupsTable } from '../schema.js';

export type GroupRow = GroupsTable;

export class GroupsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Renames a group and the group attendees that show its name, in one transaction. */
  async rename(id: string, displayName: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('groups').set({ display_name: displayName }).where('id', '=', id).execute();
      await trx.updateTable('attendees').set({ display_name: displayName }).where('actor_type', '=', 'groups').where('actor_id', '=', id).execute();
    });
  }

  find(id: string): Promise<GroupRow | undefined> {
    return this.db.selectFrom('groups').selectAll().where('id', '=', id).executeTakeFirst();
  }

  async existing(ids: string[]): Promise<GroupRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom('groups').selectAll().where('id', 'in', ids).execute();
  }

  list(search: string, limit: number | undefined, offset: number): Promise<GroupRow[]> {
    let q = this.db.selectFrom('groups').selectAll().orderBy('id');
    if (search) q = q.where(anyColumnContains(['id', 'display_name'], search));
    return page(q, limit, offset).execute();
  }

  async insert(row: GroupRow): Promise<void> {
    await this.db.insertInto('groups').values(row).execute();
  }

  /** Deletes the group with its memberships (one transaction). */
  async delete(id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('group_members').where('group_id', '=', id).execute();
      await trx.deleteFrom('groups').where('id', '=', id).execute();
    });
  }

  /** The groups of each of `userIds` (one query, whatever the number). */
  async groupsOfMany(userIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(userIds.map((id) => [id, []]));
    if (userIds.length === 0) return out;
    const rows = await this.db
      .selectFrom('group_members')
      .select(['user_id', 'group_id'])
      .where('user_id', 'in', [...new Set(userIds)])
      .orderBy('group_id')
      .execute();
    for (const r of rows) out.get(r.user_id)?.push(r.group_id);
    return out;
  }

  /** Which of `userIds` are in at least one of `groupIds` (one query). */
  async membersAmong(groupIds: string[], userIds: string[]): Promise<Set<string>> {
    if (groupIds.length === 0 || userIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('group_members')
      .select('user_id')
      .distinct()
      .where('group_id', 'in', groupIds)
      .where('user_id', 'in', [...new Set(userIds)])
      .execute();
    return new Set(rows.map((r) => r.user_id));
  }

  async groupsOf(userId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('group_members').select('group_id').where('user_id', '=', userId).orderBy('group_id').execute();
    return rows.map((r) => r.group_id);
  }

  async membersOf(groupId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('group_members').select('user_id').where('group_id', '=', groupId).orderBy('user_id').execute();
    return rows.map((r) => r.user_id);
  }

  /** Adds a member; false when already a member (one statement, so concurrent adds cannot collide). */
  async addMember(groupId: string, userId: string): Promise<boolean> {
    const res = await this.db
      .insertInto('group_members')
      .values({ group_id: groupId, user_id: userId })
      .onConflict((oc) => oc.columns(['group_id', 'user_id']).doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async removeMember(groupId: string, userId: string): Promise<boolean> {
    const res = await this.db.deleteFrom('group_members').where('group_id', '=', groupId).where('user_id', '=', userId).executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }
}
