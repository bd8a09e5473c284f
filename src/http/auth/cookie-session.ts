/**
 * The cookie-session layer of the request context: a well-formed `parley_session` cookie is put
 * on `ctx.guestSessionKey` (no database access here; services look it up only when they need it,
 * so endpoints that do not care pay nothing). Registered once, at module load.
 */
import { contextHooks } from '../ocs/route.js';
import { sessionKeyFromCookie } from '../../services/client-sessions.js';

let registered = false;

export function registerCookieSessions(): void {
  if (registered) return;
  registered = true;
  contextHooks.push(async (ctx, request) => {
    const key = sessionKeyFromCookie(request.headers.cookie);
    if (key) ctx.guestSessionKey = key;
  });
}

/** Set-Cookie headers for a reply when the service created a cookie session in this request. */
export function newCookieHeaders(before: string | undefined, after: string | undefined, header: (key: string) => string): Record<string, string> {
  return after && after !== before ? { 'Set-Cookie': header(after) } : {};
}
