/** SQL for job schedule rows. Claiming is one conditional UPDATE, atomic on both databases. */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, JobHistoryTable, JobRunsTable } from '../schema.js';

export type JobRunRow = JobRunsTable;
export type JobHistoryRow = Selectable<JobHistoryTable>;

/** History rows older than this are pruned when a run is recorded. */
const HISTORY_SECONDS = 7 * 86400;

export class JobRunsRepository {
  /** Rows this instance has made sure exist (one INSERT per job and process, not per tick). */
  private readonly ensured = new Set<string>();

  constructor(private readonly db: Kysely<Database>) {}

  /** Creates the row if missing (due immediately); once per job name for this instance. */
  async ensure(name: string): Promise<void> {
    if (this.ensured.has(name)) return;
    await this.db
      .insertInto('job_runs')
      .values({ name, next_run_at: 0, last_run_at: 0, last_finished_at: 0, last_status: '', last_error: '', last_owner: '', runs: 0 })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    this.ensured.add(name);
  }

  /**
   * Takes the run due at or before `now`: moves next_run_at forward only if it is still due, so
   * exactly one process wins each slot. With `force`, takes it whatever the schedule.
   */
  async claim(name: string, now: number, nextRunAt: number, owner: string, force = false): Promise<boolean> {
    let q = this.db
      .updateTable('job_runs')
      .set((eb) => ({ next_run_at: nextRunAt, last_run_at: now, last_owner: owner, last_status: 'running', runs: eb('runs', '+', 1) }))
      .where('name', '=', name);
    if (!force) q = q.where('next_run_at', '<=', now);
    const res = await q.executeTakeFirst();
    return Number(res.numUpdatedRows) === 1;
  }

  async finish(name: string, now: number, status: 'ok' | 'failed', error = ''): Promise<void> {
    await this.db
      .updateTable('job_runs')
      .set({ last_finished_at: now, last_status: status, last_error: error.slice(0, 2000) })
      .where('name', '=', name)
      .execute();
  }

  all(): Promise<JobRunRow[]> {
    return this.db.selectFrom('job_runs').selectAll().orderBy('name').execute();
  }

  /** Appends a finished run to the history (and drops rows older than a week). */
  async record(row: Insertable<JobHistoryTable>): Promise<void> {
    await this.db
      .insertInto('job_history')
      .values({ ...row, summary: String(row.summary ?? '').slice(0, 500) })
      .execute();
    await this.db
      .deleteFrom('job_history')
      .where('started_at', '<', Number(row.started_at) - HISTORY_SECONDS)
      .execute();
  }

  /** The history of one job (or every job), oldest first. */
  history(name?: string): Promise<JobHistoryRow[]> {
    let q = this.db.selectFrom('job_history').selectAll();
    if (name !== undefined) q = q.where('name', '=', name);
    return q.orderBy('started_at').orderBy('id').execute();
  }
}
