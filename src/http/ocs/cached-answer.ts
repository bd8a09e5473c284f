/**
 * Hot read routes whose whole OCS answer is reused while provably unchanged (RenderedCache:
 * the database's change stamp and the answer's own expiry). One rule for all of them: only
 * logged-in callers without a cookie session are cached — a cookie session picks the caller's
 * own sessions, which the key does not name — and the key always names the caller, the OCS
 * version and the format besides the route's own parts. A failure is never stored.
 */
import type { RenderedAnswer, RenderedCache } from '../../services/rendered-cache.js';
import type { RequestContext } from '../../services/request-context.js';
import { renderOcs, type OcsFormat, type OcsVersion } from './envelope.js';

export interface FreshAnswer {
  data: unknown;
  /** Unix second after which the answer may be stale without a write (Infinity: never). */
  until: number;
  /** Headers that belong to the answer (computed with it, cached with it). */
  headers?: Record<string, string>;
}

export function cachedOcsAnswer(
  cache: RenderedCache,
  call: { ctx: RequestContext; version: OcsVersion; format: OcsFormat },
  keyParts: ReadonlyArray<string | number | boolean>,
  compute: () => Promise<FreshAnswer>,
): Promise<RenderedAnswer> {
  const { ctx, version, format } = call;
  const key = ctx.userId === undefined || ctx.guestSessionKey ? undefined : [...keyParts, ctx.userId, version, format].join('\0');
  return cache.through(key, async () => {
    const fresh = await compute();
    return { rendered: renderOcs(version, format, 200, fresh.data), until: fresh.until, headers: fresh.headers };
  });
}
