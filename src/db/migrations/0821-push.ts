/**
 * Push notifications (docs/talk-apps.md "Push notifications"), in the notifications app's
 * shapes: each user's RSA key pair (`push_keys`, generated once), the devices registered for
 * the push proxy (`push_devices`, one per user and app password: nextcloud/notifications'
 * `notifications_pushhash`), the browsers' Web Push subscriptions (`webpush_subscriptions`) and
 * the server's VAPID key pair (`push_vapid`).
 *
 * Triggers keep two rules in the database, whoever writes:
 * - a notification written (inserted, refreshed with a new time, or turned into a missed call)
 *   owes one push to each of its user's devices and activated subscriptions, and a deleted one a
 *   silent delete: outbox rows in the same transaction as the notification. The dedupe key
 *   (notification, its time, missed, device) makes that at most once per notification and device.
 * - a registration dies with its app password (revoked, rotated away, or its user deleted).
 */
import { sql } from 'kysely';
import { withSerialId, type ParleyMigration } from './helpers.js';

/** One outbox row per device of the notification's user (`row` is NEW or OLD). */
function enqueue(dialect: 'sqlite' | 'postgres', row: 'NEW' | 'OLD', kind: 'notify' | 'delete'): string {
  const now = dialect === 'postgres' ? `(extract(epoch from now()))::bigint` : `CAST(strftime('%s','now') AS INTEGER)`;
  const text = (v: string) => (dialect === 'postgres' ? `(${v})::text` : v);
  const key = (device: string, prefix: string) =>
    kind === 'notify'
      ? `'${prefix}:' || ${text(`${row}.id`)} || ':' || ${text(`${row}.created_at`)} || ':' || ${text(`${row}.missed`)} || ':' || ${text(device)}`
      : 'NULL';
  const payload = (device: string) => `'{"kind":"${kind}","device":' || ${text(device)} || ',"nid":' || ${text(`${row}.id`)} || '}'`;
  const ignore = dialect === 'postgres' ? ['INSERT INTO', 'ON CONFLICT DO NOTHING'] : ['INSERT OR IGNORE INTO', ''];
  return `
    ${ignore[0]} outbox (topic, destination, dedupe_key, payload, due_at, created_at)
      SELECT 'push', d.proxy_server, ${key('d.id', 'p')}, ${payload('d.id')}, 0, ${now}
      FROM push_devices d WHERE d.user_id = ${row}.user_id ${ignore[1]};
    ${ignore[0]} outbox (topic, destination, dedupe_key, payload, due_at, created_at)
      SELECT 'webpush', s.endpoint, ${key('s.id', 'w')}, ${payload('s.id')}, 0, ${now}
      FROM webpush_subscriptions s WHERE s.user_id = ${row}.user_id AND s.activated = 1 ${ignore[1]};`;
}

export const push: ParleyMigration = {
  name: '0821-push',
  async up({ db, dialect }) {
    await db.schema
      .createTable('push_keys')
      .addColumn('user_id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('public_key', 'text', (c) => c.notNull())
      .addColumn('private_key', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await withSerialId(db.schema.createTable('push_devices'), dialect)
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('app_password_id', 'bigint', (c) => c.notNull())
      .addColumn('device_identifier', 'varchar(128)', (c) => c.notNull())
      .addColumn('device_public_key', 'text', (c) => c.notNull())
      .addColumn('device_public_key_hash', 'varchar(128)', (c) => c.notNull())
      .addColumn('push_token_hash', 'varchar(128)', (c) => c.notNull())
      .addColumn('proxy_server', 'varchar(256)', (c) => c.notNull())
      .addColumn('app_type', 'varchar(32)', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('push_devices_token').unique().on('push_devices').columns(['user_id', 'app_password_id']).execute();
    await db.schema.createIndex('push_devices_app_password').on('push_devices').column('app_password_id').execute();
    await db.schema.createIndex('push_devices_identifier').on('push_devices').column('device_identifier').execute();
    await withSerialId(db.schema.createTable('webpush_subscriptions'), dialect)
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('app_password_id', 'bigint', (c) => c.notNull())
      .addColumn('endpoint', 'varchar(1000)', (c) => c.notNull())
      .addColumn('p256dh', 'varchar(128)', (c) => c.notNull())
      .addColumn('auth', 'varchar(64)', (c) => c.notNull())
      .addColumn('app_types', 'varchar(256)', (c) => c.notNull())
      .addColumn('activation_token', 'varchar(64)', (c) => c.notNull())
      .addColumn('activated', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('webpush_subscriptions_token').unique().on('webpush_subscriptions').columns(['user_id', 'app_password_id']).execute();
    await db.schema.createIndex('webpush_subscriptions_app_password').on('webpush_subscriptions').column('app_password_id').execute();
    await db.schema
      .createTable('push_vapid')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('public_key', 'varchar(128)', (c) => c.notNull())
      .addColumn('private_key', 'varchar(128)', (c) => c.notNull())
      .execute();

    const forget = `DELETE FROM push_devices WHERE app_password_id = OLD.id; DELETE FROM webpush_subscriptions WHERE app_password_id = OLD.id;`;
    // A refresh that changes neither the time nor `missed` (nothing new to tell) owes nothing.
    const fresh = 'NEW.created_at <> OLD.created_at OR NEW.missed <> OLD.missed';
    if (dialect === 'postgres') {
      await sql
        .raw(
          `CREATE FUNCTION parley_push_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF TG_OP = 'DELETE' THEN ${enqueue('postgres', 'OLD', 'delete')} RETURN NULL; END IF;
            ${enqueue('postgres', 'NEW', 'notify')}
            RETURN NULL;
          END $$`,
        )
        .execute(db);
      await sql.raw(`CREATE TRIGGER parley_push AFTER INSERT OR DELETE ON notifications FOR EACH ROW EXECUTE FUNCTION parley_push_enqueue()`).execute(db);
      await sql
        .raw(`CREATE TRIGGER parley_push_refresh AFTER UPDATE ON notifications FOR EACH ROW WHEN (${fresh}) EXECUTE FUNCTION parley_push_enqueue()`)
        .execute(db);
      await sql.raw(`CREATE FUNCTION parley_push_forget() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${forget} RETURN NULL; END $$`).execute(db);
      await sql.raw(`CREATE TRIGGER parley_push_forget AFTER DELETE ON app_passwords FOR EACH ROW EXECUTE FUNCTION parley_push_forget()`).execute(db);
      return;
    }
    await sql.raw(`CREATE TRIGGER notifications_push_insert AFTER INSERT ON notifications BEGIN ${enqueue('sqlite', 'NEW', 'notify')} END`).execute(db);
    await sql
      .raw(`CREATE TRIGGER notifications_push_update AFTER UPDATE ON notifications WHEN ${fresh} BEGIN ${enqueue('sqlite', 'NEW', 'notify')} END`)
      .execute(db);
    await sql.raw(`CREATE TRIGGER notifications_push_delete AFTER DELETE ON notifications BEGIN ${enqueue('sqlite', 'OLD', 'delete')} END`).execute(db);
    await sql.raw(`CREATE TRIGGER app_passwords_push_forget AFTER DELETE ON app_passwords BEGIN ${forget} END`).execute(db);
  },
};
