/**
 * Setup checks (docs/operators.md "parley doctor"), the way Nextcloud's admin overview checks a
 * deployment: each finding says what is wrong and how to fix it. Used by `parley doctor` and the
 * admin page's "Setup checks" section (GET /settings/ajax/checksetup). Every check talks to the
 * real thing: the configured address is fetched, the database asked, a file written in the data
 * directory, the mail server greeted, STUN/TURN names resolved, and each external signaling server
 * taken through a real round trip (its welcome endpoint, a hello whose ticket it must confirm
 * with Parley's backend API, and a signed backend request it must accept).
 */
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { HealthRepository } from '../../db/repositories/health.js';
import { signalingHttpBase, signalingServers, type TurnEntry } from '../../domain/signaling.js';
import { PRODUCT_NAME, SERVER_VERSION_FULL } from '../../domain/version.js';
import type { Settings } from '../../settings.js';
import type { AppConfigService } from './app-config.js';
import type { MailService } from '../notifications/mail.js';
import type { SignalingNotifier } from '../signaling/signaling-notifier.js';
import type { SignalingService } from '../signaling/signaling.js';
import { signalingHello } from '../signaling/signaling-hello-check.js';
import type { ProxyReachability } from '../push/reachability.js';

export type CheckStatus = 'ok' | 'info' | 'warning' | 'error';

export interface SetupCheck {
  /** Stable name (`address`, `database`, `signaling:0`, …). */
  id: string;
  title: string;
  status: CheckStatus;
  message: string;
  /** What to do about it (warnings and errors). */
  fix?: string;
}

const TIMEOUT_MS = 5000;
const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;
const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

export class SetupChecksService {
  constructor(
    private readonly settings: Settings,
    private readonly health: HealthRepository,
    private readonly appConfig: AppConfigService,
    private readonly mail: MailService,
    private readonly signaling: SignalingService,
    private readonly notifier: SignalingNotifier,
    /** The push proxies' reachability (push/reachability.ts). */
    private readonly pushProxies: (timeoutMs: number) => Promise<ProxyReachability[]>,
  ) {}

  /** Every check, at once; the list is in a fixed order. */
  async run(): Promise<SetupCheck[]> {
    const parts = await Promise.all([
      this.address(),
      this.trustedDomains(),
      this.database(),
      this.dataDirectory(),
      this.mailServer(),
      this.stunTurn(),
      this.signalingServers(),
      this.pushProxyReachability(),
    ]);
    return parts.flat();
  }

