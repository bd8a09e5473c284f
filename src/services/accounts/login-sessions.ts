/**
 * Browser login sessions for Parley's own web pages (the admin settings page, docs/operators.md
 * "Admin settings page"). Logging in goes through AuthService, so it has the same argon2 check,
 * brute-force throttle and one answer for "no such account" and "wrong password". The session
 * lives in the database (sha256 of the cookie value) so every process accepts it; a password
 * change, a disabled account or a deleted account ends it.
 */
import type { LoginSessionsRepository } from '../../db/repositories/login-sessions.js';
import type { UserRow } from '../../db/repositories/users.js';
import { randomString, sha256Hex } from '../../domain/passwords.js';
import type { AuthService } from './auth.js';
import { nowSeconds } from '../../domain/time.js';
import type { EventBus } from '../../events/bus.js';

/** Absolute lifetime of a login session. */
export const LOGIN_SESSION_SECONDS = 12 * 3600;

export class LoginSessionService {
  private lastSweep = 0;

  constructor(
    private readonly repo: LoginSessionsRepository,
    private readonly auth: AuthService,
    private readonly events: EventBus,
  ) {}

  /** Ends every login session of a user (credentials changed, user deleted). */
  async endAllFor(userId: string): Promise<void> {
    await this.repo.deleteForUser(userId);
  }

  /**
   * Checks a login and password; returns the new cookie value. Throws the same 401 as the API
   * for an unknown account and a wrong password (429 past the brute-force cap).
   */
  async login(login: string, password: string, ip: string): Promise<{ token: string; user: UserRow }> {
    const header = 'Basic ' + Buffer.from(`${login}:${password}`).toString('base64');
    // The account's password only, as on the login flows' form (an app password is refused).
    const { user } = await this.auth.authenticate(header, ip, { passwordOnly: true });
    const token = randomString(64);
    const now = nowSeconds();
    await this.repo.insert(sha256Hex(token), user.id, now, now + LOGIN_SESSION_SECONDS);
    if (now - this.lastSweep > 3600) {
      this.lastSweep = now;
      await this.repo.deleteExpired(now);
    }
    return { token, user };
  }

  /** The user of a live session, or undefined (one query). */
  async resolve(token: string): Promise<UserRow | undefined> {
    if (!/^[A-Za-z0-9]{64}$/.test(token)) return undefined;
    return this.repo.findUser(sha256Hex(token), nowSeconds());
  }

  /** Ends the session; the Talk sessions opened through it end too (`user.credential-revoked`). */
  async logout(token: string): Promise<void> {
    const userId = await this.repo.delete(sha256Hex(token));
    if (userId !== undefined) await this.events.emit('user.credential-revoked', { userId });
  }
}
