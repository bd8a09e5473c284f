/** `parley serve`: start the HTTP server (also what `parley` without a command does). */
import cluster from 'node:cluster';
import type { Command } from 'commander';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services/index.js';
import { closeServices, ensureAdminAccount, openServices } from '../boot.js';
import { buildServer } from '../http/server.js';
import { jobs, startJobs } from '../jobs/index.js';
import { createLogger } from '../log.js';
import { loadSettings } from '../settings.js';
import { superviseWorkers } from './workers.js';

export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('start the server (also what `parley` without a command does)')
    .option('--workers <n>', 'server processes sharing the port (default: WORKERS, or 1)')
    .action((opts: { workers?: string }) => serve(undefined, opts.workers));
}

/**
 * Starts the server. `extend` adds routes before it listens; only the bench harness passes one
 * (bench/lib/serve-with-baseline.mjs: its baseline route is not part of the product).
 */
export async function serve(extend?: (app: FastifyInstance, services: Services) => void | Promise<void>, workersOption?: string): Promise<void> {
  const settings = loadSettings(workersOption === undefined ? process.env : { ...process.env, WORKERS: workersOption });
  if (cluster.isPrimary && settings.workers > 1) return superviseWorkers(settings, settings.workers);
  // One logger for requests and services, on stdout (the JSON log a collector reads).
  const services = await openServices(settings, createLogger(settings));
  // A worker's primary applied the admin rule before it started (workers.ts).
  if (cluster.isPrimary) await ensureAdminAccount(services);
  const app = await buildServer(services);
  await extend?.(app, services);
  const stopJobs = services.settings.jobs ? startJobs(services, jobs, app.log) : async () => undefined;
  const shutdown = async () => {
    await stopJobs();
    await app.close();
    await closeServices(services);
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
  // stdout is the JSON log a collector reads, so the listening line is one JSON record (Fastify's
  // own listen() would log one line per interface); the line for a person goes to stderr.
  await app.ready();
  await new Promise<void>((resolve, reject) => {
    app.server.once('error', reject);
    app.server.listen({ port: services.settings.port, host: services.settings.host, backlog: services.settings.listenBacklog }, () => {
      app.server.off('error', reject);
      resolve();
    });
  });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : services.settings.port;
  const url = `http://${services.settings.host}:${port}`;
  app.log.info({ url, database: services.db.dialect }, 'listening');
  process.stderr.write(`Parley listening on ${url} (${services.db.dialect})\n`);
}
