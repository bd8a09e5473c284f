/**
 * Periodic jobs. Each job runs in every process but takes a lease in the database first, so a
 * run happens once however many processes share the database (jobs area, issue 6). The list
 * starts empty; areas register their jobs in `jobs`.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../services/index.js';

export interface JobDef {
  name: string;
  intervalSeconds: number;
  run(services: Services): Promise<void>;
}

export const jobs: JobDef[] = [];

/** Starts timers for every registered job; returns a function that stops them. */
export function startJobs(services: Services, log: FastifyBaseLogger): () => void {
  const timers = jobs.map((job) =>
    setInterval(() => {
      job.run(services).catch((err) => log.error({ err, job: job.name }, 'job failed'));
    }, job.intervalSeconds * 1000),
  );
  timers.forEach((t) => t.unref());
  return () => timers.forEach((t) => clearInterval(t));
}
