/**
 * `parley serve --workers N` (or WORKERS=N): N server processes on one host sharing one port
 * (node:cluster), so a multi-core host is used. Nothing here is new state: every process already
 * shares the database (SQLite in WAL mode, or PostgreSQL) and all state lives there
 * (docs/operators.md "Several processes"). The primary process only starts and supervises:
 * it applies migrations and the admin rule once, before any worker starts, so workers never race
 * on them; it restarts a worker that dies after it served, and stops everything when one dies
 * before it listened (a bad setting or a taken port would otherwise restart forever).
 */
import cluster, { type Worker } from 'node:cluster';
import { closeServices, ensureAdminAccount, openServices } from '../boot.js';
import { createLogger } from '../log.js';
import type { Settings } from '../settings.js';

/** Seconds a worker that died after listening waits before it is replaced. */
const RESTART_DELAY_MS = 1000;

export async function superviseWorkers(settings: Settings, count: number): Promise<void> {
  const log = createLogger(settings);
  const services = await openServices(settings, log);
  try {
    await ensureAdminAccount(services);
  } finally {
    await closeServices(services);
  }

  let stopping = false;
  let exitCode = 0;
  const listened = new WeakSet<Worker>();
  const fork = () => {
    const worker = cluster.fork();
    worker.once('listening', () => listened.add(worker));
  };
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(exitCode);
      return;
    }
    if (!listened.has(worker)) {
      log.error({ pid: worker.process.pid, code, signal }, 'a worker stopped before it listened; stopping');
      process.stderr.write(`Parley: a worker stopped before it listened (exit ${code ?? signal}); stopping.\n`);
      stop(1);
      return;
    }
    log.warn({ pid: worker.process.pid, code, signal }, 'a worker stopped; starting another');
    setTimeout(() => stopping || fork(), RESTART_DELAY_MS);
  });
  // Stopping: every worker gets SIGTERM; the exit handler above ends the supervisor after the last.
  const stop = (code = 0) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    const workers = Object.values(cluster.workers ?? {});
    if (workers.length === 0) process.exit(exitCode);
    for (const w of workers) w?.process.kill('SIGTERM');
  };
  process.once('SIGINT', () => stop());
  process.once('SIGTERM', () => stop());
  for (let i = 0; i < count; i++) fork();
  log.info({ workers: count }, 'supervising workers');
  process.stderr.write(`Parley: starting ${count} worker processes\n`);
}
