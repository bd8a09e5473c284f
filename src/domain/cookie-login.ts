/**
 * The login a user's cookie session (`parley_session`) was opened with, and whether it still
 * holds (docs/security.md "Logins, Talk-session cookies and what follows an account"). A request
 * that carries only the cookie acts as the user of a session it remembers while the account is
 * enabled and the credential the join was made with still exists, as Nextcloud's session is
 * checked on every request; guests' cookies are not bound to anything.
 */
import { sha256Hex } from './passwords.js';

/** The credential a join was made with (stored on the cookie session, never the secret itself). */
export interface CookieLogin {
  user_id: string;
  /** The app password of the request (HTTP Basic with an app password). */
  app_password_id: number | null;
  /** sha256 of the browser login session's cookie (Parley's web pages). */
  login_token_hash: string | null;
  /** `passwordStamp` of the password hash a Basic login was verified against. */
  password_stamp: string | null;
}

/** The binding as stored and the current state of what it names, read with the cookie's sessions. */
export interface CookieLoginState {
  b_user_id: string | null;
  b_app_password_id: number | string | null;
  b_login_token_hash: string | null;
  b_password_stamp: string | null;
  /** The bound account (null when it is gone). */
  u_enabled: number | null;
  u_password_hash: string | null;
  /** The bound app password of that account (null when revoked). */
  ap_id: number | string | null;
  /** The bound login session of that account (null when ended). */
  ls_expires_at: number | string | null;
}

/** A value that changes whenever the password does, without being usable as the hash. */
export function passwordStamp(passwordHash: string): string {
  return sha256Hex(`cookie-login\0${passwordHash}`).slice(0, 32);
}

/**
 * Whether a cookie session still acts for the user `actorId`: bound to that user, the account
 * enabled, and the credential still there (app password not revoked, login session not ended or
 * expired, password unchanged). A cookie session without a binding acts for nobody.
 */
export function cookieLoginHolds(actorId: string, s: CookieLoginState, now: number): boolean {
  if (s.b_user_id !== actorId || Number(s.u_enabled) !== 1 || s.u_password_hash === null) return false;
  if (s.b_app_password_id !== null) return s.ap_id !== null;
  if (s.b_login_token_hash !== null) return s.ls_expires_at !== null && Number(s.ls_expires_at) > now;
  if (s.b_password_stamp !== null) return passwordStamp(s.u_password_hash) === s.b_password_stamp;
  return false;
}
