/**
 * Login Flow v2 and v1 (docs/reference/accounts-and-login.md#login-flow-v2, docs/reference/accounts-and-login.md#login-flow-v1): how Talk Android (v2) and Talk iOS /
 * Talk Desktop (v1) obtain an app password. The person logs in through AuthService (same
 * accounts, same argon2 check, same brute-force throttle and 429 as the API), then grants access
 * to the named client; the grant creates an ordinary app password (revocable with
 * `DELETE /core/apppassword`) named after the client's User-Agent.
 *
 * v2: the app password waits sealed for the poll token (domain/sealed-box.ts) and is handed out
 * by exactly one poll, which deletes the row in the same statement. v1: the grant deletes the
 * row first (one winner), then the page redirects to `nc://login/...`.
 * Flows live `loginFlowLifetimeSeconds` (Nextcloud: 1200 s) from their start.
 */
import { CONTROL_CHARS_ALL } from '../../domain/accounts.js';
import type { LoginFlowRow, LoginFlowsRepository } from '../../db/repositories/login-flows.js';
import type { UserRow } from '../../db/repositories/users.js';
import { forbidden } from '../../domain/errors.js';
import { randomString, sha256Hex } from '../../domain/passwords.js';
import { newRecipient, open, seal } from '../../domain/sealed-box.js';
import { nowSeconds } from '../../domain/time.js';
import type { AuthService } from './auth.js';
import type { DirectoryService } from './directory.js';

/** Both tokens of a v2 flow: 128 characters [0-9a-zA-Z], as Nextcloud's. */
const TOKEN_LENGTH = 128;
const STATE_LENGTH = 64;
const TOKEN_RE = /^[A-Za-z0-9]{128}$/;
const STATE_RE = /^[A-Za-z0-9]{64}$/;
/** Nextcloud names a client without User-Agent like this in "Devices & sessions". */
const UNKNOWN_CLIENT = 'unknown';

export type LoginFlowKind = 'v2' | 'v1';

export interface LoginFlowCredentials {
  server: string;
  loginName: string;
  appPassword: string;
}

export class LoginFlowService {
  private lastSweep = 0;

  constructor(
    private readonly repo: LoginFlowsRepository,
    private readonly auth: AuthService,
    private readonly directory: DirectoryService,
    readonly lifetimeSeconds: number,
  ) {}

  private cutoff(now = nowSeconds()): number {
    return now - this.lifetimeSeconds;
  }

