/**
 * Login: HTTP Basic with the login password (argon2id) or an app password (sha256 lookup).
 * A verified login password is cached by a hash of the header so argon2 runs once per
 * credential, not once per request. The cache entry remembers which password hash it was
 * verified against and is honoured only while the user row (UsersRepository.find: the
 * per-process read cache, exact on SQLite, invalidated by NOTIFY on PostgreSQL, see
 * docs/architecture.md "Read cache") still has that hash and is enabled, so a password change or
 * a disabled or deleted account in any process ends it. Only a check that passed is cached, and
 * the brute-force cap is checked before any cached credential is honoured.
 */
import type { UserRow } from '../../db/repositories/users.js';
import { notLoggedIn } from '../../domain/errors.js';
import { newAppPassword, sha256Hex, verifyPassword } from '../../domain/passwords.js';
import type { BruteForceService } from './brute-force.js';
import type { DirectoryService } from './directory.js';
import { nowSeconds } from '../../domain/time.js';
import type { EventBus } from '../../events/bus.js';

export interface AuthenticatedUser {
  user: UserRow;
  /** Set when the request used an app password. */
  appPasswordId?: number;
}

interface CacheEntry {
  userId: string;
  passwordHash: string;
  expires: number;
}

const MAX_CACHE = 10_000;

/**
 * `lastLogin` is written at most once a minute per user, so app-password requests (never
 * cached) add no write to the steady state of a client.
 */
const LAST_LOGIN_RESOLUTION_SECONDS = 60;

export function parseBasic(header: string): { login: string; password: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  // A NUL byte cannot be part of a login (PostgreSQL refuses it in text): malformed.
  if (i <= 0 || decoded.includes('\0')) return null;
  return { login: decoded.slice(0, i), password: decoded.slice(i + 1) };
}

export class AuthService {
  private readonly cache = new Map<string, CacheEntry>();
  /** Password checks under way, by address and credential: simultaneous identical requests share one. */
  private readonly verifying = new Map<string, Promise<AuthenticatedUser>>();

  constructor(
    private readonly directory: DirectoryService,
    private readonly bruteForce: BruteForceService,
    private readonly events: EventBus,
    private readonly cacheSeconds: number,
  ) {}

  /** Drops cached credentials of a user (this process; other processes see the new hash). */
  forget(userId: string): void {
    for (const [k, v] of this.cache) if (v.userId === userId) this.cache.delete(k);
  }

  /**
   * Verifies an Authorization header. Throws 401 for malformed or wrong credentials and
   * disabled users, 429 when the client address is past the failed-login cap. `passwordOnly`:
   * only the account's password counts (the login form, as Nextcloud's: an app password typed
   * there is a wrong password, so one app password cannot mint another).
   */
  async authenticate(header: string, ip: string, opts: { passwordOnly?: boolean } = {}): Promise<AuthenticatedUser> {
    const creds = parseBasic(header);
    if (!creds) await this.fail(ip);
    const { login, password } = creds!;
    // The cap comes before any credential is honoured: a capped address must not learn from a
    // 200 that a cached or app password is right (README "Security", docs/security.md).
    await this.bruteForce.assertBelowCap(ip, 'login');

    const now = Date.now();
    const key = sha256Hex(header);
    const hit = this.cache.get(key);
    if (hit && hit.expires > now) {
      const user = await this.directory.users.find(hit.userId);
      if (user && user.enabled && user.password_hash === hit.passwordHash) return { user };
      this.cache.delete(key);
    }

    // App passwords are 72 random characters: a direct hash lookup (nothing to guess within
    // any number of attempts), so no delay on the happy path; a disabled one counts as a failure.
    if (password.length === 72 && !opts.passwordOnly) {
      const ap = await this.directory.appPasswords.findLogin(sha256Hex(password));
      const user = ap && ap.userId === login ? await this.directory.users.find(ap.userId) : undefined;
      if (ap && user) {
        if (!user.enabled) await this.fail(ip);
        await this.recordLogin(user);
        return { user, appPasswordId: ap.appPasswordId };
      }
    }

    // Identical credentials from one address arriving together (a client's parallel requests
    // right after start-up) share one counted check: each would otherwise reserve an attempt
    // while the others' checks run, and a burst of correct requests would reach the cap. Distinct
    // passwords are never shared, so guessing still pays one attempt per guess.
    const flightKey = `${ip} ${key}`;
    const pending = this.verifying.get(flightKey);
    if (pending) return pending;
    const verified = this.verify(ip, login, password, key, now).finally(() => this.verifying.delete(flightKey));
    this.verifying.set(flightKey, verified);
    return verified;
  }

  /** The counted password check of a credential not in the cache; caches it when it passes. */
  private async verify(ip: string, login: string, password: string, key: string, now: number): Promise<AuthenticatedUser> {
    let user: UserRow | undefined;
    const ok = await this.bruteForce.guard(ip, 'login', async () => {
      user = await this.directory.users.findCurrent(login);
      return user !== undefined && Boolean(user.enabled) && (await verifyPassword(user.password_hash, password));
    });
    if (!ok || !user) throw notLoggedIn();
    await this.recordLogin(user);
    if (this.cacheSeconds > 0) {
      if (this.cache.size >= MAX_CACHE) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(key, { userId: user.id, passwordHash: user.password_hash, expires: now + this.cacheSeconds * 1000 });
    }
    return { user };
  }

  private async recordLogin(user: UserRow): Promise<void> {
    const now = nowSeconds();
    if (now - Number(user.last_login) < LAST_LOGIN_RESOLUTION_SECONDS) return;
    await this.directory.users.touchLastLogin(user.id, now);
    user.last_login = now;
  }

  /** A failure without a password check (malformed header, disabled app password). */
  private async fail(ip: string): Promise<never> {
    await this.bruteForce.failure(ip, 'login');
    throw notLoggedIn();
  }

  /** Creates an app password for a user; the clear text is returned once and never stored. */
  async createAppPassword(userId: string, name: string): Promise<string> {
    const token = newAppPassword();
    await this.directory.appPasswords.insert(userId, sha256Hex(token), name.slice(0, 255), nowSeconds());
    return token;
  }

  /** Replaces the secret of an app password; the old clear text stops working at once. */
  async rotateAppPassword(id: number): Promise<string> {
    const token = newAppPassword();
    await this.directory.appPasswords.replaceHash(id, sha256Hex(token));
    return token;
  }

  /** Revokes an app password of `userId`; the Talk sessions opened with it end (event). */
  async revokeAppPassword(id: number, userId: string): Promise<void> {
    await this.directory.appPasswords.delete(id);
    await this.events.emit('user.credential-revoked', { userId });
  }
}
