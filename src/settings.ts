/**
 * Environment settings, read once at start and validated: a bad value stops
 * start-up with a message that names the variable (README.md "Settings").
 */
import net from 'node:net';
import path from 'node:path';
import { NEXTCLOUD_PUSH_PROXY, normalizeProxy } from './domain/push.js';

type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Settings {
  port: number;
  /**
   * The listening socket's queue of connections not yet accepted (the kernel caps it at
   * net.core.somaxconn). Node's default, 511, overflows when hundreds of clients connect at once
   * (after a restart, or a burst of new browsers): the kernel then drops their SYNs and they
   * retry after a second, which clients see as a one-second (then three-second) request.
   */
  listenBacklog: number;
  host: string;
  dataDir: string;
  /** postgres:// URL, or undefined for the SQLite file in dataDir. */
  databaseUrl?: string;
  /** Schema to use on PostgreSQL (tests isolate themselves with one schema each). */
  databaseSchema?: string;
  adminUser?: string;
  adminPassword?: string;
  logLevel: LogLevel;
  /**
   * The configured address: BASE_URL, or (unset) the address HOST and PORT name, `localhost` for a
   * wildcard HOST. Every URL Parley hands out is built from it, never from a request's Host.
   */
  baseUrl: string;
  /** BASE_URL was set (baseUrl is not derived from HOST and PORT). */
  baseUrlGiven: boolean;
  /**
   * Host names besides the configured address's that requests may name (TRUSTED_DOMAINS;
   * Nextcloud's `trusted_domains`, `*` wildcards, with or without a port). Loopback names are
   * always served; any other Host is answered 400 (http/trusted-hosts.ts).
   */
  trustedDomains: string[];
  /** Lifetime of a Login Flow v2/v1 (Nextcloud: 1200 s; LOGIN_FLOW_LIFETIME_SECONDS). */
  loginFlowLifetimeSeconds: number;
  /** Base delay of the brute-force throttle; Nextcloud uses 100 ms, doubled per attempt. */
  bruteForceDelayMs: number;
  /** Attempts (within 12 h) after which throttled actions answer 429 instead of sleeping. */
  bruteForceMaxAttempts: number;
  /** How long a verified login credential stays cached (seconds). */
  credentialCacheSeconds: number;
  /** VERIFY_KEPT_RECORDS (tests): every reused conversation record, and every answer reused on the change feed's word, is checked against a fresh rendering. */
  verifyKeptRecords: boolean;
  /** Run periodic jobs in this process (every process may; leases keep runs unique). */
  jobs: boolean;
  /** Server processes `parley serve` starts on this host (WORKERS, or --workers; cli/workers.ts). */
  workers: number;
  /** Multiplies every job interval (JOB_INTERVAL_SCALE; tests use e.g. 0.01); at least 1 s results. */
  jobIntervalScale: number;
  /** Networks (CIDR) besides loopback that may read GET /metrics (METRICS_ALLOW). */
  metricsAllow: string[];
  /**
   * Reverse proxies (addresses or networks, TRUSTED_PROXIES; Nextcloud's `trusted_proxies`)
   * whose X-Forwarded-For names the client: the address the brute-force throttle, the rate limits
   * and METRICS_ALLOW go by. Empty: the socket's address, and X-Forwarded-For is ignored (anyone
   * could write it).
   */
  trustedProxies: string[];
  /** smtp:// or smtps:// URL of the mail server; unset = mail goes to the outbox table and the log. */
  smtpUrl?: string;
  /** Sender address of the mail Parley sends. */
  mailFrom: string;
  /** Longest wait of an internal signaling poll (SIGNALING_POLL_SECONDS; Talk: 30). */
  signalingPollSeconds: number;
  /** Push proxies devices may register with (PUSH_PROXIES; normalised, without trailing slash). */
  pushProxies: string[];
  /** PUSH_ALLOW_INSECURE (tests): push proxies and Web Push endpoints over plain http on loopback are accepted. */
  pushAllowInsecure: boolean;
  /**
   * FEDERATION_ALLOW_INSECURE (tests and development; Nextcloud's `allow_local_remote_servers`):
   * federated servers may be reached over plain HTTP and on loopback or private addresses.
   */
  federationAllowInsecure: boolean;
  /** WEB_PUSH (Nextcloud: opt-in): browsers and UnifiedPush distributors may subscribe. */
  webPush: boolean;
  /** When requests are shed with 503 + Retry-After (http/load-shedding.ts; docs/operators.md). */
  overload: OverloadSettings;
}

