/**
 * Periodic jobs. Every process runs the same timers, but before a run a process must claim the
 * job's schedule row in the database (a conditional UPDATE of next_run_at), so each run happens
 * exactly once however many processes share the database. Steps must be idempotent anyway: a
 * process that dies mid-run simply leaves the work for the next slot.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { JobRunRow } from '../db/repositories/job-runs.js';
import type { Services } from '../services/index.js';
import { nowSeconds } from '../domain/time.js';

export interface JobDef {
  name: string;
  /** Seconds between runs. */
  intervalSeconds: number;
  description: string;
  /**
   * One idempotent step; returns a short summary of counts (e.g. "3 lobbies lifted"). A summary
   * whose counts are all 0 means the run did nothing: it is logged at debug, not info (idleSummary).
   */
  run(services: Services, now: number): Promise<string | void>;
}

/** Identifies this process in job_runs.last_owner. */
const PROCESS_ID = `${process.pid}-${randomBytes(4).toString('hex')}`;

export interface RunOutcome {
  ran: boolean;
  status?: 'ok' | 'failed';
  summary?: string;
  error?: string;
}

/** A job's interval in this process: JOB_INTERVAL_SCALE applied, never below one second. */
export function scaledInterval(job: JobDef, scale: number): number {
  return Math.max(1, Math.round(job.intervalSeconds * scale));
}

/** Claims and runs one job if it is due (or whatever the schedule with `force`). */
export async function runJobIfDue(services: Services, job: JobDef, force = false): Promise<RunOutcome> {
  const repo = services.repos.jobRuns;
  await repo.ensure(job.name);
  const now = nowSeconds();
  if (!(await repo.claim(job.name, now, now + scaledInterval(job, services.settings.jobIntervalScale), PROCESS_ID, force))) return { ran: false };
  const started = Date.now();
  let outcome: RunOutcome;
  try {
    outcome = { ran: true, status: 'ok', summary: (await job.run(services, now)) ?? '' };
  } catch (err) {
    outcome = { ran: true, status: 'failed', error: (err as Error)?.message ?? String(err) };
  }
  const status = outcome.status!;
  const finishedAt = nowSeconds();
  await repo.finish(job.name, finishedAt, status, outcome.error);
  await repo.record({ name: job.name, started_at: now, finished_at: finishedAt, owner: PROCESS_ID, status, summary: outcome.summary ?? outcome.error ?? '' });
  services.metrics.recordJobRun(job.name, status, Date.now() - started);
  return outcome;
}

/**
 * True when a run's summary says it changed nothing (every count in it is 0): an operator's
 * info log should show what jobs did, not a dozen idle lines a minute.
 */
export function idleSummary(summary: string): boolean {
  const counts = summary.match(/\d+/g) ?? [];
  return counts.every((n) => Number(n) === 0);
}

export async function jobStates(services: Services, jobs: readonly JobDef[]): Promise<Array<{ job: JobDef; row?: JobRunRow }>> {
  const rows = await services.repos.jobRuns.all();
  return jobs.map((job) => ({ job, row: rows.find((r) => r.name === job.name) }));
}

/**
 * Starts the scheduler over `jobs` (jobs/index.ts): every `tickMs` each due job is tried (the
 * database decides who runs it). Returns a function that stops it.
 */
export function startJobs(services: Services, jobs: readonly JobDef[], log: FastifyBaseLogger, tickMs = 1000): () => Promise<void> {
  let current: Promise<void> | undefined;
  let stopped = false;
  const tick = async () => {
    for (const job of jobs) {
      if (stopped) return;
      const out = await runJobIfDue(services, job);
      if (out.status === 'failed') log.error({ job: job.name, error: out.error }, 'job failed');
      else if (out.ran && out.summary) log[idleSummary(out.summary) ? 'debug' : 'info']({ job: job.name, summary: out.summary }, 'job ran');
    }
  };
  const timer = setInterval(() => {
    if (current || stopped) return;
    current = tick()
      .catch((err) => log.error({ err }, 'job scheduler error'))
      .finally(() => {
        current = undefined;
      });
  }, tickMs);
  timer.unref();
  // Stopping waits for a run in progress, so a shutdown never leaves a claimed run unrecorded.
  return async () => {
    stopped = true;
    clearInterval(timer);
    await current;
  };
}
