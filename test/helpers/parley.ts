/**
 * Test harness: a real Parley (real Fastify, real HTTP on 127.0.0.1, real database) per test
 * suite. SQLite in a fresh temp directory by default; with PARLEY_TEST_PG set, suites also run
 * on PostgreSQL, each in a schema of its own that is dropped afterwards.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { closeServices, openServices, ensureAdminAccount } from '../../src/boot.js';
import { registerServer } from './servers-by-schema.js';
import { dropSchema } from '../../src/db/database.js';
import { buildServer } from '../../src/http/server.js';
import type { Services } from '../../src/services/index.js';
import { loadSettings } from '../../src/settings.js';
import { createLogger } from '../../src/log.js';

export type DialectName = 'sqlite' | 'postgres';

/** The dialects to run on: SQLite always, PostgreSQL when PARLEY_TEST_PG is set. */
export function dialects(): DialectName[] {
  return process.env.PARLEY_TEST_PG ? ['sqlite', 'postgres'] : ['sqlite'];
}

export const ADMIN = { user: 'admin', password: 'admin-secret-password' };

export interface Parley {
  url: string;
  services: Services;
  app: FastifyInstance;
  dialect: DialectName;
  env: Record<string, string>;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  logger?: boolean;
  /** Log to this stream (turns logging on; set LOG_LEVEL in env, tests default to silent). */
  logStream?: NodeJS.WritableStream;
  /** Listen on this port instead of a random one (when BASE_URL must name the real address). */
  port?: number;
}

/** Environment for a fresh database of the given dialect (also used to spawn processes). */
export function freshEnv(dialect: DialectName, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    ADMIN_USER: ADMIN.user,
    ADMIN_PASSWORD: ADMIN.password,
    LOG_LEVEL: 'silent',
    BRUTE_FORCE_DELAY_MS: '1',
    JOBS: 'false',
    // Shedding answers 503 when the event loop is late or requests queue for a PostgreSQL
    // connection; the suites seed thousands of rows in the test's own process, fire bursts of
    // concurrent requests (races) and run on a shared 2-core machine, so it stays off unless a
    // test (the load-shedding suite) turns it on by passing these.
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT: '0',
    OVERLOAD_MAX_HEAP_PERCENT: '0',
    OVERLOAD_MAX_DB_WAITING: '0',
    OVERLOAD_MAX_DB_WAIT_MS: '0',
    // Every conversation record GET /room reuses is checked against a fresh rendering, so each
    // suite's writes also test that the record revisions catch them (conversation-list.ts).
    VERIFY_KEPT_RECORDS: 'true',
    // The push proxy a server checks (parley doctor, the admin page's setup checks) is on loopback
    // and answers nothing: tests never reach for Nextcloud's public proxy.
    PUSH_PROXIES: 'http://127.0.0.1:9',
    PUSH_ALLOW_INSECURE: 'true',
    ...extra,
  };
  if (dialect === 'postgres') {
    env.DATABASE_URL = process.env.PARLEY_TEST_PG!;
    env.DATABASE_SCHEMA = `t_${randomBytes(6).toString('hex')}`;
    env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-pg-'));
  } else {
    env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-test-'));
  }
  return env;
}

/** A port nobody listens on right now (for servers that cannot report the port they picked). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

export async function startParley(dialect: DialectName = 'sqlite', opts: StartOptions = {}): Promise<Parley> {
  const env = opts.env?.DATA_DIR ? opts.env : freshEnv(dialect, opts.env);
  // The port is known before the settings are read: without BASE_URL the configured address
  // (every URL handed out) is the one HOST and PORT name, as for `parley serve`.
  const port = opts.port ?? (await freePort());
  const settings = loadSettings({ ...env, PORT: String(port), HOST: '127.0.0.1' });
  const services = await openServices(settings, createLogger(settings, opts.logStream ?? process.stderr));
  await ensureAdminAccount(services, () => undefined);
  const app = await buildServer(services, { logger: opts.logStream ? true : (opts.logger ?? false) });
  await app.listen({ port, host: '127.0.0.1' });
  const unregister = registerServer(env.DATABASE_SCHEMA, services.db);
  return {
    url: `http://127.0.0.1:${port}`,
    services,
    app,
    dialect,
    env,
    async close() {
      unregister();
      await app.close();
      await closeServices(services);
      if (env.DATABASE_SCHEMA && env.DATABASE_URL) await dropSchema(env.DATABASE_URL, env.DATABASE_SCHEMA);
      if (env.DATA_DIR) fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
    },
  };
}

export interface Caller {
  user?: string;
  password?: string;
  /** Raw Authorization header (overrides user/password). */
  authorization?: string;
  /** Extra cookies/headers, e.g. a guest session cookie. */
  headers?: Record<string, string>;
}

export interface CallOptions {
  as?: Caller;
  /** Sent as JSON unless `form` is set. */
  body?: unknown;
  form?: string | Record<string, string>;
  query?: Record<string, string | number | boolean>;
  format?: 'json' | 'xml' | 'none';
  version?: 1 | 2;
  /** Send OCS-APIRequest (default true). */
  ocsHeader?: boolean;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body (undefined for non-JSON). */
  body: any;
  /** Shortcuts into the OCS envelope. */
  meta: any;
  data: any;
}

export function basic(user: string, password: string): string {
  return 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
}

/**
 * Calls an OCS path. `path` starts after /ocs/v2.php (e.g. `/cloud/capabilities`) unless it
 * begins with `/ocs/` or is an absolute non-OCS path given with `raw: true` semantics (starts
 * with another root like `/status.php`).
 */
export async function call(p: Parley, method: string, apiPath: string, opts: CallOptions = {}): Promise<CallResult> {
  const version = opts.version ?? 2;
  let urlPath = apiPath;
  if (!apiPath.startsWith('/ocs/') && (apiPath.startsWith('/cloud/') || apiPath.startsWith('/apps/') || apiPath.startsWith('/core/'))) {
    urlPath = `/ocs/v${version}.php${apiPath}`;
  }
  const url = new URL(p.url + urlPath);
  const format = opts.format ?? 'json';
  if (format !== 'none') url.searchParams.set('format', format);
  for (const [k, v] of Object.entries(opts.query ?? {})) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.ocsHeader !== false) headers['OCS-APIRequest'] = 'true';
  const as = opts.as;
  if (as?.authorization) headers.Authorization = as.authorization;
  else if (as?.user) headers.Authorization = basic(as.user, as.password ?? `${as.user}-password-123`);
  Object.assign(headers, as?.headers ?? {});
  let body: string | undefined;
  if (opts.form !== undefined) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    body = typeof opts.form === 'string' ? opts.form : new URLSearchParams(opts.form).toString();
  } else if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
  }
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, text, body: parsed, meta: parsed?.ocs?.meta, data: parsed?.ocs?.data };
}

/** Default password used by `createUser` and `call` for non-admin users. */
export function passwordOf(user: string): string {
  return `${user}-password-123`;
}

/** Creates users (and groups) directly through the directory service (fast test set-up). */
export async function createUser(p: Parley, id: string, opts: { displayName?: string; groups?: string[]; email?: string } = {}): Promise<void> {
  for (const g of opts.groups ?? []) {
    if (!(await p.services.directory.groups.find(g))) await p.services.directory.createGroup(g);
  }
  await p.services.directory.createUser({ id, password: passwordOf(id), displayName: opts.displayName ?? id, email: opts.email, groups: opts.groups });
}

export const admin: Caller = { user: ADMIN.user, password: ADMIN.password };
export const as = (user: string): Caller => ({ user, password: passwordOf(user) });
