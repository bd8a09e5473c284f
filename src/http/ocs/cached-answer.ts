/**
 * `ocsRoute`'s `cache` option: hot read routes whose whole OCS answer is reused while provably
 * unchanged (src/cache/rendered-cache.ts: the database's change stamp or the change feed's
 * topics, and the answer's own expiry). The route declares its key and store; its handler
 * computes the answer as any handler does, naming what it was computed from (`KeptReply`).
 * One rule for all of them: the key always names the caller, the OCS version and the format
 * besides the route's own parts, and the cookie session and tab when the request carries one
 * (they pick the caller's own sessions, which records show); only logged-in callers are kept
 * unless the route says otherwise. A failure (a thrown error) is never stored.
 */
import type { RenderedAnswers } from '../../cache/rendered-cache.js';
import type { RequestContext } from '../../services/platform/request-context.js';
import { tabIdOf } from '../../services/participants/client-sessions.js';
import { renderOcs } from './envelope.js';
import { KeptReply, OcsReply, RawReply, type OcsCall } from './replies.js';

export type KeyPart = string | number | boolean;

export interface RouteCache<P> {
  /** The store its answers are kept in (`RenderedAnswers`: each has its own bounds). */
  store: keyof RenderedAnswers['stores'];
  /** The route's own key parts (its path parameters and options); undefined: this request's answer is computed and not kept. */
  key: (call: { params: P; ctx: RequestContext }) => readonly KeyPart[] | undefined;
  /** Keep answers of callers who are not logged in too (one per version and format); default: logged-in callers only. */
  anonymous?: boolean;
  /** Whether the cookie session and tab are part of the key (default true; false for an answer that shows no session). */
  bySession?: boolean;
  /**
   * Work done on every request before the kept answer is looked up, which a kept answer does
   * not skip (GET /room's automatic online status); the headers it returns are sent with the
   * answer (per-request ones, such as a time taken before the answer's reads).
   */
  perRequest?: (call: { params: P; ctx: RequestContext }) => Promise<Record<string, string> | void>;
}

/** Wraps a route's handler in its `cache` option: the answer kept under the call's key, or computed (and kept) by `handler`. */
export function keptAnswers<P>(
  answers: RenderedAnswers,
  cache: RouteCache<P>,
  handler: (call: OcsCall<P>) => Promise<unknown>,
): (call: OcsCall<P>) => Promise<RawReply> {
  const store = answers.stores[cache.store];
  return async (call) => {
    const extra = cache.perRequest ? await cache.perRequest(call) : undefined;
    const answer = await store.through(keyOf(cache, call), async () => {
      const out = await handler(call);
      if (out instanceof RawReply) throw new Error('a route with a cache option answers OCS data');
      const reply = out instanceof OcsReply ? out : new OcsReply(out);
      const validity = reply instanceof KeptReply ? reply.validity : {};
      const rendered = renderOcs(call.version, call.format, reply.status, reply.data);
      return { rendered, until: validity.until ?? Infinity, headers: reply.headers, topics: validity.topics };
    });
    return new RawReply(answer.body, answer.contentType, answer.httpStatus, { ...answer.headers, ...extra });
  };
}

function keyOf<P>(cache: RouteCache<P>, call: OcsCall<P>): string | undefined {
  const { ctx, version, format } = call;
  if (ctx.userId === undefined && !cache.anonymous) return undefined;
  const parts = cache.key(call);
  if (parts === undefined) return undefined;
  const session = cache.bySession === false || ctx.guestSessionKey === undefined ? '' : `${ctx.guestSessionKey}\0${tabIdOf(ctx)}`;
  return [...parts, ctx.userId ?? '', version, format, session].join('\0');
}
