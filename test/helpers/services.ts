/**
 * The medium test size: services over a real database (SQLite, and PostgreSQL in a schema of its
 * own when PARLEY_TEST_PG is set), without HTTP. For rules with many cases: a table of cases runs
 * in milliseconds here, where the same table over HTTP costs a request (and a password check)
 * per case. The HTTP suites still prove the routes; these prove the rule (docs/testing.md).
 */
import { after, before } from 'node:test';
import fs from 'node:fs';
import { closeServices, ensureAdminAccount, openServices } from '../../src/boot.js';
import { dropSchema } from '../../src/db/database.js';
import type { UserRow } from '../../src/db/repositories/users.js';
import { ApiError } from '../../src/domain/errors.js';
import type { Services } from '../../src/services/index.js';
import { RequestContext } from '../../src/services/platform/request-context.js';
import { createLogger } from '../../src/log.js';
import { loadSettings } from '../../src/settings.js';
import { freshEnv, passwordOf, type DialectName } from './parley.js';

export interface ServiceFixture {
  /** The services, once the suite's `before` ran. */
  s: () => Services;
  /** A request context of `userId` (as the HTTP layer builds it after authentication). */
  ctx: (userId: string) => Promise<RequestContext>;
}

/** Opens services on a fresh database for the suite, with `users` created; closes and drops it after. */
export function useServices(dialect: DialectName, users: string[] = []): ServiceFixture {
  const env = freshEnv(dialect);
  let services: Services | undefined;
  const rows = new Map<string, UserRow>();
  before(async () => {
    const settings = loadSettings(env);
    services = await openServices(settings, createLogger(settings));
    await ensureAdminAccount(services, () => undefined);
    for (const id of users) rows.set(id, await services.directory.createUser({ id, password: passwordOf(id), displayName: id[0].toUpperCase() + id.slice(1) }));
  });
  after(async () => {
    if (services) await closeServices(services);
    if (env.DATABASE_SCHEMA && env.DATABASE_URL) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
    fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
  });
  return {
    s: () => services!,
    ctx: async (userId) => {
      const user = rows.get(userId) ?? (await services!.directory.getUser(userId));
      return new RequestContext(services!.directory, services!.appConfig, user, '127.0.0.1');
    },
  };
}

/** What a service call answered: 'ok' with its value, or the ApiError's status and `data.error`. */
export async function outcome<T>(fn: () => Promise<T>): Promise<{ ok: T } | { status: number; error?: string }> {
  try {
    return { ok: await fn() };
  } catch (e) {
    if (e instanceof ApiError) return { status: e.status, error: (e.data as { error?: string } | null)?.error };
    throw e;
  }
}
