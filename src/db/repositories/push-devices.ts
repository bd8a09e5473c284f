/**
 * SQL for push registrations (migration 0821): devices of the push proxy (one per user and
 * app password, as the notifications app's `notifications_pushhash`) and users' push key pairs.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, PushDevicesTable, PushKeysTable } from '../schema.js';

export type PushDeviceRow = Selectable<PushDevicesTable>;
export type NewPushDevice = Omit<Insertable<PushDevicesTable>, 'id'>;
export type PushKeyRow = Selectable<PushKeysTable>;

export class PushDevicesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Registers the device of (user, app password) in one transaction: another registration of
   * the same push token by this user (an older app password of the same phone) goes, and the
   * row is inserted, or updated only where something differs. 'unchanged' when it was there as
   * given. The device identifier of an existing row stays (the proxy knows it by that).
   */
  async register(row: NewPushDevice): Promise<'created' | 'changed' | 'unchanged'> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('push_devices')
        .where('user_id', '=', row.user_id)
        .where('push_token_hash', '=', row.push_token_hash)
        .where('app_password_id', '<>', row.app_password_id)
        .execute();
      const before = await trx
        .selectFrom('push_devices')
        .select('id')
        .where('user_id', '=', row.user_id)
        .where('app_password_id', '=', row.app_password_id)
        .executeTakeFirst();
      const written = await trx
        .insertInto('push_devices')
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(['user_id', 'app_password_id'])
            .doUpdateSet((eb) => ({
              device_public_key: eb.ref('excluded.device_public_key'),
              device_public_key_hash: eb.ref('excluded.device_public_key_hash'),
              push_token_hash: eb.ref('excluded.push_token_hash'),
              proxy_server: eb.ref('excluded.proxy_server'),
              app_type: eb.ref('excluded.app_type'),
            }))
            .where((eb) =>
              eb.or([
                eb('push_devices.device_public_key_hash', '<>', eb.ref('excluded.device_public_key_hash')),
                eb('push_devices.push_token_hash', '<>', eb.ref('excluded.push_token_hash')),
                eb('push_devices.proxy_server', '<>', eb.ref('excluded.proxy_server')),
                eb('push_devices.app_type', '<>', eb.ref('excluded.app_type')),
              ]),
            ),
        )
        .returning('id')
        .executeTakeFirst();
      if (!written) return 'unchanged';
      return before ? 'changed' : 'created';
    });
  }

  /** Unregisters the device of (user, app password); whether there was one. */
  async remove(userId: string, appPasswordId: number): Promise<boolean> {
    const r = await this.db.deleteFrom('push_devices').where('user_id', '=', userId).where('app_password_id', '=', appPasswordId).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** These devices, while their app password exists (a revoked one's device is never pushed to). */
  forDelivery(ids: number[]): Promise<PushDeviceRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('push_devices')
      .innerJoin('app_passwords', 'app_passwords.id', 'push_devices.app_password_id')
      .selectAll('push_devices')
      .where('push_devices.id', 'in', ids)
      .execute();
  }

  /** Every device of these users whose app password exists. */
  forUsers(userIds: string[]): Promise<PushDeviceRow[]> {
    if (userIds.length === 0) return Promise.resolve([]);
    return this.db
      .selectFrom('push_devices')
      .innerJoin('app_passwords', 'app_passwords.id', 'push_devices.app_password_id')
      .selectAll('push_devices')
      .where('push_devices.user_id', 'in', userIds)
      .orderBy('push_devices.id')
      .execute();
  }

  forUser(userId: string): Promise<PushDeviceRow[]> {
    return this.db.selectFrom('push_devices').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  }

  /** Devices the proxy no longer knows (its `unknown` answer). */
  async deleteByIdentifiers(identifiers: string[]): Promise<number> {
    if (identifiers.length === 0) return 0;
    const r = await this.db.deleteFrom('push_devices').where('device_identifier', 'in', identifiers).executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  /** Devices whose key cannot be encrypted to. */
  async deleteIds(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.deleteFrom('push_devices').where('id', 'in', ids).execute();
  }

  // ---- the users' key pairs ----

  /** Stores the key pair unless the user has one (a concurrent first use keeps the first); the one kept. */
  async keepKey(row: PushKeyRow): Promise<PushKeyRow> {
    await this.db
      .insertInto('push_keys')
      .values(row)
      .onConflict((oc) => oc.column('user_id').doNothing())
      .execute();
    return this.db.selectFrom('push_keys').selectAll().where('user_id', '=', row.user_id).executeTakeFirstOrThrow();
  }

  keys(userIds: string[]): Promise<PushKeyRow[]> {
    if (userIds.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('push_keys').selectAll().where('user_id', 'in', userIds).execute();
  }

  async deleteKey(userId: string): Promise<void> {
    await this.db.deleteFrom('push_keys').where('user_id', '=', userId).execute();
  }
}