export interface OverloadSettings {
  /** Shed while the mean event-loop delay of the last sample exceeds this (ms; 0 = never). */
  maxEventLoopDelayMs: number;
  /** Shed while the used heap exceeds this share of V8's heap limit (percent; 0 = never). */
  maxHeapPercent: number;
  /**
   * Shed while more requests than this wait for a PostgreSQL connection (0 = never): there the
   * process waits on the database, and its event loop stays on time while the queue grows.
   */
  maxDbWaiting: number;
  /**
   * SQLite: shed while the first request in line for the database's one connection has waited
   * longer than this (ms; 0 = never): past capacity the requests queue there (first come first
   * served) while the event loop stays on time, as in front of PostgreSQL's pool.
   */
  maxDbWaitMs: number;
  /**
   * Admit requests at a rate once the event loop was busy more than this share of a sample (0-1;
   * 0 = never; http/admission-rate.ts), as @fastify/under-pressure's maxEventLoopUtilization: a
   * saturated process keeps taking in requests while its timers still fire nearly on time, and
   * their wait grows where no other signal sees it (in the sockets and between their steps).
   */
  maxEventLoopUtilization: number;
  /** How often the pressure is sampled (ms); a sample's verdict (or admission rate) holds until the next one. */
  sampleMs: number;
  /**
   * Nothing is shed for this long after start (ms): a fresh process compiles its code and fills
   * its caches on its first requests, which keeps its event loop busy without any overload.
   */
  warmupMs: number;
  /**
   * The event-loop signals (delay, utilization) shed only while work is actually queued: at least
   * two requests in progress on average over the sample (not counting long-polls waiting for a
   * wake-up), which spend longer than this in the process on average (ms). A loop kept busy by
   * requests that are answered fast is not overloaded.
   */
  minQueuedMs: number;
  /** The Retry-After of a shed request (seconds). */
  retryAfterSeconds: number;
}

export class SettingsError extends Error {}

