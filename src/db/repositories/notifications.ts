/** SQL for notifications (table `notifications`). Writes are batched: one statement per event, whatever the number of users. */
import { sql, type Insertable, type Kysely, type OnConflictBuilder, type Selectable } from 'kysely';
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

/**
 * Read back from every write: whether the row's user has a push device or an activated Web Push
 * subscription, i.e. whether the write owed pushes (migration 0821's triggers wrote them to the
 * outbox) and the outbox worker should be woken. In the write's own statement, so a user
 * without devices costs no statement more.
 */
const OWES_PUSH = sql<number | boolean>`(exists (select 1 from push_devices d where d.user_id = notifications.user_id)
  or exists (select 1 from webpush_subscriptions s where s.user_id = notifications.user_id and s.activated = 1))`.as('owes_push');

/** Whether any of the written rows owed pushes. */
const owed = (rows: Array<{ owes_push: number | boolean }>): boolean => rows.some((r) => Boolean(r.owes_push));

/** upsert() of one row (compiled-statement.ts), the same statement as the builder's below. */
const UPSERT_ONE = compiledStatement<{ owes_push: number | boolean }, NewNotification>((db, p) =>
  db
    .insertInto('notifications')
    .values(Object.fromEntries(NOTIFICATION_COLUMNS.map((c) => [c, p(c)])) as NewNotification)
    .onConflict(refreshExisting)
    .returning(OWES_PUSH),
);

