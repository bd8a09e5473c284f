/**
 * Start-up shared by `serve`, `migrate` and every command: settings, database, migrations,
 * services, and the admin account rule (ADMIN_USER/ADMIN_PASSWORD, or a generated `admin`
 * on the very first start).
 */
import { openDatabase, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { randomString } from './domain/passwords.js';
import { createServices, type Services } from './services/index.js';
import { ensureSignalingSecrets } from './services/signaling/signaling-secrets.js';
import { loadSettings, type Settings } from './settings.js';
import { commandLogger, type Logger } from './log.js';

/** `log` defaults to the commands' logger (stderr); `serve` passes its stdout logger. */
export async function openServices(settings: Settings = loadSettings(), log: Logger = commandLogger(settings)): Promise<Services> {
  const db: Db = await openDatabase({
    databaseUrl: settings.databaseUrl,
    dataDir: settings.dataDir,
    schema: settings.databaseSchema,
    warn: (message) => log.warn(message),
  });
  try {
    await migrateToLatest(db);
    db.readCache?.enable();
  } catch (e) {
    await db.close();
    throw e;
  }
  const services = createServices(db, settings, log);
  // Talk generates these on first use; Parley on the first start (contract app config rows).
  await ensureSignalingSecrets(services.appConfig);
  return services;
}

/**
 * Closes what `openServices` opened, after the background work that still reads the database
 * (signaling notifications queued by the last requests or the command) has finished; closing
 * first would fail those reads with "driver has already been destroyed".
 */
export async function closeServices(services: Services): Promise<void> {
  await services.signalingNotifier.idle();
  await services.outbox.stop();
  await services.db.close();
}

/**
 * Applies the admin rule; prints a generated password once, to stderr (never logged: the JSON
 * log goes to stdout, so a log collector never stores it).
 */
export async function ensureAdminAccount(services: Services, print: (line: string) => void = console.error): Promise<void> {
  const { adminUser, adminPassword } = services.settings;
  if (adminUser && adminPassword) {
    await services.directory.ensureAdmin(adminUser, adminPassword);
    return;
  }
  if ((await services.directory.userCount()) > 0) return;
  const password = randomString(20);
  await services.directory.ensureAdmin('admin', password);
  print('');
  print('  Parley: first start. Created the admin account:');
  print('    user:     admin');
  print(`    password: ${password}`);
  print('  This password is shown only once. Change it with `parley user:reset-password admin`.');
  print('');
}