  /** Expired rows go at most once a minute per process (lookups ignore them anyway). */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60) return;
    this.lastSweep = now;
    await this.repo.deleteCreatedBefore(this.cutoff(now));
  }

  private static clientName(userAgent: string | undefined): string {
    const name = (userAgent ?? '').replace(CONTROL_CHARS_ALL, '').trim();
    return [...(name || UNKNOWN_CLIENT)].slice(0, 255).join('');
  }

  /** `POST /login/v2`: a new flow; the poll token is returned once and only its hash is kept. */
  async initV2(userAgent: string | undefined): Promise<{ pollToken: string; loginToken: string }> {
    const now = nowSeconds();
    await this.sweep(now);
    const pollToken = randomString(TOKEN_LENGTH);
    const loginToken = randomString(TOKEN_LENGTH);
    const keys = newRecipient(pollToken);
    await this.repo.insert({
      login_token: loginToken,
      kind: 'v2',
      poll_token_hash: sha256Hex(pollToken),
      state_hash: null,
      client_name: LoginFlowService.clientName(userAgent),
      created_at: now,
      started: 0,
      user_id: null,
      public_key: keys.publicKey,
      sealed_private_key: keys.sealedPrivateKey,
      server: null,
      sealed_app_password: null,
    });
    return { pollToken, loginToken };
  }

  /**
   * `GET /login/v2/flow/{loginToken}`: the first browser to open a live flow gets its state
   * token (kept in a cookie and echoed by the forms); unknown, expired or already opened → 403.
   */
  async openV2(loginToken: string): Promise<string> {
    if (!TOKEN_RE.test(loginToken)) throw forbidden('token', 'This login link is invalid or has expired');
    const state = randomString(STATE_LENGTH);
    if (!(await this.repo.start(loginToken, sha256Hex(state), this.cutoff()))) {
      throw forbidden('token', 'This login link is invalid, has expired or was already used');
    }
    return state;
  }

  /** `GET /login/flow` (v1, with OCS-APIRequest): a new flow bound to the returned state token. */
  async startV1(userAgent: string | undefined): Promise<string> {
    const now = nowSeconds();
    await this.sweep(now);
    const state = randomString(STATE_LENGTH);
    await this.repo.insert({
      login_token: randomString(TOKEN_LENGTH),
      kind: 'v1',
      poll_token_hash: null,
      state_hash: sha256Hex(state),
      client_name: LoginFlowService.clientName(userAgent),
      created_at: now,
      started: 1,
      user_id: null,
      public_key: null,
      sealed_private_key: null,
      server: null,
      sealed_app_password: null,
    });
    return state;
  }

  /** The live, not yet granted flow of a state token (from the page's cookie and form), or undefined. */
  async flowForState(state: unknown, kind: LoginFlowKind): Promise<LoginFlowRow | undefined> {
    if (typeof state !== 'string' || !STATE_RE.test(state)) return undefined;
    const flow = await this.repo.findByState(sha256Hex(state), this.cutoff());
    return flow && flow.kind === kind && flow.sealed_app_password === null ? flow : undefined;
  }

  /**
   * The login step: the same check as the API's Basic auth (401 for an unknown account or a
   * wrong password alike, 429 past the brute-force cap), but only the account's password: an
   * app password is refused, so a grant never turns one app password into a second, independent
   * one (Nextcloud's login form checks the account's password only). Remembers the user on the flow.
   */
  async logIn(flow: LoginFlowRow, login: string, password: string, ip: string): Promise<UserRow> {
    const header = 'Basic ' + Buffer.from(`${login}:${password}`).toString('base64');
    const { user } = await this.auth.authenticate(header, ip, { passwordOnly: true });
    await this.repo.setUser(flow.login_token, user.id);
    return user;
  }

  /** The enabled account that logged in on this flow, if any. */
  async userOf(flow: LoginFlowRow): Promise<UserRow | undefined> {
    if (!flow.user_id) return undefined;
    const user = await this.directory.users.find(flow.user_id);
    return user && user.enabled ? user : undefined;
  }

  /**
   * The account of the grant page: the one that logged in on this flow, else the browser's own
   * login session to Parley's pages (`browserUser`, asked only then), which skips the login step
   * and is remembered on the flow.
   */
  async userOrBrowserUser(flow: LoginFlowRow, browserUser: () => Promise<UserRow | undefined>): Promise<UserRow | undefined> {
    const user = await this.userOf(flow);
    if (user) return user;
    const browser = await browserUser();
    if (browser) await this.repo.setUser(flow.login_token, browser.id);
    return browser;
  }

  /**
   * The grant: creates an app password named after the client. v2 seals it for the poll and
   * returns undefined; v1 returns it for the `nc://` redirect. Either way only one grant per
   * flow succeeds (conditional update / delete); a loser's app password is removed again.
   */
  async grant(flow: LoginFlowRow, server: string): Promise<LoginFlowCredentials | undefined> {
    const user = await this.userOf(flow);
    if (!user) throw forbidden('login', 'Log in first');
    if (flow.kind === 'v1') {
      if (!(await this.repo.finish(flow.login_token, user.id))) throw forbidden('token', 'This login was already completed');
      const appPassword = await this.auth.createAppPassword(user.id, flow.client_name);
      return { server, loginName: user.id, appPassword };
    }
    const appPassword = await this.auth.createAppPassword(user.id, flow.client_name);
    const ok = await this.repo.grant(flow.login_token, user.id, server, seal(flow.public_key!, appPassword));
    if (!ok) {
      const created = await this.directory.appPasswords.findLogin(sha256Hex(appPassword));
      if (created) await this.auth.revokeAppPassword(created.appPasswordId, created.userId);
      throw forbidden('token', 'This login was already completed');
    }
    return undefined;
  }

  /** `POST /login/v2/poll`: the credentials once, after the grant; undefined otherwise (404). */
  async poll(pollToken: unknown): Promise<LoginFlowCredentials | undefined> {
    if (typeof pollToken !== 'string' || !TOKEN_RE.test(pollToken)) return undefined;
    const row = await this.repo.takeGranted(sha256Hex(pollToken), this.cutoff());
    if (!row || !row.user_id || !row.server) return undefined;
    const appPassword = open(row.sealed_private_key!, pollToken, row.sealed_app_password!);
    if (appPassword === undefined) return undefined;
    return { server: row.server, loginName: row.user_id, appPassword };
  }
}