export class NotificationsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Inserts rows; a row for the same (user, subject, object, message) is refreshed instead (new
   * time, parameters, `missed` back to 0), in the same statement. Whether pushes are owed.
   */
  async upsert(rows: NewNotification[]): Promise<boolean> {
    // One row is what a message in a small conversation writes: compiled once.
    if (rows.length === 1) return owed(await UPSERT_ONE(this.db, rows[0]));
    let owes = false;
    for (const part of chunks(rows, 200)) {
      if (owed(await this.db.insertInto('notifications').values(part).onConflict(refreshExisting).returning(OWES_PUSH).execute())) owes = true;
    }
    return owes;
  }

  /** The newest notifications of a user (Nextcloud: newest first, at most 25). */
  listForUser(userId: string, limit = LIST_LIMIT): Promise<NotificationRow[]> {
    return this.db.selectFrom('notifications').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').limit(limit).execute();
  }

  findForUser(userId: string, id: number): Promise<NotificationRow | undefined> {
    return this.db.selectFrom('notifications').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  }

  /**
   * For each user, those of their `ids` that exist and are theirs, in one statement per 5,000
   * ids whatever the number of users (a push batch asks for hundreds at once).
   */
  async findIdsOfUsers(wants: ReadonlyArray<{ userId: string; ids: readonly number[] }>): Promise<NotificationRow[]> {
    const wanted = new Set(wants.flatMap((w) => w.ids.map((id) => `${w.userId} ${id}`)));
    const ids = [...new Set(wants.flatMap((w) => w.ids))];
    const out: NotificationRow[] = [];
    for (const part of chunks(ids)) out.push(...(await this.db.selectFrom('notifications').selectAll().where('id', 'in', part).orderBy('id').execute()));
    return out.filter((r) => wanted.has(`${r.user_id} ${Number(r.id)}`));
  }

  /**
   * Deletes all of the user's notifications and, in the same transaction, owes each of their
   * push devices and Web Push subscriptions one `delete-all` (the per-row deletes the triggers
   * write are merged into it).
   */
  async deleteAllForUser(userId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const owe = (table: 'push_devices' | 'webpush_subscriptions', topic: string, destination: 'proxy_server' | 'endpoint') =>
        trx
          .insertInto('outbox')
          .columns(['topic', 'destination', 'dedupe_key', 'payload', 'due_at', 'created_at'])
          .expression(
            trx
              .selectFrom(table)
              .select((eb) => [
                sql.lit(topic).as('topic'),
                eb.ref(destination).as('destination'),
                sql<null>`null`.as('dedupe_key'),
                sql<string>`${'{"kind":"delete-all","device":'} || cast(${eb.ref('id')} as varchar(20)) || ${'}'}`.as('payload'),
                sql.lit(0).as('due_at'),
                sql<number>`${Math.floor(Date.now() / 1000)}`.as('created_at'),
              ])
              .where('user_id', '=', userId),
          )
          .execute();
      await owe('push_devices', 'push', 'proxy_server');
      await owe('webpush_subscriptions', 'webpush', 'endpoint');
      await trx.deleteFrom('notifications').where('user_id', '=', userId).execute();
    });
  }

  /** Which of `ids` exist for the user. */
  async existingIds(userId: string, ids: number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.selectFrom('notifications').select('id').where('user_id', '=', userId).where('id', 'in', ids).orderBy('id').execute();
    return rows.map((r) => Number(r.id));
  }

  /** Deletes these notifications of the user (or of any of these users); whether pushes (silent deletes) are owed. */
  async deleteIds(userIds: string | readonly string[], ids: number[]): Promise<boolean> {
    const users = typeof userIds === 'string' ? [userIds] : [...new Set(userIds)];
    let owes = false;
    for (const part of chunks(ids)) {
      if (owed(await this.db.deleteFrom('notifications').where('user_id', 'in', users).where('id', 'in', part).returning(OWES_PUSH).execute())) owes = true;
    }
    return owes;
  }

  /** Deletes the user's notifications about one object (a federation invitation); whether pushes are owed. */
  async deleteObject(userId: string, objectType: string, objectId: string): Promise<boolean> {
    return owed(
      await this.db
        .deleteFrom('notifications')
        .where('user_id', '=', userId)
        .where('object_type', '=', objectType)
        .where('object_id', '=', objectId)
        .returning(OWES_PUSH)
        .execute(),
    );
  }

  /** Deletes all of the user's notifications; whether pushes (silent deletes) are owed. */
  async deleteForUser(userId: string): Promise<boolean> {
    return owed(await this.db.deleteFrom('notifications').where('user_id', '=', userId).returning(OWES_PUSH).execute());
  }

  /**
   * Every notification of these rooms; with `userIds`, only theirs; with `subjects`/`objectType`/`messageId`,
   * only those. Whether pushes (silent deletes) are owed.
   */
  async deleteInRooms(
    roomIds: number[],
    filter: { userIds?: string[]; objectType?: string; subjects?: string[]; upToMessageId?: number; messageId?: number } = {},
  ): Promise<boolean> {
    if (roomIds.length === 0 || (filter.userIds && filter.userIds.length === 0)) return false;
    let owes = false;
    for (const part of chunks(roomIds)) {
      let q = this.db.deleteFrom('notifications').where('room_id', 'in', part);
      if (filter.userIds) q = q.where('user_id', 'in', filter.userIds);
      if (filter.objectType) q = q.where('object_type', '=', filter.objectType);
      if (filter.subjects) q = q.where('subject', 'in', filter.subjects);
      if (filter.upToMessageId !== undefined) q = q.where('message_id', '<=', filter.upToMessageId);
      if (filter.messageId !== undefined) q = q.where('message_id', '=', filter.messageId);
      if (owed(await q.returning(OWES_PUSH).execute())) owes = true;
    }
    return owes;
  }

  /** Deletes notifications about messages that no longer exist (expired); whether pushes are owed. */
  async deleteAboutGoneMessages(): Promise<boolean> {
    const rows = await this.db
      .deleteFrom('notifications')
      .where('object_type', 'in', ['chat', 'reminder'])
      .where('message_id', '>', 0)
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('chat_messages').select('chat_messages.id').whereRef('chat_messages.id', '=', 'notifications.message_id'))),
      )
      .returning(OWES_PUSH)
      .execute();
    return owed(rows);
  }

  /** Turns the call notifications of a room into missed-call ones (for some users, or all); whether pushes are owed. */
  async markCallMissed(roomId: number, userIds?: string[]): Promise<boolean> {
    if (userIds && userIds.length === 0) return false;
    let q = this.db.updateTable('notifications').set({ missed: 1 }).where('room_id', '=', roomId).where('object_type', '=', 'call');
    if (userIds) q = q.where('user_id', 'in', userIds);
    return owed(await q.returning(OWES_PUSH).execute());
  }
}
