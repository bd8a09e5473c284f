/** Job schedule rows: the lease that makes each periodic run happen once across processes. */
import type { ParleyMigration } from './helpers.js';

export const jobs: ParleyMigration = {
  name: '0400-jobs',
  async up({ db }) {
    await db.schema
      .createTable('job_runs')
      .addColumn('name', 'varchar(64)', (c) => c.primaryKey())
      .addColumn('next_run_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_run_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_finished_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_status', 'varchar(16)', (c) => c.notNull().defaultTo(''))
      .addColumn('last_error', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('last_owner', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .addColumn('runs', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  },
};
