/**
 * One row per job run (who ran it, when, how it ended): lets operators and the two-process test
 * see that each scheduled slot ran once. Pruned by the runner after a week.
 */
import type { ParleyMigration } from './helpers.js';
import { withSerialId } from './helpers.js';

export const jobHistory: ParleyMigration = {
  name: '0402-job-history',
  async up({ db, dialect }) {
    await withSerialId(db.schema.createTable('job_history'), dialect)
      .addColumn('name', 'varchar(64)', (c) => c.notNull())
      .addColumn('started_at', 'bigint', (c) => c.notNull())
      .addColumn('finished_at', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('owner', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo(''))
      .addColumn('summary', 'varchar(500)', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema.createIndex('job_history_name_started').on('job_history').columns(['name', 'started_at']).execute();
  },
};