  /** The configured address answers /status.php as this server (through whatever proxy is in front). */
  private async address(): Promise<SetupCheck[]> {
    const base = this.settings.baseUrl;
    const id = 'address';
    const title = 'Configured address';
    const out: SetupCheck[] = [];
    try {
      const res = await fetch(`${base}/status.php`, { redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
      const text = await res.text();
      let body: { productname?: unknown; version?: unknown } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        // judged below
      }
      if (res.status === 400 && text.includes('Trusted domain')) {
        out.push({
          id,
          title,
          status: 'error',
          message: `${base}/status.php is refused as an untrusted domain`,
          fix: `Add ${new URL(base).host} to TRUSTED_DOMAINS, or set BASE_URL to the address clients use.`,
        });
      } else if (res.status !== 200) {
        out.push({
          id,
          title,
          status: 'error',
          message: `${base}/status.php answered ${res.status}`,
          fix: 'Check the reverse proxy in front of Parley and that BASE_URL is the address clients use.',
        });
      } else if (body.productname !== PRODUCT_NAME || body.version !== SERVER_VERSION_FULL) {
        out.push({
          id,
          title,
          status: 'error',
          message: `${base} answers, but not as this ${PRODUCT_NAME} ${SERVER_VERSION_FULL}`,
          fix: 'BASE_URL names another server: set it to the address of this one.',
        });
      } else {
        out.push({ id, title, status: 'ok', message: `${base} answers as ${PRODUCT_NAME} ${SERVER_VERSION_FULL}` });
      }
    } catch (e) {
      out.push({
        id,
        title,
        status: 'error',
        message: `${base}/status.php could not be fetched: ${errorText(e)}`,
        fix: 'Start Parley (`parley serve`), and set BASE_URL to the address clients use; it must also be reachable from this machine.',
      });
    }
    const url = new URL(base);
    if (!this.settings.baseUrlGiven) {
      out.push({
        id: 'base-url',
        title: 'BASE_URL',
        status: 'warning',
        message: `BASE_URL is not set; Parley hands out ${base} (from HOST and PORT)`,
        fix: 'Set BASE_URL to the address Talk apps and the signaling server use.',
      });
    } else if (url.protocol === 'http:' && !LOOPBACK.test(url.hostname)) {
      out.push({
        id: 'https',
        title: 'HTTPS',
        status: 'warning',
        message: `${base} is plain HTTP; Talk's mobile apps refuse or warn on it`,
        fix: 'Put Parley behind a TLS reverse proxy and set BASE_URL to its https:// address.',
      });
    }
    return out;
  }

  /** Which host names are served and which proxies are believed. */
  private async trustedDomains(): Promise<SetupCheck[]> {
    const url = new URL(this.settings.baseUrl);
    const names = [url.hostname, ...this.settings.trustedDomains].join(', ');
    const out: SetupCheck[] = [
      { id: 'trusted-domains', title: 'Trusted domains', status: 'ok', message: `requests may name ${names} and loopback names; any other Host gets 400` },
    ];
    const proxies = this.settings.trustedProxies;
    if (proxies.length > 0) {
      out.push({ id: 'trusted-proxies', title: 'Trusted proxies', status: 'ok', message: `X-Forwarded-* headers are believed from ${proxies.join(', ')}` });
    } else if (url.protocol === 'https:' && !LOOPBACK.test(url.hostname)) {
      out.push({
        id: 'trusted-proxies',
        title: 'Trusted proxies',
        status: 'warning',
        message: 'BASE_URL is https but TRUSTED_PROXIES is empty: behind a TLS proxy every client shares its address in the brute-force throttle',
        fix: "Set TRUSTED_PROXIES to the reverse proxy's address (for example 127.0.0.1).",
      });
    }
    return out;
  }

  private async database(): Promise<SetupCheck[]> {
    const what = this.settings.databaseUrl
      ? `PostgreSQL${this.settings.databaseSchema ? ` (schema ${this.settings.databaseSchema})` : ''}`
      : `SQLite in ${this.settings.dataDir}`;
    const started = performance.now();
    try {
      await this.health.ping();
      return [{ id: 'database', title: 'Database', status: 'ok', message: `${what} answered in ${Math.round(performance.now() - started)} ms` }];
    } catch (e) {
      return [
        {
          id: 'database',
          title: 'Database',
          status: 'error',
          message: `${what} did not answer: ${errorText(e)}`,
          fix: 'Check DATABASE_URL and that the database server runs.',
        },
      ];
    }
  }

  /** A file can be written (and removed) in DATA_DIR. */
  private async dataDirectory(): Promise<SetupCheck[]> {
    const dir = this.settings.dataDir;
    const file = path.join(dir, `.setup-check-${randomBytes(6).toString('hex')}`);
    try {
      await fs.writeFile(file, 'ok', { flag: 'wx' });
      await fs.unlink(file);
      return [{ id: 'data-directory', title: 'Data directory', status: 'ok', message: `${dir} is writable` }];
    } catch (e) {
      return [
        {
          id: 'data-directory',
          title: 'Data directory',
          status: 'error',
          message: `${dir} is not writable: ${errorText(e)}`,
          fix: 'Give the user running Parley write access to DATA_DIR (or point DATA_DIR elsewhere).',
        },
      ];
    }
  }

  private async mailServer(): Promise<SetupCheck[]> {
    const id = 'mail';
    const title = 'Mail';
    try {
      const verified = await this.mail.verify(TIMEOUT_MS);
      if (!verified) return [{ id, title, status: 'info', message: 'SMTP_URL is not set: invitation mail is kept in the mail_outbox table' }];
      return [{ id, title, status: 'ok', message: `the SMTP server ${new URL(this.settings.smtpUrl!).host} accepts Parley` }];
    } catch (e) {
      return [
        {
          id,
          title,
          status: 'error',
          message: `the SMTP server ${new URL(this.settings.smtpUrl!).host} did not accept Parley: ${errorText(e)}`,
          fix: 'Check SMTP_URL (host, port, smtp:// or smtps://, user and password) and that the mail server accepts connections from here.',
        },
      ];
    }
  }

  /** Each allowed push proxy answers (PUSH_PROXIES): phones get no push while it does not. */
  private async pushProxyReachability(): Promise<SetupCheck[]> {
    const results = await this.pushProxies(TIMEOUT_MS);
    return results.map((r, index) =>
      r.reachable
        ? { id: `push:${index}`, title: 'Push proxy', status: 'ok', message: `${r.proxy} answers (HTTP ${r.status}, ${r.ms} ms)` }
        : {
            id: `push:${index}`,
            title: 'Push proxy',
            status: 'warning',
            message: `${r.proxy} cannot be reached: ${r.error}`,
            fix: 'Phones get no push notifications until it can: allow outgoing HTTPS from this host to it, or set PUSH_PROXIES to the proxy your apps use.',
          },
    );
  }

  /** STUN/TURN entries are complete and their host names resolve. */
  private async stunTurn(): Promise<SetupCheck[]> {
    const cfg = await this.appConfig.snapshot();
    const stun = cfg.list('stun_servers');
    const turn = cfg.json<TurnEntry[]>('turn_servers', []) ?? [];
    const id = 'stun-turn';
    const title = 'STUN and TURN';
    if (stun.length === 0 && turn.length === 0) {
      return [
        {
          id,
          title,
          status: 'warning',
          message: 'no STUN or TURN server: calls connect only between clients that reach each other directly',
          fix: 'Add a STUN server (`parley talk:stun:add stun.example.org:443`) and, for clients behind strict NATs, a TURN server (`parley talk:turn:add`).',
        },
      ];
    }
    const problems: string[] = [];
    const hostOf = (hostPort: string) => hostPort.replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
    const resolves = async (hostPort: string) => {
      try {
        await lookup(hostOf(hostPort));
        return true;
      } catch {
        return false;
      }
    };
    for (const s of stun) if (!(await resolves(s))) problems.push(`STUN server ${s} does not resolve`);
    for (const t of turn) {
      if (!t.secret) problems.push(`TURN server ${t.server} has no secret (clients get no credentials that work)`);
      if (!(await resolves(t.server))) problems.push(`TURN server ${t.server} does not resolve`);
    }
    if (turn.length === 0) problems.push('no TURN server: clients behind strict NATs or firewalls cannot join calls');
    if (problems.length === 0) return [{ id, title, status: 'ok', message: `${stun.length} STUN and ${turn.length} TURN server(s), every name resolves` }];
    return [
      {
        id,
        title,
        status: 'warning',
        message: problems.join('; '),
        fix: 'Fix the entries with `parley talk:stun:*` / `parley talk:turn:*` (TURN needs the secret of its use-auth-secret).',
      },
    ];
  }

  /** Each external signaling server: welcome, a hello it confirms with Parley, a backend request it accepts. */
  private async signalingServers(): Promise<SetupCheck[]> {
    const list = signalingServers(await this.appConfig.snapshot());
    if (list.servers.length === 0) {
      return [{ id: 'signaling', title: 'Signaling', status: 'info', message: 'internal signaling (no signaling server): fine for calls of 2–3 people' }];
    }
    const ticket = await this.signaling.guestTicket();
    const backend = `${this.settings.baseUrl}/`;
    return Promise.all(
      list.servers.map(async ({ server }, index): Promise<SetupCheck> => {
        const id = `signaling:${index}`;
        const title = `Signaling server ${server}`;
        const fail = (message: string, fix: string): SetupCheck => ({ id, title, status: 'error', message, fix });
        if (!list.secret)
          return fail('no shared secret is set', 'Set the secret with `parley talk:signaling:add <server> <secret>` (the one in its backend section).');
        try {
          const res = await fetch(`${signalingHttpBase(server)}/api/v1/welcome`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
          const body = (await res.json().catch(() => ({}))) as { version?: unknown };
          if (!res.ok || typeof body.version !== 'string')
            return fail(`its welcome endpoint answered ${res.status} without a version`, 'Check the URL: it must be the signaling server itself.');
        } catch (e) {
          return fail(`does not answer: ${errorText(e)}`, 'Start the signaling server and check the URL (and the TLS certificate for wss:// and https://).');
        }
        const hello = await signalingHello(server, `${this.settings.baseUrl}/ocs/v2.php/apps/spreed/api/v3/signaling/backend`, ticket, TIMEOUT_MS);
        if (!hello.ok) {
          const fix =
            hello.code === 'invalid_backend'
              ? `In its server.conf, the backend's url must be ${backend} (Parley's BASE_URL).`
              : 'The server must reach Parley at BASE_URL and share its secret: check its backend section and its log.';
          return fail(`refused a client hello (${hello.code}${hello.message ? `: ${hello.message}` : ''})`, fix);
        }
        const probe = await this.notifier.probe(server, list.secret);
        if (!('status' in probe)) return fail(`backend request failed: ${probe.error}`, 'Parley must reach the signaling server at this URL.');
        if (probe.status === 403) {
          return fail(
            `refuses Parley's backend requests (403) naming ${backend}`,
            `In its server.conf, the backend's url must be ${backend} and its secret the one configured in Parley.`,
          );
        }
        if (probe.status < 200 || probe.status >= 300) return fail(`answered ${probe.status} to a backend request`, "Check the signaling server's log.");
        return { id, title, status: 'ok', message: 'answers, confirms a client hello with Parley, and accepts its backend requests' };
      }),
    );
  }
}
