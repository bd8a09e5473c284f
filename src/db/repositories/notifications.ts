/** SQL for notifications (table `notifications`). Writes are batched: one statement per event, whatever the number of users. */
import type { Insertable, Kysely, OnConflictBuilder, Selectable } from 'kysely';
import type { Database, NotificationsTable } from '../schema.js';
import { chunks } from '../chunks.js';
import { compiledStatement } from '../compiled-statement.js';

export type NotificationRow = Selectable<NotificationsTable>;
export type NewNotification = Omit<Insertable<NotificationsTable>, 'id'>;

/** Nextcloud's list limit (notifications app `Handler::get`). */
export const LIST_LIMIT = 25;

const NOTIFICATION_COLUMNS = [
  'user_id',
  'app',
  'subject',
  'object_type',
  'object_id',
  'room_id',
  'message_id',
  'subject_params',
  'message',
  'message_params',
  'missed',
  'created_at',
] as const;

/** A notification already there for the same (user, subject, object, message) is refreshed. */
function refreshExisting(oc: OnConflictBuilder<Database, 'notifications'>) {
  return oc.columns(['user_id', 'subject', 'object_type', 'object_id', 'message_id']).doUpdateSet((eb) => ({
    created_at: eb.ref('excluded.created_at'),
    subject_params: eb.ref('excluded.subject_params'),
    message: eb.ref('excluded.message'),
    message_params: eb.ref('excluded.message_params'),
    missed: 0,
  }));
}

/** upsert() of one row (compiled-statement.ts), the same statement as the builder's below. */
const UPSERT_ONE = compiledStatement<unknown, NewNotification>((db, p) =>
  db
    .insertInto('notifications')
    .values(Object.fromEntries(NOTIFICATION_COLUMNS.map((c) => [c, p(c)])) as NewNotification)
    .onConflict(refreshExisting),
);

export class NotificationsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Inserts rows; a row for the same (user, subject, object, message) is refreshed instead (new
   * time, parameters, `missed` back to 0), in the same statement.
   */
  async upsert(rows: NewNotification[]): Promise<void> {
    // One row is what a message in a small conversation writes: compiled once.
    if (rows.length === 1) {
      await UPSERT_ONE(this.db, rows[0]);
      return;
    }
    for (const part of chunks(rows, 200)) {
      await this.db.insertInto('notifications').values(part).onConflict(refreshExisting).execute();
    }
  }

  /** The newest notifications of a user (Nextcloud: newest first, at most 25). */
  listForUser(userId: string, limit = LIST_LIMIT): Promise<NotificationRow[]> {
    return this.db.selectFrom('notifications').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').limit(limit).execute();
  }

  findForUser(userId: string, id: number): Promise<NotificationRow | undefined> {
    return this.db.selectFrom('notifications').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  }

  /** Which of `ids` exist for the user. */
  async existingIds(userId: string, ids: number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('notifications').select('id').where('user_id', '=', userId).where('id', 'in', ids).orderBy('id').execute();
    return rows.map((r) => Number(r.id));
  }

  async deleteIds(userId: string, ids: number[]): Promise<number> {
    let n = 0;
    for (const part of chunks(ids)) {
      const r = await this.db.deleteFrom('notifications').where('user_id', '=', userId).where('id', 'in', part).executeTakeFirst();
      n += Number(r.numDeletedRows);
    }
    return n;
  }

  async deleteForUser(userId: string): Promise<number> {
    const r = await this.db.deleteFrom('notifications').where('user_id', '=', userId).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Every notification of these rooms; with `userIds`, only theirs; with `subjects`/`objectType`/`messageId`, only those. */
  async deleteInRooms(
    roomIds: number[],
    filter: { userIds?: string[]; objectType?: string; subjects?: string[]; upToMessageId?: number; messageId?: number } = {},
  ): Promise<void> {
    if (roomIds.length === 0 || (filter.userIds && filter.userIds.length === 0)) return;
    for (const part of chunks(roomIds)) {
      let q = this.db.deleteFrom('notifications').where('room_id', 'in', part);
      if (filter.userIds) q = q.where('user_id', 'in', filter.userIds);
      if (filter.objectType) q = q.where('object_type', '=', filter.objectType);
      if (filter.subjects) q = q.where('subject', 'in', filter.subjects);
      if (filter.upToMessageId !== undefined) q = q.where('message_id', '<=', filter.upToMessageId);
      if (filter.messageId !== undefined) q = q.where('message_id', '=', filter.messageId);
      await q.execute();
    }
  }

  /** Turns the call notifications of a room into missed-call ones (for some users, or all). */
  async markCallMissed(roomId: number, userIds?: string[]): Promise<void> {
    if (userIds && userIds.length === 0) return;
    let q = this.db.updateTable('notifications').set({ missed: 1 }).where('room_id', '=', roomId).where('object_type', '=', 'call');
    if (userIds) q = q.where('user_id', 'in', userIds);
    await q.execute();
  }
}
