/**
 * The browser login session cookie of Parley's web pages. HttpOnly (scripts cannot read it),
 * SameSite=Strict (other sites cannot make the browser send it), Secure when BASE_URL is https.
 * buildContext (ocs/route.ts) accepts it so the admin page's script can call the OCS API (which
 * still demands the OCS-APIRequest header, so a plain cross-site form cannot use the session).
 */
import type { FastifyRequest } from 'fastify';
import type { Services } from '../../services/index.js';
import { cookieValue } from '../../domain/cookies.js';
import { LOGIN_SESSION_SECONDS } from '../../services/accounts/login-sessions.js';

export const LOGIN_COOKIE = 'parley_login';

/** The value of one cookie of the request, or undefined. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  return cookieValue(request.headers.cookie, name);
}

export function loginCookie(services: Services, token: string): string {
  const secure = services.settings.baseUrl.startsWith('https:') ? '; Secure' : '';
  return `${LOGIN_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${LOGIN_SESSION_SECONDS}${secure}`;
}

export function clearedLoginCookie(): string {
  return `${LOGIN_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;
}

/** The user of the request's login session, if any. */
export async function loginSessionUser(request: FastifyRequest, services: Services) {
  const token = readCookie(request, LOGIN_COOKIE);
  return token ? services.loginSessions.resolve(token) : undefined;
}
