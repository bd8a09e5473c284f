/** `parley serve`: start the HTTP server (also what `parley` without a command does). */
import type { Command } from 'commander';
import { closeServices, ensureAdminAccount, openServices } from '../boot.js';
import { buildServer } from '../http/server.js';
import { jobs, startJobs } from '../jobs/index.js';
import { createLogger } from '../log.js';
import { loadSettings } from '../settings.js';

export function serveCommand(program: Command): void {
  program.command('serve').description('start the server (also what `parley` without a command does)').action(serve);
}

export async function serve(): Promise<void> {
  const settings = loadSettings();
  // One logger for requests and services, on stdout (the JSON log a collector reads).
  const services = await openServices(settings, createLogger(settings));
  await ensureAdminAccount(services);
  const app = await buildServer(services);
  const stopJobs = services.settings.jobs ? startJobs(services, jobs, app.log) : async () => undefined;
  const shutdown = async () => {
    await stopJobs();
    await app.close();
    await closeServices(services);
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
  await app.listen({ port: services.settings.port, host: services.settings.host, backlog: services.settings.listenBacklog });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : services.settings.port;
  console.log(`Parley listening on http://${services.settings.host}:${port} (${services.db.dialect})`);
}
