/** SQL for accounts. */
import type { Kysely } from 'kysely';
import { anyColumnContains, page } from '../search.js';
import type { Database, UsersTable } from '../schema.js';
import { compiledRead } from '../database.js';

export type UserRow = UsersTable;

export class UsersRepository {
  private readonly findRead;

  constructor(private readonly db: Kysely<Database>) {
    this.findRead = compiledRead(db, db.selectFrom('users').selectAll().where('id', '=', ''), { table: 'users' });
  }

  /** Read on every authenticated request (credential check), hence compiled once and cached per process. */
  async find(id: string): Promise<UserRow | undefined> {
    const [row] = await this.findRead([id]);
    return row;
  }

  /**
   * The stored row itself, never a cached copy: for the counted password check, which must judge
   * the password stored now (a change committed by another process a moment ago included).
   */
  findCurrent(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** A user whose id equals `id` ignoring case (Nextcloud user ids are unique case-insensitively). */
  findCaseInsensitive(id: string): Promise<UserRow | undefined> {
    return this.db
      .selectFrom('users')
      .selectAll()
      .where((eb) => eb(eb.fn('lower', ['id']), '=', id.toLowerCase()))
      .executeTakeFirst();
  }

  /** Existing ids among `ids` (one query, whatever the number). */
  async existing(ids: string[]): Promise<UserRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
  }

  async update(id: string, patch: Partial<Omit<UserRow, 'id'>>): Promise<number> {
    const res = await this.db.updateTable('users').set(patch).where('id', '=', id).executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  /**
   * Renames a user and, in the same transaction, the names Talk keeps of them (its
   * ParticipantService and PollService updateDisplayNameForActor): their attendee rows, and the
   * polls and votes they made. Messages and one-to-one names read the account's name as shown.
   */
  async rename(id: string, displayName: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ display_name: displayName }).where('id', '=', id).execute();
      await trx.updateTable('attendees').set({ display_name: displayName }).where('actor_type', '=', 'users').where('actor_id', '=', id).execute();
      await trx.updateTable('polls').set({ actor_display_name: displayName }).where('actor_type', '=', 'users').where('actor_id', '=', id).execute();
      await trx.updateTable('poll_votes').set({ actor_display_name: displayName }).where('actor_type', '=', 'users').where('actor_id', '=', id).execute();
    });
  }

  /** Inserts a user and its group memberships in one transaction (all or nothing). */
  async insertWithGroups(row: UserRow, groupIds: string[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('users').values(row).execute();
      if (groupIds.length) {
        await trx
          .insertInto('group_members')
          .values(groupIds.map((g) => ({ group_id: g, user_id: row.id })))
          .execute();
      }
    });
  }

  /** Removes a user with its memberships, app passwords and preferences in one transaction. */
  async deleteAccount(id: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('group_members').where('user_id', '=', id).execute();
      await trx.deleteFrom('app_passwords').where('user_id', '=', id).execute();
      await trx.deleteFrom('user_preferences').where('user_id', '=', id).execute();
      // What Nextcloud deletes with an account besides Talk's own rows: status, phone numbers
      // (Talk's dial-out caller ids), web login sessions.
      await trx.deleteFrom('user_status').where('user_id', '=', id).execute();
      await trx.deleteFrom('phone_numbers').where('actor_id', '=', id).execute();
      await trx.deleteFrom('login_sessions').where('user_id', '=', id).execute();
      await trx.deleteFrom('users').where('id', '=', id).execute();
    });
  }

  /** Records a login; skipped by the caller when the stored time is recent (see AuthService). */
  async touchLastLogin(id: string, now: number): Promise<void> {
    await this.db.updateTable('users').set({ last_login: now }).where('id', '=', id).execute();
  }

  /** Ids matching `search` in id, display name or email, ordered by id. */
  list(search: string, limit: number | undefined, offset: number): Promise<UserRow[]> {
    let q = this.db.selectFrom('users').selectAll().orderBy('id');
    if (search) q = q.where(anyColumnContains(['id', 'display_name', 'email'], search));
    return page(q, limit, offset).execute();
  }

  async count(): Promise<number> {
    const r = await this.db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
