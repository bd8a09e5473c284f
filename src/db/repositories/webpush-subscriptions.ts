/**
 * SQL for Web Push subscriptions (migration 0821): one per user and app password, as the
 * notifications app's `notifications_webpush`, and the server's VAPID key pair.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, PushVapidTable, WebpushSubscriptionsTable } from '../schema.js';

export type WebpushSubscriptionRow = Selectable<WebpushSubscriptionsTable>;
export type NewWebpushSubscription = Omit<Insertable<WebpushSubscriptionsTable>, 'id'>;
export type VapidRow = Selectable<PushVapidTable>;

export class WebpushSubscriptionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Registers a subscription. Already activated with the same endpoint and keys: only the app
   * types change ('updated'). Otherwise the row of (user, app password) is replaced by an
   * inactive one awaiting `activation_token` ('created'). One transaction; the update is
   * conditional on the row being as described, so two registrations cannot both update.
   */
  async register(row: NewWebpushSubscription): Promise<'created' | 'updated'> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('webpush_subscriptions')
        .set({ app_types: row.app_types })
        .where('user_id', '=', row.user_id)
        .where('app_password_id', '=', row.app_password_id)
        .where('endpoint', '=', row.endpoint)
        .where('p256dh', '=', row.p256dh)
        .where('auth', '=', row.auth)
        .where('activated', '=', 1)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) > 0) return 'updated';
      await trx.deleteFrom('webpush_subscriptions').where('user_id', '=', row.user_id).where('app_password_id', '=', row.app_password_id).execute();
      const { id } = await trx.insertInto('webpush_subscriptions').values(row).returning('id').executeTakeFirstOrThrow();
      // The activation token goes out through the subscription itself (outbox, after commit).
      await trx
        .insertInto('outbox')
        .values({ topic: 'webpush', destination: row.endpoint, payload: JSON.stringify({ kind: 'activate', device: Number(id) }), created_at: row.created_at })
        .execute();
      return 'created';
    });
  }

  find(userId: string, appPasswordId: number): Promise<WebpushSubscriptionRow | undefined> {
    return this.db
      .selectFrom('webpush_subscriptions')
      .selectAll()
      .where('user_id', '=', userId)
      .where('app_password_id', '=', appPasswordId)
      .executeTakeFirst();
  }

  /** Activates the subscription if `token` is its activation token; whether it did. */
  async activate(userId: string, appPasswordId: number, token: string): Promise<boolean> {
    const r = await this.db
      .updateTable('webpush_subscriptions')
      .set({ activated: 1 })
      .where('user_id', '=', userId)
      .where('app_password_id', '=', appPasswordId)
      .where('activation_token', '=', token)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async remove(userId: string, appPasswordId: number): Promise<boolean> {
    const r = await this.db.deleteFrom('webpush_subscriptions').where('user_id', '=', userId).where('app_password_id', '=', appPasswordId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** These subscriptions, while their app password exists. */
  forDelivery(ids: number[]): Promise<WebpushSubscriptionRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('webpush_subscriptions')
      .innerJoin('app_passwords', 'app_passwords.id', 'webpush_subscriptions.app_password_id')
      .selectAll('webpush_subscriptions')
      .where('webpush_subscriptions.id', 'in', ids)
      .execute();
  }

  /** The push service answered that the subscription expired. */
  async deleteIds(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.deleteFrom('webpush_subscriptions').where('id', 'in', ids).execute();
  }

  /** Stores the VAPID key pair unless there is one; the one kept. */
  async keepVapid(row: VapidRow): Promise<VapidRow> {
    await this.db
      .insertInto('push_vapid')
      .values(row)
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
    return this.db.selectFrom('push_vapid').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
  }

  vapid(): Promise<VapidRow | undefined> {
    return this.db.selectFrom('push_vapid').selectAll().where('id', '=', 1).executeTakeFirst();
  }
}
