/** Accounts, groups, app passwords, app config, preferences, brute force, cache state. */
import type { ParleyMigration } from './helpers.js';
import { withSerialId } from './helpers.js';

export const foundation: ParleyMigration = {
  name: '0001-foundation',
  async up({ db, dialect }) {
    await db.schema
      .createTable('users')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('display_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('email', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('password_hash', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();

    await db.schema
      .createTable('groups')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('display_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .execute();

    await db.schema
      .createTable('group_members')
      .addColumn('group_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
      .addPrimaryKeyConstraint('group_members_pk', ['group_id', 'user_id'])
      .execute();
    await db.schema.createIndex('group_members_user').on('group_members').column('user_id').execute();

    await withSerialId(db.schema.createTable('app_passwords'), dialect)
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
      .addColumn('name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createIndex('app_passwords_user').on('app_passwords').column('user_id').execute();

    await db.schema
      .createTable('app_config')
      .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('user_preferences')
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('key', 'varchar(255)', (c) => c.notNull())
      .addColumn('value', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('user_preferences_pk', ['user_id', 'key'])
      .execute();

    await withSerialId(db.schema.createTable('brute_force_attempts'), dialect)
      .addColumn('subnet', 'varchar(64)', (c) => c.notNull())
      .addColumn('action', 'varchar(64)', (c) => c.notNull())
      .addColumn('occurred_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('brute_force_lookup').on('brute_force_attempts').columns(['subnet', 'action', 'occurred_at']).execute();

    await db.schema
      .createTable('cache_state')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('generation', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.insertInto('cache_state').values({ id: 1, generation: 1 }).execute();
  },
};
