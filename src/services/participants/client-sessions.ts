/**
 * Cookie ("client") sessions: Parley's stand-in for the PHP session Talk keeps per browser
 * (docs/reference/participants.md#joining-and-leaving join steps 1, 4, 7, 8). A browser's HttpOnly cookie identifies a row in
 * the database (so every Parley process sees it) that remembers, per conversation token and tab,
 * the Talk session id of the last join and the guest actor id. Plain API clients that send no
 * cookie simply get a new session on every join. The cookie value is stored only as sha256.
 */
import { randomBytes } from 'node:crypto';
import type { ClientRoomEntry, ClientSessionsRepository } from '../../db/repositories/client-sessions.js';
import { sha256Hex } from '../../domain/passwords.js';
import type { RequestContext } from '../platform/request-context.js';
import { nowSeconds } from '../../domain/time.js';
import { cookieValue } from '../../domain/cookies.js';
import { passwordStamp, type CookieLogin } from '../../domain/cookie-login.js';

export const SESSION_COOKIE = 'parley_session';
/** 32 random bytes, base64url. */
const KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** Talk's tab id header: 64 alphanumerics (docs/reference/constants.md#generated-identifiers Session id). */
export const TAB_HEADER = 'x-nextcloud-talk-session-tab-id';
const TAB_PATTERN = /^[a-zA-Z0-9]{64}$/;

/** The cookie value from a Cookie header, when well-formed. */
export function sessionKeyFromCookie(header: string | undefined): string | undefined {
  const v = cookieValue(header, SESSION_COOKIE);
  return v !== undefined && KEY_PATTERN.test(v) ? v : undefined;
}

/** The tab id of the request ('' when absent or malformed). */
export function tabIdOf(ctx: RequestContext): string {
  const h = ctx.headers[TAB_HEADER];
  const v = Array.isArray(h) ? h[0] : h;
  return v && TAB_PATTERN.test(v) ? v : '';
}

/**
 * The login a logged-in caller's join binds its cookie session to: the app password, else the
 * browser login session, else the password hash the request was verified against. Guests: none.
 */
function loginOf(ctx: RequestContext): CookieLogin | undefined {
  if (!ctx.user) return undefined;
  const login: CookieLogin = { user_id: ctx.user.id, app_password_id: null, login_token_hash: null, password_stamp: null };
  if (ctx.appPasswordId !== undefined) login.app_password_id = ctx.appPasswordId;
  else if (ctx.loginSessionKey !== undefined) login.login_token_hash = sha256Hex(ctx.loginSessionKey);
  else login.password_stamp = passwordStamp(ctx.user.password_hash);
  return login;
}

export class ClientSessionService {
  constructor(
    private readonly repo: ClientSessionsRepository,
    private readonly secureCookie: boolean,
  ) {}

  /** What the caller's cookie session remembers for this token; undefined without a cookie. */
  async entry(ctx: RequestContext, token: string): Promise<ClientRoomEntry | undefined> {
    if (!ctx.guestSessionKey) return undefined;
    return this.repo.entry(sha256Hex(ctx.guestSessionKey), token, tabIdOf(ctx));
  }

  /**
   * Remembers the session (and guest actor) for this token, creating the cookie session when the
   * caller has none yet (the new key is put on the context; see `setCookieHeader`).
   */
  async remember(ctx: RequestContext, token: string, sessionId: string | null, guestActorId: string | null): Promise<void> {
    ctx.guestSessionKey ??= randomBytes(32).toString('base64url');
    const id = await this.repo.ensure(sha256Hex(ctx.guestSessionKey), nowSeconds(), loginOf(ctx));
    await this.repo.remember(id, token, tabIdOf(ctx), sessionId, guestActorId);
  }

  /**
   * Join: points the cookie session at `next` if it still points at `expected` (see
   * ClientSessionsRepository.claim), creating the cookie session when the caller has none.
   */
  async claim(ctx: RequestContext, token: string, expected: string | null, next: string, guestActorId: string | null): Promise<boolean> {
    ctx.guestSessionKey ??= randomBytes(32).toString('base64url');
    const id = await this.repo.ensure(sha256Hex(ctx.guestSessionKey), nowSeconds(), loginOf(ctx));
    return this.repo.claim(id, token, tabIdOf(ctx), expected, next, guestActorId);
  }

  /** sha256 of the caller's cookie value (for joins through the cookie session), if any. */
  keyHash(ctx: RequestContext): string | undefined {
    return ctx.guestSessionKey ? sha256Hex(ctx.guestSessionKey) : undefined;
  }

  /** Leave: the cookie session no longer points at a Talk session for this token. */
  async forget(ctx: RequestContext, token: string): Promise<void> {
    if (!ctx.guestSessionKey) return;
    await this.repo.forgetSession(sha256Hex(ctx.guestSessionKey), token, tabIdOf(ctx));
  }

  /** The Set-Cookie header for a key (HttpOnly, SameSite=Lax, Secure behind https). */
  setCookieHeader(key: string): string {
    return `${SESSION_COOKIE}=${key}; Path=/; HttpOnly; SameSite=Lax${this.secureCookie ? '; Secure' : ''}`;
  }

  /** Cleanup: cookie sessions unused for `maxAgeSeconds`. */
  prune(now: number, maxAgeSeconds: number): Promise<number> {
    return this.repo.prune(now - maxAgeSeconds);
  }
}
