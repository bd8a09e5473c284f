/**
 * A small teams (circles) directory: enough for `source=circles` and `circles-support`
 * (docs/api.md "Participants and sessions"). Managed with `parley team:*`.
 */
import type { ParleyMigration } from './helpers.js';

export const teams: ParleyMigration = {
  name: '0202-teams',
  async up({ db }) {
    await db.schema
      .createTable('teams')
      .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('display_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
      .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable('team_members')
      .addColumn('team_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
      .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'user_id'])
      .execute();
    await db.schema.createIndex('team_members_user').on('team_members').column('user_id').execute();
  },
};
