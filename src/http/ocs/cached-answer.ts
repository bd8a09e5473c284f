/**
 * Hot read routes whose whole OCS answer is reused while provably unchanged (RenderedCache:
 * the database's change stamp or the change feed's topics, and the answer's own expiry). One
 * rule for all of them: only logged-in callers are cached, and the key always names the
 * caller, the OCS version and the format besides the route's own parts, and the cookie session
 * and tab when the request carries one (they pick the caller's own sessions, which records
 * show). A failure is never stored.
 */
import type { RenderedAnswer, RenderedCache } from '../../cache/rendered-cache.js';
import type { RequestContext } from '../../services/platform/request-context.js';
import { tabIdOf } from '../../services/participants/client-sessions.js';
import { renderOcs, type OcsFormat, type OcsVersion } from './envelope.js';

export interface FreshAnswer {
  data: unknown;
  /** Unix second after which the answer may be stale without a write (Infinity: never). */
  until: number;
  /** Headers that belong to the answer (computed with it, cached with it). */
  headers?: Record<string, string>;
  /**
   * The change-feed topics the answer was computed from besides `g` (cache/change-feed.ts): with
   * them it is reused while none changed; without, only while nothing at all was written.
   */
  topics?: readonly string[];
}

export function cachedOcsAnswer(
  cache: RenderedCache,
  call: { ctx: RequestContext; version: OcsVersion; format: OcsFormat },
  /** The route's own key parts; undefined: an answer not worth keeping (computed, never stored). */
  keyParts: ReadonlyArray<string | number | boolean> | undefined,
  compute: () => Promise<FreshAnswer>,
): Promise<RenderedAnswer> {
  const { ctx, version, format } = call;
  const cookie = ctx.guestSessionKey === undefined ? '' : `${ctx.guestSessionKey}\0${tabIdOf(ctx)}`;
  const key = ctx.userId === undefined || keyParts === undefined ? undefined : [...keyParts, ctx.userId, version, format, cookie].join('\0');
  return cache.through(key, async () => {
    const fresh = await compute();
    return { rendered: renderOcs(version, format, 200, fresh.data), until: fresh.until, headers: fresh.headers, topics: fresh.topics };
  });
}