const LOG_LEVELS: LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function intSetting(env: NodeJS.ProcessEnv, name: string, def: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!/^\d+$/.test(raw.trim())) throw new SettingsError(`${name} must be a whole number, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new SettingsError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function boolSetting(env: NodeJS.ProcessEnv, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new SettingsError(`${name} must be true or false, got "${raw}"`);
}

/** A positive decimal factor (default 1). */
function scaleSetting(env: NodeJS.ProcessEnv, name: string): number {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return 1;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || n <= 0 || n > 1000) throw new SettingsError(`${name} must be a number above 0 and at most 1000, got "${raw}"`);
  return n;
}

/**
 * `env[name]` (trimmed; undefined when unset), which must parse as a URL with one of `protocols`
 * (`'http:'`); otherwise the error says it `must be ${expected}`. It quotes the bad value only
 * with `echo`: the database and SMTP URLs may carry a password, so theirs are never printed.
 */
function urlSetting(env: NodeJS.ProcessEnv, name: string, protocols: string[], expected: string, echo: boolean): string | undefined {
  const raw = (env[name] ?? '').trim();
  if (!raw) return undefined;
  let protocol = '';
  try {
    protocol = new URL(raw).protocol;
  } catch {
    // not a URL: refused below
  }
  if (!protocols.includes(protocol)) throw new SettingsError(`${name} must be ${expected}${echo ? `, got "${raw}"` : ''}`);
  return raw;
}

function mailFromSetting(env: NodeJS.ProcessEnv, baseUrl: string): string {
  const raw = (env.MAIL_FROM ?? '').trim();
  if (!raw) return `parley@${new URL(baseUrl).hostname}`;
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(raw)) throw new SettingsError(`MAIL_FROM must be an e-mail address, got "${raw}"`);
  return raw;
}

/** A comma-separated list of networks (`10.0.0.0/8`, `2001:db8::/32`, or single addresses). */
function cidrListSetting(env: NodeJS.ProcessEnv, name: string): string[] {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return [];
  return raw.split(',').map((part) => {
    const item = part.trim();
    const [address, prefix, extra] = item.split('/');
    const family = net.isIP(address ?? '');
    const max = family === 6 ? 128 : 32;
    const ok = family !== 0 && extra === undefined && (prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= max));
    if (!ok) throw new SettingsError(`${name} must be a comma-separated list of addresses or networks like 10.0.0.0/8, got "${item}"`);
    return prefix === undefined ? `${address}/${max}` : item;
  });
}

/**
 * BASE_URL, checked and without its trailing slash: an http(s) origin with an optional path, no
 * credentials, query or fragment (it is the start of every URL Parley hands out).
 */
function baseUrlSetting(env: NodeJS.ProcessEnv): string | undefined {
  const raw = urlSetting(env, 'BASE_URL', ['http:', 'https:'], 'an http:// or https:// URL', true);
  if (raw === undefined) return undefined;
  const u = new URL(raw);
  if (u.username || u.password || u.search || u.hash || raw.includes('?') || raw.includes('#')) {
    throw new SettingsError(`BASE_URL must be the address clients use, without credentials, query or fragment, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** The address HOST and PORT name, for a server without BASE_URL. */
function derivedBaseUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : net.isIPv6(host) ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** TRUSTED_DOMAINS: comma-separated host names (`*` wildcards), each optionally with `:port`. */
function trustedDomainsSetting(env: NodeJS.ProcessEnv): string[] {
  const raw = (env.TRUSTED_DOMAINS ?? '').trim();
  if (raw === '') return [];
  return raw.split(',').map((part) => {
    const item = part.trim();
    if (!/^([A-Za-z0-9*][A-Za-z0-9.*-]*|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/.test(item)) {
      throw new SettingsError(`TRUSTED_DOMAINS must be a comma-separated list of host names like chat.example.org or *.example.org, got "${item}"`);
    }
    return item;
  });
}

/** A comma-separated list of http(s) URLs, normalised without trailing slashes. */
function urlListSetting(env: NodeJS.ProcessEnv, name: string, def: string[]): string[] {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return def;
  return raw.split(',').map((part) => {
    const item = part.trim();
    let ok = false;
    try {
      const u = new URL(item);
      ok = (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password && !u.search && !u.hash;
    } catch {
      // refused below
    }
    if (!ok) throw new SettingsError(`${name} must be a comma-separated list of https:// URLs, got "${item}"`);
    return normalizeProxy(new URL(item).href);
  });
}

/** Reads and validates the settings; throws SettingsError naming the bad variable. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const port = intSetting(env, 'PORT', 8080, 0, 65535);
  const listenBacklog = intSetting(env, 'LISTEN_BACKLOG', 4096, 1, 65535);
  const host = (env.HOST ?? '').trim() || '0.0.0.0';
  if (/\s/.test(host)) throw new SettingsError(`HOST must be a host name or address, got "${env.HOST}"`);
  const dataDir = path.resolve((env.DATA_DIR ?? '').trim() || './data');

  const databaseUrl = urlSetting(env, 'DATABASE_URL', ['postgres:', 'postgresql:'], 'a postgres:// URL (or unset for SQLite)', false);
  const databaseSchema = (env.DATABASE_SCHEMA ?? '').trim() || undefined;
  if (databaseSchema && !/^[a-z_][a-z0-9_]{0,62}$/.test(databaseSchema)) {
    throw new SettingsError('DATABASE_SCHEMA must be a lower-case SQL identifier');
  }

  const adminUser = (env.ADMIN_USER ?? '').trim() || undefined;
  const adminPassword = env.ADMIN_PASSWORD || undefined;
  if (adminUser && !adminPassword) throw new SettingsError('ADMIN_PASSWORD must be set when ADMIN_USER is set');
  if (adminPassword && !adminUser) throw new SettingsError('ADMIN_USER must be set when ADMIN_PASSWORD is set');
  if (adminUser && !/^[a-zA-Z0-9 _.@\-']{1,64}$/.test(adminUser)) {
    throw new SettingsError("ADMIN_USER may only contain letters, digits, spaces and _.@-' (at most 64 characters)");
  }

  const logLevel = ((env.LOG_LEVEL ?? '').trim().toLowerCase() || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new SettingsError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }

  const givenBaseUrl = baseUrlSetting(env);
  const baseUrl = givenBaseUrl ?? derivedBaseUrl(host, port);

  return {
    port,
    listenBacklog,
    host,
    dataDir,
    databaseUrl,
    databaseSchema,
    adminUser,
    adminPassword,
    logLevel,
    baseUrl,
    baseUrlGiven: givenBaseUrl !== undefined && givenBaseUrl !== '',
    trustedDomains: trustedDomainsSetting(env),
    loginFlowLifetimeSeconds: intSetting(env, 'LOGIN_FLOW_LIFETIME_SECONDS', 1200, 1, 86_400),
    bruteForceDelayMs: intSetting(env, 'BRUTE_FORCE_DELAY_MS', 100, 0, 10_000),
    bruteForceMaxAttempts: intSetting(env, 'BRUTE_FORCE_MAX_ATTEMPTS', 10, 1, 1000),
    credentialCacheSeconds: intSetting(env, 'CREDENTIAL_CACHE_SECONDS', 300, 0, 86_400),
    verifyKeptRecords: boolSetting(env, 'VERIFY_KEPT_RECORDS', false),
    jobs: boolSetting(env, 'JOBS', true),
    workers: intSetting(env, 'WORKERS', 1, 1, 64),
    jobIntervalScale: scaleSetting(env, 'JOB_INTERVAL_SCALE'),
    metricsAllow: cidrListSetting(env, 'METRICS_ALLOW'),
    trustedProxies: cidrListSetting(env, 'TRUSTED_PROXIES'),
    smtpUrl: urlSetting(env, 'SMTP_URL', ['smtp:', 'smtps:'], 'an smtp:// or smtps:// URL', false),
    mailFrom: mailFromSetting(env, baseUrl),
    signalingPollSeconds: intSetting(env, 'SIGNALING_POLL_SECONDS', 30, 1, 30),
    pushProxies: urlListSetting(env, 'PUSH_PROXIES', [NEXTCLOUD_PUSH_PROXY]),
    pushAllowInsecure: boolSetting(env, 'PUSH_ALLOW_INSECURE', false),
    federationAllowInsecure: boolSetting(env, 'FEDERATION_ALLOW_INSECURE', false),
    webPush: boolSetting(env, 'WEB_PUSH', false),
    overload: {
      maxEventLoopDelayMs: intSetting(env, 'OVERLOAD_MAX_EVENT_LOOP_DELAY_MS', 200, 0, 60_000),
      maxHeapPercent: intSetting(env, 'OVERLOAD_MAX_HEAP_PERCENT', 90, 0, 100),
      maxDbWaiting: intSetting(env, 'OVERLOAD_MAX_DB_WAITING', 50, 0, 1_000_000),
      maxDbWaitMs: intSetting(env, 'OVERLOAD_MAX_DB_WAIT_MS', 200, 0, 60_000),
      maxEventLoopUtilization: intSetting(env, 'OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT', 98, 0, 100) / 100,
      sampleMs: intSetting(env, 'OVERLOAD_SAMPLE_MS', 250, 10, 60_000),
      warmupMs: intSetting(env, 'OVERLOAD_WARMUP_SECONDS', 10, 0, 3600) * 1000,
      minQueuedMs: intSetting(env, 'OVERLOAD_MIN_QUEUED_MS', 100, 0, 60_000),
      retryAfterSeconds: intSetting(env, 'OVERLOAD_RETRY_AFTER_SECONDS', 2, 1, 3600),
    },
  };
}
